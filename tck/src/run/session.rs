//! One run's start and end, written once for every entrance: the agent run (the command's
//! `run`), `a2a-tck card`, `a2a-tck client` and the library's `api::run`.
//!
//! ```text
//! let session = Session::new(gate);                  // the gate checked before the run
//! let agent = BuiltinAgent::start(config, durable);  // the built-in agent, if it is the target
//! session.begin();                                   // the run's clock, at its first request
//! let report = session.report(&catalog, &options, runner::run(..).await)?;
//! let notes = session.end(&mut report);              // evidence capped, gate applied
//! let status = session.exit_status(&report);
//! ```
//!
//! What only the command does (the reports checked before the first request and written
//! after the last, the signals, the summary) is the command's own session,
//! `cli/command_session.rs`, built on this one.

use std::time::{Duration, SystemTime};

use a2a_reference_agent::{AgentConfig, RunningAgent};

use crate::reporting::gate::Gate;
use crate::reporting::report::Report;
use crate::run::durability::{BuiltinDurable, Durability};
use crate::run::runner::{RunError, RunOptions};
use crate::suite::check::Check;

/// A run from its start to its end: the gate it is held to and when it began.
#[derive(Debug, Clone)]
pub struct Session {
    gate: Gate,
    started_at: SystemTime,
}

impl Session {
    /// A run held to `gate` (checked already: see [`Gate::load`] and [`Gate::new`]).
    pub fn new(gate: Gate) -> Session {
        Session {
            gate,
            started_at: SystemTime::now(),
        }
    }

    /// The run's clock starts now (at its first request, once the built-in agent is up): the
    /// report of a run that could not start says when it began.
    pub fn begin(&mut self) {
        self.started_at = SystemTime::now();
    }

    /// The gate the run is held to.
    pub fn gate(&self) -> &Gate {
        &self.gate
    }

    /// The report of a run's outcome: a card the kit could not use gives the report of that
    /// (verdict `error`, the card exchange as evidence), and so does a run stopped before its
    /// first check (verdict `interrupted`); any other error is no report.
    pub fn report(
        &self,
        catalog: &[Check],
        options: &RunOptions,
        outcome: Result<Report, RunError>,
    ) -> Result<Report, RunError> {
        match outcome {
            Ok(report) => Ok(report),
            Err(RunError::Card { error, evidence }) => Ok(crate::run::failure::card_unusable(
                catalog,
                options,
                self.started_at,
                error.to_string(),
                evidence,
            )),
            Err(RunError::Interrupted) => Ok(crate::run::failure::interrupted(
                catalog,
                options,
                self.started_at,
            )),
            Err(other) => Err(other),
        }
    }

    /// The end of the run: the evidence capped and the gate applied (the baseline and the
    /// floor); the notes are for the user's terminal.
    pub fn end(&self, report: &mut Report) -> Vec<String> {
        report.cap_evidence();
        self.gate.apply(report)
    }

    /// The exit status of a report [`Session::end`] has ended: see [`Gate::exit_status`].
    pub fn exit_status(&self, report: &Report) -> u8 {
        self.gate.exit_status(report)
    }
}

/// The built-in reference agent a run starts when it is the target: served in-process, or
/// (under durability) on a SQLite file and restarted in-process.
#[derive(Debug)]
pub enum BuiltinAgent {
    /// The agent, kept in memory.
    Plain(RunningAgent),
    /// The agent on a SQLite file, restarted by the durability phase.
    Durable(BuiltinDurable),
}

impl BuiltinAgent {
    /// Starts the agent of `config`, on a SQLite file when `durable`.
    pub async fn start(config: AgentConfig, durable: bool) -> std::io::Result<BuiltinAgent> {
        if durable {
            BuiltinDurable::start(config)
                .await
                .map(BuiltinAgent::Durable)
        } else {
            crate::run::builtin::start_with(config)
                .await
                .map(BuiltinAgent::Plain)
        }
    }

    /// The agent's base URL.
    pub fn base_url(&self) -> String {
        match self {
            BuiltinAgent::Plain(agent) => agent.base_url(),
            BuiltinAgent::Durable(agent) => agent.base_url(),
        }
    }

    /// Where the agent serves its card (a fault may move it off the well-known path).
    pub fn served_card_url(&self) -> String {
        match self {
            BuiltinAgent::Plain(agent) => agent.served_card_url(),
            BuiltinAgent::Durable(agent) => agent.served_card_url(),
        }
    }

    /// The private CA the agent made under TLS, which the run trusts (kept across restarts).
    pub fn ca_pem(&self) -> Option<&str> {
        match self {
            BuiltinAgent::Plain(agent) => agent.ca_pem(),
            BuiltinAgent::Durable(agent) => agent.ca_pem(),
        }
    }

    /// How the durability phase restarts the agent, when it is durable.
    pub fn durability(&self, ready_timeout: Duration) -> Option<Durability> {
        match self {
            BuiltinAgent::Plain(_) => None,
            BuiltinAgent::Durable(agent) => Some(agent.durability(ready_timeout)),
        }
    }

    /// Stops the agent.
    pub async fn shutdown(self) {
        match self {
            BuiltinAgent::Plain(agent) => agent.shutdown().await,
            BuiltinAgent::Durable(agent) => agent.shutdown().await,
        }
    }
}

//! The kit as a library: one call, [`run`], takes [`Options`] (the target, the selection, the
//! deadlines) and returns the [`Report`], the same report the `a2a-tck` command writes: a
//! facade over [`crate::run::runner::run`], started and ended by the run session every entrance
//! shares ([`crate::run::session`]), so an SDK or an agent's own test suite can gate on
//! conformance inside `cargo test`.
//!
//! ```no_run
//! use a2a_tck::api::{self, Options, Verdict};
//!
//! # async fn gate() -> Result<(), a2a_tck::api::Error> {
//! // An agent already serving (e.g. started by the test itself on an ephemeral port):
//! let report = api::run(&Options::url("http://127.0.0.1:8080")).await?;
//! assert_eq!(report.verdict, Verdict::Conformant, "{}", api::summary(&report));
//! # Ok(())
//! # }
//! ```
//!
//! The report serializes to the versioned JSON format ([`Report::to_json`], [`Report::write`]);
//! [`summary`], [`markdown`], [`junit`], [`html`] and [`sarif`] render it as the command's
//! other outputs do. Every type a report holds is re-exported here, so a test can read it
//! without naming the kit's internal modules.

use std::time::Duration;

use crate::run::runner::{self, RunError};
use crate::run::session::{BuiltinAgent, Session};
use crate::{exchange::card, reporting::output, run::builtin, suite::checks};

pub use crate::facts::drive::Drive;
pub use crate::reporting::baseline::Baseline;
pub use crate::reporting::floor::MinJudged;
pub use crate::reporting::format::Format;
pub use crate::reporting::gate::Gate;
pub use crate::reporting::report::{CheckResult, Report, Verdict};
pub use crate::suite::check::{Binding, Level, ProtocolVersion, Status};
pub use crate::suite::contract::Contract;
pub use a2a_reference_agent::{AgentConfig, Fault};

mod options;
pub use options::{Options, Target};

/// The types a [`Report`] holds, as its JSON names them (`schemas/report.schema.json`).
pub mod model {
    pub use crate::exchange::card::DeclaredInterface;
    pub use crate::exchange::evidence::{
        Dropped, Exchange, RecordedBody, RecordedEvent, RecordedRequest, RecordedResponse,
    };
    pub use crate::exchange::latency::{Figures, OperationLatency};
    pub use crate::reporting::report::{
        AppliedReading, Compatibility, ConfigurationRun, Counts, DurabilityReport, Expected, Floor,
        Gate, LevelCount, NotRun, Partial, RefusedOperation, ReportError, RunFailure, Selection,
        SignatureForms, SpecRevisionJudged, Stale, Target, Tool, UntestedDeclaration,
        VersionedCard,
    };
    pub use crate::suite::contract::{Carrier, ContractReport};
}

/// Why a run produced no report. A run that produced one returns it, whatever its verdict.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// The options are not usable (a zero deadline, a bad header, a glob matching nothing).
    #[error("{0}")]
    Usage(String),
    /// The built-in reference agent could not start.
    #[error("failed to start the built-in reference agent: {0}")]
    Start(#[source] std::io::Error),
    /// The run could not start: the card could not be fetched or parsed, or the kit failed.
    #[error(transparent)]
    Run(RunError),
}

impl From<RunError> for Error {
    fn from(error: RunError) -> Error {
        match error {
            RunError::Usage(message) => Error::Usage(message),
            other => Error::Run(other),
        }
    }
}

/// Runs every selected check against the target and returns the report.
///
/// A built-in target is started before the run and shut down after it. The report's
/// `verdict` is the gate: [`Verdict::Conformant`] when every MUST check passed and nothing was
/// left unjudged.
///
/// ```no_run
/// use a2a_tck::api::{self, Options, Verdict};
///
/// # async fn gate() -> Result<(), a2a_tck::api::Error> {
/// let report = api::run(&Options::builtin().select("card.*")).await?;
/// assert_eq!(report.verdict, Verdict::Conformant);
/// # Ok(())
/// # }
/// ```
pub async fn run(options: &Options) -> Result<Report, Error> {
    options.validate()?;
    let mut session = Session::new(options.gate()?);
    let mut report = run_unjudged(options, &mut session).await?;
    session.end(&mut report);
    Ok(report)
}

/// The exit status the command gives a report [`run`] returned with these options: 0 when
/// every gate held (the verdict, or the baseline of [`Options::expect`], and the floor of
/// [`Options::min_judged`]), 1 when one failed, 2 when the kit could not run, 130 when the run
/// was interrupted. See [`Gate::exit_status`].
pub fn exit_status(options: &Options, report: &Report) -> Result<u8, Error> {
    Ok(options.gate()?.exit_status(report))
}

/// The run itself, before its session ends it (its baseline and floor judged): the built-in
/// agent started when it is the target and stopped after the run, and the report of the
/// run's outcome (a card the kit could not use, or a run stopped before its card was read,
/// gives the report the command writes then, not an error).
async fn run_unjudged(options: &Options, session: &mut Session) -> Result<Report, Error> {
    let catalog = checks::all();
    let (agent, run) = match &options.target {
        Target::Url(url) => {
            let card_url = match &options.card_url {
                Some(card_url) => card_url.clone(),
                None => card::card_url_for(url).map_err(|error| RunError::Card {
                    error,
                    evidence: Vec::new(),
                })?,
            };
            let mut run = options.run_options(url, &card_url, false);
            run.durability = (options.restart_cmd.as_deref())
                .map(|c| crate::run::durability::Durability::command(c, options.ready_timeout));
            (None, run)
        }
        Target::Builtin(config) => {
            let mut config = config.clone();
            let credentials = options
                .builtin_auth
                .then(|| builtin::authenticated(&mut config));
            let agent = BuiltinAgent::start(config, options.durable)
                .await
                .map_err(Error::Start)?;
            // A fault may move the card off the well-known path: read it where it is served.
            let card_url = (options.card_url.clone()).unwrap_or_else(|| agent.served_card_url());
            // A durable agent keeps its private CA across restarts.
            let mut run =
                options.builtin_run(&agent.base_url(), &card_url, agent.ca_pem(), credentials);
            run.durability = agent.durability(options.ready_timeout);
            (Some(agent), run)
        }
    };
    session.begin();
    let outcome = within(options.deadline, runner::run(&catalog, &run), &run.stop).await;
    if let Some(agent) = agent {
        agent.shutdown().await;
    }
    Ok(session.report(&catalog, &run, outcome)?)
}

/// `run`'s outcome, its stop thrown once `deadline` (if any) has passed.
async fn within<T>(
    deadline: Option<Duration>,
    run: impl std::future::Future<Output = T>,
    stop: &crate::facts::stop::Stop,
) -> T {
    let Some(deadline) = deadline else {
        return run.await;
    };
    let timer = async {
        tokio::time::sleep(deadline).await;
        stop.stop_because(format!(
            "its deadline of {} ran out",
            humantime::format_duration(deadline)
        ));
        // The run ends on its own once stopped: the grace, then its report.
        std::future::pending::<()>().await;
    };
    tokio::pin!(run);
    tokio::select! {
        output = &mut run => output,
        () = timer => unreachable!("the timer never ends"),
    }
}

/// [`run`] on a runtime of its own, for callers that are not async. It must not be called
/// from inside an async runtime (use [`run`] there).
///
/// ```no_run
/// use a2a_tck::api::{self, Options};
///
/// let report = api::run_blocking(&Options::builtin()).expect("the run starts");
/// println!("{}", api::summary(&report));
/// ```
pub fn run_blocking(options: &Options) -> Result<Report, Error> {
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .map_err(|e| Error::Usage(format!("failed to start the async runtime: {e}")))?;
    runtime.block_on(run(options))
}

/// The text summary the command prints: verdict, totals and every result that is not PASS,
/// with its message. Fit for an assertion message.
pub fn summary(report: &Report) -> String {
    output::summary(report)
}

/// The Markdown report (`--markdown`): verdict, compatibility, contract, failures first,
/// the not-run list, latency; fit for a CI step summary.
pub fn markdown(report: &Report) -> String {
    output::markdown(report)
}

/// The JUnit XML report (`--junit`): one test case per check x binding x version.
pub fn junit(report: &Report) -> Result<String, Error> {
    Format::Junit
        .render(report, None)
        .map_err(|e| Error::Usage(format!("the JUnit report: {e}")))
}

/// The HTML report (`--html`): one self-contained page.
pub fn html(report: &Report) -> String {
    crate::reporting::html::page(report)
}

/// The SARIF 2.1.0 log (`--sarif`): each result that is not PASS located in the card (or,
/// given `baseline_text`, the baseline file the run was gated on).
pub fn sarif(report: &Report, baseline_text: Option<&str>) -> String {
    crate::reporting::sarif::sarif(report, baseline_text)
}

/// The results that did not pass (FAIL, WARN, ERROR, UNTESTABLE; N/A is not counted).
pub fn problems(report: &Report) -> Vec<&CheckResult> {
    report
        .results
        .iter()
        .filter(|r| !matches!(r.status, Status::Pass | Status::NotApplicable))
        .collect()
}

//! What a run is given ([`RunOptions`]: the target, the selection, the deadlines, the
//! credentials, the stop) and why it may not start ([`RunError`]).

use std::sync::Arc;
use std::time::Duration;

use crate::exchange::card::CardError;
use crate::exchange::wire::Limits;
use crate::suite::check::{HarnessError, ProtocolVersion};
use crate::suite::contract::Contract;

use crate::suite::filter::Filter;

/// The most checks the command line runs at once against an agent other than the built-in
/// one, unless told (`--jobs`): a ceiling. The run starts with [`crate::exchange::pace::START`] and
/// rises towards it only while the agent's latency stays flat and it shows no sign of load.
pub const TARGET_JOBS: usize = 128;

/// Everything a run needs.
#[derive(Debug, Clone)]
pub struct RunOptions {
    /// What the report names as the target.
    pub target: String,
    pub card_url: String,
    pub builtin: bool,
    pub filter: Filter,
    pub limits: Limits,
    /// Deadline of one check, all its exchanges included.
    pub check_timeout: Duration,
    /// The most checks run at once (`--jobs`): the ceiling of the run's pace, which starts at
    /// [`crate::exchange::pace::START`] and adapts to the agent.
    pub jobs: usize,
    /// Headers to send on every request (credentials); redacted in evidence.
    pub headers: Vec<(String, String)>,
    /// Public keys (JWKs) trusted for card signatures (`--trusted-key`).
    pub trusted_keys: Vec<serde_json::Value>,
    /// The credentials of a second principal (`--other-bearer`, `--other-header`), sent in
    /// place of `headers` by the checks of principal isolation; redacted in evidence.
    pub other_headers: Vec<(String, String)>,
    /// The credentials of a limited principal (`--limited-bearer`, `--limited-header`): one
    /// the agent authenticates but permits nothing, sent in place of `headers` by the checks
    /// of authorization errors; redacted in evidence.
    pub limited_headers: Vec<(String, String)>,
    /// Told how many checks have finished, of how many planned (for a progress bar).
    pub progress: Option<Progress>,
    /// The scenario contract the agent honours (`--contract`); `None`: the probe decides.
    pub contract: Option<Contract>,
    /// A drive file (`--drive`): the messages that bring an agent that plays no scenario
    /// contract into each state; overrides `contract`.
    pub drive: Option<Arc<crate::facts::drive::Drive>>,
    /// An SDK's ACTS behaviour file (`--sut-behaviors`): the contract is ACTS and the
    /// scenarios are those it declares, with no probe; overrides `contract`.
    pub sut_behaviors: Option<Arc<crate::facts::behaviors::SutBehaviors>>,
    /// What a check that needs a scenario the behaviour file does not declare gets
    /// (`--undeclared`): UNTESTABLE by default, FAIL under the ACTS runner's rule.
    pub undeclared: crate::facts::behaviors::Undeclared,
    /// CA certificates (PEM) trusted besides the system's (`--ca-cert`).
    pub ca_certs: Vec<Vec<u8>>,
    /// The durability area (`--restart-cmd`, `--durability`): how to restart the target in
    /// the middle of the run. `None`: the `durability.*` checks are not run.
    pub durability: Option<crate::run::durability::Durability>,
    /// The webhook receiver of the push checks (`--webhook-url`, `--webhook-listen`).
    pub webhook: crate::exchange::webhook::WebhookOptions,
    /// Stops the run early (SIGINT, SIGTERM): no check starts after it is thrown, those in
    /// flight get its grace, the rest are reported not run; the report says `interrupted`.
    pub stop: crate::facts::stop::Stop,
    /// The version to read a card in as when it names none (`--assume-version 0.3`: the
    /// pre-0.3 shape, a top-level url without protocolVersion or supportedInterfaces). `None`:
    /// such a card's interfaces are declared, not tested.
    pub assume_version: Option<ProtocolVersion>,
    /// How the sentences the revisions of 1.0 word differently are judged (`--spec-revision`):
    /// by the latest, tolerating an older revision's answer (the default), or by one revision
    /// alone.
    pub spec_revision: crate::facts::revision::Judging,
}

/// A progress callback: `(finished, planned)`, called once before the first check finishes
/// and after each one.
#[derive(Clone)]
pub struct Progress(pub Arc<dyn Fn(usize, usize) + Send + Sync>);

impl std::fmt::Debug for Progress {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Progress")
    }
}

impl RunOptions {
    /// Adds the built-in agent's credentials to these options (the user's own headers stay,
    /// except an `Authorization` of theirs, which the built-in agent would refuse).
    pub fn use_credentials(&mut self, credentials: crate::run::builtin::Credentials) {
        let is_auth = |(name, _): &(String, String)| name.eq_ignore_ascii_case("authorization");
        self.headers.retain(|h| !is_auth(h));
        self.headers.extend(credentials.headers);
        self.other_headers.retain(|h| !is_auth(h));
        self.other_headers.extend(credentials.other);
        self.limited_headers.retain(|h| !is_auth(h));
        self.limited_headers.extend(credentials.limited);
    }

    pub fn new(target: &str, card_url: &str) -> RunOptions {
        RunOptions {
            target: target.to_string(),
            card_url: card_url.to_string(),
            builtin: false,
            filter: Filter::default(),
            limits: Limits::default(),
            check_timeout: Duration::from_secs(30),
            // The built-in agent runs in the kit's process: on 2 cores, past 4 checks at once
            // the run is no faster, and each check more in flight holds about 0.3 MB more
            // (measured peaks: 29.1 MB at 4, 30.6 MB at 8, 32 MB at 16).
            jobs: 4,
            headers: Vec::new(),
            trusted_keys: Vec::new(),
            other_headers: Vec::new(),
            limited_headers: Vec::new(),
            progress: None,
            contract: None,
            drive: None,
            sut_behaviors: None,
            undeclared: crate::facts::behaviors::Undeclared::default(),
            ca_certs: Vec::new(),
            durability: None,
            webhook: crate::exchange::webhook::WebhookOptions::default(),
            stop: crate::facts::stop::Stop::default(),
            assume_version: None,
            spec_revision: crate::facts::revision::Judging::default(),
        }
    }
}

/// Why a run could not start.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The card is unusable; `evidence` is its exchange (request, answer or why none came).
    #[error("{error}")]
    Card {
        error: CardError,
        evidence: Vec<crate::exchange::evidence::Exchange>,
    },
    #[error("{0}")]
    Usage(String),
    /// Stopped ([`RunOptions::stop`]) before any check could start.
    #[error("interrupted before any check ran")]
    Interrupted,
    #[error("{0}")]
    Harness(#[from] HarnessError),
}

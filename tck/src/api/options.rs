//! The options of a library run ([`Options`], a builder with the command line's defaults)
//! and the agent it tests ([`Target`]), checked before the run as the command checks its
//! flags.

use std::time::Duration;

use super::{AgentConfig, Baseline, Binding, Error, Gate, Level, MinJudged, ProtocolVersion};
use crate::exchange::wire::Limits;
use crate::run::runner::{Filter, RunOptions};
use crate::{run::builtin, suite::checks};

/// The agent a run tests.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The reference agent, started in-process on an ephemeral loopback port for the run and
    /// stopped after it (faults in the configuration break named rules).
    Builtin(AgentConfig),
    /// An agent already serving at this base URL: its origin locates the card.
    Url(String),
}

/// What to run, and against what. Start from [`Options::builtin`] or [`Options::url`] and
/// narrow it with the builder methods; defaults are the command line's.
///
/// ```no_run
/// use std::time::Duration;
/// use a2a_tck::api::{Binding, Level, Options, ProtocolVersion};
///
/// let options = Options::url("http://127.0.0.1:8080")
///     .level(Level::Must)
///     .select("tasks.*")
///     .binding(Binding::Jsonrpc)
///     .version(ProtocolVersion::V1_0)
///     .check_timeout(Duration::from_secs(10))
///     .header("Authorization", "Bearer test-token");
/// ```
#[derive(Debug, Clone)]
#[must_use]
pub struct Options {
    pub(super) target: Target,
    pub(super) card_url: Option<String>,
    pub(super) filter: Filter,
    pub(super) limits: Limits,
    pub(super) check_timeout: Duration,
    pub(super) jobs: usize,
    pub(super) headers: Vec<(String, String)>,
    pub(super) trusted_keys: Vec<serde_json::Value>,
    /// The durability area: a shell command restarting a URL target, or (builtin) `durable`.
    pub(super) restart_cmd: Option<String>,
    pub(super) durable: bool,
    pub(super) ready_timeout: Duration,
    pub(super) other_headers: Vec<(String, String)>,
    pub(super) limited_headers: Vec<(String, String)>,
    /// The built-in agent runs in authenticated mode, the kit holding both principals' tokens.
    pub(super) builtin_auth: bool,
    pub(super) webhook: crate::exchange::webhook::WebhookOptions,
    /// PEM files of CA certificates to trust besides the system's (`--ca-cert`).
    pub(super) ca_certs: Vec<Vec<u8>>,
    /// The scenario contract, when given (`--contract`); `None`: found by the probe.
    pub(super) contract: Option<crate::suite::contract::Contract>,
    /// The drive file's plays (`--drive`).
    pub(super) drive: Option<std::sync::Arc<crate::facts::drive::Drive>>,
    /// A reviewed baseline and the name its gate gives it (`--expect`).
    pub(super) expect: Option<(crate::reporting::baseline::Baseline, String)>,
    /// Accept baseline entries still marked "TODO: review" (`--allow-unreviewed`).
    pub(super) allow_unreviewed: bool,
    /// A floor under what the run judged (`--min-judged`).
    pub(super) min_judged: Option<crate::reporting::floor::MinJudged>,
    /// The revision of the 1.0 text the run judges by (`--spec-revision`), as named.
    pub(super) spec_revision: String,
    /// The version an interface of a card that names none is tested as (`--assume-version`).
    pub(super) assume_version: Option<crate::suite::check::ProtocolVersion>,
    /// The SDK's ACTS behaviour file (`--sut-behaviors`).
    pub(super) sut_behaviors: Option<std::sync::Arc<crate::facts::behaviors::SutBehaviors>>,
    /// The whole run's budget: once it runs out, no check starts and the report is that of an
    /// interrupted run, naming the deadline.
    pub(super) deadline: Option<Duration>,
}

impl Options {
    /// The conformant built-in reference agent.
    pub fn builtin() -> Options {
        Options::new(Target::Builtin(builtin::profile()))
    }

    /// The built-in reference agent with a configuration (faults, the no-streaming profile).
    pub fn builtin_with(config: AgentConfig) -> Options {
        Options::new(Target::Builtin(config))
    }

    /// The agent serving at `base_url`.
    pub fn url(base_url: impl Into<String>) -> Options {
        Options::new(Target::Url(base_url.into()))
    }

    /// Options for `target`, everything else at its default.
    pub fn new(target: Target) -> Options {
        let defaults = RunOptions::new("", "");
        // As on the command line: the built-in agent shares the run's process.
        let jobs = match &target {
            Target::Url(_) => crate::run::runner::TARGET_JOBS,
            Target::Builtin(_) => defaults.jobs,
        };
        Options {
            target,
            card_url: None,
            filter: defaults.filter,
            limits: defaults.limits,
            check_timeout: defaults.check_timeout,
            jobs,
            headers: defaults.headers,
            trusted_keys: defaults.trusted_keys,
            restart_cmd: None,
            durable: false,
            ready_timeout: crate::run::durability::READY_TIMEOUT,
            other_headers: defaults.other_headers,
            limited_headers: defaults.limited_headers,
            builtin_auth: true,
            webhook: defaults.webhook,
            ca_certs: Vec::new(),
            contract: None,
            drive: None,
            expect: None,
            allow_unreviewed: false,
            min_judged: None,
            spec_revision: "latest".into(),
            assume_version: None,
            sut_behaviors: None,
            deadline: None,
        }
    }

    /// The whole run's budget (none by default): once `deadline` has passed since the run
    /// began, no check starts, the checks in flight get a short grace, and the report is
    /// that of an interrupted run whose reason names the deadline (verdict `interrupted`,
    /// exit status 130). A setup still waiting on the agent (its card, the probes) is cut at
    /// once.
    pub fn deadline(mut self, deadline: Duration) -> Options {
        self.deadline = Some(deadline);
        self
    }

    /// What the SDK under test says it implements (`--sut-behaviors`, an ACTS behaviour
    /// file; read with [`crate::facts::behaviors::SutBehaviors::read`]): the checks of behaviours it
    /// does not declare are judged as `--undeclared` says (default UNTESTABLE).
    pub fn sut_behaviors(mut self, behaviors: crate::facts::behaviors::SutBehaviors) -> Options {
        self.sut_behaviors = Some(std::sync::Arc::new(behaviors));
        self
    }

    /// Gate on a reviewed baseline of expected results (`--expect`; read it with
    /// [`Baseline::load`]); `name` is how the gate names it (its path). The report's
    /// `baseline` then holds the gate's outcome, as the command writes it.
    pub fn expect(mut self, baseline: Baseline, name: impl Into<String>) -> Options {
        self.expect = Some((baseline, name.into()));
        self
    }

    /// Accept baseline entries whose reason is still "TODO: review" (`--allow-unreviewed`).
    pub fn allow_unreviewed(mut self) -> Options {
        self.allow_unreviewed = true;
        self
    }

    /// A floor under what the run judged (`--min-judged`): the report's `floor` says whether
    /// it was met.
    pub fn min_judged(mut self, floor: MinJudged) -> Options {
        self.min_judged = Some(floor);
        self
    }

    /// The built-in reference agent served over TLS with a private CA, which the run trusts
    /// (`a2a-tck --tls`): the `tls.*` checks then have something to judge.
    pub fn builtin_tls() -> Options {
        Options::builtin_with(AgentConfig {
            tls: true,
            ..builtin::profile()
        })
    }

    /// Trust the CA certificates of this PEM text besides the system's (`--ca-cert`;
    /// repeatable). Text that holds no certificate is a usage error of [`run`](super::run).
    pub fn ca_cert(mut self, pem: impl Into<Vec<u8>>) -> Options {
        self.ca_certs.push(pem.into());
        self
    }

    /// The scenario contract the agent plays (`--contract`; default: found by a probe).
    pub fn contract(mut self, contract: crate::suite::contract::Contract) -> Options {
        self.contract = Some(contract);
        self
    }

    /// Drive an agent that plays no scenario contract with the messages of a drive file
    /// (`--drive`; read with [`crate::facts::drive::Drive::read`] or [`crate::facts::drive::Drive::parse`]).
    pub fn drive(mut self, drive: crate::facts::drive::Drive) -> Options {
        self.drive = Some(std::sync::Arc::new(drive));
        self
    }

    /// Run the durability area (`durability.*`) against an agent at a URL: `command` (run with
    /// `sh -c`) restarts it in the middle of the run (`--restart-cmd`).
    pub fn restart_cmd(mut self, command: impl Into<String>) -> Options {
        self.restart_cmd = Some(command.into());
        self
    }

    /// Run the durability area against the built-in agent: it keeps its tasks in a SQLite
    /// file in a temporary directory and is restarted in-process (`--durability`).
    pub fn durability(mut self) -> Options {
        self.durable = true;
        self
    }

    /// How long a restart and the card answering again may take (default 30 s).
    pub fn ready_timeout(mut self, deadline: Duration) -> Options {
        self.ready_timeout = deadline;
        self
    }

    /// The agent this run tests.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// Read the card here instead of `<origin>/.well-known/agent-card.json`.
    pub fn card_url(mut self, url: impl Into<String>) -> Options {
        self.card_url = Some(url.into());
        self
    }

    /// The weakest level to run: [`Level::Must`] runs MUST checks only (default: all).
    pub fn level(mut self, level: Level) -> Options {
        self.filter.level = level;
        self
    }

    /// Run only checks whose id matches this glob, e.g. `tasks.*` (repeatable).
    pub fn select(mut self, glob: impl Into<String>) -> Options {
        self.filter.select.push(glob.into());
        self
    }

    /// Test only this binding of the card's interfaces (repeatable; default: every one).
    pub fn binding(mut self, binding: Binding) -> Options {
        self.filter.bindings.push(binding);
        self
    }

    /// Test only this protocol version of the card's interfaces (repeatable; default: every
    /// one).
    pub fn version(mut self, version: ProtocolVersion) -> Options {
        self.filter.versions.push(version);
        self
    }

    /// Deadline of one HTTP exchange (default 10 s).
    pub fn request_timeout(mut self, deadline: Duration) -> Options {
        self.limits.request_timeout = deadline;
        self
    }

    /// Deadline of one check, all its exchanges included (default 30 s).
    pub fn check_timeout(mut self, deadline: Duration) -> Options {
        self.check_timeout = deadline;
        self
    }

    /// How long a stream may stay silent before the kit judges it as it stands (default 5 s).
    pub fn stream_wait(mut self, wait: Duration) -> Options {
        self.limits.stream_wait = wait;
        self
    }

    /// The most checks run at once, at least 1: the ceiling of the run's pace, which starts at
    /// 4 and rises while the agent's latency stays flat (default 128 against an agent at a
    /// URL, 4 against the built-in one).
    pub fn jobs(mut self, jobs: usize) -> Options {
        self.jobs = jobs;
        self
    }

    /// Send this header on every request, e.g. credentials (repeatable); values never appear
    /// in the report. `A2A-Version` and `A2A-Extensions` are the kit's own: naming one is a
    /// usage error (use [`Options::version`] to select versions).
    pub fn header(mut self, name: impl Into<String>, value: impl Into<String>) -> Options {
        self.headers.push((name.into(), value.into()));
        self
    }

    /// Send `Authorization: Bearer <token>` on every request (redacted in every output).
    pub fn bearer(self, token: impl Into<String>) -> Options {
        let token = token.into();
        self.header("Authorization", format!("Bearer {token}"))
    }

    /// The credentials of a second principal: this header is sent in place of the
    /// [`Options::header`]s by the checks of principal isolation (repeatable; redacted).
    pub fn other_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Options {
        self.other_headers.push((name.into(), value.into()));
        self
    }

    /// A second principal authenticated with `Authorization: Bearer <token>`.
    pub fn other_bearer(self, token: impl Into<String>) -> Options {
        let token = token.into();
        self.other_header("Authorization", format!("Bearer {token}"))
    }

    /// The credentials of a limited principal, one the agent authenticates but permits
    /// nothing the kit tries (no SendMessage, no extended card beyond the public card): this
    /// header is sent in place of the [`Options::header`]s by the checks of authorization
    /// errors (repeatable; redacted). Without it those checks are N/A.
    pub fn limited_header(mut self, name: impl Into<String>, value: impl Into<String>) -> Options {
        self.limited_headers.push((name.into(), value.into()));
        self
    }

    /// A limited principal authenticated with `Authorization: Bearer <token>`.
    pub fn limited_bearer(self, token: impl Into<String>) -> Options {
        let token = token.into();
        self.limited_header("Authorization", format!("Bearer {token}"))
    }

    /// Whether the built-in agent runs in authenticated mode (default: on, with two
    /// generated tokens and a limited one, which the kit holds). Off serves every operation without credentials.
    pub fn builtin_auth(mut self, on: bool) -> Options {
        self.builtin_auth = on;
        self
    }

    /// Trust these public keys (JWKs) for the card's signatures, besides those its `jku`
    /// names (repeatable).
    pub fn trusted_keys(mut self, keys: impl IntoIterator<Item = serde_json::Value>) -> Options {
        self.trusted_keys.extend(keys);
        self
    }

    /// Judge the 1.0 results by this revision of the A2A 1.0 text (`--spec-revision`):
    /// `"1.0.0"` or `"1.0.1"` strictly, by that revision's own keywords and error table; or
    /// `"latest"` (the default), by the newest revision, tolerating (WARN) an answer an older
    /// one gave where it differs. Another name makes [`run`](super::run) fail with [`Error::Usage`](super::Error::Usage).
    pub fn spec_revision(mut self, revision: impl Into<String>) -> Options {
        self.spec_revision = revision.into();
        self
    }

    /// Test an interface of a card that names no protocol version as this version
    /// (`--assume-version`; the report says so). By default such an interface is declared but
    /// not tested.
    pub fn assume_version(mut self, version: ProtocolVersion) -> Options {
        self.assume_version = Some(version);
        self
    }

    pub(super) fn validate(&self) -> Result<(), Error> {
        if crate::facts::revision::Judging::named(&self.spec_revision).is_none() {
            return Err(Error::Usage(format!(
                "unknown spec revision {:?}; the revisions are: {}",
                self.spec_revision,
                crate::facts::revision::Judging::names().join(", ")
            )));
        }
        match (&self.target, self.durable, &self.restart_cmd) {
            (Target::Url(_), true, _) => {
                return Err(Error::Usage(
                    "durability() restarts the built-in agent; for a URL give restart_cmd".into(),
                ))
            }
            (Target::Builtin(_), _, Some(_)) => {
                return Err(Error::Usage(
                    "restart_cmd restarts an agent at a URL; use durability() for the built-in one"
                        .into(),
                ))
            }
            _ => {}
        }
        let deadlines = [
            ("request timeout", self.limits.request_timeout),
            ("check timeout", self.check_timeout),
            ("stream wait", self.limits.stream_wait),
            ("ready timeout", self.ready_timeout),
            ("deadline", self.deadline.unwrap_or(Duration::MAX)),
        ];
        if let Some((name, _)) = deadlines.iter().find(|(_, d)| d.is_zero()) {
            return Err(Error::Usage(format!("the {name} must be positive")));
        }
        if self.jobs == 0 {
            return Err(Error::Usage("jobs must be at least 1".into()));
        }
        if self.drive.is_some() && self.contract.is_some() {
            return Err(Error::Usage(
                "a drive file replaces the scenario contract: give drive() or contract(), not both"
                    .into(),
            ));
        }
        if self.sut_behaviors.is_some() && (self.drive.is_some() || self.contract.is_some()) {
            return Err(Error::Usage(
                "a behaviour file (sut_behaviors()) implies the ACTS contract and no drive file: \
                 give sut_behaviors(), or drive() or contract(), not both"
                    .into(),
            ));
        }
        for pem in &self.ca_certs {
            crate::exchange::wire::ca_certificates(pem)
                .map_err(|e| Error::Usage(format!("a CA certificate given to ca_cert() {e}")))?;
        }
        let all = (self.headers.iter())
            .chain(&self.other_headers)
            .chain(&self.limited_headers);
        for (name, value) in all {
            crate::exchange::wire::user_header(name, value).map_err(Error::Usage)?;
        }
        Ok(())
    }

    /// The gate of the run: its baseline, checked against the catalogue, and its floor.
    pub(super) fn gate(&self) -> Result<Gate, Error> {
        Gate::new(
            self.expect.clone(),
            self.min_judged,
            self.allow_unreviewed,
            &checks::ids(),
        )
        .map_err(Error::Usage)
    }

    /// The run options against a built-in agent: the private CA it made (under `tls`) trusted,
    /// and the credentials it generated (in authenticated mode) held.
    pub(super) fn builtin_run(
        &self,
        base_url: &str,
        card_url: &str,
        ca_pem: Option<&str>,
        credentials: Option<builtin::Credentials>,
    ) -> RunOptions {
        let mut run = self.run_options(base_url, card_url, true);
        run.ca_certs
            .extend(ca_pem.map(|pem| pem.as_bytes().to_vec()));
        if let Some(credentials) = credentials {
            run.use_credentials(credentials);
        }
        run
    }

    pub(super) fn run_options(&self, target: &str, card_url: &str, builtin: bool) -> RunOptions {
        let mut options = RunOptions::new(target, card_url);
        options.builtin = builtin;
        options.filter = self.filter.clone();
        options.limits = self.limits;
        options.check_timeout = self.check_timeout;
        options.jobs = self.jobs;
        options.headers = self.headers.clone();
        options.trusted_keys = self.trusted_keys.clone();
        options.other_headers = self.other_headers.clone();
        options.limited_headers = self.limited_headers.clone();
        options.webhook = self.webhook.clone();
        options.ca_certs.extend(self.ca_certs.iter().cloned());
        options.contract = self.contract;
        options.drive = self.drive.clone();
        options.sut_behaviors = self.sut_behaviors.clone();
        options.spec_revision =
            crate::facts::revision::Judging::named(&self.spec_revision).unwrap_or_default();
        options.assume_version = self.assume_version;
        options
    }

    /// The URL the agent must call for push notifications, and where the kit's receiver
    /// listens (default: 127.0.0.1 on an ephemeral port); see [`crate::exchange::webhook`].
    pub fn webhook(mut self, url: Option<String>, listen: Option<std::net::SocketAddr>) -> Options {
        self.webhook = crate::exchange::webhook::WebhookOptions { url, listen };
        self
    }
}

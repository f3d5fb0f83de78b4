//! The kit as a library: one call, [`run`], takes [`Options`] (the target, the selection, the
//! deadlines) and returns the [`Report`], the same report the `a2a-tck` command writes. A thin
//! facade over [`crate::runner::run`] and [`crate::builtin`], so an SDK or an agent's own test
//! suite can gate on conformance inside `cargo test`.
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

use crate::runner::{self, Filter, RunError, RunOptions};
use crate::wire::Limits;
use crate::{builtin, card, checks, output};

pub use crate::baseline::Baseline;
pub use crate::check::{Binding, Level, ProtocolVersion, Status};
pub use crate::contract::Contract;
pub use crate::drive::Drive;
pub use crate::floor::MinJudged;
pub use crate::format::Format;
pub use crate::gate::Gate;
pub use crate::report::{CheckResult, Report, Verdict};
pub use a2a_reference_agent::{AgentConfig, Fault};

/// The types a [`Report`] holds, as its JSON names them (`schemas/report.schema.json`).
pub mod model {
    pub use crate::card::DeclaredInterface;
    pub use crate::contract::{Carrier, ContractReport};
    pub use crate::evidence::{
        Dropped, Exchange, RecordedBody, RecordedEvent, RecordedRequest, RecordedResponse,
    };
    pub use crate::latency::{Figures, OperationLatency};
    pub use crate::report::{
        AppliedReading, Compatibility, ConfigurationRun, Counts, DurabilityReport, Expected, Floor,
        Gate, LevelCount, NotRun, Partial, RefusedOperation, ReportError, RunFailure, Selection,
        SignatureForms, SpecRevisionJudged, Stale, Target, Tool, UntestedDeclaration,
        VersionedCard,
    };
}

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
    target: Target,
    card_url: Option<String>,
    filter: Filter,
    limits: Limits,
    check_timeout: Duration,
    jobs: usize,
    headers: Vec<(String, String)>,
    trusted_keys: Vec<serde_json::Value>,
    /// The durability area: a shell command restarting a URL target, or (builtin) `durable`.
    restart_cmd: Option<String>,
    durable: bool,
    ready_timeout: Duration,
    other_headers: Vec<(String, String)>,
    limited_headers: Vec<(String, String)>,
    /// The built-in agent runs in authenticated mode, the kit holding both principals' tokens.
    builtin_auth: bool,
    webhook: crate::webhook::WebhookOptions,
    /// PEM files of CA certificates to trust besides the system's (`--ca-cert`).
    ca_certs: Vec<Vec<u8>>,
    /// The scenario contract, when given (`--contract`); `None`: found by the probe.
    contract: Option<crate::contract::Contract>,
    /// The drive file's plays (`--drive`).
    drive: Option<std::sync::Arc<crate::drive::Drive>>,
    /// A reviewed baseline and the name its gate gives it (`--expect`).
    expect: Option<(crate::baseline::Baseline, String)>,
    /// Accept baseline entries still marked "TODO: review" (`--allow-unreviewed`).
    allow_unreviewed: bool,
    /// A floor under what the run judged (`--min-judged`).
    min_judged: Option<crate::floor::MinJudged>,
    /// The revision of the 1.0 text the run judges by (`--spec-revision`), as named.
    spec_revision: String,
    /// The SDK's ACTS behaviour file (`--sut-behaviors`).
    sut_behaviors: Option<std::sync::Arc<crate::behaviors::SutBehaviors>>,
    /// The whole run's budget: once it runs out, no check starts and the report is that of an
    /// interrupted run, naming the deadline.
    deadline: Option<Duration>,
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
            Target::Url(_) => crate::runner::TARGET_JOBS,
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
            ready_timeout: crate::durability::READY_TIMEOUT,
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
    /// file; read with [`crate::behaviors::SutBehaviors::read`]): the checks of behaviours it
    /// does not declare are judged as `--undeclared` says (default UNTESTABLE).
    pub fn sut_behaviors(mut self, behaviors: crate::behaviors::SutBehaviors) -> Options {
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
    /// repeatable). Text that holds no certificate is a usage error of [`run`].
    pub fn ca_cert(mut self, pem: impl Into<Vec<u8>>) -> Options {
        self.ca_certs.push(pem.into());
        self
    }

    /// The scenario contract the agent plays (`--contract`; default: found by a probe).
    pub fn contract(mut self, contract: crate::contract::Contract) -> Options {
        self.contract = Some(contract);
        self
    }

    /// Drive an agent that plays no scenario contract with the messages of a drive file
    /// (`--drive`; read with [`crate::drive::Drive::read`] or [`crate::drive::Drive::parse`]).
    pub fn drive(mut self, drive: crate::drive::Drive) -> Options {
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
    /// one gave where it differs. Another name makes [`run`] fail with [`Error::Usage`].
    pub fn spec_revision(mut self, revision: impl Into<String>) -> Options {
        self.spec_revision = revision.into();
        self
    }

    fn validate(&self) -> Result<(), Error> {
        if crate::revision::Judging::named(&self.spec_revision).is_none() {
            return Err(Error::Usage(format!(
                "unknown spec revision {:?}; the revisions are: {}",
                self.spec_revision,
                crate::revision::Judging::names().join(", ")
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
            crate::wire::ca_certificates(pem)
                .map_err(|e| Error::Usage(format!("a CA certificate given to ca_cert() {e}")))?;
        }
        let all = (self.headers.iter())
            .chain(&self.other_headers)
            .chain(&self.limited_headers);
        for (name, value) in all {
            crate::wire::user_header(name, value).map_err(Error::Usage)?;
        }
        Ok(())
    }

    /// The gate of the run: its baseline, checked against the catalogue, and its floor.
    fn gate(&self) -> Result<Gate, Error> {
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
    fn builtin_run(
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

    fn run_options(&self, target: &str, card_url: &str, builtin: bool) -> RunOptions {
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
            crate::revision::Judging::named(&self.spec_revision).unwrap_or_default();
        options
    }

    /// The URL the agent must call for push notifications, and where the kit's receiver
    /// listens (default: 127.0.0.1 on an ephemeral port); see [`crate::webhook`].
    pub fn webhook(mut self, url: Option<String>, listen: Option<std::net::SocketAddr>) -> Options {
        self.webhook = crate::webhook::WebhookOptions { url, listen };
        self
    }
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
    let gate = options.gate()?;
    let mut report = run_unjudged(options).await?;
    gate.apply(&mut report);
    Ok(report)
}

/// The exit status the command gives a report [`run`] returned with these options: 0 when
/// every gate held (the verdict, or the baseline of [`Options::expect`], and the floor of
/// [`Options::min_judged`]), 1 when one failed, 2 when the kit could not run, 130 when the run
/// was interrupted. See [`Gate::exit_status`].
pub fn exit_status(options: &Options, report: &Report) -> Result<u8, Error> {
    Ok(options.gate()?.exit_status(report))
}

/// The run itself, before its baseline and floor are judged.
async fn run_unjudged(options: &Options) -> Result<Report, Error> {
    let catalog = checks::all();
    match &options.target {
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
                .map(|c| crate::durability::Durability::command(c, options.ready_timeout));
            let started_at = std::time::SystemTime::now();
            let outcome = within(options.deadline, runner::run(&catalog, &run), &run.stop).await;
            let mut report = reported(&catalog, &run, started_at, outcome)?;
            report.cap_evidence();
            Ok(report)
        }
        Target::Builtin(config) if options.durable => {
            let mut config = config.clone();
            let credentials = options
                .builtin_auth
                .then(|| builtin::authenticated(&mut config));
            let agent = crate::durability::BuiltinDurable::start(config)
                .await
                .map_err(Error::Start)?;
            let card_url = (options.card_url.clone()).unwrap_or_else(|| agent.served_card_url());
            // The agent keeps its private CA across restarts.
            let mut run =
                options.builtin_run(&agent.base_url(), &card_url, agent.ca_pem(), credentials);
            run.durability = Some(agent.durability(options.ready_timeout));
            let started_at = std::time::SystemTime::now();
            let outcome = within(options.deadline, runner::run(&catalog, &run), &run.stop).await;
            agent.shutdown().await;
            let mut report = reported(&catalog, &run, started_at, outcome)?;
            report.cap_evidence();
            Ok(report)
        }
        Target::Builtin(config) => {
            let mut config = config.clone();
            let credentials = options
                .builtin_auth
                .then(|| builtin::authenticated(&mut config));
            let agent = builtin::start_with(config).await.map_err(Error::Start)?;
            // A fault may move the card off the well-known path: read it where it is served.
            let card_url = options
                .card_url
                .clone()
                .unwrap_or_else(|| agent.served_card_url());
            let run =
                options.builtin_run(&agent.base_url(), &card_url, agent.ca_pem(), credentials);
            let started_at = std::time::SystemTime::now();
            let outcome = within(options.deadline, runner::run(&catalog, &run), &run.stop).await;
            agent.shutdown().await;
            let mut report = reported(&catalog, &run, started_at, outcome)?;
            report.cap_evidence();
            Ok(report)
        }
    }
}

/// `run`'s outcome, its stop thrown once `deadline` (if any) has passed.
async fn within<T>(
    deadline: Option<Duration>,
    run: impl std::future::Future<Output = T>,
    stop: &crate::stop::Stop,
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

/// The report of a run's outcome: a card the kit could not use gives the report the command
/// writes then (verdict `error`, the card exchange as evidence), not an error; so does a run
/// stopped before its card was read.
fn reported(
    catalog: &[crate::check::Check],
    run: &RunOptions,
    started_at: std::time::SystemTime,
    outcome: Result<Report, RunError>,
) -> Result<Report, Error> {
    match outcome {
        Ok(report) => Ok(report),
        Err(RunError::Card { error, evidence }) => Ok(crate::failure::card_unusable(
            catalog,
            run,
            started_at,
            error.to_string(),
            evidence,
        )),
        Err(RunError::Interrupted) => Ok(crate::failure::interrupted(catalog, run, started_at)),
        Err(other) => Err(other.into()),
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
    crate::html::page(report)
}

/// The SARIF 2.1.0 log (`--sarif`): each result that is not PASS located in the card (or,
/// given `baseline_text`, the baseline file the run was gated on).
pub fn sarif(report: &Report, baseline_text: Option<&str>) -> String {
    crate::sarif::sarif(report, baseline_text)
}

/// The results that did not pass (FAIL, WARN, ERROR, UNTESTABLE; N/A is not counted).
pub fn problems(report: &Report) -> Vec<&CheckResult> {
    report
        .results
        .iter()
        .filter(|r| !matches!(r.status, Status::Pass | Status::NotApplicable))
        .collect()
}

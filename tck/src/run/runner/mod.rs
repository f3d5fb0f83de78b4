//! Plans the run (checks x declared interfaces), runs the checks concurrently, each bounded by
//! its own deadline, and assembles the report. Results come back in catalogue order.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use futures::StreamExt;
use serde_json::Value;

use crate::card::{self, CardError, Cards, FetchedCard, Interface};
use crate::check::{Binding, Check, HarnessError, Level, ProtocolVersion, Scope};
use crate::contract::Contract;
use crate::ctx::Ctx;
use crate::evidence::Recorder;
use crate::pace::Pace;
use crate::probe::probe;
use crate::report::{self, CheckResult, Counts, Report, Selection, Target};
use crate::transport::Connector;
use crate::wire::{Limits, Wire};

pub use crate::filter::Filter;

mod durability_phase;
mod execute;
mod prepared;
pub(crate) use prepared::{prepare, Prepared};
use execute::run_id;
pub(crate) use execute::{execute, Deadline, Problem};

/// A check's deadline: the run's check timeout, times a quarter of its chain of sequential
/// exchanges (at least once), and, once the agent's latency is known, time for every exchange
/// of its chain and its batch one after another at twice the run's 95th percentile so far. A
/// slow but healthy agent is never cut short, and a check that meets its deadline met it
/// because the agent did not answer in many times its own usual time: a deadline is no sign
/// of the kit's load, and such a check is not run again alone.
fn deadline_of(check: &Check, timeout: Duration, latency: &Arc<crate::latency::Timings>) -> Deadline {
    let floor = timeout * (check.needs.weight / 4).max(1);
    Deadline::sized(floor, check.needs.weight + check.needs.batch, latency)
}

/// How many checks that met signs of an overloaded agent are run again alone, at most.
const ALONE_BUDGET: usize = 16;

/// The most checks the command line runs at once against an agent other than the built-in
/// one, unless told (`--jobs`): a ceiling. The run starts with [`crate::pace::START`] and
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
    /// [`crate::pace::START`] and adapts to the agent.
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
    pub drive: Option<Arc<crate::drive::Drive>>,
    /// An SDK's ACTS behaviour file (`--sut-behaviors`): the contract is ACTS and the
    /// scenarios are those it declares, with no probe; overrides `contract`.
    pub sut_behaviors: Option<Arc<crate::behaviors::SutBehaviors>>,
    /// What a check that needs a scenario the behaviour file does not declare gets
    /// (`--undeclared`): UNTESTABLE by default, FAIL under the ACTS runner's rule.
    pub undeclared: crate::behaviors::Undeclared,
    /// CA certificates (PEM) trusted besides the system's (`--ca-cert`).
    pub ca_certs: Vec<Vec<u8>>,
    /// The durability area (`--restart-cmd`, `--durability`): how to restart the target in
    /// the middle of the run. `None`: the `durability.*` checks are not run.
    pub durability: Option<crate::durability::Durability>,
    /// The webhook receiver of the push checks (`--webhook-url`, `--webhook-listen`).
    pub webhook: crate::webhook::WebhookOptions,
    /// Stops the run early (SIGINT, SIGTERM): no check starts after it is thrown, those in
    /// flight get its grace, the rest are reported not run; the report says `interrupted`.
    pub stop: crate::stop::Stop,
    /// The version to read a card in as when it names none (`--assume-version 0.3`: the
    /// pre-0.3 shape, a top-level url without protocolVersion or supportedInterfaces). `None`:
    /// such a card's interfaces are declared, not tested.
    pub assume_version: Option<ProtocolVersion>,
    /// How the sentences the revisions of 1.0 word differently are judged (`--spec-revision`):
    /// by the latest, tolerating an older revision's answer (the default), or by one revision
    /// alone.
    pub spec_revision: crate::revision::Judging,
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
    pub fn use_credentials(&mut self, credentials: crate::builtin::Credentials) {
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
            undeclared: crate::behaviors::Undeclared::default(),
            ca_certs: Vec::new(),
            durability: None,
            webhook: crate::webhook::WebhookOptions::default(),
            stop: crate::stop::Stop::default(),
            assume_version: None,
            spec_revision: crate::revision::Judging::default(),
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
        evidence: Vec<crate::evidence::Exchange>,
    },
    #[error("{0}")]
    Usage(String),
    /// Stopped ([`RunOptions::stop`]) before any check could start.
    #[error("interrupted before any check ran")]
    Interrupted,
    #[error("{0}")]
    Harness(#[from] HarnessError),
}

/// One planned execution: a check, the interface it runs on (none for card checks), and the
/// card it is judged with.
#[derive(Clone)]
struct Planned<'a> {
    check: &'a Check,
    interface: Option<Interface>,
    card: Arc<FetchedCard>,
}

impl Planned<'_> {
    /// Its entry among the results not run, for `reason`.
    fn not_run(&self, reason: String) -> report::NotRun {
        let (binding, version) = self.place();
        report::NotRun {
            id: self.check.id.to_string(),
            level: self.check.level,
            binding,
            version,
            reason,
        }
    }

    /// Where its result is keyed: the interface's binding and version; for a card check,
    /// no binding, and the `A2A-Version` the card was read with (none for the plain card).
    fn place(&self) -> (Option<Binding>, Option<ProtocolVersion>) {
        match &self.interface {
            Some(i) => (Some(i.binding), Some(i.version)),
            None => (None, self.card.a2a_version),
        }
    }
}

/// Whether a card check judges the card document itself, and so runs on each card the agent
/// serves (the card of a 1.0 client too). The others run once, on the card read without
/// `A2A-Version`: those that judge the agent across the interfaces of both cards
/// (`versioning.*`, `bindings.*`), and the 0.3 card's rules (`v03.*`).
fn judges_each_card(id: &str) -> bool {
    !["versioning.", "bindings.", "v03."]
        .iter()
        .any(|prefix| id.starts_with(prefix))
}

/// What every run starts from: its clock, the one HTTP client of its exchanges, the headers
/// it sends on each, and the timings and the pace its recorders feed.
pub(crate) struct Start {
    pub started_at: SystemTime,
    pub started: Instant,
    pub client: crate::wire::HttpClient,
    pub extra: Arc<Vec<(String, String)>>,
    pub timings: Arc<crate::latency::Timings>,
    pub pace: Arc<Pace>,
}

impl Start {
    /// Starts the clock and builds the client (trusting the run's CA certificates).
    pub(crate) fn new(options: &RunOptions) -> Result<Start, RunError> {
        Ok(Start {
            started_at: SystemTime::now(),
            started: Instant::now(),
            client: crate::wire::client_trusting(&options.ca_certs)?,
            extra: Arc::new(options.headers.clone()),
            timings: crate::latency::Timings::new(),
            pace: Pace::new(options.jobs),
        })
    }
}

/// Runs the selected checks of `catalog` against the target and returns the report: read the
/// cards and plan, probe each interface, decide the scenario contract, run the checks, then
/// the durability area, and assemble the report.
pub async fn run(catalog: &[Check], options: &RunOptions) -> Result<Report, RunError> {
    let selected = options.filter.apply(catalog).map_err(RunError::Usage)?;
    // The durability area runs after the other checks, and only when asked for.
    let (durable, selected) =
        durability_phase::split(selected, options.durability.is_some())
            .map_err(RunError::Usage)?;
    let start = Start::new(options)?;
    let mut target = read_target(options, &start).await?;
    let mut plan = plan(&selected, &target);
    let run_id = run_id();
    let unusable = probe_interfaces(&mut target, &plan, &run_id, options).await;
    // Checks that compare interfaces (card checks) use the selected, usable ones only.
    let usable: Arc<Vec<Interface>> = Arc::new(
        (target.interfaces.iter())
            .filter(|i| !unusable.iter().any(|(u, _)| u == *i))
            .cloned()
            .collect(),
    );
    let (scenarios, contract) = decide_contract(&target, &usable, &run_id, options).await;
    let mut not_run = Vec::new();
    plan.retain(|p| match scenarios.not_run(&p.check.needs) {
        Some(reason) => {
            not_run.push(p.not_run(reason));
            false
        }
        None => true,
    });
    let contexts = Contexts::new(&target, &plan, usable, &scenarios, options).await;
    let (mut results, mut interrupted) =
        run_planned(plan, &contexts, &unusable, &run_id, options).await;
    let stop = &options.stop;
    let mut durability = None;
    if let (Some(_), false, true) = (&options.durability, durable.is_empty(), stop.is_stopped()) {
        // Stopped before the restart: the durability area is not run.
        for check in &durable {
            interrupted.push(report::NotRun {
                id: check.id.to_string(),
                level: check.level,
                binding: None,
                version: None,
                reason: crate::stop::INTERRUPTED.into(),
            });
        }
    } else if let (Some(restart), false) = (&options.durability, durable.is_empty()) {
        let area = durability_phase::Area {
            checks: &durable,
            interfaces: &target.interfaces,
            unusable: &unusable,
            cards: &target.cards,
            options,
            scenarios: &scenarios,
            run_id: &run_id,
            timings: &start.timings,
            pace: &start.pace,
        };
        let outcome = durability_phase::run(area, restart).await?;
        results.extend(outcome.results);
        interrupted.extend(outcome.interrupted);
        durability = outcome.restart;
    }
    let met = std::mem::take(&mut *contexts.met.lock().unwrap_or_else(|e| e.into_inner()));
    let report = assemble(Outcome {
        met,
        catalog,
        options,
        start: &start,
        target,
        selected: &selected,
        durable: &durable,
        results,
        not_run,
        interrupted,
        contract,
        durability,
    });
    let secrets = crate::secrets::of_headers(
        (options.headers.iter())
            .chain(&options.other_headers)
            .chain(&options.limited_headers),
    );
    Ok(crate::secrets::scrub(report, &secrets))
}

/// The run's connections: the one HTTP client with the user's headers, timing every exchange
/// into the run's latency figures and its pace, and activating the extensions each card
/// requires.
struct Wires {
    client: crate::wire::HttpClient,
    limits: Limits,
    extra: Arc<Vec<(String, String)>>,
    timings: Arc<crate::latency::Timings>,
    pace: Arc<Pace>,
    /// Per card, the extensions it requires (a correct client activates them on every
    /// request).
    activations: Vec<(Arc<FetchedCard>, Arc<Vec<String>>)>,
}

impl Wires {
    /// A wire that activates no extension (the card reads).
    fn plain(&self, recorder: Recorder) -> Wire {
        self.paced(recorder, &self.pace)
    }

    /// A wire that activates no extension, seen by `pace`.
    fn paced(&self, recorder: Recorder, pace: &Arc<Pace>) -> Wire {
        let recorder = (recorder.observed_by(self.timings.clone())).observed_by(pace.clone());
        Wire::new(self.client.clone(), self.limits, recorder).with_headers(self.extra.clone())
    }

    /// A wire for an interface of `card`.
    fn of(&self, recorder: Recorder, card: &Arc<FetchedCard>) -> Wire {
        self.of_paced(recorder, card, &self.pace)
    }

    /// A wire for an interface of `card`, seen by `pace` (a check's batches go at its pace).
    fn of_paced(&self, recorder: Recorder, card: &Arc<FetchedCard>, pace: &Arc<Pace>) -> Wire {
        let activate = (self.activations.iter())
            .find(|(c, _)| Arc::ptr_eq(c, card))
            .map(|(_, a)| a.clone())
            .unwrap_or_default();
        self.paced(recorder, pace).with_extensions(activate)
    }
}

/// The target as its cards show it: the cards, the interfaces they declare (and which of them
/// the selection keeps), and the connections to them.
struct TargetSeen {
    cards: Cards,
    /// The card read without `A2A-Version`.
    fetched: Arc<FetchedCard>,
    wires: Wires,
    connector: Connector,
    declared: Vec<card::DeclaredInterface>,
    /// The declared interfaces the selection keeps.
    interfaces: Vec<Interface>,
}

/// Reads the card (and the card a 1.0 client reads) and selects the interfaces.
async fn read_target(options: &RunOptions, start: &Start) -> Result<TargetSeen, RunError> {
    let mut wires = Wires {
        client: start.client.clone(),
        limits: options.limits,
        extra: start.extra.clone(),
        timings: start.timings.clone(),
        pace: start.pace.clone(),
        activations: Vec::new(),
    };
    let card_wire = wires.plain(Recorder::default());
    let stop = &options.stop;
    // The card, and at once the card a 1.0 client reads (`A2A-Version: 1.0`): an agent may
    // serve another one. A read of that one that fails, or gives the same card, leaves the
    // run as it is.
    let v1_0_wire = wires.plain(Recorder::default());
    let both = futures::future::join(
        card::fetch(&card_wire, &options.card_url),
        card::fetch_as(&v1_0_wire, &options.card_url, Some(ProtocolVersion::V1_0)),
    );
    let Some((plain, v1_0)) = stop.unless_stopped(both).await else {
        return Err(RunError::Interrupted);
    };
    let fetched = match plain {
        Ok(fetched) => fetched,
        Err(error) => {
            let evidence = card_wire.recorder().take();
            return Err(RunError::Card { error, evidence });
        }
    };
    let v1_0 = v1_0.ok();
    let cards = Cards::assuming(fetched, v1_0, options.assume_version);
    let fetched = cards.plain.clone();
    wires.activations = (cards.all())
        .map(|card| {
            let activate = crate::service_params::required_extensions(&card.json);
            (card.clone(), Arc::new(activate))
        })
        .collect();
    // The run's connections: the HTTP client above, and the gRPC channels made from here on.
    let connector = Connector::trusting(&fetched.url, Arc::new(options.ca_certs.clone()));
    let (mut declared, mut interfaces) = cards.interfaces();
    let (bindings, versions) = (&options.filter.bindings, &options.filter.versions);
    let wanted_binding = |b: Binding| bindings.is_empty() || bindings.contains(&b);
    let wanted_version = |v: ProtocolVersion| versions.is_empty() || versions.contains(&v);
    interfaces.retain(|i| wanted_binding(i.binding) && wanted_version(i.version));
    for entry in declared.iter_mut().filter(|d| d.tested) {
        if entry.binding.is_some_and(|b| !wanted_binding(b)) {
            entry.tested = false;
            entry.reason = Some("not selected (--binding)".into());
        } else if entry.version.is_some_and(|v| !wanted_version(v)) {
            entry.tested = false;
            entry.reason = Some("not selected (--protocol-version)".into());
        }
    }
    Ok(TargetSeen {
        cards,
        fetched,
        wires,
        connector,
        declared,
        interfaces,
    })
}

/// The plan: each selected check on each interface its scope covers (a card check on each
/// card it judges), in catalogue order.
fn plan<'a>(selected: &[&'a Check], target: &TargetSeen) -> Vec<Planned<'a>> {
    let mut plan = Vec::new();
    for check in selected {
        match check.scope {
            Scope::Card => {
                for card in target.cards.all() {
                    if Arc::ptr_eq(card, &target.fetched) || judges_each_card(check.id) {
                        plan.push(Planned {
                            check,
                            interface: None,
                            card: card.clone(),
                        });
                    }
                }
            }
            Scope::Interface { bindings, versions } => {
                for interface in &target.interfaces {
                    if bindings.contains(&interface.binding)
                        && versions.contains(&interface.version)
                    {
                        plan.push(Planned {
                            check,
                            interface: Some(interface.clone()),
                            card: target.cards.card_of(interface),
                        });
                    }
                }
            }
        }
    }
    plan
}

/// One probe per planned interface: an interface that does not answer fails every check the
/// same way, so it is found once, with its evidence, and named in the interface list.
async fn probe_interfaces(
    target: &mut TargetSeen,
    plan: &[Planned<'_>],
    run_id: &str,
    options: &RunOptions,
) -> Vec<(Interface, Problem)> {
    let planned: Vec<Interface> = (target.interfaces.iter())
        .filter(|i| plan.iter().any(|p| p.interface.as_ref() == Some(*i)))
        .cloned()
        .collect();
    probe_these(target, planned, run_id, options).await
}

/// One probe per interface of `planned`, at once; the unusable ones, with their problems.
async fn probe_these(
    target: &mut TargetSeen,
    planned: Vec<Interface>,
    run_id: &str,
    options: &RunOptions,
) -> Vec<(Interface, Problem)> {
    let mut unusable: Vec<(Interface, Problem)> = Vec::new();
    // The probes run at once: against a slow agent, one after another they would add up.
    // Stopped meanwhile, no check runs: no interface is found unusable.
    let probes = futures::future::join_all(planned.iter().map(|interface| {
        let recorder = Recorder::default();
        let card = target.cards.card_of(interface);
        let ctx = Ctx::new(
            card.clone(),
            Some(interface.clone()),
            target.wires.of(recorder.clone(), &card),
            target.connector.clone(),
            &format!("{run_id}-probe"),
        );
        async move { (probe(&ctx).await, recorder) }
    }));
    let probes = options.stop.unless_stopped(probes).await.unwrap_or_default();
    for (interface, (outcome, recorder)) in planned.into_iter().zip(probes) {
        if let Err(crate::probe::Unusable {
            error,
            needs_credentials,
        }) = outcome
        {
            let reason = error.to_string();
            if let Some(entry) = target.declared.iter_mut().find(|d| {
                d.tested
                    && d.binding == Some(interface.binding)
                    && d.version == Some(interface.version)
            }) {
                entry.problem = Some(reason.clone());
                entry.needs_credentials = needs_credentials;
            }
            unusable.push((
                interface,
                Problem {
                    error,
                    evidence: recorder.take(),
                },
            ));
        }
    }
    unusable
}

/// The scenario contract: the requested one, else what the contract probe finds on the
/// usable interfaces. Stopped meanwhile: none, so no check asks anything of the agent, and
/// no contract is reported (the run established none).
async fn decide_contract(
    target: &TargetSeen,
    usable: &[Interface],
    run_id: &str,
    options: &RunOptions,
) -> (
    crate::contract::Scenarios,
    Option<crate::contract::ContractReport>,
) {
    let ctx_on = |interface: Interface| {
        let card = target.cards.card_of(&interface);
        Ctx::new(
            card.clone(),
            Some(interface),
            target.wires.of(Recorder::default(), &card),
            target.connector.clone(),
            &format!("{run_id}-contract"),
        )
    };
    if let Some(file) = &options.sut_behaviors {
        let (scenarios, report) = crate::detect::declared(Arc::clone(file), options.undeclared);
        return (scenarios, Some(report));
    }
    let decided = crate::detect::decide(options.contract, options.drive.clone(), usable, ctx_on);
    match options.stop.unless_stopped(decided).await {
        Some(decided) => decided,
        None => {
            let (scenarios, _) =
                crate::detect::decide(Some(Contract::None), None, &[], ctx_on).await;
            (scenarios, None)
        }
    }
}

/// What each check's context is made of: the target's connections, the run's wire-shape
/// audit, the usable interfaces, the contract, the credentials and the webhook receiver.
struct Contexts<'a> {
    target: &'a TargetSeen,
    audit: Arc<crate::shapes::Audit>,
    /// The run's history of every task, judged by the `lifecycle.*` checks.
    history: Arc<crate::history::History>,
    usable: Arc<Vec<Interface>>,
    scenarios: &'a crate::contract::Scenarios,
    trusted_keys: Arc<Vec<Value>>,
    other_headers: Arc<Vec<(String, String)>>,
    limited_headers: Arc<Vec<(String, String)>>,
    webhook: Option<Arc<Result<crate::webhook::Webhook, String>>>,
    judging: crate::revision::Judging,
    /// What the run's checks met of the contested sentences.
    met: crate::revision::MetLog,
}

impl<'a> Contexts<'a> {
    async fn new(
        target: &'a TargetSeen,
        plan: &[Planned<'_>],
        usable: Arc<Vec<Interface>>,
        scenarios: &'a crate::contract::Scenarios,
        options: &RunOptions,
    ) -> Contexts<'a> {
        // The webhook receiver lives as long as the run, and only when a push check runs.
        let webhook = if plan.iter().any(|p| p.check.id.starts_with("push.")) {
            let started = crate::webhook::Webhook::start(&options.webhook).await;
            Some(Arc::new(started.map_err(|e| e.to_string())))
        } else {
            None
        };
        Contexts {
            target,
            audit: crate::shapes::Audit::new(),
            history: Arc::default(),
            usable,
            scenarios,
            trusted_keys: Arc::new(options.trusted_keys.clone()),
            other_headers: Arc::new(options.other_headers.clone()),
            limited_headers: Arc::new(options.limited_headers.clone()),
            webhook,
            judging: options.spec_revision,
            met: crate::revision::MetLog::default(),
        }
    }

    /// The context of one execution under `pace`; every exchange of an audited check is
    /// audited as its interface's.
    fn of(&self, planned: &Planned, id: String, pace: &Arc<Pace>) -> Ctx {
        let audited = (planned.interface.as_ref())
            .filter(|_| planned.check.needs.audited);
        Ctx::new(
            planned.card.clone(),
            planned.interface.clone(),
            (self.target.wires)
                .of_paced(self.audit.recorder(audited), &planned.card, pace)
                .with_history(self.history.clone()),
            self.target.connector.clone(),
            &id,
        )
        .with_interfaces(self.usable.clone())
        .with_scenarios(self.scenarios.fresh())
        .with_trusted_keys(self.trusted_keys.clone())
        .with_other_credentials(self.other_headers.clone())
        .with_limited_credentials(self.limited_headers.clone())
        .with_webhook(self.webhook.clone())
        .with_judging(self.judging, self.met.clone())
    }
}

/// The problem of the interface `planned` runs on, if the probe found it unusable.
fn problem_of(planned: &Planned, unusable: &[(Interface, Problem)]) -> Option<Problem> {
    (planned.interface.as_ref())
        .and_then(|i| unusable.iter().find(|(u, _)| u == i))
        .map(|(_, p)| p.clone())
}

/// Runs the plan at the run's pace (never more than `options.jobs` at once), and returns the
/// results in catalogue order and the planned results a stop left out.
async fn run_planned(
    plan: Vec<Planned<'_>>,
    contexts: &Contexts<'_>,
    unusable: &[(Interface, Problem)],
    run_id: &str,
    options: &RunOptions,
) -> (Vec<CheckResult>, Vec<report::NotRun>) {
    let stop = &options.stop;
    let pace = &contexts.target.wires.pace;
    let timings = &contexts.target.wires.timings;
    let planned_count = plan.len();
    let finished = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    if let Some(progress) = &options.progress {
        (progress.0)(0, planned_count);
    }
    // With several at once, the longest chains of exchanges start first, so the run does not
    // end with one long check alone; the results are put back in catalogue order. One at a
    // time, the catalogue order is kept (the agent sees the same sequence every run).
    let catalogue = plan.clone();
    let mut order: Vec<(usize, Planned)> = plan.into_iter().enumerate().collect();
    if options.jobs > 1 {
        order.sort_by_key(|(_, p)| std::cmp::Reverse(p.check.needs.weight + p.check.needs.batch));
    }
    // Checks that judge the run's traffic on an interface (wire shapes, every webhook's calls)
    // start once the others have finished; every exchange of an interface's checks is audited.
    let (phases, order, last) = crate::shapes::Phases::split(order, |p: &Planned| {
        p.check.needs.judges_the_run
    });
    let mut cut: Vec<(usize, report::NotRun)> = Vec::new();
    let mut results: Vec<(usize, CheckResult)> = phases
        .stream(order, last)
        // Each check holds a permit of the pace while it runs, taken before it starts, one
        // check at a time: a check's batch waits behind at most the next check, not behind
        // every check yet to start. Once stopped, no check starts.
        .then(|(index, planned)| async move {
            (index, planned, stop.unless_stopped(pace.acquire()).await)
        })
        .map(|(index, planned, permit)| {
            let problem = problem_of(&planned, unusable);
            let place = planned.place();
            let ctx = contexts.of(&planned, format!("{run_id}-{index}"), pace);
            let (progress, finished) = (options.progress.clone(), finished.clone());
            let phases = phases.clone();
            async move {
                // Those in flight when the run is stopped get the grace.
                let result = match permit {
                    None => None,
                    Some(_permit) => {
                        let deadline = deadline_of(planned.check, options.check_timeout, timings);
                        stop.within_grace(execute(planned.check, ctx, deadline, problem))
                            .await
                    }
                };
                // A card check of the card a 1.0 client reads is keyed by that version.
                let result = result.map(|mut result| {
                    (result.binding, result.version) = place;
                    result
                });
                phases.finished(index);
                if let Some(progress) = progress {
                    let done = finished.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
                    (progress.0)(done, planned_count);
                }
                (index, result)
            }
        })
        .buffer_unordered(pace.ceiling())
        .collect::<Vec<(usize, Option<CheckResult>)>>()
        .await
        .into_iter()
        .filter_map(|(index, result)| match result {
            Some(result) => Some((index, result)),
            None => {
                let not_run = catalogue[index].not_run(crate::stop::INTERRUPTED.into());
                cut.push((index, not_run));
                None
            }
        })
        .collect();
    results.sort_by_key(|(index, _)| *index);
    // The checks the stop left out, in catalogue order.
    cut.sort_by_key(|(index, _)| *index);
    let interrupted: Vec<report::NotRun> = cut.into_iter().map(|(_, n)| n).collect();
    if options.jobs > 1 {
        run_again_alone(&mut results, &catalogue, contexts, unusable, run_id, options).await;
    }
    let results = results.into_iter().map(|(_, r)| r).collect();
    (results, interrupted)
}

/// A check that failed while others ran at once, and met a sign of an overloaded agent on the
/// way ([`crate::pace::load_sign`]: no answer, HTTP 429/502/503/504, gRPC UNAVAILABLE,
/// RESOURCE_EXHAUSTED or DEADLINE_EXCEEDED, an internal error that names contention), is run
/// again alone, its batches one at a time: the kit's own load must not decide a verdict. The
/// second result stands, and says so. An error answer that does not say it is load (a plain
/// HTTP 500 or JSON-RPC internal error) is the agent's answer to the request, and a deadline
/// is sized to the agent's own latency: neither is a reason to run a check again. An agent
/// that fails so widely is broken, not loaded: a budget bounds the second runs (one that also
/// ran into its deadline costs as much as four others). The stop holds here too: once the run
/// is stopped no check is run again, and one running gets the grace; its first result stands.
async fn run_again_alone(
    results: &mut [(usize, CheckResult)],
    catalogue: &[Planned<'_>],
    contexts: &Contexts<'_>,
    unusable: &[(Interface, Problem)],
    run_id: &str,
    options: &RunOptions,
) {
    let stop = &options.stop;
    let timings = &contexts.target.wires.timings;
    let mut budget = ALONE_BUDGET;
    for (index, result) in results.iter_mut() {
        let planned = &catalogue[*index];
        let Some(signal) = execute::load_signal(result) else {
            continue;
        };
        if planned.check.needs.judges_the_run
            || problem_of(planned, unusable).is_some()
        {
            continue;
        }
        let cost = if execute::met_its_deadline(result) { 4 } else { 1 };
        if cost > budget {
            result.message.push_str(&format!(
                " (with others at once it met {signal}; not run again alone: more checks \
                 than the kit runs again met signs of an overloaded agent)"
            ));
            continue;
        }
        if stop.is_stopped() {
            result.message.push_str(&format!(
                " (with others at once it met {signal}; not run again alone: the run was \
                 interrupted)"
            ));
            continue;
        }
        budget -= cost;
        let alone = Pace::alone();
        let ctx = contexts.of(planned, format!("{run_id}-{index}-alone"), &alone);
        let deadline = deadline_of(planned.check, options.check_timeout, timings);
        let problem = problem_of(planned, unusable);
        let Some(mut again) = stop
            .within_grace(execute(planned.check, ctx, deadline, problem))
            .await
        else {
            result.message.push_str(&format!(
                " (with others at once it met {signal}; its run alone was cut short: the run \
                 was interrupted)"
            ));
            continue;
        };
        (again.binding, again.version) = planned.place();
        again.message = format!(
            "{} (run again alone: with others at once it ended {} after {signal}: {})",
            again.message,
            result.status.as_str(),
            crate::shapes::cut(&result.message, 300)
        );
        again.duration_ms += result.duration_ms;
        *result = again;
    }
}

/// Everything the report is assembled from.
struct Outcome<'a, 'c> {
    /// What the checks met of the contested sentences.
    met: crate::revision::Met,
    catalog: &'c [Check],
    options: &'a RunOptions,
    start: &'a Start,
    target: TargetSeen,
    selected: &'a [&'c Check],
    durable: &'a [&'c Check],
    results: Vec<CheckResult>,
    not_run: Vec<report::NotRun>,
    interrupted: Vec<report::NotRun>,
    contract: Option<crate::contract::ContractReport>,
    durability: Option<report::DurabilityReport>,
}

/// The report of a run: the header, the verdict and its reason (what the run left out
/// included), the sections, and the results.
fn assemble(outcome: Outcome) -> Report {
    let Outcome {
        met,
        catalog,
        options,
        start,
        target,
        selected,
        durable,
        mut results,
        mut not_run,
        interrupted,
        contract,
        durability,
    } = outcome;
    let TargetSeen {
        cards,
        fetched,
        declared,
        interfaces,
        ..
    } = target;
    let stop = &options.stop;
    // An operation refused wherever it was called: one cause, named once (and the results
    // that stopped at it judged nothing of their own rule when no keyword obliges it).
    let declared_capabilities = (cards.v1_0.iter())
        .map(|c| crate::refusals::Declared::of(&c.json))
        .fold(crate::refusals::Declared::of(&cards.plain.json), |a, b| a.or(b));
    let refused_operations = crate::refusals::apply(
        &mut results,
        &start.timings.succeeded(),
        declared_capabilities,
    );
    let mut totals: BTreeMap<Level, Counts> = Level::ALL
        .iter()
        .map(|level| (*level, Counts::default()))
        .collect();
    for result in &results {
        totals.entry(result.level).or_default().add(result.status);
    }
    let scope = report::VerdictScope {
        interfaces_tested: interfaces.len(),
        needs_credentials: (declared.iter())
            .filter(|d| d.tested && d.needs_credentials)
            .map(|d| format!("{} {}", d.protocol_binding, d.protocol_version))
            .collect(),
        must_selected: selected
            .iter()
            .chain(durable)
            .any(|c| c.level == Level::Must),
    };
    let (verdict, mut verdict_reason) = report::Verdict::of(&results, &scope);
    for line in crate::refusals::grouped_lines(&refused_operations) {
        verdict_reason.push_str(&format!("; {line}"));
    }
    let selecting = !options.filter.bindings.is_empty() || !options.filter.versions.is_empty();
    if interfaces.is_empty() && selecting && declared.iter().any(|d| d.binding.is_some()) {
        verdict_reason =
            "no declared interface matches the selection (--binding, --protocol-version)".into();
    }
    let not_run_checks = (not_run.iter())
        .map(|n| n.id.as_str())
        .collect::<std::collections::BTreeSet<&str>>()
        .len();
    let was_interrupted = stop.is_stopped();
    verdict_reason.push_str(&left_out(&declared, &not_run));
    not_run.extend(interrupted);
    // What the run left out: the selection's checks (the durability area counts only when
    // asked for: it never runs by default), the contract's, the selection's interfaces.
    let eligible = (catalog.iter())
        .filter(|c| options.durability.is_some() || c.needs.profile != crate::check::Profile::Restart)
        .count();
    let partial = report::Partial {
        checks_not_selected: eligible.saturating_sub(selected.len() + durable.len()),
        checks_not_run: not_run_checks,
        interfaces_not_selected: (declared.iter())
            .filter(|d| (d.reason.as_deref()).is_some_and(|r| r.starts_with("not selected")))
            .count(),
    }
    .if_any();
    let untested_declarations =
        untested_declarations(&cards, catalog, selected, &results, &not_run, options);
    if let Some(version) = options.assume_version {
        let assumed: Vec<String> = (declared.iter())
            .filter(|d| d.tested && d.protocol_version.trim().is_empty())
            .map(|d| format!("{} at {}", d.protocol_binding, d.url))
            .collect();
        if !assumed.is_empty() {
            verdict_reason.push_str(&format!(
                "; the card names no protocolVersion: {} tested as {version} \
                 (--assume-version {version})",
                assumed.join(", ")
            ));
        }
    }
    for line in crate::declarations::grouped_lines(&untested_declarations) {
        verdict_reason.push_str(&format!("; {line}"));
    }
    let mut spec_versions: Vec<String> = interfaces
        .iter()
        .map(|i| i.version.as_str().to_string())
        .collect();
    spec_versions.dedup();
    let target = target_of(options, &cards, &fetched);
    let selection = Selection::of(&options.filter, selected.len() + durable.len());
    let mut report = Report {
        interfaces: declared,
        totals,
        verdict,
        verdict_reason,
        partial,
        compatibility: Some(crate::compat::of(&results)),
        latency: start.timings.figures(),
        concurrency: Some(start.pace.concurrency()),
        contract,
        not_run,
        untested_declarations,
        refused_operations,
        results,
        durability,
        spec_revision: report::SpecRevisionJudged::of(options.spec_revision, &spec_versions),
        readings: report::AppliedReading::of(options.spec_revision, &met),
        card_signatures: report::SignatureForms::of(&met),
        spec_versions,
        ..Report::begun(target, selection, start.started_at)
    };
    if was_interrupted {
        report.mark_interrupted_by(stop.why());
    }
    report
}

/// What the verdict's reason adds for what the run did not test: the declared interfaces it
/// did not test and the checks the contract left out (what a stop left out is said by
/// [`Report::mark_interrupted`]).
fn left_out(declared: &[card::DeclaredInterface], not_run: &[report::NotRun]) -> String {
    let mut words = String::new();
    let untested: Vec<String> = (declared.iter())
        .filter(|d| !d.tested)
        .map(|d| format!("{} {}", d.protocol_binding, d.protocol_version))
        .collect();
    if !untested.is_empty() {
        words.push_str(&format!(
            "; {} declared, not tested: {}",
            report::plural(untested.len(), "interface", "interfaces"),
            untested.join(", ")
        ));
    }
    let not_run_checks = (not_run.iter())
        .map(|n| n.id.as_str())
        .collect::<std::collections::BTreeSet<&str>>()
        .len();
    if !not_run.is_empty() {
        words.push_str(&format!(
            "; {} not run ({}), as they need the agent to play a test scenario the contract \
             does not give",
            report::plural(not_run_checks, "check", "checks"),
            report::plural(not_run.len(), "planned result", "planned results")
        ));
    }
    words
}

/// The report's target: where the agent is, and what its cards say it is.
fn target_of(options: &RunOptions, cards: &Cards, fetched: &FetchedCard) -> Target {
    let text = |k: &str| {
        fetched
            .json
            .get(k)
            .and_then(Value::as_str)
            .map(str::to_string)
    };
    Target {
        url: options.target.clone(),
        card_url: options.card_url.clone(),
        card_sha256: fetched.sha256.clone(),
        agent_name: text("name"),
        agent_version: text("version"),
        builtin: options.builtin,
        versioned_card: cards.v1_0.as_ref().map(|card| report::VersionedCard {
            a2a_version: ProtocolVersion::V1_0,
            card_sha256: card.sha256.clone(),
            agent_name: (card.json.get("name"))
                .and_then(Value::as_str)
                .map(str::to_string),
            agent_version: (card.json.get("version"))
                .and_then(Value::as_str)
                .map(str::to_string),
        }),
    }
}

/// What each card declares that no result tested, once each.
fn untested_declarations(
    cards: &Cards,
    catalog: &[Check],
    selected: &[&Check],
    results: &[CheckResult],
    not_run: &[report::NotRun],
    options: &RunOptions,
) -> Vec<report::UntestedDeclaration> {
    let mut untested_declarations: Vec<report::UntestedDeclaration> = Vec::new();
    for card in cards.all() {
        for untested in crate::declarations::untested(&crate::declarations::Run {
            card: &card.json,
            catalog,
            selected,
            results,
            not_run,
            filter: &options.filter,
        }) {
            if !untested_declarations.contains(&untested) {
                untested_declarations.push(untested);
            }
        }
    }
    // A card that names no protocolVersion: each interface its url gives, named.
    for interface in cards.interfaces().0 {
        if interface.reason.as_deref() == Some(card::NO_PROTOCOL_VERSION) {
            untested_declarations.push(report::UntestedDeclaration {
                what: format!(
                    "the {} interface at {}",
                    interface.protocol_binding, interface.url
                ),
                why: card::NO_PROTOCOL_VERSION.to_string(),
            });
        }
    }
    untested_declarations
}

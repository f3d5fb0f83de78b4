//! Plans the run (checks x declared interfaces), runs the checks concurrently, each bounded by
//! its own deadline, and assembles the report. Results come back in catalogue order.

use std::sync::Arc;
use std::time::{Duration, Instant, SystemTime};

use futures::StreamExt;
use serde_json::Value;

use crate::exchange::card::{FetchedCard, Interface};
use crate::exchange::pace::Pace;
use crate::reporting::report::{self, CheckResult, Report};
use crate::suite::check::{Binding, Check, ProtocolVersion};
use crate::suite::ctx::Ctx;

pub use crate::suite::filter::Filter;

mod assemble;
mod durability_phase;
mod execute;
mod options;
mod prepared;
mod target;

use assemble::{assemble, Outcome};
use execute::run_id;
pub(crate) use execute::{execute, Deadline, Problem};
pub use options::{Progress, RunError, RunOptions, TARGET_JOBS};
pub(crate) use prepared::{prepare, Prepared};
use target::{decide_contract, plan, probe_interfaces, read_target, TargetSeen};

/// A check's deadline: the run's check timeout, times a quarter of its chain of sequential
/// exchanges (at least once), and, once the agent's latency is known, time for every exchange
/// of its chain and its batch one after another at twice the run's 95th percentile so far. A
/// slow but healthy agent is never cut short, and a check that meets its deadline met it
/// because the agent did not answer in many times its own usual time: a deadline is no sign
/// of the kit's load, and such a check is not run again alone.
fn deadline_of(
    check: &Check,
    timeout: Duration,
    latency: &Arc<crate::exchange::latency::Timings>,
) -> Deadline {
    let floor = timeout * (check.needs.weight / 4).max(1);
    Deadline::sized(floor, check.needs.weight + check.needs.batch, latency)
}

/// How many checks that met signs of an overloaded agent are run again alone, at most.
const ALONE_BUDGET: usize = 16;

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
    pub client: crate::exchange::wire::HttpClient,
    pub extra: Arc<Vec<(String, String)>>,
    pub timings: Arc<crate::exchange::latency::Timings>,
    pub pace: Arc<Pace>,
}

impl Start {
    /// Starts the clock and builds the client (trusting the run's CA certificates).
    pub(crate) fn new(options: &RunOptions) -> Result<Start, RunError> {
        Ok(Start {
            started_at: SystemTime::now(),
            started: Instant::now(),
            client: crate::exchange::wire::client_trusting(&options.ca_certs)?,
            extra: Arc::new(options.headers.clone()),
            timings: crate::exchange::latency::Timings::new(),
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
        durability_phase::split(selected, options.durability.is_some()).map_err(RunError::Usage)?;
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
                reason: crate::facts::stop::INTERRUPTED.into(),
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
    let secrets = crate::reporting::secrets::of_headers(
        (options.headers.iter())
            .chain(&options.other_headers)
            .chain(&options.limited_headers),
    );
    Ok(crate::reporting::secrets::scrub(report, &secrets))
}

/// What each check's context is made of: the target's connections, the run's wire-shape
/// audit, the usable interfaces, the contract, the credentials and the webhook receiver.
struct Contexts<'a> {
    target: &'a TargetSeen,
    audit: Arc<crate::exchange::shapes::Audit>,
    /// The run's history of every task, judged by the `lifecycle.*` checks.
    history: Arc<crate::exchange::history::History>,
    usable: Arc<Vec<Interface>>,
    scenarios: &'a crate::suite::contract::Scenarios,
    trusted_keys: Arc<Vec<Value>>,
    other_headers: Arc<Vec<(String, String)>>,
    limited_headers: Arc<Vec<(String, String)>>,
    webhook: Option<Arc<Result<crate::exchange::webhook::Webhook, String>>>,
    judging: crate::facts::revision::Judging,
    /// What the run's checks met of the contested sentences.
    met: crate::facts::revision::MetLog,
}

impl<'a> Contexts<'a> {
    async fn new(
        target: &'a TargetSeen,
        plan: &[Planned<'_>],
        usable: Arc<Vec<Interface>>,
        scenarios: &'a crate::suite::contract::Scenarios,
        options: &RunOptions,
    ) -> Contexts<'a> {
        // The webhook receiver lives as long as the run, and only when a push check runs.
        let webhook = if plan.iter().any(|p| p.check.id.starts_with("push.")) {
            let started = crate::exchange::webhook::Webhook::start(&options.webhook).await;
            Some(Arc::new(started.map_err(|e| e.to_string())))
        } else {
            None
        };
        Contexts {
            target,
            audit: crate::exchange::shapes::Audit::new(),
            history: Arc::default(),
            usable,
            scenarios,
            trusted_keys: Arc::new(options.trusted_keys.clone()),
            other_headers: Arc::new(options.other_headers.clone()),
            limited_headers: Arc::new(options.limited_headers.clone()),
            webhook,
            judging: options.spec_revision,
            met: crate::facts::revision::MetLog::default(),
        }
    }

    /// The context of one execution under `pace`; every exchange of an audited check is
    /// audited as its interface's.
    fn of(&self, planned: &Planned, id: String, pace: &Arc<Pace>) -> Ctx {
        let audited = (planned.interface.as_ref()).filter(|_| planned.check.needs.audited);
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
    let (phases, order, last) =
        crate::exchange::shapes::Phases::split(order, |p: &Planned| p.check.needs.judges_the_run);
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
                let not_run = catalogue[index].not_run(crate::facts::stop::INTERRUPTED.into());
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
        run_again_alone(
            &mut results,
            &catalogue,
            contexts,
            unusable,
            run_id,
            options,
        )
        .await;
    }
    let results = results.into_iter().map(|(_, r)| r).collect();
    (results, interrupted)
}

/// A check that failed while others ran at once, and met a sign of an overloaded agent on the
/// way ([`crate::exchange::pace::load_sign`]: no answer, HTTP 429/502/503/504, gRPC UNAVAILABLE,
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
        if planned.check.needs.judges_the_run || problem_of(planned, unusable).is_some() {
            continue;
        }
        let cost = if execute::met_its_deadline(result) {
            4
        } else {
            1
        };
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
            crate::exchange::shapes::cut(&result.message, 300)
        );
        again.duration_ms += result.duration_ms;
        *result = again;
    }
}

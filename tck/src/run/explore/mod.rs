//! Exploration (`a2a-tck explore`): seeded random sequences of operations over the interfaces
//! the card declares, each judged by the invariants of the history of every task
//! (`crate::exchange::history`); a sequence that breaks one is shrunk to the shortest sequence found that
//! still breaks it, and reported as a case that can be played again (`--replay`).
//!
//! It is property-based stateful testing: the operations are the model's commands, the
//! invariants its properties. It is bounded in requests and time, deterministic for a seed and
//! an agent, and never part of a run of the checks.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::facts::model::ProtocolVersion;
use crate::run::runner::{self, Prepared, RunError, RunOptions};
use crate::suite::contract::PLAIN;

pub mod ops;
mod play;
pub mod shrink;

pub use ops::{generate, Menu, Op, Place};
pub use play::{judge, INVARIANTS};

use play::{Budget, Played, Requests, Waits};

/// How long a subscription's events are read, at most.
pub const SUBSCRIBE_FOR: Duration = Duration::from_secs(1);

/// What an exploration is asked to do.
#[derive(Debug, Clone)]
pub struct ExploreOptions {
    /// The target, its card, the selection of interfaces (`filter.bindings`,
    /// `filter.versions`), the contract, the headers, the limits of one exchange, the webhook
    /// receiver and the stop switch, as for a run.
    pub run: RunOptions,
    pub seed: u64,
    /// How many sequences are generated, at most.
    pub sequences: u64,
    /// How many operations a sequence has.
    pub steps: usize,
    /// How many requests the sequences may send, their shrinking included (the card read and
    /// the probes before them are not counted).
    pub max_requests: u64,
    /// How long it may take, from the card read to the last shrink.
    pub time: Duration,
    /// How long a subscription's events are read, at most.
    pub subscribe_for: Duration,
}

impl ExploreOptions {
    /// The defaults of the command line: 20 sequences of 12 steps, at most 400 requests and
    /// 60 s.
    pub fn new(run: RunOptions, seed: u64) -> ExploreOptions {
        ExploreOptions {
            run,
            seed,
            sequences: 20,
            steps: 12,
            max_requests: 400,
            time: Duration::from_secs(60),
            subscribe_for: SUBSCRIBE_FOR,
        }
    }
}

/// A seed nobody chose: the operating system's randomness.
pub fn random_seed() -> u64 {
    use rand_core::TryRngCore;
    rand_core::OsRng.try_next_u64().unwrap_or_else(|_| {
        // No randomness from the system: the clock's nanoseconds will do for a seed.
        std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos() as u64)
            .unwrap_or_default()
    })
}

/// The options of an exploration, as its report records them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    pub sequences: u64,
    pub steps: usize,
    pub max_requests: u64,
    pub time_secs: f64,
}

/// One broken invariant, as a case that can be played again.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Case {
    /// The id of the `lifecycle.*` check that judges the invariant in a run.
    pub invariant: String,
    /// The seed and the sequence that first broke it.
    pub seed: u64,
    pub sequence: u64,
    /// How many operations that sequence had played when it was judged.
    pub original_length: usize,
    /// The shortest sequence found that still breaks it, its tasks numbered from 0.
    pub ops: Vec<Op>,
    /// Whether shrinking reached a sequence none of whose chunks can go (false: the budget
    /// ran out first).
    pub shrunk: bool,
    /// What the last play of `ops` showed (the agent's ids of its tasks in `tasks`).
    pub violation: String,
    /// The agent's id of each task of `ops` in that play, by its number.
    #[serde(default)]
    pub tasks: BTreeMap<usize, String>,
}

/// One sequence played.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SequenceRun {
    pub index: u64,
    /// How many operations were played (fewer than generated when the budget ran out).
    pub played: usize,
    /// How many were skipped (their task was not made, or their interface is not usable).
    pub skipped: usize,
    /// How many exchanges failed without an answer the kit could read.
    pub failed: usize,
    /// The invariants it broke.
    pub broke: Vec<String>,
}

/// What an exploration (or a replay) did and found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Exploration {
    pub kit_version: String,
    pub target: String,
    pub card_url: String,
    pub seed: u64,
    pub options: Settings,
    /// Whether this is a replay of cases (`--replay`), not a generated exploration.
    pub replay: bool,
    /// The interfaces explored (usable, selected).
    pub interfaces: Vec<Place>,
    /// The selected interfaces that did not answer the probe, each with why.
    pub unusable: Vec<String>,
    /// The scenario contract used, and the scenarios a new task played.
    pub contract: String,
    pub scenarios: Vec<String>,
    pub sequences: Vec<SequenceRun>,
    /// The requests the sequences sent, shrinking included.
    pub requests: u64,
    /// Exchanges that failed without an answer the kit could read (never a violation): how
    /// many, and the first few.
    pub failed_exchanges: usize,
    pub failures: Vec<String>,
    /// Why the exploration stopped before its last sequence, if it did.
    pub stopped: Option<String>,
    pub violations: Vec<Case>,
}

impl Exploration {
    /// Whether an invariant broke.
    pub fn broke(&self) -> bool {
        !self.violations.is_empty()
    }
}

/// What `--replay` reads: a report of an exploration, one case, or a list of cases (JSON).
pub struct CaseFile;

impl CaseFile {
    /// Reads the cases of a file's text.
    pub fn read(text: &str) -> Result<Vec<Case>, String> {
        let value: serde_json::Value =
            serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
        let cases = if value.is_array() {
            serde_json::from_str::<Vec<Case>>(text)
                .map_err(|e| format!("not a list of cases: {e}"))?
        } else if value.get("violations").is_some() {
            (serde_json::from_str::<Exploration>(text))
                .map_err(|e| format!("not an exploration's report: {e}"))?
                .violations
        } else if value.get("ops").is_some() {
            vec![serde_json::from_str::<Case>(text).map_err(|e| format!("not a case: {e}"))?]
        } else {
            return Err(
                "neither an exploration's report (--report) nor a case (as the summary prints it)"
                    .into(),
            );
        };
        if cases.is_empty() {
            return Err("it holds no case to replay".into());
        }
        Ok(cases)
    }
}

/// How many failed exchanges the report quotes.
const QUOTED_FAILURES: usize = 10;

/// What every sequence of one exploration shares.
struct Explorer<'a> {
    prepared: Prepared,
    options: &'a ExploreOptions,
    budget: Budget,
    waits: Waits,
    /// How many plays so far (each gets its own namespace of ids).
    plays: u64,
    failed: usize,
    failures: Vec<String>,
}

impl Explorer<'_> {
    /// Plays `ops` from scratch.
    async fn play(&mut self, ops: &[Op]) -> Played {
        self.plays += 1;
        let ns = format!("{}-x{}", self.prepared.run_id, self.plays);
        let played = play::play(&self.prepared, ops, &ns, &self.budget, self.waits).await;
        self.failed += played.failed.len();
        let room = QUOTED_FAILURES.saturating_sub(self.failures.len());
        self.failures
            .extend(played.failed.iter().take(room).cloned());
        played
    }

    /// The shortest sequence found from `ops` that still breaks `invariant`, whether the
    /// search reached its fixed point, and what its last failing play showed.
    async fn shrink(
        &mut self,
        ops: Vec<Op>,
        invariant: &str,
        first: (String, BTreeMap<usize, String>),
    ) -> (Vec<Op>, bool, (String, BTreeMap<usize, String>)) {
        let mut last = first;
        let explorer = tokio::sync::Mutex::new(&mut *self);
        let last_seen = std::sync::Mutex::new(&mut last);
        let (shrunk, done) = shrink::shrink(ops, |candidate: Vec<Op>| {
            let (explorer, last_seen) = (&explorer, &last_seen);
            async move {
                // One try at a time: the lock is never contended.
                let mut explorer = explorer.lock().await;
                if explorer.budget.spent().is_some() {
                    return shrink::Tried::Spent;
                }
                let played = explorer.play(&candidate).await;
                drop(explorer);
                let broken = judge(&played.observations);
                match broken.iter().find(|(id, _)| *id == invariant) {
                    Some((_, violations)) => {
                        if let Ok(mut last) = last_seen.lock() {
                            **last = (describe(violations), played.tasks.clone());
                        }
                        shrink::Tried::Fails
                    }
                    None if played.cut.is_some() => shrink::Tried::Spent,
                    None => shrink::Tried::Passes,
                }
            }
        })
        .await;
        (shrunk, done, last)
    }
}

/// The violations of one invariant in a line each, the first three.
fn describe(violations: &[crate::exchange::history::Violation]) -> String {
    let mut lines: Vec<String> = (violations.iter().take(3))
        .map(|v| v.what.clone())
        .collect();
    if violations.len() > 3 {
        lines.push(format!("(and {} more task(s))", violations.len() - 3));
    }
    lines.join("\n")
}

/// What the agent offers a sequence: its usable interfaces in a fixed order (1.0 first, then
/// by binding), the scenarios the contract honours, and which cards declare streaming and
/// push notifications.
fn menu_of(prepared: &Prepared, steps: usize) -> Menu {
    let mut places: Vec<(Place, bool, bool)> = (prepared.usable.iter())
        .map(|interface| {
            let card = prepared.card_of(interface);
            let declares = |what: &str| card.json["capabilities"][what] == true;
            let place = Place {
                binding: interface.binding,
                version: interface.version,
            };
            (place, declares("streaming"), declares("pushNotifications"))
        })
        .collect();
    places.sort_by_key(|(p, _, _)| (p.version != ProtocolVersion::V1_0, p.binding));
    let scenarios = [PLAIN, ops::INPUT_REQUIRED, ops::LONG_RUNNING]
        .into_iter()
        .filter(|s| prepared.scenarios.honours(s))
        .collect();
    Menu {
        places: places.iter().map(|(p, _, _)| *p).collect(),
        scenarios,
        streaming: (places.iter())
            .filter(|(_, s, _)| *s)
            .map(|(p, _, _)| *p)
            .collect(),
        push: (places.iter())
            .filter(|(_, _, p)| *p)
            .map(|(p, _, _)| *p)
            .collect(),
        steps,
    }
}

/// Reads the card, probes the interfaces and decides the contract; an error when no
/// interface is usable.
async fn start(options: &ExploreOptions) -> Result<(Explorer<'_>, Menu), RunError> {
    // The time budget counts from here: the card read and the probes spend it too.
    let deadline = Instant::now() + options.time;
    let prepared = runner::prepare(&options.run).await?;
    if prepared.usable.is_empty() {
        let why: Vec<String> = (prepared.unusable.iter())
            .map(|(i, why)| format!("{} {}: {why}", i.binding, i.version.as_str()))
            .collect();
        return Err(RunError::Usage(if why.is_empty() {
            "the card declares no interface the selection keeps (--binding, \
             --protocol-version): nothing to explore"
                .into()
        } else {
            format!("no interface answered the probe: {}", why.join("; "))
        }));
    }
    let menu = menu_of(&prepared, options.steps);
    let budget = Budget {
        max_requests: options.max_requests,
        deadline,
        requests: Arc::new(Requests::default()),
        stop: options.run.stop.clone(),
    };
    let limits = options.run.limits;
    let waits = Waits {
        subscribe: options.subscribe_for,
        // An operation makes one exchange (a push config refused with its authentication,
        // two); a subscription is read for its wait.
        op: limits.request_timeout * 2 + options.subscribe_for,
    };
    let explorer = Explorer {
        prepared,
        options,
        budget,
        waits,
        plays: 0,
        failed: 0,
        failures: Vec::new(),
    };
    Ok((explorer, menu))
}

impl Explorer<'_> {
    /// The report of what was done.
    fn report(
        &self,
        menu: &Menu,
        sequences: Vec<SequenceRun>,
        stopped: Option<String>,
        violations: Vec<Case>,
        replay: bool,
    ) -> Exploration {
        let options = self.options;
        Exploration {
            kit_version: env!("CARGO_PKG_VERSION").to_string(),
            target: options.run.target.clone(),
            card_url: options.run.card_url.clone(),
            seed: options.seed,
            options: Settings {
                sequences: options.sequences,
                steps: options.steps,
                max_requests: options.max_requests,
                time_secs: options.time.as_secs_f64(),
            },
            replay,
            interfaces: menu.places.clone(),
            unusable: (self.prepared.unusable.iter())
                .map(|(i, why)| format!("{} {}: {why}", i.binding, i.version.as_str()))
                .collect(),
            contract: self.prepared.scenarios.used().as_str().to_string(),
            scenarios: menu.scenarios.iter().map(|s| s.to_string()).collect(),
            sequences,
            requests: self.budget.used(),
            failed_exchanges: self.failed,
            failures: self.failures.clone(),
            stopped,
            violations,
        }
    }
}

/// Explores the agent: up to `options.sequences` sequences of `options.seed`, each judged on
/// its own; the first sequence that breaks an invariant not yet found is shrunk at once.
/// Stops early when the budget is spent or the run is stopped, and says why.
pub async fn explore(options: &ExploreOptions) -> Result<Exploration, RunError> {
    let (mut explorer, menu) = start(options).await?;
    let mut sequences = Vec::new();
    let mut violations: Vec<Case> = Vec::new();
    let mut stopped = None;
    for index in 0..options.sequences {
        if let Some(why) = explorer.budget.spent() {
            stopped = Some(why);
            break;
        }
        let ops = generate(options.seed, index, &menu);
        let played = explorer.play(&ops).await;
        let broken = judge(&played.observations);
        sequences.push(SequenceRun {
            index,
            played: played.ran,
            skipped: played.skipped.len(),
            failed: played.failed.len(),
            broke: broken.iter().map(|(id, _)| id.to_string()).collect(),
        });
        for (invariant, found) in &broken {
            if violations.iter().any(|c| c.invariant == *invariant) {
                continue;
            }
            let original = ops[..played.ran].to_vec();
            let first = (describe(found), played.tasks.clone());
            let (shrunk, done, (violation, tasks)) =
                explorer.shrink(original.clone(), invariant, first).await;
            violations.push(case(
                invariant,
                options.seed,
                index,
                &original,
                &shrunk,
                done,
                violation,
                tasks,
            ));
        }
        if let Some(why) = played.cut {
            stopped = Some(why);
            break;
        }
    }
    if stopped.is_none() {
        // A budget spent by the last shrink stopped nothing.
        stopped = explorer
            .budget
            .spent()
            .filter(|_| sequences.len() < options.sequences as usize);
    }
    Ok(explorer.report(&menu, sequences, stopped, violations, false))
}

/// The case of `invariant` broken by sequence `index`, its ops renumbered and the agent's ids
/// of its tasks under the new numbers.
#[allow(clippy::too_many_arguments)]
fn case(
    invariant: &str,
    seed: u64,
    index: u64,
    original: &[Op],
    shrunk: &[Op],
    done: bool,
    violation: String,
    tasks: BTreeMap<usize, String>,
) -> Case {
    let renumbered = ops::renumbered(shrunk);
    let tasks = (shrunk.iter().zip(&renumbered))
        .filter_map(|(old, new)| Some((new.task(), tasks.get(&old.task())?.clone())))
        .collect();
    Case {
        invariant: invariant.to_string(),
        seed,
        sequence: index,
        original_length: original.len(),
        ops: renumbered,
        shrunk: done,
        violation,
        tasks,
    }
}

/// Plays each case again from scratch and judges it the same way: a case is shown again when
/// its invariant breaks again (its violation then is what this play showed).
pub async fn replay(options: &ExploreOptions, cases: &[Case]) -> Result<Exploration, RunError> {
    let (mut explorer, menu) = start(options).await?;
    let mut sequences = Vec::new();
    let mut violations = Vec::new();
    let mut stopped = None;
    for (index, case) in cases.iter().enumerate() {
        if let Some(why) = explorer.budget.spent() {
            stopped = Some(why);
            break;
        }
        let played = explorer.play(&case.ops).await;
        let broken = judge(&played.observations);
        sequences.push(SequenceRun {
            index: index as u64,
            played: played.ran,
            skipped: played.skipped.len(),
            failed: played.failed.len(),
            broke: broken.iter().map(|(id, _)| id.to_string()).collect(),
        });
        if let Some((_, found)) = broken.iter().find(|(id, _)| *id == case.invariant) {
            violations.push(Case {
                violation: describe(found),
                tasks: played.tasks.clone(),
                ..case.clone()
            });
        }
        if let Some(why) = played.cut {
            stopped = Some(why);
            break;
        }
    }
    Ok(explorer.report(&menu, sequences, stopped, violations, true))
}

/// The summary for people: what was explored, and each violation as its shortest sequence.
pub fn summary(exploration: &Exploration) -> String {
    let mut text = String::new();
    let what = if exploration.replay {
        format!("replayed {} case(s)", exploration.sequences.len())
    } else {
        format!(
            "explored with seed {}: {} of {} sequence(s) of {} step(s)",
            exploration.seed,
            exploration.sequences.len(),
            exploration.options.sequences,
            exploration.options.steps
        )
    };
    text.push_str(&format!("{what} on {}\n", exploration.target));
    let places: Vec<String> = exploration
        .interfaces
        .iter()
        .map(Place::to_string)
        .collect();
    text.push_str(&format!(
        "interfaces: {}; contract: {} ({})\n",
        places.join(", "),
        exploration.contract,
        exploration.scenarios.join(", ")
    ));
    for unusable in &exploration.unusable {
        text.push_str(&format!("not explored: {unusable}\n"));
    }
    text.push_str(&format!(
        "requests: {} (at most {}); exchanges without a readable answer: {}\n",
        exploration.requests, exploration.options.max_requests, exploration.failed_exchanges
    ));
    for failure in &exploration.failures {
        text.push_str(&format!("  {failure}\n"));
    }
    if let Some(why) = &exploration.stopped {
        text.push_str(&format!("stopped early: {why}\n"));
    }
    if exploration.violations.is_empty() {
        text.push_str(if exploration.replay {
            "no case broke its invariant again\n"
        } else {
            "no invariant broke\n"
        });
        return text;
    }
    for (n, case) in exploration.violations.iter().enumerate() {
        let shrunk = if case.shrunk {
            String::new()
        } else {
            " (the budget ran out while shrinking: a shorter one may exist)".into()
        };
        text.push_str(&format!(
            "\nviolation {}: {} (seed {}, sequence {}: {} operation(s), shrunk to {}{shrunk})\n",
            n + 1,
            case.invariant,
            case.seed,
            case.sequence,
            case.original_length,
            case.ops.len()
        ));
        for (i, op) in case.ops.iter().enumerate() {
            text.push_str(&format!("  {}. {op}\n", i + 1));
        }
        for line in case.violation.lines() {
            text.push_str(&format!("  {line}\n"));
        }
        let as_json = serde_json::to_string(case).unwrap_or_default();
        text.push_str(&format!(
            "  case (replay it with --replay FILE): {as_json}\n"
        ));
    }
    text
}

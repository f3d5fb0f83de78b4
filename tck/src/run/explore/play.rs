//! Plays one sequence against the agent, one operation after another (so the history's order
//! is certain), every interface's context keeping its sights in one fresh history, and judges
//! that history by every invariant.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::exchange::evidence::{Exchange, Observer, Recorder};
use crate::exchange::history::{self, History, Observation, Violation};
use crate::exchange::transport::stream::{Next, Start};
use crate::facts::a2a;
use crate::facts::model::HarnessError;
use crate::run::runner::Prepared;
use crate::suite::ctx::{Answer, Ctx};

use super::ops::{Op, Place};

/// An invariant of the history: its violations among some observations.
pub type Invariant = fn(&[Observation]) -> Vec<Violation>;

/// The invariants judged on a sequence's history: the id of the `lifecycle.*` check that
/// judges each in a run, and its function.
pub const INVARIANTS: &[(&str, Invariant)] = &[
    (
        "lifecycle.terminal-state-is-final",
        history::terminal_changes,
    ),
    ("lifecycle.cancel-takes-effect", history::cancel_not_kept),
    (
        "lifecycle.reads-keep-what-they-showed",
        history::reads_remove,
    ),
    (
        "lifecycle.history-holds-each-message-once",
        history::repeated_messages,
    ),
];

/// Every invariant `observations` break, each with its violations, in the order of
/// [`INVARIANTS`].
pub fn judge(observations: &[Observation]) -> Vec<(&'static str, Vec<Violation>)> {
    (INVARIANTS.iter())
        .map(|(id, invariant)| (*id, invariant(observations)))
        .filter(|(_, violations)| !violations.is_empty())
        .collect()
}

/// Counts the exchanges of an exploration (every request, a stream's included).
#[derive(Debug, Default)]
pub(crate) struct Requests(AtomicU64);

impl Observer for Requests {
    fn observe(&self, _: &Exchange) {
        self.0.fetch_add(1, Ordering::Relaxed);
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}

/// What an exploration may spend, and what it has spent.
#[derive(Debug, Clone)]
pub(crate) struct Budget {
    pub(crate) max_requests: u64,
    pub(crate) deadline: Instant,
    pub(crate) requests: Arc<Requests>,
    pub(crate) stop: crate::facts::stop::Stop,
}

impl Budget {
    pub(crate) fn used(&self) -> u64 {
        self.requests.0.load(Ordering::Relaxed)
    }

    /// Why nothing more may be sent, if nothing may.
    pub(crate) fn spent(&self) -> Option<String> {
        if self.stop.is_stopped() {
            Some("interrupted".into())
        } else if self.used() >= self.max_requests {
            Some(format!(
                "the request budget (--max-requests {}) was spent",
                self.max_requests
            ))
        } else if Instant::now() >= self.deadline {
            Some("the time budget (--time) was spent".into())
        } else {
            None
        }
    }
}

/// What one play of a sequence did and saw.
#[derive(Debug, Default)]
pub(crate) struct Played {
    /// Every sight of a task, on every interface.
    pub(crate) observations: Vec<Observation>,
    /// How many operations were played (all of them, unless the budget was spent first).
    pub(crate) ran: usize,
    /// The operations skipped: their interface is not usable, or their task was not made.
    pub(crate) skipped: Vec<usize>,
    /// The exchanges that failed (no answer, or none the kit could read): never a violation.
    pub(crate) failed: Vec<String>,
    /// Why the play stopped before its end, if it did.
    pub(crate) cut: Option<String>,
    /// The agent's id of each task label made.
    pub(crate) tasks: BTreeMap<usize, String>,
}

/// How long a subscription's events are read.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Waits {
    /// A subscription is read for at most this long.
    pub(crate) subscribe: Duration,
    /// One operation, all its exchanges, is given at most this long.
    pub(crate) op: Duration,
}

/// The tasks of a play: by label, the task as the send answered it, and the push config the
/// kit made on it.
#[derive(Default)]
struct Tasks {
    made: BTreeMap<usize, Value>,
    configs: BTreeMap<usize, String>,
}

/// Plays `ops` from scratch: a fresh history, fresh tasks, the namespace `ns` for the kit's
/// ids; stops early when `budget` is spent.
pub(crate) async fn play(
    prepared: &Prepared,
    ops: &[Op],
    ns: &str,
    budget: &Budget,
    waits: Waits,
) -> Played {
    let history = Arc::new(History::default());
    let recorder = Recorder::default().observed_by(budget.requests.clone());
    // One namespace per interface: each context counts its own ids.
    let contexts: Vec<(Place, Ctx)> = (prepared.usable.iter())
        .enumerate()
        .map(|(n, interface)| {
            let place = Place {
                binding: interface.binding,
                version: interface.version,
            };
            let ns = format!("{ns}-{n}");
            let ctx = prepared.ctx(interface, recorder.clone(), history.clone(), &ns);
            (place, ctx)
        })
        .collect();
    let mut played = Played::default();
    let mut tasks = Tasks::default();
    for (index, op) in ops.iter().enumerate() {
        if let Some(why) = budget.spent() {
            played.cut = Some(why);
            break;
        }
        played.ran = index + 1;
        let Some((_, ctx)) = contexts.iter().find(|(place, _)| *place == op.on()) else {
            played.skipped.push(index);
            continue;
        };
        let left = budget.deadline.saturating_duration_since(Instant::now());
        let work = tokio::time::timeout(waits.op.min(left), step(ctx, op, &mut tasks, waits));
        // Stopped meanwhile, the operation in flight gets the stop's grace.
        match budget.stop.within_grace(work).await {
            None => {
                played.cut = Some("interrupted".into());
                break;
            }
            Some(Err(_)) => played.failed.push(format!(
                "{op}: no answer within {} ms",
                waits.op.min(left).as_millis()
            )),
            Some(Ok(Ok(Step::Done))) => {}
            Some(Ok(Ok(Step::Skipped))) => played.skipped.push(index),
            Some(Ok(Err(error))) => played.failed.push(format!("{op}: {error}")),
        }
        // The evidence is not kept: the history holds what is judged.
        drop(recorder.take());
    }
    played.tasks = (tasks.made.iter())
        .map(|(label, task)| {
            (
                *label,
                a2a::text(task, "id").unwrap_or_default().to_string(),
            )
        })
        .collect();
    played.observations = history.all();
    played
}

enum Step {
    Done,
    Skipped,
}

/// One operation. An error answer of the agent is an answer like any other; only an exchange
/// without a readable answer is an error here.
async fn step(ctx: &Ctx, op: &Op, tasks: &mut Tasks, waits: Waits) -> Result<Step, HarnessError> {
    if let Op::Send {
        task,
        scenario,
        return_immediately,
        ..
    } = op
    {
        if tasks.made.contains_key(task) {
            // A second send of one label (a hand-edited case): the label is taken.
            return Ok(Step::Skipped);
        }
        let message = ctx.user_message(scenario);
        let configuration = return_immediately.then(|| json!({ "returnImmediately": true }));
        let answer = ctx.send_message(message, configuration).await?;
        if let Some(made) = answer.result().and_then(|r| r.get("task")) {
            if a2a::text(made, "id").is_some_and(|id| !id.is_empty()) {
                tasks.made.insert(*task, made.clone());
            }
        }
        return Ok(Step::Done);
    }
    let Some(task) = tasks.made.get(&op.task()).cloned() else {
        return Ok(Step::Skipped);
    };
    let id = a2a::text(&task, "id").unwrap_or_default().to_string();
    match op {
        Op::Send { .. } => {}
        Op::FollowUp { scenario, .. } => {
            let message = crate::suite::checks::setup::full_follow_up(ctx, &task, scenario);
            ctx.send_message(message, None).await?;
        }
        Op::Get { history_length, .. } => {
            ctx.get_task(&id, *history_length).await?;
        }
        Op::List { .. } => {
            let Some(context) = a2a::text(&task, "contextId") else {
                return Ok(Step::Skipped);
            };
            ctx.list_tasks(json!({ "contextId": context })).await?;
        }
        Op::Cancel { .. } => {
            ctx.cancel_task(&id).await?;
        }
        Op::Subscribe { .. } => {
            // Its events are kept in the history as they are read; the stream is dropped
            // when it ends or the wait is over.
            let read = async {
                if let Start::Stream(mut stream) = ctx.subscribe(json!({ "id": id })).await? {
                    while let Next::Event(_) = stream.next(waits.subscribe).await {}
                }
                Ok::<(), HarnessError>(())
            };
            if let Ok(result) = tokio::time::timeout(waits.subscribe, read).await {
                result?;
            }
        }
        Op::PushCreate { .. } => {
            let key = ctx.id("tck-push-hook");
            let webhook = ctx.webhook()?;
            let config = json!({ "taskId": id, "id": key, "url": webhook.url_for(&key) });
            let reply = ctx.create_push_config(ctx.with_tenant(config)?).await?;
            if let Ok(Answer::Result(made)) = &reply.read {
                let made = a2a::text(made, "id").unwrap_or(&key).to_string();
                tasks.configs.insert(op.task(), made);
            }
        }
        Op::PushGet { .. } | Op::PushDelete { .. } => {
            let config = (tasks.configs.get(&op.task()).cloned())
                .unwrap_or_else(|| ctx.id("tck-no-such-config"));
            let params = ctx.with_tenant(json!({ "taskId": id, "id": config }))?;
            let reply = if matches!(op, Op::PushGet { .. }) {
                ctx.get_push_config(params).await?
            } else {
                ctx.delete_push_config(params).await?
            };
            reply.answer()?;
        }
        Op::PushList { .. } => {
            let params = ctx.with_tenant(json!({ "taskId": id }))?;
            ctx.list_push_configs(params).await?.answer()?;
        }
    }
    Ok(Step::Done)
}

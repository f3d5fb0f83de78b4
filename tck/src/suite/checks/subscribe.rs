//! SubscribeToTask checks (`subscribe.*`, spec 1.0 §3.1.6, §3.5.2): the first event, later
//! updates, the end of a subscription, refusals, and several subscribers. These run when the
//! card declares `capabilities.streaming`; every wait is bounded by the kit's stream wait.

use crate::suite::check::Needs;
use serde_json::{json, Value};

use super::setup::{self, close_after_terminal, rank, sent_task, task_id, until_terminal, Setup};
use super::{EVERY_BINDING_1_0, STREAMING};
use crate::exchange::judge;
use crate::exchange::transport::stream::{Collected, End, Event, EventStream, Next, Start};
use crate::facts::a2a::{self, ErrorKind};
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "subscribe";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "subscribe.first-event-is-current-task",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "3.1.6",
                statements: &["V10-3.1.6-02"],
            },
            requirement: "The first event of SubscribeToTask is the Task as it stands",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-SUB-001"],
            acts: &["STREAM-SSE-004", "STREAM-RESUB-001"],
            reading: Some(
                "On HTTP+JSON the kit subscribes with POST /tasks/{id}:subscribe, the verb of \
                 §5.3 and §11.3.2; the proto's annotation says GET (spec notes §1.17 #1). An \
                 agent that answers only GET fails the subscription checks on HTTP+JSON.",
            ),
            needs: Needs::NONE
                .sends(&["tck-input-required", "tck-long-running"])
                .weighs(4),
            run: |ctx| Box::pin(subscribe_first_event(ctx)),
        },
        Check {
            id: "subscribe.receives-later-updates",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "3.5.2",
                statements: &["V10-3.5.2-04"],
            },
            requirement:
                "A subscriber receives the task's later events (a follow-up that completes it)",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-ORDER-002"],
            acts: &["STREAM-SUB-001", "STREAM-RESUB-001"],
            reading: Some(
                "The task is kept open (`tck-long-running`, the kit's own scenario, when the \
                 agent keeps it WORKING and its subscription starts open; else the official \
                 `tck-input-required`), one subscriber attaches, then a follow-up message \
                 completes it: the subscriber must see at least the terminal status after its \
                 snapshot.",
            ),
            needs: Needs::NONE
                .sends(&["tck-input-required", "tck-long-running"])
                .weighs(4),
            run: |ctx| Box::pin(subscribe_updates(ctx)),
        },
        Check {
            id: "subscribe.closes-at-terminal-state",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "3.1.6",
                statements: &["V10-3.1.6-01"],
            },
            requirement: "A SubscribeToTask stream closes when the task reaches a terminal state",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-SUB-002"],
            acts: &["STREAM-SUB-001", "STREAM-SUB-002"],
            reading: None,
            needs: Needs::NONE
                .sends(&["tck-input-required", "tck-long-running"])
                .weighs(4),
            run: |ctx| Box::pin(subscribe_closes(ctx)),
        },
        Check {
            id: "subscribe.terminal-task-unsupported",
            level: Level::Should,
            spec: SpecRef {
                version: "1.0",
                section: "3.1.6",
                statements: &["V10-P-13"],
            },
            requirement: "Subscribing to a task in a terminal state gets UnsupportedOperationError",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-SUB-003"],
            acts: &["STREAM-SUB-003"],
            reading: Some(
                "The proto's comment on SubscribeToTask and §3.1.6's list of errors name \
                 UnsupportedOperationError without an RFC 2119 keyword, and a stream that gives \
                 the finished task and closes (0.3's answer) breaks none of §3.1.6's MUSTs: any \
                 other answer is a WARN.",
            ),
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(subscribe_terminal(ctx)),
        },
        Check {
            id: "subscribe.unknown-task-not-found",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "3.1.6",
                statements: &["V10-3.3.2-11", "V10-D-3.1.6-01"],
            },
            requirement: "Subscribing to a task that does not exist gets TaskNotFoundError",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-SUB-004"],
            acts: &[],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(subscribe_unknown(ctx)),
        },
        Check {
            id: "subscribe.subscribers-see-same-events",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "3.5.2",
                statements: &["V10-3.5.2-05"],
            },
            requirement: "Two subscribers of one task receive the same events in the same order",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-ORDER-003"],
            acts: &["STREAM-MULTI-001"],
            reading: Some(
                "Events are compared by kind, state and artifact id after the subscription \
                 snapshot; timestamps may differ only between snapshots.",
            ),
            needs: Needs::NONE
                .sends(&["tck-input-required", "tck-long-running"])
                .weighs(5),
            run: |ctx| Box::pin(subscribers_agree(ctx)),
        },
    ]
}

/// Setup: a `tck-long-running` task (the kit's own scenario: WORKING until a follow-up or a
/// cancel), when the agent plays it. Sent non-blocking: a blocking call would rightly wait for
/// a state this task never reaches until released (§3.2.2). The task counts only when it is
/// WORKING, in the answer or in a GetTask after it: an agent that does not know this prefix
/// (it is not in the official contract) may answer SUBMITTED and complete the task a moment
/// later. None means "use the official `tck-input-required` instead".
async fn long_running(ctx: &Ctx) -> Result<Option<Value>, HarnessError> {
    // Used only when the contract probe showed the agent plays it: alike on every binding.
    if !ctx.scenarios().honours("tck-long-running") {
        return Ok(None);
    }
    let message = ctx.user_message("tck-long-running");
    let answer = ctx
        .send_message(message, Some(json!({ "returnImmediately": true })))
        .await?;
    let Some(task) = sent_task(&answer).filter(|t| a2a::text(t, "id").is_some()) else {
        return Ok(None);
    };
    match a2a::state(task) {
        Some("TASK_STATE_WORKING") => return Ok(Some(task.clone())),
        Some(s) if a2a::TERMINAL_STATES.contains(&s) => return Ok(None),
        _ => {}
    }
    let now = ctx.get_task(&task_id(task), None).await?;
    Ok(now
        .result()
        .filter(|t| a2a::state(t) == Some("TASK_STATE_WORKING"))
        .cloned())
}

/// An open task and a started subscription to it, with the subscription's first event read.
struct Opened {
    task: Value,
    stream: EventStream,
    first: Next,
}

/// Setup: an open task and a subscription to it. The `tck-long-running` task is used when
/// the agent plays it and its subscription starts with the task still open; otherwise (the
/// task ended in between, the subscription was refused) an input-required task
/// (`tck-input-required`, official contract) is made and subscribed to, and what that
/// subscription does is what the check judges. The same on every binding.
async fn open_subscribed(ctx: &Ctx) -> Result<Opened, HarnessError> {
    let wait = ctx.stream_wait();
    if let Some(task) = long_running(ctx).await? {
        if let Start::Stream(mut stream) = ctx.subscribe(id_params(&task)).await? {
            let first = stream.next(wait).await;
            let open = matches!(&first, Next::Event(e) if e.kind() == Some("task")
                && e.state().is_some_and(|s| !a2a::TERMINAL_STATES.contains(&s)));
            if open {
                return Ok(Opened {
                    task,
                    stream: *stream,
                    first,
                });
            }
        }
        let _ = ctx.cancel_task(&task_id(&task)).await;
    }
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let mut stream = subscribe(ctx, &task).await?;
    let first = stream.next(wait).await;
    Ok(Opened {
        task,
        stream,
        first,
    })
}

fn id_params(task: &Value) -> Value {
    json!({ "id": task_id(task) })
}

/// Subscribes to `task`; the subscription must start.
async fn subscribe(ctx: &Ctx, task: &Value) -> Result<EventStream, HarnessError> {
    ctx.open_subscription(id_params(task)).await
}

/// Completes an open task (a follow-up, or a cancel where the contract's follow-ups do not
/// release it), which must be seen to move it.
async fn release(ctx: &Ctx, task: &Value) -> Result<(), HarnessError> {
    setup::release(ctx, task, crate::suite::contract::PLAIN)
        .await
        .map(drop)
}

async fn subscribe_first_event(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let Opened {
        task,
        stream,
        first,
    } = open_subscribed(&ctx).await?;
    let id = task_id(&task);
    let expected = format!(
        "a task event for task {id:?}, open, in state {} or later",
        a2a::shown(a2a::state(&task))
    );
    let verdict = match &first {
        Next::Event(event) if event.kind() == Some("task") => {
            let t = event.get("task").cloned().unwrap_or_default();
            // The task may have moved on since it was made (returnImmediately), but only
            // forward, and it is still open.
            let state = a2a::state(&t).unwrap_or_default();
            let made = a2a::state(&task).unwrap_or_default();
            let open = !a2a::TERMINAL_STATES.contains(&state) && a2a::TASK_STATES.contains(&state);
            if a2a::text(&t, "id") == Some(id.as_str()) && open && rank(state) >= rank(made) {
                Verdict::pass()
            } else {
                Verdict::fail(expected, event.brief())
            }
        }
        Next::Event(event) => Verdict::fail(expected, format!("first event {}", event.brief())),
        Next::End(end) => Verdict::fail(expected, end.describe()),
    };
    drop(stream);
    let _ = ctx.cancel_task(&id).await;
    Ok(verdict)
}

/// Subscribes, checks the snapshot, releases the task, and reads the rest of the stream.
async fn subscribed_events(ctx: &Ctx) -> Result<(Value, Collected, Collected), HarnessError> {
    let Opened {
        task,
        stream: mut first,
        first: one,
    } = open_subscribed(ctx).await?;
    let mut second = subscribe(ctx, &task).await?;
    let wait = ctx.stream_wait();
    let two = second.next(wait).await;
    for snapshot in [&one, &two] {
        if !matches!(snapshot, Next::Event(e) if e.kind() == Some("task")) {
            return Err(HarnessError::Prerequisite(format!(
                "a subscription did not start with the task: {}",
                snapshot.brief()
            )));
        }
    }
    release(ctx, &task).await?;
    Ok((task, first.collect(wait).await, second.collect(wait).await))
}

async fn subscribe_updates(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let Opened {
        task,
        mut stream,
        first: snapshot,
    } = open_subscribed(&ctx).await?;
    let wait = ctx.stream_wait();
    if !matches!(&snapshot, Next::Event(e) if e.kind() == Some("task")) {
        return Err(HarnessError::Prerequisite(format!(
            "the subscription did not start with the task: {}",
            snapshot.brief()
        )));
    }
    release(&ctx, &task).await?;
    let later = until_terminal(&mut stream, wait, Vec::new()).await;
    let later = interrupted_close(later, &task, "after its snapshot, before the follow-up")?;
    Ok(match later {
        Ok(later) => Verdict::pass_with(format!("{} event(s) after the snapshot", later.len())),
        Err(collected) => Verdict::fail(
            "the follow-up's events, up to the terminal state, after the snapshot",
            collected.describe(),
        ),
    })
}

/// The events up to the terminal state, unless the subscription to an interrupted task
/// closed with no event: it may (§11.7), which leaves nothing to judge (`when` says when).
fn interrupted_close<T>(
    got: Result<T, Collected>,
    task: &Value,
    when: &str,
) -> Result<Result<T, Collected>, HarnessError> {
    match got {
        Err(collected)
            if collected.end == End::Closed
                && collected.events.is_empty()
                && a2a::state(task).is_some_and(|s| a2a::INTERRUPTED_STATES.contains(&s)) =>
        {
            Err(HarnessError::Prerequisite(format!(
                "the subscription closed {when}: {}",
                collected.describe()
            )))
        }
        got => Ok(got),
    }
}

async fn subscribe_closes(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let Opened {
        task,
        mut stream,
        first,
    } = open_subscribed(&ctx).await?;
    let snapshot = match first {
        Next::Event(e) => vec![e],
        Next::End(end) => {
            return Err(HarnessError::Prerequisite(format!(
                "the subscription ended before its first event: {}",
                end.describe()
            )))
        }
    };
    release(&ctx, &task).await?;
    close_after_terminal(&ctx, &mut stream, snapshot).await
}

async fn subscribe_terminal(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-complete-task", "TASK_STATE_COMPLETED")
        .await?;
    refused_with(
        &ctx,
        json!({ "id": task_id(&task) }),
        ErrorKind::UnsupportedOperation,
    )
    .await
}

async fn subscribe_unknown(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let params = json!({ "id": ctx.id("tck-no-such-task") });
    refused_with(&ctx, params, ErrorKind::TaskNotFound).await
}

/// SubscribeToTask must be refused with `kind`: an error before any event, however the
/// binding sends it (the whole answer, or a stream's first event).
async fn refused_with(ctx: &Ctx, params: Value, kind: ErrorKind) -> Result<Verdict, HarnessError> {
    Ok(match ctx.subscribe(params).await? {
        Start::Refused(reply) => judge::expect_error(&reply, kind),
        Start::Stream(mut stream) => {
            let collected = stream.collect(ctx.stream_wait()).await;
            let expected = judge::expected(kind, ctx.binding(), ctx.version());
            Verdict::fail(expected, collected.describe())
        }
    })
}

/// An event reduced to what two subscribers must agree on.
fn essence(event: &Event) -> String {
    let artifact = event
        .get("artifactUpdate")
        .and_then(|u| u.get("artifact"))
        .and_then(|a| a2a::text(a, "artifactId"));
    format!(
        "{}:{}:{}",
        event.kind().unwrap_or("?"),
        event.state().unwrap_or(""),
        artifact.unwrap_or("")
    )
}

async fn subscribers_agree(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (task, one, two) = subscribed_events(&ctx).await?;
    let a: Vec<String> = one.events.iter().map(essence).collect();
    let b: Vec<String> = two.events.iter().map(essence).collect();
    // A subscription to an interrupted task may close after its snapshot (§11.7): nothing
    // after it to compare.
    let one = match interrupted_close(Err::<(), _>(one), &task, "after its snapshot") {
        Ok(Err(one)) => one,
        Ok(Ok(())) => unreachable!("given as an error"),
        Err(nothing) => return Err(nothing),
    };
    if a.is_empty() {
        return Ok(Verdict::fail(
            "both subscribers receive the follow-up's events",
            format!("first subscriber: {}", one.describe()),
        ));
    }
    Ok(if a == b {
        Verdict::pass_with(format!("both saw {a:?}"))
    } else {
        Verdict::fail(
            "the same events in the same order on both subscriptions",
            format!("first: {}; second: {}", one.describe(), two.describe()),
        )
    })
}

/// The rule that one closed stream leaves the others alone (§3.5.2), after the checks above
/// in the catalogue.
pub fn closing_checks() -> Vec<Check> {
    vec![Check {
        id: "subscribe.closing-one-keeps-others",
        level: Level::Must,
        spec: SpecRef { version: "1.0", section: "3.5.2", statements: &["V10-3.5.2-06"] },
        requirement: "When the client closes one of two subscriptions to a task, the other still receives the task's updates up to its terminal state",
        scope: EVERY_BINDING_1_0,
        requires: STREAMING,
        maps_to: &[],
        acts: &["STREAM-MULTI-002"],
        reading: Some(
            "The kit closes the first subscription, opens a third one (so that the agent has \
             handled the close), then completes the task and reads the second to the end. A \
             subscription to an interrupted task that closes before the follow-up is allowed \
             (§11.7) and leaves nothing to judge.",
        ),
        needs: Needs::NONE.sends(&["tck-input-required", "tck-long-running"]).weighs(6),
        run: |ctx| Box::pin(closing_one(ctx)),
    }]
}

async fn closing_one(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let Opened {
        task,
        stream: first,
        first: one,
    } = open_subscribed(&ctx).await?;
    let wait = ctx.stream_wait();
    let mut second = subscribe(&ctx, &task).await?;
    let two = second.next(wait).await;
    for snapshot in [&one, &two] {
        if !matches!(snapshot, Next::Event(e) if e.kind() == Some("task")) {
            return Err(HarnessError::Prerequisite(format!(
                "a subscription did not start with the task: {}",
                snapshot.brief()
            )));
        }
    }
    drop(first);
    // A third subscription's round trip lets the agent see the first one close.
    let mut third = subscribe(&ctx, &task).await?;
    let _ = third.next(wait).await;
    drop(third);
    release(&ctx, &task).await?;
    let later = until_terminal(&mut second, wait, Vec::new()).await;
    let later = interrupted_close(later, &task, "before the follow-up")?;
    Ok(match later {
        Ok(later) => Verdict::pass_with(format!(
            "the second subscription got {} event(s) after the first closed",
            later.len()
        )),
        Err(collected) => Verdict::fail(
            "the other subscription receives the task's events up to its terminal state",
            collected.describe(),
        ),
    })
}

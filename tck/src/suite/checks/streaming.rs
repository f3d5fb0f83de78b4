//! Stream checks (`streaming.*`, spec 1.0 §3.1.2, §3.5.2, §9.4.2, §11.7): the shape of a
//! SendStreamingMessage stream, its order, its end, and its HTTP framing. These run when the
//! card declares `capabilities.streaming`. Every wait is bounded by the kit's stream wait
//! (`--stream-wait`): a stream that stays open is reported with the events it sent, never
//! waited on for ever.

pub mod after_end;
pub mod progress;
use crate::suite::check::Needs;
use serde_json::json;

use super::setup::{close_after_terminal, full_follow_up, rank, task_id, Setup};
use super::{EVERY_BINDING_1_0, EVERY_BINDING_BOTH, STREAMING};
use crate::exchange::transport::stream::{Collected, End, Event};
use crate::facts::a2a;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

mod artifacts;
mod framing;
pub use framing::framing_checks;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "streaming";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "streaming.task-stream-starts-with-task",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.2", statements: &["V10-3.1.2-02", "V10-3.1.2-03", "V10-3.1.2-05"] },
            requirement: "A task stream starts with the Task, then carries only status and artifact updates",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["CORE-STREAM-001", "CORE-STREAM-003"],
            acts: &["STREAM-SSE-001", "GRPC-STREAM-001"],
            reading: None,
            needs: Needs::NONE.sends(&["tck-stream-001"]),
            run: |ctx| Box::pin(task_stream_shape(ctx)),
        },
        Check {
            id: "streaming.follow-up-stream-starts-with-task",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.2", statements: &["V10-3.1.2-03", "V10-3.1.2-05"] },
            requirement: "A streamed follow-up on an existing task starts its stream with the Task, not with a status update",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &[],
            acts: &[],
            reading: Some(
                "§3.1.2 makes no exception for a message that continues a task the client \
                 already knows: a task stream begins with the Task object (as it stands), then \
                 status and artifact updates. An input-required task (`tck-input-required`) is \
                 continued with SendStreamingMessage; only the first event is judged. A \
                 follow-up answered with a Message or with another task, or one that leaves the \
                 task waiting for input (in the stream and in GetTask after it), is UNTESTABLE.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(3),
            run: |ctx| Box::pin(follow_up_stream_starts_with_task(ctx)),
        },
        Check {
            id: "streaming.message-stream-is-one-message",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.2", statements: &["V10-3.1.2-04"] },
            requirement: "A message-only stream carries exactly one Message and then closes",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["CORE-STREAM-002"],
            acts: &["STREAM-MSG-001"],
            reading: Some(
                "The Message scenario of the SUT contract (`tck-message-response`) is sent as a \
                 stream. An agent that answers it with a task stream instead has no \
                 message-only stream to judge, and the check is UNTESTABLE.",
            ),
            needs: Needs::NONE.sends(&["tck-message-response"]),
            run: |ctx| Box::pin(message_stream(ctx)),
        },
        Check {
            id: "streaming.states-in-order",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.5.2", statements: &["V10-3.5.2-01", "V10-3.5.2-02", "V10-11.7-01"] },
            requirement: "Stream events arrive in the order they were produced: task states never go back, and nothing follows the terminal state",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-ORDER-001"],
            acts: &["STREAM-SSE-001"],
            reading: Some(
                "Generation order is observed through the task state: SUBMITTED before WORKING \
                 before an interrupted or terminal state, and no event after a terminal one.",
            ),
            needs: Needs::NONE.sends(&["tck-stream-ordering-001"]),
            run: |ctx| Box::pin(states_in_order(ctx)),
        },
        Check {
            id: "streaming.closes-after-terminal-state",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.2", statements: &["V10-3.1.2-06"] },
            requirement: "A task stream closes once the task reaches a terminal state",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["CORE-STREAM-003"],
            acts: &["STREAM-SSE-001", "STREAM-SUB-002"],
            reading: None,
            needs: Needs::NONE.sends(&["tck-stream-003"]),
            run: |ctx| Box::pin(closes_after_terminal(ctx)),
        },
        Check {
            id: "streaming.artifact-chunks-append-in-order",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "proto TaskArtifactUpdateEvent", statements: &["V10-D-P-01"] },
            requirement: "Chunks of one artifact say how to rebuild it: append on a chunk that extends it (none on one that replaces it), lastChunk on the last one",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &[],
            acts: &["STREAM-SSE-003", "STREAM-SSE-002"],
            reading: Some(
                "Uses `tck-stream-artifact-chunked` (two chunks of one artifact). The proto's \
                 sentence is a lower-case \"should be appended\", so a miss is a WARN. A chunk \
                 with append true extends the artifact; one without it is the artifact from \
                 then on, so a later chunk that repeats the whole artifact with append false \
                 (a replacement) is read as the flags say. What is judged: only the final chunk \
                 carries lastChunk true, and the parts a client rebuilds by the flags are those \
                 GetTask then holds for that artifact (texts compared run together, as an agent \
                 may store text chunks as one part; flags alone when GetTask holds no such \
                 artifact). A first chunk with append true has nothing to append to: tolerated \
                 (the official SUT contract prescribes it on chunk 1 of this very scenario).",
            ),
            needs: Needs::NONE.sends(&["tck-stream-artifact-chunked"]).weighs(2),
            run: |ctx| Box::pin(artifacts::artifact_chunks(ctx)),
        },
        Check {
            id: "streaming.final-state-matches-get-task",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.1.3", statements: &["V10-D-3.1.3-02"] },
            requirement: "After a stream ends, GetTask returns the state and artifacts the stream reported",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &[],
            acts: &[],
            reading: Some(
                "§3.1.3 describes GetTask as returning the task as it stands, without an RFC \
                 2119 keyword: a GetTask that disagrees with the stream is a WARN, not a FAIL.",
            ),
            needs: Needs::NONE.sends(&["tck-stream-001"]).weighs(2),
            run: |ctx| Box::pin(final_state_matches(ctx)),
        },
        Check {
            id: "streaming.failed-task-ends-stream-failed",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.2", statements: &["V10-3.1.2-06", "V10-D-3.1.3-02", "V03-T-09", "V03-T-17", "V03-7.3-01"] },
            requirement: "A task that fails while streamed ends its stream with a TASK_STATE_FAILED status as the last event, and GetTask agrees",
            scope: EVERY_BINDING_BOTH,
            requires: STREAMING,
            maps_to: &[],
            acts: &["CORE-FAIL-001"],
            reading: Some(
                "Driven by the kit's own scenario `tck-fail-task`, used only when the contract \
                 probe showed the agent fails such a task. The last event may be the FAILED \
                 status update or a final Task snapshot in FAILED (§11.7). A stream whose task \
                 is not failed at all (no FAILED event, GetTask not FAILED) is UNTESTABLE, \
                 never a FAIL: the agent did not play the scenario when streaming.",
            ),
            needs: Needs::NONE.sends(&["tck-fail-task"]).weighs(2),
            run: |ctx| Box::pin(failed_task_stream(ctx)),
        },
    ]
}

/// Sends a streaming message with `prefix` and reads the stream to its end.
async fn stream_of(ctx: &Ctx, prefix: &str) -> Result<Collected, HarnessError> {
    let message = ctx.user_message(prefix);
    let mut stream = ctx.open_send_stream(json!({ "message": message })).await?;
    Ok(stream.collect(ctx.stream_wait()).await)
}

async fn follow_up_stream_starts_with_task(ctx: Ctx) -> Result<Verdict, HarnessError> {
    const WAITING: &str = "TASK_STATE_INPUT_REQUIRED";
    let task = ctx
        .create_task_in_state("tck-input-required", WAITING)
        .await?;
    let id = task_id(&task);
    let message = full_follow_up(&ctx, &task, "tck-complete-task");
    let mut stream = ctx.open_send_stream(json!({ "message": message })).await?;
    let collected = stream.collect(ctx.stream_wait()).await;
    drop(stream);
    // A follow-up the agent could not use (it waits for an answer the kit cannot give)
    // leaves nothing to judge.
    let moved = collected
        .events
        .iter()
        .filter_map(Event::state)
        .any(|s| s != WAITING);
    if !moved {
        let read = ctx.get_task(&id, None).await?;
        let now = read
            .result()
            .and_then(|t| a2a::state(t))
            .map(str::to_string);
        if now.as_deref() == Some(WAITING) {
            let _ = ctx.cancel_task(&id).await;
            return Err(HarnessError::Prerequisite(format!(
                "the task stayed in {WAITING} after the streamed follow-up: the agent waits for \
                 an answer the kit cannot give (a drive file can say what to send); the stream: {}",
                collected.describe()
            )));
        }
    }
    let expected = format!("the Task {id:?} as the first event of the follow-up's stream");
    let Some(first) = collected.events.first() else {
        return Ok(Verdict::fail(expected, collected.describe()));
    };
    if first.problem.is_some() {
        return Ok(Verdict::fail(
            expected,
            format!("first event {}: {}", first.brief(), collected.describe()),
        ));
    }
    match first.kind() {
        Some("task") => {
            let streamed = first.get("task").and_then(|t| a2a::text(t, "id"));
            if streamed == Some(id.as_str()) {
                Ok(Verdict::pass_with(collected.describe()))
            } else {
                Err(HarnessError::Prerequisite(format!(
                    "the follow-up on task {id:?} was answered with task {} \
                     (send.follow-up-continues-interrupted-task judges that): {}",
                    a2a::shown(streamed),
                    collected.describe()
                )))
            }
        }
        Some("message") => Err(HarnessError::Prerequisite(format!(
            "the agent answered the follow-up with a Message, a message-only stream: {}",
            collected.describe()
        ))),
        _ => Ok(Verdict::fail(
            expected,
            format!("first event {}: {}", first.brief(), collected.describe()),
        )),
    }
}

/// A stream that did not end normally (it broke, ended with an error, or stayed open) is a
/// violation of "`what` then the stream closes".
fn ended_badly(collected: &Collected, what: &str) -> Option<Verdict> {
    match &collected.end {
        End::Closed => None,
        _ => Some(Verdict::fail(
            format!("{what}, then the stream closes"),
            collected.describe(),
        )),
    }
}

/// The first malformed event, if any, as a violation.
fn malformed(collected: &Collected, expected: &str) -> Option<Verdict> {
    collected
        .events
        .iter()
        .position(|e| e.problem.is_some() || e.kind().is_none())
        .map(|i| {
            Verdict::fail(
                expected.to_string(),
                format!(
                    "event {} is {}: {}",
                    i + 1,
                    collected.events[i].brief(),
                    collected.describe()
                ),
            )
        })
}

async fn task_stream_shape(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let collected = stream_of(&ctx, "tck-stream-001").await?;
    let expected = "a task event first, then only statusUpdate and artifactUpdate events";
    if let Some(v) = malformed(&collected, expected) {
        return Ok(v);
    }
    let kinds: Vec<&str> = collected.events.iter().filter_map(Event::kind).collect();
    // A final Task snapshot may close the stream (§11.7); it repeats the terminal state.
    let body = match (kinds.len() > 1, collected.events.last()) {
        (true, Some(last)) if last.kind() == Some("task") && is_terminal(last) => {
            &kinds[1..kinds.len() - 1]
        }
        _ if kinds.is_empty() => &kinds[..],
        _ => &kinds[1..],
    };
    let shaped = kinds.first() == Some(&"task")
        && body
            .iter()
            .all(|k| *k == "statusUpdate" || *k == "artifactUpdate");
    if let (Some(&"message"), 1) = (kinds.first(), kinds.len()) {
        return Err(HarnessError::Prerequisite(
            "the agent answered `tck-stream-001` with a Message, not a task stream".into(),
        ));
    }
    if !shaped {
        return Ok(Verdict::fail(expected, collected.describe()));
    }
    Ok(ended_badly(&collected, expected)
        .unwrap_or_else(|| Verdict::pass_with(collected.describe())))
}

async fn message_stream(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let collected = stream_of(&ctx, "tck-message-response").await?;
    if collected.events.first().and_then(Event::kind) == Some("task") {
        return Err(HarnessError::Prerequisite(format!(
            "the agent answered the Message scenario with a task stream: {}",
            collected.describe()
        )));
    }
    let expected = "exactly one message event";
    if let Some(v) = malformed(&collected, expected) {
        return Ok(v);
    }
    let one_message = collected.events.len() == 1 && collected.events[0].kind() == Some("message");
    if !one_message {
        return Ok(Verdict::fail(expected, collected.describe()));
    }
    Ok(ended_badly(&collected, expected).unwrap_or_else(Verdict::pass))
}

/// Whether an event reports a terminal task state.
fn is_terminal(event: &Event) -> bool {
    event
        .state()
        .is_some_and(|s| a2a::TERMINAL_STATES.contains(&s))
}

async fn states_in_order(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let collected = stream_of(&ctx, "tck-stream-ordering-001").await?;
    let expected = "task states that never go back, and no event after the terminal state";
    if let Some(v) = malformed(&collected, expected) {
        return Ok(v);
    }
    let mut highest = 0;
    let mut terminal_at = None;
    for (i, event) in collected.events.iter().enumerate() {
        // Only a final Task snapshot in the terminal state may follow it (§11.7).
        let snapshot = event.kind() == Some("task") && is_terminal(event);
        if let (Some(at), false) = (terminal_at, snapshot) {
            return Ok(Verdict::fail(
                expected,
                format!(
                    "event {} follows the terminal state at event {at}: {}",
                    i + 1,
                    collected.describe()
                ),
            ));
        }
        let Some(state) = event.state() else { continue };
        if rank(state) < highest {
            return Ok(Verdict::fail(
                expected,
                format!(
                    "event {} goes back to {state}: {}",
                    i + 1,
                    collected.describe()
                ),
            ));
        }
        highest = rank(state);
        if a2a::TERMINAL_STATES.contains(&state) {
            terminal_at = Some(i + 1);
        }
    }
    if let Some(v) = ended_badly(&collected, expected) {
        return Ok(v);
    }
    if terminal_at.is_none() {
        return Err(HarnessError::Prerequisite(format!(
            "the stream of `tck-stream-ordering-001` never reached a terminal state: {}",
            collected.describe()
        )));
    }
    Ok(Verdict::pass_with(collected.describe()))
}

async fn closes_after_terminal(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let message = ctx.user_message("tck-stream-003");
    let mut stream = ctx.open_send_stream(json!({ "message": message })).await?;
    close_after_terminal(&ctx, &mut stream, Vec::new()).await
}

async fn final_state_matches(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let collected = stream_of(&ctx, "tck-stream-001").await?;
    let id = collected
        .events
        .iter()
        .find_map(|e| e.get("task").and_then(|t| a2a::text(t, "id")))
        .map(str::to_string)
        .ok_or_else(|| {
            HarnessError::Prerequisite(format!(
                "the stream carried no Task with an id: {}",
                collected.describe()
            ))
        })?;
    let Some(last_state) = collected.events.iter().filter_map(Event::state).next_back() else {
        return Err(HarnessError::Prerequisite(format!(
            "the stream reported no state: {}",
            collected.describe()
        )));
    };
    let streamed_artifacts: Vec<String> = collected
        .events
        .iter()
        .filter_map(|e| e.get("artifactUpdate"))
        .filter_map(|u| u.get("artifact").and_then(|a| a2a::text(a, "artifactId")))
        .map(str::to_string)
        .collect();
    let answer = ctx.get_task(&id, None).await?;
    let Some(task) = answer.result() else {
        return Ok(Verdict::fail(
            format!("GetTask of the streamed task {id:?}"),
            answer.describe(),
        ));
    };
    let mut problems = Vec::new();
    if a2a::state(task) != Some(last_state) {
        problems.push(format!(
            "GetTask says {} where the stream ended at {last_state}",
            a2a::shown(a2a::state(task))
        ));
    }
    let stored: Vec<&str> = a2a::items(task, "artifacts")
        .filter_map(|a| a2a::text(a, "artifactId"))
        .collect();
    for artifact in &streamed_artifacts {
        if !stored.contains(&artifact.as_str()) {
            problems.push(format!("artifact {artifact:?} of the stream is missing"));
        }
    }
    Ok(if problems.is_empty() {
        Verdict::pass_with(format!("{last_state}, artifacts {streamed_artifacts:?}"))
    } else {
        Verdict::fail(
            "GetTask to show the state and artifacts the stream reported",
            format!("{}; stream: {}", problems.join("; "), collected.describe()),
        )
    })
}

async fn failed_task_stream(ctx: Ctx) -> Result<Verdict, HarnessError> {
    const FAILED: &str = "TASK_STATE_FAILED";
    if let Some(why) = ctx.scenarios().refusal("tck-fail-task") {
        return Err(HarnessError::Prerequisite(why));
    }
    let collected = stream_of(&ctx, "tck-fail-task").await?;
    let expected = "a TASK_STATE_FAILED status as the stream's last event";
    if let Some(v) = malformed(&collected, expected) {
        return Ok(v);
    }
    let id = collected
        .events
        .iter()
        .find_map(|e| {
            e.get("task")
                .and_then(|t| a2a::text(t, "id"))
                .or_else(|| e.get("statusUpdate").and_then(|u| a2a::text(u, "taskId")))
        })
        .map(str::to_string)
        .ok_or_else(|| {
            HarnessError::Prerequisite(format!(
                "the stream of `tck-fail-task` named no task: {}",
                collected.describe()
            ))
        })?;
    let answer = ctx.get_task(&id, None).await?;
    let stored = answer.result().and_then(a2a::state);
    let last = collected.events.last().and_then(Event::state);
    let streamed_failed = collected.events.iter().any(|e| e.state() == Some(FAILED));
    if !streamed_failed && stored != Some(FAILED) {
        return Err(HarnessError::Prerequisite(format!(
            "the streamed `tck-fail-task` task {id:?} did not fail (GetTask: {}): {}",
            a2a::shown(stored),
            collected.describe()
        )));
    }
    if let Some(v) = ended_badly(&collected, expected) {
        return Ok(v);
    }
    let mut problems = Vec::new();
    if last != Some(FAILED) {
        problems.push(format!("the last event says {}", a2a::shown(last)));
    }
    if stored != Some(FAILED) {
        problems.push(format!(
            "GetTask of task {id:?} says {}",
            a2a::shown(stored)
        ));
    }
    Ok(if problems.is_empty() {
        Verdict::pass_with(format!("task {id:?}: {}", collected.describe()))
    } else {
        Verdict::fail(
            format!("{expected}, and GetTask showing {FAILED}"),
            format!("{}; stream: {}", problems.join("; "), collected.describe()),
        )
    })
}

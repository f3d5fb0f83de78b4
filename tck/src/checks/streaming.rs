//! Streams (spec 1.0 §3.1.2, §3.1.6, §3.5.2): the shape of a SendStreamingMessage stream,
//! its order and its end, and SubscribeToTask. These run when the card declares
//! `capabilities.streaming`. Every wait is bounded by the kit's stream wait (`--stream-wait`):
//! a stream that stays open is reported with the events it sent, never waited on for ever.

use serde_json::{json, Value};

use super::EVERY_BINDING_1_0;
use crate::a2a::{self, ErrorKind};
use crate::check::{Capability, Check, Gate, HarnessError, Level, SpecRef, Verdict};
use crate::checks::send_message::full_follow_up;
use crate::ctx::{task_id, Ctx};
use crate::transport::stream::{Collected, End, Event, EventStream, Next};

const STREAMING: &[Gate] = &[Gate::Declares(Capability::Streaming)];

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
            reading: None,
            run: |ctx| Box::pin(task_stream_shape(ctx)),
        },
        Check {
            id: "streaming.message-stream-is-one-message",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.2", statements: &["V10-3.1.2-04"] },
            requirement: "A message-only stream carries exactly one Message and then closes",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["CORE-STREAM-002"],
            reading: Some(
                "The Message scenario of the SUT contract (`tck-message-response`) is sent as a \
                 stream. An agent that answers it with a task stream instead has no \
                 message-only stream to judge, and the check is UNTESTABLE.",
            ),
            run: |ctx| Box::pin(message_stream(ctx)),
        },
        Check {
            id: "streaming.states-in-order",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.5.2", statements: &["V10-3.5.2-01", "V10-3.5.2-02"] },
            requirement: "Stream events arrive in the order they were produced: task states never go back, and nothing follows the terminal state",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-ORDER-001"],
            reading: Some(
                "Generation order is observed through the task state: SUBMITTED before WORKING \
                 before an interrupted or terminal state, and no event after a terminal one.",
            ),
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
            reading: None,
            run: |ctx| Box::pin(closes_after_terminal(ctx)),
        },
        Check {
            id: "streaming.artifact-chunks-append-in-order",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "proto TaskArtifactUpdateEvent", statements: &["V10-D-P-01"] },
            requirement: "Chunks of one artifact arrive in order: later chunks set append, and the last one sets lastChunk",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &[],
            reading: Some(
                "Uses `tck-stream-artifact-chunked` (two chunks of one artifact). The first \
                 chunk of an artifact starts it (append false or absent); each later chunk of \
                 the same artifactId appends; the final chunk carries lastChunk true.",
            ),
            run: |ctx| Box::pin(artifact_chunks(ctx)),
        },
        Check {
            id: "streaming.final-state-matches-get-task",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.3", statements: &["V10-D-3.1.3-02"] },
            requirement: "After a stream ends, GetTask returns the state and artifacts the stream reported",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &[],
            reading: None,
            run: |ctx| Box::pin(final_state_matches(ctx)),
        },
        Check {
            id: "subscribe.first-event-is-current-task",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.6", statements: &["V10-3.1.6-02"] },
            requirement: "The first event of SubscribeToTask is the Task as it stands",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-SUB-001"],
            reading: Some(
                "On HTTP+JSON the kit subscribes with POST /tasks/{id}:subscribe, the verb of \
                 §5.3 and §11.3.2; the proto's annotation says GET (spec notes §1.17 #1). An \
                 agent that answers only GET fails the subscription checks on HTTP+JSON.",
            ),
            run: |ctx| Box::pin(subscribe_first_event(ctx)),
        },
        Check {
            id: "subscribe.receives-later-updates",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.5.2", statements: &["V10-3.5.2-04"] },
            requirement: "A subscriber receives the task's later events (a follow-up that completes it)",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-ORDER-002"],
            reading: Some(
                "The task is kept open (`tck-long-running`, else `tck-input-required`), one \
                 subscriber attaches, then a follow-up message completes it: the subscriber must \
                 see at least the terminal status after its snapshot.",
            ),
            run: |ctx| Box::pin(subscribe_updates(ctx)),
        },
        Check {
            id: "subscribe.closes-at-terminal-state",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.6", statements: &["V10-3.1.6-01"] },
            requirement: "A SubscribeToTask stream closes when the task reaches a terminal state",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-SUB-002"],
            reading: None,
            run: |ctx| Box::pin(subscribe_closes(ctx)),
        },
        Check {
            id: "subscribe.terminal-task-unsupported",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.6", statements: &["V10-P-13"] },
            requirement: "Subscribing to a task in a terminal state gets UnsupportedOperationError",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-SUB-003"],
            reading: None,
            run: |ctx| Box::pin(subscribe_terminal(ctx)),
        },
        Check {
            id: "subscribe.unknown-task-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.6", statements: &["V10-D-3.1.6-01"] },
            requirement: "Subscribing to a task that does not exist gets TaskNotFoundError",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-SUB-004"],
            reading: None,
            run: |ctx| Box::pin(subscribe_unknown(ctx)),
        },
        Check {
            id: "subscribe.subscribers-see-same-events",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.5.2", statements: &["V10-3.5.2-05"] },
            requirement: "Two subscribers of one task receive the same events in the same order",
            scope: EVERY_BINDING_1_0,
            requires: STREAMING,
            maps_to: &["STREAM-ORDER-003"],
            reading: Some(
                "Events are compared by kind, state and artifact id after the subscription \
                 snapshot; timestamps may differ only between snapshots.",
            ),
            run: |ctx| Box::pin(subscribers_agree(ctx)),
        },
    ]
}

/// Sends a streaming message with `prefix` and reads the stream to its end.
async fn stream_of(ctx: &Ctx, prefix: &str) -> Result<Collected, HarnessError> {
    let message = ctx.user_message(prefix);
    let mut stream = ctx
        .open_stream("SendStreamingMessage", json!({ "message": message }))
        .await?;
    Ok(stream.collect(ctx.stream_wait()).await)
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

/// Where a state sits in a task's life: states never move to a lower rank.
fn rank(state: &str) -> u8 {
    match state {
        "TASK_STATE_SUBMITTED" => 0,
        "TASK_STATE_WORKING" => 1,
        s if a2a::INTERRUPTED_STATES.contains(&s) => 2,
        s if a2a::TERMINAL_STATES.contains(&s) => 3,
        _ => 0,
    }
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

/// Reads events after `seen` up to and including the first terminal state; a stream that ends
/// first gives back what it sent and how it ended.
async fn until_terminal(
    stream: &mut EventStream,
    wait: std::time::Duration,
    mut seen: Vec<Event>,
) -> Result<Vec<Event>, Collected> {
    loop {
        match stream.next(wait).await {
            Next::Event(event) => {
                let terminal = event
                    .state()
                    .is_some_and(|s| a2a::TERMINAL_STATES.contains(&s));
                seen.push(event);
                if terminal {
                    return Ok(seen);
                }
            }
            Next::End(end) => return Err(Collected { events: seen, end }),
        }
    }
}

/// Reads until a terminal state, then requires the stream to close.
async fn close_after_terminal(
    ctx: &Ctx,
    stream: &mut EventStream,
    seen: Vec<Event>,
) -> Result<Verdict, HarnessError> {
    let wait = ctx.stream_wait();
    let expected = "the stream closes right after the terminal state";
    let seen = match until_terminal(stream, wait, seen).await {
        Ok(seen) => seen,
        // A clean close before a terminal state: the agent did not play the scenario.
        Err(collected) if collected.end == End::Closed => {
            return Err(HarnessError::Prerequisite(format!(
                "the stream closed before any terminal state: {}",
                collected.describe()
            )));
        }
        Err(collected) => {
            return Ok(Verdict::fail(
                "the task's events up to its terminal state, then the stream closes",
                collected.describe(),
            ));
        }
    };
    // A final Task snapshot may follow the terminal status (§11.7); nothing else may.
    let rest = stream.collect(wait).await;
    let extra: Vec<&Event> = rest
        .events
        .iter()
        .filter(|e| e.kind() != Some("task"))
        .collect();
    let mut all = seen;
    all.extend(rest.events.iter().cloned());
    let collected = Collected {
        events: all,
        end: rest.end.clone(),
    };
    Ok(match (&rest.end, extra.is_empty()) {
        (End::Closed, true) => Verdict::pass_with(collected.describe()),
        _ => Verdict::fail(expected, collected.describe()),
    })
}

async fn closes_after_terminal(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let message = ctx.user_message("tck-stream-003");
    let mut stream = ctx
        .open_stream("SendStreamingMessage", json!({ "message": message }))
        .await?;
    close_after_terminal(&ctx, &mut stream, Vec::new()).await
}

async fn artifact_chunks(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let collected = stream_of(&ctx, "tck-stream-artifact-chunked").await?;
    let expected = "chunks of one artifact in order: append on every chunk after the first, lastChunk on the last";
    if let Some(v) = malformed(&collected, expected) {
        return Ok(v);
    }
    let updates: Vec<&Value> = collected
        .events
        .iter()
        .filter_map(|e| e.get("artifactUpdate"))
        .collect();
    let flag = |u: &Value, f: &str| u.get(f).and_then(Value::as_bool).unwrap_or(false);
    let id_of = |u: &Value| {
        u.get("artifact")
            .and_then(|a| a2a::text(a, "artifactId"))
            .map(str::to_string)
    };
    let Some(first_id) = updates.first().and_then(|u| id_of(u)) else {
        return Err(HarnessError::Prerequisite(format!(
            "`tck-stream-artifact-chunked` produced no artifact update: {}",
            collected.describe()
        )));
    };
    let chunks: Vec<&&Value> = updates
        .iter()
        .filter(|u| id_of(u).as_deref() == Some(first_id.as_str()))
        .collect();
    if chunks.len() < 2 {
        return Err(HarnessError::Prerequisite(format!(
            "`tck-stream-artifact-chunked` sent artifact {first_id:?} in one piece: {}",
            collected.describe()
        )));
    }
    let mut problems = Vec::new();
    for (i, chunk) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        if i == 0 && flag(chunk, "append") {
            problems.push("the first chunk has append: true (nothing to append to)".into());
        }
        if i > 0 && !flag(chunk, "append") {
            problems.push(format!("chunk {} has no append: true", i + 1));
        }
        if flag(chunk, "lastChunk") != last {
            problems.push(format!(
                "chunk {} of {} has lastChunk {}",
                i + 1,
                chunks.len(),
                flag(chunk, "lastChunk")
            ));
        }
    }
    Ok(if problems.is_empty() {
        Verdict::pass_with(format!("{} chunks of artifact {first_id:?}", chunks.len()))
    } else {
        Verdict::fail(
            expected,
            format!("{}: {}", problems.join("; "), collected.describe()),
        )
    })
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

/// Setup: a task that stays open until released: `tck-long-running` (WORKING until a
/// follow-up or a cancel), else an input-required task.
async fn open_task(ctx: &Ctx) -> Result<Value, HarnessError> {
    // Non-blocking: a blocking call would rightly wait for a state this task never reaches
    // until released (§3.2.2).
    let message = ctx.user_message("tck-long-running");
    let answer = ctx
        .send_message(message, Some(json!({ "returnImmediately": true })))
        .await?;
    let task = match answer.result().and_then(|r| r.get("task")) {
        Some(task) if a2a::text(task, "id").is_some() => task.clone(),
        _ => {
            return Err(HarnessError::Prerequisite(format!(
                "SendMessage (`tck-long-running`, returnImmediately) gave no task: {}",
                answer.describe()
            )))
        }
    };
    let state = a2a::state(&task).unwrap_or_default();
    if !a2a::TERMINAL_STATES.contains(&state) {
        return Ok(task);
    }
    ctx.create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await
}

/// Subscribes to `task`; the subscription must start.
async fn subscribe(ctx: &Ctx, task: &Value) -> Result<EventStream, HarnessError> {
    ctx.open_stream("SubscribeToTask", json!({ "id": task_id(task) }))
        .await
}

/// Completes an open task with a follow-up message; the follow-up must be accepted.
async fn release(ctx: &Ctx, task: &Value) -> Result<(), HarnessError> {
    let message = full_follow_up(ctx, task, "tck-complete-task");
    let answer = ctx.send_message(message, None).await?;
    match answer.result() {
        Some(_) => Ok(()),
        None => Err(HarnessError::Prerequisite(format!(
            "the follow-up that completes the task was refused: {}",
            answer.describe()
        ))),
    }
}

async fn subscribe_first_event(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = open_task(&ctx).await?;
    let id = task_id(&task);
    let mut stream = subscribe(&ctx, &task).await?;
    let first = stream.next(ctx.stream_wait()).await;
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
async fn subscribed_events(ctx: &Ctx) -> Result<(Collected, Collected), HarnessError> {
    let task = open_task(ctx).await?;
    let mut first = subscribe(ctx, &task).await?;
    let mut second = subscribe(ctx, &task).await?;
    let wait = ctx.stream_wait();
    let one = first.next(wait).await;
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
    Ok((first.collect(wait).await, second.collect(wait).await))
}

async fn subscribe_updates(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = open_task(&ctx).await?;
    let mut stream = subscribe(&ctx, &task).await?;
    let wait = ctx.stream_wait();
    let snapshot = stream.next(wait).await;
    if !matches!(&snapshot, Next::Event(e) if e.kind() == Some("task")) {
        return Err(HarnessError::Prerequisite(format!(
            "the subscription did not start with the task: {}",
            snapshot.brief()
        )));
    }
    release(&ctx, &task).await?;
    Ok(match until_terminal(&mut stream, wait, Vec::new()).await {
        Ok(later) => Verdict::pass_with(format!("{} event(s) after the snapshot", later.len())),
        // An interrupted task's subscription may close at once (§11.7): nothing to judge.
        Err(collected)
            if collected.end == End::Closed
                && collected.events.is_empty()
                && a2a::state(&task).is_some_and(|s| a2a::INTERRUPTED_STATES.contains(&s)) =>
        {
            return Err(HarnessError::Prerequisite(format!(
                "the subscription closed after its snapshot, before the follow-up: {}",
                collected.describe()
            )))
        }
        Err(collected) => Verdict::fail(
            "the follow-up's events, up to the terminal state, after the snapshot",
            collected.describe(),
        ),
    })
}

async fn subscribe_closes(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = open_task(&ctx).await?;
    let mut stream = subscribe(&ctx, &task).await?;
    let snapshot = match stream.next(ctx.stream_wait()).await {
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

/// SubscribeToTask must be refused with `kind`, before or as the stream's only event.
async fn refused_with(ctx: &Ctx, params: Value, kind: ErrorKind) -> Result<Verdict, HarnessError> {
    let expected = ctx.error_form(kind);
    Ok(match ctx.stream("SubscribeToTask", params).await? {
        crate::transport::stream::Start::Refused(reply) => reply.expect_error(kind),
        crate::transport::stream::Start::Stream(mut stream) => {
            let collected = stream.collect(ctx.stream_wait()).await;
            match (&collected.end, collected.events.is_empty()) {
                (End::Error(e), true) => match e.check(kind) {
                    Ok(()) => Verdict::pass_with("the error came as the stream's only event"),
                    Err(differs) => Verdict::fail(expected, format!("{differs}: {e}")),
                },
                _ => Verdict::fail(expected, collected.describe()),
            }
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
    let (one, two) = subscribed_events(&ctx).await?;
    let a: Vec<String> = one.events.iter().map(essence).collect();
    let b: Vec<String> = two.events.iter().map(essence).collect();
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

//! Resubscribing to a finished task on 0.3 (`v03.stream.resubscribe-finished-task`; 0.3 proto
//! comment on `TaskSubscription`): tasks/resubscribe (JSON-RPC), `POST /v1/tasks/{id}:subscribe`
//! (REST) or `TaskSubscription` (gRPC) of a completed task gives that task and closes the
//! stream. 1.0 answers the same call with UnsupportedOperationError
//! (`subscribe.terminal-task-unsupported`).

use crate::suite::check::Needs;
use serde_json::json;

use crate::exchange::transport::stream::{End, Event, Start};
use crate::facts::a2a;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::checks::setup::{task_id, Setup};
use crate::suite::checks::{EVERY_BINDING_0_3, STREAMING};
use crate::suite::ctx::{Answer, Ctx};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "v03";

/// This module's checks.
pub fn checks() -> Vec<Check> {
    vec![Check {
        id: "v03.stream.resubscribe-finished-task",
        level: Level::Should,
        spec: SpecRef {
            version: "0.3",
            section: "proto rpc TaskSubscription",
            statements: &["V03-T-13"],
        },
        requirement: "Resubscribing to a completed task on 0.3 gives that task, in a terminal state, and the stream closes",
        scope: EVERY_BINDING_0_3,
        requires: STREAMING,
        maps_to: &[],
        acts: &[],
        reading: Some(
            "The 0.3 proto comment says the stream returns the completed task (like GetTask) \
             and closes; the 0.3 spec text (§7.9) defines resubscription only for an ongoing \
             task and leaves backfill to the implementation, and 1.0 refuses the call \
             (UnsupportedOperationError). So every one of these passes: the task then the \
             close; a stream that closes with no event; a refusal with any error. The \
             sentence has no keyword (level \"—\"), so what no reading allows is a WARN, not \
             a FAIL: a stream \
             still open after the kit's stream wait, a stream that breaks off (the response cut \
             before its end, so neither the task nor an error reaches the client), an event of \
             another task, or an event that reports a state other than a terminal one.",
        ),
        needs: Needs::NONE,
        run: |ctx| Box::pin(resubscribe_finished(ctx)),
    }]
}

/// Whether `state` is terminal, in either version's spelling.
fn terminal(state: &str) -> bool {
    a2a::TERMINAL_STATES.contains(&state)
        || matches!(state, "completed" | "failed" | "canceled" | "rejected")
}

/// What is wrong with one event of the finished task `task`'s stream, if anything.
fn event_problem(event: &Event, task: &str) -> Option<String> {
    if let Some(problem) = &event.problem {
        return Some(format!("a malformed event: {problem}"));
    }
    let (kind, id) = match event.kind() {
        Some("task") => ("task", event.get("task").and_then(|t| a2a::text(t, "id"))),
        Some(kind @ ("statusUpdate" | "artifactUpdate")) => {
            (kind, event.get(kind).and_then(|u| a2a::text(u, "taskId")))
        }
        Some("message") => return None,
        _ => return Some(format!("not a stream event: {}", event.brief())),
    };
    if let Some(id) = id.filter(|id| *id != task) {
        return Some(format!("a {kind} event of another task ({id})"));
    }
    match event.state() {
        Some(state) if !terminal(state) => {
            Some(format!("a {kind} event in the non-terminal state {state}"))
        }
        _ => None,
    }
}

async fn resubscribe_finished(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-complete-task", "TASK_STATE_COMPLETED")
        .await?;
    let id = task_id(&task);
    let expected = format!("the task {id} in a terminal state and the stream closed, or an error");
    let mut stream = match ctx.subscribe(json!({ "id": id })).await? {
        Start::Refused(reply) => {
            return Ok(match &reply.read {
                Ok(Answer::Error(error)) => Verdict::pass_with(format!(
                    "refused: {error} (§7.9 defines resubscription for ongoing tasks only)"
                )),
                Ok(other) => Verdict::fail(expected, other.describe()),
                Err(unreadable) => Verdict::fail(expected, unreadable.clone()),
            });
        }
        Start::Stream(stream) => stream,
    };
    let collected = stream.collect(ctx.stream_wait()).await;
    let mut problems: Vec<String> = (collected.events.iter())
        .filter_map(|event| event_problem(event, &id))
        .collect();
    match &collected.end {
        End::Closed | End::Error(_) => {}
        End::Silent(_) | End::Broken(_) => problems.push(collected.end.describe()),
    }
    if !problems.is_empty() {
        return Ok(Verdict::fail(
            expected,
            format!("{}: {}", problems.join("; "), collected.describe()),
        ));
    }
    let gave_task = (collected.events.iter()).any(|e| e.kind() == Some("task"));
    Ok(if gave_task {
        Verdict::pass()
    } else {
        Verdict::pass_with(format!(
            "no Task event (the proto comment's reading), accepted under §7.9: {}",
            collected.describe()
        ))
    })
}

//! GetTask and CancelTask (spec 1.0 §3.1.3, §3.1.5, §3.2.4).

use serde_json::{json, Value};

use super::EVERY_BINDING_1_0;
use crate::a2a::{self, ErrorKind};
use crate::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::ctx::{task_id, terminal_tasks, Answer, Ctx};

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "tasks.get.returns-current-task",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.3", statements: &["V10-D-3.1.3-01"] },
            requirement: "GetTask returns the task with the requested id, its contextId and its current state",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-GET-001"],
            reading: None,
            run: |ctx| Box::pin(get_returns_current(ctx)),
        },
        Check {
            id: "tasks.get.unknown-id-returns-task-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.3", statements: &["V10-3.3.2-11", "V10-5.4-01"] },
            requirement: "GetTask for an id that names no task gets TaskNotFoundError",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-GET-002"],
            reading: Some(
                "Both versions: -32001 on JSON-RPC. On 1.0 REST and gRPC, HTTP 404 / NOT_FOUND with ErrorInfo TASK_NOT_FOUND; 0.3 specifies neither REST error bodies nor gRPC statuses, so there only the class is asked (an HTTP 4xx; a gRPC status other than OK and INTERNAL).",
            ),
            run: |ctx| Box::pin(get_unknown(ctx)),
        },
        Check {
            id: "tasks.get.history-length-zero-omits-history",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.2.4", statements: &["V10-3.2.4-01"] },
            requirement: "GetTask with historyLength 0 omits the history field",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-HIST-001"],
            reading: Some(
                "Judged only when the task has history to omit. Returning any message for \
                 historyLength 0 also breaks the MUST NOT of tasks.get.history-length-caps-messages.",
            ),
            run: |ctx| Box::pin(history_zero(ctx)),
        },
        Check {
            id: "tasks.get.history-length-caps-messages",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.2.4", statements: &["V10-P-05"] },
            requirement: "GetTask returns no more history messages than historyLength",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-HIST-002"],
            reading: Some(
                "Keeping history is optional (§3.7); when the task's full history has fewer than \
                 two messages the limit cannot be observed and the check is N/A. With a limit of 1 \
                 the message returned must be the most recent one; with 0, none.",
            ),
            run: |ctx| Box::pin(history_cap(ctx)),
        },
        Check {
            id: "tasks.cancel.open-task-becomes-canceled",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.5", statements: &["V10-D-3.1.5-01"] },
            requirement: "CancelTask on an open task returns the task, same id, in TASK_STATE_CANCELED",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-CANCEL-001"],
            reading: Some(
                "§3.1.5 says cancellation is not guaranteed: an agent may answer \
                 TaskNotCancelableError for a task it cannot cancel now, which makes this check \
                 UNTESTABLE rather than FAIL. A cancel it accepts must return the task canceled.",
            ),
            run: |ctx| Box::pin(cancel_open(ctx)),
        },
        Check {
            id: "tasks.cancel.canceled-task-stays-canceled",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.5", statements: &["V10-D-3.1.3-01", "V10-D-3.1.5-01"] },
            requirement: "A canceled task stays in TASK_STATE_CANCELED: GetTask afterwards shows it canceled",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            reading: None,
            run: |ctx| Box::pin(cancel_persists(ctx)),
        },
        Check {
            id: "tasks.cancel.terminal-task-not-cancelable",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.5", statements: &["V10-5.4-01", "V10-D-3.1.5-02"] },
            requirement: "CancelTask on a task in a terminal state (completed, rejected, failed, canceled) gets TaskNotCancelableError",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-CANCEL-002"],
            reading: Some(concat!(
                "Tried on every terminal state the agent can be driven into (COMPLETED is \
                 required). For an already canceled task TaskNotFoundError is accepted too, since a \
                 duplicate cancel may find the task purged (§3.3.1).",
                " In 0.3 (-32002 on JSON-RPC) REST and gRPC error forms are unspecified: only the class is asked there.",
            )),
            run: |ctx| Box::pin(cancel_terminal(ctx)),
        },
        Check {
            id: "tasks.cancel.unknown-id-returns-task-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.5", statements: &["V10-3.3.2-11", "V10-5.4-01"] },
            requirement: "CancelTask for an id that names no task gets TaskNotFoundError",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-CANCEL-003"],
            reading: Some(
                "Both versions: -32001 on JSON-RPC. On 1.0 REST and gRPC, HTTP 404 / NOT_FOUND with ErrorInfo TASK_NOT_FOUND; 0.3 specifies neither REST error bodies nor gRPC statuses, so there only the class is asked (an HTTP 4xx; a gRPC status other than OK and INTERNAL).",
            ),
            run: |ctx| Box::pin(cancel_unknown(ctx)),
        },
    ]
}

/// The Task a GetTask/CancelTask result must be, or a violation.
fn result_task<'a>(answer: &'a Answer, expected: &str) -> Result<&'a Value, Verdict> {
    match answer {
        Answer::Result(task) if task.is_object() => Ok(task),
        other => Err(Verdict::fail(expected, other.describe())),
    }
}

async fn get_returns_current(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-complete-task", "TASK_STATE_COMPLETED")
        .await?;
    let id = task_id(&task);
    let answer = ctx.get_task(&id, None).await?;
    let expected = format!(
        "task {id:?} in TASK_STATE_COMPLETED with contextId {}",
        a2a::shown(a2a::text(&task, "contextId"))
    );
    let got = match result_task(&answer, &expected) {
        Ok(t) => t,
        Err(v) => return Ok(v),
    };
    let same = a2a::text(got, "id") == Some(id.as_str())
        && got.get("contextId") == task.get("contextId")
        && a2a::state(got) == Some("TASK_STATE_COMPLETED");
    if same {
        Ok(Verdict::pass())
    } else {
        Ok(Verdict::fail(expected, answer.describe()))
    }
}

async fn get_unknown(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let id = ctx.id("tck-no-such-task");
    ctx.call_expecting("GetTask", json!({ "id": id }), ErrorKind::TaskNotFound)
        .await
}

/// A task whose history holds two user turns (input-required, then input-required again),
/// and its full history as GetTask shows it.
async fn task_with_history(ctx: &Ctx) -> Result<(String, Vec<Value>), HarnessError> {
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let id = task_id(&task);
    let mut again = ctx.user_message("tck-input-required");
    again["taskId"] = json!(id);
    let answer = ctx.send_message(again, None).await?;
    if answer.result().is_none() {
        return Err(HarnessError::Prerequisite(format!(
            "a second message on the input-required task was not accepted: {}",
            answer.describe()
        )));
    }
    let history = full_history(ctx, &id).await?;
    Ok((id, history))
}

/// Setup: a task's whole history, as GetTask without a limit shows it.
pub(crate) async fn full_history(ctx: &Ctx, id: &str) -> Result<Vec<Value>, HarnessError> {
    let full = ctx.get_task(id, None).await?;
    Ok(full
        .result()
        .ok_or_else(|| HarnessError::Prerequisite(format!("GetTask failed: {}", full.describe())))?
        .get("history")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default())
}

async fn history_zero(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (id, history) = task_with_history(&ctx).await?;
    if history.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: "the task has no history to omit (keeping history is optional)".into(),
        });
    }
    let answer = ctx.get_task(&id, Some(0)).await?;
    let expected = "the task without a history field";
    let got = match result_task(&answer, expected) {
        Ok(t) => t,
        Err(v) => return Ok(v),
    };
    match got.get("history") {
        None => Ok(Verdict::pass()),
        Some(h) => Ok(Verdict::fail(
            expected,
            format!("history: {}", a2a::brief(h, 200)),
        )),
    }
}

fn history_ids(task: &Value) -> Vec<Option<&str>> {
    task.get("history")
        .and_then(Value::as_array)
        .map(|h| h.iter().map(|m| a2a::text(m, "messageId")).collect())
        .unwrap_or_default()
}

/// N/A when a task's full history is too short for a limit of 1 to show.
pub(crate) fn limit_unobservable(history: &[Value]) -> Option<Verdict> {
    (history.len() < 2).then(|| Verdict::NotApplicable {
        reason: format!(
            "the task's full history has {} message(s), so a limit of 1 is not observable",
            history.len()
        ),
    })
}

/// For historyLength 1: `got` keeps at most one message, the most recent of `history`.
pub(crate) fn judge_limit_of_one(history: &[Value], got: &Value) -> Verdict {
    let newest = history.last().and_then(|m| a2a::text(m, "messageId"));
    let kept = history_ids(got);
    if kept.len() > 1 || (kept.len() == 1 && kept[0] != newest) {
        Verdict::fail(
            format!(
                "for historyLength 1, only the most recent message ({})",
                a2a::shown(newest)
            ),
            format!("history messageIds {kept:?}"),
        )
    } else {
        Verdict::pass_with(format!(
            "{} of {} messages returned",
            kept.len(),
            history.len()
        ))
    }
}

async fn history_cap(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (id, history) = task_with_history(&ctx).await?;
    if let Some(na) = limit_unobservable(&history) {
        return Ok(na);
    }
    let capped = ctx.get_task(&id, Some(1)).await?;
    let got = match result_task(&capped, "the task for historyLength 1") {
        Ok(t) => t,
        Err(v) => return Ok(v),
    };
    let verdict = judge_limit_of_one(&history, got);
    if !matches!(verdict, Verdict::Satisfied { .. }) {
        return Ok(verdict);
    }
    let ids = history_ids(got);
    let none = ctx.get_task(&id, Some(0)).await?;
    let expected = "no history message for historyLength 0";
    let got = match result_task(&none, expected) {
        Ok(t) => t,
        Err(v) => return Ok(v),
    };
    match history_ids(got).len() {
        0 => Ok(Verdict::pass_with(format!(
            "{} of {} messages for historyLength 1, none for 0",
            ids.len(),
            history.len()
        ))),
        n => Ok(Verdict::fail(expected, format!("{n} messages"))),
    }
}

async fn cancel_open(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let id = task_id(&task);
    let answer = ctx.cancel_task(&id).await?;
    if let Answer::Error(e) = &answer {
        if e.is(ErrorKind::TaskNotCancelable) {
            return Err(HarnessError::Prerequisite(
                "the agent declined to cancel the open task (TaskNotCancelableError), which \
                 §3.1.5 allows"
                    .into(),
            ));
        }
    }
    let expected = format!("task {id:?} in TASK_STATE_CANCELED");
    let got = match result_task(&answer, &expected) {
        Ok(t) => t,
        Err(v) => return Ok(v),
    };
    if a2a::text(got, "id") == Some(id.as_str()) && a2a::state(got) == Some("TASK_STATE_CANCELED") {
        Ok(Verdict::pass())
    } else {
        Ok(Verdict::fail(expected, answer.describe()))
    }
}

async fn cancel_persists(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let id = task_id(&task);
    let canceled = ctx.cancel_task(&id).await?;
    if canceled.result().and_then(a2a::state) != Some("TASK_STATE_CANCELED") {
        return Err(HarnessError::Prerequisite(format!(
            "CancelTask did not return a canceled task: {}",
            canceled.describe()
        )));
    }
    let answer = ctx.get_task(&id, None).await?;
    match answer.result().and_then(a2a::state) {
        Some("TASK_STATE_CANCELED") => Ok(Verdict::pass()),
        other => Ok(Verdict::fail(
            "GetTask after CancelTask to show TASK_STATE_CANCELED",
            format!("state {}", a2a::shown(other)),
        )),
    }
}

async fn cancel_terminal(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (tasks, skipped) = terminal_tasks(&ctx).await?;
    let mut problems = Vec::new();
    for (state, task) in &tasks {
        let reply = ctx
            .request("CancelTask", json!({ "id": task_id(task) }))
            .await?;
        let verdict = reply.expect_error(ErrorKind::TaskNotCancelable);
        let purged = *state == "TASK_STATE_CANCELED" && reply.is_error(ErrorKind::TaskNotFound);
        if let (Verdict::Violated { actual, .. }, false) = (verdict, purged) {
            problems.push(format!("{state}: {actual}"));
        }
    }
    let tried: Vec<&str> = tasks.iter().map(|(s, _)| *s).collect();
    if problems.is_empty() {
        Ok(Verdict::pass_with(super::send_message::tried_and_skipped(
            &tried, &skipped,
        )))
    } else {
        Ok(Verdict::fail(
            format!(
                "{} for CancelTask of each terminal task",
                ctx.error_form(ErrorKind::TaskNotCancelable)
            ),
            problems.join("; "),
        ))
    }
}

async fn cancel_unknown(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let id = ctx.id("tck-no-such-task");
    ctx.call_expecting("CancelTask", json!({ "id": id }), ErrorKind::TaskNotFound)
        .await
}

//! GetTask checks (`tasks.get.*`): the current task, unknown ids, and historyLength
//! (spec 1.0 §3.1.3, §3.2.4).

use crate::suite::check::Needs;
use serde_json::{json, Value};

use super::setup::{
    follow_up, full_history, history_ids, judge_limit_of_one, limit_unobservable, result_task,
    task_id, Setup,
};
use super::EVERY_BINDING_1_0;
use crate::exchange::judge;
use crate::facts::a2a::{self, ErrorKind};
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "tasks.get";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "tasks.get.returns-current-task",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.3", statements: &["V10-D-3.1.3-01", "V03-3.2.2-05", "V03-3.2.3-03", "V03-3.2.3-04", "V03-3.5.1-01", "V03-3.5.2-01", "V03-3.5.3-01", "V03-11.1.2-01"] },
            requirement: "GetTask returns the task with the requested id, its contextId and its current state",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-GET-001"],
            acts: &["CORE-GET-001"],
            reading: None,
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(get_returns_current(ctx)),
        },
        Check {
            id: "tasks.get.unknown-id-returns-task-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.3", statements: &["V10-3.3.2-11", "V10-5.4-01", "V03-8.2-01", "V03-11.1.5-03"] },
            requirement: "GetTask for an id that names no task gets TaskNotFoundError",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-GET-002"],
            acts: &["CORE-ERR-001", "CORE-ERR-005", "GRPC-STATUS-001"],
            reading: Some(
                "Both versions: -32001 on JSON-RPC. On 1.0 REST and gRPC, HTTP 404 / NOT_FOUND with ErrorInfo TASK_NOT_FOUND; 0.3 specifies neither REST error bodies nor gRPC statuses, so there only the class is asked (an HTTP 4xx; a gRPC status other than OK and INTERNAL).",
            ),
            needs: Needs::NONE,
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
            acts: &["CORE-GET-002", "CORE-HIST-001"],
            reading: Some(
                "Judged only when the task has history to omit. Returning any message for \
                 historyLength 0 also breaks the MUST NOT of tasks.get.history-length-caps-messages.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(4),
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
            acts: &["CORE-GET-002", "CORE-HIST-001", "CORE-HIST-002"],
            reading: Some(
                "Keeping history is optional (§3.7); when the task's full history has fewer than \
                 two messages the limit cannot be observed and the check is N/A. With a limit of 1 \
                 the message returned must be the most recent one; with 0, none.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(5),
            run: |ctx| Box::pin(history_cap(ctx)),
        },
    ]
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
    let reply = ctx.get(json!({ "id": id })).await?;
    Ok(judge::expect_error(&reply, ErrorKind::TaskNotFound))
}

/// A task whose history holds two user turns (input-required, then input-required again),
/// and its full history as GetTask shows it.
async fn task_with_history(ctx: &Ctx) -> Result<(String, Vec<Value>), HarnessError> {
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let id = task_id(&task);
    let again = follow_up(ctx, &task, "tck-input-required", None);
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

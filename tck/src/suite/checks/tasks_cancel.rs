//! CancelTask checks (`tasks.cancel.*`): open tasks become canceled and stay so; terminal
//! and unknown tasks are refused (spec 1.0 §3.1.5).

use crate::suite::check::Needs;
use serde_json::json;

use super::setup::{
    cancelable_task, result_task, task_id, terminal_tasks, tried_and_skipped, Findings,
};
use crate::exchange::judge;
use crate::facts::a2a::{self, ErrorKind};
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::{Answer, Ctx};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "tasks.cancel";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "tasks.cancel.open-task-becomes-canceled",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.5", statements: &["V10-D-3.1.5-01", "V03-3.2.2-05", "V03-3.2.3-03", "V03-3.2.3-04", "V03-3.5.1-01", "V03-3.5.2-01", "V03-3.5.3-01", "V03-11.1.2-01"] },
            requirement: "CancelTask on an open task returns the task, same id, in TASK_STATE_CANCELED",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-CANCEL-001"],
            acts: &["CORE-CANCEL-001", "GRPC-STREAM-002"],
            reading: Some(
                "§3.1.5 says cancellation is not guaranteed: an agent may answer \
                 TaskNotCancelableError for a task it cannot cancel now, which makes this check \
                 UNTESTABLE rather than FAIL. A cancel it accepts must return the task canceled.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).may_send(&["tck-long-running"]).weighs(2),
            run: |ctx| Box::pin(cancel_open(ctx)),
        },
        Check {
            id: "tasks.cancel.canceled-task-stays-canceled",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.1.5", statements: &["V10-D-3.1.3-01", "V10-D-3.1.5-01", "V03-7.3-01", "V03-T-17"] },
            requirement: "A canceled task stays in TASK_STATE_CANCELED: GetTask afterwards shows it canceled",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &["CORE-CANCEL-001"],
            reading: Some(
                "GetTask returns the task as it stands (§3.1.3) and a canceled task is in a \
                 terminal state, but neither version says so with an RFC 2119 keyword: a \
                 GetTask that no longer shows the canceled state is a WARN, not a FAIL.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).may_send(&["tck-long-running"]).weighs(3),
            run: |ctx| Box::pin(cancel_persists(ctx)),
        },
        Check {
            id: "tasks.cancel.terminal-task-not-cancelable",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.5", statements: &["V10-5.4-01", "V10-D-3.1.5-02", "V03-8.2-01", "V03-11.1.5-03"] },
            requirement: "CancelTask on a task in a terminal state (completed, rejected, failed, canceled) gets TaskNotCancelableError",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-CANCEL-002"],
            acts: &["CORE-CANCEL-002", "CORE-ERR-003"],
            reading: Some(concat!(
                "Tried on every terminal state the agent can be driven into (COMPLETED is \
                 required). Completed, rejected and failed tasks must get TaskNotCancelableError \
                 (§3.1.5, the §3.3.2 table). For an already canceled task the spec speaks twice: \
                 §3.1.5 names TaskNotCancelableError, and §3.3.1 says cancel is idempotent and a \
                 duplicate cancel MAY get TaskNotFoundError once the task is purged; so \
                 TaskNotCancelableError, TaskNotFoundError and the task still canceled all pass, \
                 and the result says which came.",
                " In 0.3 (-32002 on JSON-RPC) REST and gRPC error forms are unspecified: only the class is asked there.",
            )),
            needs: Needs::NONE.sends(&["tck-input-required", "tck-reject-task", "tck-fail-task"]).may_send(&["tck-long-running"]).weighs(9),
            run: |ctx| Box::pin(cancel_terminal(ctx)),
        },
        Check {
            id: "tasks.cancel.unknown-id-returns-task-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.5", statements: &["V10-3.3.2-11", "V10-5.4-01", "V03-8.2-01", "V03-11.1.5-03"] },
            requirement: "CancelTask for an id that names no task gets TaskNotFoundError",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-CANCEL-003"],
            acts: &["CORE-ERR-002"],
            reading: Some(
                "Both versions: -32001 on JSON-RPC. On 1.0 REST and gRPC, HTTP 404 / NOT_FOUND with ErrorInfo TASK_NOT_FOUND; 0.3 specifies neither REST error bodies nor gRPC statuses, so there only the class is asked (an HTTP 4xx; a gRPC status other than OK and INTERNAL).",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(cancel_unknown(ctx)),
        },
    ]
}

async fn cancel_open(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = cancelable_task(&ctx).await?;
    let id = task_id(&task);
    let answer = ctx.cancel_task(&id).await?;
    if let Answer::Error(e) = &answer {
        if judge::is(e, ErrorKind::TaskNotCancelable) {
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
    let task = cancelable_task(&ctx).await?;
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
    let mut findings = Findings::default();
    let mut answers = Vec::new();
    for (state, task) in &tasks {
        let id = task_id(task);
        let reply = ctx.cancel(json!({ "id": id })).await?;
        let verdict = judge::expect_error(&reply, ErrorKind::TaskNotCancelable);
        if *state != "TASK_STATE_CANCELED" {
            findings.add(state, verdict);
            continue;
        }
        // A second cancel of a canceled task: §3.3.1 makes cancel idempotent and lets the
        // task be purged, so the canceled task itself and TaskNotFoundError are answers too.
        let idempotent = matches!(
            reply.answer(),
            Ok(Answer::Result(t)) if a2a::text(&t, "id") == Some(id.as_str())
                && a2a::state(&t) == Some("TASK_STATE_CANCELED")
        );
        let how = match verdict {
            _ if idempotent => "the canceled task again (idempotent, §3.3.1)",
            Verdict::Violated { .. } if judge::is_error(&reply, ErrorKind::TaskNotFound) => {
                "TaskNotFoundError (purged, §3.3.1)"
            }
            Verdict::Violated { actual, .. } => {
                findings.problem(format!(
                    "{state}: {actual} (TaskNotFoundError or the task still canceled are accepted too)"
                ));
                continue;
            }
            tolerated @ Verdict::Tolerated { .. } => {
                findings.add(state, tolerated);
                continue;
            }
            _ => "TaskNotCancelableError",
        };
        answers.push(format!("a second cancel of the canceled task gave {how}"));
    }
    let tried: Vec<&str> = tasks.iter().map(|(s, _)| *s).collect();
    let mut detail = tried_and_skipped(&tried, &skipped);
    for answer in answers {
        detail.push_str("; ");
        detail.push_str(&answer);
    }
    Ok(findings.verdict(
        format!(
            "{} for CancelTask of each terminal task",
            judge::expected(ErrorKind::TaskNotCancelable, ctx.binding(), ctx.version())
        ),
        Verdict::pass_with(detail),
    ))
}

async fn cancel_unknown(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let id = ctx.id("tck-no-such-task");
    let reply = ctx.cancel(json!({ "id": id })).await?;
    Ok(judge::expect_error(&reply, ErrorKind::TaskNotFound))
}

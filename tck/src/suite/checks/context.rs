//! contextId checks (`context.*`): a follow-up naming only the taskId gets the task's
//! context, and a contextId that is not the task's is rejected (spec 1.0 §3.4;
//! both 1.0 only: 0.3 states neither rule).

use crate::suite::check::Needs;
use serde_json::Value;

use super::setup::{broken_rejection, follow_up, full_follow_up, task_id, Setup};
use crate::facts::a2a;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::{Answer, Ctx};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "context";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "context.task-id-only-infers-context-id",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "3.4.3",
                statements: &["V10-3.4.3-04"],
            },
            requirement:
                "A follow-up that gives only the taskId gets the task's contextId inferred",
            scope: super::EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-MULTI-005"],
            acts: &["CORE-MULTI-005"],
            reading: Some(
                "The contextId is read from the Task or the Message the follow-up gets, and then \
                 from the task and its history as GetTask (historyLength 100) shows them: the \
                 follow-up, found by its messageId, must be stored in the task's context, since \
                 the agent takes the context from the task (§3.4.3); a stored copy under another \
                 contextId fails (the agent processed it in a context of its own, and the next \
                 message on the task may then be refused). A stored copy without contextId \
                 passes: Message.contextId is optional and the task it belongs to places it in \
                 the task's context, so it names no other. A history that does not show the \
                 follow-up (history is optional) leaves only the answer to judge. A rejected \
                 follow-up fails only if the same follow-up with the contextId is accepted.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(3),
            run: |ctx| Box::pin(infers_context_id(ctx)),
        },
        Check {
            id: "context.mismatched-context-id-rejected",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "3.4.3",
                statements: &["V10-3.4.3-05"],
            },
            requirement:
                "A message whose contextId differs from that of the task it names is rejected",
            scope: super::EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-MULTI-006"],
            acts: &["CORE-MULTI-006", "CORE-MULTI-003"],
            reading: Some(
                "The spec names no error type for this rejection: an A2A error or -32602 is \
                 accepted, but not -32600/-32601/-32603/-32700, which say the request was not \
                 understood or the agent broke. The task must be left unchanged (still \
                 TASK_STATE_INPUT_REQUIRED), and the same follow-up with the right contextId must \
                 then be accepted, so an agent that rejects every follow-up does not pass. Unlike \
                 the official TCK, the task is an open one, so the rejection cannot come from the \
                 terminal-task rule. 1.0 only: 0.3 states no rule for a contextId that is not \
                 the task's (its input-validation sentence, §10.2, is about injection and \
                 malformed data, not a well-formed id of another context), so a 0.3 agent that \
                 accepts such a follow-up breaks no 0.3 sentence.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(4),
            run: |ctx| Box::pin(mismatched_context(ctx)),
        },
    ]
}

async fn infers_context_id(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let Some(context) = a2a::text(&task, "contextId").map(str::to_string) else {
        return Err(HarnessError::Prerequisite(
            "the input-required task has no contextId".into(),
        ));
    };
    let sent = follow_up(&ctx, &task, "tck-complete-task", None);
    let answer = ctx.send_message(sent.clone(), None).await?;
    let expected = format!("the follow-up answered in contextId {context:?}");
    if let Answer::Error(_) = &answer {
        let control = ctx
            .send_message(full_follow_up(&ctx, &task, "tck-complete-task"), None)
            .await?;
        return match control {
            Answer::Error(_) => Err(HarnessError::Prerequisite(format!(
                "the agent rejects follow-ups on the input-required task even with its contextId: {}",
                control.describe()
            ))),
            Answer::Result(_) => Ok(Verdict::fail(
                expected,
                format!(
                    "{} (the same follow-up with the contextId is accepted)",
                    answer.describe()
                ),
            )),
        };
    }
    let returned = answer
        .result()
        .and_then(|r| r.get("task").or_else(|| r.get("message")))
        .and_then(|o| o.get("contextId"))
        .and_then(Value::as_str);
    match returned {
        Some(c) if c == context => {}
        Some(c) => return Ok(Verdict::fail(expected, format!("contextId {c:?}"))),
        None => return Ok(Verdict::fail(expected, answer.describe())),
    }
    // The answer can name the right context while the agent processed and stored the
    // follow-up under another one (a2a-sdk 1.3.0 does): read the stored message back.
    let Some(sent_id) = sent.get("messageId").and_then(Value::as_str) else {
        return Ok(Verdict::pass());
    };
    stored_follow_up(&ctx, &task, &context, sent_id).await
}

/// The history GetTask is asked for: enough for the follow-up to be in it.
const HISTORY_READ: i64 = 100;

/// The follow-up `sent_id` as the task's history keeps it must carry the task's contextId
/// `context` (or none); the task read back must still be in `context`.
async fn stored_follow_up(
    ctx: &Ctx,
    task: &Value,
    context: &str,
    sent_id: &str,
) -> Result<Verdict, HarnessError> {
    let id = task_id(task);
    let read = ctx.get_task(&id, Some(HISTORY_READ)).await?;
    let Some(got) = read.result() else {
        return Err(HarnessError::Prerequisite(format!(
            "GetTask failed after the follow-up: {}",
            read.describe()
        )));
    };
    let expected = format!(
        "the follow-up {sent_id:?} stored in the task's context {context:?}, as GetTask \
         shows the task and its history"
    );
    if let Some(c) = a2a::text(got, "contextId").filter(|c| *c != context) {
        return Ok(Verdict::fail(
            expected,
            format!("GetTask shows the task in contextId {c:?}"),
        ));
    }
    let stored = a2a::items(got, "history").find(|m| a2a::text(m, "messageId") == Some(sent_id));
    let Some(stored) = stored else {
        return Ok(Verdict::pass_with(format!(
            "the answer is in the task's context; the follow-up {sent_id:?} is not in the \
             history GetTask (historyLength {HISTORY_READ}) shows, so how it was stored is not \
             seen"
        )));
    };
    Ok(match stored.get("contextId") {
        None | Some(Value::Null) => Verdict::pass_with(
            "the follow-up is stored without a contextId: its task places it in the task's context",
        ),
        Some(Value::String(c)) if c == context => Verdict::pass(),
        Some(other) => Verdict::fail(
            expected,
            format!("the stored follow-up (history, GetTask) has contextId {other}"),
        ),
    })
}

async fn mismatched_context(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let other = ctx.id("tck-other-context");
    let answer = ctx
        .send_message(
            follow_up(&ctx, &task, "tck-complete-task", Some(&other)),
            None,
        )
        .await?;
    let expected = format!("a rejection of contextId {other:?}, which is not the task's");
    if let Answer::Result(_) = answer {
        return Ok(Verdict::fail(expected, answer.describe()));
    }
    let id = task_id(&task);
    let after = ctx.get_task(&id, None).await?;
    match after.result().and_then(a2a::state) {
        Some("TASK_STATE_INPUT_REQUIRED") => {}
        Some(other) => {
            return Ok(Verdict::fail(
                "the rejected message to leave the task in TASK_STATE_INPUT_REQUIRED",
                format!("GetTask shows state {other:?}"),
            ))
        }
        None => {
            return Err(HarnessError::Prerequisite(format!(
                "GetTask failed after the rejection: {}",
                after.describe()
            )))
        }
    }
    let control = ctx
        .send_message(full_follow_up(&ctx, &task, "tck-complete-task"), None)
        .await?;
    if let Answer::Error(_) = control {
        return Err(HarnessError::Prerequisite(format!(
            "the agent also rejects the follow-up with the task's own contextId, so the rejection \
             says nothing about the mismatch: {}",
            control.describe()
        )));
    }
    Ok(broken_rejection(&answer, &expected).unwrap_or_else(Verdict::pass))
}

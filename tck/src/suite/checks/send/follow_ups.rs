//! SendMessage follow-ups (`send.*`): a follow-up continues its task (input-required, with a
//! text or a data part; auth-required); historyLength caps the returned history; the client's
//! messageId is kept in history.

use serde_json::json;

use crate::facts::a2a::{self, ErrorKind};
use crate::suite::check::{HarnessError, Verdict};
use crate::suite::checks::setup::{
    full_follow_up, full_history, input_mode_not_declared, judge_limit_of_one, limit_unobservable,
    names_error, sent_task, task_id, Setup,
};
use crate::suite::ctx::{Answer, Ctx};

/// The task id an answer speaks for: a Task's id, or a Message's taskId.
fn answered_task_id(answer: &Answer) -> Option<&str> {
    let result = answer.result()?;
    match result.get("task") {
        Some(task) => a2a::text(task, "id"),
        None => result.get("message").and_then(|m| a2a::text(m, "taskId")),
    }
}

pub(super) async fn follow_up_continues(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let message = full_follow_up(&ctx, &task, "tck-complete-task");
    let answer = ctx.send_message(message, None).await?;
    let id = task_id(&task);
    if answered_task_id(&answer) == Some(id.as_str()) {
        Ok(Verdict::pass_with(format!("task {id:?} continued")))
    } else {
        Ok(Verdict::fail(
            format!("an answer for the same task {id:?}"),
            answer.describe(),
        ))
    }
}

pub(super) async fn auth_follow_up_continues(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-auth-required", "TASK_STATE_AUTH_REQUIRED")
        .await?;
    let message = full_follow_up(&ctx, &task, "tck-complete-task");
    let answer = ctx.send_message(message, None).await?;
    let id = task_id(&task);
    if answered_task_id(&answer) == Some(id.as_str()) {
        let state = sent_task(&answer).and_then(a2a::state);
        Ok(Verdict::pass_with(format!(
            "auth-required task {id:?} resumed (now {})",
            a2a::shown(state)
        )))
    } else {
        Ok(Verdict::fail(
            format!("an answer for the same auth-required task {id:?}"),
            answer.describe(),
        ))
    }
}

pub(super) async fn send_history_cap(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let id = task_id(&task);
    let message = full_follow_up(&ctx, &task, "tck-input-required");
    let answer = ctx
        .send_message(message, Some(json!({ "historyLength": 1 })))
        .await?;
    let Some(returned) = sent_task(&answer).filter(|t| a2a::text(t, "id") == Some(id.as_str()))
    else {
        return Err(HarnessError::Prerequisite(format!(
            "a follow-up on the input-required task did not return that task: {}",
            answer.describe()
        )));
    };
    let history = full_history(&ctx, &id).await?;
    if let Some(na) = limit_unobservable(&history) {
        return Ok(na);
    }
    Ok(judge_limit_of_one(&history, returned))
}

pub(super) async fn data_part_follow_up(ctx: Ctx) -> Result<Verdict, HarnessError> {
    const JSON: &str = "application/json";
    if let Some(na) = input_mode_not_declared(&ctx.card.json, JSON) {
        return Ok(na);
    }
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let mut message = full_follow_up(&ctx, &task, "tck-complete-task");
    message["parts"] = json!([{ "data": { "approved": true }, "mediaType": JSON }]);
    let answer = ctx.send_message(message, None).await?;
    let id = task_id(&task);
    if let Answer::Error(e) = &answer {
        if names_error(e, ErrorKind::ContentTypeNotSupported) {
            return Ok(Verdict::NotApplicable {
                reason: format!(
                    "the agent refused the data part as a media type it does not take \
                     (ContentTypeNotSupportedError, which §13.4 asks for unexpected media \
                     types): {}",
                    answer.describe()
                ),
            });
        }
    }
    let answered = answer
        .result()
        .and_then(|r| r.get("task"))
        .and_then(|t| a2a::text(t, "id"));
    Ok(if answered == Some(id.as_str()) {
        Verdict::pass_with(format!("task {id:?} continued"))
    } else {
        Verdict::fail(
            format!("the follow-up with a data part continues task {id:?}"),
            answer.describe(),
        )
    })
}

/// The history asked of GetTask: more messages than the scenario makes.
const HISTORY: i64 = 10;

pub(super) async fn message_id_kept(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let message = ctx.user_message("tck-complete-task");
    let sent = a2a::text(&message, "messageId")
        .unwrap_or_default()
        .to_string();
    let made = ctx.create_task_with("tck-complete-task", message).await?;
    // An explicit historyLength: on 0.3 gRPC an unset one reads as 0, which one reading takes
    // for "unlimited" (the 0.3 proto) and another for "none".
    let answer = ctx.get_task(&task_id(&made), Some(HISTORY)).await?;
    let Some(task) = answer.result() else {
        return Ok(Verdict::fail(
            "GetTask of the task just made",
            answer.describe(),
        ));
    };
    let mut ids: Vec<&str> = a2a::items(task, "history")
        .filter_map(|m| a2a::text(m, "messageId"))
        .collect();
    if ids.is_empty() {
        // GetTask kept none back; the SendMessage answer may still show the task's history.
        ids = a2a::items(&made, "history")
            .filter_map(|m| a2a::text(m, "messageId"))
            .collect();
    }
    if ids.is_empty() {
        return Err(HarnessError::Prerequisite(format!(
            "neither the SendMessage answer nor GetTask (historyLength {HISTORY}) showed any \
             history to look in"
        )));
    }
    Ok(if ids.contains(&sent.as_str()) {
        Verdict::pass()
    } else {
        Verdict::fail(
            format!("a history message with messageId {sent:?}"),
            format!("history messageIds {ids:?}"),
        )
    })
}

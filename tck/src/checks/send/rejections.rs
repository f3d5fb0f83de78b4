//! SendMessage rejections (`send.*`): unknown and terminal tasks, unsupported media types,
//! invalid messages, and unknown fields that must be ignored.

use serde_json::{json, Value};

use crate::a2a::{self, ErrorKind};
use crate::check::{HarnessError, Verdict};
use crate::checks::setup::{full_follow_up, terminal_tasks, tried_and_skipped};
use crate::ctx::{Answer, Ctx};
use crate::judge;

pub(super) async fn unknown_task_id(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut message = ctx.user_message("tck-complete-task");
    message["taskId"] = json!(ctx.id("tck-no-such-task"));
    let reply = ctx
        .request("SendMessage", json!({ "message": message }))
        .await?;
    Ok(judge::expect_error(&reply, ErrorKind::TaskNotFound))
}

pub(super) async fn terminal_task_rejects(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (tasks, skipped) = terminal_tasks(&ctx).await?;
    let mut problems = Vec::new();
    for (state, task) in &tasks {
        let message = full_follow_up(&ctx, task, "tck-complete-task");
        let reply = ctx
            .request("SendMessage", json!({ "message": message }))
            .await?;
        if let Verdict::Violated { actual, .. } =
            judge::expect_error(&reply, ErrorKind::UnsupportedOperation)
        {
            problems.push(format!("{state}: {actual}"));
        }
    }
    let tried: Vec<&str> = tasks.iter().map(|(s, _)| *s).collect();
    if problems.is_empty() {
        Ok(Verdict::pass_with(tried_and_skipped(&tried, &skipped)))
    } else {
        Ok(Verdict::fail(
            format!(
                "{} for a message to each terminal task",
                judge::expected(
                    ErrorKind::UnsupportedOperation,
                    ctx.binding(),
                    ctx.version()
                )
            ),
            problems.join("; "),
        ))
    }
}

pub(super) async fn unsupported_media_type(ctx: Ctx) -> Result<Verdict, HarnessError> {
    // N/A when the card or a skill accepts any application/* type.
    let card = &ctx.card.json;
    let modes = |object: &Value, field: &str| -> Vec<String> {
        a2a::items(object, field)
            .filter_map(Value::as_str)
            .map(|m| {
                m.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .collect()
    };
    let mut declared = vec![(
        "defaultInputModes".to_string(),
        modes(card, "defaultInputModes"),
    )];
    for (i, skill) in a2a::items(card, "skills").enumerate() {
        declared.push((
            format!("skills[{i}].inputModes"),
            modes(skill, "inputModes"),
        ));
    }
    if let Some((field, _)) = declared.iter().find(|(_, modes)| {
        modes
            .iter()
            .any(|m| matches!(m.as_str(), "*" | "*/*" | "application/*"))
    }) {
        return Ok(Verdict::NotApplicable {
            reason: format!("the card's {field} accept any application/* media type"),
        });
    }
    let mut message = ctx.user_message("tck-complete-task");
    message["parts"] =
        json!([{ "text": "a2a-tck", "mediaType": "application/x-a2a-tck-unsupported" }]);
    let reply = ctx
        .request("SendMessage", json!({ "message": message }))
        .await?;
    Ok(judge::expect_error(
        &reply,
        ErrorKind::ContentTypeNotSupported,
    ))
}

pub(super) async fn invalid_message(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut problems = Vec::new();
    for (missing, field) in [
        ("messageId", "messageId"),
        ("role", "role"),
        ("a non-empty parts", "parts"),
    ] {
        let mut message = ctx.user_message("tck-complete-task");
        if field == "parts" {
            message["parts"] = json!([]);
        } else if let Some(object) = message.as_object_mut() {
            object.remove(field);
        }
        let reply = ctx
            .request("SendMessage", json!({ "message": message }))
            .await?;
        if let Verdict::Violated { actual, .. } =
            judge::expect_error(&reply, ErrorKind::InvalidParams)
        {
            problems.push(format!("without {missing}: {actual}"));
        }
    }
    if problems.is_empty() {
        Ok(Verdict::pass())
    } else {
        Ok(Verdict::fail(
            format!(
                "{} for each invalid message",
                judge::expected(ErrorKind::InvalidParams, ctx.binding(), ctx.version())
            ),
            problems.join("; "),
        ))
    }
}

pub(super) async fn unknown_fields(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut message = ctx.user_message("tck-complete-task");
    message["tckUnknownField"] = json!({ "ignored": true });
    let params = json!({ "message": message, "tckUnknownParam": 1 });
    let answer = ctx.call("SendMessage", params).await?;
    match &answer {
        Answer::Result(r) if r.get("task").or_else(|| r.get("message")).is_some() => {
            Ok(Verdict::pass())
        }
        other => Ok(Verdict::fail(
            "the message processed, its unknown fields ignored",
            other.describe(),
        )),
    }
}

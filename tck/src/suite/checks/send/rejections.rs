//! SendMessage rejections (`send.*`): unknown and terminal tasks, unsupported media types,
//! invalid messages, and unknown fields that must be ignored.

use serde_json::json;

use crate::exchange::judge;
use crate::facts::a2a::ErrorKind;
use crate::suite::check::{HarnessError, Verdict};
use crate::suite::checks::setup::{
    full_follow_up, input_modes, mode_admits, terminal_tasks, tried_and_skipped, Findings,
};
use crate::suite::ctx::{Answer, Ctx};

pub(super) async fn unknown_task_id(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut message = ctx.user_message("tck-complete-task");
    message["taskId"] = json!(ctx.id("tck-no-such-task"));
    let reply = ctx.send(json!({ "message": message })).await?;
    Ok(judge::expect_error(&reply, ErrorKind::TaskNotFound))
}

pub(super) async fn terminal_task_rejects(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (tasks, skipped) = terminal_tasks(&ctx).await?;
    let mut findings = Findings::default();
    for (state, task) in &tasks {
        let message = full_follow_up(&ctx, task, "tck-complete-task");
        let reply = ctx.send(json!({ "message": message })).await?;
        findings.add(
            state,
            judge::expect_error(&reply, ErrorKind::UnsupportedOperation),
        );
    }
    let tried: Vec<&str> = tasks.iter().map(|(s, _)| *s).collect();
    Ok(findings.verdict(
        format!(
            "{} for a message to each terminal task",
            judge::expected(
                ErrorKind::UnsupportedOperation,
                ctx.binding(),
                ctx.version()
            )
        ),
        Verdict::pass_with(tried_and_skipped(&tried, &skipped)),
    ))
}

pub(super) async fn unsupported_media_type(ctx: Ctx) -> Result<Verdict, HarnessError> {
    // N/A when the card or a skill accepts any application/* type.
    let declared = input_modes(&ctx.card.json);
    if let Some((field, _)) = declared.iter().find(|(_, modes)| {
        modes
            .iter()
            .any(|m| mode_admits(m, "application/x-a2a-tck-unsupported"))
    }) {
        return Ok(Verdict::NotApplicable {
            reason: format!("the card's {field} accept any application/* media type"),
        });
    }
    let mut message = ctx.user_message("tck-complete-task");
    message["parts"] =
        json!([{ "text": "a2a-tck", "mediaType": "application/x-a2a-tck-unsupported" }]);
    let reply = ctx.send(json!({ "message": message })).await?;
    Ok(judge::expect_error(
        &reply,
        ErrorKind::ContentTypeNotSupported,
    ))
}

pub(super) async fn invalid_message(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut problems = Vec::new();
    let mut accepted = Vec::new();
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
        let reply = ctx.send(json!({ "message": message })).await?;
        match judge::expect_error(&reply, ErrorKind::InvalidParams) {
            Verdict::Violated { actual, .. } if matches!(reply.answer(), Ok(Answer::Result(_))) => {
                accepted.push(format!("without {missing}: {actual}"))
            }
            Verdict::Violated { actual, .. } => {
                problems.push(format!("without {missing}: {actual}"))
            }
            _ => {}
        }
    }
    let expected = format!(
        "{} for each invalid message",
        judge::expected(ErrorKind::InvalidParams, ctx.binding(), ctx.version())
    );
    Ok(if !problems.is_empty() {
        problems.extend(accepted);
        Verdict::fail(expected, problems.join("; "))
    } else if !accepted.is_empty() {
        Verdict::tolerate(
            expected,
            format!("processed: {}", accepted.join("; ")),
            "§5.7 says implementations SHOULD (not MUST) reject messages with missing required \
             fields, against §3.3.2's MUST validate all input parameters: contested",
        )
    } else {
        Verdict::pass()
    })
}

pub(super) async fn unknown_fields(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut message = ctx.user_message("tck-complete-task");
    message["tckUnknownField"] = json!({ "ignored": true });
    let params = json!({ "message": message, "tckUnknownParam": 1 });
    let answer = ctx.send(params).await?.answer()?;
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

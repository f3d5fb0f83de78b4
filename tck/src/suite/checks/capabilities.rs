//! Capability checks (`capabilities.*`): operations of capabilities the card does not declare
//! must be refused with the error the spec names (spec 1.0 §3.3.4). These run only when the
//! card lacks the capability.

use crate::suite::check::Needs;
use serde_json::json;

use super::setup::{task_id, Findings, Setup};
use super::EVERY_BINDING_1_0;
use crate::exchange::judge;
use crate::exchange::transport::stream::Start;
use crate::facts::a2a::ErrorKind;
use crate::suite::check::{Capability, Check, Gate, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "capabilities";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "capabilities.streaming-absent-rejects-streaming",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.3.4", statements: &["V10-3.3.4-03", "V10-3.3.4-01"] },
            requirement: "Without capabilities.streaming, SendStreamingMessage and SubscribeToTask get UnsupportedOperationError",
            scope: EVERY_BINDING_1_0,
            requires: &[Gate::Lacks(Capability::Streaming)],
            maps_to: &["CORE-CAP-002"],
            acts: &["CORE-CAP-002"],
            reading: None,
            needs: Needs::NONE.sends(&["tck-input-required"]),
            run: |ctx| Box::pin(streaming_absent(ctx)),
        },
        Check {
            id: "capabilities.push-absent-rejects-push-config",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.3.4", statements: &["V10-3.3.4-02", "V10-3.3.4-01"] },
            requirement: "Without capabilities.pushNotifications, the four push-config operations get PushNotificationNotSupportedError",
            scope: EVERY_BINDING_1_0,
            requires: &[Gate::Lacks(Capability::PushNotifications)],
            maps_to: &["CORE-CAP-001"],
            acts: &["CORE-CAP-001", "PUSH-CFG-004"],
            reading: Some(
                "The spec names PushNotificationNotSupportedError (-32003); the official ACTS draft \
                 (CORE-CAP-001) expects UnsupportedOperationError. This check follows the spec, on \
                 an existing task so TaskNotFoundError is no excuse (only for an agent that makes \
                 no tasks is an unknown id used, and TaskNotFoundError then accepted).",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(5),
            run: |ctx| Box::pin(push_absent(ctx)),
        },
        Check {
            id: "capabilities.extended-card-absent-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.3.4", statements: &["V10-3.3.4-04", "V10-13.3-13", "V10-3.3.4-01"] },
            requirement: "Without capabilities.extendedAgentCard, GetExtendedAgentCard gets UnsupportedOperationError",
            scope: EVERY_BINDING_1_0,
            requires: &[Gate::Lacks(Capability::ExtendedAgentCard)],
            maps_to: &["CORE-CAP-003"],
            acts: &["SEC-EXTCARD-003"],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(extended_card_absent(ctx)),
        },
    ]
}

/// Calls each (method, params) and collects those that do not fail with `kind` (or, where
/// the task id is unknown, with TaskNotFoundError: the spec orders no precedence).
async fn all_refused(
    ctx: &Ctx,
    calls: Vec<(&str, serde_json::Value)>,
    kind: ErrorKind,
    task_known: bool,
) -> Result<Verdict, HarnessError> {
    let mut findings = Findings::default();
    let mut judged = 0;
    for (method, params) in calls {
        // Only a call that names the (unknown) task may answer TaskNotFoundError instead.
        let names_task = params.get("id").is_some() || params.get("taskId").is_some();
        // Streaming methods are opened as streams: an agent that streams anyway must not
        // hold the check until its deadline.
        let reply = if method == "SendStreamingMessage" || method == "SubscribeToTask" {
            match ctx.stream(method, params).await? {
                Start::Refused(reply) => *reply,
                Start::Stream(mut stream) => {
                    judged += 1;
                    let first = stream.next(ctx.stream_wait()).await;
                    findings.problem(format!(
                        "{method}: a stream started (first: {})",
                        first.brief()
                    ));
                    continue;
                }
            }
        } else {
            ctx.request(method, params).await?
        };
        if !task_known && names_task && judge::is_error(&reply, ErrorKind::TaskNotFound) {
            continue;
        }
        judged += 1;
        findings.add(method, judge::expect_error(&reply, kind));
    }
    if judged == 0 {
        return Err(HarnessError::Prerequisite(
            "every call answered TaskNotFoundError for the unknown task id (the agent makes no \
             tasks to name), so the capability error was never seen"
                .into(),
        ));
    }
    Ok(findings.verdict(
        format!(
            "{} for each",
            judge::expected(kind, ctx.binding(), ctx.version())
        ),
        Verdict::pass(),
    ))
}

/// A task to name: one the agent made, or, for agents that answer only with Messages, an id
/// that names no task.
async fn some_task_id(ctx: &Ctx) -> Result<(String, bool), HarnessError> {
    match ctx.create_task("tck-input-required").await {
        Ok(task) => Ok((task_id(&task), true)),
        Err(HarnessError::Prerequisite(_)) => Ok((ctx.id("tck-no-such-task"), false)),
        Err(other) => Err(other),
    }
}

async fn streaming_absent(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (id, known) = some_task_id(&ctx).await?;
    let calls = vec![
        (
            "SendStreamingMessage",
            json!({ "message": ctx.user_message("tck-complete-task") }),
        ),
        ("SubscribeToTask", json!({ "id": id })),
    ];
    all_refused(&ctx, calls, ErrorKind::UnsupportedOperation, known).await
}

async fn push_absent(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (id, known) = some_task_id(&ctx).await?;
    let config = ctx.id("tck-push-config");
    let calls = vec![
        (
            "CreateTaskPushNotificationConfig",
            json!({ "taskId": id, "url": "https://webhook.invalid/a2a-tck" }),
        ),
        (
            "GetTaskPushNotificationConfig",
            json!({ "taskId": id, "id": config }),
        ),
        ("ListTaskPushNotificationConfigs", json!({ "taskId": id })),
        (
            "DeleteTaskPushNotificationConfig",
            json!({ "taskId": id, "id": config }),
        ),
    ];
    all_refused(&ctx, calls, ErrorKind::PushNotificationNotSupported, known).await
}

async fn extended_card_absent(ctx: Ctx) -> Result<Verdict, HarnessError> {
    all_refused(
        &ctx,
        vec![("GetExtendedAgentCard", json!({}))],
        ErrorKind::UnsupportedOperation,
        true,
    )
    .await
}

//! SendMessage: what it returns, execution mode, and the identity rules for taskId and
//! contextId (spec 1.0 §3.1.1, §3.2.2, §3.4).

use serde_json::{json, Value};

use super::EVERY_BINDING_1_0;
use crate::a2a::{self, ErrorKind, INTERRUPTED_STATES, TERMINAL_STATES};
use crate::check::{Binding, ProtocolVersion};
use crate::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::ctx::{sent_task, task_id, terminal_tasks, Answer, Ctx};

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "send.returns-task-or-message",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.1", statements: &["V10-3.1.1-02"] },
            requirement: "SendMessage returns either a Task or a Message: a result with exactly one of `task` and `message`",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-SEND-001"],
            reading: Some(
                "1.0 wraps the answer as {\"task\"} or {\"message\"}; 0.3 JSON-RPC returns the bare Task or Message with its kind (read back into the 1.0 form; the shape itself is checked by v03.jsonrpc.bare-results-with-kind).",
            ),
            run: |ctx| Box::pin(returns_task_or_message(ctx)),
        },
        Check {
            id: "send.blocking-waits-for-terminal-or-interrupted",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.2.2", statements: &["V10-3.2.2-01", "V10-P-04"] },
            requirement: "A blocking SendMessage (returnImmediately false) returns only once the task is in a terminal or interrupted state",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-EXECUTION-MODE-001"],
            reading: None,
            run: |ctx| Box::pin(blocking_waits(ctx)),
        },
        Check {
            id: "send.blocking-returns-artifacts",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.2.2", statements: &["V10-3.2.2-02"] },
            requirement: "A blocking SendMessage returns the latest task state with all its artifacts",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-EXECUTION-MODE-001"],
            reading: None,
            run: |ctx| Box::pin(blocking_returns_artifacts(ctx)),
        },
        Check {
            id: "send.task-ids-server-generated-unique",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.2", statements: &["V10-3.4.2-01", "V10-3.4.2-02"] },
            requirement: "Each new task gets a unique, server-generated taskId, returned in the Task",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-MULTI-003"],
            reading: None,
            run: |ctx| Box::pin(task_ids_unique(ctx)),
        },
        Check {
            id: "send.context-id-generated-when-absent",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.1", statements: &["V10-3.4.1-02", "V10-P-12"] },
            requirement: "A Message the agent answers with carries its contextId, generated when the client gave none",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-MULTI-001a"],
            reading: Some(
                "Generating a contextId is optional (MAY), but server messages must carry one \
                 (Message comment in the proto): this check asks for a direct Message reply \
                 (prefix `tck-message-response`) and requires its contextId. A Task without one \
                 is judged by send.task-carries-context-id.",
            ),
            run: |ctx| Box::pin(context_id_generated(ctx)),
        },
        Check {
            id: "send.task-carries-context-id",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.4.1", statements: &["V10-D-4.1.1-01"] },
            requirement: "A Task carries the contextId it belongs to",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-MULTI-001a"],
            reading: Some(
                "Task.context_id is not REQUIRED in the proto, but the identity rules of §3.4 \
                 presume every task has one; a Task without it is a WARN.",
            ),
            run: |ctx| Box::pin(task_carries_context_id(ctx)),
        },
        Check {
            id: "send.client-context-id-kept-or-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.1", statements: &["V10-3.4.1-04"] },
            requirement: "A client-provided contextId is either kept, or the request is rejected with an error; it is never replaced",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-MULTI-002", "CORE-MULTI-002a"],
            reading: Some(
                "A rejection counts only if the same message without the contextId is accepted, \
                 so an agent that rejects everything does not pass; and -32600/-32601/-32603/-32700 \
                 (not understood, or the agent broke) are the kit's reading of what is not a \
                 rejection.",
            ),
            run: |ctx| Box::pin(client_context_id(ctx)),
        },
        Check {
            id: "send.unknown-task-id-returns-task-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.2", statements: &["V10-3.3.2-11", "V10-3.4.2-04", "V10-5.4-01"] },
            requirement: "A message whose taskId names no existing task gets TaskNotFoundError",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-MULTI-004"],
            reading: None,
            run: |ctx| Box::pin(unknown_task_id(ctx)),
        },
        Check {
            id: "send.terminal-task-rejects-message",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.1", statements: &["V10-5.4-01", "V10-D-3.1.1-01"] },
            requirement: "A message to a task in a terminal state (completed, rejected, failed, canceled) gets UnsupportedOperationError",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-SEND-002"],
            reading: Some(
                "Tried on every terminal state the agent can be driven into (COMPLETED is \
                 required; REJECTED, FAILED and CANCELED are added when the agent produces them, \
                 and the result says which were left out).",
            ),
            run: |ctx| Box::pin(terminal_task_rejects(ctx)),
        },
        Check {
            id: "send.unsupported-media-type-rejected",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.1.1", statements: &["V10-D-3.1.1-02", "V10-13.4-07"] },
            requirement: "A message part whose mediaType the agent does not accept gets ContentTypeNotSupportedError",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-SEND-003"],
            reading: Some(
                "§3.1.1 lists ContentTypeNotSupportedError for an unsupported media type without an \
                 RFC 2119 keyword, and §13.4 says agents SHOULD reject unexpected media types: a \
                 SHOULD. The part carries a media type no agent accepts \
                 (application/x-a2a-tck-unsupported); a card or skill whose input modes include a \
                 wildcard makes the check N/A. The official TCK demands success here.",
            ),
            run: |ctx| Box::pin(unsupported_media_type(ctx)),
        },
        Check {
            id: "send.invalid-message-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.3.2", statements: &["V10-3.3.2-08"] },
            requirement: "A message without a REQUIRED field (messageId, role, or a non-empty parts) gets InvalidParams",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-ERR-002"],
            reading: Some(
                "§5.7 says implementations SHOULD reject messages missing REQUIRED fields, but \
                 §3.3.2 says servers MUST validate all input parameters before processing; this \
                 check follows the MUST.",
            ),
            run: |ctx| Box::pin(invalid_message(ctx)),
        },
        Check {
            id: "send.unknown-fields-ignored",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "5.7", statements: &["V10-5.7-05"] },
            requirement: "Fields the agent does not know, in the params and in the message, are ignored",
            scope: super::JSON_1_0,
            requires: &[],
            maps_to: &["DM-SERIAL-005"],
            reading: None,
            run: |ctx| Box::pin(unknown_fields(ctx)),
        },
        Check {
            id: "send.follow-up-continues-interrupted-task",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.4.3", statements: &["V10-3.4.3-02", "V10-3.3.3-01"] },
            requirement: "A follow-up naming the taskId of a task waiting in TASK_STATE_INPUT_REQUIRED continues that same task",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-MULTI-005"],
            reading: Some(
                "Accepting more messages is a MAY (§3.3.3) and no sentence makes continuing the \
                 task a MUST, so this is a SHOULD: an agent that asks for input \
                 (TASK_STATE_INPUT_REQUIRED) is expected to take the answer on the same task, \
                 i.e. answer with that task (or a Message naming it).",
            ),
            run: |ctx| Box::pin(follow_up_continues(ctx)),
        },
        Check {
            id: "send.history-length-caps-messages",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.2.4", statements: &["V10-P-03"] },
            requirement: "SendMessage with configuration.historyLength 1 returns a task with at most one history message, the most recent",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-HIST-003"],
            reading: Some(
                "Keeping history is optional (§3.7); when the task's full history has fewer than \
                 two messages the limit cannot be observed and the check is N/A.",
            ),
            run: |ctx| Box::pin(send_history_cap(ctx)),
        },
        Check {
            id: "context.task-id-only-infers-context-id",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.3", statements: &["V10-3.4.3-04"] },
            requirement: "A follow-up that gives only the taskId gets the task's contextId inferred",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-MULTI-005"],
            reading: Some(
                "The contextId is read from the Task or the Message the follow-up gets. A rejected \
                 follow-up fails only if the same follow-up with the contextId is accepted.",
            ),
            run: |ctx| Box::pin(infers_context_id(ctx)),
        },
        Check {
            id: "context.mismatched-context-id-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.3", statements: &["V10-3.4.3-05"] },
            requirement: "A message whose contextId differs from that of the task it names is rejected",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-MULTI-006"],
            reading: Some(
                "The spec names no error type for this rejection: an A2A error or -32602 is \
                 accepted, but not -32600/-32601/-32603/-32700, which say the request was not \
                 understood or the agent broke. The task must be left unchanged (still \
                 TASK_STATE_INPUT_REQUIRED), and the same follow-up with the right contextId must \
                 then be accepted, so an agent that rejects every follow-up does not pass. Unlike \
                 the official TCK, the task is an open one, so the rejection cannot come from the \
                 terminal-task rule.",
            ),
            run: |ctx| Box::pin(mismatched_context(ctx)),
        },
    ]
}

async fn returns_task_or_message(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let answer = ctx
        .send_message(ctx.user_message("tck-complete-task"), None)
        .await?;
    let expected = "a result object with exactly one of `task` or `message`";
    let Answer::Result(result) = &answer else {
        return Ok(Verdict::fail(expected, answer.describe()));
    };
    let members: Vec<&str> = ["task", "message"]
        .into_iter()
        .filter(|k| result.get(*k).is_some_and(Value::is_object))
        .collect();
    if members.len() == 1 {
        Ok(Verdict::pass_with(format!("returned a {}", members[0])))
    } else {
        Ok(Verdict::fail(expected, answer.describe()))
    }
}

/// A blocking SendMessage with the given scenario; the task it returns.
async fn blocking_task(ctx: &Ctx, prefix: &str) -> Result<Value, HarnessError> {
    let answer = ctx
        .send_message(
            ctx.user_message(prefix),
            Some(json!({"returnImmediately": false})),
        )
        .await?;
    sent_task(&answer).cloned().ok_or_else(|| {
        HarnessError::Prerequisite(format!(
            "a blocking SendMessage (prefix `{prefix}`) did not return a task: {}",
            answer.describe()
        ))
    })
}

async fn blocking_waits(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = blocking_task(&ctx, "tck-complete-task").await?;
    match a2a::state(&task) {
        Some(s) if TERMINAL_STATES.contains(&s) || INTERRUPTED_STATES.contains(&s) => {
            Ok(Verdict::pass_with(format!("returned in {s}")))
        }
        other => Ok(Verdict::fail(
            "the task in a terminal or interrupted state",
            format!("the task in state {}", a2a::shown(other)),
        )),
    }
}

async fn blocking_returns_artifacts(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = blocking_task(&ctx, "tck-artifact-text").await?;
    let returned = task
        .get("artifacts")
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    // What the agent holds: the answer must not have fewer artifacts than the task itself.
    let got = ctx.get_task(&task_id(&task), None).await?;
    let stored = got
        .result()
        .and_then(|t| t.get("artifacts"))
        .and_then(Value::as_array)
        .map_or(0, Vec::len);
    if stored == 0 && returned == 0 {
        return Err(HarnessError::Prerequisite(
            "the task made with prefix `tck-artifact-text` has no artifacts, by SendMessage or GetTask".into(),
        ));
    }
    if returned >= stored {
        Ok(Verdict::pass_with(format!(
            "{returned} artifact(s) returned"
        )))
    } else {
        Ok(Verdict::fail(
            format!("the blocking answer to carry all {stored} artifact(s) GetTask shows"),
            format!("{returned} artifact(s) in the answer"),
        ))
    }
}

async fn task_ids_unique(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let first_message = ctx.user_message("tck-complete-task");
    let second_message = ctx.user_message("tck-complete-task");
    let sent_ids = [
        first_message["messageId"].clone(),
        second_message["messageId"].clone(),
    ];
    let first = ctx
        .create_task_with("tck-complete-task", first_message)
        .await?;
    let second = ctx
        .create_task_with("tck-complete-task", second_message)
        .await?;
    let (a, b) = (task_id(&first), task_id(&second));
    if a == b {
        return Ok(Verdict::fail(
            "two different task ids for two new tasks",
            format!("both tasks have id {a:?}"),
        ));
    }
    if sent_ids
        .iter()
        .any(|m| m.as_str() == Some(a.as_str()) || m.as_str() == Some(b.as_str()))
    {
        return Ok(Verdict::fail(
            "task ids generated by the server",
            format!("a task id equals the client's messageId ({a:?}, {b:?})"),
        ));
    }
    Ok(Verdict::pass_with(format!("task ids {a:?} and {b:?}")))
}

async fn context_id_generated(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let answer = ctx
        .send_message(ctx.user_message("tck-message-response"), None)
        .await?;
    let message = answer
        .result()
        .and_then(|r| r.get("message"))
        .ok_or_else(|| {
            HarnessError::Prerequisite(format!(
                "SendMessage (prefix `tck-message-response`) did not answer with a Message: {}",
                answer.describe()
            ))
        })?;
    match a2a::text(message, "contextId") {
        Some(c) => Ok(Verdict::pass_with(format!("contextId {c:?}"))),
        None => Ok(Verdict::fail(
            "a non-empty contextId on the Message",
            format!("no contextId: {}", a2a::brief(message, 300)),
        )),
    }
}

async fn task_carries_context_id(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx.create_task("tck-complete-task").await?;
    match a2a::text(&task, "contextId") {
        Some(c) => Ok(Verdict::pass_with(format!("contextId {c:?}"))),
        None => Ok(Verdict::fail(
            "a non-empty contextId on the Task",
            format!("no contextId: {}", a2a::brief(&task, 300)),
        )),
    }
}

async fn client_context_id(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let context = ctx.id("tck-client-context");
    let mut message = ctx.user_message("tck-complete-task");
    message["contextId"] = json!(context);
    let answer = ctx.send_message(message, None).await?;
    let expected = format!("the contextId {context:?} kept, or an error");
    let returned = match &answer {
        Answer::Error(_) => {
            // A rejection is allowed; it must be about the contextId: the same message
            // without it must be accepted, and the error must be a real rejection.
            let control = ctx
                .send_message(ctx.user_message("tck-complete-task"), None)
                .await?;
            if let Answer::Error(_) = control {
                return Err(HarnessError::Prerequisite(format!(
                    "SendMessage fails even without a contextId: {}",
                    control.describe()
                )));
            }
            if let Some(verdict) = broken_rejection(&answer, &expected) {
                return Ok(verdict);
            }
            return Ok(Verdict::pass_with(
                "the agent rejected the client contextId (and accepts the message without it)",
            ));
        }
        Answer::Result(r) => r.get("task").or_else(|| r.get("message")),
    };
    match returned
        .and_then(|o| o.get("contextId"))
        .and_then(Value::as_str)
    {
        Some(c) if c == context => Ok(Verdict::pass_with("the client contextId was kept")),
        Some(c) => Ok(Verdict::fail(
            expected,
            format!("contextId replaced by {c:?}"),
        )),
        None => Ok(Verdict::fail(expected, answer.describe())),
    }
}

async fn unknown_task_id(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut message = ctx.user_message("tck-complete-task");
    message["taskId"] = json!(ctx.id("tck-no-such-task"));
    ctx.call_expecting(
        "SendMessage",
        json!({ "message": message }),
        ErrorKind::TaskNotFound,
    )
    .await
}

/// A follow-up message on `task` with the given scenario prefix.
fn follow_up(ctx: &Ctx, task: &Value, prefix: &str, context: Option<&str>) -> Value {
    let mut message = ctx.user_message(prefix);
    message["taskId"] = json!(task_id(task));
    if let Some(context) = context {
        message["contextId"] = json!(context);
    }
    message
}

/// A follow-up on `task` that names its contextId too.
pub(crate) fn full_follow_up(ctx: &Ctx, task: &Value, prefix: &str) -> Value {
    follow_up(ctx, task, prefix, a2a::text(task, "contextId"))
}

async fn terminal_task_rejects(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (tasks, skipped) = terminal_tasks(&ctx).await?;
    let mut problems = Vec::new();
    for (state, task) in &tasks {
        let message = full_follow_up(&ctx, task, "tck-complete-task");
        let reply = ctx
            .request("SendMessage", json!({ "message": message }))
            .await?;
        if let Verdict::Violated { actual, .. } =
            reply.expect_error(ErrorKind::UnsupportedOperation)
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
                ctx.error_form(ErrorKind::UnsupportedOperation)
            ),
            problems.join("; "),
        ))
    }
}

/// "tried X, Y; left out: ..." for pass details of checks over several terminal states.
pub(crate) fn tried_and_skipped(tried: &[&str], skipped: &[String]) -> String {
    if skipped.is_empty() {
        format!("tried {}", tried.join(", "))
    } else {
        format!(
            "tried {}; left out: {}",
            tried.join(", "),
            skipped.join("; ")
        )
    }
}

async fn unsupported_media_type(ctx: Ctx) -> Result<Verdict, HarnessError> {
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
    ctx.call_expecting(
        "SendMessage",
        json!({ "message": message }),
        ErrorKind::ContentTypeNotSupported,
    )
    .await
}

async fn invalid_message(ctx: Ctx) -> Result<Verdict, HarnessError> {
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
        if let Verdict::Violated { actual, .. } = reply.expect_error(ErrorKind::InvalidParams) {
            problems.push(format!("without {missing}: {actual}"));
        }
    }
    if problems.is_empty() {
        Ok(Verdict::pass())
    } else {
        Ok(Verdict::fail(
            format!(
                "{} for each invalid message",
                ctx.error_form(ErrorKind::InvalidParams)
            ),
            problems.join("; "),
        ))
    }
}

async fn unknown_fields(ctx: Ctx) -> Result<Verdict, HarnessError> {
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

/// The task id an answer speaks for: a Task's id, or a Message's taskId.
fn answered_task_id(answer: &Answer) -> Option<&str> {
    let result = answer.result()?;
    match result.get("task") {
        Some(task) => a2a::text(task, "id"),
        None => result.get("message").and_then(|m| a2a::text(m, "taskId")),
    }
}

async fn follow_up_continues(ctx: Ctx) -> Result<Verdict, HarnessError> {
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

async fn send_history_cap(ctx: Ctx) -> Result<Verdict, HarnessError> {
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
    let history = super::tasks::full_history(&ctx, &id).await?;
    if let Some(na) = super::tasks::limit_unobservable(&history) {
        return Ok(na);
    }
    Ok(super::tasks::judge_limit_of_one(&history, returned))
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
    let answer = ctx
        .send_message(follow_up(&ctx, &task, "tck-complete-task", None), None)
        .await?;
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
        Some(c) if c == context => Ok(Verdict::pass()),
        Some(c) => Ok(Verdict::fail(expected, format!("contextId {c:?}"))),
        None => Ok(Verdict::fail(expected, answer.describe())),
    }
}

/// Codes that say a request was not understood or the agent broke: not a rejection of it.
const NOT_A_REJECTION: &[ErrorKind] = &[
    ErrorKind::JsonParse,
    ErrorKind::InvalidRequest,
    ErrorKind::MethodNotFound,
    ErrorKind::Internal,
];

/// A violation when `answer` is an error that does not reject the request for a reason
/// (see [`NOT_A_REJECTION`]).
fn broken_rejection(answer: &Answer, expected: &str) -> Option<Verdict> {
    match answer {
        // On HTTP and gRPC, parse errors, invalid requests and invalid params share their
        // status: there only a missing route and an internal error are told apart.
        Answer::Error(e)
            if NOT_A_REJECTION.iter().any(|k| {
                e.is(*k)
                    && match (e.binding, e.version) {
                        (Binding::Jsonrpc, _) => true,
                        // 0.3 REST and gRPC errors are told apart by their class only.
                        (_, ProtocolVersion::V0_3) => *k == ErrorKind::Internal,
                        _ => matches!(k, ErrorKind::MethodNotFound | ErrorKind::Internal),
                    }
            }) =>
        {
            Some(Verdict::fail(
                format!("{expected} (an A2A error or -32602)"),
                answer.describe(),
            ))
        }
        _ => None,
    }
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

//! SendMessage: what it returns, execution mode, and the identity rules for taskId and
//! contextId (spec 1.0 §3.1.1, §3.2.2, §3.4).

use serde_json::{json, Value};

use super::EVERY_BINDING_1_0;
use crate::a2a::{self, ErrorKind, INTERRUPTED_STATES, TERMINAL_STATES};
use crate::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::ctx::{expect_error, sent_task, task_id, Answer, Ctx};

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "send.returns-task-or-message",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.1", statements: &["V10-3.1.1-02"] },
            requirement: "SendMessage returns either a Task or a Message: a result with exactly one of `task` and `message`",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-SEND-001"],
            reading: None,
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
            id: "send.task-ids-server-generated-unique",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.2", statements: &["V10-3.4.2-01", "V10-3.4.2-02"] },
            requirement: "Each new task gets a unique, server-generated taskId, returned in the Task",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-MULTI-003"],
            reading: None,
            run: |ctx| Box::pin(task_ids_unique(ctx)),
        },
        Check {
            id: "send.context-id-generated-when-absent",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.1", statements: &["V10-3.4.1-02", "V10-P-12"] },
            requirement: "A contextId the agent generates for a message without one is returned in the response",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-MULTI-001a"],
            reading: Some(
                "Generating a contextId is optional (MAY), but server messages must carry one \
                 (Message comment in the proto), so a Task or Message without contextId fails.",
            ),
            run: |ctx| Box::pin(context_id_generated(ctx)),
        },
        Check {
            id: "send.client-context-id-kept-or-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.1", statements: &["V10-3.4.1-04"] },
            requirement: "A client-provided contextId is either kept, or the request is rejected with an error; it is never replaced",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-MULTI-002", "CORE-MULTI-002a"],
            reading: None,
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
            requirement: "A message to a task in a terminal state gets UnsupportedOperationError",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-SEND-002"],
            reading: None,
            run: |ctx| Box::pin(terminal_task_rejects(ctx)),
        },
        Check {
            id: "send.follow-up-continues-interrupted-task",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.3", statements: &["V10-3.4.3-02", "V10-3.3.3-01"] },
            requirement: "A follow-up naming the taskId of a task waiting in TASK_STATE_INPUT_REQUIRED continues that same task",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-MULTI-005"],
            reading: Some(
                "Accepting more messages is a MAY (§3.3.3), but an agent that asks for input \
                 (TASK_STATE_INPUT_REQUIRED) must take the answer on the same task: this check \
                 requires the follow-up's answer to carry the same task id.",
            ),
            run: |ctx| Box::pin(follow_up_continues(ctx)),
        },
        Check {
            id: "context.task-id-only-infers-context-id",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.3", statements: &["V10-3.4.3-04"] },
            requirement: "A follow-up that gives only the taskId gets the task's contextId inferred",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-MULTI-005"],
            reading: None,
            run: |ctx| Box::pin(infers_context_id(ctx)),
        },
        Check {
            id: "context.mismatched-context-id-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.3", statements: &["V10-3.4.3-05"] },
            requirement: "A message whose contextId differs from that of the task it names is rejected",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-MULTI-006"],
            reading: Some(
                "The spec names no error type for this rejection: any error answer is accepted, \
                 and the task must be left unchanged (still TASK_STATE_INPUT_REQUIRED). Unlike the \
                 official TCK, the task is an open one, so the rejection cannot come from the \
                 terminal-task rule instead.",
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

async fn blocking_waits(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let answer = ctx
        .send_message(
            ctx.user_message("tck-complete-task"),
            Some(json!({"returnImmediately": false})),
        )
        .await?;
    let Some(task) = sent_task(&answer) else {
        return Err(HarnessError::Prerequisite(format!(
            "a blocking SendMessage (prefix `tck-complete-task`) did not return a task: {}",
            answer.describe()
        )));
    };
    match a2a::state(task) {
        Some(s) if TERMINAL_STATES.contains(&s) || INTERRUPTED_STATES.contains(&s) => {
            Ok(Verdict::pass_with(format!("returned in {s}")))
        }
        other => Ok(Verdict::fail(
            "the task in a terminal or interrupted state",
            format!("the task in state {}", a2a::shown(other)),
        )),
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
        .send_message(ctx.user_message("tck-complete-task"), None)
        .await?;
    let object = answer
        .result()
        .and_then(|r| r.get("task").or_else(|| r.get("message")))
        .ok_or_else(|| {
            HarnessError::Prerequisite(format!(
                "SendMessage returned neither a task nor a message: {}",
                answer.describe()
            ))
        })?;
    match a2a::text(object, "contextId") {
        Some(c) => Ok(Verdict::pass_with(format!("contextId {c:?}"))),
        None => Ok(Verdict::fail(
            "a non-empty contextId in the response",
            format!("no contextId: {}", a2a::brief(object, 300)),
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
            return Ok(Verdict::pass_with(
                "the agent rejected the client contextId",
            ))
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
    let answer = ctx.send_message(message, None).await?;
    Ok(expect_error(&answer, ErrorKind::TaskNotFound))
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

async fn terminal_task_rejects(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-complete-task", "TASK_STATE_COMPLETED")
        .await?;
    let message = follow_up(
        &ctx,
        &task,
        "tck-complete-task",
        a2a::text(&task, "contextId"),
    );
    let answer = ctx.send_message(message, None).await?;
    Ok(expect_error(&answer, ErrorKind::UnsupportedOperation))
}

async fn follow_up_continues(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let message = follow_up(
        &ctx,
        &task,
        "tck-complete-task",
        a2a::text(&task, "contextId"),
    );
    let answer = ctx.send_message(message, None).await?;
    let id = task_id(&task);
    match sent_task(&answer) {
        Some(t) if a2a::text(t, "id") == Some(id.as_str()) => Ok(Verdict::pass_with(format!(
            "task {id:?} continued, now {}",
            a2a::shown(a2a::state(t))
        ))),
        _ => Ok(Verdict::fail(
            format!("the same task {id:?} in the answer"),
            answer.describe(),
        )),
    }
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
    match sent_task(&answer)
        .and_then(|t| t.get("contextId"))
        .and_then(Value::as_str)
    {
        Some(c) if c == context => Ok(Verdict::pass()),
        Some(c) => Ok(Verdict::fail(expected, format!("contextId {c:?}"))),
        None => Ok(Verdict::fail(expected, answer.describe())),
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
    if let Answer::Result(_) = answer {
        return Ok(Verdict::fail(
            format!("an error for contextId {other:?}, which is not the task's"),
            answer.describe(),
        ));
    }
    let id = task_id(&task);
    let after = ctx.get_task(&id, None).await?;
    match after.result().and_then(a2a::state) {
        Some("TASK_STATE_INPUT_REQUIRED") => Ok(Verdict::pass()),
        other => Ok(Verdict::fail(
            "the rejected message to leave the task in TASK_STATE_INPUT_REQUIRED",
            format!("GetTask shows state {}", a2a::shown(other)),
        )),
    }
}

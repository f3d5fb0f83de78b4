//! SendMessage checks (`send.*`): what it returns, execution mode, the identity rules for
//! taskId and contextId, rejections, and follow-ups (spec 1.0 §3.1.1, §3.2.2, §3.4). The
//! rejection and follow-up checks live in the submodules `rejections` and `follow_ups`.

mod follow_ups;
pub mod modes;
mod rejections;

use crate::suite::check::Needs;
use serde_json::{json, Value};

use super::setup::{broken_rejection, sent_task, task_id, Findings, Setup};
use super::{EVERY_BINDING_1_0, EVERY_BINDING_BOTH};
use crate::facts::a2a::{self, INTERRUPTED_STATES, TERMINAL_STATES};
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::{Answer, Ctx};
use follow_ups::{
    auth_follow_up_continues, data_part_follow_up, follow_up_continues, message_id_kept,
    send_history_cap,
};
use rejections::{
    invalid_message, terminal_task_rejects, unknown_fields, unknown_task_id, unsupported_media_type,
};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "send";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "send.returns-task-or-message",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.1", statements: &["V10-3.1.1-02", "V03-3.2.2-03", "V03-3.2.2-04", "V03-3.2.2-05", "V03-3.2.2-07", "V03-3.2.3-03", "V03-3.2.3-04", "V03-3.5.1-01", "V03-3.5.2-01", "V03-3.5.3-01", "V03-11.1.2-01"] },
            requirement: "SendMessage returns either a Task or a Message: a result with exactly one of `task` and `message`",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-SEND-001"],
            acts: &["CORE-SEND-001", "CORE-SEND-003"],
            reading: Some(
                "1.0 wraps the answer as {\"task\"} or {\"message\"}; 0.3 JSON-RPC returns the bare Task or Message with its kind (read back into the 1.0 form; the shape itself is checked by v03.jsonrpc.bare-results-with-kind).",
            ),
            needs: Needs::NONE,
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
            acts: &["CORE-SEND-001"],
            reading: Some(
                "Sent with a task that completes and, when the contract or drive file gives \
                 one, with work that fails (`tck-fail-task`): work that fails must end the \
                 task (FAILED) before a blocking answer, not leave it WORKING. An error answer \
                 to the failing work is not judged here (the task it left cannot be seen).",
            ),
            needs: Needs::NONE.may_send(&["tck-fail-task"]),
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
            acts: &["DM-ART-001"],
            reading: None,
            needs: Needs::NONE.sends(&["tck-artifact-text"]).weighs(2),
            run: |ctx| Box::pin(blocking_returns_artifacts(ctx)),
        },
        Check {
            id: "send.task-ids-server-generated-unique",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.2", statements: &["V10-3.4.2-01", "V10-3.4.2-02", "V03-T-14"] },
            requirement: "Each new task gets a unique, server-generated taskId, returned in the Task",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-MULTI-003"],
            acts: &[],
            reading: None,
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(task_ids_unique(ctx)),
        },
        Check {
            id: "send.context-id-generated-when-absent",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.1", statements: &["V10-3.4.1-02", "V10-P-12"] },
            requirement: "A Message the agent answers with carries its contextId, generated when the client gave none",
            scope: super::EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-MULTI-001a"],
            acts: &["DM-FMT-003"],
            reading: Some(
                "Generating a contextId is optional (MAY), but server messages must carry one \
                 (Message comment in the proto): this check asks for a direct Message reply \
                 (prefix `tck-message-response`) and requires its contextId. A Task without one \
                 is judged by send.task-carries-context-id.",
            ),
            needs: Needs::NONE.sends(&["tck-message-response"]),
            run: |ctx| Box::pin(context_id_generated(ctx)),
        },
        Check {
            id: "send.task-carries-context-id",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.4.1", statements: &["V10-D-4.1.1-01", "V03-T-15"] },
            requirement: "A Task carries the contextId it belongs to",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-MULTI-001a"],
            acts: &[],
            reading: Some(
                "Task.context_id is not REQUIRED in the proto, but the identity rules of §3.4 \
                 presume every task has one; a Task without it is a WARN.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(task_carries_context_id(ctx)),
        },
        Check {
            id: "send.client-context-id-kept-or-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.1", statements: &["V10-3.4.1-04"] },
            requirement: "A client-provided contextId is either kept, or the request is rejected with an error; it is never replaced",
            scope: super::EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-MULTI-002", "CORE-MULTI-002a"],
            acts: &["CORE-CTX-001"],
            reading: Some(
                "A rejection counts only if the same message without the contextId is accepted, \
                 so an agent that rejects everything does not pass; and -32600/-32601/-32603/-32700 \
                 (not understood, or the agent broke) are the kit's reading of what is not a \
                 rejection.",
            ),
            needs: Needs::NONE,
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
            acts: &[],
            reading: None,
            needs: Needs::NONE,
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
            acts: &["CORE-SEND-002", "CORE-ERR-004"],
            reading: Some(
                "Tried on every terminal state the agent can be driven into (COMPLETED is \
                 required; REJECTED, FAILED and CANCELED are added when the agent produces them, \
                 and the result says which were left out).",
            ),
            needs: Needs::NONE.sends(&["tck-input-required", "tck-reject-task", "tck-fail-task"]).may_send(&["tck-long-running"]).weighs(9),
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
            acts: &["CORE-SEND-004"],
            reading: Some(
                "§3.1.1 lists ContentTypeNotSupportedError for an unsupported media type without an \
                 RFC 2119 keyword, and §13.4 says agents SHOULD reject unexpected media types: a \
                 SHOULD. The part carries a media type no agent accepts \
                 (application/x-a2a-tck-unsupported); a card or skill whose input modes include a \
                 wildcard makes the check N/A. The official TCK demands success here.",
            ),
            needs: Needs::NONE,
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
            acts: &[],
            reading: Some(
                "Contested: §5.7 says implementations SHOULD validate REQUIRED fields and reject \
                 messages missing them, while §3.3.2 says servers MUST validate all input \
                 parameters before processing. InvalidParams passes. Processing such a message \
                 (a result) is WARN, for each of the three fields alike: the sentence about \
                 exactly this case is §5.7's SHOULD, and no sentence sets messageId, role or \
                 parts apart. Refusing it with another error (an internal error, a different A2A \
                 error, a wrong error form) is FAIL: no reading allows that.",
            ),
            needs: Needs::NONE.weighs(3).unaudited(),
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
            acts: &["DM-EXTRA-001"],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(unknown_fields(ctx)),
        },
        Check {
            id: "send.follow-up-continues-interrupted-task",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.4.3", statements: &["V10-3.4.3-02", "V10-3.3.3-01", "V03-7.1-01"] },
            requirement: "A follow-up naming the taskId of a task waiting in TASK_STATE_INPUT_REQUIRED continues that same task",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &["CORE-MULTI-005"],
            acts: &["CORE-MULTI-001"],
            reading: Some(
                "Accepting more messages is a MAY (§3.3.3) and no sentence makes continuing the \
                 task a MUST, so this is a SHOULD: an agent that asks for input \
                 (TASK_STATE_INPUT_REQUIRED) is expected to take the answer on the same task, \
                 i.e. answer with that task (or a Message naming it).",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(2),
            run: |ctx| Box::pin(follow_up_continues(ctx)),
        },
        Check {
            id: "send.auth-required-follow-up-continues-task",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "7.6.1", statements: &["V10-3.4.3-02", "V10-3.3.3-01", "V10-7.6.1-07", "V03-7.1-01"] },
            requirement: "A follow-up naming the taskId of a task waiting in TASK_STATE_AUTH_REQUIRED resumes that same task",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Driven by the kit's own scenario `tck-auth-required`, used only when the \
                 contract probe showed the agent asks for authorization on it. As for \
                 input-required (`send.follow-up-continues-interrupted-task`), no sentence makes \
                 continuing the task a MUST, so this is a SHOULD; the follow-up must be \
                 answered for that same task (a Task, or a Message naming it), in whatever \
                 state the agent then puts it: how credentials arrive is out of band (§7.6.1).",
            ),
            needs: Needs::NONE.sends(&["tck-auth-required"]).weighs(2),
            run: |ctx| Box::pin(auth_follow_up_continues(ctx)),
        },
        Check {
            id: "send.history-length-caps-messages",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.2.4", statements: &["V10-P-03"] },
            requirement: "SendMessage with configuration.historyLength 1 returns a task with at most one history message, the most recent",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-HIST-003"],
            acts: &["CORE-HIST-003"],
            reading: Some(
                "Keeping history is optional (§3.7); when the task's full history has fewer than \
                 two messages the limit cannot be observed and the check is N/A.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(3),
            run: |ctx| Box::pin(send_history_cap(ctx)),
        },
    ]
}

/// Identity rules that hold in 0.3 and 1.0 alike; they come last in the catalogue.
pub fn identity_checks() -> Vec<Check> {
    vec![
        Check {
            id: "send.follow-up-with-data-part-continues-task",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.4.3", statements: &["V10-3.4.3-02", "V03-7.1-01"] },
            requirement: "A follow-up to an input-required task whose only part is structured data continues the same task",
            scope: EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Approval flows answer an input-required task with a data part (e.g. \
                 {\"approved\": true}, mediaType application/json); the follow-up is expected to \
                 continue that task like a text answer. As for a text follow-up \
                 (`send.follow-up-continues-interrupted-task`), clients may send a taskId \
                 (§3.4.3, MAY) but no sentence makes continuing the task a MUST: a WARN. An agent whose card admits no JSON input (neither \
                 defaultInputModes nor any skill's inputModes has application/json, \
                 application/* or */*) may refuse such a part, as §13.4 asks (agents SHOULD \
                 reject unexpected media types): then the check is N/A, and so is a \
                 ContentTypeNotSupportedError answer to the data part.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(2),
            run: |ctx| Box::pin(data_part_follow_up(ctx)),
        },
        Check {
            id: "send.message-id-kept-in-history",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.1.3", statements: &["V10-D-3.1.3-03", "V03-T-16"] },
            requirement: "The client's message appears in the task's history with the messageId the client gave",
            scope: EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &["CORE-HIST-005", "CORE-HIST-006"],
            reading: Some(
                "The history holds the messages of the task and a messageId is made by the \
                 message's creator, but no sentence with an RFC 2119 keyword says the client's \
                 message is kept with its id (keeping history is itself a MAY, §3.7): a WARN. \
                 UNTESTABLE when no history is shown.",
            ),
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(message_id_kept(ctx)),
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
    let mut findings = Findings::default();
    let ended = |state: Option<&str>| {
        state.is_some_and(|s| TERMINAL_STATES.contains(&s) || INTERRUPTED_STATES.contains(&s))
    };
    let state = a2a::state(&task);
    if !ended(state) {
        findings.problem(format!(
            "a task that completes: answered in state {}",
            a2a::shown(state)
        ));
    }
    let mut seen = vec![format!("returned in {}", a2a::shown(state))];
    if ctx.scenarios().honours("tck-fail-task") {
        let answer = ctx
            .send_message(
                ctx.user_message("tck-fail-task"),
                Some(json!({"returnImmediately": false})),
            )
            .await?;
        if let Some(failing) = sent_task(&answer) {
            let state = a2a::state(failing);
            if ended(state) {
                seen.push(format!("work that fails returned in {}", a2a::shown(state)));
            } else {
                findings.problem(format!(
                    "work that fails: answered in state {} (the task left open)",
                    a2a::shown(state)
                ));
            }
        }
    }
    Ok(findings.verdict(
        "the task in a terminal or interrupted state",
        Verdict::pass_with(seen.join("; ")),
    ))
}

async fn blocking_returns_artifacts(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = blocking_task(&ctx, "tck-artifact-text").await?;
    // An answer that came before the task ended is judged by
    // send.blocking-waits-for-terminal-or-interrupted; what artifacts the task gains after it
    // says nothing of what the answer owed when it was sent.
    let state = a2a::state(&task);
    if !state.is_some_and(|s| TERMINAL_STATES.contains(&s) || INTERRUPTED_STATES.contains(&s)) {
        return Err(HarnessError::Prerequisite(format!(
            "the blocking answer came with the task in state {}, before it ended (judged by \
             send.blocking-waits-for-terminal-or-interrupted): the artifacts it owed cannot be \
             told from those the task gained later",
            a2a::shown(state)
        )));
    }
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

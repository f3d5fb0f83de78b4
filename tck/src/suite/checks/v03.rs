//! Protocol 0.3 shape checks (`v03.*`, spec 1.0 §3.6.2, spec notes §2 and §3): what a 0.3
//! answer looks like. Checks on 0.3 interfaces send no `A2A-Version` (an absent header means
//! 0.3) and read answers back strictly (see `transport::v03`).

pub mod card;
pub mod resubscribe;
pub mod wire;
use crate::suite::check::Needs;
use serde_json::{json, Value};

use super::{EVERY_BINDING_0_3, JSONRPC_0_3, JSON_0_3};
use crate::exchange::transport::Reply;
use crate::facts::a2a;
use crate::suite::check::{
    Binding, Capability, Check, Gate, HarnessError, Level, SpecRef, Verdict,
};
use crate::suite::ctx::{Answer, Ctx};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "v03";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "v03.send.unknown-task-id-refused",
            level: Level::Should,
            spec: SpecRef { version: "0.3", section: "7.1", statements: &["V03-7.1-01", "V03-D-L-05"] },
            requirement: "message/send naming a taskId the agent never issued is refused with an \
                          error (TaskNotFoundError -32001 expected), not answered with a task \
                          the agent creates under that id or a new one",
            scope: EVERY_BINDING_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "0.3 has no sentence with a keyword for an unknown taskId (1.0 §3.4.2 makes it \
                 TaskNotFoundError, judged by send.unknown-task-id-returns-task-not-found): §7.1 \
                 says a message naming a taskId is part of that task, and 0.3 defines \
                 TaskNotFoundError (-32001). Any error passes; a task made under the id the \
                 client invented, or a new task that ignores it, or a reply processed as if \
                 the task existed, is a WARN. An empty taskId is not sent: in ProtoJSON an \
                 empty string is the field left unset.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(unknown_task_id(ctx)),
        },
        Check {
            id: "v03.states-spelled-for-0-3",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-01", "V03-11.1.5-02"] },
            requirement: "A 0.3 request gets task states spelled the 0.3 way: input-required, canceled (one l) on JSON-RPC; TASK_STATE_CANCELLED in the 0.3 proto JSON",
            scope: JSON_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Agents must answer with the semantics of the requested version (§3.6.2). 0.3 \
                 JSON-RPC spells states in lowercase kebab case (`canceled` with one l); the 0.3 \
                 proto, used by 0.3 REST and gRPC, spells TASK_STATE_CANCELLED with two. Over gRPC \
                 the enum travels as a number, so this check runs on the JSON bindings only.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(5),
            run: |ctx| Box::pin(states_spelled(ctx)),
        },
        Check {
            id: "v03.jsonrpc.bare-results-with-kind",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-01", "V03-6.5-01", "V03-11.1.5-02"] },
            requirement: "0.3 JSON-RPC answers message/send with the bare Task or Message, and Tasks, Messages and parts carry their `kind`",
            scope: JSONRPC_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "The 0.3 JSON schema requires `kind` on Task, Message, parts and events, and \
                 message/send returns the Task or Message itself; 1.0 wraps it in \
                 {\"task\"}/{\"message\"} and drops `kind`.",
            ),
            needs: Needs::NONE.sends(&["tck-message-response"]).weighs(2),
            run: |ctx| Box::pin(bare_results(ctx)),
        },
        Check {
            id: "v03.stream.status-updates-carry-final",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-01", "V03-T-09"] },
            requirement: "0.3 status-update events carry `final`, true on the last one",
            scope: EVERY_BINDING_0_3,
            requires: &[Gate::Declares(Capability::Streaming)],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "0.3 requires the boolean `final` on TaskStatusUpdateEvent; the 0.3 spec leaves \
                 its value on interrupted states open (spec notes §2.9 #10), so only the \
                 terminal event of `tck-stream-001` is required to say true. Over gRPC false is \
                 the default and is not sent.",
            ),
            needs: Needs::NONE.sends(&["tck-stream-001"]),
            run: |ctx| Box::pin(final_flags(ctx)),
        },
    ]
}

/// The problems of a 0.3 answer that are about states, or about anything else.
fn problems(reply: &Reply, about_states: bool) -> Vec<String> {
    if about_states {
        reply.state_problems.clone()
    } else {
        reply.problems.clone()
    }
}

async fn states_spelled(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut found = Vec::new();
    let mut seen = Vec::new();
    let mut note = |reply: &Reply, found: &mut Vec<String>| {
        found.extend(problems(reply, true));
        if let Ok(Answer::Result(r)) = &reply.read {
            if let Some(state) = a2a::state(r.get("task").unwrap_or(r)) {
                seen.push(state.to_string());
            }
        }
    };
    // Setup reads states leniently: a misspelt state is what this check reports.
    let mut ids = Vec::new();
    for prefix in ["tck-input-required", "tck-complete-task"] {
        let message = ctx.user_message(prefix);
        let reply = ctx.send(json!({ "message": message })).await?;
        note(&reply, &mut found);
        let id = match &reply.read {
            Ok(Answer::Result(r)) => r.get("task").and_then(|t| a2a::text(t, "id")),
            _ => None,
        };
        let Some(id) = id else {
            return Err(HarnessError::Prerequisite(format!(
                "SendMessage (scenario `{prefix}`) gave no task: {}",
                crate::facts::a2a::shown(reply.read.as_ref().err().map(String::as_str))
            )));
        };
        ids.push(id.to_string());
    }
    let cancel = ctx.cancel(json!({ "id": ids[0] })).await?;
    note(&cancel, &mut found);
    for id in &ids {
        let reply = ctx.get(json!({ "id": id })).await?;
        note(&reply, &mut found);
    }
    found.dedup();
    let canceled_seen = seen.iter().any(|s| s.contains("CANCEL"));
    if found.is_empty() && !canceled_seen {
        return Err(HarnessError::Prerequisite(format!(
            "no canceled task was read (the cancel was refused?); states read: {seen:?}"
        )));
    }
    Ok(if found.is_empty() {
        Verdict::pass_with(format!("states read: {seen:?}"))
    } else {
        Verdict::fail(
            "0.3 spellings of input-required, completed and canceled",
            found.join("; "),
        )
    })
}

async fn bare_results(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut found = Vec::new();
    for prefix in ["tck-complete-task", "tck-message-response"] {
        let message = ctx.user_message(prefix);
        let reply = ctx.send(json!({ "message": message })).await?;
        if let Err(unreadable) = &reply.read {
            found.push(format!("{prefix}: {unreadable}"));
        }
        found.extend(
            problems(&reply, false)
                .into_iter()
                .map(|p| format!("{prefix}: {p}")),
        );
    }
    Ok(if found.is_empty() {
        Verdict::pass()
    } else {
        Verdict::fail(
            "bare Task / Message results, with kind on every object and part",
            found.join("; "),
        )
    })
}

async fn final_flags(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let message = ctx.user_message("tck-stream-001");
    let mut stream = ctx.open_send_stream(json!({ "message": message })).await?;
    let collected = stream.collect(ctx.stream_wait()).await;
    let binding = ctx.binding();
    // The 0.3 status update as received: the JSON-RPC result, or the proto statusUpdate.
    let raw_update = |raw: &Value| -> Option<Value> {
        match binding {
            Binding::Jsonrpc => raw
                .get("result")
                .filter(|r| r.get("kind").and_then(Value::as_str) == Some("status-update"))
                .cloned(),
            _ => raw.get("statusUpdate").cloned(),
        }
    };
    let updates: Vec<(Value, bool)> = collected
        .events
        .iter()
        .filter_map(|e| {
            let raw = raw_update(&e.raw)?;
            let terminal = e.state().is_some_and(|s| a2a::TERMINAL_STATES.contains(&s));
            Some((raw, terminal))
        })
        .collect();
    if updates.is_empty() {
        return Err(HarnessError::Prerequisite(format!(
            "the stream of `tck-stream-001` had no status update: {}",
            collected.describe()
        )));
    }
    let mut found = Vec::new();
    for (i, (update, terminal)) in updates.iter().enumerate() {
        let flag = update.get("final");
        let value = match (flag, binding) {
            (Some(Value::Bool(b)), _) => *b,
            // In the 0.3 proto JSON (REST) and on gRPC a false `final` is the default, left out.
            (None, Binding::Grpc | Binding::Rest) => false,
            (other, _) => {
                found.push(format!(
                    "status update {} has final {}",
                    i + 1,
                    a2a::shown_json(other)
                ));
                continue;
            }
        };
        if *terminal && !value {
            found.push(format!(
                "the terminal status update {} has final false",
                i + 1
            ));
        }
        if value && i + 1 < updates.len() {
            found.push(format!(
                "status update {} has final true but more status updates follow",
                i + 1
            ));
        }
    }
    Ok(if found.is_empty() {
        Verdict::pass_with(format!("{} status updates", updates.len()))
    } else {
        Verdict::fail(
            "`final` on every status update, true on the terminal one",
            found.join("; "),
        )
    })
}

async fn unknown_task_id(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let invented = ctx.id("tck-no-such-task");
    let mut message = ctx.user_message(crate::suite::contract::PLAIN);
    message["taskId"] = json!(invented);
    let answer = ctx.send_message(message, None).await?;
    let expected = "an error (TaskNotFoundError -32001) for a taskId the agent never issued";
    match &answer {
        Answer::Error(_) => Ok(Verdict::pass()),
        Answer::Result(result) => {
            let task = result.get("task");
            let id = task.and_then(|t| a2a::text(t, "id"));
            let got = match id {
                Some(id) if id == invented => {
                    format!("a task made under the id the client invented ({id})")
                }
                Some(id) => format!("a new task {id} (the taskId named was ignored)"),
                None => format!(
                    "a reply, processed as if the task existed: {}",
                    answer.describe()
                ),
            };
            Ok(Verdict::fail(expected, got))
        }
    }
}

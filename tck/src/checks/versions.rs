//! Protocol 0.3 beside 1.0 (spec 1.0 §3.6, spec notes §2 and §3): what each version's answers
//! look like, which methods each version has, how the card declares versions, and identity
//! rules that hold in both. Checks on 0.3 interfaces send no `A2A-Version` (an absent header
//! means 0.3) and read answers back strictly (see `transport::v03`).

use serde_json::{json, Value};

use super::{EVERY_BINDING_0_3, EVERY_BINDING_BOTH, JSONRPC_0_3, JSONRPC_1_0, JSON_0_3, REST_1_0};
use crate::a2a::{self, ErrorKind};
use crate::card;
use crate::check::{
    Binding, Capability, Check, Gate, HarnessError, Level, ProtocolVersion, Scope, SpecRef, Verdict,
};
use crate::checks::send_message::full_follow_up;
use crate::ctx::{task_id, Answer, Ctx};
use crate::transport::Reply;

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "v03.states-spelled-for-0-3",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-01"] },
            requirement: "A 0.3 request gets task states spelled the 0.3 way: input-required, canceled (one l) on JSON-RPC; TASK_STATE_CANCELLED in the 0.3 proto JSON",
            scope: JSON_0_3,
            requires: &[],
            maps_to: &[],
            reading: Some(
                "Agents must answer with the semantics of the requested version (§3.6.2). 0.3 \
                 JSON-RPC spells states in lowercase kebab case (`canceled` with one l); the 0.3 \
                 proto, used by 0.3 REST and gRPC, spells TASK_STATE_CANCELLED with two. Over gRPC \
                 the enum travels as a number, so this check runs on the JSON bindings only.",
            ),
            run: |ctx| Box::pin(states_spelled(ctx)),
        },
        Check {
            id: "v03.jsonrpc.bare-results-with-kind",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-01"] },
            requirement: "0.3 JSON-RPC answers message/send with the bare Task or Message, and Tasks, Messages and parts carry their `kind`",
            scope: JSONRPC_0_3,
            requires: &[],
            maps_to: &[],
            reading: Some(
                "The 0.3 JSON schema requires `kind` on Task, Message, parts and events, and \
                 message/send returns the Task or Message itself; 1.0 wraps it in \
                 {\"task\"}/{\"message\"} and drops `kind`.",
            ),
            run: |ctx| Box::pin(bare_results(ctx)),
        },
        Check {
            id: "v03.stream.status-updates-carry-final",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-01"] },
            requirement: "0.3 status-update events carry `final`, true on the last one",
            scope: EVERY_BINDING_0_3,
            requires: &[Gate::Declares(Capability::Streaming)],
            maps_to: &[],
            reading: Some(
                "0.3 requires the boolean `final` on TaskStatusUpdateEvent; the 0.3 spec leaves \
                 its value on interrupted states open (spec notes §2.9 #10), so only the \
                 terminal event of `tck-stream-001` is required to say true. Over gRPC false is \
                 the default and is not sent.",
            ),
            run: |ctx| Box::pin(final_flags(ctx)),
        },
        Check {
            id: "versioning.0-3-method-under-1-0-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-01"] },
            requirement: "A 0.3 method (tasks/get) sent with A2A-Version: 1.0 gets -32601 Method not found",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &[],
            reading: Some(
                "Requests are processed with the semantics of the requested version (§3.6.2): \
                 1.0 has no method tasks/get. The Python SDK answers -32603 here; this check \
                 takes the spec's reading.",
            ),
            run: |ctx| Box::pin(method_0_3_under_1_0(ctx)),
        },
        Check {
            id: "versioning.1-0-method-under-0-3-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-01", "V10-3.6.2-03"] },
            requirement: "A 1.0 method (GetTask) sent without A2A-Version to a 0.3 interface gets -32601 Method not found",
            scope: JSONRPC_0_3,
            requires: &[],
            maps_to: &[],
            reading: Some(
                "No header means 0.3 (§3.6.2), and 0.3 has no method GetTask. The Python SDK \
                 answers -32009 VersionNotSupported, which is the answer owed by an interface \
                 that does not serve 0.3; this interface does.",
            ),
            run: |ctx| Box::pin(method_1_0_under_0_3(ctx)),
        },
        Check {
            id: "versioning.card-declares-every-version",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "5.2", statements: &["V10-5.2-01"] },
            requirement: "The card declares every version the agent answers to: a URL that answers 0.3 requests lists 0.3",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            reading: Some(
                "Each JSON-RPC URL the card lists for 1.0 only is sent a 0.3 request (tasks/get \
                 of an unknown id, no header): an answer with 0.3 semantics (-32001) shows the \
                 URL serves 0.3, which the card must then declare.",
            ),
            run: |ctx| Box::pin(card_declares_versions(ctx)),
        },
        Check {
            id: "versioning.task-same-in-both-versions",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-04"] },
            requirement: "A task made through one version is the same task through the other (same id, context and state) where the card declares both on one binding",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            reading: Some(
                "Interfaces of one transport may serve different versions (§3.6.2); they are one \
                 agent, so a task made with 1.0 is read with 0.3 (and the other way) on each \
                 binding that declares both. N/A when no binding declares both.",
            ),
            run: |ctx| Box::pin(same_task_both_versions(ctx)),
        },
        Check {
            id: "versioning.query-parameter-version",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.6.1", statements: &["V10-D-3.6.1-01"] },
            requirement: "An HTTP+JSON request that gives A2A-Version as a query parameter (no header) is processed as that version",
            scope: REST_1_0,
            requires: &[],
            maps_to: &[],
            reading: Some(
                "Clients may send the version as a request parameter (§3.6.1); a server that \
                 ignores it reads the request as 0.3. Observed with GET /tasks/{unknown}?A2A-Version=1.0: \
                 the 1.0 answer is 404 TaskNotFoundError.",
            ),
            run: |ctx| Box::pin(query_parameter(ctx)),
        },
        Check {
            id: "send.follow-up-with-data-part-continues-task",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.4.3", statements: &["V10-3.4.3-02"] },
            requirement: "A follow-up to an input-required task whose only part is structured data continues the same task",
            scope: EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            reading: Some(
                "Approval flows answer an input-required task with a data part (e.g. \
                 {\"approved\": true}); the follow-up must continue that task like a text answer.",
            ),
            run: |ctx| Box::pin(data_part_follow_up(ctx)),
        },
        Check {
            id: "send.message-id-kept-in-history",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.3", statements: &["V10-D-3.1.3-03"] },
            requirement: "The client's message appears in the task's history with the messageId the client gave",
            scope: EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            reading: None,
            run: |ctx| Box::pin(message_id_kept(ctx)),
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
        let reply = ctx
            .request("SendMessage", json!({ "message": message }))
            .await?;
        note(&reply, &mut found);
        let id = match &reply.read {
            Ok(Answer::Result(r)) => r.get("task").and_then(|t| a2a::text(t, "id")),
            _ => None,
        };
        let Some(id) = id else {
            return Err(HarnessError::Prerequisite(format!(
                "SendMessage (messageId prefix `{prefix}`) gave no task: {}",
                crate::a2a::shown(reply.read.as_ref().err().map(String::as_str))
            )));
        };
        ids.push(id.to_string());
    }
    let cancel = ctx.request("CancelTask", json!({ "id": ids[0] })).await?;
    note(&cancel, &mut found);
    for id in &ids {
        let reply = ctx.request("GetTask", json!({ "id": id })).await?;
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
        let reply = ctx
            .request("SendMessage", json!({ "message": message }))
            .await?;
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
    let mut stream = ctx
        .open_stream("SendStreamingMessage", json!({ "message": message }))
        .await?;
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

async fn method_0_3_under_1_0(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx
        .rpc("tasks/get", json!({ "id": ctx.id("tck-no-such-task") }))
        .await?;
    Ok(reply.reply().expect_error(ErrorKind::MethodNotFound))
}

async fn method_1_0_under_0_3(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx
        .rpc_without_version("GetTask", json!({ "id": ctx.id("tck-no-such-task") }))
        .await?;
    Ok(reply.reply().expect_error(ErrorKind::MethodNotFound))
}

async fn card_declares_versions(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (_, interfaces) = card::interfaces(&ctx.card.json);
    let mut problems = Vec::new();
    let mut probed = 0;
    for interface in ctx
        .interfaces()
        .iter()
        .filter(|i| i.binding == Binding::Jsonrpc && i.version == ProtocolVersion::V1_0)
    {
        let declares_0_3 = interfaces
            .iter()
            .any(|i| i.version == ProtocolVersion::V0_3 && i.url == interface.url);
        if declares_0_3 {
            continue;
        }
        probed += 1;
        let reply = ctx
            .on(interface.clone())
            .rpc_without_version("tasks/get", json!({ "id": ctx.id("tck-no-such-task") }))
            .await?
            .reply();
        if reply.is_error(ErrorKind::TaskNotFound) {
            problems.push(format!(
                "{} answers a 0.3 tasks/get (-32001) but the card declares only 1.0 there",
                interface.url
            ));
        }
    }
    Ok(if problems.is_empty() {
        Verdict::pass_with(format!(
            "{probed} 1.0-only JSON-RPC URL(s) probed with a 0.3 request"
        ))
    } else {
        Verdict::fail("0.3 declared wherever 0.3 is answered", problems.join("; "))
    })
}

async fn same_task_both_versions(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let interfaces = ctx.interfaces().to_vec();
    let pairs: Vec<_> = interfaces
        .iter()
        .filter(|i| i.version == ProtocolVersion::V1_0)
        .filter_map(|v10| {
            let v03 = interfaces
                .iter()
                .find(|i| i.version == ProtocolVersion::V0_3 && i.binding == v10.binding)?;
            Some((v10.clone(), v03.clone()))
        })
        .collect();
    if pairs.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: "no binding of the card declares both 0.3 and 1.0".into(),
        });
    }
    let essence = |t: &Value| json!({ "id": t.get("id"), "contextId": t.get("contextId"), "state": a2a::state(t) });
    let mut problems = Vec::new();
    for (v10, v03) in &pairs {
        for (maker, reader) in [(v10, v03), (v03, v10)] {
            let made = ctx
                .on(maker.clone())
                .create_task("tck-complete-task")
                .await?;
            let answer = ctx
                .on(reader.clone())
                .get_task(&task_id(&made), None)
                .await?;
            let label = format!(
                "{} made with {}, read with {}",
                maker.binding, maker.version, reader.version
            );
            match answer.result() {
                Some(read) if essence(read) == essence(&made) => {}
                Some(read) => problems.push(format!(
                    "{label}: {} where it was made as {}",
                    a2a::brief(&essence(read), 200),
                    a2a::brief(&essence(&made), 200)
                )),
                None => problems.push(format!("{label}: {}", answer.describe())),
            }
        }
    }
    Ok(if problems.is_empty() {
        Verdict::pass_with(format!("{} binding(s) compared both ways", pairs.len()))
    } else {
        Verdict::fail("the same task through both versions", problems.join("; "))
    })
}

async fn query_parameter(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let interface = ctx
        .interface
        .clone()
        .ok_or_else(|| HarnessError::Internal("no interface".into()))?;
    let route = crate::transport::rest::route(
        &interface.url,
        "GetTask",
        &ctx.with_tenant(json!({
            "id": ctx.id("tck-no-such-task"),
            "A2A-Version": interface.version.as_str(),
        }))?,
    )?;
    let http = ctx
        .wire
        .send(crate::wire::Request {
            method: route.method,
            url: &route.url,
            headers: vec![("accept", crate::transport::rest::ACCEPT.to_string())],
            body: None,
        })
        .await?;
    Ok(crate::transport::rest::read(&http).expect_error(ErrorKind::TaskNotFound))
}

async fn data_part_follow_up(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await?;
    let mut message = full_follow_up(&ctx, &task, "tck-complete-task");
    message["parts"] = json!([{ "data": { "approved": true }, "mediaType": "application/json" }]);
    let answer = ctx.send_message(message, None).await?;
    let id = task_id(&task);
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

async fn message_id_kept(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let message = ctx.user_message("tck-complete-task");
    let sent = a2a::text(&message, "messageId")
        .unwrap_or_default()
        .to_string();
    let task = ctx.create_task_with("tck-complete-task", message).await?;
    let answer = ctx.get_task(&task_id(&task), None).await?;
    let Some(task) = answer.result() else {
        return Ok(Verdict::fail(
            "GetTask of the task just made",
            answer.describe(),
        ));
    };
    let ids: Vec<&str> = a2a::items(task, "history")
        .filter_map(|m| a2a::text(m, "messageId"))
        .collect();
    if ids.is_empty() {
        return Err(HarnessError::Prerequisite(
            "the task keeps no history to look in".into(),
        ));
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

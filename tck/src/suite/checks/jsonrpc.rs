//! JSON-RPC binding checks (`jsonrpc.*`, spec 1.0 §9, and the JSON-RPC 2.0 specification it
//! builds on): the envelope, ids, batches, standard error codes, error objects, and the
//! events of a JSON-RPC stream.

pub mod error_details;
use crate::suite::check::Needs;
use serde_json::{json, Value};

use super::setup::{expect_error_reply, verdict_from};
use super::JSONRPC_1_0;
use crate::exchange::judge;
use crate::exchange::transport::stream::{End, Next};
use crate::facts::a2a::{self, ErrorKind, ERROR_DOMAIN, ERROR_INFO_TYPE};
use crate::suite::check::{Capability, Check, Gate, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::{Ctx, ErrorReply, RpcReply};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "jsonrpc";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "jsonrpc.envelope.response-is-jsonrpc-2",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "9.3", statements: &["V10-D-9.3-01", "EXT-JSONRPC2-5-02", "EXT-JSONRPC2-5-03", "EXT-JSONRPC2-5-04"] },
            requirement: "Responses are JSON-RPC 2.0 objects: \"jsonrpc\":\"2.0\" and exactly one of result and error",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &["JSONRPC-FMT-001"],
            acts: &["JSONRPC-ENV-001"],
            reading: None,
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(envelope(ctx)),
        },
        Check {
            id: "jsonrpc.envelope.id-echoed",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "9.3", statements: &["V10-D-9.3-01", "EXT-JSONRPC2-5-04"] },
            requirement: "A response carries the id of its request, with the same value and JSON type",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &["JSONRPC-FMT-001"],
            acts: &["JSONRPC-ENV-001"],
            reading: None,
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(id_echoed(ctx)),
        },
        Check {
            id: "jsonrpc.envelope.content-type-json",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "9.1", statements: &["V10-D-9.1-01"] },
            requirement: "JSON-RPC responses have Content-Type application/json",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &["JSONRPC-FMT-002"],
            acts: &["JSONRPC-CT-001"],
            reading: Some(
                "§9.1 states the application/json media type without an RFC 2119 keyword, and \
                 JSON-RPC 2.0 says nothing of HTTP: the official TCK (JSONRPC-FMT-002) holds it \
                 as a MUST, but no keyword binds it, so another media type is a WARN.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(content_type(ctx)),
        },
        Check {
            id: "jsonrpc.batch.empty-array-invalid-request",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "9 (JSON-RPC 2.0 §6)", statements: &["V10-D-9-01", "V10-3.3.2-01", "EXT-JSONRPC2-5-04", "EXT-JSONRPC2-5.1-01", "EXT-JSONRPC2-6-01"] },
            requirement: "An empty batch [] is answered with one Response object: error -32600, id null",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "A2A says nothing of batches; its JSON-RPC binding is JSON-RPC 2.0, whose §6 \
                 requires a single Response object for an empty array (MUST) and whose §5 \
                 makes its id null (MUST). The code -32600 is JSON-RPC 2.0's table (no keyword): \
                 it is the appropriate error §3.3.2 requires (MUST) for a request that is not a \
                 valid Request object.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(empty_batch(ctx)),
        },
        Check {
            id: "jsonrpc.batch.answers-each-request",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "9 (JSON-RPC 2.0 §6)", statements: &["V10-D-9-02"] },
            requirement: "A batch of requests is answered with an array holding the response of each",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "JSON-RPC 2.0 §6 says the server should answer a batch with an array of the \
                 responses (in any order). Agents that refuse batches (the Python SDK answers \
                 -32600) get a WARN here, not a FAIL.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(batch_answers(ctx)),
        },
        Check {
            id: "jsonrpc.errors.parse-error",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "9.5", statements: &["V10-D-9.5-01", "V10-3.3.2-01", "EXT-JSONRPC2-5-01", "EXT-JSONRPC2-5-03", "EXT-JSONRPC2-5-04", "EXT-JSONRPC2-5.1-01"] },
            requirement: "A body that is not valid JSON gets error -32700 (parse error) with a null id",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &[],
            acts: &["JSONRPC-ERR-002"],
            reading: Some(
                "JSON-RPC 2.0 §5 binds the answer: a Response object (MUST) with an error member \
                 (REQUIRED) and a null id when the request's id could not be read (MUST). The \
                 code -32700 is JSON-RPC 2.0's table and A2A's §9.5 list (no keyword): it is the \
                 appropriate error §3.3.2 requires (MUST) for a body that is not JSON.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(parse_error(ctx)),
        },
        Check {
            id: "jsonrpc.errors.invalid-request",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "9.5", statements: &["V10-9.3-01", "V10-D-9.5-02"] },
            requirement: "A request that is not a valid JSON-RPC 2.0 request (\"jsonrpc\":\"1.0\") gets error -32600",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &[],
            acts: &["CORE-ERR-006"],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(invalid_request(ctx)),
        },
        Check {
            id: "jsonrpc.errors.method-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "9.5", statements: &["V10-3.3.2-01", "V10-D-9.5-03"] },
            requirement: "An unknown method gets error -32601 (method not found)",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &["CORE-ERR-001"],
            acts: &["JSONRPC-ERR-001"],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(method_not_found(ctx)),
        },
        Check {
            id: "jsonrpc.errors.invalid-params",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.3.2", statements: &["V10-3.3.2-08", "V10-5.7-03", "V10-13.4-05", "V10-14.1.1-02", "V10-D-9.5-04"] },
            requirement: "SendMessage without its REQUIRED message gets error -32602 (invalid params)",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &["CORE-ERR-002"],
            acts: &[],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(invalid_params(ctx)),
        },
        Check {
            id: "jsonrpc.errors.error-object-structure",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "3.3.2",
                statements: &["V10-3.3.2-16", "V10-3.3.2-17", "V10-3.3.2-19", "V10-9.5-01"],
            },
            requirement: "An error object has an integer code, a string message, and data (if any) as an array of objects each with @type",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &["JSONRPC-ERR-001", "JSONRPC-ERR-002"],
            acts: &["CORE-ERR-008", "CORE-ERR-007", "CORE-ERR-005"],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(error_structure(ctx)),
        },
        Check {
            id: "jsonrpc.errors.error-info-in-data",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "9.5", statements: &["V10-3.3.2-18", "V10-9.5-02"] },
            requirement: "A2A errors carry a google.rpc.ErrorInfo in data, with the error's reason and domain a2a-protocol.org",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &["JSONRPC-ERR-003"],
            acts: &["JSONRPC-ERR-003"],
            reading: Some(
                "ErrorInfo in JSON-RPC error.data was a MUST in 1.0.0 and is a SHOULD from 1.0.1; \
                 this check follows 1.0.1, so a missing ErrorInfo is a WARN, unless the run \
                 pins --spec-revision 1.0.0, which judges it as the MUST it was there (FAIL). \
                 Only this check asks for it: the other checks of a JSON-RPC error judge its \
                 code.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(error_info(ctx)),
        },
    ]
}

/// The JSON-RPC framing of stream events; it comes after the HTTP+JSON and gRPC checks in the
/// catalogue.
pub fn stream_checks() -> Vec<Check> {
    vec![
        Check {
            id: "jsonrpc.stream.events-are-responses",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "9.4.2", statements: &["V10-D-9.4.2-02", "V03-7-02", "V03-T-06", "EXT-JSONRPC2-5-02", "EXT-JSONRPC2-5-03", "EXT-JSONRPC2-5-04"] },
            requirement: "Each SSE event of a JSON-RPC stream is a JSON-RPC response with the request's id whose result is one stream event (1.0: one StreamResponse member; 0.3: a Task, Message, status-update or artifact-update)",
            scope: super::JSONRPC_BOTH,
            requires: &[Gate::Declares(Capability::Streaming)],
            maps_to: &["JSONRPC-SSE-001"],
            acts: &["JSONRPC-SSE-001"],
            reading: Some(
                "Each event's data is read as it came, before any other rule: a JSON object with \
                 \"jsonrpc\": \"2.0\", the request's id and exactly one of result and error \
                 (JSON-RPC 2.0 §5; 0.3 makes each SSE event carry a JSONRPCResponse, MUST). \
                 Bytes before the JSON (a record separator, a BOM) make the data no JSON \
                 text. The result is judged only as the stream event it must be: one \
                 StreamResponse member on 1.0, a 0.3 object whose kind is task, message, \
                 status-update or artifact-update on 0.3; the rest of its shape is other \
                 checks' (data-model.*, v03.*). Any stream shows it: the kit streams \
                 `tck-stream-001` where the contract gives it, else the plain message every \
                 agent is sent (the card's, for an agent that plays no contract).",
            ),
            needs: Needs::NONE.may_send(&["tck-stream-001"]),
            run: |ctx| Box::pin(jsonrpc_stream_events(ctx)),
        },
    ]
}

/// Envelope problems of one reply whose request had `id`.
fn envelope_problems(reply: &RpcReply, label: &str) -> Vec<String> {
    let Some(body) = reply.body.as_ref().and_then(Value::as_object) else {
        return vec![format!(
            "{label}: body is not a JSON object: {}",
            reply.http.body_start(200)
        )];
    };
    let mut problems = Vec::new();
    if body.get("jsonrpc") != Some(&json!("2.0")) {
        problems.push(format!("{label}: `jsonrpc` is {:?}", body.get("jsonrpc")));
    }
    if body.contains_key("result") == body.contains_key("error") {
        problems.push(format!("{label}: not exactly one of result and error"));
    }
    if !body.contains_key("id") {
        problems.push(format!("{label}: no `id` member"));
    }
    problems
}

async fn envelope(ctx: Ctx) -> Result<Verdict, HarnessError> {
    // Any successful call will do as the success sample: SendMessage, whatever it returns.
    let success = ctx
        .rpc(
            "SendMessage",
            json!({ "message": ctx.user_message("tck-complete-task") }),
        )
        .await?;
    if success
        .body
        .as_ref()
        .is_none_or(|b| b.get("result").is_none())
    {
        return Err(HarnessError::Prerequisite(format!(
            "SendMessage did not succeed, so no success envelope could be examined: {}",
            success.http.body_start(200)
        )));
    }
    let failure = ctx
        .rpc("GetTask", json!({ "id": ctx.id("tck-no-such-task") }))
        .await?;
    let mut problems = envelope_problems(&success, "SendMessage success");
    problems.extend(envelope_problems(&failure, "GetTask error"));
    Ok(verdict_from(problems, "JSON-RPC 2.0 response objects"))
}

async fn id_echoed(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut problems = Vec::new();
    for id in [json!(7), json!(ctx.id("tck-request-id"))] {
        let request = json!({"jsonrpc": "2.0", "id": id, "method": "GetTask", "params": {"id": ctx.id("tck-no-such-task")}});
        let reply = ctx
            .post_raw(request.to_string().into_bytes(), headers(&ctx))
            .await?;
        let got = reply.body.as_ref().and_then(|b| b.get("id")).cloned();
        if got.as_ref() != Some(&id) {
            problems.push(format!(
                "request id {id} answered with id {}",
                a2a::shown_json(got.as_ref())
            ));
        }
    }
    Ok(verdict_from(problems, "the request id echoed exactly"))
}

fn headers(ctx: &Ctx) -> Vec<(&'static str, String)> {
    let version = ctx.interface.as_ref().map_or("1.0", |i| i.version.as_str());
    vec![
        ("content-type", "application/json".to_string()),
        ("a2a-version", version.to_string()),
    ]
}

async fn content_type(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx
        .rpc(
            "SendMessage",
            json!({ "message": ctx.user_message("tck-complete-task") }),
        )
        .await?;
    match reply.http.media_type().as_deref() {
        Some("application/json") => Ok(Verdict::pass()),
        other => Ok(Verdict::fail(
            "Content-Type application/json",
            format!("Content-Type {}", a2a::shown(other)),
        )),
    }
}

async fn parse_error(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx
        .post_raw(
            br#"{"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"#.to_vec(),
            headers(&ctx),
        )
        .await?;
    let verdict = expect_error_reply(&reply, ErrorKind::JsonParse);
    if verdict != Verdict::pass() {
        return Ok(verdict);
    }
    match reply.body.as_ref().and_then(|b| b.get("id")) {
        Some(Value::Null) => Ok(Verdict::pass()),
        other => Ok(Verdict::fail(
            "id null on a parse error",
            format!("id {}", a2a::shown_json(other)),
        )),
    }
}

async fn empty_batch(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx.post_raw(b"[]".to_vec(), headers(&ctx)).await?;
    let expected = "one Response object with error -32600 and id null";
    Ok(match reply.body.as_ref() {
        Some(body) if body.is_object() => {
            let code = body.get("error").and_then(|e| e.get("code"));
            if code == Some(&json!(-32600)) && body.get("id") == Some(&Value::Null) {
                Verdict::pass()
            } else {
                Verdict::fail(expected, a2a::brief(body, 300))
            }
        }
        _ => Verdict::fail(
            expected,
            format!("HTTP {}: {}", reply.http.status, reply.http.body_start(200)),
        ),
    })
}

async fn batch_answers(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let ids = [ctx.id("tck-batch"), ctx.id("tck-batch")];
    let batch: Vec<Value> = ids
        .iter()
        .map(|id| {
            json!({
                "jsonrpc": "2.0",
                "id": id,
                "method": "GetTask",
                "params": { "id": ctx.id("tck-no-such-task") },
            })
        })
        .collect();
    let reply = ctx
        .post_raw(Value::Array(batch).to_string().into_bytes(), headers(&ctx))
        .await?;
    let expected = format!("an array of two responses, with ids {ids:?}");
    let Some(Value::Array(answers)) = reply.body.as_ref() else {
        return Ok(Verdict::fail(
            expected,
            format!("HTTP {}: {}", reply.http.status, reply.http.body_start(200)),
        ));
    };
    let mut answered: Vec<&str> = answers
        .iter()
        .filter_map(|a| a.get("id").and_then(Value::as_str))
        .collect();
    answered.sort_unstable();
    let mut sent: Vec<&str> = ids.iter().map(String::as_str).collect();
    sent.sort_unstable();
    Ok(if answered == sent && answers.len() == 2 {
        Verdict::pass()
    } else {
        Verdict::fail(expected, a2a::brief(&Value::Array(answers.clone()), 300))
    })
}

async fn invalid_request(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let request = json!({"jsonrpc": "1.0", "id": ctx.id("tck-request"), "method": "GetTask", "params": {"id": ctx.id("tck-no-such-task")}});
    let reply = ctx
        .post_raw(request.to_string().into_bytes(), headers(&ctx))
        .await?;
    Ok(expect_error_reply(&reply, ErrorKind::InvalidRequest))
}

async fn method_not_found(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx.request("NoSuchMethod", json!({})).await?;
    Ok(judge::expect_error(&reply, ErrorKind::MethodNotFound))
}

async fn invalid_params(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx.send(json!({})).await?;
    Ok(judge::expect_error(&reply, ErrorKind::InvalidParams))
}

/// An A2A error to inspect: GetTask of a task that does not exist.
async fn task_not_found_error(ctx: &Ctx) -> Result<Result<ErrorReply, Verdict>, HarnessError> {
    let reply = ctx
        .rpc("GetTask", json!({ "id": ctx.id("tck-no-such-task") }))
        .await?;
    let expected = "a JSON-RPC error for GetTask of an unknown task";
    Ok(match reply.reply().read {
        Ok(crate::suite::ctx::Answer::Error(e)) => Ok(e),
        Ok(other) => Err(Verdict::fail(expected, other.describe())),
        Err(_) => Err(Verdict::fail(
            expected,
            format!(
                "HTTP {} with a body that is not a JSON-RPC response: {}",
                reply.http.status,
                reply.http.body_start(200)
            ),
        )),
    })
}

async fn error_structure(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let error = match task_not_found_error(&ctx).await? {
        Ok(e) => e,
        Err(v) => return Ok(v),
    };
    let mut problems = Vec::new();
    if !error.raw.get("code").is_some_and(|c| c.is_i64()) {
        problems.push(format!("`code` is {:?}", error.raw.get("code")));
    }
    if !error.raw.get("message").is_some_and(Value::is_string) {
        problems.push(format!("`message` is {:?}", error.raw.get("message")));
    }
    match error.raw.get("data") {
        None => {}
        Some(Value::Array(items)) => {
            for (i, item) in items.iter().enumerate() {
                if !item.get("@type").is_some_and(Value::is_string) {
                    problems.push(format!(
                        "data[{i}] has no string @type: {}",
                        a2a::brief(item, 120)
                    ));
                }
            }
        }
        Some(other) => problems.push(format!(
            "`data` is not an array: {}",
            a2a::brief(other, 120)
        )),
    }
    Ok(verdict_from(
        problems,
        "code, message and a data array of @type objects",
    ))
}

async fn error_info(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let error = match task_not_found_error(&ctx).await? {
        Ok(e) => e,
        Err(v) => return Ok(v),
    };
    crate::facts::revision::note(crate::facts::revision::Sentence::JsonRpcErrorInfo);
    let reason = ErrorKind::TaskNotFound.reason().unwrap_or_default();
    let found = error
        .raw
        .get("data")
        .and_then(Value::as_array)
        .is_some_and(|items| {
            items.iter().any(|item| {
                item.get("@type") == Some(&json!(ERROR_INFO_TYPE))
                    && item.get("reason") == Some(&json!(reason))
                    && item.get("domain") == Some(&json!(ERROR_DOMAIN))
            })
        });
    if found {
        Ok(Verdict::pass())
    } else {
        Ok(Verdict::fail(
            format!("error.data with an ErrorInfo reason {reason} domain {ERROR_DOMAIN}"),
            format!("error {}", a2a::brief(&error.raw, 300)),
        ))
    }
}

/// The 0.3 stream events, by their `kind`.
const V03_EVENT_KINDS: &[&str] = &["task", "message", "status-update", "artifact-update"];

/// Why one event of a JSON-RPC stream is not a JSON-RPC 2.0 response to the request with id
/// `request_id` whose result is one stream event of `version`, if it is not. Judged on the
/// data as received, never on what the kit read back from it.
fn event_envelope_problem(
    event: &crate::exchange::transport::stream::Event,
    request_id: Option<&str>,
    version: crate::suite::check::ProtocolVersion,
) -> Option<String> {
    let Some(body) = event.raw.as_object() else {
        return Some(match &event.raw {
            Value::String(text) => format!(
                "the event data is not a JSON text: {}",
                a2a::brief(&Value::String(text.clone()), 120)
            ),
            other => format!(
                "the event data is not a JSON object: {}",
                a2a::brief(other, 120)
            ),
        });
    };
    let mut problems = Vec::new();
    if body.get("jsonrpc") != Some(&json!("2.0")) {
        problems.push(format!(
            "`jsonrpc` is {}",
            a2a::shown_json(body.get("jsonrpc"))
        ));
    }
    if let Some(expected) = request_id {
        if body.get("id").and_then(Value::as_str) != Some(expected) {
            problems.push(format!(
                "id {} is not the request's {expected:?}",
                a2a::shown_json(body.get("id"))
            ));
        }
    }
    if body.contains_key("result") == body.contains_key("error") {
        problems.push("not exactly one of result and error".into());
    } else if let Some(result) = body.get("result") {
        let one_event = match version {
            crate::suite::check::ProtocolVersion::V1_0 => event.kind().is_some(),
            crate::suite::check::ProtocolVersion::V0_3 => (result.get("kind"))
                .and_then(Value::as_str)
                .is_some_and(|kind| V03_EVENT_KINDS.contains(&kind)),
        };
        if !one_event {
            problems.push(match version {
                crate::suite::check::ProtocolVersion::V1_0 => {
                    "the result is not one StreamResponse member".to_string()
                }
                crate::suite::check::ProtocolVersion::V0_3 => format!(
                    "the result is not a 0.3 stream event (kind {}, not one of {V03_EVENT_KINDS:?})",
                    a2a::shown_json(result.get("kind"))
                ),
            });
        }
    }
    (!problems.is_empty()).then(|| problems.join("; "))
}

async fn jsonrpc_stream_events(ctx: Ctx) -> Result<Verdict, HarnessError> {
    // Any stream shows the envelope: the scenario of a stream where the contract gives it,
    // else the plain message (an agent that plays no contract streams its answer all the same).
    let scenario = if ctx.scenarios().honours("tck-stream-001") {
        "tck-stream-001"
    } else {
        crate::suite::contract::PLAIN
    };
    let message = ctx.user_message(scenario);
    let mut stream = ctx.open_send_stream(json!({ "message": message })).await?;
    let wait = ctx.stream_wait();
    let version = ctx.version();
    let request_id = stream.request_id().map(str::to_string);
    let expected = "every event a JSON-RPC 2.0 response with the request id and one stream event as its result";
    let mut seen = 0;
    loop {
        match stream.next(wait).await {
            Next::Event(event) => {
                seen += 1;
                if let Some(problem) =
                    event_envelope_problem(&event, request_id.as_deref(), version)
                {
                    return Ok(Verdict::fail(
                        expected,
                        format!("event {seen}: {problem}: {}", a2a::brief(&event.raw, 200)),
                    ));
                }
            }
            Next::End(End::Closed) if seen > 0 => {
                return Ok(Verdict::pass_with(format!("{seen} events")))
            }
            // How the stream ends is the streaming.* checks' rule, not this one's.
            Next::End(end) if seen > 0 => {
                return Ok(Verdict::pass_with(format!(
                    "{seen} events; then {}",
                    end.describe()
                )))
            }
            Next::End(end) => {
                return Err(HarnessError::Prerequisite(format!(
                    "the stream sent no event: {}",
                    end.describe()
                )))
            }
        }
    }
}

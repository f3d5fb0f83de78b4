//! Protocol 0.3 wire rules (`v03.*`, 0.3 spec §3.2, §5.6, §6.11, §7): the JSON-RPC 2.0
//! envelope, malformed requests, the HTTP+JSON media type and error status, the stream media
//! type. The 0.3 card's transport declarations are in `v03_card`, the shapes of 0.3 answers
//! in `v03`.
//! Requests here go out as raw bytes without `A2A-Version` (an absent header means 0.3).

use crate::suite::check::Needs;
use serde_json::{json, Value};

use crate::exchange::transport::answer::RpcReply;
use crate::exchange::transport::v03::Form;
use crate::exchange::wire::{HttpReply, Request};
use crate::facts::a2a;
use crate::suite::check::{
    Binding, Check, HarnessError, Level, ProtocolVersion, Scope, SpecRef, Verdict,
};
use crate::suite::checks::setup::{message_03, task_id, verdict_from, Setup};
use crate::suite::checks::{JSONRPC_0_3, JSON_0_3, STREAMING};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "v03";

/// Rules of the HTTP+JSON binding of 0.3.
const REST_0_3: Scope = Scope::Interface {
    bindings: &[Binding::Rest],
    versions: &[ProtocolVersion::V0_3],
};

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "v03.jsonrpc.envelope",
            level: Level::Must,
            spec: SpecRef {
                version: "0.3",
                section: "6.11",
                statements: &["V03-3.2.1-02", "V03-3.2.1-04", "V03-6.11.1-05", "V03-6.11.2-01", "V03-6.11.2-02", "V03-6.11.2-03", "V03-6.11.2-05", "V03-6.11.2-06", "V03-6.11.2-07", "V03-6.11.2-08", "V03-6.11.2-09", "V03-6.11.2-10", "V03-7-02", "V03-11.1.5-01", "V03-T-06", "V03-T-07"],
            },
            requirement: "0.3 JSON-RPC answers are JSON-RPC 2.0 responses with Content-Type application/json: \"jsonrpc\":\"2.0\", the request's id, and exactly one of result and a {code, message} error",
            scope: JSONRPC_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Judges unary answers. The events of a 0.3 SSE stream, each of which must \
                 carry a JSONRPCResponse too (V03-7-02), are judged by \
                 jsonrpc.stream.events-are-responses, which runs on 0.3 and 1.0.",
            ),
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(envelope(ctx)),
        },
        Check {
            id: "v03.jsonrpc.malformed-requests",
            level: Level::Must,
            spec: SpecRef {
                version: "0.3",
                section: "6.11.2",
                statements: &["V03-3.2.1-03", "V03-6.11.1-01", "V03-6.11.2-04", "V03-10.2-03"],
            },
            requirement: "0.3 JSON-RPC: a body that is not JSON gets -32700 with id null; a request whose jsonrpc is not \"2.0\" gets -32600",
            scope: JSONRPC_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "The codes are those of JSON-RPC 2.0, which the 0.3 binding adopts (§6.11, \
                 §8.1); a parse error cannot name the request, so its id is null.",
            ),
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(malformed(ctx)),
        },
        Check {
            id: "v03.rest.content-type-json",
            level: Level::Must,
            spec: SpecRef { version: "0.3", section: "3.2.3", statements: &["V03-3.2.3-02", "V03-3.2.3-05", "V03-3.2.3-07"] },
            requirement: "0.3 HTTP+JSON answers GetTask with a JSON object body and a JSON media type",
            scope: REST_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "0.3 names application/json. application/a2a+json (what 1.0.1 asks) is a JSON \
                 media type too, and an agent serving both versions may send it; it is accepted.",
            ),
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(rest_content_type(ctx)),
        },
        Check {
            id: "v03.rest.error-status-4xx",
            level: Level::Must,
            spec: SpecRef { version: "0.3", section: "3.2.3", statements: &["V03-3.2.3-06", "V03-3.2.3-09"] },
            requirement: "0.3 HTTP+JSON answers GetTask of an unknown id with an HTTP 4xx status and a JSON error body",
            scope: REST_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "0.3 fixes neither the status table nor the error body of HTTP+JSON (spec notes \
                 §2.4): 404 is usual, any client-error status is accepted, and the body only \
                 has to be a JSON object.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(rest_error_status(ctx)),
        },
        Check {
            id: "v03.stream.sse-content-type",
            level: Level::Must,
            spec: SpecRef { version: "0.3", section: "3.3.3", statements: &["V03-3.3.3-01"] },
            requirement: "0.3 streams on JSON-RPC and HTTP+JSON are Server-Sent Events: HTTP 200 with Content-Type text/event-stream",
            scope: JSON_0_3,
            requires: STREAMING,
            maps_to: &[],
            acts: &[],
            reading: None,
            needs: Needs::NONE.sends(&["tck-stream-001"]),
            run: |ctx| Box::pin(sse_content_type(ctx)),
        },
    ]
}

/// The headers of a raw 0.3 JSON-RPC request: JSON, no `A2A-Version`.
fn json_headers() -> Vec<(&'static str, String)> {
    vec![("content-type", "application/json".to_string())]
}

/// A 0.3 `message/send` request with `id`.
fn send_request(ctx: &Ctx, id: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": "message/send",
        "params": {"message": message_03(ctx, "tck-complete-task", Form::JsonRpc)},
    })
}

/// What is wrong with one 0.3 JSON-RPC response to a request with `id`.
fn envelope_problems(reply: &RpcReply, id: &Value, want_error: bool, label: &str) -> Vec<String> {
    let mut problems = Vec::new();
    let media = reply.http.media_type();
    if media.as_deref() != Some("application/json") {
        problems.push(format!(
            "{label}: Content-Type {}",
            a2a::shown(media.as_deref())
        ));
    }
    let Some(body) = reply.body.as_ref().and_then(Value::as_object) else {
        problems.push(format!(
            "{label}: body is not a JSON object: {}",
            reply.http.body_start(200)
        ));
        return problems;
    };
    if body.get("jsonrpc") != Some(&json!("2.0")) {
        problems.push(format!(
            "{label}: `jsonrpc` is {}",
            a2a::shown_json(body.get("jsonrpc"))
        ));
    }
    if body.get("id") != Some(id) {
        problems.push(format!(
            "{label}: id {} answered with id {}",
            id,
            a2a::shown_json(body.get("id"))
        ));
    }
    match (body.contains_key("result"), body.get("error")) {
        (true, Some(_)) => problems.push(format!("{label}: both result and error")),
        (false, None) => problems.push(format!("{label}: neither result nor error")),
        (true, None) if want_error => problems.push(format!("{label}: a result, not an error")),
        (false, Some(_)) if !want_error => problems.push(format!(
            "{label}: an error: {}",
            a2a::brief(&Value::Object(body.clone()), 200)
        )),
        (false, Some(error)) => {
            if !error.get("code").is_some_and(Value::is_i64) {
                problems.push(format!("{label}: error.code is not an integer"));
            }
            if !error.get("message").is_some_and(Value::is_string) {
                problems.push(format!("{label}: error.message is not a string"));
            }
        }
        (true, None) => {}
    }
    problems
}

async fn envelope(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let success_id = json!(7);
    let success = ctx
        .post_raw(
            send_request(&ctx, success_id.clone())
                .to_string()
                .into_bytes(),
            json_headers(),
        )
        .await?;
    // A refused message/send leaves no success envelope to judge (the 1.0 check does the same).
    if success
        .body
        .as_ref()
        .is_some_and(|b| b.get("error").is_some() && b.get("result").is_none())
    {
        return Err(HarnessError::Prerequisite(format!(
            "message/send did not succeed, so no success envelope could be examined: {}",
            success.http.body_start(200)
        )));
    }
    let error_id = json!(ctx.id("tck-request-id"));
    let missing = json!({"jsonrpc": "2.0", "id": error_id, "method": "tasks/get",
        "params": {"id": ctx.id("tck-no-such-task")}});
    let failure = ctx
        .post_raw(missing.to_string().into_bytes(), json_headers())
        .await?;
    let mut problems = envelope_problems(&success, &success_id, false, "message/send");
    problems.extend(envelope_problems(
        &failure,
        &error_id,
        true,
        "tasks/get of an unknown id",
    ));
    Ok(verdict_from(
        problems,
        "JSON-RPC 2.0 responses in application/json, id echoed",
    ))
}

/// The error code and id of a raw reply, or what is wrong with it.
fn error_code(reply: &RpcReply) -> (Option<i64>, Option<Value>) {
    let body = reply.body.as_ref();
    let code = body
        .and_then(|b| b.get("error"))
        .and_then(|e| e.get("code"))
        .and_then(Value::as_i64);
    (code, body.and_then(|b| b.get("id")).cloned())
}

async fn malformed(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut problems = Vec::new();
    let parse = ctx
        .post_raw(
            br#"{"jsonrpc": "2.0", "id": 1, "method": "tasks/get", "params": {"#.to_vec(),
            json_headers(),
        )
        .await?;
    match error_code(&parse) {
        (Some(-32700), Some(Value::Null)) => {}
        _ => problems.push(format!(
            "a body that is not JSON got {}",
            parse.http.body_start(200)
        )),
    }
    let request = json!({"jsonrpc": "1.0", "id": 2, "method": "tasks/get",
        "params": {"id": ctx.id("tck-no-such-task")}});
    let invalid = ctx
        .post_raw(request.to_string().into_bytes(), json_headers())
        .await?;
    if error_code(&invalid).0 != Some(-32600) {
        problems.push(format!(
            "a request with \"jsonrpc\": \"1.0\" got {}",
            invalid.http.body_start(200)
        ));
    }
    Ok(verdict_from(
        problems,
        "-32700 with id null for a body that is not JSON; -32600 for jsonrpc \"1.0\"",
    ))
}

/// GET `{url}/v1/tasks/{id}` on the 0.3 HTTP+JSON interface.
async fn rest_get(ctx: &Ctx, id: &str) -> Result<(String, HttpReply), HarnessError> {
    let base = ctx
        .interface
        .as_ref()
        .map(|i| i.url.clone())
        .unwrap_or_default();
    let url = format!("{}/v1/tasks/{}", base.trim_end_matches('/'), encode(id));
    let reply = ctx
        .wire
        .send(Request {
            method: reqwest::Method::GET,
            url: &url,
            headers: vec![("accept", "application/json".to_string())],
            body: None,
        })
        .await?;
    Ok((url, reply))
}

/// Percent-encodes a path segment or query value (RFC 3986 unreserved characters kept).
pub(crate) fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn rest_content_type(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx.create_task("tck-complete-task").await?;
    let (url, http) = rest_get(&ctx, &task_id(&task)).await?;
    let media = http.media_type();
    let json_type = matches!(
        media.as_deref(),
        Some("application/json" | "application/a2a+json")
    );
    Ok(match (http.status, json_type, http.json()) {
        (200, true, Some(Value::Object(_))) => Verdict::pass(),
        _ => Verdict::fail(
            "HTTP 200, Content-Type application/json and a JSON object body",
            format!(
                "GET {url}: HTTP {}, Content-Type {}: {}",
                http.status,
                a2a::shown(media.as_deref()),
                http.body_start(160)
            ),
        ),
    })
}

async fn rest_error_status(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (url, http) = rest_get(&ctx, &ctx.id("tck-no-such-task")).await?;
    Ok(match (http.status, http.json()) {
        (400..=499, Some(Value::Object(_))) => Verdict::pass_with(format!("HTTP {}", http.status)),
        _ => Verdict::fail(
            "an HTTP 4xx status (404 usual) with a JSON object body",
            format!("GET {url}: HTTP {}: {}", http.status, http.body_start(160)),
        ),
    })
}

async fn sse_content_type(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let interface = ctx
        .interface
        .clone()
        .ok_or_else(|| HarnessError::Internal("no interface".into()))?;
    let (url, body) = match interface.binding {
        Binding::Rest => (
            format!("{}/v1/message:stream", interface.url.trim_end_matches('/')),
            json!({"message": message_03(&ctx, "tck-stream-001", Form::Proto)}),
        ),
        _ => (
            interface.url.clone(),
            json!({"jsonrpc": "2.0", "id": 1, "method": "message/stream", "params": {
                "message": message_03(&ctx, "tck-stream-001", Form::JsonRpc)}}),
        ),
    };
    let http = ctx
        .wire
        .send(Request {
            method: reqwest::Method::POST,
            url: &url,
            headers: vec![
                ("content-type", "application/json".to_string()),
                ("accept", "text/event-stream".to_string()),
            ],
            body: Some(body.to_string().into_bytes()),
        })
        .await?;
    let media = http.media_type();
    Ok(match (http.status, media.as_deref()) {
        (200, Some("text/event-stream")) => Verdict::pass(),
        _ => Verdict::fail(
            "HTTP 200 with Content-Type text/event-stream",
            format!(
                "POST {url}: HTTP {}, Content-Type {}: {}",
                http.status,
                a2a::shown(media.as_deref()),
                http.body_start(120)
            ),
        ),
    })
}

//! Rules of the HTTP+JSON/REST and gRPC bindings (spec 1.0 §10, §11), the SSE framing of
//! streams (§9.4.2, §11.7), and the equivalence of every binding an agent declares (§5.1).

use serde_json::{json, Value};

use super::{GRPC_1_0, JSON_1_0, REST_1_0};
use crate::a2a::{self, ErrorKind, ERROR_DOMAIN, ERROR_INFO_TYPE};
use crate::check::{Capability, Check, Gate, HarnessError, Level, Scope, SpecRef, Verdict};
use crate::ctx::{task_id, Answer, Ctx};
use crate::transport::stream::{End, Next, Start};
use crate::transport::{rest, ErrorReply};
use crate::wire::{HttpReply, Request};

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "rest.content-type-a2a-json",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "11.1", statements: &["V10-11.1-01"] },
            requirement: "REST responses use Content-Type application/a2a+json",
            scope: REST_1_0,
            requires: &[],
            maps_to: &[],
            reading: Some(
                "1.0.0 named application/json; 1.0.1 asks for application/a2a+json (spec notes \
                 §1.17 #4). application/json is a valid JSON answer (see rest.content-type-json) \
                 and only this SHOULD warns about it.",
            ),
            run: |ctx| Box::pin(content_type_a2a(ctx)),
        },
        Check {
            id: "rest.content-type-json",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "11.1", statements: &["V10-D-11.1-01"] },
            requirement: "REST responses are ProtoJSON with a JSON media type (application/a2a+json or application/json)",
            scope: REST_1_0,
            requires: &[],
            maps_to: &[],
            reading: None,
            run: |ctx| Box::pin(content_type_json(ctx)),
        },
        Check {
            id: "rest.success-status-200",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "11.3", statements: &["V10-D-11.3-01"] },
            requirement: "A successful REST call answers HTTP 200 with the response message as its body",
            scope: REST_1_0,
            requires: &[],
            maps_to: &["HTTP_JSON-STATUS-001"],
            reading: Some(
                "The HTTP+JSON routes are the proto's google.api.http annotations, whose success \
                 status is 200 with the response message as the body.",
            ),
            run: |ctx| Box::pin(success_200(ctx)),
        },
        Check {
            id: "rest.errors.google-rpc-status",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "11.6", statements: &["V10-11.6-01", "V10-11.6-04", "V10-5.4-01"] },
            requirement: "A REST error is a google.rpc.Status in \"error\" (code = HTTP status, status name, message, @type'd details) with ErrorInfo reason and domain",
            scope: REST_1_0,
            requires: &[],
            maps_to: &["HTTP_JSON-STATUS-001"],
            reading: Some(
                "§6.4/§6.5 still show RFC 9457 problem details; §11.6 and the 1.0 change notes \
                 make google.rpc.Status the REST error format (spec notes §1.17 #2). This check \
                 follows §11.6.",
            ),
            run: |ctx| Box::pin(rest_error_body(ctx)),
        },
        Check {
            id: "grpc.errors.status-and-error-info",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "10.6", statements: &["V10-10.6-01", "V10-5.4-01"] },
            requirement: "A gRPC A2A error has the mapped status code and an ErrorInfo (reason, domain) in grpc-status-details-bin",
            scope: GRPC_1_0,
            requires: &[],
            maps_to: &["GRPC-ERR-002"],
            reading: None,
            run: |ctx| Box::pin(grpc_error(ctx)),
        },
        Check {
            id: "streaming.sse-content-type",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "9.4.2", statements: &["V10-D-9.4.2-01"] },
            requirement: "Streams on JSON-RPC and REST are Server-Sent Events: HTTP 200 with Content-Type text/event-stream",
            scope: JSON_1_0,
            requires: &[Gate::Declares(Capability::Streaming)],
            maps_to: &["JSONRPC-SSE-001", "HTTP_JSON-SSE-001"],
            reading: None,
            run: |ctx| Box::pin(sse_content_type(ctx)),
        },
        Check {
            id: "jsonrpc.stream.events-are-responses",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "9.4.2", statements: &["V10-D-9.4.2-02"] },
            requirement: "Each SSE event of a JSON-RPC stream is a JSON-RPC response with the request's id whose result is one StreamResponse",
            scope: super::JSONRPC_1_0,
            requires: &[Gate::Declares(Capability::Streaming)],
            maps_to: &["JSONRPC-SSE-001"],
            reading: None,
            run: |ctx| Box::pin(jsonrpc_stream_events(ctx)),
        },
        Check {
            id: "bindings.task-readable-on-every-binding",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "5.1", statements: &["V10-5.1-01", "V10-4-01"] },
            requirement: "A task created over one binding reads the same (id, state, artifacts) over every other binding the card declares",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            reading: Some(
                "The task is created on the first declared interface of each version and read \
                 with GetTask on every other; an agent with one interface has nothing to compare \
                 (N/A).",
            ),
            run: |ctx| Box::pin(equivalent_bindings(ctx)),
        },
    ]
}

/// A plain successful REST exchange: GetTask of a task just created.
async fn rest_get(ctx: &Ctx) -> Result<HttpReply, HarnessError> {
    let task = ctx.create_task("tck-complete-task").await?;
    let interface = ctx
        .interface
        .as_ref()
        .ok_or_else(|| HarnessError::Internal("no interface".into()))?;
    let params = ctx.with_tenant(json!({ "id": task_id(&task) }))?;
    let route = rest::route(&interface.url, "GetTask", &params)?;
    ctx.wire
        .send(Request {
            method: route.method,
            url: &route.url,
            headers: vec![
                ("accept", rest::ACCEPT.to_string()),
                ("a2a-version", interface.version.as_str().to_string()),
            ],
            body: None,
        })
        .await
}

async fn content_type_a2a(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let http = rest_get(&ctx).await?;
    Ok(match http.media_type().as_deref() {
        Some("application/a2a+json") => Verdict::pass(),
        other => Verdict::fail(
            "Content-Type application/a2a+json",
            format!("Content-Type {}", a2a::shown(other)),
        ),
    })
}

async fn content_type_json(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let http = rest_get(&ctx).await?;
    let media = http.media_type();
    let json_type = matches!(
        media.as_deref(),
        Some("application/a2a+json" | "application/json")
    );
    Ok(match (json_type, http.json().is_some()) {
        (true, true) => Verdict::pass(),
        _ => Verdict::fail(
            "a JSON body with Content-Type application/a2a+json or application/json",
            format!(
                "HTTP {}, Content-Type {}: {}",
                http.status,
                a2a::shown(media.as_deref()),
                http.body_start(120)
            ),
        ),
    })
}

async fn success_200(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let message = ctx.user_message("tck-complete-task");
    let interface = ctx
        .interface
        .as_ref()
        .ok_or_else(|| HarnessError::Internal("no interface".into()))?;
    let params = ctx.with_tenant(json!({ "message": message }))?;
    let route = rest::route(&interface.url, "SendMessage", &params)?;
    let http = ctx
        .wire
        .send(Request {
            method: route.method,
            url: &route.url,
            headers: vec![
                ("accept", rest::ACCEPT.to_string()),
                ("content-type", rest::REQUEST_CONTENT_TYPE.to_string()),
                ("a2a-version", interface.version.as_str().to_string()),
            ],
            body: route.body.map(|b| b.to_string().into_bytes()),
        })
        .await?;
    let read = rest::read(&http);
    Ok(match (http.status, &read.read) {
        (200, Ok(Answer::Result(_))) => Verdict::pass(),
        _ => Verdict::fail(
            "HTTP 200 with the SendMessageResponse",
            format!("HTTP {}: {}", http.status, http.body_start(200)),
        ),
    })
}

/// GetTask of a task that does not exist: the error to inspect.
async fn not_found(ctx: &Ctx) -> Result<Result<ErrorReply, Verdict>, HarnessError> {
    let reply = ctx
        .request("GetTask", json!({ "id": ctx.id("tck-no-such-task") }))
        .await?;
    let expected = ctx.error_form(ErrorKind::TaskNotFound);
    Ok(match reply.read {
        Ok(Answer::Error(e)) => Ok(e),
        Ok(other) => Err(Verdict::fail(expected, other.describe())),
        Err(unreadable) => Err(Verdict::fail(expected, unreadable)),
    })
}

async fn rest_error_body(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let error = match not_found(&ctx).await? {
        Ok(e) => e,
        Err(v) => return Ok(v),
    };
    let mut problems = Vec::new();
    if error.http_status != Some(404) {
        problems.push(format!(
            "HTTP {} (404 for TaskNotFoundError)",
            error.http_status.unwrap_or(0)
        ));
    }
    if let Some(problem) = &error.shape_problem {
        problems.push(problem.clone());
    }
    let body = error.raw.get("error");
    if let Some(body) = body {
        if body.get("status").and_then(Value::as_str) != Some("NOT_FOUND") {
            problems.push(format!(
                "error.status is {} (NOT_FOUND for HTTP 404)",
                a2a::shown_json(body.get("status"))
            ));
        }
        if !body.get("message").is_some_and(Value::is_string) {
            problems.push("error.message is not a string".into());
        }
    }
    match &error.error_info {
        Some(info) if info.reason == "TASK_NOT_FOUND" && info.domain == ERROR_DOMAIN => {}
        other => problems.push(format!(
            "no {ERROR_INFO_TYPE} with reason TASK_NOT_FOUND and domain {ERROR_DOMAIN} (found {other:?})"
        )),
    }
    Ok(if problems.is_empty() {
        Verdict::pass()
    } else {
        Verdict::fail(
            "{\"error\": {code: 404, status: \"NOT_FOUND\", message, details: [ErrorInfo TASK_NOT_FOUND]}}",
            format!("{}: {error}", problems.join("; ")),
        )
    })
}

async fn grpc_error(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let error = match not_found(&ctx).await? {
        Ok(e) => e,
        Err(v) => return Ok(v),
    };
    Ok(match error.check(ErrorKind::TaskNotFound) {
        Ok(()) => Verdict::pass(),
        Err(differs) => Verdict::fail(
            ctx.error_form(ErrorKind::TaskNotFound),
            format!("{differs}: {error}"),
        ),
    })
}

async fn sse_content_type(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let message = ctx.user_message("tck-stream-001");
    let expected = "HTTP 200 with Content-Type text/event-stream";
    Ok(
        match ctx
            .stream("SendStreamingMessage", json!({ "message": message }))
            .await?
        {
            Start::Stream(mut stream) => {
                let status = stream.http.as_ref().map_or(0, |h| h.status);
                let _ = stream.collect(ctx.stream_wait()).await;
                if status == 200 {
                    Verdict::pass()
                } else {
                    Verdict::fail(expected, format!("HTTP {status} with text/event-stream"))
                }
            }
            Start::Refused(reply) => Verdict::fail(
                expected,
                format!(
                    "HTTP {}: {}",
                    reply.http_status.unwrap_or(0),
                    match &reply.read {
                        Ok(answer) => answer.describe(),
                        Err(unreadable) => unreadable.clone(),
                    }
                ),
            ),
        },
    )
}

async fn jsonrpc_stream_events(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let message = ctx.user_message("tck-stream-001");
    let mut stream = ctx
        .open_stream("SendStreamingMessage", json!({ "message": message }))
        .await?;
    let wait = ctx.stream_wait();
    let mut seen = 0;
    loop {
        match stream.next(wait).await {
            Next::Event(event) => {
                seen += 1;
                let problem = event.problem.clone().or_else(|| {
                    event
                        .kind()
                        .is_none()
                        .then(|| "the result is not one StreamResponse member".to_string())
                });
                if let Some(problem) = problem {
                    return Ok(Verdict::fail(
                        "every event a JSON-RPC 2.0 response with the request id and a StreamResponse result",
                        format!("event {seen}: {problem}: {}", a2a::brief(&event.raw, 200)),
                    ));
                }
            }
            Next::End(End::Closed) if seen > 0 => {
                return Ok(Verdict::pass_with(format!("{seen} events")))
            }
            Next::End(end) if seen > 0 => return Ok(Verdict::fail(
                "every event a JSON-RPC 2.0 response with the request id, then the stream closes",
                format!("after {seen} event(s): {}", end.describe()),
            )),
            Next::End(end) => {
                return Err(HarnessError::Prerequisite(format!(
                    "the stream sent no event: {}",
                    end.describe()
                )))
            }
        }
    }
}

/// What two bindings must agree on about a task: id, context, state, and each artifact's id
/// and part contents (defaults, which ProtoJSON may send or omit, left out).
fn essence(task: &Value) -> Value {
    let artifacts: Vec<Value> = a2a::items(task, "artifacts")
        .map(|a| {
            let parts: Vec<Value> = a2a::items(a, "parts")
                .map(|p| {
                    let content: serde_json::Map<String, Value> = a2a::PART_CONTENT
                        .iter()
                        .filter_map(|k| p.get(*k).map(|v| (k.to_string(), v.clone())))
                        .collect();
                    Value::Object(content)
                })
                .collect();
            json!({ "artifactId": a.get("artifactId"), "parts": parts })
        })
        .collect();
    json!({
        "id": task.get("id"),
        "contextId": task.get("contextId"),
        "state": a2a::state(task),
        "artifacts": artifacts,
    })
}

async fn equivalent_bindings(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let interfaces = ctx.interfaces().to_vec();
    let mut problems = Vec::new();
    let mut compared = Vec::new();
    // Each version on its own: the first interface of the version makes the task.
    let mut firsts: Vec<&crate::card::Interface> = Vec::new();
    for interface in &interfaces {
        if !firsts.iter().any(|f| f.version == interface.version) {
            firsts.push(interface);
        }
    }
    for first in firsts {
        let others: Vec<_> = interfaces
            .iter()
            .filter(|i| i.version == first.version && i.binding != first.binding)
            .cloned()
            .collect();
        if others.is_empty() {
            continue;
        }
        let origin = ctx.on(first.clone());
        let task = origin.create_task("tck-artifact-text").await?;
        let id = task_id(&task);
        let reference = origin.get_task(&id, None).await?;
        let Some(reference) = reference.result().cloned() else {
            return Err(HarnessError::Prerequisite(format!(
                "GetTask on {} {} of the task it created failed: {}",
                first.binding,
                first.version,
                reference.describe()
            )));
        };
        for other in others {
            let answer = ctx.on(other.clone()).get_task(&id, None).await?;
            compared.push(format!("{} {}", other.binding, other.version));
            match answer.result() {
                Some(t) if essence(t) == essence(&reference) => {}
                Some(t) => problems.push(format!(
                    "{} {}: {} where {} gave {}",
                    other.binding,
                    other.version,
                    a2a::brief(&essence(t), 200),
                    first.binding,
                    a2a::brief(&essence(&reference), 200)
                )),
                None => problems.push(format!(
                    "{} {}: {}",
                    other.binding,
                    other.version,
                    answer.describe()
                )),
            }
        }
    }
    if compared.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: "one binding per version is tested: nothing to compare".into(),
        });
    }
    Ok(if problems.is_empty() {
        Verdict::pass_with(format!("tasks read alike on {}", compared.join(", ")))
    } else {
        Verdict::fail(
            "each task with the same id, context, state and artifacts on every binding of its version",
            problems.join("; "),
        )
    })
}

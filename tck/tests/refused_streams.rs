//! Refused streams mean the same on every binding: an error before the first event, however
//! the binding sends it, is a refusal. A check that needed the stream open reports UNTESTABLE
//! (its setup failed, never a false FAIL); a check about the refusal judges the error.
//!
//! Each target refuses every SubscribeToTask with TaskNotFoundError, in one of the binding's
//! ways: JSON-RPC as an HTTP answer or as the first SSE event; HTTP+JSON as an HTTP error or
//! as a first `event: error`; gRPC as a trailers-only status or as response headers followed
//! by a status with no message. Scripted servers on 127.0.0.1: wiremock for the JSON
//! bindings, the project's `a2a_proto::server::router` for gRPC.

use crate::support;

use std::sync::Arc;

use a2a_proto::server::{Backend, BackendError};
use a2a_tck::reporting::report::Report;
use a2a_tck::suite::check::Status;
use futures::stream::BoxStream;
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::task::JoinHandle;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, Request, Respond, ResponseTemplate};

const CARD_PATH: &str = "/.well-known/agent-card.json";

/// A check that needs the subscription open, and one about the refusal.
const NEEDS_STREAM: &str = "subscribe.first-event-is-current-task";
const ABOUT_REFUSAL: &str = "subscribe.unknown-task-not-found";

/// How the target refuses a stream.
#[derive(Clone, Copy)]
enum Refusal {
    /// The error is the whole answer (an HTTP answer; a trailers-only gRPC status).
    Answer,
    /// A stream starts and its first item is the error (an SSE event; a gRPC status after
    /// the response headers, with no message before it).
    FirstEvent,
}

/// A card declaring streaming and the one interface `interface`.
fn card(interface: Value) -> Value {
    json!({
        "name": "refuser", "description": "an agent that refuses every subscription",
        "version": "1", "supportedInterfaces": [interface],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "echo", "description": "echoes", "tags": ["echo"]}]
    })
}

/// The task every SendMessage makes: open (waiting for input, as the official scenario
/// `tck-input-required` leaves it), so a subscription to it is in order.
fn task() -> Value {
    json!({"task": {"id": "t1", "contextId": "c1", "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}})
}

/// Runs both checks and requires: UNTESTABLE (with the refusal as evidence) where the stream
/// was needed, PASS where the refusal is judged.
async fn assert_refusal_read(card_url: &str) {
    let select = format!("{{{NEEDS_STREAM},{ABOUT_REFUSAL}}}");
    let report = support::run(card_url, card_url, &select).await;
    let result = |id: &str| {
        let results = support::results_of(&report, id);
        assert_eq!(results.len(), 1, "{}", explain(&report));
        results[0].clone()
    };
    let needs = result(NEEDS_STREAM);
    assert_eq!(needs.status, Status::Untestable, "{}", explain(&report));
    assert!(
        needs.message.contains("did not start a stream"),
        "{}",
        explain(&report)
    );
    assert!(!needs.evidence.is_empty(), "the refusal is in the evidence");
    assert_eq!(
        result(ABOUT_REFUSAL).status,
        Status::Pass,
        "{}",
        explain(&report)
    );
}

fn explain(report: &Report) -> String {
    support::explain(&report.results.iter().collect::<Vec<_>>())
}

// --- JSON-RPC ---

struct JsonRpcAgent(Refusal);

impl Respond for JsonRpcAgent {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let body: Value = serde_json::from_slice(&request.body).unwrap_or_default();
        let answer =
            |key: &str, value: Value| json!({"jsonrpc": "2.0", "id": body["id"], key: value});
        let not_found = answer(
            "error",
            json!({"code": -32001, "message": "Task not found"}),
        );
        match (body["method"].as_str(), self.0) {
            (Some("SendMessage"), _) => {
                ResponseTemplate::new(200).set_body_json(answer("result", task()))
            }
            (Some("SubscribeToTask"), Refusal::FirstEvent) => ResponseTemplate::new(200)
                .set_body_raw(format!("data: {not_found}\n\n"), "text/event-stream"),
            _ => ResponseTemplate::new(200).set_body_json(not_found),
        }
    }
}

async fn jsonrpc_agent(refusal: Refusal) -> MockServer {
    let server = MockServer::start().await;
    let interface = json!({"protocolBinding": "JSONRPC", "protocolVersion": "1.0",
                           "url": format!("{}/rpc", server.uri())});
    Mock::given(method("GET"))
        .and(path(CARD_PATH))
        .respond_with(ResponseTemplate::new(200).set_body_json(card(interface)))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/rpc"))
        .respond_with(JsonRpcAgent(refusal))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn jsonrpc_error_answer_is_a_refusal() {
    let server = jsonrpc_agent(Refusal::Answer).await;
    assert_refusal_read(&format!("{}{CARD_PATH}", server.uri())).await;
}

#[tokio::test]
async fn jsonrpc_error_as_first_event_is_a_refusal() {
    let server = jsonrpc_agent(Refusal::FirstEvent).await;
    assert_refusal_read(&format!("{}{CARD_PATH}", server.uri())).await;
}

// --- HTTP+JSON ---

struct RestAgent(Refusal);

impl Respond for RestAgent {
    fn respond(&self, request: &Request) -> ResponseTemplate {
        let not_found = json!({"error": {"code": 404, "status": "NOT_FOUND",
            "message": "Task not found", "details": [{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": "TASK_NOT_FOUND", "domain": "a2a-protocol.org"}]}});
        let path = request.url.path();
        if path.ends_with("/message:send") {
            return ResponseTemplate::new(200).set_body_json(task());
        }
        match (path.ends_with(":subscribe"), self.0) {
            (true, Refusal::FirstEvent) => ResponseTemplate::new(200).set_body_raw(
                format!("event: error\ndata: {not_found}\n\n"),
                "text/event-stream",
            ),
            _ => ResponseTemplate::new(404).set_body_json(not_found),
        }
    }
}

async fn rest_agent(refusal: Refusal) -> MockServer {
    let server = MockServer::start().await;
    let interface = json!({"protocolBinding": "HTTP+JSON", "protocolVersion": "1.0",
                           "url": format!("{}/rest", server.uri())});
    Mock::given(method("GET"))
        .and(path(CARD_PATH))
        .respond_with(ResponseTemplate::new(200).set_body_json(card(interface)))
        .mount(&server)
        .await;
    Mock::given(wiremock::matchers::path_regex("^/rest/"))
        .respond_with(RestAgent(refusal))
        .mount(&server)
        .await;
    server
}

#[tokio::test]
async fn rest_error_answer_is_a_refusal() {
    let server = rest_agent(Refusal::Answer).await;
    assert_refusal_read(&format!("{}{CARD_PATH}", server.uri())).await;
}

#[tokio::test]
async fn rest_error_as_first_event_is_a_refusal() {
    let server = rest_agent(Refusal::FirstEvent).await;
    assert_refusal_read(&format!("{}{CARD_PATH}", server.uri())).await;
}

// --- gRPC ---

struct GrpcAgent(Refusal);

fn not_found() -> BackendError {
    BackendError::a2a(tonic::Code::NotFound, "TASK_NOT_FOUND", "Task not found")
}

impl Backend for GrpcAgent {
    fn check_version(&self, _requested: Option<&str>) -> Result<(), BackendError> {
        Ok(())
    }

    fn call(&self, method: &str, _params: Value) -> Result<Value, BackendError> {
        match method {
            "SendMessage" => Ok(task()),
            _ => Err(not_found()),
        }
    }

    fn stream(
        &self,
        _method: &str,
        _params: Value,
    ) -> Result<BoxStream<'static, Result<Value, BackendError>>, BackendError> {
        match self.0 {
            Refusal::Answer => Err(not_found()),
            Refusal::FirstEvent => Ok(futures::stream::once(async { Err(not_found()) }).boxed()),
        }
    }
}

/// A gRPC agent (the card on the same port); it stops when dropped.
struct GrpcServer {
    card_url: String,
    task: JoinHandle<()>,
}

impl Drop for GrpcServer {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn grpc_agent(refusal: Refusal) -> GrpcServer {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let card = card(json!({"protocolBinding": "GRPC", "protocolVersion": "1.0",
                           "url": addr.to_string()}));
    let app = a2a_proto::server::router(Arc::new(GrpcAgent(refusal))).route(
        CARD_PATH,
        axum::routing::get(move || async move { axum::Json(card) }),
    );
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    GrpcServer {
        card_url: format!("http://{addr}{CARD_PATH}"),
        task,
    }
}

#[tokio::test]
async fn grpc_trailers_only_status_is_a_refusal() {
    let server = grpc_agent(Refusal::Answer).await;
    assert_refusal_read(&server.card_url).await;
}

#[tokio::test]
async fn grpc_status_after_headers_with_no_message_is_a_refusal() {
    let server = grpc_agent(Refusal::FirstEvent).await;
    assert_refusal_read(&server.card_url).await;
}

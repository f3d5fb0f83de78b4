//! Client and server of a2a-proto against each other over real sockets on
//! 127.0.0.1, with a scripted backend.

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use a2a_proto::client::{ClientError, GrpcClient, GrpcStatus, GrpcStreamEnd};
use a2a_proto::server::{router, Backend, BackendError};
use futures::stream::{self, BoxStream, StreamExt as _};
use serde_json::{json, Value};
use tonic::Code;

/// Bound on every await in these tests.
const LIMIT: Duration = Duration::from_secs(10);
/// Per-call timeout given to the client.
const CALL: Duration = Duration::from_secs(5);

async fn within<F: std::future::Future>(f: F) -> F::Output {
    tokio::time::timeout(LIMIT, f)
        .await
        .expect("test step finished within its time limit")
}

#[derive(Default)]
struct Fake {
    versions: Mutex<Vec<Option<String>>>,
}

fn task(id: &str, state: &str) -> Value {
    json!({
        "id": id,
        "contextId": "ctx-1",
        "status": {"state": state, "timestamp": "2025-01-02T03:04:05Z"},
    })
}

#[allow(clippy::result_large_err)]
impl Backend for Fake {
    fn check_version(&self, requested: Option<&str>) -> Result<(), BackendError> {
        self.versions
            .lock()
            .expect("lock")
            .push(requested.map(str::to_owned));
        match requested {
            Some("9.9") => Err(BackendError::a2a(
                Code::FailedPrecondition,
                "VERSION_NOT_SUPPORTED",
                "Version not supported",
            )),
            _ => Ok(()),
        }
    }

    fn call(&self, method: &str, params: Value) -> Result<Value, BackendError> {
        match method {
            "SendMessage" => {
                // Echo the request's parts back as an artifact.
                let parts = params["message"]["parts"].clone();
                let mut t = task("task-1", "TASK_STATE_COMPLETED");
                t["artifacts"] = json!([{"artifactId": "a-1", "parts": parts}]);
                t["metadata"] = json!({"k": [1, "x", null, {"n": true}]});
                Ok(json!({ "task": t }))
            }
            "GetTask" => match params["id"].as_str().unwrap_or_default() {
                "missing" => {
                    Err(
                        BackendError::a2a(Code::NotFound, "TASK_NOT_FOUND", "Task not found")
                            .with_metadata("taskId", "missing"),
                    )
                }
                "plain" => Err(BackendError::new(Code::Unavailable, "try later")),
                "invalid" => Err(BackendError::new(Code::InvalidArgument, "bad id")
                    .with_field_violation("id", "must not be 'invalid'")),
                "bad-result" => Ok(json!({"id": "x", "notAField": 1})),
                id => Ok(task(id, "TASK_STATE_WORKING")),
            },
            _ => Err(BackendError::new(Code::Unimplemented, method.to_owned())),
        }
    }

    fn stream(
        &self,
        method: &str,
        params: Value,
    ) -> Result<BoxStream<'static, Result<Value, BackendError>>, BackendError> {
        let status = |state: &str| {
            json!({"statusUpdate": {"taskId": "task-1", "contextId": "ctx-1",
                                    "status": {"state": state}}})
        };
        match method {
            "SendStreamingMessage" => Ok(stream::iter(vec![
                Ok(json!({"task": task("task-1", "TASK_STATE_SUBMITTED")})),
                Ok(status("TASK_STATE_WORKING")),
                Ok(status("TASK_STATE_COMPLETED")),
            ])
            .boxed()),
            "SubscribeToTask" if params["id"] == "missing" => Err(BackendError::a2a(
                Code::NotFound,
                "TASK_NOT_FOUND",
                "Task not found",
            )),
            "SubscribeToTask" => Ok(stream::iter(vec![
                Ok(status("TASK_STATE_WORKING")),
                Err(BackendError::a2a(
                    Code::Internal,
                    "INVALID_AGENT_RESPONSE",
                    "agent broke",
                )),
                Ok(status("TASK_STATE_COMPLETED")),
            ])
            .boxed()),
            _ => Err(BackendError::new(Code::Unimplemented, method.to_owned())),
        }
    }
}

async fn serve(backend: Arc<Fake>) -> SocketAddr {
    let listener = within(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("local addr");
    tokio::spawn(async move {
        let _ = axum::serve(listener, router(backend)).await;
    });
    addr
}

async fn client_for(backend: Arc<Fake>) -> GrpcClient {
    let addr = serve(backend).await;
    GrpcClient::new(&addr.to_string(), "http", Duration::from_secs(2)).expect("client")
}

fn v1() -> Vec<(String, String)> {
    vec![("a2a-version".into(), "1.0".into())]
}

fn status_of(result: Result<Result<Value, GrpcStatus>, ClientError>) -> GrpcStatus {
    match result {
        Ok(Err(s)) => s,
        other => panic!("expected a status from the server, got {other:?}"),
    }
}

#[tokio::test]
async fn unary_send_message_round_trip() {
    let client = client_for(Arc::new(Fake::default())).await;
    let request = json!({
        "message": {
            "messageId": "m-1",
            "role": "ROLE_USER",
            "parts": [
                {"text": "hello"},
                {"raw": "AAEC/w==", "filename": "b.bin", "mediaType": "application/octet-stream"},
                {"data": {"k": 1.5}},
            ],
        },
        "configuration": {"historyLength": 0},
    });
    let reply = within(client.unary("SendMessage", &request, &v1(), CALL))
        .await
        .expect("no client error")
        .expect("no status");
    assert_eq!(
        reply,
        json!({"task": {
            "id": "task-1",
            "contextId": "ctx-1",
            "status": {"state": "TASK_STATE_COMPLETED", "timestamp": "2025-01-02T03:04:05Z"},
            "artifacts": [{"artifactId": "a-1", "parts": [
                {"text": "hello"},
                {"raw": "AAEC/w==", "filename": "b.bin", "mediaType": "application/octet-stream"},
                {"data": {"k": 1.5}},
            ]}],
            "metadata": {"k": [1.0, "x", null, {"n": true}]},
        }})
    );
}

#[tokio::test]
async fn server_stream_three_events_then_ok() {
    let client = client_for(Arc::new(Fake::default())).await;
    let request =
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}});
    let mut events = within(client.server_stream("SendStreamingMessage", &request, &v1(), CALL))
        .await
        .expect("no client error")
        .expect("no status");
    let first = within(events.next()).await.expect("event").expect("some");
    assert_eq!(first["task"]["status"]["state"], "TASK_STATE_SUBMITTED");
    let second = within(events.next()).await.expect("event").expect("some");
    assert_eq!(
        second["statusUpdate"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
    let third = within(events.next()).await.expect("event").expect("some");
    assert_eq!(
        third["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    assert_eq!(within(events.next()).await.expect("clean end"), None);
    assert_eq!(within(events.next()).await.expect("still ended"), None);
}

#[tokio::test]
async fn server_stream_ends_with_error_status_after_one_event() {
    let client = client_for(Arc::new(Fake::default())).await;
    let mut events =
        within(client.server_stream("SubscribeToTask", &json!({"id": "t"}), &v1(), CALL))
            .await
            .expect("no client error")
            .expect("no status");
    let first = within(events.next()).await.expect("event").expect("some");
    assert_eq!(
        first["statusUpdate"]["status"]["state"],
        "TASK_STATE_WORKING"
    );
    match within(events.next()).await {
        Err(GrpcStreamEnd::Status(s)) => {
            assert_eq!(s.code_name(), "INTERNAL");
            assert_eq!(s.message, "agent broke");
            let info = s.error_info.expect("ErrorInfo");
            assert_eq!(info.reason, "INVALID_AGENT_RESPONSE");
        }
        other => panic!("expected an error status, got {other:?}"),
    }
}

#[tokio::test]
async fn server_stream_failing_before_any_event_is_a_status() {
    let client = client_for(Arc::new(Fake::default())).await;
    let answer =
        within(client.server_stream("SubscribeToTask", &json!({"id": "missing"}), &v1(), CALL))
            .await
            .expect("no client error");
    match answer {
        Err(s) => {
            assert_eq!((s.code, s.code_name()), (5, "NOT_FOUND"));
            assert_eq!(s.error_info.expect("ErrorInfo").reason, "TASK_NOT_FOUND");
        }
        Ok(events) => panic!("expected a status, got a stream {events:?}"),
    }
}

#[tokio::test]
async fn error_info_is_decoded() {
    let client = client_for(Arc::new(Fake::default())).await;
    let s =
        status_of(within(client.unary("GetTask", &json!({"id": "missing"}), &v1(), CALL)).await);
    assert_eq!(s.code, 5);
    assert_eq!(s.code_name(), "NOT_FOUND");
    assert_eq!(s.message, "Task not found");
    assert_eq!(s.details_error, None);
    let info = s.error_info.clone().expect("ErrorInfo");
    assert_eq!(info.reason, "TASK_NOT_FOUND");
    assert_eq!(info.domain, "a2a-protocol.org");
    assert_eq!(
        info.metadata.get("taskId").map(String::as_str),
        Some("missing")
    );
    assert_eq!(
        s.details,
        vec![json!({
            "@type": "type.googleapis.com/google.rpc.ErrorInfo",
            "reason": "TASK_NOT_FOUND",
            "domain": "a2a-protocol.org",
            "metadata": {"taskId": "missing"},
        })]
    );
}

#[tokio::test]
async fn error_without_details() {
    let client = client_for(Arc::new(Fake::default())).await;
    let s = status_of(within(client.unary("GetTask", &json!({"id": "plain"}), &v1(), CALL)).await);
    assert_eq!((s.code, s.code_name()), (14, "UNAVAILABLE"));
    assert_eq!(s.message, "try later");
    assert_eq!(s.error_info, None);
    assert!(s.details.is_empty());
    assert_eq!(s.details_error, None);
}

#[tokio::test]
async fn bad_request_details() {
    let client = client_for(Arc::new(Fake::default())).await;
    let s =
        status_of(within(client.unary("GetTask", &json!({"id": "invalid"}), &v1(), CALL)).await);
    assert_eq!(s.code_name(), "INVALID_ARGUMENT");
    assert_eq!(s.error_info, None);
    assert_eq!(
        s.details,
        vec![json!({
            "@type": "type.googleapis.com/google.rpc.BadRequest",
            "fieldViolations": [{"field": "id", "description": "must not be 'invalid'"}],
        })]
    );
}

#[tokio::test]
async fn backend_result_that_does_not_fit_is_internal() {
    let client = client_for(Arc::new(Fake::default())).await;
    let s =
        status_of(within(client.unary("GetTask", &json!({"id": "bad-result"}), &v1(), CALL)).await);
    assert_eq!(s.code_name(), "INTERNAL");
    assert!(s.message.contains("notAField"), "{}", s.message);
}

#[tokio::test]
async fn version_metadata_reaches_the_backend() {
    let fake = Arc::new(Fake::default());
    let client = client_for(fake.clone()).await;
    within(client.unary("GetTask", &json!({"id": "t"}), &v1(), CALL))
        .await
        .expect("no client error")
        .expect("no status");
    within(client.unary("GetTask", &json!({"id": "t"}), &[], CALL))
        .await
        .expect("no client error")
        .expect("no status");
    let s = status_of(
        within(client.unary(
            "GetTask",
            &json!({"id": "t"}),
            &[("A2A-Version".into(), "9.9".into())],
            CALL,
        ))
        .await,
    );
    assert_eq!(s.code_name(), "FAILED_PRECONDITION");
    assert_eq!(
        s.error_info.expect("ErrorInfo").reason,
        "VERSION_NOT_SUPPORTED"
    );
    assert_eq!(
        *fake.versions.lock().expect("lock"),
        vec![Some("1.0".to_owned()), None, Some("9.9".to_owned())]
    );
}

#[tokio::test]
async fn unknown_json_field_is_an_encode_error() {
    let client = client_for(Arc::new(Fake::default())).await;
    let err = within(client.unary("GetTask", &json!({"id": "t", "bogus": 1}), &v1(), CALL))
        .await
        .expect_err("encode error");
    match err {
        ClientError::Encode(text) => assert!(text.contains("bogus"), "{text}"),
        other => panic!("expected Encode, got {other:?}"),
    }
}

#[tokio::test]
async fn unknown_method_is_refused_before_the_call() {
    let client = GrpcClient::new("127.0.0.1:9", "http", Duration::from_secs(1)).expect("client");
    let err = within(client.unary("Nope", &json!({}), &[], CALL))
        .await
        .expect_err("unknown method");
    assert!(matches!(err, ClientError::UnknownMethod(_)), "{err:?}");
}

#[tokio::test]
async fn connection_refused_is_a_transport_error() {
    let listener = within(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    drop(listener);
    let client =
        GrpcClient::new(&addr.to_string(), "http", Duration::from_secs(2)).expect("client");
    let started = std::time::Instant::now();
    let err = within(client.unary(
        "GetTask",
        &json!({"id": "t"}),
        &v1(),
        Duration::from_secs(3),
    ))
    .await
    .expect_err("transport error");
    assert!(started.elapsed() < Duration::from_secs(3));
    match err {
        ClientError::Transport(text) => {
            assert!(text.to_lowercase().contains("refused"), "{text}")
        }
        other => panic!("expected Transport, got {other:?}"),
    }
    let err = within(client.server_stream("SubscribeToTask", &json!({"id": "t"}), &v1(), CALL))
        .await
        .expect_err("transport error");
    assert!(matches!(err, ClientError::Transport(_)), "{err:?}");
}

/// A server that accepts TCP connections and never says anything.
async fn silent_server() -> (SocketAddr, tokio::task::JoinHandle<()>) {
    let listener = within(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let task = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((sock, _)) = listener.accept().await {
            held.push(sock);
        }
    });
    (addr, task)
}

#[tokio::test]
async fn silent_server_hits_the_deadline() {
    let (addr, task) = silent_server().await;
    let client =
        GrpcClient::new(&addr.to_string(), "http", Duration::from_secs(2)).expect("client");
    let timeout = Duration::from_millis(300);
    let started = std::time::Instant::now();
    let err = within(client.unary("GetTask", &json!({"id": "t"}), &v1(), timeout))
        .await
        .expect_err("deadline");
    assert!(matches!(err, ClientError::Deadline), "{err:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    let err = within(client.server_stream("SubscribeToTask", &json!({"id": "t"}), &v1(), timeout))
        .await
        .expect_err("deadline");
    assert!(matches!(err, ClientError::Deadline), "{err:?}");
    task.abort();
}

#[tokio::test]
async fn http1_only_server_is_a_transport_error() {
    use tokio::io::AsyncWriteExt as _;
    let listener = within(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .await
        .expect("bind");
    let addr = listener.local_addr().expect("addr");
    let task = tokio::spawn(async move {
        while let Ok((mut sock, _)) = listener.accept().await {
            let _ = sock
                .write_all(
                    b"HTTP/1.1 400 Bad Request\r\ncontent-length: 0\r\nconnection: close\r\n\r\n",
                )
                .await;
        }
    });
    let client =
        GrpcClient::new(&addr.to_string(), "http", Duration::from_secs(2)).expect("client");
    let err = within(client.unary("GetTask", &json!({"id": "t"}), &v1(), CALL))
        .await
        .expect_err("transport error");
    assert!(matches!(err, ClientError::Transport(_)), "{err:?}");
    task.abort();
}

#[tokio::test]
async fn invalid_url_and_scheme() {
    assert!(matches!(
        GrpcClient::new("", "http", CALL),
        Err(ClientError::InvalidUrl(_))
    ));
    assert!(matches!(
        GrpcClient::new("ftp://host:1", "http", CALL),
        Err(ClientError::InvalidUrl(_))
    ));
    let c = GrpcClient::new("localhost:50051", "http", CALL).expect("host:port");
    assert_eq!(c.uri(), "http://localhost:50051");
    let c = GrpcClient::new("https://agent.example:443", "http", CALL).expect("full URL");
    assert_eq!(c.uri(), "https://agent.example:443");
}

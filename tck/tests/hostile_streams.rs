//! Hostile streams: a stream that never closes, one that sends a byte and goes silent, one
//! that closes before any event, an event that is not JSON, a cut stream, a stream with the
//! wrong content type, and a gRPC connection lost mid-stream. Each must end in FAIL or ERROR
//! (never PASS, never UNTESTABLE), well within the check's deadline, with the events seen so
//! far in the evidence.
//!
//! Every target is a server on 127.0.0.1 that the test starts and that stops when dropped:
//! a raw HTTP/1.1 server written by hand (so the stream can misbehave at the byte level), and
//! for gRPC the project's `a2a_proto::server::router` behind a socket that cuts the connection.

mod support;

use std::io;
use std::net::SocketAddr;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use a2a_proto::server::{Backend, BackendError};
use a2a_tck::check::Status;
use a2a_tck::report::{CheckResult, Verdict};
use futures::stream::BoxStream;
use futures::StreamExt;
use serde_json::{json, Value};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt, ReadBuf};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

/// The whole run of one check against a hostile target must end well before this.
const RUN_LIMIT: Duration = Duration::from_secs(15);

const CARD_PATH: &str = "/.well-known/agent-card.json";

/// Status line and headers of a chunked SSE response.
const SSE_CHUNKED: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                           transfer-encoding: chunked\r\nconnection: close\r\n\r\n";

/// Status line and headers of a close-delimited SSE response (no length, no chunks).
const SSE_UNTIL_CLOSE: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

/// The last chunk of a chunked body.
const LAST_CHUNK: &str = "0\r\n\r\n";

/// The bindings the raw server speaks.
#[derive(Clone, Copy)]
enum Wire {
    Jsonrpc,
    Rest,
}

/// What the hostile server does once a stream is requested, in order. When the script ends
/// the connection is closed.
#[derive(Clone)]
enum Step {
    /// These bytes as they are.
    Raw(String),
    /// One SSE event carrying this StreamResponse (in a JSON-RPC response with the request's
    /// id on JSON-RPC, bare on REST), as one HTTP chunk.
    Event(Value),
    /// These bytes one at a time, one every 100 ms, over and over, until the server is
    /// dropped: never silent for long, never a whole event.
    Drip(String),
    /// Stay silent with the connection open, until the server is dropped.
    Hold,
}

fn raw(text: &str) -> Step {
    Step::Raw(text.to_string())
}

fn task_event(state: &str) -> Value {
    json!({"task": {"id": "t1", "contextId": "c1", "status": {"state": state}}})
}

fn status_event(state: &str) -> Value {
    json!({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": state}}})
}

fn chunk(data: &str) -> String {
    format!("{:x}\r\n{data}\r\n", data.len())
}

/// A server started by a test; it stops (with every connection it holds) when dropped.
struct Server {
    card_url: String,
    task: JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A card declaring streaming and the one interface `interface`.
fn card(interface: Value) -> Value {
    json!({
        "name": "hostile", "description": "an agent whose streams misbehave", "version": "1",
        "supportedInterfaces": [interface],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "echo", "description": "echoes", "tags": ["echo"]}]
    })
}

/// A raw HTTP/1.1 server: the card, a probe answer (TaskNotFound), and `script` for every
/// stream request. One request per connection.
async fn hostile(wire: Wire, script: Vec<Step>) -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let (binding, url) = match wire {
        Wire::Jsonrpc => ("JSONRPC", format!("{base}/rpc")),
        Wire::Rest => ("HTTP+JSON", format!("{base}/rest")),
    };
    let card = card(json!({"protocolBinding": binding, "protocolVersion": "1.0", "url": url}));
    let script = Arc::new(script);
    let task = tokio::spawn(async move {
        // Dropped (with every connection still open) when the server task is aborted.
        let mut connections = JoinSet::new();
        while let Ok((socket, _)) = listener.accept().await {
            connections.spawn(answer(socket, wire, card.clone(), script.clone()));
        }
    });
    Server {
        card_url: format!("{base}{CARD_PATH}"),
        task,
    }
}

/// Reads one request: the head up to the blank line, then `Content-Length` bytes of body.
async fn read_request(socket: &mut TcpStream) -> Option<(String, String)> {
    let mut buf = Vec::new();
    let mut piece = [0u8; 4096];
    let head_end = loop {
        if let Some(i) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            break i + 4;
        }
        let n = socket.read(&mut piece).await.ok().filter(|n| *n > 0)?;
        buf.extend_from_slice(&piece[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let length: usize = head
        .lines()
        .filter_map(|line| line.split_once(':'))
        .find(|(name, _)| name.trim().eq_ignore_ascii_case("content-length"))
        .and_then(|(_, value)| value.trim().parse().ok())
        .unwrap_or(0);
    while buf.len() < head_end + length {
        let n = socket.read(&mut piece).await.ok().filter(|n| *n > 0)?;
        buf.extend_from_slice(&piece[..n]);
    }
    let body = String::from_utf8_lossy(&buf[head_end..head_end + length]).into_owned();
    Some((head, body))
}

/// A complete response that closes the connection.
fn response(status: &str, body: &Value) -> String {
    let body = body.to_string();
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    )
}

async fn answer(mut socket: TcpStream, wire: Wire, card: Value, script: Arc<Vec<Step>>) {
    let Some((head, body)) = read_request(&mut socket).await else {
        return;
    };
    let request_line = head.lines().next().unwrap_or_default().to_string();
    let id = serde_json::from_str::<Value>(&body)
        .ok()
        .and_then(|b| b.get("id").cloned())
        .unwrap_or(Value::Null);
    let is_stream = match wire {
        Wire::Jsonrpc => body.contains("\"SendStreamingMessage\""),
        Wire::Rest => request_line.starts_with("POST /rest/message:stream "),
    };
    let reply = if request_line.starts_with(&format!("GET {CARD_PATH} ")) {
        response("200 OK", &card)
    } else if is_stream {
        return play(socket, wire, &id, &script).await;
    } else {
        match wire {
            // The probe (GetTask of an unknown id) and anything else: TaskNotFound.
            Wire::Jsonrpc => response(
                "200 OK",
                &json!({"jsonrpc": "2.0", "id": id,
                        "error": {"code": -32001, "message": "Task not found"}}),
            ),
            Wire::Rest => response(
                "404 Not Found",
                &json!({"error": {"code": 404, "status": "NOT_FOUND", "message": "Task not found"}}),
            ),
        }
    };
    let _ = socket.write_all(reply.as_bytes()).await;
}

/// Plays the script on the connection of a stream request.
async fn play(mut socket: TcpStream, wire: Wire, id: &Value, script: &[Step]) {
    for step in script {
        let bytes = match step {
            Step::Raw(text) => text.clone(),
            Step::Event(event) => {
                let data = match wire {
                    Wire::Jsonrpc => json!({"jsonrpc": "2.0", "id": id, "result": event}),
                    Wire::Rest => event.clone(),
                };
                chunk(&format!("data: {data}\n\n"))
            }
            Step::Drip(text) => return drip(socket, text.as_bytes()).await,
            Step::Hold => std::future::pending().await,
        };
        if socket.write_all(bytes.as_bytes()).await.is_err() {
            return;
        }
        let _ = socket.flush().await;
    }
}

/// Writes `bytes` one at a time, every 100 ms, over and over.
async fn drip(mut socket: TcpStream, bytes: &[u8]) {
    let mut pace = tokio::time::interval(Duration::from_millis(100));
    for byte in bytes.iter().cycle() {
        pace.tick().await;
        if socket.write_all(&[*byte]).await.is_err() {
            return;
        }
    }
}

/// Runs one check against the target, bounded by [`RUN_LIMIT`]; returns its one result and
/// how long the whole run took.
async fn run_one(card_url: &str, check: &str) -> (CheckResult, Duration) {
    let started = Instant::now();
    let report = tokio::time::timeout(RUN_LIMIT, support::run(card_url, card_url, check))
        .await
        .unwrap_or_else(|_| panic!("{check} did not end within {RUN_LIMIT:?}"));
    let took = started.elapsed();
    assert_ne!(
        report.verdict,
        Verdict::Conformant,
        "a hostile target is never conformant"
    );
    let results = support::results_of(&report, check);
    assert_eq!(results.len(), 1, "{}", support::explain(&results));
    let result = results[0].clone();
    eprintln!(
        "{check}: {} in {took:?} ({} ms in the check); {} exchange(s), {} event(s): {}",
        result.status,
        result.duration_ms,
        result.evidence.len(),
        events_in(&result),
        result.message
    );
    (result, took)
}

/// How many stream events the result's evidence holds.
fn events_in(result: &CheckResult) -> usize {
    result.evidence.iter().map(|e| e.events.len()).sum()
}

/// FAIL or ERROR, never PASS or UNTESTABLE, within a few seconds.
fn assert_rejected(result: &CheckResult, took: Duration) {
    assert!(
        matches!(result.status, Status::Fail | Status::Error),
        "a hostile stream must be FAIL or ERROR:\n{}",
        support::explain(&[result])
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

/// The result is FAIL (not just rejected), and its message says `why`.
fn assert_fails_saying(result: &CheckResult, took: Duration, why: &str) {
    assert_eq!(
        result.status,
        Status::Fail,
        "{}",
        support::explain(&[result])
    );
    assert_rejected(result, took);
    assert!(
        result.message.contains(why),
        "the message says {why:?}: {}",
        result.message
    );
}

#[tokio::test]
async fn a_stream_that_never_closes_fails_with_its_events() {
    let server = hostile(
        Wire::Jsonrpc,
        vec![
            raw(SSE_CHUNKED),
            Step::Event(task_event("TASK_STATE_SUBMITTED")),
            Step::Event(status_event("TASK_STATE_WORKING")),
            Step::Event(status_event("TASK_STATE_COMPLETED")),
            Step::Hold,
        ],
    )
    .await;
    let (result, took) = run_one(&server.card_url, "streaming.closes-after-terminal-state").await;
    assert_fails_saying(&result, took, "silent");
    assert_eq!(events_in(&result), 3, "{}", support::explain(&[&result]));
}

#[tokio::test]
async fn a_stream_that_sends_one_byte_then_nothing_fails_quickly() {
    let server = hostile(
        Wire::Jsonrpc,
        vec![raw(SSE_CHUNKED), raw(&chunk("d")), Step::Hold],
    )
    .await;
    let (result, took) = run_one(&server.card_url, "streaming.task-stream-starts-with-task").await;
    assert_rejected(&result, took);
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(events_in(&result), 0);
    assert_eq!(result.evidence.len(), 1, "the stream's exchange is kept");
}

#[tokio::test]
async fn a_stream_that_drips_bytes_faster_than_the_wait_still_ends() {
    // Bytes keep coming, but no event is ever complete: the wait is per event, not per byte.
    let event = json!({"jsonrpc": "2.0", "id": "x", "result": task_event("TASK_STATE_SUBMITTED")});
    let server = hostile(
        Wire::Jsonrpc,
        vec![
            raw(SSE_UNTIL_CLOSE),
            Step::Drip(format!("data: {event}\n\n")),
        ],
    )
    .await;
    let (result, took) = run_one(&server.card_url, "streaming.task-stream-starts-with-task").await;
    assert_rejected(&result, took);
    assert!(took < Duration::from_secs(5), "took {took:?}");
    assert_eq!(events_in(&result), 0);
}

#[tokio::test]
async fn a_stream_that_closes_before_any_event_fails() {
    let server = hostile(Wire::Jsonrpc, vec![raw(SSE_UNTIL_CLOSE)]).await;
    let (result, took) = run_one(&server.card_url, "streaming.task-stream-starts-with-task").await;
    assert_rejected(&result, took);
    assert!(
        result.message.contains("0 event(s)"),
        "the message says no event came: {}",
        result.message
    );
    assert_eq!(result.evidence.len(), 1, "the stream's exchange is kept");
}

#[tokio::test]
async fn an_event_that_is_not_json_fails_naming_it() {
    let server = hostile(
        Wire::Jsonrpc,
        vec![
            raw(SSE_CHUNKED),
            raw(&chunk("data: not json\n\n")),
            raw(LAST_CHUNK),
        ],
    )
    .await;
    let (result, took) = run_one(&server.card_url, "streaming.task-stream-starts-with-task").await;
    assert_fails_saying(&result, took, "event data is not JSON: \"not json\"");
    assert_eq!(events_in(&result), 1);
}

/// The task event, then half of a chunk, then the connection drops.
fn cut_after_task() -> Vec<Step> {
    vec![
        raw(SSE_CHUNKED),
        Step::Event(task_event("TASK_STATE_SUBMITTED")),
        raw("40\r\ndata: {\"jsonrpc\""),
    ]
}

#[tokio::test]
async fn a_cut_stream_fails_with_the_events_before_the_cut() {
    let server = hostile(Wire::Jsonrpc, cut_after_task()).await;
    let (result, took) = run_one(&server.card_url, "streaming.task-stream-starts-with-task").await;
    assert_rejected(&result, took);
    assert_eq!(events_in(&result), 1, "{}", support::explain(&[&result]));
}

#[tokio::test]
async fn a_cut_rest_stream_fails_with_the_events_before_the_cut() {
    let server = hostile(Wire::Rest, cut_after_task()).await;
    let (result, took) = run_one(&server.card_url, "streaming.task-stream-starts-with-task").await;
    assert_rejected(&result, took);
    assert_eq!(events_in(&result), 1, "{}", support::explain(&[&result]));
}

#[tokio::test]
async fn a_stream_cut_after_its_terminal_state_fails() {
    let server = hostile(
        Wire::Jsonrpc,
        vec![
            raw(SSE_CHUNKED),
            Step::Event(task_event("TASK_STATE_SUBMITTED")),
            Step::Event(status_event("TASK_STATE_COMPLETED")),
            raw("40\r\ndata: {\"jsonrpc\""),
        ],
    )
    .await;
    let (result, took) = run_one(&server.card_url, "streaming.closes-after-terminal-state").await;
    assert_fails_saying(&result, took, "broke");
    assert_eq!(events_in(&result), 2);
    assert!(
        result.evidence.iter().any(|e| e.error.is_some()),
        "the exchange records why the stream ended: {}",
        support::explain(&[&result])
    );
}

#[tokio::test]
async fn an_sse_body_sent_as_json_fails_the_content_type_check() {
    let event = json!({"jsonrpc": "2.0", "id": "x", "result": task_event("TASK_STATE_SUBMITTED")});
    let server = hostile(
        Wire::Jsonrpc,
        vec![raw(&format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n\
             data: {event}\n\n"
        ))],
    )
    .await;
    let (result, took) = run_one(&server.card_url, "streaming.sse-content-type").await;
    assert_fails_saying(&result, took, "text/event-stream");
    assert_eq!(result.evidence.len(), 1, "the answer is kept");
}

// --- gRPC: the connection is lost after the first message of a server stream ---

/// The task id of the one event; the socket cuts the connection once it has written it.
const GRPC_MARKER: &str = "hostile-grpc-task-before-the-reset";

struct OneEventThenNothing;

impl Backend for OneEventThenNothing {
    fn check_version(&self, _requested: Option<&str>) -> Result<(), BackendError> {
        Ok(())
    }

    fn call(&self, _method: &str, _params: Value) -> Result<Value, BackendError> {
        Err(BackendError::a2a(
            tonic::Code::NotFound,
            "TASK_NOT_FOUND",
            "Task not found",
        ))
    }

    fn stream(
        &self,
        _method: &str,
        _params: Value,
    ) -> Result<BoxStream<'static, Result<Value, BackendError>>, BackendError> {
        let event = json!({"task": {"id": GRPC_MARKER, "contextId": "c1",
                                     "status": {"state": "TASK_STATE_SUBMITTED"}}});
        Ok(futures::stream::once(async move { Ok(event) })
            .chain(futures::stream::pending())
            .boxed())
    }
}

/// A connection that shuts down its writing side (the peer sees the connection end, with no
/// gRPC status) right after it has written bytes containing [`GRPC_MARKER`].
struct CutAfterMarker {
    inner: TcpStream,
    cut: bool,
}

impl AsyncRead for CutAfterMarker {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.inner).poll_read(cx, buf)
    }
}

impl AsyncWrite for CutAfterMarker {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        if self.cut {
            return Poll::Ready(Err(io::ErrorKind::ConnectionReset.into()));
        }
        let written = Pin::new(&mut self.inner).poll_write(cx, buf);
        if let Poll::Ready(Ok(n)) = written {
            let marker = GRPC_MARKER.as_bytes();
            if buf[..n].windows(marker.len()).any(|w| w == marker) {
                self.cut = true;
                // A TCP shutdown completes at once; the peer gets its data, then the end.
                let _ = Pin::new(&mut self.inner).poll_shutdown(cx);
            }
        }
        written
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.cut {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_flush(cx)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        if self.cut {
            return Poll::Ready(Ok(()));
        }
        Pin::new(&mut self.inner).poll_shutdown(cx)
    }
}

struct CuttingListener(TcpListener);

impl axum::serve::Listener for CuttingListener {
    type Io = CutAfterMarker;
    type Addr = SocketAddr;

    async fn accept(&mut self) -> (Self::Io, Self::Addr) {
        loop {
            if let Ok((inner, addr)) = self.0.accept().await {
                return (CutAfterMarker { inner, cut: false }, addr);
            }
        }
    }

    fn local_addr(&self) -> io::Result<Self::Addr> {
        self.0.local_addr()
    }
}

/// The gRPC service (and the card, on the same port) of an agent whose streams break.
async fn grpc_hostile() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let addr = listener.local_addr().expect("addr");
    let card = card(json!({"protocolBinding": "GRPC", "protocolVersion": "1.0",
                           "url": addr.to_string()}));
    let app = a2a_proto::server::router(Arc::new(OneEventThenNothing)).route(
        CARD_PATH,
        axum::routing::get(move || async move { axum::Json(card) }),
    );
    let task = tokio::spawn(async move {
        let _ = axum::serve(CuttingListener(listener), app).await;
    });
    Server {
        card_url: format!("http://{addr}{CARD_PATH}"),
        task,
    }
}

#[tokio::test]
async fn a_grpc_stream_lost_after_one_event_fails_with_that_event() {
    let server = grpc_hostile().await;
    let (result, took) = run_one(&server.card_url, "streaming.task-stream-starts-with-task").await;
    assert_rejected(&result, took);
    assert_eq!(events_in(&result), 1, "{}", support::explain(&[&result]));
}

#[tokio::test]
async fn a_grpc_stream_lost_is_recorded_as_broken() {
    // The same lost connection, judged by a check that reads past the first event. The check
    // calls a stream that breaks before the terminal state UNTESTABLE (never a pass, the
    // run is not conformant); the evidence holds the event and why the stream ended.
    let server = grpc_hostile().await;
    let (result, took) = run_one(&server.card_url, "streaming.closes-after-terminal-state").await;
    assert!(
        matches!(
            result.status,
            Status::Fail | Status::Error | Status::Untestable
        ),
        "{}",
        support::explain(&[&result])
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert_eq!(events_in(&result), 1, "{}", support::explain(&[&result]));
    let exchange = &result.evidence[0];
    assert!(
        exchange
            .error
            .as_deref()
            .is_some_and(|e| e.contains("broke")),
        "the exchange records the broken stream: {}",
        support::explain(&[&result])
    );
}

//! The hostile targets the hostile tests share: a raw HTTP/1.1 server written by hand (so a
//! stream can misbehave at the byte level) that serves a card, answers the probe, and plays a
//! script on every stream request; and the helpers that run one check against it and judge
//! the result. Every server binds 127.0.0.1 on an ephemeral port and stops when dropped.

#![allow(dead_code)]

use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_tck::reporting::report::{CheckResult, Verdict};
use a2a_tck::suite::check::Status;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio::task::{JoinHandle, JoinSet};

use crate::support;

/// The whole run of one check against a hostile target must end well before this.
pub const RUN_LIMIT: Duration = Duration::from_secs(15);

pub const CARD_PATH: &str = "/.well-known/agent-card.json";

/// Status line and headers of a chunked SSE response.
pub const SSE_CHUNKED: &str = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\
                           transfer-encoding: chunked\r\nconnection: close\r\n\r\n";

/// Status line and headers of a close-delimited SSE response (no length, no chunks).
pub const SSE_UNTIL_CLOSE: &str =
    "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n";

/// The last chunk of a chunked body.
pub const LAST_CHUNK: &str = "0\r\n\r\n";

/// The bindings the raw server speaks.
#[derive(Clone, Copy)]
pub enum Wire {
    Jsonrpc,
    Rest,
}

/// What the hostile server does once a stream is requested, in order. When the script ends
/// the connection is closed.
#[derive(Clone)]
pub enum Step {
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
    /// This StreamResponse as SSE events, as fast as the socket takes them, until the client
    /// goes away or the server is dropped.
    Flood(Value),
}

pub fn raw(text: &str) -> Step {
    Step::Raw(text.to_string())
}

pub fn task_event(state: &str) -> Value {
    json!({"task": {"id": "t1", "contextId": "c1", "status": {"state": state}}})
}

pub fn status_event(state: &str) -> Value {
    json!({"statusUpdate": {"taskId": "t1", "contextId": "c1", "status": {"state": state}}})
}

pub fn chunk(data: &str) -> String {
    format!("{:x}\r\n{data}\r\n", data.len())
}

/// A server started by a test; it stops (with every connection it holds) when dropped.
pub struct Server {
    pub card_url: String,
    pub task: JoinHandle<()>,
}

impl Drop for Server {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// A card declaring streaming and the one interface `interface`.
pub fn card(interface: Value) -> Value {
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
pub async fn hostile(wire: Wire, script: Vec<Step>) -> Server {
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
pub async fn read_request(socket: &mut TcpStream) -> Option<(String, String)> {
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
pub fn response(status: &str, body: &Value) -> String {
    let body = body.to_string();
    format!(
        "HTTP/1.1 {status}\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\
         connection: close\r\n\r\n{body}",
        body.len()
    )
}

pub async fn answer(mut socket: TcpStream, wire: Wire, card: Value, script: Arc<Vec<Step>>) {
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
pub async fn play(mut socket: TcpStream, wire: Wire, id: &Value, script: &[Step]) {
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
            Step::Flood(event) => {
                let data = match wire {
                    Wire::Jsonrpc => json!({"jsonrpc": "2.0", "id": id, "result": event}),
                    Wire::Rest => event.clone(),
                };
                let batch = chunk(&format!("data: {data}\n\n").repeat(64));
                while socket.write_all(batch.as_bytes()).await.is_ok() {}
                return;
            }
        };
        if socket.write_all(bytes.as_bytes()).await.is_err() {
            return;
        }
        let _ = socket.flush().await;
    }
}

/// Writes `bytes` one at a time, every 100 ms, over and over.
pub async fn drip(mut socket: TcpStream, bytes: &[u8]) {
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
pub async fn run_one(card_url: &str, check: &str) -> (CheckResult, Duration) {
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
pub fn events_in(result: &CheckResult) -> usize {
    result.evidence.iter().map(|e| e.events.len()).sum()
}

/// FAIL or ERROR, never PASS or UNTESTABLE, within a few seconds.
pub fn assert_rejected(result: &CheckResult, took: Duration) {
    assert!(
        matches!(result.status, Status::Fail | Status::Error),
        "a hostile stream must be FAIL or ERROR:\n{}",
        support::explain(&[result])
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

/// The result is FAIL (not just rejected), and its message says `why`.
pub fn assert_fails_saying(result: &CheckResult, took: Duration, why: &str) {
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

/// A target that serves its card, then accepts every call, reads it, and never answers.
pub async fn never_answering() -> Server {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let card = card(
        json!({"protocolBinding": "JSONRPC", "protocolVersion": "1.0",
                           "url": format!("{base}/rpc")}),
    );
    let task = tokio::spawn(async move {
        let mut connections = JoinSet::new();
        while let Ok((mut socket, _)) = listener.accept().await {
            let card = card.clone();
            connections.spawn(async move {
                let Some((head, _)) = read_request(&mut socket).await else {
                    return;
                };
                if head.starts_with(&format!("GET {CARD_PATH} ")) {
                    let _ = socket.write_all(response("200 OK", &card).as_bytes()).await;
                } else {
                    // Hold the connection, silent, until the server is dropped.
                    std::future::pending::<()>().await;
                }
            });
        }
    });
    Server {
        card_url: format!("{base}{CARD_PATH}"),
        task,
    }
}

//! A server that closes a connection after an HTTP 500 without saying so (uvicorn behind a
//! Starlette or FastAPI agent that lets an exception escape, measured): the next request the
//! kit sends on that pooled connection breaks before any answer. The kit sends it once more on
//! a new connection, so its own connection reuse never turns a verdict into ERROR, and the
//! statuses are the same run after run, at one check at a time and at the default.
//!
//! The front here is plain HTTP/1.1 over TCP, written by hand so that it can do what no
//! well-behaved server library does: keep a connection open after a 500 without
//! `Connection: close`, then drop it at the next request, unanswered. It forwards everything
//! else to the reference agent (JSON-RPC 1.0, unary answers only).

use std::sync::Arc;

use a2a_tck::suite::check::Status;
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};

use crate::support;

/// The checks judged behind the front: one whose message without `messageId` is answered 500
/// (a true FAIL, which was ERROR), and plain sends and reads that come after it on the same
/// connections.
const SELECT: &str = "{send,tasks.get}.*";

struct Front {
    base: String,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Front {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn front(upstream: String) -> Front {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let card = json!({
        "name": "closes after a 500", "description": "uvicorn after an escaped exception", "version": "1",
        "supportedInterfaces": [
            {"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": false},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "echo", "description": "echoes", "tags": ["echo"]}]
    });
    let client = (*a2a_tck::exchange::wire::client().expect("a client")).clone();
    let shared = Arc::new((upstream, card, client));
    let task = tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            tokio::spawn(connection(socket, shared.clone()));
        }
    });
    Front { base, task }
}

/// One connection: requests answered in turn; after a 500 the connection stays open, and the
/// next request on it is dropped unanswered.
async fn connection(socket: TcpStream, shared: Arc<(String, Value, reqwest::Client)>) {
    let (upstream, card, client) = &*shared;
    let mut socket = BufReader::new(socket);
    let mut closed_after_500 = false;
    loop {
        let Some((path, body)) = read_request(&mut socket).await else {
            return;
        };
        if closed_after_500 {
            return;
        }
        let (status, content_type, answer) = if path.ends_with("/agent-card.json") {
            (200, "application/json", card.to_string())
        } else {
            let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
            let message = &request["params"]["message"];
            if message.is_object() && message.get("messageId").is_none() {
                // The agent read `message["messageId"]` and the exception escaped.
                (
                    500,
                    "text/plain; charset=utf-8",
                    "Internal Server Error".to_string(),
                )
            } else {
                let answer = client
                    .post(upstream)
                    .header("content-type", "application/json")
                    .header("a2a-version", "1.0")
                    .body(body)
                    .send()
                    .await
                    .expect("the reference agent answers");
                let text = answer.text().await.expect("its answer");
                (200, "application/json", text)
            }
        };
        let head =
            format!(
            "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\n\r\n",
            if status == 200 { "OK" } else { "Internal Server Error" },
            answer.len()
        );
        let sock = socket.get_mut();
        if sock.write_all(head.as_bytes()).await.is_err()
            || sock.write_all(answer.as_bytes()).await.is_err()
        {
            return;
        }
        closed_after_500 |= status == 500;
    }
}

/// Reads one request: its path and body (by `content-length`). `None` at the end of the
/// connection.
async fn read_request(socket: &mut BufReader<TcpStream>) -> Option<(String, Vec<u8>)> {
    let mut line = String::new();
    if socket.read_line(&mut line).await.ok()? == 0 {
        return None;
    }
    let path = line.split_whitespace().nth(1)?.to_string();
    let mut length = 0;
    loop {
        let mut header = String::new();
        socket.read_line(&mut header).await.ok()?;
        let header = header.trim_end();
        if header.is_empty() {
            break;
        }
        if let Some((name, value)) = header.split_once(':') {
            if name.eq_ignore_ascii_case("content-length") {
                length = value.trim().parse().ok()?;
            }
        }
    }
    let mut body = vec![0; length];
    socket.read_exact(&mut body).await.ok()?;
    Some((path, body))
}

/// Each result's id and status, behind a fresh front and agent.
async fn statuses(jobs: usize) -> Vec<(String, Status, String)> {
    let agent = a2a_tck::run::builtin::start_with(a2a_reference_agent::AgentConfig::default())
        .await
        .expect("the reference agent starts");
    let upstream = format!("{}{}", agent.base_url(), a2a_reference_agent::JSONRPC_PATH);
    let server = front(upstream).await;
    let card_url = format!("{}/.well-known/agent-card.json", server.base);
    let report = support::run_jobs(&server.base, &card_url, SELECT, jobs).await;
    drop(server);
    agent.shutdown().await;
    (report.results.iter())
        .map(|r| (r.id.clone(), r.status, r.message.clone()))
        .collect()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_that_closes_after_a_500_never_makes_an_error() {
    let first = statuses(4).await;
    let invalid = (first.iter())
        .find(|(id, _, _)| id == "send.invalid-message-rejected")
        .expect("judged");
    assert_eq!(invalid.1, Status::Fail, "{}", invalid.2);
    for (id, status, message) in &first {
        assert_ne!(*status, Status::Error, "{id}: {message}");
    }
    let only = |results: &[(String, Status, String)]| -> Vec<(String, Status)> {
        results.iter().map(|(id, s, _)| (id.clone(), *s)).collect()
    };
    for jobs in [1, 4, 1] {
        assert_eq!(only(&statuses(jobs).await), only(&first), "--jobs {jobs}");
    }
}

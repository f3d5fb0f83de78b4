//! REST requests and SSE streams on both bindings (JSON-RPC requests here use id 7).
//! Every read has a timeout; "the stream stays open" is a read that times out.

use std::time::Duration;

use serde_json::{json, Value};
use tokio::time::timeout;

use super::{header, Harness, Reply, WAIT};

/// How long a stream must stay silent to count as held open.
pub const QUIET: Duration = Duration::from_millis(300);

/// An SSE response read incrementally.
pub struct Sse {
    pub content_type: String,
    pub response: reqwest::Response,
    pub buffer: String,
}

impl Sse {
    /// The next `data:` payload, or `None` when the body ends.
    pub async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(end) = self.buffer.find("\n\n") {
                let frame: String = self.buffer.drain(..end + 2).collect();
                let data: Vec<&str> = frame
                    .lines()
                    .filter_map(|line| line.strip_prefix("data:"))
                    .map(str::trim_start)
                    .collect();
                if data.is_empty() {
                    continue;
                }
                return Some(serde_json::from_str(&data.join("\n")).expect("event is JSON"));
            }
            let chunk = timeout(WAIT, self.response.chunk())
                .await
                .expect("timed out waiting for an event or the end of the stream")
                .expect("reading the stream");
            match chunk {
                Some(bytes) => self
                    .buffer
                    .push_str(std::str::from_utf8(&bytes).expect("UTF-8")),
                None => {
                    assert!(self.buffer.trim().is_empty(), "torn frame {}", self.buffer);
                    return None;
                }
            }
        }
    }

    /// Every remaining event, up to the end of the stream.
    pub async fn all(mut self) -> Vec<Value> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event);
        }
        events
    }

    /// Asserts that nothing (no event, no end) arrives for a while.
    pub async fn assert_open(&mut self) {
        let quiet = timeout(QUIET, self.response.chunk()).await;
        assert!(quiet.is_err(), "the stream sent {quiet:?}");
    }
}

impl Harness {
    pub async fn finish(self) {
        timeout(WAIT, self.agent.shutdown())
            .await
            .expect("the agent shuts down");
    }

    pub fn rest_request(
        &self,
        verb: &str,
        path: &str,
        body: Option<Value>,
    ) -> reqwest::RequestBuilder {
        let url = format!("{}{path}", self.agent.rest_url());
        let verb = reqwest::Method::from_bytes(verb.as_bytes()).expect("verb");
        let request = self.http.request(verb, url).header("A2A-Version", "1.0");
        match body {
            Some(body) => request
                .header("content-type", "application/a2a+json")
                .body(body.to_string()),
            None => request,
        }
    }

    pub async fn rest(&self, verb: &str, path: &str, body: Option<Value>) -> Reply {
        Self::reply(self.rest_request(verb, path, body)).await
    }

    pub async fn open(request: reqwest::RequestBuilder) -> Sse {
        let response = timeout(WAIT, request.send())
            .await
            .expect("response in time")
            .expect("request");
        assert_eq!(response.status(), 200);
        Sse {
            content_type: header(&response),
            response,
            buffer: String::new(),
        }
    }

    pub async fn rest_stream(&self, verb: &str, path: &str, body: Option<Value>) -> Sse {
        Self::open(self.rest_request(verb, path, body)).await
    }

    pub fn rpc_request(&self, method: &str, params: Value) -> reqwest::RequestBuilder {
        let request = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
        self.http
            .post(self.agent.jsonrpc_url())
            .header("A2A-Version", "1.0")
            .header("content-type", "application/json")
            .body(request.to_string())
    }

    pub async fn rpc(&self, method: &str, params: Value) -> Value {
        Self::reply(self.rpc_request(method, params)).await.body
    }

    pub async fn rpc_stream(&self, method: &str, params: Value) -> Sse {
        Self::open(self.rpc_request(method, params)).await
    }

    /// JSON-RPC stream events, unwrapped from their envelopes (checking the id).
    pub async fn rpc_events(&self, method: &str, params: Value) -> Vec<Value> {
        let sse = self.rpc_stream(method, params).await;
        assert_eq!(sse.content_type, "text/event-stream");
        sse.all().await.into_iter().map(unwrap_rpc).collect()
    }

    pub async fn get_task(&self, id: &Value) -> Value {
        let reply = self
            .rest("GET", &format!("/tasks/{}", text(id)), None)
            .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.body
    }
}

pub fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
}

pub fn unwrap_rpc(event: Value) -> Value {
    assert_eq!(event["jsonrpc"], "2.0", "{event}");
    assert_eq!(event["id"], 7, "{event}");
    event["result"].clone()
}

pub fn message(message_id: &str) -> Value {
    json!({"message": {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": "hi"}]}})
}

pub fn follow_up(message_id: &str, task_id: &Value) -> Value {
    json!({"message": {"messageId": message_id, "taskId": task_id, "role": "ROLE_USER",
                       "parts": [{"text": "more"}]}})
}

/// The kind of a StreamResponse and, for status updates, the state.
pub fn shape(event: &Value) -> String {
    let object = event.as_object().expect("event object");
    assert_eq!(object.len(), 1, "one member per StreamResponse: {event}");
    let (kind, value) = object.iter().next().expect("member");
    match kind.as_str() {
        "task" | "statusUpdate" => {
            let state = text(&value["status"]["state"]).trim_start_matches("TASK_STATE_");
            format!("{kind}:{state}")
        }
        _ => kind.clone(),
    }
}

pub fn shapes(events: &[Value]) -> Vec<String> {
    events.iter().map(shape).collect()
}

pub const LIFECYCLE: [&str; 4] = [
    "task:SUBMITTED",
    "statusUpdate:WORKING",
    "artifactUpdate",
    "statusUpdate:COMPLETED",
];

pub fn error_detail(reply: &Reply) -> (u16, &str, &str) {
    let error = &reply.body["error"];
    assert_eq!(error["code"], reply.status, "{}", reply.body);
    assert_eq!(
        error["details"][0]["@type"],
        "type.googleapis.com/google.rpc.ErrorInfo"
    );
    assert_eq!(error["details"][0]["domain"], "a2a-protocol.org");
    (
        reply.status,
        text(&error["status"]),
        text(&error["details"][0]["reason"]),
    )
}

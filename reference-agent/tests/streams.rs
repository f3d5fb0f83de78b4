//! End-to-end tests of the REST binding and of SSE streams on both bindings.
//! Every read has a timeout; "the stream stays open" is a read that times out.

use std::time::Duration;

mod common;

use a2a_reference_agent::Fault;
use common::{header, Harness, Reply, WAIT};
use serde_json::{json, Value};
use tokio::time::timeout;

/// How long a stream must stay silent to count as held open.
const QUIET: Duration = Duration::from_millis(300);

/// An SSE response read incrementally.
struct Sse {
    content_type: String,
    response: reqwest::Response,
    buffer: String,
}

impl Sse {
    /// The next `data:` payload, or `None` when the body ends.
    async fn next(&mut self) -> Option<Value> {
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
    async fn all(mut self) -> Vec<Value> {
        let mut events = Vec::new();
        while let Some(event) = self.next().await {
            events.push(event);
        }
        events
    }

    /// Asserts that nothing (no event, no end) arrives for a while.
    async fn assert_open(&mut self) {
        let quiet = timeout(QUIET, self.response.chunk()).await;
        assert!(quiet.is_err(), "the stream sent {quiet:?}");
    }
}

impl Harness {
    async fn finish(self) {
        timeout(WAIT, self.agent.shutdown())
            .await
            .expect("the agent shuts down");
    }

    fn rest_request(&self, verb: &str, path: &str, body: Option<Value>) -> reqwest::RequestBuilder {
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

    async fn rest(&self, verb: &str, path: &str, body: Option<Value>) -> Reply {
        Self::reply(self.rest_request(verb, path, body)).await
    }

    async fn open(request: reqwest::RequestBuilder) -> Sse {
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

    async fn rest_stream(&self, verb: &str, path: &str, body: Option<Value>) -> Sse {
        Self::open(self.rest_request(verb, path, body)).await
    }

    fn rpc_request(&self, method: &str, params: Value) -> reqwest::RequestBuilder {
        let request = json!({"jsonrpc": "2.0", "id": 7, "method": method, "params": params});
        self.http
            .post(self.agent.jsonrpc_url())
            .header("A2A-Version", "1.0")
            .header("content-type", "application/json")
            .body(request.to_string())
    }

    async fn rpc(&self, method: &str, params: Value) -> Value {
        Self::reply(self.rpc_request(method, params)).await.body
    }

    async fn rpc_stream(&self, method: &str, params: Value) -> Sse {
        Self::open(self.rpc_request(method, params)).await
    }

    /// JSON-RPC stream events, unwrapped from their envelopes (checking the id).
    async fn rpc_events(&self, method: &str, params: Value) -> Vec<Value> {
        let sse = self.rpc_stream(method, params).await;
        assert_eq!(sse.content_type, "text/event-stream");
        sse.all().await.into_iter().map(unwrap_rpc).collect()
    }

    async fn get_task(&self, id: &Value) -> Value {
        let reply = self
            .rest("GET", &format!("/tasks/{}", text(id)), None)
            .await;
        assert_eq!(reply.status, 200, "{}", reply.body);
        reply.body
    }
}

fn text(value: &Value) -> &str {
    value
        .as_str()
        .unwrap_or_else(|| panic!("not a string: {value}"))
}

fn unwrap_rpc(event: Value) -> Value {
    assert_eq!(event["jsonrpc"], "2.0", "{event}");
    assert_eq!(event["id"], 7, "{event}");
    event["result"].clone()
}

fn message(message_id: &str) -> Value {
    json!({"message": {"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": "hi"}]}})
}

fn follow_up(message_id: &str, task_id: &Value) -> Value {
    json!({"message": {"messageId": message_id, "taskId": task_id, "role": "ROLE_USER",
                       "parts": [{"text": "more"}]}})
}

/// The kind of a StreamResponse and, for status updates, the state.
fn shape(event: &Value) -> String {
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

fn shapes(events: &[Value]) -> Vec<String> {
    events.iter().map(shape).collect()
}

const LIFECYCLE: [&str; 4] = [
    "task:SUBMITTED",
    "statusUpdate:WORKING",
    "artifactUpdate",
    "statusUpdate:COMPLETED",
];

fn error_detail(reply: &Reply) -> (u16, &str, &str) {
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

#[tokio::test]
async fn rest_send_get_list_cancel() {
    let h = Harness::conformant().await;
    let sent = h
        .rest(
            "POST",
            "/message:send",
            Some(message("tck-artifact-text-1")),
        )
        .await;
    assert_eq!(sent.status, 200);
    assert_eq!(sent.content_type, "application/a2a+json");
    let task = &sent.body["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    let id = task["id"].clone();

    let got = h
        .rest(
            "GET",
            &format!("/tasks/{}?historyLength=1", text(&id)),
            None,
        )
        .await;
    assert_eq!(got.status, 200);
    assert_eq!(got.body["id"], id);
    assert_eq!(got.body["history"].as_array().map(Vec::len), Some(1));
    assert_eq!(got.body["artifacts"], task["artifacts"]);

    // The same store serves JSON-RPC.
    let rpc = h.rpc("GetTask", json!({"id": id})).await;
    assert_eq!(rpc["result"]["id"], id);

    let open = h
        .rest(
            "POST",
            "/message:send",
            Some(message("tck-input-required-1")),
        )
        .await;
    let open_id = open.body["task"]["id"].clone();
    let list = h
        .rest("GET", "/tasks?pageSize=1&includeArtifacts=true", None)
        .await;
    assert_eq!(list.status, 200);
    assert_eq!(list.body["tasks"][0]["id"], open_id);
    assert_eq!(list.body["tasks"][0]["artifacts"], json!([]));
    assert_eq!(list.body["totalSize"], 2);
    let filtered = h
        .rest("GET", "/tasks?status=TASK_STATE_COMPLETED", None)
        .await;
    assert_eq!(filtered.body["tasks"].as_array().map(Vec::len), Some(1));

    // Cancel with an empty body, then again: not cancelable.
    let cancel = h.rest_request("POST", &format!("/tasks/{}:cancel", text(&open_id)), None);
    let canceled = Harness::reply(cancel).await;
    assert_eq!(canceled.status, 200);
    assert_eq!(canceled.body["status"]["state"], "TASK_STATE_CANCELED");
    let again = h
        .rest(
            "POST",
            &format!("/tasks/{}:cancel", text(&open_id)),
            Some(json!({})),
        )
        .await;
    assert_eq!(
        error_detail(&again),
        (400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE")
    );

    // A tenant prefix names the same operations.
    let tenant = h
        .rest("GET", &format!("/acme/tasks/{}", text(&id)), None)
        .await;
    assert_eq!(tenant.status, 200);
    assert_eq!(tenant.body["id"], id);
    h.finish().await;
}

#[tokio::test]
async fn rest_errors_are_google_rpc_status() {
    let h = Harness::conformant().await;
    let missing = h.rest("GET", "/tasks/task-nope", None).await;
    assert_eq!(missing.content_type, "application/a2a+json");
    assert_eq!(error_detail(&missing), (404, "NOT_FOUND", "TASK_NOT_FOUND"));
    assert_eq!(
        missing.body["error"]["details"][0]["metadata"]["taskId"],
        "task-nope"
    );

    let bad = h.rest("GET", "/tasks?pageSize=abc", None).await;
    assert_eq!(
        error_detail(&bad),
        (400, "INVALID_ARGUMENT", "INVALID_PARAMS")
    );
    assert_eq!(
        bad.body["error"]["details"][1]["fieldViolations"][0]["field"],
        "pageSize"
    );
    let bad = h.rest("GET", "/tasks?includeArtifacts=yes", None).await;
    assert_eq!(bad.status, 400);

    let not_json = Harness::reply(
        h.rest_request("POST", "/message:send", None)
            .body("{not json"),
    )
    .await;
    assert_eq!(
        error_detail(&not_json),
        (400, "INVALID_ARGUMENT", "PARSE_ERROR")
    );

    let unknown = h.rest("GET", "/no/such/route/here", None).await;
    assert_eq!(
        error_detail(&unknown),
        (404, "NOT_FOUND", "METHOD_NOT_FOUND")
    );

    let push = h
        .rest("GET", "/tasks/t1/pushNotificationConfigs/c1", None)
        .await;
    assert_eq!(
        error_detail(&push),
        (
            400,
            "FAILED_PRECONDITION",
            "PUSH_NOTIFICATION_NOT_SUPPORTED"
        )
    );
    let card = h.rest("GET", "/extendedAgentCard", None).await;
    assert_eq!(
        error_detail(&card),
        (400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")
    );

    // The version: from the header or the A2A-Version parameter. Without one the
    // request is 0.3, which has no such route; an unknown version is refused.
    let url = format!("{}/tasks/task-nope", h.agent.rest_url());
    let unversioned = Harness::reply(h.http.get(&url)).await;
    assert_eq!(
        error_detail(&unversioned),
        (404, "NOT_FOUND", "METHOD_NOT_FOUND")
    );
    let unknown = Harness::reply(h.http.get(format!("{url}?A2A-Version=99.0"))).await;
    assert_eq!(
        error_detail(&unknown),
        (400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED")
    );
    let by_param = Harness::reply(h.http.get(format!("{url}?A2A-Version=1.0"))).await;
    assert_eq!(by_param.status, 404);
    h.finish().await;
}

#[tokio::test]
async fn task_stream_on_both_bindings() {
    let h = Harness::conformant().await;
    for binding in ["jsonrpc", "rest"] {
        let events = if binding == "jsonrpc" {
            h.rpc_events("SendStreamingMessage", message("tck-stream-001-x"))
                .await
        } else {
            let sse = h
                .rest_stream("POST", "/message:stream", Some(message("tck-stream-001-x")))
                .await;
            assert_eq!(sse.content_type, "text/event-stream");
            sse.all().await
        };
        assert_eq!(shapes(&events), LIFECYCLE, "{binding}");
        let id = events[0]["task"]["id"].clone();
        let artifact = &events[2]["artifactUpdate"];
        assert_eq!(artifact["taskId"], id);
        assert_eq!(
            artifact["artifact"]["parts"][0]["text"],
            "Stream hello from TCK"
        );
        // GetTask agrees with the last events.
        let task = h.get_task(&id).await;
        assert_eq!(task["status"], events[3]["statusUpdate"]["status"]);
        assert_eq!(task["artifacts"][0], artifact["artifact"]);
    }
    h.finish().await;
}

#[tokio::test]
async fn message_stream_has_exactly_one_event() {
    let h = Harness::conformant().await;
    let events = h
        .rpc_events("SendStreamingMessage", message("tck-stream-002-x"))
        .await;
    assert_eq!(shapes(&events), ["message"]);
    let sse = h
        .rest_stream(
            "POST",
            "/message:stream",
            Some(message("tck-message-response-1")),
        )
        .await;
    assert_eq!(shapes(&sse.all().await), ["message"]);
    h.finish().await;
}

#[tokio::test]
async fn chunked_artifact_streams_and_stores_both_chunks() {
    let h = Harness::conformant().await;
    let events = h
        .rpc_events(
            "SendStreamingMessage",
            message("tck-stream-artifact-chunked-1"),
        )
        .await;
    assert_eq!(
        shapes(&events),
        [
            "task:SUBMITTED",
            "statusUpdate:WORKING",
            "artifactUpdate",
            "artifactUpdate",
            "statusUpdate:COMPLETED"
        ]
    );
    let (first, second) = (&events[2]["artifactUpdate"], &events[3]["artifactUpdate"]);
    assert_eq!(
        (&first["append"], &first["lastChunk"]),
        (&json!(false), &json!(false))
    );
    assert_eq!(
        (&second["append"], &second["lastChunk"]),
        (&json!(true), &json!(true))
    );
    assert_eq!(
        first["artifact"]["artifactId"],
        second["artifact"]["artifactId"]
    );
    let task = h.get_task(&events[0]["task"]["id"]).await;
    assert_eq!(
        task["artifacts"][0]["parts"],
        json!([{"text": "chunk-1 "}, {"text": "chunk-2"}])
    );
    h.finish().await;
}

#[tokio::test]
async fn long_running_released_by_follow_up_reaches_every_subscriber() {
    let h = Harness::conformant().await;
    let mut origin = h
        .rpc_stream("SendStreamingMessage", message("tck-long-running-1"))
        .await;
    let first = unwrap_rpc(origin.next().await.expect("task"));
    let second = unwrap_rpc(origin.next().await.expect("working"));
    assert_eq!(
        shapes(&[first.clone(), second]),
        ["task:SUBMITTED", "statusUpdate:WORKING"]
    );
    origin.assert_open().await;
    let id = first["task"]["id"].clone();

    let mut rpc_sub = h.rpc_stream("SubscribeToTask", json!({"id": id})).await;
    let rest_sub = h
        .rest_stream("POST", &format!("/tasks/{}:subscribe", text(&id)), None)
        .await;
    let snapshot = unwrap_rpc(rpc_sub.next().await.expect("snapshot"));
    assert_eq!(shape(&snapshot), "task:WORKING");

    // A unary follow-up releases the task.
    let reply = h
        .rpc("SendMessage", follow_up("tck-complete-task-2", &id))
        .await;
    assert_eq!(
        reply["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );

    let rest_events = rest_sub.all().await;
    let rpc_events: Vec<Value> = rpc_sub.all().await.into_iter().map(unwrap_rpc).collect();
    let origin_events: Vec<Value> = origin.all().await.into_iter().map(unwrap_rpc).collect();
    assert_eq!(
        shapes(&rest_events),
        ["task:WORKING", "artifactUpdate", "statusUpdate:COMPLETED"]
    );
    assert_eq!(rpc_events, rest_events[1..]);
    assert_eq!(origin_events, rest_events[1..]);
    assert_eq!(
        rest_events[1]["artifactUpdate"]["artifact"]["parts"][0]["text"],
        "Released by follow-up"
    );
    let task = h.get_task(&id).await;
    assert_eq!(task["status"], rest_events[2]["statusUpdate"]["status"]);
    h.finish().await;
}

#[tokio::test]
async fn long_running_canceled_ends_both_subscriptions() {
    let h = Harness::conformant().await;
    let unary = h.rpc("SendMessage", message("tck-long-running-2")).await;
    let task = &unary["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_WORKING");
    let id = task["id"].clone();
    let first = h.rpc_stream("SubscribeToTask", json!({"id": id})).await;
    let mut second = h
        .rest_stream("GET", &format!("/tasks/{}:subscribe", text(&id)), None)
        .await;
    assert_eq!(
        shape(&second.next().await.expect("snapshot")),
        "task:WORKING"
    );
    // Dropping a third subscriber does not disturb the others.
    drop(h.rpc_stream("SubscribeToTask", json!({"id": id})).await);

    let canceled = h
        .rest("POST", &format!("/tasks/{}:cancel", text(&id)), None)
        .await;
    assert_eq!(canceled.status, 200);
    let first: Vec<Value> = first.all().await.into_iter().map(unwrap_rpc).collect();
    assert_eq!(shapes(&first), ["task:WORKING", "statusUpdate:CANCELED"]);
    assert_eq!(second.all().await, first[1..]);
    h.finish().await;
}

#[tokio::test]
async fn input_required_follow_up_reaches_a_subscriber() {
    let h = Harness::conformant().await;
    let events = h
        .rpc_events("SendStreamingMessage", message("tck-input-required-1"))
        .await;
    assert_eq!(
        shapes(&events),
        [
            "task:SUBMITTED",
            "statusUpdate:WORKING",
            "statusUpdate:INPUT_REQUIRED"
        ]
    );
    let id = events[0]["task"]["id"].clone();
    let mut sub = h.rpc_stream("SubscribeToTask", json!({"id": id})).await;
    assert_eq!(
        shape(&unwrap_rpc(sub.next().await.expect("snapshot"))),
        "task:INPUT_REQUIRED"
    );
    let streamed = h
        .rpc_events(
            "SendStreamingMessage",
            follow_up("tck-complete-task-3", &id),
        )
        .await;
    assert_eq!(
        shapes(&streamed),
        [
            "task:INPUT_REQUIRED",
            "statusUpdate:WORKING",
            "statusUpdate:COMPLETED"
        ]
    );
    let seen: Vec<Value> = sub.all().await.into_iter().map(unwrap_rpc).collect();
    assert_eq!(seen, streamed[1..]);
    h.finish().await;
}

#[tokio::test]
async fn subscribe_errors_come_before_the_stream() {
    let h = Harness::conformant().await;
    let done = h.rpc("SendMessage", message("tck-complete-task-1")).await;
    let id = done["result"]["task"]["id"].clone();
    let reply = Harness::reply(h.rpc_request("SubscribeToTask", json!({"id": id}))).await;
    assert_eq!(reply.content_type, "application/json");
    assert_eq!(reply.body["error"]["code"], -32004);
    let unknown = h.rpc("SubscribeToTask", json!({"id": "task-nope"})).await;
    assert_eq!(unknown["error"]["code"], -32001);
    let rest = h
        .rest("POST", &format!("/tasks/{}:subscribe", text(&id)), None)
        .await;
    assert_eq!(
        error_detail(&rest),
        (400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION")
    );
    let rest = h.rest("GET", "/tasks/task-nope:subscribe", None).await;
    assert_eq!(rest.status, 404);
    h.finish().await;
}

#[tokio::test]
async fn stream_event_faults() {
    let h = Harness::faulty(Fault::StreamFirstEventStatusUpdate).await;
    let events = h
        .rpc_events("SendStreamingMessage", message("tck-stream-001-x"))
        .await;
    assert_eq!(shape(&events[0]), "statusUpdate:SUBMITTED");
    h.finish().await;

    let h = Harness::faulty(Fault::StreamMessageThenMore).await;
    let events = h
        .rpc_events("SendStreamingMessage", message("tck-stream-002-x"))
        .await;
    assert_eq!(shapes(&events), ["message", "statusUpdate:COMPLETED"]);
    h.finish().await;

    let h = Harness::faulty(Fault::StreamStatusOutOfOrder).await;
    let events = h
        .rpc_events("SendStreamingMessage", message("tck-stream-001-x"))
        .await;
    assert_eq!(
        shapes(&events),
        [
            "task:SUBMITTED",
            "statusUpdate:COMPLETED",
            "artifactUpdate",
            "statusUpdate:WORKING"
        ]
    );
    h.finish().await;

    let h = Harness::faulty(Fault::StreamChunkAppendWrong).await;
    let events = h
        .rpc_events(
            "SendStreamingMessage",
            message("tck-stream-artifact-chunked-1"),
        )
        .await;
    assert_eq!(events[3]["artifactUpdate"]["append"], false);
    let task = h.get_task(&events[0]["task"]["id"]).await;
    assert_eq!(task["artifacts"][0]["parts"], json!([{"text": "chunk-2"}]));
    h.finish().await;

    let h = Harness::faulty(Fault::StreamChunkNoLastChunk).await;
    let events = h
        .rpc_events(
            "SendStreamingMessage",
            message("tck-stream-artifact-chunked-1"),
        )
        .await;
    assert_eq!(events[3]["artifactUpdate"]["lastChunk"], false);
    h.finish().await;

    let h = Harness::faulty(Fault::StreamStateNotStored).await;
    let events = h
        .rpc_events("SendStreamingMessage", message("tck-stream-001-x"))
        .await;
    assert_eq!(shapes(&events), LIFECYCLE);
    let task = h.get_task(&events[0]["task"]["id"]).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_WORKING");
    h.finish().await;
}

#[tokio::test]
async fn held_open_streams_still_end_at_shutdown() {
    let h = Harness::faulty(Fault::StreamOpenAfterTerminal).await;
    let mut sse = h
        .rpc_stream("SendStreamingMessage", message("tck-stream-001-x"))
        .await;
    for expected in LIFECYCLE {
        assert_eq!(
            shape(&unwrap_rpc(sse.next().await.expect("event"))),
            expected
        );
    }
    sse.assert_open().await;
    // Shutting down ends the held stream instead of waiting for it forever.
    h.finish().await;
    assert!(sse.next().await.is_none());

    let h = Harness::faulty(Fault::StreamOpenAfterInterrupted).await;
    let mut sse = h
        .rest_stream(
            "POST",
            "/message:stream",
            Some(message("tck-input-required-1")),
        )
        .await;
    for _ in 0..3 {
        sse.next().await.expect("event");
    }
    sse.assert_open().await;
    drop(sse);
    h.finish().await;
}

#[tokio::test]
async fn subscribe_faults() {
    let h = Harness::faulty(Fault::SubscribeFirstOnly).await;
    let id =
        h.rpc("SendMessage", message("tck-long-running-1")).await["result"]["task"]["id"].clone();
    let first = h.rpc_stream("SubscribeToTask", json!({"id": id})).await;
    let later = h.rpc_stream("SubscribeToTask", json!({"id": id})).await;
    h.rpc("CancelTask", json!({"id": id})).await;
    assert_eq!(
        shapes(
            &first
                .all()
                .await
                .into_iter()
                .map(unwrap_rpc)
                .collect::<Vec<_>>()
        ),
        ["task:WORKING", "statusUpdate:CANCELED"]
    );
    assert_eq!(later.all().await.len(), 1);
    h.finish().await;

    let h = Harness::faulty(Fault::SubscribeNoUpdates).await;
    let id =
        h.rpc("SendMessage", message("tck-long-running-1")).await["result"]["task"]["id"].clone();
    let sub = h.rpc_stream("SubscribeToTask", json!({"id": id})).await;
    h.rpc("SendMessage", follow_up("tck-complete-task-1", &id))
        .await;
    assert_eq!(sub.all().await.len(), 1);
    h.finish().await;

    let h = Harness::faulty(Fault::SubscribeTerminalAllowed).await;
    let id =
        h.rpc("SendMessage", message("tck-complete-task-1")).await["result"]["task"]["id"].clone();
    let events = h.rpc_events("SubscribeToTask", json!({"id": id})).await;
    assert_eq!(shapes(&events), ["task:COMPLETED"]);
    h.finish().await;

    let h = Harness::faulty(Fault::SubscribeUnknownWrongError).await;
    let unknown = h.rpc("SubscribeToTask", json!({"id": "task-nope"})).await;
    assert_eq!(unknown["error"]["code"], -32602);
    h.finish().await;

    let h = Harness::faulty(Fault::SubscribeFirstEventNotTask).await;
    let id =
        h.rpc("SendMessage", message("tck-input-required-1")).await["result"]["task"]["id"].clone();
    let mut sub = h.rpc_stream("SubscribeToTask", json!({"id": id})).await;
    assert_eq!(
        shape(&unwrap_rpc(sub.next().await.expect("first"))),
        "statusUpdate:INPUT_REQUIRED"
    );
    drop(sub);
    h.finish().await;
}

#[tokio::test]
async fn sse_framing_faults() {
    let h = Harness::faulty(Fault::SseWrongContentType).await;
    let sse = h
        .rpc_stream("SendStreamingMessage", message("tck-stream-002-x"))
        .await;
    assert_eq!(sse.content_type, "application/json");
    assert_eq!(sse.all().await.len(), 1);
    h.finish().await;

    let h = Harness::faulty(Fault::SseEventsUnwrapped).await;
    let sse = h
        .rpc_stream("SendStreamingMessage", message("tck-stream-002-x"))
        .await;
    let events = sse.all().await;
    assert_eq!(shapes(&events), ["message"]);
    h.finish().await;

    let h = Harness::faulty(Fault::SseWrongId).await;
    let sse = h
        .rpc_stream("SendStreamingMessage", message("tck-stream-002-x"))
        .await;
    assert_eq!(sse.all().await[0]["id"], 8);
    h.finish().await;

    let h = Harness::faulty(Fault::StreamingUndeclared).await;
    let card = h.http.get(h.agent.card_url());
    let card = Harness::reply(card).await.body;
    assert_eq!(card["capabilities"]["streaming"], false);
    let events = h
        .rpc_events("SendStreamingMessage", message("tck-stream-002-x"))
        .await;
    assert_eq!(events.len(), 1);
    h.finish().await;
}

#[tokio::test]
async fn rest_faults() {
    let h = Harness::faulty(Fault::RestWrongStatus).await;
    assert_eq!(h.rest("GET", "/tasks/task-nope", None).await.status, 400);
    h.finish().await;

    let h = Harness::faulty(Fault::RestErrorNoErrorInfo).await;
    let reply = h.rest("GET", "/tasks/task-nope", None).await;
    assert_eq!(reply.body["error"]["details"], json!([]));
    h.finish().await;

    let h = Harness::faulty(Fault::RestErrorProblemJson).await;
    let reply = h.rest("GET", "/tasks/task-nope", None).await;
    assert_eq!(reply.content_type, "application/problem+json");
    assert_eq!(reply.body["status"], 404);
    assert!(reply.body.get("error").is_none());
    h.finish().await;

    let h = Harness::faulty(Fault::RestError200).await;
    let reply = h.rest("GET", "/tasks/task-nope", None).await;
    assert_eq!(reply.status, 200);
    assert_eq!(reply.body["error"]["code"], 404);
    h.finish().await;

    for (fault, status, content_type) in [
        (Fault::RestSuccess201, 201, "application/a2a+json"),
        (Fault::RestPlainJsonContentType, 200, "application/json"),
        (Fault::RestTextContentType, 200, "text/plain"),
    ] {
        let h = Harness::faulty(fault).await;
        let reply = h
            .rest(
                "POST",
                "/message:send",
                Some(message("tck-complete-task-1")),
            )
            .await;
        assert_eq!(
            (reply.status, reply.content_type.as_str()),
            (status, content_type),
            "{fault}"
        );
        h.finish().await;
    }

    let h = Harness::faulty(Fault::RestIgnoresTenant).await;
    let reply = h.rest("GET", "/acme/tasks", None).await;
    assert_eq!(reply.status, 404);
    assert_eq!(h.rest("GET", "/tasks", None).await.status, 200);
    h.finish().await;

    let h = Harness::faulty(Fault::CrossBindingIsolated).await;
    let sent = h
        .rest(
            "POST",
            "/message:send",
            Some(message("tck-complete-task-1")),
        )
        .await;
    let id = sent.body["task"]["id"].clone();
    assert_eq!(
        h.rest("GET", &format!("/tasks/{}", text(&id)), None)
            .await
            .status,
        200
    );
    let rpc = h.rpc("GetTask", json!({"id": id})).await;
    assert_eq!(rpc["error"]["code"], -32001);
    h.finish().await;
}

//! End-to-end tests of the conformant agent's SSE streams on both bindings.
//! Every read has a timeout; "the stream stays open" is a read that times out.

use crate::common;

use common::sse::*;
use common::Harness;
use serde_json::{json, Value};

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

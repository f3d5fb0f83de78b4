//! Fault tests of streams: the events a stream sends, when it closes, subscriptions and
//! SSE framing. Every read has a timeout; "the stream stays open" is a read that times out.

use crate::common;

use a2a_reference_agent::Fault;
use common::sse::*;
use common::Harness;
use serde_json::json;

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
    // The flag says "replace", but the task keeps both chunks.
    assert_eq!(events[3]["artifactUpdate"]["append"], false);
    let task = h.get_task(&events[0]["task"]["id"]).await;
    assert_eq!(
        task["artifacts"][0]["parts"],
        json!([{"text": "chunk-1 "}, {"text": "chunk-2"}])
    );
    h.finish().await;

    // Not a fault of the rule: the chunks, then the whole artifact as a replacement.
    let h = Harness::faulty(Fault::StreamChunkReplacedAtEnd).await;
    let events = h
        .rpc_events(
            "SendStreamingMessage",
            message("tck-stream-artifact-chunked-1"),
        )
        .await;
    let whole = &events[4]["artifactUpdate"];
    assert_eq!(events[3]["artifactUpdate"]["lastChunk"], false);
    assert_eq!(
        (&whole["append"], &whole["lastChunk"]),
        (&json!(false), &json!(true))
    );
    assert_eq!(
        whole["artifact"]["parts"],
        json!([{"text": "chunk-1 "}, {"text": "chunk-2"}])
    );
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

//! Hostile streams: a stream that never closes, one that sends a byte and goes silent, one
//! that drips bytes, one that closes before any event, an event that is not JSON, a cut
//! stream, and a stream with the wrong content type. Each must end in FAIL or ERROR (never
//! PASS, never UNTESTABLE), well within the check's deadline, with the events seen so far in
//! the evidence. The servers are in `hostile`.

use crate::hostile;
use crate::support;

use std::time::Duration;

use hostile::*;
use serde_json::json;

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
async fn an_sse_body_sent_as_json_warns_on_the_content_type_check() {
    let event = json!({"jsonrpc": "2.0", "id": "x", "result": task_event("TASK_STATE_SUBMITTED")});
    let server = hostile(
        Wire::Jsonrpc,
        vec![raw(&format!(
            "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\nconnection: close\r\n\r\n\
             data: {event}\n\n"
        ))],
    )
    .await;
    // The media type is described without a keyword (§9.4.2): a WARN, not a FAIL, so the
    // run of this check alone is not failed (`run_one` holds a hostile target to that).
    let started = std::time::Instant::now();
    let check = "streaming.sse-content-type";
    let report = support::run(&server.card_url, &server.card_url, check).await;
    let took = started.elapsed();
    let result = support::results_of(&report, check)
        .into_iter()
        .next()
        .cloned()
        .expect("one result");
    assert_eq!(
        result.status,
        a2a_tck::suite::check::Status::Warn,
        "{}",
        support::explain(&[&result])
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
    assert!(
        result.message.contains("text/event-stream"),
        "{}",
        result.message
    );
    assert_eq!(result.evidence.len(), 1, "the answer is kept");
}

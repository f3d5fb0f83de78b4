//! Fault tests of what goes on the wire: JSON shapes, the JSON-RPC envelope and batches,
//! version negotiation, the card, REST statuses and bodies, and gRPC errors.

#![allow(clippy::unwrap_used)]

use crate::common;

use a2a_proto::client::{GrpcClient, GrpcStreamEnd};
use a2a_reference_agent::{AgentConfig, Fault};
use common::sse::*;
use common::{Harness, WAIT};
use serde_json::{json, Value};
use tokio::time::timeout;

#[tokio::test]
async fn faults_change_behaviour() {
    let h = Harness::new(AgentConfig::default().with_fault(Fault::SendResultUnwrapped)).await;
    let result = h.send("tck-complete-task-1", json!({})).await;
    assert_eq!(result["status"]["state"], "TASK_STATE_COMPLETED");

    let h = Harness::new(AgentConfig::with_faults([
        Fault::WrongResponseId,
        Fault::TextPlainContentType,
    ]))
    .await;
    let reply = h
        .post(
            json!({"jsonrpc": "2.0", "id": 7, "method": "GetTask", "params": {"id": "x"}})
                .to_string(),
            Some("1.0"),
        )
        .await;
    assert_eq!(reply.body["id"], "7");
    assert_eq!(reply.content_type, "text/plain");

    let h = Harness::new(AgentConfig::default().with_fault(Fault::LowercaseTaskState)).await;
    assert_eq!(
        h.send("tck-input-required-1", json!({})).await["task"]["status"]["state"],
        "input-required"
    );

    let h = Harness::new(AgentConfig::default().with_fault(Fault::IgnoreVersionHeader)).await;
    let reply = h
        .post(
            json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}})
                .to_string(),
            None,
        )
        .await;
    assert_eq!(reply.body["error"]["code"], -32001);

    let h = Harness::new(AgentConfig::default().with_fault(Fault::CardOnlyAtLegacyPath)).await;
    assert_eq!(
        h.http
            .get(h.agent.card_url())
            .send()
            .await
            .unwrap()
            .status(),
        404
    );
    let legacy = format!("{}/.well-known/agent.json", h.agent.base_url());
    assert_eq!(h.http.get(legacy).send().await.unwrap().status(), 200);
}

#[tokio::test]
async fn fault_reject_patch_version() {
    let h = Harness::faulty(Fault::RejectPatchVersion).await;
    assert_eq!(h.version_code(Some("1.0.3")).await, -32009);
    assert_eq!(h.version_code(Some("1.0")).await, -32001);
    assert_eq!(h.version_code(None).await, -32601);
}

#[tokio::test]
async fn fault_missing_version_as_1_0() {
    let h = Harness::faulty(Fault::MissingVersionAs10).await;
    assert_eq!(h.version_code(None).await, -32001);
    assert_eq!(h.version_code(Some("")).await, -32001);
    // An explicit 0.3 is still 0.3 (no GetTask method there).
    assert_eq!(h.version_code(Some("0.3")).await, -32601);
    assert_eq!(h.version_code(Some("99.0")).await, -32009);
}

#[tokio::test]
async fn fault_message_omits_context_id() {
    let h = Harness::faulty(Fault::MessageOmitsContextId).await;
    let reply = h.send("tck-message-response-1", json!({})).await;
    assert_eq!(reply["message"]["messageId"], "msg-000001");
    assert!(reply["message"].get("contextId").is_none());
    let task = h.send("tck-complete-task-1", json!({})).await;
    assert!(task["task"]["contextId"].is_string());
    assert!(task["task"]["status"]["message"]["contextId"].is_string());
}

#[tokio::test]
async fn fault_nested_message_missing_role() {
    let h = Harness::faulty(Fault::NestedMessageMissingRole).await;
    let task = h.send("tck-complete-task-1", json!({})).await["task"].clone();
    assert!(task["status"]["message"].get("role").is_none());
    assert!(task["status"]["message"]["messageId"].is_string());
    assert_eq!(task["history"][0]["role"], "ROLE_USER");
    assert!(task["history"][1].get("role").is_none());
    let reply = h.send("tck-message-response-1", json!({})).await;
    assert_eq!(reply["message"]["role"], "ROLE_AGENT");
}

#[tokio::test]
async fn fault_batches() {
    let get =
        |id: i64| json!({"jsonrpc": "2.0", "id": id, "method": "GetTask", "params": {"id": "x"}});
    for (fault, body) in [
        (Fault::EmptyBatchReturnsArray, "[]".to_string()),
        (Fault::BatchRejected, json!([get(1)]).to_string()),
    ] {
        let h = Harness::new(AgentConfig::with_faults([fault])).await;
        let reply = h.post(body, Some("1.0")).await;
        assert!(
            !reply.body.is_array() || reply.body.as_array().is_some_and(Vec::is_empty),
            "{fault:?}"
        );
    }
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

async fn card_under(fault: Fault) -> Value {
    Harness::faulty(fault).await.card().await
}

#[tokio::test]
async fn card_faults_change_the_card() {
    let card = card_under(Fault::CardMissingRequiredField).await;
    assert!(card.get("description").is_none());
    let card = card_under(Fault::CardPatchVersion).await;
    assert_eq!(card["supportedInterfaces"][0]["protocolVersion"], "1.0.0");
    assert_eq!(card["supportedInterfaces"][3]["protocolVersion"], "0.3");
    let card = card_under(Fault::CardBadInterface).await;
    assert_eq!(
        card["supportedInterfaces"][6],
        json!({"url": "rest", "protocolBinding": "HTTP+JSON"})
    );
    let h = Harness::faulty(Fault::CardNoCacheHeaders).await;
    let response = h.http.get(h.agent.card_url()).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(response.headers().get("cache-control").is_none());
    assert!(response.headers().get("etag").is_none());
}

/// The gRPC client of the agent's port.
fn grpc(h: &Harness) -> GrpcClient {
    GrpcClient::new(&h.agent.local_addr().to_string(), "http", WAIT).unwrap()
}

fn v1_0() -> Vec<(String, String)> {
    vec![("a2a-version".to_owned(), "1.0".to_owned())]
}

#[tokio::test]
async fn errors_1_0_0_table_maps_statuses_by_the_superseded_table() {
    for (fault, cancel, push) in [
        (None, (400, "FAILED_PRECONDITION"), "FAILED_PRECONDITION"),
        (
            Some(Fault::Errors100Table),
            (409, "FAILED_PRECONDITION"),
            "UNIMPLEMENTED",
        ),
    ] {
        let h = Harness::new(AgentConfig::with_faults(fault)).await;
        let sent = h
            .rest(
                "POST",
                "/message:send",
                Some(message("tck-complete-task-1")),
            )
            .await;
        let id = text(&sent.body["task"]["id"]).to_owned();
        let reply = h
            .rest("POST", &format!("/tasks/{id}:cancel"), Some(json!({})))
            .await;
        assert_eq!(error_detail(&reply).0, cancel.0, "{fault:?}");
        assert_eq!(error_detail(&reply).1, cancel.1, "{fault:?}");
        let path = format!("/tasks/{id}/pushNotificationConfigs");
        let reply = h.rest("GET", &path, None).await;
        assert_eq!(
            error_detail(&reply),
            (400, push, "PUSH_NOTIFICATION_NOT_SUPPORTED")
        );
        let media = json!({"message": {"messageId": "m", "role": "ROLE_USER",
            "parts": [{"text": "a", "mediaType": "image/png"}]}});
        let reply = h.rest("POST", "/message:send", Some(media)).await;
        let expected = if fault.is_some() { 415 } else { 400 };
        assert_eq!(reply.status, expected, "{fault:?}");
        let status = grpc(&h)
            .unary("GetExtendedAgentCard", &json!({}), &v1_0(), WAIT)
            .await
            .unwrap()
            .unwrap_err();
        let unimplemented = i32::from(tonic::Code::Unimplemented);
        let precondition = i32::from(tonic::Code::FailedPrecondition);
        let code = if fault.is_some() {
            unimplemented
        } else {
            precondition
        };
        assert_eq!(status.code, code, "{fault:?}");
    }
}

#[tokio::test]
async fn grpc_stream_error_in_stream_sends_an_empty_stream() {
    let request = json!({"id": "no-such-task"});
    let not_found = i32::from(tonic::Code::NotFound);
    let h = Harness::conformant().await;
    let up_front = grpc(&h)
        .server_stream("SubscribeToTask", &request, &v1_0(), WAIT)
        .await
        .unwrap();
    assert_eq!(up_front.expect_err("fails up front").code, not_found);
    let h = Harness::faulty(Fault::GrpcStreamErrorInStream).await;
    let mut events = grpc(&h)
        .server_stream("SubscribeToTask", &request, &v1_0(), WAIT)
        .await
        .unwrap()
        .expect("the call is answered with a stream");
    let end = timeout(WAIT, events.next()).await.expect("the stream ends");
    match end {
        Err(GrpcStreamEnd::Status(status)) => assert_eq!(status.code, not_found),
        other => panic!("expected the error as the stream's status, got {other:?}"),
    }
}

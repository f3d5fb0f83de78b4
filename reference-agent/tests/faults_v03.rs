//! Fault tests of A2A 0.3 served beside 1.0: 0.3 spellings and shapes, methods of the
//! other version, 0.3 follow-ups and the card's 0.3 declarations.

use crate::common;

use a2a_reference_agent::Fault;
use common::v03::*;
use common::Harness;
use serde_json::json;

#[tokio::test]
async fn fault_v03_answers_1_0_shapes() {
    let h = Harness::faulty(Fault::V03Answers10Shapes).await;
    let result = h.send03("tck-complete-task-1", json!({})).await;
    assert_eq!(result["task"]["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(result.get("kind").is_none());
}

#[tokio::test]
async fn fault_v03_state_spelled_1_0() {
    let h = Harness::faulty(Fault::V03StateSpelled10).await;
    let task = h.send03("tck-complete-task-1", json!({})).await;
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn fault_v03_canceled_spelled_cancelled() {
    let h = Harness::faulty(Fault::V03CanceledSpelledCancelled).await;
    let task = h.send03("tck-input-required-1", json!({})).await;
    let canceled = h.result03("tasks/cancel", json!({"id": task["id"]})).await;
    assert_eq!(canceled["status"]["state"], "cancelled");
}

#[tokio::test]
async fn fault_v03_no_kind() {
    let h = Harness::faulty(Fault::V03NoKind).await;
    let task = h.send03("tck-complete-task-1", json!({})).await;
    assert_eq!(task["status"]["state"], "completed");
    assert!(task.get("kind").is_none());
    assert!(task["history"][0].get("kind").is_none());
    assert_eq!(task["history"][0]["parts"][0], json!({"text": "hi"}));
}

#[tokio::test]
async fn fault_v03_method_under_1_0() {
    let h = Harness::faulty(Fault::V03MethodUnder10).await;
    let params = json!({"message": message03("tck-complete-task-1", json!({}))});
    let response = h.rpc_v("message/send", params, Some("1.0")).await;
    assert_eq!(response["result"]["kind"], "task", "{response}");
    let body = json!({"message": proto_message("tck-complete-task-1")});
    let rest = h
        .rest_v("POST", "/v1/message:send", Some(body), Some("1.0"))
        .await;
    assert_eq!(rest.status, 200);
}

#[tokio::test]
async fn fault_v10_method_under_0_3() {
    let h = Harness::faulty(Fault::V10MethodUnder03).await;
    let params = json!({"message": {"messageId": "tck-complete-task-1", "role": "ROLE_USER",
        "parts": [{"text": "hi"}]}});
    let response = h.rpc_v("SendMessage", params, None).await;
    assert_eq!(
        response["result"]["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{response}"
    );
}

#[tokio::test]
async fn fault_v03_proto_state_cancelled_one_l() {
    let h = Harness::faulty(Fault::V03ProtoStateCancelledOneL).await;
    let open = json!({"message": proto_message("tck-input-required-1")});
    let open = h.rest_v("POST", "/v1/message:send", Some(open), None).await;
    let id = open.body["task"]["id"].as_str().expect("id").to_owned();
    let canceled = h
        .rest_v("POST", &format!("/v1/tasks/{id}:cancel"), None, None)
        .await;
    assert_eq!(canceled.body["status"]["state"], "TASK_STATE_CANCELED");
}

#[tokio::test]
async fn fault_v03_data_part_refused() {
    let h = Harness::faulty(Fault::V03DataPartRefused).await;
    let task = h.send03("tck-input-required-1", json!({})).await;
    let follow_up = json!({"taskId": task["id"], "contextId": task["contextId"],
        "parts": [{"kind": "data", "data": {"answer": 42}}]});
    let params = json!({"message": message03("tck-complete-task-2", follow_up)});
    assert_eq!(h.code("message/send", params, None).await, -32602);
}

#[tokio::test]
async fn fault_v03_no_final() {
    let h = Harness::faulty(Fault::V03NoFinal).await;
    let params = json!({"message": message03("tck-complete-task-1", json!({}))});
    let events = h.rpc_events03("message/stream", params).await;
    let last = events.last().expect("events");
    assert_eq!(last["kind"], "status-update");
    assert_eq!(last["status"]["state"], "completed");
    assert!(last.get("final").is_none());
}

#[tokio::test]
async fn fault_card_omits_0_3() {
    let h = Harness::faulty(Fault::CardOmits03).await;
    let card = h.card().await;
    assert!(card.get("protocolVersion").is_none());
    assert!(card.get("url").is_none());
    let interfaces = card["supportedInterfaces"].as_array().expect("interfaces");
    assert!(interfaces.iter().all(|i| i["protocolVersion"] == "1.0"));
    // The agent still answers 0.3.
    let task = h.send03("tck-complete-task-1", json!({})).await;
    assert_eq!(task["kind"], "task");
}

//! Fault tests of the task lifecycle and the operations (list, history, cancel, context,
//! capabilities), and of the agent modes that are conformant alternatives: each fault
//! changes exactly the behaviour it names.

#![allow(clippy::unwrap_used)]

use crate::common;

use a2a_reference_agent::{AgentConfig, Fault};
use common::rpc::*;
use common::Harness;
use serde_json::{json, Value};

#[tokio::test]
async fn fault_list_ignores_page_size() {
    for (fault, tasks, token_empty) in [
        (None, 2, false),
        (Some(Fault::ListIgnoresPageSize), 3, true),
    ] {
        let h = Harness::new(AgentConfig::with_faults(fault)).await;
        for n in 0..3 {
            h.send(&format!("tck-complete-task-{n}"), json!({})).await;
        }
        let (page, ids) = h.list_ids(json!({"pageSize": 2})).await;
        assert_eq!(ids.len(), tasks, "{fault:?}");
        assert_eq!(page["nextPageToken"] == "", token_empty, "{fault:?}");
        assert_eq!(page["pageSize"], 2);
        assert_eq!(page["totalSize"], 3);
    }
}

#[tokio::test]
async fn fault_list_ignores_context_filter() {
    for (fault, expected) in [(None, 1), (Some(Fault::ListIgnoresContextFilter), 2)] {
        let h = Harness::new(AgentConfig::with_faults(fault)).await;
        h.send("tck-complete-task-a", json!({"contextId": "ctx-a"}))
            .await;
        h.send("tck-complete-task-b", json!({"contextId": "ctx-b"}))
            .await;
        let (_, ids) = h.list_ids(json!({"contextId": "ctx-a"})).await;
        assert_eq!(ids.len(), expected, "{fault:?}");
    }
}

#[tokio::test]
async fn fault_list_omits_total_size() {
    let h = Harness::faulty(Fault::ListOmitsTotalSize).await;
    h.send("tck-complete-task-1", json!({})).await;
    let (page, ids) = h.list_ids(json!({"pageSize": 5})).await;
    assert_eq!(ids.len(), 1);
    assert!(page.get("totalSize").is_none() && page.get("pageSize").is_none());
    assert_eq!(page["nextPageToken"], "");
}

#[tokio::test]
async fn fault_streaming_unsupported_wrong_error() {
    let h = Harness::faulty(Fault::StreamingUnsupportedWrongError).await;
    for method in ["SendStreamingMessage", "SubscribeToTask"] {
        assert_eq!(h.error_code(method, json!({})).await, -32601, "{method}");
    }
}

#[tokio::test]
async fn fault_push_unsupported_wrong_error() {
    let conformant = Harness::conformant().await;
    let h = Harness::faulty(Fault::PushUnsupportedWrongError).await;
    for method in [
        "CreateTaskPushNotificationConfig",
        "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs",
        "DeleteTaskPushNotificationConfig",
    ] {
        assert_eq!(conformant.error_code(method, json!({})).await, -32003);
        assert_eq!(h.error_code(method, json!({})).await, -32004, "{method}");
    }
}

#[tokio::test]
async fn fault_extended_card_unsupported_wrong_error() {
    let h = Harness::faulty(Fault::ExtendedCardUnsupportedWrongError).await;
    assert_eq!(
        h.error_code("GetExtendedAgentCard", json!({})).await,
        -32601
    );
}

#[tokio::test]
async fn fault_blocking_omits_artifacts() {
    let h = Harness::faulty(Fault::BlockingOmitsArtifacts).await;
    let task = h.send("tck-artifact-text-1", json!({})).await["task"].clone();
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(task.get("artifacts").is_none());
    let stored = h.result("GetTask", json!({"id": task["id"]})).await;
    assert_eq!(stored["artifacts"][0]["artifactId"], "artifact-1");
    let params = json!({"message": user_message("tck-artifact-text-2", json!({})),
                        "configuration": {"returnImmediately": true}});
    let immediate = h.result("SendMessage", params).await;
    assert_eq!(
        immediate["task"]["artifacts"][0]["artifactId"],
        "artifact-1"
    );
}

#[tokio::test]
async fn fault_history_oldest_first() {
    for (fault, expected) in [
        (None, ["tck-complete-task-2", "msg-000002"]),
        (
            Some(Fault::HistoryOldestFirst),
            ["tck-input-required-1", "msg-000001"],
        ),
    ] {
        let h = Harness::new(AgentConfig::with_faults(fault)).await;
        let id = h.send("tck-input-required-1", json!({})).await["task"]["id"].clone();
        h.send("tck-complete-task-2", json!({"taskId": id})).await;
        let task = h
            .result("GetTask", json!({"id": id, "historyLength": 2}))
            .await;
        let history: Vec<Value> = task["history"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["messageId"].clone())
            .collect();
        assert_eq!(history, expected, "{fault:?}");
    }
}

#[tokio::test]
async fn fault_cancel_open_task_not_cancelable() {
    let h = Harness::faulty(Fault::CancelOpenTaskNotCancelable).await;
    let id = h.send("tck-input-required-1", json!({})).await["task"]["id"].clone();
    assert_eq!(h.error_code("CancelTask", json!({"id": id})).await, -32002);
    let task = h.result("GetTask", json!({"id": id})).await;
    assert_eq!(task["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(
        h.error_code("CancelTask", json!({"id": "nope"})).await,
        -32001
    );
}

#[tokio::test]
async fn fault_mismatched_context_internal_error() {
    let h = Harness::faulty(Fault::MismatchedContextInternalError).await;
    let id = h.send("tck-input-required-1", json!({})).await["task"]["id"].clone();
    let message = user_message(
        "tck-complete-task-2",
        json!({"taskId": id, "contextId": "other"}),
    );
    assert_eq!(
        h.error_code("SendMessage", json!({"message": message}))
            .await,
        -32603
    );
}

#[tokio::test]
async fn second_cancel_of_a_canceled_task_by_mode() {
    for (fault, error) in [
        (None, Some(-32002)),
        (Some(Fault::CancelCanceledReturnsTask), None),
        (Some(Fault::CancelCanceledNotFound), Some(-32001)),
    ] {
        let h = Harness::new(AgentConfig::with_faults(fault)).await;
        let id = h.send("tck-input-required-1", json!({})).await["task"]["id"].clone();
        let first = h.result("CancelTask", json!({"id": id})).await;
        assert_eq!(first["status"]["state"], "TASK_STATE_CANCELED");
        let second = h.call("CancelTask", json!({"id": id})).await;
        match error {
            Some(code) => assert_eq!(second["error"]["code"], code, "{fault:?}: {second}"),
            // The task as it is: the first cancellation, not a second one.
            None => assert_eq!(second["result"]["status"], first["status"], "{second}"),
        }
        // Other terminal tasks stay not cancelable in every mode.
        let done = h.send("tck-complete-task-1", json!({})).await["task"]["id"].clone();
        let code = h.error_code("CancelTask", json!({"id": done})).await;
        assert_eq!(code, -32002, "{fault:?}");
    }
}

#[tokio::test]
async fn official_contract_only_plays_the_official_prefixes_only() {
    let state = |result: Value| result["task"]["status"]["state"].clone();
    let conformant = Harness::conformant().await;
    assert_eq!(
        state(conformant.send("tck-fail-task-1", json!({})).await),
        "TASK_STATE_FAILED"
    );
    let h = Harness::faulty(Fault::OfficialContractOnly).await;
    for kit_only in [
        "tck-long-running-1",
        "tck-fail-task-1",
        "tck-auth-required-1",
    ] {
        let result = h.send(kit_only, json!({})).await;
        assert_eq!(state(result), "TASK_STATE_COMPLETED", "{kit_only}");
    }
    let result = h.send("tck-input-required-1", json!({})).await;
    assert_eq!(state(result), "TASK_STATE_INPUT_REQUIRED");
    let result = h.send("tck-message-response-1", json!({})).await;
    assert!(result.get("message").is_some(), "{result}");
}

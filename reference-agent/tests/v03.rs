//! End-to-end tests of A2A 0.3 served beside 1.0 on the same URLs: JSON-RPC 0.3
//! (`types.ts` shapes), REST 0.3 (`/v1` routes, 0.3 proto JSON), the proto entry
//! points for 0.3 gRPC, and the card. Every read has a timeout. (The 0.3 faults are
//! in `faults_v03.rs`.)

use crate::common;

use a2a_reference_agent::{call_proto03, stream_proto03};
use common::v03::*;
use common::{Harness, WAIT};
use futures::stream::StreamExt;
use serde_json::json;
use tokio::time::timeout;

#[tokio::test]
async fn jsonrpc_send_without_header_is_0_3() {
    let h = Harness::conformant().await;
    let task = h.send03("tck-complete-task-1", json!({})).await;
    assert_eq!(task["kind"], "task", "{task}");
    assert!(task.get("task").is_none());
    assert_eq!(task["status"]["state"], "completed");
    let history = task["history"].as_array().expect("history");
    assert_eq!(history[0]["kind"], "message");
    assert_eq!(history[0]["role"], "user");
    assert_eq!(
        history[0]["parts"][0],
        json!({"kind": "text", "text": "hi"})
    );

    // An explicit 0.3 (patch ignored) is the same.
    let params = json!({"message": message03("tck-artifact-text-1", json!({}))});
    let response = h.rpc_v("message/send", params, Some("0.3.1")).await;
    let task = &response["result"];
    assert_eq!(task["status"]["state"], "completed");
    let part = &task["artifacts"][0]["parts"][0];
    assert_eq!(part["kind"], "text", "{task}");

    // A direct Message reply.
    let message = h.send03("tck-message-response-1", json!({})).await;
    assert_eq!(message["kind"], "message", "{message}");
    assert_eq!(message["role"], "agent");
    assert_eq!(message["parts"][0]["kind"], "text");
}

#[tokio::test]
async fn input_required_continued_with_a_data_part() {
    let h = Harness::conformant().await;
    let task = h.send03("tck-input-required-1", json!({})).await;
    assert_eq!(task["status"]["state"], "input-required");
    assert_eq!(task["status"]["message"]["kind"], "message");
    let follow_up = json!({
        "taskId": task["id"], "contextId": task["contextId"],
        "parts": [{"kind": "data", "data": {"answer": 42}}],
    });
    let done = h.send03("tck-complete-task-2", follow_up).await;
    assert_eq!(done["id"], task["id"]);
    assert_eq!(done["status"]["state"], "completed", "{done}");
    let sent = done["history"]
        .as_array()
        .expect("history")
        .iter()
        .find(|m| m["messageId"] == "tck-complete-task-2")
        .cloned()
        .expect("the follow-up is in the history");
    assert_eq!(
        sent["parts"][0],
        json!({"kind": "data", "data": {"answer": 42}})
    );
}

#[tokio::test]
async fn cancel_and_read_in_both_versions() {
    let h = Harness::conformant().await;
    let task = h.send03("tck-input-required-1", json!({})).await;
    let id = task["id"].clone();
    let canceled = h.result03("tasks/cancel", json!({"id": id})).await;
    assert_eq!(canceled["kind"], "task");
    assert_eq!(canceled["status"]["state"], "canceled");

    let v03 = h.result03("tasks/get", json!({"id": id})).await;
    assert_eq!(
        (&v03["id"], &v03["status"]["state"]),
        (&id, &json!("canceled"))
    );
    let v10 = h.rpc_v("GetTask", json!({"id": id}), Some("1.0")).await;
    assert_eq!(v10["result"]["id"], id);
    assert_eq!(v10["result"]["status"]["state"], "TASK_STATE_CANCELED");
    assert!(v10["result"].get("kind").is_none());
    let rest = h
        .rest_v(
            "GET",
            &format!("/v1/tasks/{}", id.as_str().expect("id")),
            None,
            None,
        )
        .await;
    assert_eq!(rest.status, 200);
    assert_eq!(rest.body["status"]["state"], "TASK_STATE_CANCELLED");

    // Canceling again: TaskNotCancelable; an unknown id: TaskNotFound.
    assert_eq!(
        h.code("tasks/cancel", json!({"id": id}), None).await,
        -32002
    );
    assert_eq!(
        h.code("tasks/get", json!({"id": "nope"}), None).await,
        -32001
    );
}

#[tokio::test]
async fn message_stream_events_have_kind_and_final() {
    let h = Harness::conformant().await;
    let params = json!({"message": message03("tck-artifact-text-1", json!({}))});
    let events = h.rpc_events03("message/stream", params).await;
    assert_eq!(events[0]["kind"], "task", "{events:?}");
    let last = events.last().expect("events");
    assert_eq!(last["kind"], "status-update");
    assert_eq!(last["status"]["state"], "completed");
    assert_eq!(last["final"], true);
    for event in &events[1..events.len() - 1] {
        match event["kind"].as_str() {
            Some("status-update") => assert_eq!(event["final"], false, "{event}"),
            Some("artifact-update") => {
                assert_eq!(event["artifact"]["parts"][0]["kind"], "text");
                assert!(event["taskId"].is_string());
            }
            other => panic!("unexpected event kind {other:?}"),
        }
    }
    assert!(events.iter().any(|e| e["kind"] == "artifact-update"));

    // An interrupted state ends the stream with final true.
    let params = json!({"message": message03("tck-input-required-1", json!({}))});
    let events = h.rpc_events03("message/stream", params).await;
    let last = events.last().expect("events");
    assert_eq!(
        (&last["status"]["state"], &last["final"]),
        (&json!("input-required"), &json!(true))
    );

    // Resubscribing to a terminal task: the Task, then the stream closes.
    let task = h.send03("tck-complete-task-1", json!({})).await;
    let events = h
        .rpc_events03("tasks/resubscribe", json!({"id": task["id"]}))
        .await;
    assert_eq!(events.len(), 1, "{events:?}");
    assert_eq!(events[0]["kind"], "task");
    assert_eq!(events[0]["status"]["state"], "completed");
}

#[tokio::test]
async fn methods_belong_to_their_version() {
    let h = Harness::conformant().await;
    let send10 = json!({"message": {"messageId": "tck-complete-task-1", "role": "ROLE_USER",
        "parts": [{"text": "hi"}]}});
    let send03 = json!({"message": message03("tck-complete-task-1", json!({}))});
    assert_eq!(h.code("SendMessage", send10.clone(), None).await, -32601);
    assert_eq!(
        h.code("SendMessage", send10.clone(), Some("")).await,
        -32601
    );
    assert_eq!(
        h.code("SendMessage", send10.clone(), Some("0.3")).await,
        -32601
    );
    assert_eq!(
        h.code("message/send", send03.clone(), Some("1.0")).await,
        -32601
    );
    assert_eq!(
        h.code("message/send", send03.clone(), Some("99.0")).await,
        -32009
    );
    assert_eq!(
        h.code("SendMessage", send10.clone(), Some("99.0")).await,
        -32009
    );
    let ok = h.rpc_v("SendMessage", send10, Some("1.0")).await;
    assert_eq!(
        ok["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );

    // 0.3 operations the agent does not offer.
    for method in [
        "tasks/pushNotificationConfig/set",
        "tasks/pushNotificationConfig/get",
        "tasks/pushNotificationConfig/list",
        "tasks/pushNotificationConfig/delete",
    ] {
        assert_eq!(
            h.code(method, json!({"id": "x"}), None).await,
            -32003,
            "{method}"
        );
    }
    let card = h
        .rpc_v("agent/getAuthenticatedExtendedCard", json!({}), None)
        .await;
    assert_eq!(card["error"]["code"], -32004);
    assert_eq!(h.code("tasks/list", json!({}), None).await, -32601);
    // Invalid 0.3 params: a part of an unknown kind.
    let bad = json!({"message": message03("m", json!({"parts": [{"kind": "video"}]}))});
    assert_eq!(h.code("message/send", bad, None).await, -32602);
}

#[tokio::test]
async fn rest_0_3_routes_speak_proto_json() {
    let h = Harness::conformant().await;
    let body = json!({"message": proto_message("tck-artifact-text-1"),
        "configuration": {"blocking": true}});
    let sent = h
        .rest_v("POST", "/v1/message:send", Some(body.clone()), None)
        .await;
    assert_eq!(sent.status, 200, "{}", sent.body);
    assert_eq!(sent.content_type, "application/json");
    let task = &sent.body["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert!(task.get("kind").is_none());
    assert_eq!(task["history"][0]["content"], json!([{"text": "hi"}]));
    assert!(task["history"][0].get("parts").is_none());
    assert!(task["artifacts"][0]["parts"][0]["text"].is_string());
    let id = task["id"].as_str().expect("id");

    let got = h
        .rest_v(
            "GET",
            &format!("/v1/tasks/{id}?historyLength=1"),
            None,
            Some("0.3"),
        )
        .await;
    assert_eq!(got.status, 200);
    assert_eq!(got.body["id"], id);
    assert_eq!(got.body["history"].as_array().map(Vec::len), Some(1));
    let full = h
        .rest_v(
            "GET",
            &format!("/v1/tasks/{id}?historyLength=0"),
            None,
            None,
        )
        .await;
    assert!(full.body["history"].as_array().map(Vec::len) > Some(1));

    // A stream: 0.3 StreamResponses, the last with final.
    let stream = h.rest03_request("POST", "/v1/message:stream", Some(body.clone()), None);
    let (content_type, events) = Harness::events(stream).await;
    assert_eq!(content_type, "text/event-stream");
    assert!(events[0]["task"].is_object(), "{events:?}");
    let last = events.last().expect("events");
    assert_eq!(last["statusUpdate"]["final"], true);
    assert_eq!(
        last["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );

    // Cancel (POST) and subscribe to a terminal task (GET or POST).
    let open = json!({"message": proto_message("tck-input-required-1")});
    let open = h.rest_v("POST", "/v1/message:send", Some(open), None).await;
    let open_id = open.body["task"]["id"].as_str().expect("id").to_owned();
    let canceled = h
        .rest_v(
            "POST",
            &format!("/v1/tasks/{open_id}:cancel"),
            Some(json!({})),
            None,
        )
        .await;
    assert_eq!(canceled.body["status"]["state"], "TASK_STATE_CANCELLED");
    let sub = h.rest03_request("GET", &format!("/v1/tasks/{open_id}:subscribe"), None, None);
    let (_, events) = Harness::events(sub).await;
    assert_eq!(events.len(), 1);
    assert_eq!(events[0]["task"]["status"]["state"], "TASK_STATE_CANCELLED");

    // Errors: the 1.0 bodies and statuses.
    let missing = h.rest_v("GET", "/v1/tasks/nope", None, None).await;
    assert_eq!(error_reason(&missing), (404, json!("TASK_NOT_FOUND")));
    let card = h.rest_v("GET", "/v1/card", None, None).await;
    assert_eq!(error_reason(&card), (400, json!("UNSUPPORTED_OPERATION")));
    let push = h
        .rest_v(
            "GET",
            &format!("/v1/tasks/{id}/pushNotificationConfigs"),
            None,
            None,
        )
        .await;
    assert_eq!(
        error_reason(&push),
        (400, json!("PUSH_NOTIFICATION_NOT_SUPPORTED"))
    );

    // Each version's routes only under that version.
    let under_1_0 = h
        .rest_v("POST", "/v1/message:send", Some(body), Some("1.0"))
        .await;
    assert_eq!(error_reason(&under_1_0), (404, json!("METHOD_NOT_FOUND")));
    let body10 =
        json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "x"}]}});
    let under_0_3 = h
        .rest_v("POST", "/message:send", Some(body10.clone()), None)
        .await;
    assert_eq!(error_reason(&under_0_3), (404, json!("METHOD_NOT_FOUND")));
    let unknown = h
        .rest_v("POST", "/message:send", Some(body10), Some("99.0"))
        .await;
    assert_eq!(
        error_reason(&unknown),
        (400, json!("VERSION_NOT_SUPPORTED"))
    );
    // The query parameter still selects the version.
    let by_param = h
        .rest_v("GET", &format!("/tasks/{id}?A2A-Version=1.0"), None, None)
        .await;
    assert_eq!(by_param.body["status"]["state"], "TASK_STATE_COMPLETED");
}

#[tokio::test]
async fn proto_entry_points_for_grpc() {
    let h = Harness::conformant().await;
    let app = h.agent.app();
    let request = json!({"request": proto_message("tck-input-required-1"), "configuration": {"blocking": true}});
    let sent = call_proto03(app, "SendMessage", request).expect("sent");
    assert_eq!(sent["task"]["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    assert_eq!(sent["task"]["status"]["message"]["role"], "ROLE_AGENT");
    let id = sent["task"]["id"].as_str().expect("id");
    let name = format!("tasks/{id}");
    let got = call_proto03(app, "GetTask", json!({"name": name})).expect("got");
    assert_eq!(got["id"], id);
    let bad = call_proto03(app, "GetTask", json!({"name": id})).expect_err("bad name");
    assert_eq!(bad.code, -32602);
    let push = call_proto03(
        app,
        "ListTaskPushNotificationConfig",
        json!({"parent": name}),
    )
    .expect_err("no push");
    assert_eq!(push.code, -32003);
    let card = call_proto03(app, "GetAgentCard", json!({})).expect_err("no card");
    assert_eq!(card.code, -32004);

    let canceled = call_proto03(app, "CancelTask", json!({"name": name})).expect("canceled");
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELLED");
    let events = stream_proto03(app, "TaskSubscription", json!({"name": name})).expect("stream");
    let events: Vec<_> = timeout(WAIT, events.collect::<Vec<_>>())
        .await
        .expect("ends");
    assert_eq!(events.len(), 1);
    let first = events[0].as_ref().expect("event");
    assert_eq!(first["task"]["status"]["state"], "TASK_STATE_CANCELLED");

    let request = json!({"message": proto_message("tck-complete-task-1")});
    let events = stream_proto03(app, "SendStreamingMessage", request).expect("stream");
    let events: Vec<_> = timeout(WAIT, events.collect::<Vec<_>>())
        .await
        .expect("ends");
    let last = events.last().expect("events").as_ref().expect("event");
    assert_eq!(last["statusUpdate"]["final"], true);
}

#[tokio::test]
async fn card_declares_both_versions() {
    let h = Harness::conformant().await;
    let card = h.card().await;
    assert_eq!(card["protocolVersion"], "0.3.0");
    assert_eq!(card["url"], h.agent.jsonrpc_url());
    assert_eq!(card["preferredTransport"], "JSONRPC");
    assert_eq!(
        card["additionalInterfaces"],
        json!([
            {"url": h.agent.jsonrpc_url(), "transport": "JSONRPC"},
            {"url": h.agent.rest_url(), "transport": "HTTP+JSON"},
            {"url": h.agent.local_addr().to_string(), "transport": "GRPC"},
        ])
    );
    let versions: Vec<_> = card["supportedInterfaces"]
        .as_array()
        .expect("interfaces")
        .iter()
        .map(|i| (i["protocolBinding"].clone(), i["protocolVersion"].clone()))
        .collect();
    for binding in ["JSONRPC", "HTTP+JSON", "GRPC"] {
        for version in ["1.0", "0.3"] {
            assert!(
                versions.contains(&(json!(binding), json!(version))),
                "{binding} {version}"
            );
        }
    }
}

// ------------------------------------------------------------------ faults

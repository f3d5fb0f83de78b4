//! End-to-end tests of the conformant agent's HTTP+JSON/REST binding.

use crate::common;

use common::sse::*;
use common::Harness;
use serde_json::json;

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
async fn routes_with_a_trailing_or_doubled_slash_are_served() {
    let h = Harness::conformant().await;
    let sent = h
        .rest(
            "POST",
            "/message:send/",
            Some(message("tck-complete-task-1")),
        )
        .await;
    assert_eq!(sent.status, 200, "{}", sent.body);
    let id = text(&sent.body["task"]["id"]).to_owned();
    for path in [format!("//tasks/{id}"), format!("/tasks/{id}/")] {
        let got = h.rest("GET", &path, None).await;
        assert_eq!(got.status, 200, "{path}: {}", got.body);
        assert_eq!(got.body["id"], id.as_str());
    }
}

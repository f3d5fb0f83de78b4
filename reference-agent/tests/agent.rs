//! End-to-end tests of the conformant agent over JSON-RPC: start it on an ephemeral port
//! and talk HTTP to it. (Fault tests are in the `faults_*` files.)

#![allow(clippy::unwrap_used)]

use std::time::{Duration, SystemTime};

use crate::common;

use a2a_reference_agent::AgentConfig;
use common::rpc::*;
use common::Harness;
use serde_json::{json, Value};

#[tokio::test]
async fn card_is_served_with_caching_headers() {
    let h = Harness::conformant().await;
    let response = h.http.get(h.agent.card_url()).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let headers = response.headers().clone();
    assert_eq!(headers["content-type"], "application/json");
    assert_eq!(headers["cache-control"], "public, max-age=300");
    let etag = headers["etag"].to_str().unwrap().to_owned();
    assert!(
        etag.starts_with('"') && etag.ends_with('"') && etag.len() == 18,
        "{etag}"
    );
    let card: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(card["name"], "A2A TCK Reference Agent");
    assert_eq!(
        card["supportedInterfaces"],
        json!([
            {"url": h.agent.jsonrpc_url(), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": h.agent.rest_url(), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            {"url": h.agent.local_addr().to_string(), "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": h.agent.jsonrpc_url(), "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            {"url": h.agent.rest_url(), "protocolBinding": "HTTP+JSON", "protocolVersion": "0.3"},
            {"url": h.agent.local_addr().to_string(), "protocolBinding": "GRPC", "protocolVersion": "0.3"}
        ])
    );
    assert_eq!(card["capabilities"]["streaming"], true);

    let revalidated = h
        .http
        .get(h.agent.card_url())
        .header("if-none-match", &etag)
        .send()
        .await
        .unwrap();
    assert_eq!(revalidated.status(), 304);
}

#[tokio::test]
async fn send_message_completes_a_task() {
    let h = Harness::conformant().await;
    let result = h.send("tck-complete-task-1", json!({})).await;
    let task = &result["task"];
    assert!(task["id"].as_str().unwrap().starts_with("task-"));
    assert!(task["contextId"].as_str().unwrap().starts_with("ctx-"));
    assert_eq!(task["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(task["status"]["message"]["role"], "ROLE_AGENT");
    assert_eq!(
        task["status"]["message"]["parts"],
        json!([{"text": "Hello from TCK"}])
    );
    assert!(is_rfc3339_millis_z(
        task["status"]["timestamp"].as_str().unwrap()
    ));
    assert!(task.get("kind").is_none() && task.get("artifacts").is_none());
    let history = task["history"].as_array().unwrap();
    assert_eq!(history.len(), 2);
    assert_eq!(history[0]["messageId"], "tck-complete-task-1");
    assert_eq!(history[0]["taskId"], task["id"]);

    let got = h
        .result("GetTask", json!({"id": task["id"], "historyLength": 0}))
        .await;
    assert_eq!(got["status"], task["status"]);
    assert!(got.get("history").is_none());

    let own_context = h
        .send("tck-artifact-data-1", json!({"contextId": "my-ctx"}))
        .await;
    assert_eq!(own_context["task"]["contextId"], "my-ctx");
    assert_eq!(
        own_context["task"]["artifacts"][0]["parts"],
        json!([{"data": {"key": "value", "count": 42}, "mediaType": "application/json"}])
    );

    let message = h.send("tck-message-response-1", json!({})).await;
    assert_eq!(
        message["message"]["parts"],
        json!([{"text": "Direct message response"}])
    );
    assert!(message["message"]["contextId"].is_string());
}

#[tokio::test]
async fn input_required_follow_up_continues_the_task() {
    let h = Harness::conformant().await;
    let first = h.send("tck-input-required-1", json!({})).await["task"].clone();
    assert_eq!(first["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let id = first["id"].clone();

    let mismatch = json!({"message": {"messageId": "tck-complete-task-x", "role": "ROLE_USER",
                                      "parts": [{"text": "x"}], "taskId": id, "contextId": "other"}});
    assert_eq!(h.error_code("SendMessage", mismatch).await, -32602);

    let still_open = h.send("tck-input-required-2", json!({"taskId": id})).await["task"].clone();
    assert_eq!(still_open["status"]["state"], "TASK_STATE_INPUT_REQUIRED");
    let done = h
        .send(
            "tck-complete-task-3",
            json!({"taskId": id, "contextId": first["contextId"]}),
        )
        .await["task"]
        .clone();
    assert_eq!(done["id"], id);
    assert_eq!(done["contextId"], first["contextId"]);
    assert_eq!(done["status"]["state"], "TASK_STATE_COMPLETED");
    assert_eq!(done["history"].as_array().unwrap().len(), 6);
    assert!(done["status"]["timestamp"].as_str() > first["status"]["timestamp"].as_str());

    let terminal = json!({"message": {"messageId": "tck-complete-task-4", "role": "ROLE_USER",
                                      "parts": [{"text": "x"}], "taskId": id}});
    assert_eq!(h.error_code("SendMessage", terminal).await, -32004);
    let unknown = json!({"message": {"messageId": "tck-complete-task-5", "role": "ROLE_USER",
                                     "parts": [{"text": "x"}], "taskId": "no-such-task"}});
    assert_eq!(h.error_code("SendMessage", unknown).await, -32001);
}

#[tokio::test]
async fn cancel_task() {
    let h = Harness::conformant().await;
    let open = h.send("tck-input-required-1", json!({})).await["task"].clone();
    let canceled = h.result("CancelTask", json!({"id": open["id"]})).await;
    assert_eq!(canceled["status"]["state"], "TASK_STATE_CANCELED");
    let got = h.result("GetTask", json!({"id": open["id"]})).await;
    assert_eq!(got["status"]["state"], "TASK_STATE_CANCELED");
    assert_eq!(
        h.error_code("CancelTask", json!({"id": open["id"]})).await,
        -32002
    );
    assert_eq!(
        h.error_code("CancelTask", json!({"id": "nope"})).await,
        -32001
    );
}

#[tokio::test]
async fn errors_carry_error_info() {
    let h = Harness::conformant().await;
    let response = h.call("GetTask", json!({"id": "task-unknown"})).await;
    assert_eq!(response["id"], 1);
    let error = &response["error"];
    assert_eq!(error["code"], -32001);
    assert_eq!(
        error["data"][0]["@type"],
        "type.googleapis.com/google.rpc.ErrorInfo"
    );
    assert_eq!(error["data"][0]["reason"], "TASK_NOT_FOUND");
    assert_eq!(error["data"][0]["domain"], "a2a-protocol.org");

    let bad = h.call("ListTasks", json!({"pageSize": 500})).await;
    assert_eq!(bad["error"]["code"], -32602);
    assert_eq!(
        bad["error"]["data"][1]["fieldViolations"][0]["field"],
        "pageSize"
    );

    assert_eq!(
        h.error_code("SendStreamingMessage", json!({})).await,
        -32602
    );
    assert_eq!(
        h.error_code("GetTaskPushNotificationConfig", json!({}))
            .await,
        -32003
    );
    assert_eq!(h.error_code("SubscribeToTask", json!({})).await, -32602);
    assert_eq!(
        h.error_code("SubscribeToTask", json!({"id": "task-unknown"}))
            .await,
        -32001
    );
    assert_eq!(
        h.error_code("GetExtendedAgentCard", json!({})).await,
        -32004
    );
    assert_eq!(h.error_code("message/send", json!({})).await, -32601);
}

#[tokio::test]
async fn envelope_and_version_checks() {
    let h = Harness::conformant().await;
    let get = |id: Value| {
        json!({"jsonrpc": "2.0", "id": id, "method": "GetTask", "params": {"id": "x"}}).to_string()
    };
    for (version, code) in [
        (Some("99.0"), -32009),
        // Absent, empty and 0.3 are served as 0.3, which has no GetTask method.
        (Some("0.3"), -32601),
        (None, -32601),
        (Some(""), -32601),
        (Some("1.0.7"), -32001),
    ] {
        let reply = h.post(get(json!(3)), version).await;
        assert_eq!(reply.body["error"]["code"], code, "{version:?}");
    }
    let reply = h.post(get(json!(3)), Some("99.0")).await;
    assert_eq!(
        reply.body["error"]["data"][0]["metadata"]["requestedVersion"],
        "99.0"
    );

    let reply = h.post("{not json".into(), Some("1.0")).await;
    assert_eq!(reply.content_type, "application/json");
    assert_eq!(reply.body["error"]["code"], -32700);
    assert_eq!(reply.body["id"], Value::Null);
    let reply = h.post("[]".into(), Some("1.0")).await;
    assert_eq!(reply.body["error"]["code"], -32600);
    let reply = h
        .post(
            r#"{"jsonrpc":"1.0","id":"abc","method":"GetTask"}"#.into(),
            Some("1.0"),
        )
        .await;
    assert_eq!(reply.body["error"]["code"], -32600);
    assert_eq!(reply.body["id"], "abc");
    let reply = h.post(get(json!("s-1")), Some("1.0")).await;
    assert_eq!(reply.body["id"], "s-1");
    assert_eq!(reply.body["jsonrpc"], "2.0");
}

#[tokio::test]
async fn list_tasks_pages_newest_first() {
    let h = Harness::conformant().await;
    let mut ids = Vec::new();
    for n in 0..3 {
        let task = h
            .send(
                &format!("tck-artifact-text-{n}"),
                json!({"contextId": "list-ctx"}),
            )
            .await;
        ids.push(task["task"]["id"].clone());
    }
    h.send("tck-complete-task-other", json!({})).await;

    let page = h
        .result("ListTasks", json!({"contextId": "list-ctx", "pageSize": 2}))
        .await;
    assert_eq!(page["totalSize"], 3);
    assert_eq!(page["pageSize"], 2);
    let tasks = page["tasks"].as_array().unwrap();
    assert_eq!(
        tasks.iter().map(|t| t["id"].clone()).collect::<Vec<_>>(),
        [ids[2].clone(), ids[1].clone()]
    );
    assert!(tasks.iter().all(|t| t.get("artifacts").is_none()));
    let token = page["nextPageToken"].as_str().unwrap();
    assert!(!token.is_empty());

    let last = h
        .result("ListTasks", json!({"contextId": "list-ctx", "pageSize": 2, "pageToken": token, "includeArtifacts": true}))
        .await;
    assert_eq!(last["tasks"][0]["id"], ids[0]);
    assert_eq!(
        last["tasks"][0]["artifacts"][0]["parts"][0]["text"],
        "Generated text content"
    );
    assert_eq!(last["nextPageToken"], "");
    assert_eq!(
        h.error_code("ListTasks", json!({"pageToken": "bogus"}))
            .await,
        -32602
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_requests_get_distinct_tasks() {
    let h = Harness::conformant().await;
    let mut set = tokio::task::JoinSet::new();
    for n in 0..32 {
        let (http, url) = (h.http.clone(), h.agent.jsonrpc_url());
        let request = json!({"jsonrpc": "2.0", "id": n, "method": "SendMessage", "params": {"message":
            {"messageId": format!("tck-complete-task-{n}"), "role": "ROLE_USER", "parts": [{"text": "hi"}]}}});
        set.spawn(async move {
            let response = http
                .post(url)
                .header("A2A-Version", "1.0")
                .body(request.to_string())
                .send();
            let body: Value =
                serde_json::from_str(&response.await.unwrap().text().await.unwrap()).unwrap();
            body["result"]["task"]["id"].as_str().unwrap().to_owned()
        });
    }
    let mut ids = set.join_all().await;
    ids.sort();
    ids.dedup();
    assert_eq!(ids.len(), 32);
}

#[tokio::test]
async fn shutdown_stops_the_server() {
    let h = Harness::conformant().await;
    let url = h.agent.card_url();
    assert_eq!(h.http.get(&url).send().await.unwrap().status(), 200);
    h.agent.shutdown().await;
    assert!(reqwest::Client::new().get(&url).send().await.is_err());
}

#[tokio::test]
async fn timestamps_follow_the_wall_clock_and_strictly_increase() {
    let before = SystemTime::now() - Duration::from_millis(1);
    let h = Harness::conformant().await;
    let mut stamps = Vec::new();
    for n in 0..5 {
        let task = h
            .send(
                &format!("tck-complete-task-{n}"),
                json!({"contextId": "clock"}),
            )
            .await;
        stamps.push(task["task"]["status"]["timestamp"].clone());
    }
    let after = SystemTime::now() + Duration::from_millis(20);
    let times: Vec<SystemTime> = stamps.iter().map(parse_time).collect();
    assert!(stamps
        .iter()
        .all(|s| is_rfc3339_millis_z(s.as_str().unwrap())));
    assert!(times.windows(2).all(|w| w[0] < w[1]), "{stamps:?}");
    assert!(before <= times[0] && times[4] <= after, "{stamps:?}");

    // statusTimestampAfter works with real times: from a task's own timestamp,
    // from before the agent started, and from the future.
    let filter = |after: &str| json!({"contextId": "clock", "statusTimestampAfter": after});
    let (page, _) = h.list_ids(filter(stamps[3].as_str().unwrap())).await;
    assert_eq!(page["totalSize"], 2);
    let started = humantime::format_rfc3339_millis(before).to_string();
    assert_eq!(h.list_ids(filter(&started)).await.0["totalSize"], 5);
    let hour_later = humantime::format_rfc3339(after + Duration::from_secs(3600)).to_string();
    assert_eq!(h.list_ids(filter(&hour_later)).await.0["totalSize"], 0);
}

#[tokio::test]
async fn list_include_artifacts_shows_empty_artifacts() {
    let h = Harness::conformant().await;
    let task = h
        .send("tck-complete-task-1", json!({"contextId": "no-artifacts"}))
        .await;
    assert!(task["task"].get("artifacts").is_none());
    let (page, _) = h
        .list_ids(json!({"contextId": "no-artifacts", "includeArtifacts": true}))
        .await;
    assert_eq!(page["tasks"][0]["artifacts"], json!([]));
    let (page, _) = h.list_ids(json!({"contextId": "no-artifacts"})).await;
    assert!(page["tasks"][0].get("artifacts").is_none());
}

#[tokio::test]
async fn notifications_get_no_reply_and_are_not_executed() {
    let h = Harness::conformant().await;
    let notification = json!({"jsonrpc": "2.0", "method": "SendMessage",
                              "params": {"message": user_message("tck-complete-task-n", json!({}))}});
    for version in [Some("1.0"), None] {
        let response = h.post_raw(notification.to_string(), version).await;
        assert_eq!(response.status(), 204);
        assert!(response.text().await.unwrap().is_empty());
    }
    assert_eq!(h.list_ids(json!({})).await.0["totalSize"], 0);

    // An explicit null id is a request, not a notification.
    let null_id = json!({"jsonrpc": "2.0", "id": null, "method": "GetTask", "params": {"id": "x"}});
    let reply = h.post(null_id.to_string(), Some("1.0")).await;
    assert_eq!(reply.body["error"]["code"], -32001);
    assert_eq!(reply.body["id"], Value::Null);
    // Invalid request objects are still answered (with id null).
    let no_method = json!({"jsonrpc": "2.0", "params": {}});
    let reply = h.post(no_method.to_string(), Some("1.0")).await;
    assert_eq!(reply.body["error"]["code"], -32600);
    assert_eq!(reply.body["id"], Value::Null);
    // A batch of notifications only: no reply at all.
    let response = h
        .post_raw(json!([notification]).to_string(), Some("1.0"))
        .await;
    assert_eq!(response.status(), 204);
}

#[tokio::test]
async fn batches_get_an_array_and_empty_batches_one_error() {
    let h = Harness::conformant().await;
    let get =
        |id: i64| json!({"jsonrpc": "2.0", "id": id, "method": "GetTask", "params": {"id": "x"}});
    let reply = h
        .post(json!([get(1), get(2)]).to_string(), Some("1.0"))
        .await;
    let answers = reply.body.as_array().expect("an array");
    assert_eq!(answers.len(), 2);
    assert_eq!(answers[0]["id"], 1);
    assert_eq!(answers[1]["error"]["code"], -32001);
    let reply = h.post("[]".to_string(), Some("1.0")).await;
    assert_eq!(reply.body["error"]["code"], -32600);
    assert_eq!(reply.body["id"], Value::Null);
}

#[tokio::test]
async fn jsonrpc_url_with_a_trailing_slash_is_served() {
    let h = Harness::conformant().await;
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": user_message("tck-complete-task-1", json!({}))}});
    let response = h
        .http
        .post(format!("{}/", h.agent.jsonrpc_url()))
        .header("A2A-Version", "1.0")
        .header("content-type", "application/json")
        .body(request.to_string())
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body: Value = serde_json::from_str(&response.text().await.unwrap()).unwrap();
    assert_eq!(
        body["result"]["task"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
}

#[tokio::test]
async fn delay_ms_delays_every_binding() {
    let delay = std::time::Duration::from_millis(150);
    let h = Harness::new(AgentConfig {
        delay_ms: 150,
        ..AgentConfig::default()
    })
    .await;
    let started = std::time::Instant::now();
    assert_eq!(h.version_code(Some("1.0")).await, -32001);
    assert!(started.elapsed() >= delay, "{:?}", started.elapsed());
    let started = std::time::Instant::now();
    let url = format!("{}/tasks/x", h.agent.rest_url());
    let response = h.http.get(url).header("A2A-Version", "1.0").send().await;
    assert_eq!(response.unwrap().status(), 404);
    assert!(started.elapsed() >= delay, "{:?}", started.elapsed());
    let started = std::time::Instant::now();
    let response = h.http.get(h.agent.card_url()).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert!(started.elapsed() >= delay, "{:?}", started.elapsed());
}

//! Unit tests of the 0.3 codec: requests to 1.0, results and events to 0.3.

#![allow(clippy::unwrap_used)]

use super::*;
use serde_json::json;

#[test]
fn jsonrpc_send_params_become_1_0() {
    let params = json!({
        "message": {"kind": "message", "role": "user", "messageId": "m", "parts": [
            {"kind": "text", "text": "hi"},
            {"kind": "file", "file": {"uri": "https://x/y", "name": "y", "mimeType": "text/plain"}},
            {"kind": "file", "file": {"bytes": "aGk="}},
            {"kind": "data", "data": {"a": 1}},
        ]},
        "configuration": {"blocking": false, "historyLength": 2, "acceptedOutputModes": ["text/plain"]},
    });
    let out = send_request(Dialect::JsonRpc, Some(params)).unwrap();
    assert_eq!(
        out,
        json!({
            "message": {"role": "ROLE_USER", "messageId": "m", "parts": [
                {"text": "hi"},
                {"url": "https://x/y", "filename": "y", "mediaType": "text/plain"},
                {"raw": "aGk="},
                {"data": {"a": 1}, "mediaType": "application/json"},
            ]},
            "configuration": {"returnImmediately": true, "historyLength": 2, "acceptedOutputModes": ["text/plain"]},
        })
    );
    let blocking = send_request(Dialect::JsonRpc, Some(json!({})));
    assert_eq!(
        blocking.unwrap()["configuration"]["returnImmediately"],
        false
    );
}

#[test]
fn proto_send_request_becomes_1_0() {
    let params = json!({
        "request": {"role": "ROLE_USER", "messageId": "m", "content": [
            {"text": "hi"},
            {"file": {"fileWithBytes": "aGk=", "mimeType": "text/plain", "name": "n"}},
            {"data": {"data": {"a": 1}}},
        ]},
        "configuration": {"historyLength": 0},
    });
    let out = send_request(Dialect::Proto, Some(params)).unwrap();
    assert_eq!(
        out,
        json!({
            "message": {"role": "ROLE_USER", "messageId": "m", "parts": [
                {"text": "hi"},
                {"raw": "aGk=", "mediaType": "text/plain", "filename": "n"},
                {"data": {"a": 1}, "mediaType": "application/json"},
            ]},
            "configuration": {"returnImmediately": true},
        })
    );
}

#[test]
fn results_in_both_dialects() {
    let task = json!({
        "id": "t", "contextId": "c",
        "status": {"state": "TASK_STATE_CANCELED", "message": {"role": "ROLE_AGENT", "messageId": "a", "parts": [{"text": "x"}]}},
        "artifacts": [{"artifactId": "r", "parts": [{"data": [1]}, {"url": "u", "mediaType": "text/plain"}]}],
    });
    let rpc = send_result(Dialect::JsonRpc, json!({"task": task.clone()}));
    assert_eq!(rpc["kind"], "task");
    assert_eq!(rpc["status"]["state"], "canceled");
    assert_eq!(rpc["status"]["message"]["role"], "agent");
    assert_eq!(
        rpc["status"]["message"]["parts"][0],
        json!({"kind": "text", "text": "x"})
    );
    assert_eq!(
        rpc["artifacts"][0]["parts"],
        json!([
            {"kind": "data", "data": {"value": [1]}},
            {"kind": "file", "file": {"uri": "u", "mimeType": "text/plain"}},
        ])
    );
    let proto = send_result(Dialect::Proto, json!({"task": task}));
    assert_eq!(proto["task"]["status"]["state"], "TASK_STATE_CANCELLED");
    assert_eq!(
        proto["task"]["status"]["message"]["content"],
        json!([{"text": "x"}])
    );
    assert!(proto["task"].get("kind").is_none());
    assert_eq!(
        proto["task"]["artifacts"][0]["parts"][1],
        json!({"file": {"fileWithUri": "u", "mimeType": "text/plain"}})
    );
}

#[test]
fn events_in_both_dialects() {
    let update = json!({"statusUpdate": {"taskId": "t", "contextId": "c",
        "status": {"state": "TASK_STATE_INPUT_REQUIRED"}}});
    let rpc = event_out(Dialect::JsonRpc, update.clone());
    assert_eq!(
        rpc,
        json!({"kind": "status-update", "taskId": "t", "contextId": "c",
            "status": {"state": "input-required"}, "final": true})
    );
    let proto = event_out(Dialect::Proto, update);
    assert_eq!(proto["statusUpdate"]["final"], true);
    let artifact = json!({"artifactUpdate": {"taskId": "t", "artifact": {"artifactId": "a",
        "parts": [{"text": "x"}]}, "append": false, "lastChunk": true}});
    let rpc = event_out(Dialect::JsonRpc, artifact);
    assert_eq!(rpc["kind"], "artifact-update");
    assert_eq!(rpc["artifact"]["parts"][0]["kind"], "text");
}

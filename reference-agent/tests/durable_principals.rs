//! `--store sqlite:PATH` in authenticated mode: every principal's tasks survive a restart,
//! each principal's in a file of its own (`PATH` for the first token, `PATH.principal-N` for
//! the N-th), and a restart keeps them apart.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use crate::common;

use std::net::SocketAddr;
use std::path::PathBuf;

use a2a_reference_agent::{start, AgentConfig, RunningAgent, StoreKind};
use common::rpc::user_message;
use common::WAIT;
use serde_json::{json, Value};

/// A temporary directory, removed when dropped.
struct Dir(PathBuf);

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

async fn agent(config: &AgentConfig) -> RunningAgent {
    let addr: SocketAddr = "127.0.0.1:0".parse().unwrap();
    start(addr, config.clone()).await.expect("agent starts")
}

/// A JSON-RPC 1.0 call as the principal holding `token`; the whole response body.
async fn call(agent: &RunningAgent, token: &str, method: &str, params: Value) -> Value {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = reqwest::Client::new()
        .post(agent.jsonrpc_url())
        .header("A2A-Version", "1.0")
        .bearer_auth(token)
        .header("content-type", "application/json")
        .body(request.to_string())
        .timeout(WAIT)
        .send()
        .await
        .expect("an answer");
    assert_eq!(response.status(), 200);
    serde_json::from_str(&response.text().await.expect("a body")).expect("JSON")
}

#[tokio::test]
async fn every_principals_tasks_survive_a_restart() {
    let _ = rustls::crypto::ring::default_provider().install_default();
    let dir = Dir(std::env::temp_dir().join(format!(
        "a2a-agent-durable-principals-{}",
        std::process::id()
    )));
    std::fs::create_dir_all(&dir.0).unwrap();
    let path = dir.0.join("tasks.db");
    let config = AgentConfig {
        bearer_tokens: vec!["token-one".into(), "token-two".into()],
        store: StoreKind::Sqlite(path.clone()),
        ..AgentConfig::default()
    };
    let first = agent(&config).await;
    let send = |token, id| {
        let params = json!({"message": user_message(id, json!({}))});
        let first = &first;
        async move { call(first, token, "SendMessage", params).await }
    };
    let task_of = |answer: &Value| {
        answer["result"]["task"]["id"]
            .as_str()
            .unwrap_or_else(|| panic!("a task: {answer}"))
            .to_string()
    };
    // Ids are per principal (each its own store): the second principal makes one task more,
    // whose id the first principal does not have.
    let mut made = Vec::new();
    for (token, message) in [
        ("token-one", "m-one"),
        ("token-two", "m-two"),
        ("token-two", "m-two-more"),
    ] {
        made.push((token, message, task_of(&send(token, message).await)));
    }
    first.shutdown().await;
    assert!(dir.0.join("tasks.db.principal-2").exists());

    let again = agent(&config).await;
    let get = |token, id: &str| {
        let again = &again;
        let params = json!({"id": id});
        async move { call(again, token, "GetTask", params).await }
    };
    for (token, message, id) in &made {
        let answer = get(token, id).await;
        assert_eq!(answer["result"]["id"], json!(id), "{token}: {answer}");
        assert_eq!(
            answer["result"]["history"][0]["messageId"],
            json!(message),
            "{token}: {answer}"
        );
    }
    // Still apart: the first principal does not see the second's task after the restart.
    let (_, _, only_two) = &made[2];
    let answer = get("token-one", only_two).await;
    assert_eq!(answer["error"]["code"], json!(-32001), "{answer}");
    again.shutdown().await;
}

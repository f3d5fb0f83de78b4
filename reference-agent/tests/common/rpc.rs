//! JSON-RPC 1.0 helpers: requests with `A2A-Version: 1.0` (id 1) and their results.

#![allow(clippy::unwrap_used)]

use std::time::SystemTime;

use serde_json::{json, Value};

use super::Harness;

pub struct Posted {
    pub content_type: String,
    pub body: Value,
}

impl Harness {
    pub async fn post_raw(&self, body: String, version: Option<&str>) -> reqwest::Response {
        let mut request = self
            .http
            .post(self.agent.jsonrpc_url())
            .header("content-type", "application/json")
            .body(body);
        if let Some(version) = version {
            request = request.header("A2A-Version", version);
        }
        request.send().await.unwrap()
    }

    pub async fn post(&self, body: String, version: Option<&str>) -> Posted {
        let response = self.post_raw(body, version).await;
        assert_eq!(response.status(), 200);
        let content_type = response.headers()["content-type"]
            .to_str()
            .unwrap()
            .to_owned();
        let text = response.text().await.unwrap();
        Posted {
            content_type,
            body: serde_json::from_str(&text).unwrap(),
        }
    }

    /// Sends a request with `A2A-Version: 1.0` and returns the whole response body.
    pub async fn call(&self, method: &str, params: Value) -> Value {
        let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
        self.post(request.to_string(), Some("1.0")).await.body
    }

    pub async fn result(&self, method: &str, params: Value) -> Value {
        let response = self.call(method, params).await;
        assert!(response.get("error").is_none(), "{response}");
        response["result"].clone()
    }

    pub async fn error_code(&self, method: &str, params: Value) -> i64 {
        let response = self.call(method, params).await;
        response["error"]["code"]
            .as_i64()
            .unwrap_or_else(|| panic!("{response}"))
    }

    pub async fn send(&self, message_id: &str, extra: Value) -> Value {
        self.result(
            "SendMessage",
            json!({"message": user_message(message_id, extra)}),
        )
        .await
    }

    /// The error code of a GetTask for an unknown task sent with `version`
    /// (-32001 means the version was accepted).
    pub async fn version_code(&self, version: Option<&str>) -> Value {
        let request =
            json!({"jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": {"id": "x"}});
        self.post(request.to_string(), version).await.body["error"]["code"].clone()
    }

    /// The ids of the tasks in a ListTasks result.
    pub async fn list_ids(&self, params: Value) -> (Value, Vec<Value>) {
        let page = self.result("ListTasks", params).await;
        let ids = page["tasks"]
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["id"].clone())
            .collect();
        (page, ids)
    }
}

pub fn user_message(message_id: &str, extra: Value) -> Value {
    let mut message =
        json!({"messageId": message_id, "role": "ROLE_USER", "parts": [{"text": "hi"}]});
    message
        .as_object_mut()
        .unwrap()
        .extend(extra.as_object().unwrap().clone());
    message
}

pub fn parse_time(text: &Value) -> SystemTime {
    humantime::parse_rfc3339(text.as_str().unwrap()).unwrap()
}

pub fn is_rfc3339_millis_z(text: &str) -> bool {
    text.len() == 24
        && text.ends_with('Z')
        && text.as_bytes()[10] == b'T'
        && text.as_bytes()[19] == b'.'
}

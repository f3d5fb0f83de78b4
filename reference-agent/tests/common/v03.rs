//! A2A 0.3 helpers: JSON-RPC 0.3 requests (id 3, version header optional), REST with an
//! optional version, and the card.

use serde_json::{json, Value};
use tokio::time::timeout;

use super::{header, Harness, Reply, WAIT};

/// A 0.3 JSON-RPC user message.
pub fn message03(message_id: &str, extra: Value) -> Value {
    let mut message = json!({
        "kind": "message", "role": "user", "messageId": message_id,
        "parts": [{"kind": "text", "text": "hi"}],
    });
    let extra = extra.as_object().expect("object").clone();
    message.as_object_mut().expect("object").extend(extra);
    message
}

/// A 0.3 proto JSON user message.
pub fn proto_message(message_id: &str) -> Value {
    json!({"messageId": message_id, "role": "ROLE_USER", "content": [{"text": "hi"}]})
}

impl Harness {
    pub fn rpc03_request(
        &self,
        method: &str,
        params: Value,
        version: Option<&str>,
    ) -> reqwest::RequestBuilder {
        let request = json!({"jsonrpc": "2.0", "id": 3, "method": method, "params": params});
        let mut request = self
            .http
            .post(self.agent.jsonrpc_url())
            .header("content-type", "application/json")
            .body(request.to_string());
        if let Some(version) = version {
            request = request.header("A2A-Version", version);
        }
        request
    }

    /// A JSON-RPC call with `version` (None = no header); the whole response body.
    pub async fn rpc_v(&self, method: &str, params: Value, version: Option<&str>) -> Value {
        Self::reply(self.rpc03_request(method, params, version))
            .await
            .body
    }

    /// A 0.3 JSON-RPC call without header; its result.
    pub async fn result03(&self, method: &str, params: Value) -> Value {
        let response = self.rpc_v(method, params, None).await;
        assert!(response.get("error").is_none(), "{response}");
        assert_eq!(response["id"], 3);
        response["result"].clone()
    }

    pub async fn code(&self, method: &str, params: Value, version: Option<&str>) -> Value {
        self.rpc_v(method, params, version).await["error"]["code"].clone()
    }

    pub async fn send03(&self, message_id: &str, extra: Value) -> Value {
        let params = json!({"message": message03(message_id, extra)});
        self.result03("message/send", params).await
    }

    /// The SSE `data:` payloads of a stream, up to its end.
    pub async fn events(request: reqwest::RequestBuilder) -> (String, Vec<Value>) {
        let response = timeout(WAIT, request.send())
            .await
            .expect("response in time")
            .expect("request");
        assert_eq!(response.status(), 200);
        let content_type = header(&response);
        let text = timeout(WAIT, response.text())
            .await
            .expect("the stream ends in time")
            .expect("body");
        let events = text
            .split("\n\n")
            .filter_map(|frame| frame.strip_prefix("data: "))
            .map(|data| serde_json::from_str(data).expect("event is JSON"))
            .collect();
        (content_type, events)
    }

    /// The results of a 0.3 JSON-RPC stream (no header), checking each envelope.
    pub async fn rpc_events03(&self, method: &str, params: Value) -> Vec<Value> {
        let (content_type, events) = Self::events(self.rpc03_request(method, params, None)).await;
        assert_eq!(content_type, "text/event-stream");
        events
            .into_iter()
            .map(|event| {
                assert_eq!(event["jsonrpc"], "2.0");
                assert_eq!(event["id"], 3);
                event["result"].clone()
            })
            .collect()
    }

    pub fn rest03_request(
        &self,
        verb: &str,
        path: &str,
        body: Option<Value>,
        version: Option<&str>,
    ) -> reqwest::RequestBuilder {
        let url = format!("{}{path}", self.agent.rest_url());
        let verb = reqwest::Method::from_bytes(verb.as_bytes()).expect("verb");
        let mut request = self.http.request(verb, url);
        if let Some(version) = version {
            request = request.header("A2A-Version", version);
        }
        match body {
            Some(body) => request
                .header("content-type", "application/json")
                .body(body.to_string()),
            None => request,
        }
    }

    pub async fn rest_v(
        &self,
        verb: &str,
        path: &str,
        body: Option<Value>,
        version: Option<&str>,
    ) -> Reply {
        Self::reply(self.rest03_request(verb, path, body, version)).await
    }

    pub async fn card(&self) -> Value {
        Self::reply(self.http.get(self.agent.card_url())).await.body
    }
}

pub fn error_reason(reply: &Reply) -> (u16, Value) {
    (
        reply.status,
        reply.body["error"]["details"][0]["reason"].clone(),
    )
}

//! Writing 0.3 requests: the 1.0 params of an operation rewritten into the 0.3 form of its
//! binding (the JSON of the 0.3 JSON schema on JSON-RPC, the ProtoJSON of the 0.3 proto on
//! HTTP+JSON and gRPC).

use serde_json::{json, Map, Value};

use super::Form;

/// Rewrites the 1.0 params of `method` into the 0.3 form.
pub fn request(form: Form, method: &str, params: &Value) -> Value {
    let mut p: Map<String, Value> = params.as_object().cloned().unwrap_or_default();
    p.remove("tenant");
    let text = |p: &Map<String, Value>, k: &str| {
        p.get(k)
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_string()
    };
    match (method, form) {
        ("SendMessage" | "SendStreamingMessage", _) => {
            let mut out = Map::new();
            if let Some(message) = p.get("message") {
                out.insert("message".into(), message_out(form, message));
            }
            let configuration = p.get("configuration").cloned().unwrap_or(json!({}));
            let mut config = Map::new();
            // Blocking is set explicitly: its default differs between the 0.3 forms.
            let immediate = configuration
                .get("returnImmediately")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            config.insert("blocking".into(), json!(!immediate));
            for key in ["historyLength", "acceptedOutputModes"] {
                if let Some(v) = configuration.get(key) {
                    config.insert(key.into(), v.clone());
                }
            }
            if let Some(push) = configuration.get("taskPushNotificationConfig") {
                let name = match form {
                    Form::JsonRpc => "pushNotificationConfig",
                    Form::Proto => "pushNotification",
                };
                config.insert(name.into(), push_config_out(push));
            }
            out.insert("configuration".into(), Value::Object(config));
            if let Some(m) = p.get("metadata") {
                out.insert("metadata".into(), m.clone());
            }
            Value::Object(out)
        }
        ("GetTask" | "CancelTask" | "SubscribeToTask", Form::Proto) => {
            let mut out = json!({ "name": format!("tasks/{}", text(&p, "id")) });
            if let Some(n) = p.get("historyLength") {
                out["historyLength"] = n.clone();
            }
            out
        }
        ("CreateTaskPushNotificationConfig", Form::JsonRpc) => {
            let task = p.remove("taskId").unwrap_or(Value::Null);
            json!({ "taskId": task, "pushNotificationConfig": push_config_out(&Value::Object(p)) })
        }
        ("CreateTaskPushNotificationConfig", Form::Proto) => {
            let task = text(&p, "taskId");
            p.remove("taskId");
            json!({ "parent": format!("tasks/{task}"), "config": { "pushNotificationConfig": push_config_out(&Value::Object(p)) } })
        }
        ("GetTaskPushNotificationConfig" | "DeleteTaskPushNotificationConfig", Form::JsonRpc) => {
            json!({ "id": text(&p, "taskId"), "pushNotificationConfigId": text(&p, "id") })
        }
        ("GetTaskPushNotificationConfig" | "DeleteTaskPushNotificationConfig", Form::Proto) => {
            json!({ "name": format!("tasks/{}/pushNotificationConfigs/{}", text(&p, "taskId"), text(&p, "id")) })
        }
        ("ListTaskPushNotificationConfigs", Form::JsonRpc) => json!({ "id": text(&p, "taskId") }),
        ("ListTaskPushNotificationConfigs", Form::Proto) => {
            let mut out = json!({ "parent": format!("tasks/{}", text(&p, "taskId")) });
            for key in ["pageSize", "pageToken"] {
                if let Some(v) = p.get(key) {
                    out[key] = v.clone();
                }
            }
            out
        }
        _ => Value::Object(p),
    }
}

/// The 0.3 REST body of CreateTaskPushNotificationConfig, from the gRPC request `request`
/// (`{parent, config: {pushNotificationConfig}}`). The proto's HTTP rule makes the body the
/// `config` (a `TaskPushNotificationConfig`: `{name, pushNotificationConfig}`), which some SDKs
/// read (a2a-js); others parse the body as the whole request (a2a-python). The kit sends both
/// sets of members in one object: each reader finds its own and ignores the others as unknown
/// fields, so the push checks judge push, not this disagreement.
pub fn rest_push_config_body(request: Value) -> Value {
    let mut config = request.get("config").cloned().unwrap_or_else(|| json!({}));
    let parent = request
        .get("parent")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let id = (config.get("pushNotificationConfig"))
        .and_then(|c| c.get("id"))
        .and_then(Value::as_str)
        .filter(|id| !id.is_empty());
    config["name"] = json!(match id {
        Some(id) => format!("{parent}/pushNotificationConfigs/{id}"),
        None => parent.to_string(),
    });
    let mut body = request;
    if let (Value::Object(body), Value::Object(config)) = (&mut body, &config) {
        for (key, value) in config {
            body.insert(key.clone(), value.clone());
        }
    }
    body["config"] = config;
    body
}

/// A 1.0 push config (flat `TaskPushNotificationConfig`) as the 0.3 `PushNotificationConfig`
/// (`authentication.scheme` becomes `schemes[]`; the task id is not part of it).
fn push_config_out(config: &Value) -> Value {
    let mut out = Map::new();
    for key in ["id", "url", "token"] {
        if let Some(v) = config.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(auth) = config.get("authentication") {
        let mut a = Map::new();
        if let Some(scheme) = auth.get("scheme") {
            a.insert("schemes".into(), json!([scheme]));
        }
        if let Some(c) = auth.get("credentials") {
            a.insert("credentials".into(), c.clone());
        }
        out.insert("authentication".into(), Value::Object(a));
    }
    Value::Object(out)
}

/// A 1.0 message in the 0.3 form.
fn message_out(form: Form, message: &Value) -> Value {
    let mut m: Map<String, Value> = message.as_object().cloned().unwrap_or_default();
    let parts: Vec<Value> = m
        .remove("parts")
        .and_then(|p| p.as_array().cloned())
        .unwrap_or_default()
        .iter()
        .map(|part| part_out(form, part))
        .collect();
    match form {
        Form::JsonRpc => {
            let role = match m.get("role").and_then(Value::as_str) {
                Some("ROLE_AGENT") => "agent",
                _ => "user",
            };
            m.insert("role".into(), json!(role));
            m.insert("parts".into(), Value::Array(parts));
            m.insert("kind".into(), json!("message"));
        }
        Form::Proto => {
            m.insert("content".into(), Value::Array(parts));
        }
    }
    Value::Object(m)
}

/// A 1.0 part in the 0.3 form.
fn part_out(form: Form, part: &Value) -> Value {
    let get = |k: &str| part.get(k).cloned();
    let media = get("mediaType");
    let name = get("filename");
    let mut out = Map::new();
    match form {
        Form::JsonRpc => {
            if let Some(text) = get("text") {
                out.insert("kind".into(), json!("text"));
                out.insert("text".into(), text);
            } else if get("raw").is_some() || get("url").is_some() {
                let mut file = Map::new();
                if let Some(raw) = get("raw") {
                    file.insert("bytes".into(), raw);
                }
                if let Some(url) = get("url") {
                    file.insert("uri".into(), url);
                }
                if let Some(media) = media {
                    file.insert("mimeType".into(), media);
                }
                if let Some(name) = name {
                    file.insert("name".into(), name);
                }
                out.insert("kind".into(), json!("file"));
                out.insert("file".into(), Value::Object(file));
            } else if let Some(data) = get("data") {
                out.insert("kind".into(), json!("data"));
                out.insert("data".into(), data);
            }
        }
        Form::Proto => {
            if let Some(text) = get("text") {
                out.insert("text".into(), text);
            } else if get("raw").is_some() || get("url").is_some() {
                let mut file = Map::new();
                if let Some(raw) = get("raw") {
                    file.insert("fileWithBytes".into(), raw);
                }
                if let Some(url) = get("url") {
                    file.insert("fileWithUri".into(), url);
                }
                if let Some(media) = media {
                    file.insert("mimeType".into(), media);
                }
                out.insert("file".into(), Value::Object(file));
            } else if let Some(data) = get("data") {
                out.insert("data".into(), json!({ "data": data }));
            }
        }
    }
    if let Some(metadata) = get("metadata") {
        out.insert("metadata".into(), metadata);
    }
    Value::Object(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn requests_take_the_0_3_forms() {
        let send = json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}, {"data": {"a": 1}}]}});
        let rpc = request(Form::JsonRpc, "SendMessage", &send);
        assert_eq!(rpc["message"]["kind"], "message");
        assert_eq!(rpc["message"]["role"], "user");
        assert_eq!(
            rpc["message"]["parts"][0],
            json!({"kind": "text", "text": "hi"})
        );
        assert_eq!(
            rpc["message"]["parts"][1],
            json!({"kind": "data", "data": {"a": 1}})
        );
        assert_eq!(rpc["configuration"]["blocking"], true);
        let proto = request(Form::Proto, "SendMessage", &send);
        assert_eq!(
            proto["message"]["content"][1],
            json!({"data": {"data": {"a": 1}}})
        );
        assert_eq!(
            request(Form::Proto, "GetTask", &json!({"id": "t1"})),
            json!({"name": "tasks/t1"})
        );
    }
}

#[cfg(test)]
mod rest_push_body_tests {
    use super::*;

    #[test]
    fn the_rest_body_holds_the_config_and_the_whole_request() {
        let request = json!({
            "parent": "tasks/t1",
            "config": { "pushNotificationConfig": { "id": "c1", "url": "http://127.0.0.1:1/h" } },
        });
        let body = rest_push_config_body(request);
        // The proto's `body: "config"`: a TaskPushNotificationConfig.
        assert_eq!(body["name"], "tasks/t1/pushNotificationConfigs/c1");
        assert_eq!(
            body["pushNotificationConfig"]["url"],
            "http://127.0.0.1:1/h"
        );
        // The whole CreateTaskPushNotificationConfigRequest, for readers of that form.
        assert_eq!(body["parent"], "tasks/t1");
        assert_eq!(body["config"]["pushNotificationConfig"]["id"], "c1");
        assert_eq!(
            body["config"]["name"],
            "tasks/t1/pushNotificationConfigs/c1"
        );
    }
}

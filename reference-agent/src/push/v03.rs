//! The 0.3 forms of the push-config operations, around the 1.0 ones in [`super::ops`]:
//! JSON-RPC (`tasks/pushNotificationConfig/*`, types.ts JSON: `{taskId,
//! pushNotificationConfig}`, list answers a bare array, delete `null`) and the 0.3 proto
//! (resource names `tasks/{t}/pushNotificationConfigs/{c}`, `config.pushNotificationConfig`).

use serde_json::{json, Map, Value};

use super::ConfigVersion;
use crate::error::RpcError;
use crate::v03_codec::Dialect;

fn text<'a>(value: &'a Value, key: &str) -> &'a str {
    value.get(key).and_then(Value::as_str).unwrap_or_default()
}

/// A 0.3 `PushNotificationConfig` (`{id, url, token, authentication{schemes[],
/// credentials}}`) as the 1.0 flat config fields.
pub fn config_in(config: &Value) -> Map<String, Value> {
    let mut out = Map::new();
    for key in ["id", "url", "token"] {
        if let Some(v) = config.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(auth) = config.get("authentication").filter(|a| a.is_object()) {
        let scheme = auth
            .get("schemes")
            .and_then(Value::as_array)
            .and_then(|s| s.first())
            .and_then(Value::as_str)
            .or_else(|| auth.get("scheme").and_then(Value::as_str))
            .unwrap_or_default();
        out.insert(
            "authentication".into(),
            json!({ "scheme": scheme, "credentials": text(auth, "credentials") }),
        );
    }
    out
}

/// A 1.0 config (ProtoJSON) as the 0.3 `PushNotificationConfig`.
fn config_out(config: &Value) -> Value {
    let mut out = Map::new();
    for key in ["id", "url", "token"] {
        if let Some(v) = config.get(key) {
            out.insert(key.into(), v.clone());
        }
    }
    if let Some(auth) = config.get("authentication") {
        let mut a = Map::new();
        a.insert("schemes".into(), json!([text(auth, "scheme")]));
        if let Some(c) = auth.get("credentials") {
            a.insert("credentials".into(), c.clone());
        }
        out.insert("authentication".into(), Value::Object(a));
    }
    Value::Object(out)
}

/// A 1.0 config as the 0.3 `TaskPushNotificationConfig` of `dialect`.
fn task_config_out(dialect: Dialect, config: &Value) -> Value {
    match dialect {
        Dialect::JsonRpc => json!({
            "taskId": text(config, "taskId"),
            "pushNotificationConfig": config_out(config),
        }),
        Dialect::Proto => json!({
            "name": format!("tasks/{}/pushNotificationConfigs/{}", text(config, "taskId"), text(config, "id")),
            "pushNotificationConfig": config_out(config),
        }),
    }
}

/// `tasks/{t}` or `tasks/{t}/pushNotificationConfigs/{c}` as (t, c).
fn names(name: &str) -> (String, String) {
    let parts: Vec<&str> = name.split('/').collect();
    match parts.as_slice() {
        ["tasks", task] => ((*task).to_owned(), String::new()),
        ["tasks", task, "pushNotificationConfigs", id] => ((*task).to_owned(), (*id).to_owned()),
        _ => (String::new(), String::new()),
    }
}

/// The 1.0 params of a 0.3 push-config request.
fn request(dialect: Dialect, method: &str, params: &Value) -> Value {
    match (dialect, method) {
        (Dialect::JsonRpc, "CreateTaskPushNotificationConfig") => {
            let mut out = config_in(params.get("pushNotificationConfig").unwrap_or(&Value::Null));
            out.insert("taskId".into(), json!(text(params, "taskId")));
            Value::Object(out)
        }
        (Dialect::JsonRpc, "ListTaskPushNotificationConfigs") => {
            json!({ "taskId": text(params, "id") })
        }
        (Dialect::JsonRpc, _) => json!({
            "taskId": text(params, "id"),
            "id": text(params, "pushNotificationConfigId"),
        }),
        (Dialect::Proto, "CreateTaskPushNotificationConfig") => {
            // The proto's body is `config`; clients also send the config itself.
            let config = params.get("config").unwrap_or(params);
            let inner = config.get("pushNotificationConfig").unwrap_or(config);
            let mut out = config_in(inner);
            let (task, _) = names(text(params, "parent"));
            out.insert("taskId".into(), json!(task));
            let config_id = text(params, "configId");
            if !config_id.is_empty() && text(inner, "id").is_empty() {
                out.insert("id".into(), json!(config_id));
            }
            Value::Object(out)
        }
        (Dialect::Proto, "ListTaskPushNotificationConfigs") => {
            let (task, _) = names(text(params, "parent"));
            let mut out = json!({ "taskId": task });
            for key in ["pageSize", "pageToken"] {
                if let Some(v) = params.get(key) {
                    out[key] = v.clone();
                }
            }
            out
        }
        (Dialect::Proto, _) => {
            let (task, id) = names(text(params, "name"));
            json!({ "taskId": task, "id": id })
        }
    }
}

/// A 0.3 push-config operation (`method` is the 1.0 name): 0.3 params in, the 0.3 result
/// of `dialect` out.
pub fn call(
    store: &crate::store::Store,
    push: &super::ops::Push,
    dialect: Dialect,
    method: &str,
    params: Option<Value>,
) -> Result<Value, RpcError> {
    let params = params.unwrap_or(Value::Null);
    let mut request = request(dialect, method, &params);
    // 0.3 JSON-RPC Get without a config id (deprecated TaskIdParams): the task's first.
    if dialect == Dialect::JsonRpc
        && method == "GetTaskPushNotificationConfig"
        && text(&request, "id").is_empty()
    {
        let task = text(&request, "taskId").to_owned();
        if let Some(first) = push.configs.of_task(&task).first() {
            request["id"] = json!(first.id);
        }
    }
    let result = push.call(store, method, Some(request), ConfigVersion::V0_3)?;
    Ok(match method {
        "ListTaskPushNotificationConfigs" => {
            let configs: Vec<Value> = (result.get("configs").and_then(Value::as_array))
                .map(|c| c.iter().map(|c| task_config_out(dialect, c)).collect())
                .unwrap_or_default();
            match dialect {
                Dialect::JsonRpc => Value::Array(configs),
                Dialect::Proto => json!({
                    "configs": configs,
                    "nextPageToken": result.get("nextPageToken").cloned().unwrap_or(json!("")),
                }),
            }
        }
        "DeleteTaskPushNotificationConfig" => match dialect {
            Dialect::JsonRpc => Value::Null,
            Dialect::Proto => json!({}),
        },
        _ => task_config_out(dialect, &result),
    })
}

/// The inline config of a 0.3 send (`configuration.pushNotificationConfig` on JSON-RPC,
/// `configuration.pushNotification` in the proto) in the 1.0 form.
pub fn inline(dialect: Dialect, params: Option<&Value>) -> Option<Value> {
    let configuration = params?.get("configuration")?;
    let config = match dialect {
        Dialect::JsonRpc => configuration.get("pushNotificationConfig"),
        Dialect::Proto => configuration
            .get("pushNotification")
            .or(configuration.get("pushNotificationConfig")),
    }?;
    config.is_object().then(|| Value::Object(config_in(config)))
}

//! The four push-config operations in 1.0 ProtoJSON (`CreateTaskPushNotificationConfig`,
//! `Get…`, `List…`, `Delete…`), and the inline config of SendMessage. Errors: an unknown
//! task is TaskNotFoundError, as is an unknown config on Get (spec 1.0 §3.1.8); a webhook
//! that is not on loopback (unless allowed) is InvalidParams.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use super::deliver::config_json;
use super::{check_url, Authentication, ConfigVersion, PushConfig, PushPolicy, PushStore};
use crate::error::RpcError;
use crate::store::Store;

/// What the agent keeps for push: the configs and the faults of push.
#[derive(Debug)]
pub struct Push {
    pub configs: Arc<PushStore>,
    pub policy: PushPolicy,
}

fn text(params: &Map<String, Value>, names: &[&str]) -> String {
    names
        .iter()
        .find_map(|n| params.get(*n).and_then(Value::as_str))
        .unwrap_or_default()
        .to_owned()
}

fn object(params: Option<Value>) -> Result<Map<String, Value>, RpcError> {
    match params {
        Some(Value::Object(map)) => Ok(map),
        None | Some(Value::Null) => Ok(Map::new()),
        Some(_) => Err(RpcError::invalid_param("params", "must be an object")),
    }
}

/// A 1.0 `TaskPushNotificationConfig` (ProtoJSON or proto names) as a stored config of
/// `version`; `field` names it in errors.
pub fn parse_config(
    params: &Map<String, Value>,
    version: ConfigVersion,
    allow_any_host: bool,
    field: &str,
) -> Result<PushConfig, RpcError> {
    let url = text(params, &["url"]);
    if url.is_empty() {
        return Err(RpcError::invalid_param(format!("{field}url"), "required"));
    }
    check_url(&url, allow_any_host)
        .map_err(|why| RpcError::invalid_param(format!("{field}url"), why))?;
    let authentication = match params.get("authentication") {
        Some(Value::Object(auth)) => Some(Authentication {
            scheme: text(auth, &["scheme"]),
            credentials: text(auth, &["credentials"]),
        }),
        _ => None,
    };
    Ok(PushConfig {
        task_id: text(params, &["taskId", "task_id"]),
        id: text(params, &["id"]),
        url,
        token: text(params, &["token"]),
        authentication,
        version,
        seq: 0,
    })
}

impl Push {
    /// A push-config operation by its 1.0 name.
    pub fn call(
        &self,
        store: &Store,
        method: &str,
        params: Option<Value>,
        version: ConfigVersion,
    ) -> Result<Value, RpcError> {
        let params = object(params)?;
        let task_id = text(&params, &["taskId", "task_id"]);
        if task_id.is_empty() {
            return Err(RpcError::invalid_param("taskId", "required"));
        }
        let known = store.get(&task_id).is_some() || self.policy.unknown_task_accepted;
        if !known {
            return Err(RpcError::task_not_found(&task_id));
        }
        let id = text(&params, &["id"]);
        match method {
            "CreateTaskPushNotificationConfig" => {
                if self.policy.refuses_authentication && params.contains_key("authentication") {
                    return Err(RpcError::invalid_param(
                        "authentication",
                        "this form of authentication is not accepted",
                    ));
                }
                let mut config = parse_config(&params, version, self.policy.allow_any_host, "")?;
                config.task_id = task_id;
                if config.id.is_empty() && self.policy.default_id_is_task {
                    config.id = config.task_id.clone();
                }
                let stored = self.configs.put(config);
                let mut out = config_json(&stored);
                if self.policy.create_no_id {
                    if let Some(map) = out.as_object_mut() {
                        map.remove("id");
                    }
                }
                Ok(out)
            }
            "GetTaskPushNotificationConfig" => match self.configs.get(&task_id, &id) {
                Some(config) => {
                    let mut out = config_json(&config);
                    if self.policy.get_drops_url {
                        if let Some(map) = out.as_object_mut() {
                            map.remove("url");
                        }
                    }
                    Ok(out)
                }
                None if self.policy.get_unknown_internal => Err(RpcError::internal(format_args!(
                    "lookup of push config `{id}` failed"
                ))),
                None if self.policy.get_unknown_placeholder => {
                    Ok(json!({ "id": id, "taskId": task_id, "url": "" }))
                }
                // §3.1.8: Get of a config that does not exist is TaskNotFoundError.
                None => Err(RpcError::task_not_found(&task_id)),
            },
            "ListTaskPushNotificationConfigs" => {
                let mut configs = self.configs.of_task(&task_id);
                if self.policy.list_drops_last {
                    configs.pop();
                }
                let size = params
                    .get("pageSize")
                    .or(params.get("page_size"))
                    .and_then(|v| v.as_u64().or_else(|| v.as_str()?.parse().ok()))
                    .unwrap_or(0) as usize;
                let token = text(&params, &["pageToken", "page_token"]);
                let after: u64 = if self.policy.page_token_broken {
                    0
                } else {
                    token.parse().unwrap_or(0)
                };
                let rest: Vec<PushConfig> = configs.into_iter().filter(|c| c.seq > after).collect();
                let (page, next) = if size > 0 && rest.len() > size {
                    (&rest[..size], rest[size - 1].seq.to_string())
                } else {
                    (&rest[..], String::new())
                };
                Ok(json!({
                    "configs": page.iter().map(config_json).collect::<Vec<_>>(),
                    "nextPageToken": next,
                }))
            }
            "DeleteTaskPushNotificationConfig" => {
                if self.policy.delete_again_internal && self.configs.get(&task_id, &id).is_none() {
                    return Err(RpcError::internal(format_args!(
                        "push config `{id}` could not be deleted"
                    )));
                }
                if !self.policy.delete_not_deleted {
                    let keep_calling = self.policy.after_delete
                        || (self.policy.after_delete_once_delivered
                            && self.configs.was_delivered(&task_id, &id));
                    self.configs.remove(&task_id, &id, keep_calling);
                }
                Ok(json!({}))
            }
            _ => Err(RpcError::method_not_found(method)),
        }
    }

    /// What registers the inline config (1.0 form) of a send once its task exists, if any.
    pub fn on_start(
        &self,
        inline: Option<&Value>,
        version: ConfigVersion,
    ) -> Result<Option<crate::store::OnStart>, RpcError> {
        Ok(self.inline(inline, version)?.map(|config| {
            let configs = Arc::clone(&self.configs);
            let default_id_is_task = self.policy.default_id_is_task;
            Box::new(move |task_id: &str| {
                let mut config = config;
                config.task_id = task_id.to_owned();
                if config.id.is_empty() && default_id_is_task {
                    config.id = config.task_id.clone();
                }
                configs.put_inline(config);
            }) as crate::store::OnStart
        }))
    }

    /// The inline config of a SendMessage (`configuration.taskPushNotificationConfig`, 1.0
    /// form), ready to store once the task exists; `None` when there is none (or the agent
    /// ignores it, under a fault).
    pub fn inline(
        &self,
        config: Option<&Value>,
        version: ConfigVersion,
    ) -> Result<Option<PushConfig>, RpcError> {
        let Some(Value::Object(config)) = config else {
            return Ok(None);
        };
        if self.policy.inline_ignored {
            return Ok(None);
        }
        let field = "configuration.taskPushNotificationConfig.";
        parse_config(config, version, self.policy.allow_any_host, field).map(Some)
    }
}

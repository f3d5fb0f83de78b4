//! A2A 0.3 served beside 1.0: the 0.3 operations as a codec (`crate::v03_codec`)
//! around the one 1.0 core in [`crate::service`], so both versions share one
//! store. JSON-RPC 0.3 uses the slash methods ([`call`], [`stream`]: 0.3 requests in,
//! conformant 1.0 results out, which the adapter shapes as 0.3 through `crate::shape`);
//! 0.3 REST and 0.3 gRPC use the rpc names of the `a2a.v1` proto ([`call_proto03`],
//! [`stream_proto03`]), whose results are already shaped as that proto's ProtoJSON.

use std::sync::Arc;

use futures::stream::StreamExt;
use serde_json::{json, Value};

use crate::app::App;
use crate::error::RpcError;
use crate::service::{self, EventStream};
use crate::shape::Wire;
use crate::v03_codec::{self as codec, Dialect};
use crate::version::Version;
use crate::wire::{self, Artifacts, TaskView};

/// The JSON-RPC 0.3 methods.
const METHODS: &[&str] = &[
    "message/send",
    "message/stream",
    "tasks/get",
    "tasks/cancel",
    "tasks/resubscribe",
    "tasks/pushNotificationConfig/set",
    "tasks/pushNotificationConfig/get",
    "tasks/pushNotificationConfig/list",
    "tasks/pushNotificationConfig/delete",
    "agent/getAuthenticatedExtendedCard",
];

/// Whether `method` is a JSON-RPC 0.3 method.
pub fn is_method(method: &str) -> bool {
    METHODS.contains(&method)
}

/// Whether the JSON-RPC 0.3 `method` answers with a stream ([`stream`]).
pub fn is_streaming(method: &str) -> bool {
    matches!(method, "message/stream" | "tasks/resubscribe")
}

/// The 1.0 push-config method a 0.3 one maps to (push is not declared: the
/// core answers PushNotificationNotSupportedError).
fn push_method(method: &str) -> Option<&'static str> {
    Some(match method {
        "tasks/pushNotificationConfig/set" | "CreateTaskPushNotificationConfig" => {
            "CreateTaskPushNotificationConfig"
        }
        "tasks/pushNotificationConfig/get" | "GetTaskPushNotificationConfig" => {
            "GetTaskPushNotificationConfig"
        }
        "tasks/pushNotificationConfig/list" | "ListTaskPushNotificationConfig" => {
            "ListTaskPushNotificationConfigs"
        }
        "tasks/pushNotificationConfig/delete" | "DeleteTaskPushNotificationConfig" => {
            "DeleteTaskPushNotificationConfig"
        }
        _ => return None,
    })
}

/// The card declares no extended card (`supportsAuthenticatedExtendedCard` false):
/// UnsupportedOperationError, as 1.0 answers GetExtendedAgentCard, rather than
/// 0.3's -32007 (which reads "configured but unavailable" more than "not offered").
fn no_extended_card() -> RpcError {
    RpcError::unsupported_operation(
        "no authenticated extended card (supportsAuthenticatedExtendedCard is false)",
    )
}

/// A 0.3 SendMessage request as the 1.0 one, refusing what the policy refuses.
fn send_request(
    app: &App,
    dialect: Dialect,
    params: Option<Value>,
) -> Result<Option<Value>, RpcError> {
    let params = codec::send_request(dialect, params);
    if app.policy.requests.v03_refuse_data_only_follow_up {
        let message = params.as_ref().and_then(|p| p.get("message"));
        let follow_up = message
            .and_then(|m| m.get("taskId"))
            .and_then(Value::as_str)
            .is_some_and(|id| !id.is_empty());
        let data_only = message
            .and_then(|m| m.get("parts"))
            .and_then(Value::as_array)
            .is_some_and(|parts| {
                !parts.is_empty() && parts.iter().all(|p| p.get("data").is_some())
            });
        if follow_up && data_only {
            return Err(RpcError::invalid_param(
                "message.parts",
                "a follow-up message must contain a text part",
            ));
        }
    }
    Ok(params)
}

/// SendMessage of a 0.3 request; the task it makes is recorded as made by 0.3.
fn send(app: &App, dialect: Dialect, params: Option<Value>) -> Result<Value, RpcError> {
    let inline = crate::push::v03::inline(dialect, params.as_ref());
    let params = send_request(app, dialect, params)?;
    let version = crate::push::ConfigVersion::V0_3;
    let result = service::send_message_as(app.core(), params, inline.as_ref(), version)?;
    if let Some(id) = result.pointer("/task/id").and_then(Value::as_str) {
        app.store.set_origin(id, Version::V0_3);
    }
    Ok(result)
}

/// GetTask of a 0.3 request (which may see only the tasks 0.3 made, by the policy).
fn get_task(app: &App, params: Option<Value>) -> Result<Value, RpcError> {
    if app.policy.isolation.v03_reads_own_tasks_only {
        let id = params
            .as_ref()
            .and_then(|p| p.get("id"))
            .and_then(Value::as_str)
            .unwrap_or_default();
        if app.store.origin(id) != Some(Version::V0_3) {
            return Err(RpcError::task_not_found(id));
        }
    }
    service::call(app.core(), "GetTask", params)
}

/// Unary JSON-RPC 0.3 methods: `types.ts` params in, the 1.0 result out.
pub fn call(app: &App, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
    match method {
        "message/send" => send(app, Dialect::JsonRpc, params),
        // TaskQueryParams{id, historyLength, metadata} / TaskIdParams{id, metadata}
        // read as the 1.0 params (unknown members are ignored).
        "tasks/get" => get_task(app, params),
        "tasks/cancel" => service::call(app.core(), "CancelTask", params),
        "agent/getAuthenticatedExtendedCard" => {
            crate::auth::extended_card(app.extended.as_ref(), &app.policy.auth, |c| &c.v03_json)
                .unwrap_or_else(|| Err(no_extended_card()))
        }
        _ => match (push_method(method), &app.push) {
            (Some(method), Some(push)) => {
                crate::push::v03::call(&app.store, push, Dialect::JsonRpc, method, params)
            }
            (Some(method), None) => service::call(app.core(), method, params),
            (None, _) => Err(crate::methods::unknown_method(&app.policy.service, method)),
        },
    }
}

/// Streaming JSON-RPC 0.3 methods: the 1.0 `StreamResponse`s, which the adapter shapes
/// as 0.3 events (a Task, Message, status-update or artifact-update, with `kind`).
pub fn stream(
    app: &Arc<App>,
    method: &str,
    params: Option<Value>,
) -> Result<EventStream, RpcError> {
    match method {
        "message/stream" => {
            let inline = crate::push::v03::inline(Dialect::JsonRpc, params.as_ref());
            let params = send_request(app, Dialect::JsonRpc, params)?;
            let version = crate::push::ConfigVersion::V0_3;
            crate::stream::stream_as(
                app.core(),
                "SendStreamingMessage",
                params,
                inline.as_ref(),
                version,
            )
        }
        "tasks/resubscribe" => subscribe(app, params),
        _ => Err(crate::methods::unknown_method(&app.policy.service, method)),
    }
}

/// SubscribeToTask with the 0.3 behaviour on a terminal task (0.3 proto comment
/// on TaskSubscription): the Task, then the stream closes, instead of 1.0's
/// UnsupportedOperationError. Events are 1.0 `StreamResponse`s.
fn subscribe(app: &Arc<App>, params: Option<Value>) -> Result<EventStream, RpcError> {
    let streams = app.policy.streams();
    let id = params
        .as_ref()
        .and_then(|p| p.get("id"))
        .and_then(Value::as_str);
    let terminal = id
        .and_then(|id| app.store.get(id))
        .filter(|task| streams && task.status.state.is_terminal());
    if let Some(task) = terminal {
        if app.policy.subscribe.v03_finished_refused {
            return Err(RpcError::unsupported_operation(format_args!(
                "task {} is in a terminal state",
                task.id
            )));
        }
        if app.policy.subscribe.v03_finished_empty {
            return Ok(futures::stream::empty().boxed());
        }
        let view = TaskView {
            history_length: None,
            window: app.policy.service.history,
            artifacts: Artifacts::NonEmpty,
        };
        let mut event = wire::task(&task, view).map(|task| json!({ "task": task }));
        if app.policy.subscribe.v03_finished_wrong_task {
            if let Ok(event) = event.as_mut() {
                event["task"]["id"] = json!(format!("{}-other", task.id));
            }
        }
        return Ok(futures::stream::once(async move { event }).boxed());
    }
    service::stream(app.core(), "SubscribeToTask", params)
}

/// The task id in a 0.3 resource name `tasks/{id}` (field `field` of `params`).
fn task_name(params: &Value, field: &str) -> Result<String, RpcError> {
    match params.get(field) {
        None | Some(Value::Null) => Err(RpcError::invalid_param(field, "required: tasks/{id}")),
        Some(Value::String(name)) => match name.strip_prefix("tasks/") {
            Some(id) if !id.is_empty() && !id.contains('/') => Ok(id.to_owned()),
            _ => Err(RpcError::invalid_param(
                field,
                format!("`{name}` is not of the form tasks/{{id}}"),
            )),
        },
        Some(_) => Err(RpcError::invalid_param(
            field,
            "must be a string tasks/{id}",
        )),
    }
}

/// The unary rpcs of the 0.3 proto (`a2a.v1.A2AService`), for 0.3 gRPC and REST:
/// 0.3 ProtoJSON request in, 0.3 ProtoJSON response out (shaped: what the agent sends).
/// `rpc` is one of `SendMessage`, `GetTask`, `CancelTask`, `CreateTaskPushNotificationConfig`,
/// `GetTaskPushNotificationConfig`, `ListTaskPushNotificationConfig`,
/// `DeleteTaskPushNotificationConfig`, `GetAgentCard`. The caller has
/// negotiated version 0.3.
pub fn call_proto03(app: &App, rpc: &str, params: Value) -> Result<Value, RpcError> {
    let result = match rpc {
        "SendMessage" => send(app, Dialect::Proto, Some(params)),
        "GetTask" => {
            let id = task_name(&params, "name")?;
            let mut request = json!({ "id": id });
            match params.get("historyLength").or(params.get("history_length")) {
                // The 0.3 proto: "if 0, the history will be unlimited".
                None | Some(Value::Null) => {}
                Some(n) if n.as_i64() == Some(0) => {}
                Some(n) => request["historyLength"] = n.clone(),
            }
            service::call(app.core(), "GetTask", Some(request))
        }
        "CancelTask" => {
            let id = task_name(&params, "name")?;
            service::call(app.core(), "CancelTask", Some(json!({ "id": id })))
        }
        "GetAgentCard" => {
            crate::auth::extended_card(app.extended.as_ref(), &app.policy.auth, |c| &c.v03_proto)
                .unwrap_or_else(|| Err(no_extended_card()))
        }
        _ => match (push_method(rpc), &app.push) {
            (Some(method), Some(push)) => {
                crate::push::v03::call(&app.store, push, Dialect::Proto, method, Some(params))
            }
            (Some(method), None) => service::call(app.core(), method, Some(params)),
            (None, _) => Err(crate::methods::unknown_method(&app.policy.service, rpc)),
        },
    }?;
    Ok(app.shape.result(Wire::V0_3(Dialect::Proto), rpc, result))
}

/// The streaming rpcs of the 0.3 proto, `SendStreamingMessage` and
/// `TaskSubscription`: each item is a 0.3 ProtoJSON `StreamResponse` (shaped).
pub fn stream_proto03(app: &Arc<App>, rpc: &str, params: Value) -> Result<EventStream, RpcError> {
    let events = match rpc {
        "SendStreamingMessage" => {
            let inline = crate::push::v03::inline(Dialect::Proto, Some(&params));
            let params = send_request(app, Dialect::Proto, Some(params))?;
            let version = crate::push::ConfigVersion::V0_3;
            crate::stream::stream_as(
                app.core(),
                "SendStreamingMessage",
                params,
                inline.as_ref(),
                version,
            )?
        }
        "TaskSubscription" => {
            let id = task_name(&params, "name")?;
            subscribe(app, Some(json!({ "id": id })))?
        }
        _ => return Err(crate::methods::unknown_method(&app.policy.service, rpc)),
    };
    Ok(app.shape.events(Wire::V0_3(Dialect::Proto), events))
}

/// Whether the 0.3 proto `rpc` is a streaming one ([`stream_proto03`]).
pub fn is_streaming_proto03(rpc: &str) -> bool {
    matches!(rpc, "SendStreamingMessage" | "TaskSubscription")
}

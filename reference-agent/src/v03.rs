//! A2A 0.3 served beside 1.0: the 0.3 operations as a codec ([`crate::v03_codec`])
//! around the one 1.0 core in [`crate::service`], so both versions share one
//! store. JSON-RPC 0.3 uses the slash methods ([`call`], [`stream`]); 0.3 REST
//! and 0.3 gRPC use the rpc names of the `a2a.v1` proto ([`call_proto03`],
//! [`stream_proto03`]) with ProtoJSON of that proto.

use std::sync::Arc;

use futures::stream::StreamExt;
use serde_json::{json, Value};

use crate::error::RpcError;
use crate::fault::Fault;
use crate::service::{self, EventStream};
use crate::v03_codec::{self as codec, Dialect};
use crate::wire::{self, Artifacts, TaskView};
use crate::App;

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

/// Unary JSON-RPC 0.3 methods: `types.ts` params in, `types.ts` result out.
pub fn call(app: &App, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
    let config = &app.config;
    let shapes_1_0 = config.has(Fault::V03Answers10Shapes);
    let task = |result: Value| {
        if shapes_1_0 {
            result
        } else {
            codec::task_out(Dialect::JsonRpc, result, config)
        }
    };
    match method {
        "message/send" => {
            let params = codec::send_request(Dialect::JsonRpc, params, config)?;
            let result = service::call(app, "SendMessage", params)?;
            if config.has(Fault::CrossVersionIsolated) {
                if let (Some(id), Ok(mut made)) = (
                    result.pointer("/task/id").and_then(Value::as_str),
                    app.v03_tasks.lock(),
                ) {
                    made.insert(id.to_owned());
                }
            }
            if shapes_1_0 {
                return Ok(result);
            }
            Ok(codec::send_result(Dialect::JsonRpc, result, config))
        }
        // With `cross-version-isolated`, 0.3 sees only the tasks 0.3 made.
        "tasks/get" if config.has(Fault::CrossVersionIsolated) => {
            let id = params
                .as_ref()
                .and_then(|p| p.get("id"))
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_owned();
            let made = app
                .v03_tasks
                .lock()
                .map(|m| m.contains(&id))
                .unwrap_or(false);
            if made {
                service::call(app, "GetTask", params).map(task)
            } else {
                Err(RpcError::task_not_found(&id))
            }
        }
        // TaskQueryParams{id, historyLength, metadata} / TaskIdParams{id, metadata}
        // read as the 1.0 params (unknown members are ignored).
        "tasks/get" => service::call(app, "GetTask", params).map(task),
        "tasks/cancel" => service::call(app, "CancelTask", params).map(task),
        "agent/getAuthenticatedExtendedCard" => Err(no_extended_card()),
        _ => match push_method(method) {
            Some(method) => service::call(app, method, params),
            None => Err(service::unknown_method(config, method)),
        },
    }
}

/// Streaming JSON-RPC 0.3 methods: each item is the `result` of one SSE event
/// (a Task, Message, status-update or artifact-update, with `kind`).
pub fn stream(
    app: &Arc<App>,
    method: &str,
    params: Option<Value>,
) -> Result<EventStream, RpcError> {
    let config = &app.config;
    let events = match method {
        "message/stream" => {
            let params = codec::send_request(Dialect::JsonRpc, params, config)?;
            service::stream(app, "SendStreamingMessage", params)?
        }
        "tasks/resubscribe" => subscribe(app, params)?,
        _ => return Err(service::unknown_method(config, method)),
    };
    if config.has(Fault::V03Answers10Shapes) {
        return Ok(events);
    }
    Ok(convert_events(app, Dialect::JsonRpc, events))
}

fn convert_events(app: &App, dialect: Dialect, events: EventStream) -> EventStream {
    let config = app.config.clone();
    events
        .map(move |event| event.map(|event| codec::event_out(dialect, event, &config)))
        .boxed()
}

/// SubscribeToTask with the 0.3 behaviour on a terminal task (0.3 proto comment
/// on TaskSubscription): the Task, then the stream closes, instead of 1.0's
/// UnsupportedOperationError. Events are 1.0 `StreamResponse`s.
fn subscribe(app: &Arc<App>, params: Option<Value>) -> Result<EventStream, RpcError> {
    let config = &app.config;
    let streams = config.streams();
    let id = params
        .as_ref()
        .and_then(|p| p.get("id"))
        .and_then(Value::as_str);
    let terminal = id
        .and_then(|id| app.store.get(id))
        .filter(|task| streams && task.status.state.is_terminal());
    if let Some(task) = terminal {
        let view = TaskView {
            history_length: None,
            artifacts: Artifacts::NonEmpty,
        };
        let event = wire::task(&task, view, config).map(|task| json!({ "task": task }));
        return Ok(futures::stream::once(async move { event }).boxed());
    }
    service::stream(app, "SubscribeToTask", params)
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
/// 0.3 ProtoJSON request in, 0.3 ProtoJSON response out. `rpc` is one of
/// `SendMessage`, `GetTask`, `CancelTask`, `CreateTaskPushNotificationConfig`,
/// `GetTaskPushNotificationConfig`, `ListTaskPushNotificationConfig`,
/// `DeleteTaskPushNotificationConfig`, `GetAgentCard`. The caller has
/// negotiated version 0.3.
pub fn call_proto03(app: &App, rpc: &str, params: Value) -> Result<Value, RpcError> {
    let config = &app.config;
    let task = |result: Value| codec::task_out(Dialect::Proto, result, config);
    match rpc {
        "SendMessage" => {
            let params = codec::send_request(Dialect::Proto, Some(params), config)?;
            let result = service::call(app, "SendMessage", params)?;
            Ok(codec::send_result(Dialect::Proto, result, config))
        }
        "GetTask" => {
            let id = task_name(&params, "name")?;
            let mut request = json!({ "id": id });
            match params.get("historyLength").or(params.get("history_length")) {
                // The 0.3 proto: "if 0, the history will be unlimited".
                None | Some(Value::Null) => {}
                Some(n) if n.as_i64() == Some(0) => {}
                Some(n) => request["historyLength"] = n.clone(),
            }
            service::call(app, "GetTask", Some(request)).map(task)
        }
        "CancelTask" => {
            let id = task_name(&params, "name")?;
            service::call(app, "CancelTask", Some(json!({ "id": id }))).map(task)
        }
        "GetAgentCard" => Err(no_extended_card()),
        _ => match push_method(rpc) {
            Some(method) => service::call(app, method, Some(params)),
            None => Err(service::unknown_method(config, rpc)),
        },
    }
}

/// The streaming rpcs of the 0.3 proto, `SendStreamingMessage` and
/// `TaskSubscription`: each item is a 0.3 ProtoJSON `StreamResponse`.
pub fn stream_proto03(app: &Arc<App>, rpc: &str, params: Value) -> Result<EventStream, RpcError> {
    let config = &app.config;
    let events = match rpc {
        "SendStreamingMessage" => {
            let params = codec::send_request(Dialect::Proto, Some(params), config)?;
            service::stream(app, "SendStreamingMessage", params)?
        }
        "TaskSubscription" => {
            let id = task_name(&params, "name")?;
            subscribe(app, Some(json!({ "id": id })))?
        }
        _ => return Err(service::unknown_method(config, rpc)),
    };
    Ok(convert_events(app, Dialect::Proto, events))
}

/// Whether the 0.3 proto `rpc` is a streaming one ([`stream_proto03`]).
pub fn is_streaming_proto03(rpc: &str) -> bool {
    matches!(rpc, "SendStreamingMessage" | "TaskSubscription")
}

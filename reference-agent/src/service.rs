//! The binding-neutral service: version negotiation, unary calls and streams
//! by 1.0 method name, with ProtoJSON in and out. JSON-RPC and REST (and a
//! gRPC adapter elsewhere) are thin adapters over these functions.

use serde_json::{json, Map, Value};

use crate::error::RpcError;
use crate::params;
use crate::parts::Core;
use crate::store::SendReply;
use crate::wire::{self, Artifacts, TaskView};

use crate::methods::unknown_method;
pub use crate::stream::{stream, EventStream};

/// Unary operations by 1.0 method name: ProtoJSON params in, conformant ProtoJSON result
/// out (the adapters pass it through `crate::shape`).
pub fn call(core: Core<'_>, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
    let policy = &core.policy.service;
    let view = |history_length| TaskView {
        history_length,
        window: policy.history,
        artifacts: Artifacts::NonEmpty,
    };
    match method {
        "SendMessage" => {
            let inline = params
                .as_ref()
                .and_then(|p| p.pointer("/configuration/taskPushNotificationConfig"))
                .cloned();
            send_message_as(
                core,
                params,
                inline.as_ref(),
                crate::push::ConfigVersion::V1_0,
            )
        }
        "GetTask" => {
            let params = params::get_task(params)?;
            if let (true, Some(keep)) = (policy.get_trims_store, params.history_length) {
                core.store.keep_last_messages(&params.id, keep);
            }
            match core.store.get(&params.id) {
                Some(task) => wire::task(&task, view(params.history_length)),
                None if policy.get_unknown_null => Ok(Value::Null),
                None => Err(RpcError::task_not_found(&params.id)),
            }
        }
        "CancelTask" => {
            let id = params::task_id(params)?;
            wire::task(&core.store.cancel(&id)?, view(None))
        }
        "ListTasks" => list_tasks(core, params),
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig"
            if core.push.is_some() =>
        {
            let push = core.push.ok_or_else(|| RpcError::internal("no push"))?;
            push.call(core.store, method, params, crate::push::ConfigVersion::V1_0)
        }
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig" => Err(if policy.push_answers_unsupported {
            RpcError::unsupported_operation("push notifications are not supported")
        } else {
            RpcError::push_notification_not_supported()
        }),
        "GetExtendedAgentCard" if policy.extended_card_method_not_found => {
            Err(RpcError::method_not_found(method))
        }
        "GetExtendedAgentCard" => {
            match crate::auth::extended_card(core.extended, &core.policy.auth, |c| &c.v10) {
                Some(answer) => answer,
                None => Err(RpcError::unsupported_operation(
                    "no extended agent card (capabilities.extendedAgentCard is false)",
                )),
            }
        }
        _ => Err(unknown_method(policy, method)),
    }
}

/// SendMessage, with the push config sent inline (1.0 form) made through `version`.
pub(crate) fn send_message_as(
    core: Core<'_>,
    params: Option<Value>,
    inline: Option<&Value>,
    version: crate::push::ConfigVersion,
) -> Result<Value, RpcError> {
    let policy = &core.policy.service;
    let extra_data_part = crate::quirks::ignores_output_modes(core.policy, params.as_ref());
    let params = params::send_message(params, &core.policy.requests)?;
    let blocking = !params.return_immediately;
    let on_start = match core.push {
        Some(push) => push.on_start(inline, version)?,
        None => None,
    };
    let (member, value) = match core.store.send_with(params.message, blocking, on_start)? {
        SendReply::Task(task) => {
            let artifacts = if blocking && !policy.blocking_shows_artifacts {
                Artifacts::Omit
            } else {
                Artifacts::NonEmpty
            };
            let view = TaskView {
                history_length: params.history_length,
                window: policy.history,
                artifacts,
            };
            ("task", wire::task(&task, view)?)
        }
        SendReply::Message(message) => ("message", wire::message(&message)?),
    };
    let mut value = value;
    if extra_data_part {
        crate::quirks::add_data_part(&mut value);
    }
    Ok(json!({ member: value }))
}

fn list_tasks(core: Core<'_>, params: Option<Value>) -> Result<Value, RpcError> {
    let policy = &core.policy.service;
    let (params, page_size) = crate::quirks::list_page_size(core.policy, params);
    let mut params = params::list_tasks(params)?;
    if let Some(page_size) = page_size {
        params.query.page_size = page_size;
    }
    let page = core.store.list(&params.query)?;
    // Requested artifacts are listed even when empty (§3.1.4), unrequested ones omitted.
    let artifacts = if params.include_artifacts {
        Artifacts::Always
    } else if policy.list_shows_artifacts_by_default {
        Artifacts::NonEmpty
    } else {
        Artifacts::Omit
    };
    let view = TaskView {
        history_length: params.history_length,
        window: policy.history,
        artifacts,
    };
    let tasks = page
        .tasks
        .iter()
        .map(|task| wire::task(task, view))
        .collect::<Result<Vec<_>, _>>()?;
    let mut response = Map::new();
    response.insert("tasks".to_owned(), Value::Array(tasks));
    let token = page.next_page_token.unwrap_or_default();
    response.insert("nextPageToken".to_owned(), Value::String(token));
    response.insert("pageSize".to_owned(), json!(params.query.page_size));
    response.insert("totalSize".to_owned(), json!(page.total_size));
    Ok(Value::Object(response))
}

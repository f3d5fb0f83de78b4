//! The binding-neutral service: version negotiation, unary calls and streams
//! by 1.0 method name, with ProtoJSON in and out. JSON-RPC and REST (and a
//! gRPC adapter elsewhere) are thin adapters over these functions.

use serde_json::{json, Map, Value};

use crate::error::RpcError;
use crate::policy::{ServicePolicy, Streaming, VersionPolicy};
use crate::store::SendReply;
use crate::wire::{self, Artifacts, TaskView};
use crate::{params, App};

pub use crate::stream::{stream, EventStream};

/// A protocol version the interfaces serve, picked per request by `A2A-Version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// A2A 0.3 (slash methods, `kind` discriminators, `/v1` REST routes).
    V0_3,
    /// A2A 1.0.
    V1_0,
}

/// Parses `Major.Minor[.Patch]`, ignoring the patch.
fn major_minor(version: &str) -> Option<(u64, u64)> {
    let mut numbers = version.split('.').map(|n| {
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            n.parse::<u64>().ok()
        } else {
            None
        }
    });
    let major = numbers.next()??;
    let minor = numbers.next()??;
    match (numbers.next(), numbers.next()) {
        (None, _) | (Some(Some(_)), None) => Some((major, minor)),
        _ => None,
    }
}

/// Version negotiation; `requested` is the A2A-Version header / gRPC metadata
/// value (or the REST query parameter), `None` when absent. An absent or empty
/// value means 0.3 (1.0 §3.6.2); `0.3[.x]` and `1.0[.x]` are served (the patch
/// is not considered, §3.6); anything else is VersionNotSupportedError.
pub fn negotiate_version(
    policy: &VersionPolicy,
    requested: Option<&str>,
) -> Result<Version, RpcError> {
    if policy.always_1_0 {
        return Ok(Version::V1_0);
    }
    let requested = requested.map(str::trim).unwrap_or_default();
    if requested.is_empty() {
        if policy.missing_means_1_0 {
            return Ok(Version::V1_0);
        }
        return Ok(Version::V0_3);
    }
    let has_patch = requested.split('.').count() > 2;
    if has_patch && policy.reject_patch {
        return Err(RpcError::version_not_supported(requested));
    }
    match major_minor(requested) {
        Some((1, 0)) => Ok(Version::V1_0),
        Some((0, 3)) => Ok(Version::V0_3),
        _ => Err(RpcError::version_not_supported(requested)),
    }
}

/// The version check of an interface that serves only 1.0 (the `lf.a2a.v1`
/// gRPC service): a request negotiated as 0.3 gets VersionNotSupportedError.
pub fn check_version(policy: &VersionPolicy, requested: Option<&str>) -> Result<(), RpcError> {
    match negotiate_version(policy, requested)? {
        Version::V1_0 => Ok(()),
        Version::V0_3 => {
            let requested = requested.map(str::trim).unwrap_or_default();
            Err(RpcError::version_not_supported(if requested.is_empty() {
                "0.3"
            } else {
                requested
            }))
        }
    }
}

/// Whether `method` is answered with a stream ([`stream`]) rather than [`call`].
pub fn is_streaming(method: &str) -> bool {
    matches!(method, "SendStreamingMessage" | "SubscribeToTask")
}

/// Unary operations by 1.0 method name: ProtoJSON params in, conformant ProtoJSON result
/// out (the adapters pass it through `crate::shape`).
pub fn call(app: &App, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
    let policy = &app.policy.service;
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
                app,
                params,
                inline.as_ref(),
                crate::push::ConfigVersion::V1_0,
            )
        }
        "GetTask" => {
            let params = params::get_task(params)?;
            match app.store.get(&params.id) {
                Some(task) => wire::task(&task, view(params.history_length)),
                None if policy.get_unknown_null => Ok(Value::Null),
                None => Err(RpcError::task_not_found(&params.id)),
            }
        }
        "CancelTask" => {
            let id = params::task_id(params)?;
            wire::task(&app.store.cancel(&id)?, view(None))
        }
        "ListTasks" => list_tasks(app, params),
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig"
            if app.push.is_some() =>
        {
            let push = app
                .push
                .as_ref()
                .ok_or_else(|| RpcError::internal("no push"))?;
            push.call(app, method, params, crate::push::ConfigVersion::V1_0)
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
        "GetExtendedAgentCard" => match crate::auth::extended_card(app, |c| &c.v10) {
            Some(answer) => answer,
            None => Err(RpcError::unsupported_operation(
                "no extended agent card (capabilities.extendedAgentCard is false)",
            )),
        },
        _ => Err(unknown_method(policy, method)),
    }
}

pub(crate) fn unknown_method(policy: &ServicePolicy, method: &str) -> RpcError {
    if policy.unknown_method_invalid_request {
        RpcError::invalid_request(format_args!("unknown method `{method}`"))
    } else {
        RpcError::method_not_found(method)
    }
}

/// The error of a streaming method when the agent does not stream.
pub(crate) fn streaming_refused(policy: &ServicePolicy, method: &str) -> Option<RpcError> {
    match policy.streaming {
        Streaming::On => None,
        Streaming::OffMethodNotFound => Some(RpcError::method_not_found(method)),
        Streaming::Off => Some(RpcError::unsupported_operation(
            "streaming is not supported (capabilities.streaming is false)",
        )),
    }
}

/// SendMessage, with the push config sent inline (1.0 form) made through `version`.
pub(crate) fn send_message_as(
    app: &App,
    params: Option<Value>,
    inline: Option<&Value>,
    version: crate::push::ConfigVersion,
) -> Result<Value, RpcError> {
    let policy = &app.policy.service;
    let extra_data_part = crate::quirks::ignores_output_modes(app, params.as_ref());
    let params = params::send_message(params, &app.policy.requests)?;
    let blocking = !params.return_immediately;
    let on_start = match &app.push {
        Some(push) => push.on_start(inline, version)?,
        None => None,
    };
    let (member, value) = match app.store.send_with(params.message, blocking, on_start)? {
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

fn list_tasks(app: &App, params: Option<Value>) -> Result<Value, RpcError> {
    let policy = &app.policy.service;
    let (params, page_size) = crate::quirks::list_page_size(app, params);
    let mut params = params::list_tasks(params)?;
    if let Some(page_size) = page_size {
        params.query.page_size = page_size;
    }
    let page = app.store.list(&params.query)?;
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

#[cfg(test)]
mod tests {
    use super::major_minor;

    #[test]
    fn version_parsing_ignores_patch() {
        assert_eq!(major_minor("1.0"), Some((1, 0)));
        assert_eq!(major_minor("1.0.7"), Some((1, 0)));
        assert_eq!(major_minor("99.0"), Some((99, 0)));
        for bad in [
            "", "1", "1.", "1.0.", "1.0.0.0", "v1.0", "1.x", "garbage", "1.0-rc1",
        ] {
            assert_eq!(major_minor(bad), None, "{bad}");
        }
    }
}

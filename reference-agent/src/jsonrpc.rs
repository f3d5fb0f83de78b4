//! The JSON-RPC 2.0 endpoint: envelope, A2A-Version check, dispatch and responses.
//!
//! Validation order: parse JSON, envelope, version header, method, params.
//! A valid request object without an `id` member is a notification: it is not
//! executed and gets HTTP 204 with no body (JSON-RPC 2.0 §4.1).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Map, Value};

use crate::error::RpcError;
use crate::fault::Fault;
use crate::store::SendReply;
use crate::wire::{self, Artifacts, TaskView};
use crate::{params, AgentConfig, App};

/// The protocol version this interface serves (Major.Minor).
const SUPPORTED_VERSION: (u64, u64) = (1, 0);

/// `POST /a2a/jsonrpc`.
pub async fn handle(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    match process(&app, &headers, &body) {
        Some((id, outcome)) => respond(&app.config, id, outcome),
        None => StatusCode::NO_CONTENT.into_response(),
    }
}

/// The response id and outcome, or `None` for a notification (no reply).
fn process(
    app: &App,
    headers: &HeaderMap,
    body: &[u8],
) -> Option<(Value, Result<Value, RpcError>)> {
    let config = &app.config;
    let request: Value = match serde_json::from_slice(body) {
        Ok(request) => request,
        Err(e) if config.has(Fault::ParseErrorAsInvalidRequest) => {
            return Some((Value::Null, Err(RpcError::invalid_request(e))))
        }
        Err(e) => return Some((Value::Null, Err(RpcError::parse_error(e)))),
    };
    let Value::Object(mut request) = request else {
        let what = if request.is_array() {
            "batch requests are not supported"
        } else {
            "the request must be a JSON object"
        };
        return Some((Value::Null, Err(RpcError::invalid_request(what))));
    };
    let id = request.remove("id");
    if !matches!(
        id,
        None | Some(Value::Null | Value::String(_) | Value::Number(_))
    ) {
        let error = RpcError::invalid_request("`id` must be a string, a number or null");
        return Some((Value::Null, Err(error)));
    }
    let method = match envelope(&request, config) {
        Ok(method) => method,
        // An invalid request object is answered even without an id (id null).
        Err(error) => return Some((id.unwrap_or(Value::Null), Err(error))),
    };
    // A notification: the server must not reply, so it is not executed either.
    let id = id?;
    let outcome = check_version(headers, config)
        .and_then(|()| dispatch(app, method, request.remove("params")));
    Some((id, outcome))
}

/// Checks `jsonrpc` and returns the method name.
fn envelope(request: &Map<String, Value>, config: &AgentConfig) -> Result<String, RpcError> {
    if request.get("jsonrpc").and_then(Value::as_str) != Some("2.0")
        && !config.has(Fault::IgnoreJsonrpcVersion)
    {
        return Err(RpcError::invalid_request("`jsonrpc` must be \"2.0\""));
    }
    match request.get("method") {
        Some(Value::String(method)) => Ok(method.clone()),
        Some(_) => Err(RpcError::invalid_request("`method` must be a string")),
        None => Err(RpcError::invalid_request("`method` is required")),
    }
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

fn check_version(headers: &HeaderMap, config: &AgentConfig) -> Result<(), RpcError> {
    if config.has(Fault::IgnoreVersionHeader) {
        return Ok(());
    }
    let requested = headers
        .get("a2a-version")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).trim().to_owned())
        .unwrap_or_default();
    if requested.is_empty() {
        if config.has(Fault::MissingVersionAs10) {
            return Ok(());
        }
        // An absent or empty header means 0.3, which this interface does not serve.
        return Err(RpcError::version_not_supported("0.3"));
    }
    let has_patch = requested.split('.').count() > 2;
    if major_minor(&requested) == Some(SUPPORTED_VERSION)
        && !(has_patch && config.has(Fault::RejectPatchVersion))
    {
        Ok(())
    } else {
        Err(RpcError::version_not_supported(&requested))
    }
}

fn dispatch(app: &App, method: String, params: Option<Value>) -> Result<Value, RpcError> {
    let config = &app.config;
    match method.as_str() {
        "SendMessage" => send_message(app, params),
        "GetTask" => {
            let params = params::get_task(params)?;
            let view = TaskView {
                history_length: params.history_length,
                artifacts: Artifacts::NonEmpty,
            };
            match app.store.get(&params.id) {
                Some(task) => wire::task(&task, view, config),
                None if config.has(Fault::GetUnknownReturnsNull) => Ok(Value::Null),
                None => Err(RpcError::task_not_found(&params.id)),
            }
        }
        "CancelTask" => {
            let id = params::cancel_task(params)?;
            let view = TaskView {
                history_length: None,
                artifacts: Artifacts::NonEmpty,
            };
            wire::task(&app.store.cancel(&id)?, view, config)
        }
        "ListTasks" => list_tasks(app, params),
        "SendStreamingMessage" | "SubscribeToTask"
            if config.has(Fault::StreamingUnsupportedWrongError) =>
        {
            Err(RpcError::method_not_found(&method))
        }
        "SendStreamingMessage" | "SubscribeToTask" => Err(RpcError::unsupported_operation(
            "streaming is not supported (capabilities.streaming is false)",
        )),
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig"
            if config.has(Fault::PushUnsupportedWrongError) =>
        {
            Err(RpcError::unsupported_operation(
                "push notifications are not supported",
            ))
        }
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig" => Err(RpcError::push_notification_not_supported()),
        "GetExtendedAgentCard" if config.has(Fault::ExtendedCardUnsupportedWrongError) => {
            Err(RpcError::method_not_found(&method))
        }
        "GetExtendedAgentCard" => Err(RpcError::unsupported_operation(
            "no extended agent card (capabilities.extendedAgentCard is false)",
        )),
        _ if config.has(Fault::UnknownMethodInvalidRequest) => Err(RpcError::invalid_request(
            format_args!("unknown method `{method}`"),
        )),
        _ => Err(RpcError::method_not_found(&method)),
    }
}

fn send_message(app: &App, params: Option<Value>) -> Result<Value, RpcError> {
    let config = &app.config;
    let params = params::send_message(params, config)?;
    let blocking = !params.return_immediately;
    let (member, value) = match app.store.send(params.message, blocking)? {
        SendReply::Task(task) => {
            let artifacts = if blocking && config.has(Fault::BlockingOmitsArtifacts) {
                Artifacts::Omit
            } else {
                Artifacts::NonEmpty
            };
            let view = TaskView {
                history_length: params.history_length,
                artifacts,
            };
            ("task", wire::task(&task, view, config)?)
        }
        SendReply::Message(message) => ("message", wire::message(&message, config)?),
    };
    if config.has(Fault::SendResultUnwrapped) {
        return Ok(value);
    }
    Ok(json!({ member: value }))
}

fn list_tasks(app: &App, params: Option<Value>) -> Result<Value, RpcError> {
    let config = &app.config;
    let params = params::list_tasks(params)?;
    let page = app.store.list(&params.query)?;
    // Requested artifacts are listed even when empty (§3.1.4), unrequested ones omitted.
    let artifacts = if params.include_artifacts {
        Artifacts::Always
    } else if config.has(Fault::ListIncludesArtifacts) {
        Artifacts::NonEmpty
    } else {
        Artifacts::Omit
    };
    let view = TaskView {
        history_length: params.history_length,
        artifacts,
    };
    let tasks = page
        .tasks
        .iter()
        .map(|task| wire::task(task, view, config))
        .collect::<Result<Vec<_>, _>>()?;
    let mut response = Map::new();
    response.insert("tasks".to_owned(), Value::Array(tasks));
    match page.next_page_token {
        Some(token) => {
            response.insert("nextPageToken".to_owned(), Value::String(token));
        }
        None if config.has(Fault::ListOmitsNextPageToken) => {}
        None => {
            response.insert("nextPageToken".to_owned(), Value::String(String::new()));
        }
    }
    if !config.has(Fault::ListOmitsTotalSize) {
        response.insert("pageSize".to_owned(), json!(params.query.page_size));
        response.insert("totalSize".to_owned(), json!(page.total_size));
    }
    Ok(Value::Object(response))
}

fn respond(config: &AgentConfig, id: Value, outcome: Result<Value, RpcError>) -> Response {
    let id = match id {
        Value::Number(n) if config.has(Fault::WrongResponseId) => Value::String(n.to_string()),
        id => id,
    };
    let mut body = Map::new();
    if !config.has(Fault::OmitJsonrpcMember) {
        body.insert("jsonrpc".to_owned(), json!("2.0"));
    }
    body.insert("id".to_owned(), id);
    match outcome {
        Ok(result) => body.insert("result".to_owned(), result),
        Err(error) => body.insert("error".to_owned(), error.to_json(config)),
    };
    let content_type = if config.has(Fault::TextPlainContentType) {
        "text/plain"
    } else {
        "application/json"
    };
    (
        [(header::CONTENT_TYPE, content_type)],
        Value::Object(body).to_string(),
    )
        .into_response()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
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

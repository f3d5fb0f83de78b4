//! The HTTP+JSON/REST binding: routes relative to the interface URL (also
//! under a `/{tenant}` prefix), ProtoJSON bodies, `google.rpc.Status` errors
//! with the HTTP status of [`RpcError::http_status`], and SSE streams of bare
//! `StreamResponse` objects. The operations are those of [`crate::service`].
//!
//! The A2A-Version header (or query parameter) picks the version: 1.0 routes
//! as above, or the 0.3 routes under `/v1` with 0.3 proto JSON bodies, served by
//! [`crate::v03`]. 0.3 leaves REST error bodies unspecified; they are the same
//! `google.rpc.Status` bodies and statuses as in 1.0 (what the Python SDK's 0.3
//! compat layer sends).

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, Method, StatusCode, Uri};
use axum::response::{IntoResponse, Response};
use futures::stream::StreamExt;
use serde_json::{json, Map, Value};

use crate::app::App;
use crate::config::REST_PATH;
use crate::error::RpcError;
use crate::policy::RestErrorForm;
use crate::service::{self, EventStream};
use crate::shape::Wire;
use crate::version::Version;
use crate::{sse, v03};

/// Where a route's params come from, besides its path.
enum Input {
    /// The JSON request body (empty means `{}`).
    Body,
    /// The query string, camelCase ProtoJSON names.
    Query,
    Nothing,
}

enum Reply {
    Unary(&'static str, Value, Version),
    Stream(EventStream),
}

/// A matched route: the version whose routes it is, the operation (1.0 method
/// or 0.3 proto rpc name), its path params and input.
type Matched = (Version, &'static str, Map<String, Value>, Input);

/// Every request under `/a2a/rest/`.
pub async fn handle(
    State(app): State<Arc<App>>,
    verb: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    match process(&app, &verb, &uri, &headers, &body) {
        Ok(Reply::Unary(operation, value, version)) => success(&app, operation, &value, version),
        Ok(Reply::Stream(events)) => {
            let moved = Arc::clone(&app);
            let events = events.map(move |event| match event {
                Ok(event) => event,
                Err(error) => error_body(&moved, &error),
            });
            sse::response(&app.policy, events)
        }
        Err(error) => error_response(&app, &error),
    }
}

fn process(
    app: &Arc<App>,
    verb: &Method,
    uri: &Uri,
    headers: &HeaderMap,
    body: &[u8],
) -> Result<Reply, RpcError> {
    let policy = &app.policy;
    let path = uri.path().strip_prefix(REST_PATH).unwrap_or_default();
    // A trailing slash names the same route (clients that join a base URL ending in `/`).
    let segments: Vec<&str> = path.trim_matches('/').split('/').collect();
    let tenant_route = || match segments.split_first() {
        Some((tenant, rest)) if !rest.is_empty() && policy.rest.tenants => {
            let (operation, mut params, input) = route(verb.as_str(), rest)?;
            params.insert("tenant".to_owned(), Value::from(*tenant));
            Some((operation, params, input))
        }
        _ => None,
    };
    let not_found = || RpcError::method_not_found(&format!("{verb} {path}"));
    // The 0.3 routes live under `/v1`; that prefix is reserved for them on this
    // shared URL, so `v1` is never read as a 1.0 tenant.
    let matched: Option<Matched> = match segments.split_first() {
        Some((&"v1", rest)) => route_v03(verb.as_str(), rest)
            .map(|(operation, params, input)| (Version::V0_3, operation, params, input)),
        _ => route(verb.as_str(), &segments)
            .or_else(tenant_route)
            .map(|(operation, params, input)| (Version::V1_0, operation, params, input)),
    };
    let (route_version, operation, path_params, input) = matched.ok_or_else(not_found)?;
    let Query(query) = Query::<Vec<(String, String)>>::try_from_uri(uri)
        .map_err(|e| RpcError::invalid_request(e.body_text()))?;
    let query = wire_rules_query(&policy.wire_rules, uri, query);
    let is_version = |key: &str| key.eq_ignore_ascii_case("A2A-Version");
    // Spec §3.6.1: the version may also be sent as a request parameter.
    let header = headers
        .get("a2a-version")
        .filter(|_| policy.wire_rules.rest_version_header);
    let version = match header {
        Some(value) => Some(String::from_utf8_lossy(value.as_bytes()).into_owned()),
        None if !policy.versions.query_parameter => None,
        None => query
            .iter()
            .find(|(key, _)| is_version(key))
            .map(|(_, value)| value.clone()),
    };
    let version = crate::version::negotiate_version(&policy.versions, version.as_deref())?;
    match version {
        Version::V1_0 => crate::extensions::check(&app.policy.extensions, headers)?,
        _ => crate::extensions::check_v03(&app.policy.extensions, headers)?,
    }
    // Each version's routes exist only under its own semantics (spec 1.0 §3.6.2):
    // a route of the other version is answered like an unknown route.
    let served = route_version == version
        || match route_version {
            Version::V0_3 => policy.versions.v03_methods_under_1_0,
            Version::V1_0 => policy.versions.v10_methods_under_0_3,
        };
    if !served {
        return Err(not_found());
    }
    let mut params = match input {
        Input::Body if body.iter().all(u8::is_ascii_whitespace) => Map::new(),
        Input::Body => match serde_json::from_slice(body) {
            Ok(Value::Object(object)) => object,
            Ok(_) => return Err(RpcError::invalid_request("the body must be a JSON object")),
            Err(e) => return Err(RpcError::parse_error(e)),
        },
        Input::Query => query
            .into_iter()
            .filter(|(key, _)| !is_version(key))
            .map(|(key, value)| {
                let value = query_value(&key, value);
                (key, value)
            })
            .collect(),
        Input::Nothing => Map::new(),
    };
    params.extend(path_params);
    if route_version == Version::V0_3 {
        let params = Value::Object(params);
        return if v03::is_streaming_proto03(operation) {
            Ok(Reply::Stream(v03::stream_proto03(app, operation, params)?))
        } else {
            let value = v03::call_proto03(app, operation, params)?;
            Ok(Reply::Unary(operation, value, Version::V0_3))
        };
    }
    let params = Some(Value::Object(params));
    if crate::methods::is_streaming(operation) {
        let events = service::stream(app.core(), operation, params)?;
        Ok(Reply::Stream(app.shape.events(Wire::V1_0, events)))
    } else {
        let kept = (operation == "SendMessage"
            && app.policy.requests.non_blocking_waits_for_completion)
            .then(|| params.clone())
            .flatten();
        let result = service::call(app.core(), operation, params)?;
        let waited = kept
            .and_then(|p| crate::quirks::non_blocking_waits(&app.policy, &p, &result))
            .map(|follow_up| service::call(app.core(), "SendMessage", Some(follow_up)));
        let result = match waited {
            Some(answer) => answer?,
            None => result,
        };
        let result = app.shape.result(Wire::V1_0, operation, result);
        Ok(Reply::Unary(operation, result, Version::V1_0))
    }
}

/// The 0.3 routes (the `google.api.http` paths of the 0.3 proto, `/v1` removed):
/// the proto rpc name, its path params as resource names, and its input.
fn route_v03(verb: &str, segments: &[&str]) -> Option<(&'static str, Map<String, Value>, Input)> {
    let name = |key: &str, value: String| -> Map<String, Value> {
        std::iter::once((key.to_owned(), Value::String(value))).collect()
    };
    const CONFIGS: &str = "pushNotificationConfigs";
    Some(match (verb, segments) {
        ("POST", ["message:send"]) => ("SendMessage", Map::new(), Input::Body),
        ("POST", ["message:stream"]) => ("SendStreamingMessage", Map::new(), Input::Body),
        ("GET", ["card"]) => ("GetAgentCard", Map::new(), Input::Nothing),
        (_, ["tasks", task]) => match (verb, task.rsplit_once(':')) {
            ("GET", None) => (
                "GetTask",
                name("name", format!("tasks/{task}")),
                Input::Query,
            ),
            ("POST", Some((id, "cancel"))) => (
                "CancelTask",
                name("name", format!("tasks/{id}")),
                Input::Body,
            ),
            // The 0.3 spec says POST, its proto GET: accept both.
            ("POST", Some((id, "subscribe"))) => (
                "TaskSubscription",
                name("name", format!("tasks/{id}")),
                Input::Body,
            ),
            ("GET", Some((id, "subscribe"))) => (
                "TaskSubscription",
                name("name", format!("tasks/{id}")),
                Input::Nothing,
            ),
            _ => return None,
        },
        ("POST", ["tasks", task, CONFIGS]) => (
            "CreateTaskPushNotificationConfig",
            name("parent", format!("tasks/{task}")),
            Input::Body,
        ),
        ("GET", ["tasks", task, CONFIGS]) => (
            "ListTaskPushNotificationConfig",
            name("parent", format!("tasks/{task}")),
            Input::Query,
        ),
        ("GET", ["tasks", task, CONFIGS, id]) => (
            "GetTaskPushNotificationConfig",
            name("name", format!("tasks/{task}/{CONFIGS}/{id}")),
            Input::Nothing,
        ),
        ("DELETE", ["tasks", task, CONFIGS, id]) => (
            "DeleteTaskPushNotificationConfig",
            name("name", format!("tasks/{task}/{CONFIGS}/{id}")),
            Input::Nothing,
        ),
        _ => return None,
    })
}

/// The operation a verb and path (split on `/`, tenant removed) name, its path params and input.
fn route(verb: &str, segments: &[&str]) -> Option<(&'static str, Map<String, Value>, Input)> {
    let params = |pairs: &[(&str, &str)]| -> Map<String, Value> {
        (pairs.iter())
            .map(|(key, value)| ((*key).to_owned(), Value::from(*value)))
            .collect()
    };
    const CONFIGS: &str = "pushNotificationConfigs";
    Some(match (verb, segments) {
        ("POST", ["message:send"]) => ("SendMessage", Map::new(), Input::Body),
        ("POST", ["message:stream"]) => ("SendStreamingMessage", Map::new(), Input::Body),
        ("GET", ["extendedAgentCard"]) => ("GetExtendedAgentCard", Map::new(), Input::Nothing),
        ("GET", ["tasks"]) => ("ListTasks", Map::new(), Input::Query),
        (_, ["tasks", task]) => match (verb, task.rsplit_once(':')) {
            ("GET", None) => ("GetTask", params(&[("id", task)]), Input::Query),
            ("POST", Some((id, "cancel"))) => ("CancelTask", params(&[("id", id)]), Input::Body),
            // The proto says GET, the spec text POST: accept both.
            ("POST", Some((id, "subscribe"))) => {
                ("SubscribeToTask", params(&[("id", id)]), Input::Body)
            }
            ("GET", Some((id, "subscribe"))) => {
                ("SubscribeToTask", params(&[("id", id)]), Input::Nothing)
            }
            _ => return None,
        },
        ("POST", ["tasks", task, CONFIGS]) => (
            "CreateTaskPushNotificationConfig",
            params(&[("taskId", task)]),
            Input::Body,
        ),
        ("GET", ["tasks", task, CONFIGS]) => (
            "ListTaskPushNotificationConfigs",
            params(&[("taskId", task)]),
            Input::Query,
        ),
        ("GET", ["tasks", task, CONFIGS, id]) => (
            "GetTaskPushNotificationConfig",
            params(&[("taskId", task), ("id", id)]),
            Input::Nothing,
        ),
        ("DELETE", ["tasks", task, CONFIGS, id]) => (
            "DeleteTaskPushNotificationConfig",
            params(&[("taskId", task), ("id", id)]),
            Input::Nothing,
        ),
        _ => return None,
    })
}

/// A query parameter as ProtoJSON: integers and booleans parsed; anything
/// else stays a string, so a bad value fails params validation (InvalidParams).
fn query_value(key: &str, value: String) -> Value {
    match (key, value.as_str()) {
        ("pageSize" | "historyLength", number) => number
            .parse::<i64>()
            .map_or_else(|_| Value::String(value.clone()), Value::from),
        ("includeArtifacts", "true") => Value::Bool(true),
        ("includeArtifacts", "false") => Value::Bool(false),
        _ => Value::String(value),
    }
}

fn success(app: &App, operation: &str, value: &Value, version: Version) -> Response {
    let rest = &app.policy.rest;
    let status = match operation {
        "SendMessage" => StatusCode::from_u16(rest.send_status).unwrap_or(StatusCode::OK),
        _ => StatusCode::OK,
    };
    let content_type = match version {
        Version::V1_0 => rest.content_type,
        Version::V0_3 => rest.content_type_0_3,
    };
    (
        status,
        [(header::CONTENT_TYPE, content_type)],
        value.to_string(),
    )
        .into_response()
}

/// `{"error": google.rpc.Status}` as ProtoJSON.
fn error_body(app: &App, error: &RpcError) -> Value {
    let statuses = &app.policy.errors;
    let body = json!({"error": {
        "code": statuses.http(error),
        "status": error.canonical(statuses.table).1.name(),
        "message": error.message,
        "details": error.details(),
    }});
    app.shape.rest_error(body)
}

fn error_response(app: &App, error: &RpcError) -> Response {
    let rest = &app.policy.rest;
    let mapped = app.policy.errors.http(error);
    let status = if rest.errors_with_200 {
        StatusCode::OK
    } else {
        StatusCode::from_u16(mapped).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR)
    };
    let (content_type, body) = match rest.error_form {
        RestErrorForm::ProblemJson => {
            let kind = error.reason.to_ascii_lowercase().replace('_', "-");
            let problem = json!({
                "type": format!("https://a2a-protocol.org/errors/{kind}"),
                "title": error.message,
                "status": mapped,
                "detail": error.message,
            });
            ("application/problem+json", problem)
        }
        RestErrorForm::GoogleStatus => (rest.error_content_type, error_body(app, error)),
    };
    (
        status,
        [(header::CONTENT_TYPE, content_type)],
        body.to_string(),
    )
        .into_response()
}

/// The query pairs as the wire rules read them: percent-decoded with camelCase names (the
/// conformant reading), or raw, or under snake_case names (the faults).
fn wire_rules_query(
    rules: &crate::policy::wire_rules::WireRules,
    uri: &Uri,
    decoded: Vec<(String, String)>,
) -> Vec<(String, String)> {
    let mut query = if rules.rest_query_decoded {
        decoded
    } else {
        (uri.query().unwrap_or_default().split('&'))
            .filter(|pair| !pair.is_empty())
            .map(|pair| {
                let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
                (key.to_owned(), value.to_owned())
            })
            .collect()
    };
    if rules.rest_query_snake_case {
        // Only snake_case names are read, turned into the names the service knows.
        query = (query.into_iter())
            .filter(|(key, _)| !key.chars().any(|c| c.is_ascii_uppercase()))
            .map(|(key, value)| {
                let mut camel = String::new();
                let mut upper = false;
                for c in key.chars() {
                    if c == '_' {
                        upper = true;
                    } else if upper {
                        camel.push(c.to_ascii_uppercase());
                        upper = false;
                    } else {
                        camel.push(c);
                    }
                }
                (camel, value)
            })
            .collect();
    }
    query
}

//! The JSON-RPC 2.0 endpoint: envelope, A2A-Version check, and responses;
//! the operations themselves are in [`crate::service`].
//!
//! Validation order: parse JSON, envelope, version header, method, params.
//! The version header picks 1.0 or 0.3 ([`Version`]): the 0.3 slash methods
//! are served by [`crate::v03`] on the same URL.
//! A valid request object without an `id` member is a notification: it is not
//! executed and gets HTTP 204 with no body (JSON-RPC 2.0 §4.1). A batch (an
//! array of requests, §6) is answered with an array of the responses of its
//! non-notification members; an empty array is one Invalid Request. Streaming
//! methods answer `text/event-stream`, each event a full JSON-RPC response;
//! an error before the first event is a plain JSON-RPC error response.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use futures::stream::StreamExt;
use serde_json::{json, Map, Value};

use crate::app::App;
use crate::error::RpcError;
use crate::policy::Policy;
use crate::service;
use crate::shape::Wire;
use crate::v03_codec::Dialect;
use crate::version::Version;
use crate::{sse, v03};

/// A method call: the negotiated version, the method name and params.
type Call = (Version, String, Option<Value>);

/// Which operations serve a method under the negotiated version.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Route {
    V03,
    V10,
    /// A method of the other version (or of none).
    Unknown,
}

/// Spec 1.0 §3.6.2: requests are processed "using the semantics of the requested
/// version". The methods of the other version do not exist in those semantics,
/// so a 1.0 method under 0.3 (and a 0.3 method under 1.0) is -32601 Method not
/// found, not VersionNotSupportedError (the version itself is supported).
fn route(policy: &Policy, version: Version, method: &str) -> Route {
    let is_v03 = v03::is_method(method);
    let versions = &policy.versions;
    match version {
        Version::V1_0 if is_v03 && versions.v03_methods_under_1_0 => Route::V03,
        Version::V1_0 if is_v03 => Route::Unknown,
        Version::V1_0 => Route::V10,
        Version::V0_3 if is_v03 => Route::V03,
        Version::V0_3 if versions.v10_methods_under_0_3 => Route::V10,
        Version::V0_3 => Route::Unknown,
    }
}

fn is_streaming(route: Route, method: &str) -> bool {
    match route {
        Route::V03 => v03::is_streaming(method),
        Route::V10 => crate::methods::is_streaming(method),
        Route::Unknown => false,
    }
}

/// The form the results of a route leave in.
fn wire(route: Route) -> Wire {
    match route {
        Route::V03 => Wire::V0_3(Dialect::JsonRpc),
        Route::V10 | Route::Unknown => Wire::V1_0,
    }
}

/// A unary call, its result shaped for the route's version.
fn dispatch(
    app: &App,
    route: Route,
    method: &str,
    params: Option<Value>,
) -> Result<Value, RpcError> {
    let result = match route {
        Route::V03 => v03::call(app, method, params),
        Route::V10 => service::call(app.core(), method, params),
        Route::Unknown => Err(crate::methods::unknown_method(&app.policy.service, method)),
    }?;
    Ok(app.shape.result(wire(route), method, result))
}

/// `POST /a2a/jsonrpc` (and `/a2a/jsonrpc/`).
pub async fn handle(State(app): State<Arc<App>>, headers: HeaderMap, body: Bytes) -> Response {
    let policy = &app.policy;
    let request: Value = match serde_json::from_slice(&body) {
        Ok(request) => request,
        Err(e) if policy.jsonrpc.parse_error_invalid_request => {
            return respond(&app, Value::Null, Err(RpcError::invalid_request(e)))
        }
        Err(e) => return respond(&app, Value::Null, Err(RpcError::parse_error(e))),
    };
    if let Value::Array(batch) = request {
        return handle_batch(&app, &headers, batch);
    }
    let Some((id, call)) = process(policy, &headers, request) else {
        return StatusCode::NO_CONTENT.into_response();
    };
    let (version, method, params) = match call {
        Ok(call) => call,
        Err(error) => return respond(&app, id, Err(error)),
    };
    let extensions = match version {
        Version::V1_0 => crate::extensions::check(&app.policy.extensions, &headers),
        _ => crate::extensions::check_v03(&app.policy.extensions, &headers),
    };
    if let Err(error) = extensions {
        return respond(&app, id, Err(error));
    }
    let route = route(policy, version, &method);
    if !is_streaming(route, &method) {
        return respond(&app, id, dispatch(&app, route, &method, params));
    }
    let streamed = match route {
        Route::V03 => v03::stream(&app, &method, params),
        _ => service::stream(app.core(), &method, params),
    };
    let events = match streamed {
        Ok(events) => app.shape.events(wire(route), events),
        Err(error) => return respond(&app, id, Err(error)),
    };
    let shape = app.shape.clone();
    let events = events.map(move |outcome| shape.rpc_event(envelope(id.clone(), outcome)));
    let prefix = match route {
        Route::V03 => policy.jsonrpc.sse_data_prefix_0_3,
        _ => "",
    };
    sse::prefixed(policy, prefix, events)
}

/// A batch (JSON-RPC 2.0 §6): each member is answered as if sent alone, in one array;
/// notifications get no entry, and a batch of notifications only gets HTTP 204.
fn handle_batch(app: &App, headers: &HeaderMap, batch: Vec<Value>) -> Response {
    let policy = &app.policy;
    if batch.is_empty() {
        if policy.jsonrpc.empty_batch_array {
            return json_response(policy, "[]".to_owned());
        }
        let error = RpcError::invalid_request("an empty batch");
        return respond(app, Value::Null, Err(error));
    }
    if !policy.jsonrpc.batches {
        let error = RpcError::invalid_request("batch requests are not supported");
        return respond(app, Value::Null, Err(error));
    }
    let responses: Vec<Value> = batch
        .into_iter()
        .filter_map(|member| process(policy, headers, member))
        .map(|(id, call)| {
            let outcome = call.and_then(|(version, method, params)| {
                let route = route(policy, version, &method);
                if is_streaming(route, &method) {
                    Err(RpcError::invalid_request(format_args!(
                        "the streaming method {method} cannot be part of a batch"
                    )))
                } else {
                    dispatch(app, route, &method, params)
                }
            });
            app.shape.rpc_response(envelope(id, outcome))
        })
        .collect();
    if responses.is_empty() {
        return StatusCode::NO_CONTENT.into_response();
    }
    json_response(policy, Value::Array(responses).to_string())
}

/// The response id and the checked call (or the error to answer with), or
/// `None` for a notification (no reply).
fn process(
    policy: &Policy,
    headers: &HeaderMap,
    request: Value,
) -> Option<(Value, Result<Call, RpcError>)> {
    let Value::Object(mut request) = request else {
        let error = RpcError::invalid_request("the request must be a JSON object");
        return Some((Value::Null, Err(error)));
    };
    let id = request.remove("id");
    if !matches!(
        id,
        None | Some(Value::Null | Value::String(_) | Value::Number(_))
    ) {
        let error = RpcError::invalid_request("`id` must be a string, a number or null");
        return Some((Value::Null, Err(error)));
    }
    let method = match method(&request, policy) {
        Ok(method) => method,
        // An invalid request object is answered even without an id (id null).
        Err(error) => return Some((id.unwrap_or(Value::Null), Err(error))),
    };
    // A notification: the server must not reply, so it is not executed either.
    let id = id?;
    let version = headers
        .get("a2a-version")
        .map(|v| String::from_utf8_lossy(v.as_bytes()).into_owned());
    let call = crate::version::negotiate_version(&policy.versions, version.as_deref())
        .map(|version| (version, method, request.remove("params")));
    Some((id, call))
}

/// Checks `jsonrpc` and returns the method name.
fn method(request: &Map<String, Value>, policy: &Policy) -> Result<String, RpcError> {
    if request.get("jsonrpc").and_then(Value::as_str) != Some("2.0")
        && policy.jsonrpc.check_jsonrpc_member
    {
        return Err(RpcError::invalid_request("`jsonrpc` must be \"2.0\""));
    }
    match request.get("method") {
        Some(Value::String(method)) => Ok(method.clone()),
        Some(_) => Err(RpcError::invalid_request("`method` must be a string")),
        None => Err(RpcError::invalid_request("`method` is required")),
    }
}

/// A conformant JSON-RPC response object (the adapter shapes it).
fn envelope(id: Value, outcome: Result<Value, RpcError>) -> Map<String, Value> {
    let mut body = Map::new();
    body.insert("jsonrpc".to_owned(), json!("2.0"));
    body.insert("id".to_owned(), id);
    match outcome {
        Ok(result) => body.insert("result".to_owned(), result),
        Err(error) => body.insert("error".to_owned(), error.to_json()),
    };
    body
}

fn respond(app: &App, id: Value, outcome: Result<Value, RpcError>) -> Response {
    let response = app.shape.rpc_response(envelope(id, outcome));
    json_response(&app.policy, response.to_string())
}

fn json_response(policy: &Policy, body: String) -> Response {
    ([(header::CONTENT_TYPE, policy.jsonrpc.content_type)], body).into_response()
}

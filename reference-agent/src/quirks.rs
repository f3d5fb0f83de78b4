//! The faults of execution mode, output modes, ListTasks page sizes and JSON text encoding,
//! kept apart from the code paths they bend: each function is a no-op unless the policy value
//! its fault sets is on.

use axum::body::Body;
use axum::extract::Request;
use axum::http::header::{HeaderValue, CONTENT_LENGTH, CONTENT_TYPE};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::{json, Value};

use crate::policy::Policy;

/// ListTasks under the page-size faults: the params with an over-large `pageSize` taken out
/// (so validation lets it through), and the page size to use instead of the validated one.
pub fn list_page_size(
    policy: &Policy,
    mut params: Option<Value>,
) -> (Option<Value>, Option<usize>) {
    let raw = params
        .as_ref()
        .and_then(|p| p.get("pageSize"))
        .filter(|v| !v.is_null());
    let asked = raw.and_then(|v| match v {
        Value::Number(n) => n.as_u64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    });
    match (raw, asked) {
        (None, _) if policy.list.default_page_unbounded => (params, Some(1_000_000)),
        (Some(_), Some(n)) if n > 100 && policy.list.ignores_page_size_max => {
            if let Some(Value::Object(map)) = params.as_mut() {
                map.remove("pageSize");
            }
            (params, usize::try_from(n).ok())
        }
        _ => (params, None),
    }
}

/// Whether the answer to this SendMessage gets a data part it was not allowed: the fault is
/// on and the request names its accepted output modes.
pub fn ignores_output_modes(policy: &Policy, params: Option<&Value>) -> bool {
    policy.requests.ignores_accepted_output_modes
        && params
            .and_then(|p| p.pointer("/configuration/acceptedOutputModes"))
            .and_then(Value::as_array)
            .is_some_and(|modes| !modes.is_empty())
}

/// Adds a data part to every artifact of a 1.0 Task (or to the parts of a Message).
pub fn add_data_part(value: &mut Value) {
    let part = json!({ "data": { "format": "structured" }, "mediaType": "application/json" });
    if let Some(artifacts) = value.get_mut("artifacts").and_then(Value::as_array_mut) {
        for artifact in artifacts {
            if let Some(parts) = artifact.get_mut("parts").and_then(Value::as_array_mut) {
                parts.push(part.clone());
            }
        }
    } else if let Some(parts) = value.get_mut("parts").and_then(Value::as_array_mut) {
        parts.push(part);
    }
}

/// REST SendMessage under `non-blocking-waits-for-completion`: a non-blocking request whose
/// task is held WORKING is answered only after a follow-up has run the task to its end
/// (what a server that ignores `returnImmediately` would answer once the work is done).
/// Gives the SendMessage params of that follow-up, which the caller sends; `None`: the fault
/// is off or does not apply; answer as usual.
pub fn non_blocking_waits(policy: &Policy, params: &Value, result: &Value) -> Option<Value> {
    let non_blocking = params
        .pointer("/configuration/returnImmediately")
        .and_then(Value::as_bool)
        == Some(true);
    if !non_blocking || !policy.requests.non_blocking_waits_for_completion {
        return None;
    }
    let task = result.get("task")?;
    if task.pointer("/status/state").and_then(Value::as_str) != Some("TASK_STATE_WORKING") {
        return None;
    }
    let id = task.get("id").and_then(Value::as_str)?;
    let follow_up = json!({
        "message": {
            "messageId": format!("completion-of-{id}"),
            "role": "ROLE_USER",
            "taskId": id,
            "contextId": task.get("contextId").cloned().unwrap_or(Value::Null),
            "parts": [{ "text": "(the work goes on to its end)" }],
        },
        "configuration": { "returnImmediately": false },
    });
    Some(follow_up)
}

/// Under `json-latin1-charset`: JSON answers are re-encoded in Latin-1 (characters beyond
/// U+00FF become `?`) and labelled `charset=iso-8859-1`.
pub async fn latin1(request: Request, next: Next) -> Response {
    let response = next.run(request).await;
    let media = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    let json = media
        .as_deref()
        .is_some_and(|m| m == "application/json" || m.ends_with("+json"));
    if !json {
        return response;
    }
    let media = media.unwrap_or_default();
    let (mut parts, body) = response.into_parts();
    let Ok(bytes) = axum::body::to_bytes(body, 16 * 1024 * 1024).await else {
        return Response::from_parts(parts, Body::empty());
    };
    let latin1: Vec<u8> = String::from_utf8_lossy(&bytes)
        .chars()
        .map(|c| u8::try_from(u32::from(c)).unwrap_or(b'?'))
        .collect();
    if let Ok(value) = HeaderValue::from_str(&format!("{media}; charset=iso-8859-1")) {
        parts.headers.insert(CONTENT_TYPE, value);
    }
    parts.headers.remove(CONTENT_LENGTH);
    Response::from_parts(parts, Body::from(latin1))
}

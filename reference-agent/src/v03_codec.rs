//! Conversions between A2A 0.3 JSON and the 1.0 ProtoJSON the core works on.
//!
//! 0.3 has two JSON dialects ([`Dialect`]): the JSON-RPC one of `types.ts`
//! (`kind` discriminators, lowercase states, roles `user`/`agent`, `parts`)
//! and the ProtoJSON of the 0.3 proto (package `a2a.v1`, used by 0.3 REST and
//! gRPC: `content` instead of `parts`, `TASK_STATE_CANCELLED`, file parts as
//! `fileWithUri`/`fileWithBytes`, data parts as `{"data":{"data":{…}}}`).
//! Requests come in as 0.3 JSON and leave as 1.0 ProtoJSON; results go the
//! other way. Input the codec does not understand is passed on unchanged, so
//! the core's validation rejects it (InvalidParams) as it would in 1.0.

use serde_json::{Map, Value};

use crate::model::TaskState;

/// The 0.3 JSON dialect of a binding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// JSON-RPC 0.3 (`types.ts` shapes).
    JsonRpc,
    /// ProtoJSON of the 0.3 proto (REST and gRPC 0.3).
    Proto,
}

const JSON_MEDIA_TYPE: &str = "application/json";

fn state_of(state: &Value) -> Option<TaskState> {
    serde_json::from_value(state.clone()).ok()
}

/// Removes the first of `names` present (camelCase, then the proto snake_case name).
fn take(object: &mut Map<String, Value>, names: &[&str]) -> Option<Value> {
    names
        .iter()
        .find_map(|name| object.remove(*name))
        .filter(|value| !value.is_null())
}

fn insert(object: &mut Map<String, Value>, key: &str, value: impl Into<Value>) {
    object.insert(key.to_owned(), value.into());
}

// ---------------------------------------------------------------- requests

/// 0.3 `MessageSendParams` (JSON-RPC) or `SendMessageRequest` (proto) as the
/// 1.0 `SendMessageRequest`.
pub fn send_request(dialect: Dialect, params: Option<Value>) -> Option<Value> {
    let Some(Value::Object(mut params)) = params else {
        return params;
    };
    let mut out = Map::new();
    let names: &[&str] = match dialect {
        Dialect::JsonRpc => &["message"],
        // The proto field is `request` with the json name `message`.
        Dialect::Proto => &["message", "request"],
    };
    if let Some(message) = take(&mut params, names) {
        insert(&mut out, "message", message_in(dialect, message));
    }
    // JSON-RPC 0.3 clients get a blocking call unless they ask otherwise (the
    // Python SDK's default); the proto's `blocking` defaults to false.
    let default_blocking = dialect == Dialect::JsonRpc;
    let configuration = match take(&mut params, &["configuration"]) {
        None => Some(Map::new()),
        Some(Value::Object(configuration)) => Some(configuration),
        Some(other) => {
            insert(&mut out, "configuration", other);
            None
        }
    };
    if let Some(mut configuration) = configuration {
        let mut converted = Map::new();
        let return_immediately = match take(&mut configuration, &["blocking"]) {
            None => Value::Bool(!default_blocking),
            Some(Value::Bool(blocking)) => Value::Bool(!blocking),
            Some(other) => other,
        };
        insert(&mut converted, "returnImmediately", return_immediately);
        match take(&mut configuration, &["historyLength", "history_length"]) {
            // The 0.3 proto: "if 0, the history will be unlimited".
            Some(n) if dialect == Dialect::Proto && n.as_i64() == Some(0) => {}
            Some(n) => insert(&mut converted, "historyLength", n),
            None => {}
        }
        if let Some(modes) = take(
            &mut configuration,
            &["acceptedOutputModes", "accepted_output_modes"],
        ) {
            insert(&mut converted, "acceptedOutputModes", modes);
        }
        insert(&mut out, "configuration", converted);
    }
    if let Some(metadata) = take(&mut params, &["metadata"]) {
        insert(&mut out, "metadata", metadata);
    }
    Some(Value::Object(out))
}

/// A 0.3 Message as a 1.0 Message.
pub fn message_in(dialect: Dialect, message: Value) -> Value {
    let Value::Object(mut message) = message else {
        return message;
    };
    let parts = match dialect {
        Dialect::JsonRpc => {
            message.remove("kind");
            let role = match message.get("role").and_then(Value::as_str) {
                Some("user") => Some("ROLE_USER"),
                Some("agent") => Some("ROLE_AGENT"),
                _ => None,
            };
            if let Some(role) = role {
                insert(&mut message, "role", role);
            }
            message.remove("parts")
        }
        Dialect::Proto => message
            .remove("content")
            .or_else(|| message.remove("parts")),
    };
    if let Some(parts) = parts {
        let parts = match parts {
            Value::Array(parts) => parts.into_iter().map(|p| part_in(dialect, p)).collect(),
            other => other,
        };
        insert(&mut message, "parts", parts);
    }
    Value::Object(message)
}

/// A 0.3 Part as a 1.0 Part; an unknown kind becomes a part with no content.
fn part_in(dialect: Dialect, part: Value) -> Value {
    let Value::Object(mut part) = part else {
        return part;
    };
    let mut out = Map::new();
    if let Some(metadata) = take(&mut part, &["metadata"]) {
        insert(&mut out, "metadata", metadata);
    }
    let kind = match dialect {
        Dialect::JsonRpc => part
            .remove("kind")
            .and_then(|kind| kind.as_str().map(str::to_owned)),
        Dialect::Proto => None,
    };
    let kind = kind.or_else(|| {
        ["text", "file", "data"]
            .into_iter()
            .find(|key| part.contains_key(*key))
            .map(str::to_owned)
    });
    match kind.as_deref() {
        Some("text") => {
            if let Some(text) = part.remove("text") {
                insert(&mut out, "text", text);
            }
        }
        Some("file") => {
            if let Some(Value::Object(mut file)) = part.remove("file") {
                let (bytes, uri, mime): (&[&str], &[&str], &[&str]) = match dialect {
                    Dialect::JsonRpc => (&["bytes"], &["uri"], &["mimeType"]),
                    Dialect::Proto => (
                        &["fileWithBytes", "file_with_bytes"],
                        &["fileWithUri", "file_with_uri"],
                        &["mimeType", "mime_type"],
                    ),
                };
                let fields = [
                    (bytes, "raw"),
                    (uri, "url"),
                    (&["name"][..], "filename"),
                    (mime, "mediaType"),
                ];
                for (names, to) in fields {
                    if let Some(value) = take(&mut file, names) {
                        insert(&mut out, to, value);
                    }
                }
            }
        }
        Some("data") => {
            if let Some(data) = part.remove("data") {
                let data = match (dialect, data) {
                    // proto DataPart{data: Struct}
                    (Dialect::Proto, Value::Object(mut wrapper)) => wrapper
                        .remove("data")
                        .unwrap_or_else(|| Value::Object(Map::new())),
                    (_, data) => data,
                };
                insert(&mut out, "data", data);
                insert(&mut out, "mediaType", JSON_MEDIA_TYPE);
            }
        }
        _ => {}
    }
    Value::Object(out)
}

// ---------------------------------------------------------------- results

/// A 1.0 SendMessage result as 0.3: the bare Task or Message (JSON-RPC) or the
/// `SendMessageResponse{task|message}` (proto).
pub fn send_result(dialect: Dialect, result: Value) -> Value {
    let (member, inner) = match result {
        Value::Object(mut object) if object.len() == 1 => {
            match (object.remove("task"), object.remove("message")) {
                (Some(task), _) => ("task", task),
                (_, Some(message)) => ("message", message),
                _ => return Value::Object(object),
            }
        }
        // A bare result (the `send-result-unwrapped` fault): a Task has a status.
        bare if bare.get("status").is_some() => ("task", bare),
        bare => ("message", bare),
    };
    let converted = if member == "task" {
        task_out(dialect, inner)
    } else {
        message_out(dialect, inner)
    };
    match dialect {
        Dialect::JsonRpc => converted,
        Dialect::Proto => wrap(member, converted),
    }
}

fn wrap(member: &str, value: Value) -> Value {
    let mut object = Map::new();
    insert(&mut object, member, value);
    Value::Object(object)
}

fn mark_kind(dialect: Dialect, object: &mut Map<String, Value>, kind: &str) {
    if dialect == Dialect::JsonRpc {
        insert(object, "kind", kind);
    }
}

fn state_out(dialect: Dialect, state: Value) -> Value {
    let Some(parsed) = state_of(&state) else {
        return state;
    };
    match dialect {
        Dialect::JsonRpc => Value::from(parsed.legacy_name()),
        Dialect::Proto if parsed == TaskState::Canceled => Value::from("TASK_STATE_CANCELLED"),
        Dialect::Proto => state,
    }
}

fn status_out(dialect: Dialect, status: Value) -> Value {
    let Value::Object(mut status) = status else {
        return status;
    };
    if let Some(state) = status.remove("state") {
        insert(&mut status, "state", state_out(dialect, state));
    }
    if let Some(message) = status.remove("message") {
        insert(&mut status, "message", message_out(dialect, message));
    }
    Value::Object(status)
}

fn map_array(value: Value, f: impl Fn(Value) -> Value) -> Value {
    match value {
        Value::Array(items) => Value::Array(items.into_iter().map(f).collect()),
        other => other,
    }
}

/// A 1.0 Task as a 0.3 Task.
pub fn task_out(dialect: Dialect, task: Value) -> Value {
    let Value::Object(mut task) = task else {
        return task;
    };
    if let Some(status) = task.remove("status") {
        insert(&mut task, "status", status_out(dialect, status));
    }
    if let Some(history) = task.remove("history") {
        let history = map_array(history, |m| message_out(dialect, m));
        insert(&mut task, "history", history);
    }
    if let Some(artifacts) = task.remove("artifacts") {
        let artifacts = map_array(artifacts, |a| artifact_out(dialect, a));
        insert(&mut task, "artifacts", artifacts);
    }
    mark_kind(dialect, &mut task, "task");
    Value::Object(task)
}

fn artifact_out(dialect: Dialect, artifact: Value) -> Value {
    let Value::Object(mut artifact) = artifact else {
        return artifact;
    };
    if let Some(parts) = artifact.remove("parts") {
        let parts = map_array(parts, |p| part_out(dialect, p));
        insert(&mut artifact, "parts", parts);
    }
    Value::Object(artifact)
}

/// A 1.0 Message as a 0.3 Message.
pub fn message_out(dialect: Dialect, message: Value) -> Value {
    let Value::Object(mut message) = message else {
        return message;
    };
    let parts = message
        .remove("parts")
        .map(|parts| map_array(parts, |p| part_out(dialect, p)));
    match dialect {
        Dialect::JsonRpc => {
            let role = match message.get("role").and_then(Value::as_str) {
                Some("ROLE_USER") => Some("user"),
                Some("ROLE_AGENT") => Some("agent"),
                _ => None,
            };
            if let Some(role) = role {
                insert(&mut message, "role", role);
            }
            if let Some(parts) = parts {
                insert(&mut message, "parts", parts);
            }
        }
        Dialect::Proto => {
            if let Some(parts) = parts {
                insert(&mut message, "content", parts);
            }
        }
    }
    mark_kind(dialect, &mut message, "message");
    Value::Object(message)
}

fn part_out(dialect: Dialect, part: Value) -> Value {
    let Value::Object(mut part) = part else {
        return part;
    };
    let mut out = Map::new();
    let kind = if let Some(text) = part.remove("text") {
        insert(&mut out, "text", text);
        "text"
    } else if let Some(data) = part.remove("data") {
        // A 0.3 DataPart holds a JSON object; any other 1.0 value is wrapped.
        let data = match data {
            Value::Object(object) => Value::Object(object),
            other => wrap("value", other),
        };
        let data = match dialect {
            Dialect::JsonRpc => data,
            Dialect::Proto => wrap("data", data),
        };
        insert(&mut out, "data", data);
        "data"
    } else {
        let (bytes, uri) = match dialect {
            Dialect::JsonRpc => ("bytes", "uri"),
            Dialect::Proto => ("fileWithBytes", "fileWithUri"),
        };
        let mut file = Map::new();
        let fields = [
            ("raw", bytes),
            ("url", uri),
            ("filename", "name"),
            ("mediaType", "mimeType"),
        ];
        for (from, to) in fields {
            if let Some(value) = part.remove(from) {
                insert(&mut file, to, value);
            }
        }
        insert(&mut out, "file", Value::Object(file));
        "file"
    };
    if let Some(metadata) = part.remove("metadata") {
        insert(&mut out, "metadata", metadata);
    }
    mark_kind(dialect, &mut out, kind);
    Value::Object(out)
}

/// A 1.0 `StreamResponse` as a 0.3 stream event: the Task, Message or update
/// with its `kind` (JSON-RPC), or the 0.3 `StreamResponse` (proto).
pub fn event_out(dialect: Dialect, event: Value) -> Value {
    let Value::Object(mut event) = event else {
        return event;
    };
    if event.len() != 1 {
        return Value::Object(event);
    }
    // A Task or Message event is rendered like a send result.
    if event.contains_key("task") || event.contains_key("message") {
        return send_result(dialect, Value::Object(event));
    }
    let (member, converted, kind) =
        if let Some(Value::Object(mut update)) = event.remove("statusUpdate") {
            let state = update.get("status").and_then(|s| s.get("state")).cloned();
            // 0.3 says `final` marks the event after which the stream ends; it leaves
            // interrupted states open (§2.9 #10). This agent ends 0.3 streams after
            // input-required and auth-required as in 1.0, so `final` is true there too.
            let last = state
                .as_ref()
                .and_then(state_of)
                .is_some_and(TaskState::ends_stream);
            if let Some(status) = update.remove("status") {
                insert(&mut update, "status", status_out(dialect, status));
            }
            insert(&mut update, "final", last);
            ("statusUpdate", update, "status-update")
        } else if let Some(Value::Object(mut update)) = event.remove("artifactUpdate") {
            if let Some(artifact) = update.remove("artifact") {
                insert(&mut update, "artifact", artifact_out(dialect, artifact));
            }
            ("artifactUpdate", update, "artifact-update")
        } else {
            return Value::Object(event);
        };
    match dialect {
        Dialect::JsonRpc => {
            let mut converted = converted;
            insert(&mut converted, "kind", kind);
            Value::Object(converted)
        }
        Dialect::Proto => wrap(member, Value::Object(converted)),
    }
}

#[cfg(test)]
mod tests;

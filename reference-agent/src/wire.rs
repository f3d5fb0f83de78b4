//! Turns stored objects into response JSON: applies historyLength and
//! includeArtifacts, and is the one place the wire-format faults live.

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::RpcError;
use crate::fault::Fault;
use crate::model::{Event, Message, Role, Task};
use crate::AgentConfig;

/// Whether a response shows a task's artifacts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Artifacts {
    /// No `artifacts` field.
    Omit,
    /// The artifacts, with the field omitted when there are none (ProtoJSON default).
    NonEmpty,
    /// The `artifacts` field, `[]` when there are none (ListTasks `includeArtifacts`).
    Always,
}

/// How much of a task a response shows.
#[derive(Debug, Clone, Copy)]
pub struct TaskView {
    /// `None` = full history; `Some(0)` = no `history` field.
    pub history_length: Option<usize>,
    pub artifacts: Artifacts,
}

fn to_object(value: &impl Serialize) -> Result<Map<String, Value>, RpcError> {
    match serde_json::to_value(value).map_err(RpcError::internal)? {
        Value::Object(object) => Ok(object),
        other => Err(RpcError::internal(format_args!(
            "expected an object, got {other}"
        ))),
    }
}

fn mark_kind(object: &mut Map<String, Value>, kind: &str) {
    object.insert("kind".to_owned(), Value::String(kind.to_owned()));
}

/// A Task as ProtoJSON.
pub fn task(task: &Task, view: TaskView, config: &AgentConfig) -> Result<Value, RpcError> {
    let mut task = task.clone();
    if let (Some(limit), false) = (view.history_length, config.has(Fault::IgnoreHistoryLength)) {
        if config.has(Fault::HistoryOldestFirst) {
            task.history.truncate(limit);
        } else {
            let excess = task.history.len().saturating_sub(limit);
            task.history.drain(..excess);
        }
    }
    if view.artifacts == Artifacts::Omit {
        task.artifacts.clear();
    }
    let mut object = to_object(&task)?;
    if view.artifacts == Artifacts::Always && !object.contains_key("artifacts") {
        object.insert("artifacts".to_owned(), Value::Array(Vec::new()));
    }
    if config.has(Fault::HistoryReplacesMessageId) {
        if let Some(Value::Array(history)) = object.get_mut("history") {
            let user = Value::from(Role::User.name());
            for message in history.iter_mut().filter(|m| m.get("role") == Some(&user)) {
                if let Some(Value::String(id)) = message.get_mut("messageId") {
                    *id = format!("agent-{id}");
                }
            }
        }
    }
    if config.has(Fault::NestedMessageMissingRole) {
        let agent = Value::from(Role::Agent.name());
        let strip_role = |message: &mut Value| {
            if let Some(message) = message.as_object_mut() {
                if message.get("role") == Some(&agent) {
                    message.remove("role");
                }
            }
        };
        if let Some(message) = object.get_mut("status").and_then(|s| s.get_mut("message")) {
            strip_role(message);
        }
        if let Some(Value::Array(history)) = object.get_mut("history") {
            history.iter_mut().for_each(strip_role);
        }
    }
    if let Some(Value::Object(status)) = object.get_mut("status") {
        if config.has(Fault::OmitStatusState) {
            status.remove("state");
        } else if config.has(Fault::LowercaseTaskState) {
            let legacy = task.status.state.legacy_name();
            status.insert("state".to_owned(), Value::String(legacy.to_owned()));
        }
        if config.has(Fault::TimestampWithOffset) {
            let utc = task.status.timestamp.to_string();
            let offset = format!("{}+00:00", utc.trim_end_matches('Z'));
            status.insert("timestamp".to_owned(), Value::String(offset));
        }
        if let (true, Some(Value::Object(message))) =
            (config.has(Fault::EmitKindField), status.get_mut("message"))
        {
            mark_kind(message, "message");
        }
    }
    if config.has(Fault::EmitKindField) {
        mark_kind(&mut object, "task");
        if let Some(Value::Array(history)) = object.get_mut("history") {
            history
                .iter_mut()
                .filter_map(Value::as_object_mut)
                .for_each(|message| mark_kind(message, "message"));
        }
    }
    if config.has(Fault::ArtifactMissingId) {
        if let Some(Value::Array(artifacts)) = object.get_mut("artifacts") {
            for artifact in artifacts.iter_mut().filter_map(Value::as_object_mut) {
                artifact.remove("artifactId");
            }
        }
    }
    if config.has(Fault::SnakeCaseFields) {
        object = object
            .into_iter()
            .map(|(key, value)| match key.as_str() {
                "contextId" => ("context_id".to_owned(), value),
                _ => (key, value),
            })
            .collect();
    }
    Ok(Value::Object(object))
}

/// A direct Message reply as ProtoJSON.
pub fn message(message: &Message, config: &AgentConfig) -> Result<Value, RpcError> {
    let mut object = to_object(message)?;
    if config.has(Fault::MessageMissingMessageId) {
        object.remove("messageId");
    }
    if config.has(Fault::MessageOmitsContextId) {
        object.remove("contextId");
    }
    if config.has(Fault::EmitKindField) {
        mark_kind(&mut object, "message");
    }
    Ok(Value::Object(object))
}

/// A `StreamResponse` as ProtoJSON: `{"task"}`, `{"message"}`,
/// `{"statusUpdate"}` or `{"artifactUpdate"}`; `view` applies to a Task.
pub fn event(event: &Event, view: TaskView, config: &AgentConfig) -> Result<Value, RpcError> {
    let (member, value) = match event {
        Event::Task(snapshot) => ("task", task(snapshot, view, config)?),
        Event::Message(reply) => ("message", message(reply, config)?),
        Event::Status(update) => ("statusUpdate", Value::Object(to_object(update)?)),
        Event::Artifact(update) => ("artifactUpdate", Value::Object(to_object(update)?)),
    };
    let mut object = Map::new();
    object.insert(member.to_owned(), value);
    Ok(Value::Object(object))
}

//! Turns stored objects into conformant response JSON (ProtoJSON), applying historyLength
//! and includeArtifacts. Shape faults are applied later, by [`crate::shape`].

use serde::Serialize;
use serde_json::{Map, Value};

use crate::error::RpcError;
use crate::model::{Event, Message, Task};
use crate::policy::HistoryWindow;

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
    /// Which messages a history length keeps.
    pub window: HistoryWindow,
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

/// A Task as ProtoJSON.
pub fn task(task: &Task, view: TaskView) -> Result<Value, RpcError> {
    let mut task = task.clone();
    if let Some(limit) = view.history_length {
        match view.window {
            HistoryWindow::MostRecent => {
                let excess = task.history.len().saturating_sub(limit);
                task.history.drain(..excess);
            }
            HistoryWindow::Oldest => task.history.truncate(limit),
            HistoryWindow::Everything => {}
        }
    }
    if view.artifacts == Artifacts::Omit {
        task.artifacts.clear();
    }
    let mut object = to_object(&task)?;
    if view.artifacts == Artifacts::Always && !object.contains_key("artifacts") {
        object.insert("artifacts".to_owned(), Value::Array(Vec::new()));
    }
    Ok(Value::Object(object))
}

/// A direct Message reply as ProtoJSON.
pub fn message(message: &Message) -> Result<Value, RpcError> {
    to_object(message).map(Value::Object)
}

/// A `StreamResponse` as ProtoJSON: `{"task"}`, `{"message"}`,
/// `{"statusUpdate"}` or `{"artifactUpdate"}`; `view` applies to a Task.
pub fn event(event: &Event, view: TaskView) -> Result<Value, RpcError> {
    let (member, value) = match event {
        Event::Task(snapshot) => ("task", task(snapshot, view)?),
        Event::Message(reply) => ("message", message(reply)?),
        Event::Status(update) => ("statusUpdate", Value::Object(to_object(update)?)),
        Event::Artifact(update) => ("artifactUpdate", Value::Object(to_object(update)?)),
    };
    let mut object = Map::new();
    object.insert(member.to_owned(), value);
    Ok(Value::Object(object))
}

//! The one pass over outgoing JSON, at the adapter boundary. The core produces conformant
//! 1.0 ProtoJSON; the adapters send every result, stream event, JSON-RPC envelope, REST
//! error body and the card through a [`Shaper`], which applies the faults that change only
//! the *shape* of what is sent (field spellings, missing or extra members, timestamp forms,
//! result wrappers, the 0.3 spellings) and turns 1.0 results into 0.3 ones
//! ([`crate::v03_codec`]) between the 1.0 and the 0.3 shape faults.

use std::collections::BTreeSet;

use futures::stream::StreamExt;
use serde_json::{Map, Value};

use crate::config::AgentConfig;
use crate::fault::Fault;
use crate::model::{Role, TaskState};
use crate::service::EventStream;
use crate::v03_codec::{self as codec, Dialect};

mod wire_faults;

/// The protocol form a response leaves in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    V1_0,
    V0_3(Dialect),
}

/// What an outgoing value is, as far as its shape goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Outgoing {
    /// A SendMessage result (`{"task"}` / `{"message"}`).
    Send,
    /// A bare Task (GetTask, CancelTask).
    Task,
    /// A ListTasks response.
    List,
    /// A `StreamResponse`.
    Event,
    Other,
}

impl Outgoing {
    /// By the 1.0 method, the 0.3 JSON-RPC method or the 0.3 proto rpc name.
    fn of(method: &str) -> Outgoing {
        match method {
            "SendMessage" | "message/send" => Outgoing::Send,
            "GetTask" | "CancelTask" | "tasks/get" | "tasks/cancel" => Outgoing::Task,
            "ListTasks" => Outgoing::List,
            _ => Outgoing::Other,
        }
    }
}

/// The shape faults of one agent.
#[derive(Debug, Clone, Default)]
pub struct Shaper {
    faults: BTreeSet<Fault>,
}

fn object(value: &mut Value) -> Option<&mut Map<String, Value>> {
    value.as_object_mut()
}

fn mark_kind(object: &mut Map<String, Value>, kind: &str) {
    object.insert("kind".to_owned(), Value::from(kind));
}

const STATES: [TaskState; 9] = [
    TaskState::Unspecified,
    TaskState::Submitted,
    TaskState::Working,
    TaskState::Completed,
    TaskState::Failed,
    TaskState::Canceled,
    TaskState::InputRequired,
    TaskState::Rejected,
    TaskState::AuthRequired,
];

/// Calls `f` with the `state` of every status in a Task, a send result or a stream event
/// (of either version): `status`, `task.status`, `statusUpdate.status`.
fn each_state(value: &mut Value, f: impl Fn(&str) -> Option<String>) {
    let rewrite = |status: Option<&mut Value>| {
        let Some(Value::String(state)) = status.and_then(|s| s.get_mut("state")) else {
            return;
        };
        if let Some(new) = f(state) {
            *state = new;
        }
    };
    rewrite(value.get_mut("status"));
    rewrite(value.get_mut("task").and_then(|t| t.get_mut("status")));
    rewrite(
        value
            .get_mut("statusUpdate")
            .and_then(|u| u.get_mut("status")),
    );
}

/// Removes `kind` from every object except update events, not looking into user data.
fn strip_kinds(value: &mut Value) {
    match value {
        Value::Object(object) => {
            let event = matches!(
                object.get("kind").and_then(Value::as_str),
                Some("status-update" | "artifact-update")
            );
            if !event {
                object.remove("kind");
            }
            for (key, member) in object.iter_mut() {
                if key != "data" && key != "metadata" {
                    strip_kinds(member);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_kinds),
        _ => {}
    }
}

impl Shaper {
    pub fn new(config: &AgentConfig) -> Shaper {
        Shaper {
            faults: config.faults.clone(),
        }
    }

    fn has(&self, fault: Fault) -> bool {
        self.faults.contains(&fault)
    }

    /// The unary result of `method` (a 1.0 method, a 0.3 JSON-RPC method or a 0.3 rpc).
    pub fn result(&self, wire: Wire, method: &str, value: Value) -> Value {
        self.shaped(wire, Outgoing::of(method), value)
    }

    /// One `StreamResponse` of a stream.
    pub fn event(&self, wire: Wire, value: Value) -> Value {
        self.shaped(wire, Outgoing::Event, value)
    }

    /// Every event of a stream.
    pub fn events(&self, wire: Wire, events: EventStream) -> EventStream {
        let shaper = self.clone();
        events
            .map(move |event| event.map(|event| shaper.event(wire, event)))
            .boxed()
    }

    fn shaped(&self, wire: Wire, kind: Outgoing, mut value: Value) -> Value {
        match kind {
            Outgoing::Send | Outgoing::Event => {
                if let Some(task) = value.get_mut("task") {
                    self.task(task);
                }
                if let Some(message) = value.get_mut("message") {
                    self.message(message);
                }
                if kind == Outgoing::Send && self.has(Fault::SendResultUnwrapped) {
                    let inner = match &mut value {
                        Value::Object(wrapper) if wrapper.len() == 1 => {
                            wrapper.values_mut().next().map(Value::take)
                        }
                        _ => None,
                    };
                    if let Some(inner) = inner {
                        value = inner;
                    }
                }
            }
            Outgoing::Task => self.task(&mut value),
            Outgoing::List => self.list(&mut value),
            Outgoing::Other => {}
        }
        wire_faults::before_codec(&self.faults, wire, kind == Outgoing::Event, &mut value);
        let Wire::V0_3(dialect) = wire else {
            return value;
        };
        if dialect == Dialect::JsonRpc && self.has(Fault::V03Answers10Shapes) {
            return value;
        }
        let mut value = match kind {
            Outgoing::Send => codec::send_result(dialect, value),
            Outgoing::Task => codec::task_out(dialect, value),
            Outgoing::Event => codec::event_out(dialect, value),
            Outgoing::List | Outgoing::Other => value,
        };
        self.v03(dialect, &mut value);
        wire_faults::after_codec(&self.faults, &mut value);
        value
    }

    /// The 0.3 shape faults, on 0.3 JSON.
    fn v03(&self, dialect: Dialect, value: &mut Value) {
        match dialect {
            Dialect::JsonRpc => {
                if self.has(Fault::V03StateSpelled10) {
                    each_state(value, |state| {
                        let parsed = STATES.iter().find(|s| s.legacy_name() == state)?;
                        Some(parsed.name().to_owned())
                    });
                }
                if self.has(Fault::V03CanceledSpelledCancelled) {
                    each_state(value, |state| {
                        (state == "canceled").then(|| "cancelled".into())
                    });
                }
                if self.has(Fault::V03NoKind) {
                    strip_kinds(value);
                }
                if self.has(Fault::V03NoFinal) {
                    if let Some(update) = object(value)
                        .filter(|o| o.get("kind").and_then(Value::as_str) == Some("status-update"))
                    {
                        update.remove("final");
                    }
                }
            }
            Dialect::Proto => {
                if self.has(Fault::V03ProtoStateCancelledOneL) {
                    each_state(value, |state| {
                        (state == "TASK_STATE_CANCELLED").then(|| TaskState::Canceled.name().into())
                    });
                }
                if self.has(Fault::V03NoFinal) {
                    if let Some(update) = value.get_mut("statusUpdate").and_then(object) {
                        update.remove("final");
                    }
                }
            }
        }
    }

    /// The 1.0 shape faults of a Task.
    fn task(&self, value: &mut Value) {
        let Some(task) = object(value) else {
            return;
        };
        if self.has(Fault::AuthRequiredNoStatusMessage) {
            if let Some(status) = task.get_mut("status").and_then(object) {
                if status.get("state").and_then(Value::as_str) == Some("TASK_STATE_AUTH_REQUIRED") {
                    status.remove("message");
                }
            }
        }
        if self.has(Fault::HistoryReplacesMessageId) {
            let user = Value::from(Role::User.name());
            if let Some(Value::Array(history)) = task.get_mut("history") {
                for message in history.iter_mut().filter(|m| m.get("role") == Some(&user)) {
                    if let Some(Value::String(id)) = message.get_mut("messageId") {
                        *id = format!("agent-{id}");
                    }
                }
            }
        }
        if self.has(Fault::HistoryAgentMessageEmptyParts) {
            let interrupted_or_failed = task
                .get("status")
                .and_then(|s| s.get("state"))
                .and_then(Value::as_str)
                .is_some_and(|s| s == "TASK_STATE_INPUT_REQUIRED" || s == "TASK_STATE_FAILED");
            let agent = Value::from(Role::Agent.name());
            if let Some(Value::Array(history)) =
                task.get_mut("history").filter(|_| interrupted_or_failed)
            {
                for message in history.iter_mut().filter_map(object) {
                    if message.get("role") == Some(&agent) {
                        message.insert("parts".into(), Value::Array(Vec::new()));
                    }
                }
            }
        }
        if self.has(Fault::NestedMessageMissingRole) {
            let agent = Value::from(Role::Agent.name());
            let strip_role = |message: &mut Value| {
                if let Some(message) = object(message) {
                    if message.get("role") == Some(&agent) {
                        message.remove("role");
                    }
                }
            };
            if let Some(message) = task.get_mut("status").and_then(|s| s.get_mut("message")) {
                strip_role(message);
            }
            if let Some(Value::Array(history)) = task.get_mut("history") {
                history.iter_mut().for_each(strip_role);
            }
        }
        if let Some(Value::Object(status)) = task.get_mut("status") {
            if self.has(Fault::OmitStatusState) {
                status.remove("state");
            } else if self.has(Fault::LowercaseTaskState) {
                if let Some(state) = status.get_mut("state") {
                    let parsed = serde_json::from_value::<TaskState>(state.clone()).ok();
                    if let Some(parsed) = parsed {
                        *state = Value::from(parsed.legacy_name());
                    }
                }
            }
            if self.has(Fault::TimestampWithOffset) {
                if let Some(Value::String(timestamp)) = status.get_mut("timestamp") {
                    *timestamp = format!("{}+00:00", timestamp.trim_end_matches('Z'));
                }
            }
            if self.has(Fault::EmitKindField) {
                if let Some(message) = status.get_mut("message").and_then(object) {
                    mark_kind(message, "message");
                }
            }
        }
        if self.has(Fault::EmitKindField) {
            mark_kind(task, "task");
            if let Some(Value::Array(history)) = task.get_mut("history") {
                history
                    .iter_mut()
                    .filter_map(object)
                    .for_each(|message| mark_kind(message, "message"));
            }
        }
        if self.has(Fault::ArtifactMissingId) {
            if let Some(Value::Array(artifacts)) = task.get_mut("artifacts") {
                for artifact in artifacts.iter_mut().filter_map(object) {
                    artifact.remove("artifactId");
                }
            }
        }
        if self.has(Fault::SnakeCaseFields) {
            *task = std::mem::take(task)
                .into_iter()
                .map(|(key, value)| match key.as_str() {
                    "contextId" => ("context_id".to_owned(), value),
                    _ => (key, value),
                })
                .collect();
        }
    }

    /// The 1.0 shape faults of a direct Message reply.
    fn message(&self, value: &mut Value) {
        let Some(message) = object(value) else {
            return;
        };
        if self.has(Fault::MessageMissingMessageId) {
            message.remove("messageId");
        }
        if self.has(Fault::MessageOmitsContextId) {
            message.remove("contextId");
        }
        if self.has(Fault::EmitKindField) {
            mark_kind(message, "message");
        }
    }

    /// The 1.0 shape faults of a ListTasks response.
    fn list(&self, value: &mut Value) {
        if let Some(Value::Array(tasks)) = value.get_mut("tasks") {
            tasks.iter_mut().for_each(|task| self.task(task));
        }
        let Some(response) = object(value) else {
            return;
        };
        if self.has(Fault::ListOmitsNextPageToken)
            && response.get("nextPageToken") == Some(&Value::from(""))
        {
            response.remove("nextPageToken");
        }
        if self.has(Fault::ListOmitsTotalSize) {
            response.remove("pageSize");
            response.remove("totalSize");
        }
    }

    /// A JSON-RPC response object (its id, `jsonrpc` member and error member).
    pub fn rpc_response(&self, mut envelope: Map<String, Value>) -> Value {
        if self.has(Fault::WrongResponseId) {
            if let Some(Value::Number(n)) = envelope.get("id") {
                let id = Value::String(n.to_string());
                envelope.insert("id".to_owned(), id);
            }
        }
        if self.has(Fault::OmitJsonrpcMember) {
            envelope.remove("jsonrpc");
        }
        if let Some(Value::Array(details)) =
            (envelope.get_mut("error").and_then(object)).and_then(|e| e.get_mut("data"))
        {
            self.extra_details(details);
        }
        if let Some(error) = envelope.get_mut("error").and_then(object) {
            if self.has(Fault::OmitErrorInfo) {
                error.remove("data");
            } else if self.has(Fault::ErrorDataNotArray) {
                if let Some(Value::Array(details)) = error.get_mut("data") {
                    let first = details.drain(..).next().unwrap_or(Value::Null);
                    error.insert("data".to_owned(), first);
                }
            }
        }
        Value::Object(envelope)
    }

    /// A JSON-RPC response object sent as one SSE event of a stream.
    pub fn rpc_event(&self, mut envelope: Map<String, Value>) -> Value {
        if self.has(Fault::SseEventsUnwrapped) {
            if let Some(result) = envelope.remove("result") {
                return result;
            }
        }
        if self.has(Fault::SseWrongId) {
            let other = match envelope.get("id") {
                Some(Value::Number(n)) => {
                    Value::from(n.as_i64().unwrap_or_default().wrapping_add(1))
                }
                Some(Value::String(s)) => Value::String(format!("{s}-other")),
                _ => Value::from(0),
            };
            envelope.insert("id".to_owned(), other);
        }
        self.rpc_response(envelope)
    }

    /// A REST `{"error": google.rpc.Status}` body.
    pub fn rest_error(&self, mut body: Value) -> Value {
        if let Some(Value::Array(details)) = body.pointer_mut("/error/details") {
            self.extra_details(details);
        }
        if self.has(Fault::RestErrorNoErrorInfo) {
            if let Some(error) = body.get_mut("error").and_then(object) {
                error.insert("details".to_owned(), Value::Array(Vec::new()));
            }
        }
        body
    }

    /// The typed details after the ErrorInfo of an error (`google.rpc.BadRequest`): dropped,
    /// or left without `@type`, under the faults that say so.
    fn extra_details(&self, details: &mut Vec<Value>) {
        let bad_request = |d: &Value| {
            d.get("@type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.ends_with("google.rpc.BadRequest"))
        };
        if self.has(Fault::ErrorsWithoutBadRequest) {
            details.retain(|d| !bad_request(d));
        }
        if self.has(Fault::ErrorDetailUntyped) {
            for detail in details.iter_mut().filter(|d| bad_request(d)) {
                if let Some(detail) = object(detail) {
                    detail.remove("@type");
                }
            }
        }
    }

    /// The Agent Card document.
    pub fn card(&self, mut card: Value) -> Value {
        let Some(document) = object(&mut card) else {
            return card;
        };
        if self.has(Fault::CardMissingRequiredField) {
            document.remove("description");
        }
        if self.has(Fault::StreamingUndeclared) {
            if let Some(capabilities) = document.get_mut("capabilities").and_then(object) {
                capabilities.insert("streaming".to_owned(), Value::Bool(false));
            }
        }
        if let Some(Value::Array(interfaces)) = document.get_mut("supportedInterfaces") {
            if self.has(Fault::CardPatchVersion) {
                let jsonrpc_1_0 = |i: &&mut Value| {
                    i.get("protocolBinding") == Some(&Value::from("JSONRPC"))
                        && i.get("protocolVersion") == Some(&Value::from("1.0"))
                };
                for interface in interfaces.iter_mut().filter(jsonrpc_1_0) {
                    interface["protocolVersion"] = Value::from("1.0.0");
                }
            }
            if self.has(Fault::CardOmits03) {
                interfaces.retain(|i| i.get("protocolVersion") != Some(&Value::from("0.3")));
            }
            if self.has(Fault::CardInterfaceUnknownVersion) {
                // Beside the JSON-RPC 1.0 interface, at its URL: a version no spec defines.
                let url = interfaces
                    .iter()
                    .find(|i| i.get("protocolBinding") == Some(&Value::from("JSONRPC")))
                    .and_then(|i| i.get("url").cloned());
                if let Some(url) = url {
                    interfaces.push(serde_json::json!({
                        "url": url,
                        "protocolBinding": "JSONRPC",
                        "protocolVersion": "2.7",
                    }));
                }
            }
            if self.has(Fault::CardBadInterface) {
                let bad = serde_json::json!({"url": "rest", "protocolBinding": "HTTP+JSON"});
                interfaces.push(bad);
            }
        }
        if self.has(Fault::CardOmits03) {
            for field in [
                "protocolVersion",
                "url",
                "preferredTransport",
                "additionalInterfaces",
                "supportsAuthenticatedExtendedCard",
            ] {
                document.remove(field);
            }
        }
        card
    }
}

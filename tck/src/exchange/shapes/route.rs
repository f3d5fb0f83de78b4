//! What an exchange was: the operation of its request (by JSON-RPC method, REST route or
//! gRPC rpc), whether it is in the interface's version, and the task a stream is about.

use serde_json::Value;

use crate::exchange::card::Interface;
use crate::exchange::evidence::Exchange;
use crate::facts::model::{Binding, ProtocolVersion};
use crate::facts::operation;

/// The operation an exchange carried, by what its result is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Op {
    Send,
    Stream,
    Task,
    ListTasks,
    PushConfig,
    PushConfigList,
    /// An operation whose result is not judged here (delete, cards), or an unknown method:
    /// the JSON-RPC envelope is judged, nothing more.
    Other,
}

/// Only exchanges in the interface's own version are judged against its schema: a check
/// that sends another `A2A-Version` (or none, to a 1.0 interface) gets the other version's
/// answer, or an error.
pub(super) fn same_version(interface: &Interface, exchange: &Exchange) -> bool {
    let header = exchange
        .request
        .headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case("a2a-version"))
        .map(|(_, v)| v.trim().to_string())
        .or_else(|| query_version(&exchange.request.url));
    match interface.version {
        ProtocolVersion::V1_0 => header.is_some_and(|v| v == "1" || v.starts_with("1.")),
        ProtocolVersion::V0_3 => header.is_none_or(|v| v.starts_with("0.")),
    }
}

fn query_version(url: &str) -> Option<String> {
    let query = url.split_once('?')?.1;
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=')?;
        k.eq_ignore_ascii_case("a2a-version").then(|| v.to_string())
    })
}

pub(super) fn operation(interface: &Interface, exchange: &Exchange) -> Option<Op> {
    let request = &exchange.request;
    match interface.binding {
        Binding::Jsonrpc => {
            let body = request.body.as_ref()?.json.as_ref()?;
            let method = body.get("method")?.as_str()?;
            Some(match operation::jsonrpc_method(method) {
                // 0.3's tasks/list is not in its schema's results: its envelope only.
                Some(("ListTasks", ProtocolVersion::V0_3)) => Op::Other,
                Some((name, spoken)) if spoken == interface.version => {
                    category(name).unwrap_or(Op::Other)
                }
                _ => Op::Other,
            })
        }
        Binding::Rest => rest_operation(&request.method, &request.url),
        Binding::Grpc => category(operation::grpc_rpc(request.url.rsplit('/').next()?)?),
    }
}

/// What an operation's result is, by its 1.0 name; `None` for one whose result is not judged
/// here.
fn category(name: &str) -> Option<Op> {
    Some(match name {
        "SendMessage" => Op::Send,
        "SendStreamingMessage" | "SubscribeToTask" => Op::Stream,
        "GetTask" | "CancelTask" => Op::Task,
        "ListTasks" => Op::ListTasks,
        "CreateTaskPushNotificationConfig" | "GetTaskPushNotificationConfig" => Op::PushConfig,
        "ListTaskPushNotificationConfigs" => Op::PushConfigList,
        _ => return None,
    })
}

/// The operation of a REST request, by its path's end (either version's routes, with or
/// without a tenant or `/v1` prefix, as [`operation::rest_route`] reads them); unknown
/// routes are not judged.
fn rest_operation(method: &str, url: &str) -> Option<Op> {
    category(operation::rest_route(method, url)?.name)
}

/// The task a stream is about, when its request names one (a subscription, or a message
/// sent to an existing task); otherwise its first event names it.
pub(super) fn stream_task(interface: &Interface, exchange: &Exchange) -> Option<String> {
    let request = &exchange.request;
    let body = request.body.as_ref().and_then(|b| b.json.as_ref());
    let from_body = |params: &Value| -> Option<String> {
        let named = params
            .get("id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .or_else(|| {
                let name = params.get("name").and_then(Value::as_str)?;
                Some(name.strip_prefix("tasks/")?.to_string())
            });
        named.or_else(|| {
            let message = params.get("message").or_else(|| params.get("request"))?;
            message.get("taskId")?.as_str().map(str::to_string)
        })
    };
    match interface.binding {
        Binding::Jsonrpc => body.and_then(|b| b.get("params")).and_then(from_body),
        Binding::Grpc => body.and_then(from_body),
        Binding::Rest => {
            let path = request.url.split(['?', '#']).next()?;
            let last = path.rsplit('/').next()?;
            if let Some(id) = last.strip_suffix(":subscribe") {
                return Some(percent_decode(id));
            }
            body.and_then(from_body)
        }
    }
    .filter(|id| !id.is_empty())
}

/// Decodes `%XX` escapes of a path segment.
fn percent_decode(segment: &str) -> String {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            if let Ok(b) = u8::from_str_radix(&segment[i + 1..i + 3], 16) {
                out.push(b);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The task an event is about: the Task's id, an update's taskId, a message's taskId.
pub(super) fn event_task(interface: &Interface, payload: &Value) -> Option<String> {
    let text = |v: &Value, k: &str| v.get(k).and_then(Value::as_str).map(str::to_string);
    let jsonrpc_03 =
        interface.version == ProtocolVersion::V0_3 && interface.binding == Binding::Jsonrpc;
    let id = if jsonrpc_03 || payload.get("kind").is_some() {
        match payload.get("kind").and_then(Value::as_str) {
            Some("task") => text(payload, "id"),
            _ => text(payload, "taskId"),
        }
    } else if let Some(task) = payload.get("task") {
        text(task, "id")
    } else if let Some(update) = payload
        .get("statusUpdate")
        .or_else(|| payload.get("artifactUpdate"))
        .or_else(|| payload.get("message"))
    {
        text(update, "taskId")
    } else {
        None
    };
    id.filter(|id| !id.is_empty())
}

/// How a stream event stands to the end of its stream.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Ending {
    /// It says nothing about the end.
    No,
    /// It ends the stream: a Message as the stream's first event (a message-only stream), a
    /// status update with 0.3's `final: true`, or a status update reporting a terminal state.
    Ends,
    /// A status update or a Task in the terminal state `state`: it ends the stream, and
    /// after an end it repeats what is known (the final Task snapshot of §11.7, a repeated
    /// terminal status).
    Terminal(String),
}

/// Where `payload`, a stream event of `interface` (the JSON-RPC result or the event itself),
/// stands to the end of its stream; `first` when it is the stream's first event.
pub(super) fn stream_ending(interface: &Interface, payload: &Value, first: bool) -> Ending {
    const TERMINAL: &[&str] = &[
        "TASK_STATE_COMPLETED",
        "TASK_STATE_FAILED",
        "TASK_STATE_CANCELED",
        "TASK_STATE_CANCELLED",
        "TASK_STATE_REJECTED",
        "completed",
        "failed",
        "canceled",
        "rejected",
    ];
    let jsonrpc_03 =
        interface.version == ProtocolVersion::V0_3 && interface.binding == Binding::Jsonrpc;
    let (kind, body) = if jsonrpc_03 || payload.get("kind").is_some() {
        let kind = match payload.get("kind").and_then(Value::as_str) {
            Some("task") => "task",
            Some("message") => "message",
            Some("status-update") => "status",
            _ => "other",
        };
        (kind, payload)
    } else {
        let member = [
            ("task", "task"),
            ("message", "message"),
            ("msg", "message"),
            ("statusUpdate", "status"),
        ]
        .into_iter()
        .find_map(|(member, kind)| payload.get(member).map(|body| (kind, body)));
        member.unwrap_or(("other", payload))
    };
    let state = body
        .pointer("/status/state")
        .and_then(Value::as_str)
        .filter(|s| TERMINAL.contains(s));
    match (kind, state) {
        // A stream's first Task is the task as it stands (§3.1.6): what follows may be its
        // updates, so a terminal first Task does not end the stream by itself.
        ("task", Some(state)) if !first => Ending::Terminal(state.to_string()),
        ("status", Some(state)) => Ending::Terminal(state.to_string()),
        ("status", None) if body.get("final").and_then(Value::as_bool) == Some(true) => {
            Ending::Ends
        }
        ("message", _) if first => Ending::Ends,
        _ => Ending::No,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rest_routes() {
        let op = |m: &str, u: &str| rest_operation(m, u);
        assert_eq!(op("POST", "http://h/message:send"), Some(Op::Send));
        assert_eq!(op("POST", "http://h/t1/message:stream"), Some(Op::Stream));
        assert_eq!(
            op("GET", "http://h/v1/tasks/abc?historyLength=2"),
            Some(Op::Task)
        );
        assert_eq!(op("POST", "http://h/tasks/abc:cancel"), Some(Op::Task));
        assert_eq!(op("GET", "http://h/tasks/abc:subscribe"), Some(Op::Stream));
        assert_eq!(op("GET", "http://h/tasks?pageSize=1"), Some(Op::ListTasks));
        assert_eq!(
            op("POST", "http://h/tasks/a/pushNotificationConfigs"),
            Some(Op::PushConfig)
        );
        assert_eq!(
            op("GET", "http://h/tasks/a/pushNotificationConfigs"),
            Some(Op::PushConfigList)
        );
        assert_eq!(
            op("GET", "http://h/tasks/a/pushNotificationConfigs/c"),
            Some(Op::PushConfig)
        );
        assert_eq!(
            op("DELETE", "http://h/tasks/a/pushNotificationConfigs/c"),
            None
        );
        assert_eq!(op("GET", "http://h/extendedAgentCard"), None);
    }

    #[test]
    fn percent_decoding() {
        assert_eq!(percent_decode("a%2Fb"), "a/b");
        assert_eq!(percent_decode("abc%"), "abc%");
        assert_eq!(percent_decode("abc%2"), "abc%2");
    }
}

//! What the client sent, read: each request the stage recorded, recognised as an A2A operation
//! of a binding and version (its 1.0 name), its params as JSON whatever the binding (JSON-RPC
//! params, a REST body with its path fields, a gRPC message decoded by the project's proto), and
//! whatever in its form breaks the binding.

use std::sync::Arc;

use serde_json::{json, Map, Value};

use crate::facts::model::{Binding, ProtocolVersion};
use crate::facts::operation::{self, jsonrpc_method};

use crate::exchange::transport::{Answer, ErrorReply};
use crate::exchange::wire::HttpReply;
use crate::facts::a2a::ErrorKind;

use super::stage::{Door, Seen};

/// One request of the client, read.
#[derive(Debug, Clone)]
pub struct Call {
    pub seen: Arc<Seen>,
    /// The binding it used; `None` for the card fetch and for what the kit cannot place.
    pub binding: Option<Binding>,
    /// The operation, by its 1.0 name (`SendMessage`), when recognised.
    pub op: Option<&'static str>,
    /// The version whose names the request used, when it tells (JSON-RPC methods, REST routes,
    /// gRPC services).
    pub spoken: Option<ProtocolVersion>,
    /// Its params as JSON (a REST request's path fields included: `id`, `taskId`, `tenant`).
    pub params: Value,
    /// What breaks the binding's MUST rules.
    pub broken: Vec<String>,
    /// What goes against the binding's SHOULD rules.
    pub discouraged: Vec<String>,
    /// The card fetch (`/.well-known/agent-card.json`).
    pub card_fetch: bool,
    /// Where the request's path leaves the URL the card gives (the agent serves it all the
    /// same): the interface URL or a route with a slash added.
    pub off_url: Option<String>,
}

impl Call {
    /// The door it came through.
    pub fn door(&self) -> Door {
        self.seen.door
    }

    /// Whether it is an A2A operation (not the card fetch, not unplaced).
    pub fn is_operation(&self) -> bool {
        self.op.is_some()
    }

    /// The message it carries (SendMessage, SendStreamingMessage).
    pub fn message(&self) -> Option<&Value> {
        self.params
            .get("message")
            .or_else(|| self.params.get("request"))
            .filter(|m| m.is_object())
    }

    /// The task it names: `id`, `taskId`, or a `name` of the form `tasks/{id}[/...]`.
    pub fn task_id(&self) -> Option<String> {
        let text = |k: &str| {
            self.params
                .get(k)
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        text("id").or_else(|| text("taskId")).or_else(|| {
            let name = text("name").or_else(|| text("parent"))?;
            name.strip_prefix("tasks/")
                .map(|rest| rest.split('/').next().unwrap_or(rest).to_owned())
        })
    }

    /// The tenant it carries (`tenant` in its params or the REST path).
    pub fn tenant(&self) -> Option<&str> {
        self.params
            .get("tenant")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
    }

    /// The value of `A2A-Version` it carries: the header, else the query parameter.
    pub fn version_value(&self) -> Option<String> {
        if let Some(value) = self.seen.header("a2a-version") {
            return Some(value.trim().to_owned());
        }
        let query = self.seen.query.as_deref()?;
        query.split('&').find_map(|pair| {
            let (name, value) = pair.split_once('=')?;
            name.eq_ignore_ascii_case("A2A-Version")
                .then(|| value.trim().to_owned())
        })
    }

    /// One line for people: `POST /a2a/jsonrpc SendMessage`.
    pub fn brief(&self) -> String {
        let op = self
            .op
            .unwrap_or(if self.card_fetch { "card" } else { "?" });
        format!("{} {} ({op})", self.seen.method, self.seen.path)
    }
}

/// What the play's agent answered one request, as the stage passed it on.
#[derive(Debug, Clone, PartialEq)]
pub enum Answered {
    /// No answer of the agent: the failing interface's 503, or a request the stage could not
    /// pass on.
    Nothing(String),
    /// A unary result (the JSON-RPC result, the REST body, the gRPC message as ProtoJSON), in
    /// the form of the version it was served in.
    Result(Value),
    /// A stream's events (each JSON-RPC result, REST event or gRPC message), as far as the
    /// stage kept them.
    Stream(Vec<Value>),
    /// An error, as its binding expressed it.
    Error(ErrorReply),
    /// An answer the kit cannot read, and why.
    Unreadable(String),
}

impl Answered {
    /// The task or the message a result or a stream's first event holds: `("task", task)`
    /// or `("message", message)`, in either version's form.
    pub fn payload(&self) -> Option<(&'static str, &Value)> {
        let value = match self {
            Answered::Result(value) => value,
            Answered::Stream(events) => events.first()?,
            _ => return None,
        };
        payload_of(value)
    }
}

/// The task or message of a result: a 1.0 `{"task"}`/`{"message"}` (gRPC 0.3 `{"msg"}`), a
/// 0.3 object with its `kind`, or a bare task (GetTask, CancelTask).
fn payload_of(value: &Value) -> Option<(&'static str, &Value)> {
    if let Some(task) = value.get("task").filter(|t| t.is_object()) {
        return Some(("task", task));
    }
    if let Some(message) =
        (value.get("message").or_else(|| value.get("msg"))).filter(|m| m.is_object())
    {
        return Some(("message", message));
    }
    match value.get("kind").and_then(Value::as_str) {
        Some("message") => Some(("message", value)),
        Some("task") => Some(("task", value)),
        _ if value.get("id").is_some() && value.get("status").is_some() => Some(("task", value)),
        _ => None,
    }
}

/// The error kind an error is, named as the adapter protocol names kinds (`TaskNotFound`,
/// `ParseError`): by its ErrorInfo reason, its JSON-RPC code, else by the binding's form;
/// `None` when its form names none (0.3 leaves HTTP+JSON and gRPC errors unspecified).
pub fn kind_of(error: &ErrorReply) -> Option<String> {
    let protocol = [
        ErrorKind::InvalidParams,
        ErrorKind::InvalidRequest,
        ErrorKind::MethodNotFound,
        ErrorKind::JsonParse,
        ErrorKind::Internal,
    ];
    let kinds: Vec<ErrorKind> = ErrorKind::A2A.iter().copied().chain(protocol).collect();
    let by_reason = (error.error_info.as_ref()).and_then(|info| {
        kinds
            .iter()
            .find(|k| k.reason() == Some(info.reason.as_str()))
    });
    let by_code = (error.code).and_then(|code| kinds.iter().find(|k| k.jsonrpc_code() == code));
    let specified = error.binding == Binding::Jsonrpc || error.version == ProtocolVersion::V1_0;
    let by_form = || {
        specified
            .then(|| {
                kinds
                    .iter()
                    .find(|k| crate::exchange::judge::error(error, **k).is_ok())
            })
            .flatten()
    };
    let kind = by_reason.or(by_code).or_else(by_form)?;
    Some(match kind {
        ErrorKind::JsonParse => "ParseError".to_owned(),
        other => format!("{other:?}"),
    })
}

impl Call {
    /// The concatenated text of the message it carries (1.0 `parts`, 0.3 gRPC `content`).
    pub fn text(&self) -> Option<String> {
        let message = self.message()?;
        let parts = message.get("parts").or_else(|| message.get("content"))?;
        Some(
            (parts.as_array().into_iter().flatten())
                .filter_map(|p| p.get("text").and_then(Value::as_str))
                .collect(),
        )
    }

    /// Whether it fetched the card where cards were before 0.3 (`/.well-known/agent.json`).
    pub fn legacy_card_fetch(&self) -> bool {
        self.seen
            .path
            .trim_end_matches('/')
            .ends_with(LEGACY_CARD_PATH)
    }

    /// What the agent answered it.
    pub fn answered(&self) -> Answered {
        let served = self.seen.served();
        if self.door() == Door::Dead {
            return Answered::Nothing("the failing interface answered it, not the agent".into());
        }
        if let (Some(error), 502) = (&served.error, served.status) {
            return Answered::Nothing(format!("the stage could not pass it on: {error}"));
        }
        let version = self.spoken.unwrap_or(ProtocolVersion::V1_0);
        let with_version = |mut e: ErrorReply| {
            e.version = version;
            Answered::Error(e)
        };
        let header = |name: &str| {
            (served.headers.iter())
                .find(|(n, _)| n.eq_ignore_ascii_case(name))
                .map(|(_, v)| v.as_str())
        };
        match self.binding {
            None => Answered::Unreadable("the request is no A2A operation".into()),
            Some(Binding::Grpc) => {
                let code = header("grpc-status").and_then(|c| c.trim().parse::<i32>().ok());
                match code {
                    Some(0) => {
                        let messages = self.grpc_messages(&served.body);
                        match self.op {
                            Some("SendStreamingMessage" | "SubscribeToTask") => {
                                Answered::Stream(messages)
                            }
                            _ => messages.into_iter().next().map_or_else(
                                || Answered::Unreadable("an OK status with no message".into()),
                                Answered::Result,
                            ),
                        }
                    }
                    Some(code) => {
                        let status = a2a_proto::status_of_trailers(
                            code,
                            header("grpc-message").unwrap_or(""),
                            header("grpc-status-details-bin"),
                        );
                        with_version(crate::exchange::transport::grpc::error_reply(&status))
                    }
                    None => {
                        Answered::Unreadable(format!("no gRPC status (HTTP {})", served.status))
                    }
                }
            }
            Some(binding) => {
                let event_stream = header("content-type")
                    .is_some_and(|c| c.to_ascii_lowercase().starts_with("text/event-stream"));
                if event_stream {
                    return sse_answer(binding, &served.body, version);
                }
                let http = HttpReply {
                    status: served.status,
                    headers: served.headers.clone(),
                    body: served.body.clone(),
                };
                match crate::exchange::transport::answer::unary_reply(binding, &http).read {
                    Ok(Answer::Result(value)) => Answered::Result(value),
                    Ok(Answer::Error(e)) => with_version(e),
                    Err(why) => Answered::Unreadable(why),
                }
            }
        }
    }

    /// The messages of a gRPC response body, as ProtoJSON of the rpc's output.
    fn grpc_messages(&self, body: &[u8]) -> Vec<Value> {
        let mut parts = self.seen.path.trim_start_matches('/').splitn(2, '/');
        let (service, rpc) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
        let Some(method) = a2a_proto::method_in(service, rpc) else {
            return Vec::new();
        };
        let mut messages = Vec::new();
        let mut at = 0;
        while body.len() >= at + 5 {
            let len = u32::from_be_bytes([body[at + 1], body[at + 2], body[at + 3], body[at + 4]])
                as usize;
            let Some(bytes) = body.get(at + 5..at + 5 + len) else {
                break;
            };
            if body[at] == 0 {
                if let Ok(message) = prost_reflect::DynamicMessage::decode(method.output(), bytes) {
                    if let Ok(value) = a2a_proto::to_json(&message) {
                        messages.push(value);
                    }
                }
            }
            at += 5 + len;
        }
        messages
    }
}

/// A stream answered as server-sent events: each event's JSON (a JSON-RPC event's result), or
/// the error its first event carries.
fn sse_answer(binding: Binding, body: &[u8], version: ProtocolVersion) -> Answered {
    let text = String::from_utf8_lossy(body).replace("\r\n", "\n");
    let mut events = Vec::new();
    for block in text.split("\n\n") {
        let data: Vec<&str> = (block.lines())
            .filter_map(|l| l.strip_prefix("data:"))
            .map(|d| d.strip_prefix(' ').unwrap_or(d))
            .collect();
        if data.is_empty() {
            continue;
        }
        let Ok(event) = serde_json::from_str::<Value>(&data.join("\n")) else {
            continue;
        };
        if binding != Binding::Jsonrpc {
            events.push(event);
            continue;
        }
        match crate::exchange::transport::answer::read_response(&event, None) {
            Some(Answer::Result(result)) => events.push(result),
            Some(Answer::Error(mut e)) if events.is_empty() => {
                e.version = version;
                return Answered::Error(e);
            }
            _ => {}
        }
    }
    Answered::Stream(events)
}

/// Reads every request of a play.
pub fn read_all(seen: &[Arc<Seen>], prefix: &str) -> Vec<Call> {
    seen.iter().map(|s| read(s, prefix)).collect()
}

/// Reads one request.
pub fn read(seen: &Arc<Seen>, prefix: &str) -> Call {
    let mut call = Call {
        seen: Arc::clone(seen),
        binding: None,
        op: None,
        spoken: None,
        params: Value::Null,
        broken: Vec::new(),
        discouraged: Vec::new(),
        card_fetch: false,
        off_url: None,
    };
    let path = seen.path.strip_prefix(prefix).unwrap_or(&seen.path);
    // The routes as the play's agent serves them: a trailing slash names the same route.
    let route = path.trim_end_matches('/');
    if route.ends_with("/.well-known/agent-card.json") || route.ends_with(LEGACY_CARD_PATH) {
        call.card_fetch = true;
    } else if seen.is_grpc() {
        read_grpc(&mut call);
    } else if route == a2a_reference_agent::JSONRPC_PATH {
        read_jsonrpc(&mut call);
    } else if let Some(route) = path.strip_prefix(a2a_reference_agent::REST_PATH) {
        read_rest(&mut call, route);
    }
    if call.op.is_some() && path.len() > 1 && path.ends_with('/') {
        call.off_url = Some(format!(
            "{} is the card's {} with a slash added",
            seen.path,
            if call.binding == Some(Binding::Jsonrpc) {
                "interface URL"
            } else {
                "route"
            }
        ));
    }
    call
}

/// Where cards were before 0.3 named `agent-card.json`.
pub const LEGACY_CARD_PATH: &str = "/.well-known/agent.json";

fn body_json(seen: &Seen) -> Option<Value> {
    serde_json::from_slice(&seen.body).ok()
}

fn json_content_type(seen: &Seen) -> bool {
    seen.header("content-type").is_some_and(|c| {
        let media = c.split(';').next().unwrap_or("").trim();
        media.eq_ignore_ascii_case("application/json")
            || media.eq_ignore_ascii_case("application/a2a+json")
    })
}

fn read_jsonrpc(call: &mut Call) {
    call.binding = Some(Binding::Jsonrpc);
    let seen = Arc::clone(&call.seen);
    if seen.method != "POST" {
        call.broken.push(format!(
            "a JSON-RPC request sent with {} (not POST)",
            seen.method
        ));
    }
    if !json_content_type(&seen) {
        call.broken.push(format!(
            "Content-Type {:?}, not application/json",
            seen.header("content-type").unwrap_or("(none)")
        ));
    }
    let Some(body) = body_json(&seen).filter(Value::is_object) else {
        call.broken
            .push("the body is not a JSON object (a JSON-RPC request)".into());
        return;
    };
    if body.get("jsonrpc") != Some(&json!("2.0")) {
        call.broken.push(format!(
            "\"jsonrpc\" is {}, not \"2.0\"",
            body.get("jsonrpc")
                .map_or("absent".into(), Value::to_string)
        ));
    }
    match body.get("id") {
        None => call
            .broken
            .push("no \"id\": a notification, which gets no answer".into()),
        Some(Value::String(_)) => {}
        Some(Value::Number(n)) if n.is_i64() || n.is_u64() => {}
        Some(Value::Number(n)) => call
            .discouraged
            .push(format!("the id {n} is a fractional number")),
        Some(Value::Null) => call.discouraged.push("the id is null".into()),
        Some(other) => call
            .broken
            .push(format!("the id {other} is neither a string nor a number")),
    }
    let method = body.get("method").and_then(Value::as_str).unwrap_or("");
    match jsonrpc_method(method) {
        Some((op, version)) => {
            call.op = Some(op);
            call.spoken = Some(version);
        }
        None => call
            .broken
            .push(format!("the method {method:?} is not an A2A method")),
    }
    let params = body.get("params").cloned().unwrap_or(json!({}));
    // 1.0 params are ProtoJSON, whose readers take the proto field names too (`message_id`).
    call.params = if call.spoken == Some(ProtocolVersion::V1_0) {
        camel_keys(params)
    } else {
        params
    };
}

/// `value` with every object key in lowerCamelCase, as ProtoJSON reads either spelling.
pub fn camel_keys(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| (camel(&key), camel_keys(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(camel_keys).collect()),
        other => other,
    }
}

fn camel(key: &str) -> String {
    let mut out = String::with_capacity(key.len());
    let mut upper = false;
    for c in key.chars() {
        if c == '_' {
            upper = true;
        } else if upper {
            out.extend(c.to_uppercase());
            upper = false;
        } else {
            out.push(c);
        }
    }
    out
}

fn read_rest(call: &mut Call, route: &str) {
    call.binding = Some(Binding::Rest);
    let seen = Arc::clone(&call.seen);
    let found = operation::rest_route(&seen.method, route).filter(|r| match r.spoken {
        // Below the interface URL: a 1.0 route, after at most a tenant; a 0.3 route after `v1`.
        ProtocolVersion::V1_0 => r.before.len() <= 1,
        ProtocolVersion::V0_3 => r.before.is_empty(),
    });
    let Some(found) = found else {
        call.broken.push(format!(
            "{} {route} is not a route of the HTTP+JSON binding",
            seen.method
        ));
        return;
    };
    let (op, version, mut fields) = (found.name, found.spoken, found.fields);
    if let Some(tenant) = found.before.first() {
        fields.insert("tenant".into(), json!(tenant));
    }
    call.op = Some(op);
    call.spoken = Some(version);
    let mut params = Map::new();
    if !seen.body.is_empty() {
        match body_json(&seen) {
            Some(Value::Object(body)) => params = body,
            _ => call.broken.push("the body is not a JSON object".into()),
        }
        if !json_content_type(&seen) {
            call.broken.push(format!(
                "Content-Type {:?}, not application/json",
                seen.header("content-type").unwrap_or("(none)")
            ));
        }
    }
    for (name, value) in fields {
        params.insert(name, value);
    }
    // ProtoJSON: readers take the proto field names too (`message_id`).
    call.params = camel_keys(Value::Object(params));
}

fn read_grpc(call: &mut Call) {
    call.binding = Some(Binding::Grpc);
    let seen = Arc::clone(&call.seen);
    let mut parts = seen.path.trim_start_matches('/').splitn(2, '/');
    let (service, rpc) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
    let Some(version) = operation::grpc_service(service) else {
        call.broken.push(format!(
            "the gRPC service {service:?} is not an A2A service"
        ));
        return;
    };
    let Some(method) = a2a_proto::method_in(service, rpc) else {
        call.broken.push(format!("{service} has no rpc {rpc:?}"));
        return;
    };
    call.spoken = Some(version);
    call.op = operation::grpc_rpc(rpc);
    let body = &seen.body;
    if body.len() < 5 {
        call.broken.push("the gRPC request holds no message".into());
        return;
    }
    if body[0] != 0 {
        // A compressed message: its fields cannot be read here, its form is not wrong.
        return;
    }
    match prost_reflect::DynamicMessage::decode(method.input(), &body[5..]) {
        Ok(message) => match a2a_proto::to_json(&message) {
            Ok(value) => call.params = value,
            Err(e) => call.broken.push(format!("the request message: {e}")),
        },
        Err(e) => call
            .broken
            .push(format!("the request message does not decode: {e}")),
    }
}

/// The role of a message, read either way: `user` or `agent`.
pub fn role(message: &Value) -> Option<String> {
    let role = message.get("role")?;
    let text = match role {
        Value::String(s) => s.to_ascii_lowercase(),
        Value::Number(n) => match n.as_i64() {
            Some(1) => "user".into(),
            Some(2) => "agent".into(),
            _ => return None,
        },
        _ => return None,
    };
    Some(text.trim_start_matches("role_").to_owned())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn proto_field_names_read_as_json_names() {
        assert_eq!(
            camel_keys(
                json!({"message": {"message_id": "m", "task_id": "t", "parts": [{"text": "x"}]}})
            ),
            json!({"message": {"messageId": "m", "taskId": "t", "parts": [{"text": "x"}]}})
        );
    }

    #[test]
    fn roles_are_read_in_every_spelling() {
        assert_eq!(role(&json!({"role": "ROLE_USER"})).as_deref(), Some("user"));
        assert_eq!(role(&json!({"role": "user"})).as_deref(), Some("user"));
        assert_eq!(role(&json!({"role": 1})).as_deref(), Some("user"));
    }
}

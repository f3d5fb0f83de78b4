//! Protocol 0.3 beside 1.0. Checks speak 1.0 ProtoJSON; on a 0.3 interface each request is
//! rewritten into the 0.3 form of its binding and each answer read back into 1.0 ProtoJSON,
//! strictly: every place where the answer does not have the 0.3 shape (a missing `kind`, a
//! state spelled the other version's way, a 1.0 wrapper) is kept as a *problem*, and a value
//! that is not 0.3 at all becomes `UNKNOWN(<value>)`, never a silently accepted 1.0 value.
//!
//! Two 0.3 forms exist (spec notes §2.3, §2.4): JSON-RPC carries the JSON of the 0.3 JSON
//! schema (`kind` discriminators, lowercase states, `role: "user"`, bare Task/Message results,
//! `final` on status updates); REST and gRPC carry the ProtoJSON of the 0.3 proto (`a2a.v1`:
//! `content` instead of `parts`, `TASK_STATE_CANCELLED`, resource names `tasks/{id}`).
//!
//! This module is the 0.3 [`Codec`]: the method names, routes and gRPC service of 0.3 (here),
//! the request bodies ([`mod@write`]) and the strict reading back ([`read`]).

use serde_json::Value;

use super::rest::{self, Route};
use super::stream::{Event, ReadBack, Start};
use super::{Answer, Codec, ErrorReply, Reply, VersionHeader};
use crate::facts::model::{Binding, HarnessError, ProtocolVersion};

pub mod read;
pub mod write;

pub use read::Reading;

/// Which 0.3 encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// The JSON of the 0.3 JSON schema, on JSON-RPC.
    JsonRpc,
    /// The ProtoJSON of the 0.3 proto, on HTTP+JSON and gRPC.
    Proto,
}

/// The 0.3 JSON-RPC method of a 1.0 operation.
pub fn jsonrpc_method(method: &str) -> Option<&'static str> {
    Some(match method {
        "SendMessage" => "message/send",
        "SendStreamingMessage" => "message/stream",
        "GetTask" => "tasks/get",
        "CancelTask" => "tasks/cancel",
        "SubscribeToTask" => "tasks/resubscribe",
        "CreateTaskPushNotificationConfig" => "tasks/pushNotificationConfig/set",
        "GetTaskPushNotificationConfig" => "tasks/pushNotificationConfig/get",
        "ListTaskPushNotificationConfigs" => "tasks/pushNotificationConfig/list",
        "DeleteTaskPushNotificationConfig" => "tasks/pushNotificationConfig/delete",
        "GetExtendedAgentCard" => "agent/getAuthenticatedExtendedCard",
        _ => return None,
    })
}

/// The 0.3 gRPC rpc (`a2a.v1.A2AService`) of a 1.0 operation.
pub fn grpc_rpc(method: &str) -> Option<&'static str> {
    Some(match method {
        "SendMessage" => "SendMessage",
        "SendStreamingMessage" => "SendStreamingMessage",
        "GetTask" => "GetTask",
        "CancelTask" => "CancelTask",
        "SubscribeToTask" => "TaskSubscription",
        "CreateTaskPushNotificationConfig" => "CreateTaskPushNotificationConfig",
        "GetTaskPushNotificationConfig" => "GetTaskPushNotificationConfig",
        "ListTaskPushNotificationConfigs" => "ListTaskPushNotificationConfig",
        "DeleteTaskPushNotificationConfig" => "DeleteTaskPushNotificationConfig",
        "GetExtendedAgentCard" => "GetAgentCard",
        _ => return None,
    })
}

/// The 0.3 codec: every rewriting of requests into 0.3 and every reading back lives here.
#[derive(Debug)]
pub struct Codec03;

/// The 0.3 codec.
pub static V0_3: Codec03 = Codec03;

/// The 0.3 form of a binding.
fn form(binding: Binding) -> Form {
    match binding {
        Binding::Jsonrpc => Form::JsonRpc,
        Binding::Rest | Binding::Grpc => Form::Proto,
    }
}

fn missing(method: &str) -> HarnessError {
    HarnessError::Prerequisite(format!("{method} does not exist in 0.3"))
}

/// Marks an exchange as 0.3 (its error, too, is then judged as 0.3).
fn mark(reply: &mut Reply) {
    reply.version = ProtocolVersion::V0_3;
    if let Ok(Answer::Error(error)) = &mut reply.read {
        error.version = ProtocolVersion::V0_3;
    }
}

impl Codec for Codec03 {
    fn version(&self) -> ProtocolVersion {
        ProtocolVersion::V0_3
    }

    /// 0.3 clients send no version (spec 1.0 §3.6.1): an absent header means 0.3.
    fn version_value(&self, version: VersionHeader<'_>) -> Option<String> {
        match version {
            VersionHeader::Value(v) => Some(v.to_string()),
            VersionHeader::Interface | VersionHeader::Absent => None,
        }
    }

    /// 0.3 has no tenant.
    fn with_tenant(&self, _tenant: Option<&str>, params: Value) -> Value {
        params
    }

    fn jsonrpc(&self, method: &str, params: Value) -> Result<(String, Value), HarnessError> {
        let name = jsonrpc_method(method).ok_or_else(|| missing(method))?;
        Ok((
            name.to_string(),
            write::request(Form::JsonRpc, method, &params),
        ))
    }

    /// The same paths as 1.0 under `/v1` (the extended card at `/v1/card`), bodies in the
    /// 0.3 proto JSON, no tenant (spec notes §2.2). ListTasks has no 0.3 route.
    fn route(&self, base: &str, method: &str, params: &Value) -> Result<Route, HarnessError> {
        let mut fields = params.as_object().cloned().unwrap_or_default();
        fields.remove("tenant");
        let params = Value::Object(fields);
        let v1 = format!("{}/v1", base.trim_end_matches('/'));
        let mut route = match method {
            "ListTasks" => return Err(missing(method)),
            "GetExtendedAgentCard" => Route {
                method: reqwest::Method::GET,
                url: format!("{v1}/card"),
                body: None,
            },
            _ => rest::route(&v1, method, &params)?,
        };
        if route.body.is_some() {
            let mut body = write::request(Form::Proto, method, &params);
            if method == "CreateTaskPushNotificationConfig" {
                body = write::rest_push_config_body(body);
            }
            route.body = Some(body);
        }
        Ok(route)
    }

    fn grpc(
        &self,
        method: &str,
        params: Value,
    ) -> Result<(&'static str, String, Value), HarnessError> {
        let rpc = grpc_rpc(method).ok_or_else(|| missing(method))?;
        let params = write::request(Form::Proto, method, &params);
        Ok((a2a_proto::SERVICE_0_3, rpc.to_string(), params))
    }

    /// The answer read back into 1.0 ProtoJSON, with what did not have the 0.3 shape in
    /// `Reply::problems` and `Reply::state_problems`.
    fn read(&self, binding: Binding, method: &str, mut reply: Reply) -> Reply {
        mark(&mut reply);
        if let Ok(Answer::Result(result)) = &mut reply.read {
            let mut reading = Reading::default();
            *result = reading.result(form(binding), method, result);
            reply.problems = reading.problems;
            reply.state_problems = reading.state_problems;
        }
        reply
    }

    fn read_start(&self, binding: Binding, start: Start) -> Start {
        match start {
            Start::Stream(stream) => {
                let read_back = Box::new(Events(form(binding)));
                Start::Stream(Box::new(stream.read_back(read_back)))
            }
            Start::Refused(mut reply) => {
                mark(&mut reply);
                Start::Refused(reply)
            }
        }
    }
}

/// The events of a 0.3 stream in `form`, read back into 1.0 ProtoJSON.
struct Events(Form);

impl ReadBack for Events {
    /// What did not have the 0.3 shape becomes the event's problem.
    fn event(&self, mut event: Event) -> Event {
        let Some(response) = event.response.as_ref() else {
            return event;
        };
        let mut reading = Reading::default();
        event.response = Some(reading.event(self.0, response));
        if !reading.problems.is_empty() || !reading.state_problems.is_empty() {
            let mut problems: Vec<String> = event.problem.take().into_iter().collect();
            problems.extend(reading.problems);
            problems.extend(reading.state_problems);
            event.problem = Some(problems.join("; "));
        }
        event
    }

    fn error(&self, error: &mut ErrorReply) {
        error.version = ProtocolVersion::V0_3;
    }
}

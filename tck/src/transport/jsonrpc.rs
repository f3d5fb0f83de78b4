//! JSON-RPC 2.0 over HTTP (spec 1.0 §9): the envelope, and reading a response into an
//! [`Answer`].

use serde_json::{json, Value};

use super::{error_info_in, Answer, ErrorReply, Reply};
use crate::a2a;
use crate::check::{Binding, ProtocolVersion};
use crate::wire::HttpReply;

/// A JSON-RPC exchange as sent and received.
#[derive(Debug, Clone)]
pub struct RpcReply {
    pub http: HttpReply,
    /// The parsed body, if it is JSON.
    pub body: Option<Value>,
}

impl RpcReply {
    pub fn new(http: HttpReply) -> RpcReply {
        let body = http.json();
        RpcReply { http, body }
    }

    /// The reply as the checks read it.
    pub fn reply(&self) -> Reply {
        Reply {
            binding: Binding::Jsonrpc,
            http_status: Some(self.http.status),
            read: self.read(),
            problems: Vec::new(),
            state_problems: Vec::new(),
            version: ProtocolVersion::V1_0,
        }
    }

    fn read(&self) -> Result<Answer, String> {
        let Some(body) = self.body.as_ref() else {
            return Err(format!(
                "HTTP {} with a body that is not JSON: {}",
                self.http.status,
                self.http.body_start(200)
            ));
        };
        read_response(body, Some(self.http.status)).ok_or_else(|| {
            format!(
                "HTTP {} with a body that is not a JSON-RPC response (neither or both of \
                 result and error): {}",
                self.http.status,
                a2a::brief(body, 300)
            )
        })
    }
}

/// Reads a JSON-RPC response object: its result, or its error.
pub fn read_response(body: &Value, http_status: Option<u16>) -> Option<Answer> {
    match (body.get("result"), body.get("error")) {
        (Some(result), None) => Some(Answer::Result(result.clone())),
        (None, Some(error)) => Some(Answer::Error(ErrorReply {
            binding: Binding::Jsonrpc,
            code: error.get("code").and_then(Value::as_i64),
            http_status,
            status: None,
            error_info: error_info_in(error.get("data")),
            shape_problem: None,
            raw: error.clone(),
            version: ProtocolVersion::V1_0,
        })),
        _ => None,
    }
}

/// The request envelope.
pub fn envelope(id: &str, method: &str, params: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": method,
        "params": params,
    })
}

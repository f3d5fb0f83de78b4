//! What came back from a unary call, read by the binding but not judged: an [`Answer`] (a
//! ProtoJSON result, or an [`ErrorReply`] holding everything the binding said about the
//! error), or why the answer could not be read at all. Whether an error is the one a rule
//! asks for is decided by [`crate::exchange::judge`].

use std::fmt;

use serde_json::Value;

use crate::facts::a2a;
use crate::facts::model::{Binding, HarnessError, ProtocolVersion};

/// An answer of a unary call: a result, or an error.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Result(Value),
    Error(ErrorReply),
}

impl Answer {
    /// A short description for `actual` in a violation.
    pub fn describe(&self) -> String {
        match self {
            Answer::Result(v) => format!("a result: {}", a2a::brief(v, 300)),
            Answer::Error(e) => format!("an error: {e}"),
        }
    }

    pub fn result(&self) -> Option<&Value> {
        match self {
            Answer::Result(v) => Some(v),
            Answer::Error(_) => None,
        }
    }
}

/// `google.rpc.ErrorInfo` as read from an error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorInfo {
    pub reason: String,
    pub domain: String,
}

/// An error as one binding expressed it.
#[derive(Debug, Clone, PartialEq)]
pub struct ErrorReply {
    pub binding: Binding,
    /// JSON-RPC `error.code`.
    pub code: Option<i64>,
    /// The HTTP status (REST; JSON-RPC too, for evidence).
    pub http_status: Option<u16>,
    /// The canonical gRPC status name: the gRPC status, or a REST body's `status` field.
    pub status: Option<String>,
    /// The first ErrorInfo among the error's details.
    pub error_info: Option<ErrorInfo>,
    /// What is wrong with the error's shape, when the binding's error form was not followed
    /// (e.g. a REST error body that is not a `google.rpc.Status`).
    pub shape_problem: Option<String>,
    /// The error as received (JSON-RPC error object, REST body, gRPC status as JSON).
    pub raw: Value,
    /// The protocol version of the exchange: 0.3 leaves REST and gRPC errors unspecified.
    pub version: ProtocolVersion,
}

impl fmt::Display for ErrorReply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.binding {
            Binding::Jsonrpc => write!(f, "{}", a2a::brief(&self.raw, 300)),
            Binding::Rest => write!(
                f,
                "HTTP {} {}",
                self.http_status.unwrap_or(0),
                a2a::brief(&self.raw, 300)
            ),
            Binding::Grpc => write!(
                f,
                "gRPC {} {}",
                self.status.as_deref().unwrap_or("?"),
                a2a::brief(&self.raw, 300)
            ),
        }
    }
}

/// A unary reply as received: an answer the binding can read, or a description of why it
/// is not one (a body that is not a JSON-RPC response, an HTML page, ...).
#[derive(Debug, Clone)]
pub struct Reply {
    pub binding: Binding,
    /// The HTTP status (none on gRPC).
    pub http_status: Option<u16>,
    pub read: Result<Answer, String>,
    /// Where a 0.3 answer left the 0.3 shape (read back into 1.0 anyway; see `v03`).
    pub problems: Vec<String>,
    /// Where a 0.3 answer spelled a task state the other version's way.
    pub state_problems: Vec<String>,
    /// The protocol version of the exchange.
    pub version: ProtocolVersion,
    /// The answer came as the first event of a stream that had started (HTTP status and
    /// `text/event-stream`, or gRPC response headers), not as the whole answer.
    pub in_stream: bool,
}

impl Reply {
    /// A reply of `binding` in 1.0 whose answer was read as `read`.
    pub fn new(binding: Binding, http_status: Option<u16>, read: Result<Answer, String>) -> Reply {
        Reply {
            binding,
            http_status,
            read,
            problems: Vec::new(),
            state_problems: Vec::new(),
            version: ProtocolVersion::V1_0,
            in_stream: false,
        }
    }

    /// Reads the answer; an unreadable one is a harness error here. Checks of the binding's
    /// envelope judge unreadable answers themselves.
    pub fn answer(&self) -> Result<Answer, HarnessError> {
        self.read.clone().map_err(HarnessError::Malformed)
    }
}

/// ErrorInfo among `google.rpc.Status`-style details (`[{"@type": ..., "reason": ...}]`).
pub fn error_info_in(details: Option<&Value>) -> Option<ErrorInfo> {
    details?.as_array()?.iter().find_map(|d| {
        let is_info = d
            .get("@type")
            .and_then(Value::as_str)
            .is_some_and(|t| t == a2a::ERROR_INFO_TYPE);
        is_info.then(|| ErrorInfo {
            reason: a2a::text(d, "reason").unwrap_or_default().to_string(),
            domain: a2a::text(d, "domain").unwrap_or_default().to_string(),
        })
    })
}

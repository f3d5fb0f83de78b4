//! The bindings: one way for checks to call an operation and read its answer, or open a
//! stream and read its events, whatever the interface's binding (JSON-RPC, HTTP+JSON/REST,
//! gRPC). Each binding turns an operation, named by its 1.0 method name with ProtoJSON
//! parameters, into its own wire form, and reads the answer back into an [`Answer`]: a
//! ProtoJSON result, or an error described by everything the binding says about it (JSON-RPC
//! code, HTTP status, gRPC status, ErrorInfo). Nothing is retried, every read has a deadline,
//! and every exchange is recorded as evidence.

use std::fmt;

use serde_json::Value;

use crate::a2a::{self, ErrorKind};
use crate::check::{Binding, HarnessError, ProtocolVersion, Verdict};

pub mod grpc;
pub mod jsonrpc;
pub mod rest;
pub mod stream;
pub mod v03;

/// Which `A2A-Version` a request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionHeader<'a> {
    /// The interface's declared version (the normal case).
    Interface,
    /// This value.
    Value(&'a str),
    /// No version at all.
    Absent,
}

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

impl ErrorReply {
    /// Whether this is exactly `kind` in the binding's form; if not, what differs.
    pub fn check(&self, kind: ErrorKind) -> Result<(), String> {
        if self.version == ProtocolVersion::V0_3 && self.binding != Binding::Jsonrpc {
            return self.check_0_3(kind);
        }
        let mut problems = Vec::new();
        match self.binding {
            Binding::Jsonrpc => {
                if self.code != Some(kind.jsonrpc_code()) {
                    problems.push(format!(
                        "code {}",
                        self.code.map_or("none".into(), |c| c.to_string())
                    ));
                }
            }
            Binding::Rest => {
                if self.http_status != Some(kind.http_status()) {
                    problems.push(format!("HTTP status {}", self.http_status.unwrap_or(0)));
                }
            }
            Binding::Grpc => {
                if self.status.as_deref() != Some(kind.grpc_status()) {
                    problems.push(format!(
                        "gRPC status {}",
                        self.status.as_deref().unwrap_or("none")
                    ));
                }
            }
        }
        // Every REST and gRPC error has the binding's error form (§11.6), generic ones too.
        if self.binding != Binding::Jsonrpc {
            problems.extend(self.shape_problem.clone());
        }
        // A generic error (no ErrorInfo reason of its own) is not one whose ErrorInfo names
        // an A2A error: on HTTP and gRPC, statuses alone are shared by several errors.
        if let (None, Some(info)) = (kind.reason(), &self.error_info) {
            if ErrorKind::A2A
                .iter()
                .any(|k| k.reason() == Some(info.reason.as_str()))
            {
                problems.push(format!("ErrorInfo reason {:?}", info.reason));
            }
        }
        // ErrorInfo is a MUST for A2A errors on gRPC and REST (§10.6, §11.6); on JSON-RPC it
        // is a SHOULD with its own check.
        if let (Some(reason), true) = (kind.reason(), self.binding != Binding::Jsonrpc) {
            match &self.error_info {
                Some(info) if info.reason == reason && info.domain == a2a::ERROR_DOMAIN => {}
                Some(info) => problems.push(format!(
                    "ErrorInfo reason {:?} domain {:?}",
                    info.reason, info.domain
                )),
                None => problems.push("no google.rpc.ErrorInfo detail".into()),
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join(", "))
        }
    }

    /// 0.3 specifies neither REST error bodies nor gRPC status codes (spec notes §2.4): an
    /// error of the right class is all that can be asked (4xx for client errors, 5xx for
    /// server errors; any status but OK on gRPC).
    fn check_0_3(&self, kind: ErrorKind) -> Result<(), String> {
        match self.binding {
            Binding::Rest => {
                let class = kind.http_status() / 100;
                match self.http_status {
                    Some(s) if s / 100 == class => Ok(()),
                    other => Err(format!("HTTP status {}", other.unwrap_or(0))),
                }
            }
            // Server-side errors as INTERNAL-like statuses, client-side ones as any other.
            _ => {
                let server_side = kind.http_status() >= 500;
                match self.status.as_deref() {
                    Some("OK") | None => Err("no error status".into()),
                    Some(s)
                        if matches!(s, "INTERNAL" | "UNKNOWN" | "UNAVAILABLE") != server_side =>
                    {
                        Err(format!("gRPC status {s}"))
                    }
                    Some(_) => Ok(()),
                }
            }
        }
    }

    /// Whether this is `kind` in the binding's form.
    pub fn is(&self, kind: ErrorKind) -> bool {
        self.check(kind).is_ok()
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
}

impl Reply {
    /// Marks an exchange of a 0.3 interface (its error, too, is then judged as 0.3).
    pub fn mark_0_3(&mut self) {
        self.version = ProtocolVersion::V0_3;
        if let Ok(Answer::Error(error)) = &mut self.read {
            error.version = ProtocolVersion::V0_3;
        }
    }

    /// Reads the answer; an unreadable one is a harness error here. Checks of the binding's
    /// envelope judge unreadable answers themselves.
    pub fn answer(&self) -> Result<Answer, HarnessError> {
        self.read.clone().map_err(HarnessError::Malformed)
    }

    /// The verdict for "this call must fail with exactly `kind`": an answer that is not the
    /// binding's error form is a violation too, not a harness error.
    pub fn expect_error(&self, kind: ErrorKind) -> Verdict {
        let expected = kind.on_version(self.binding, self.version);
        match &self.read {
            Ok(Answer::Error(e)) => match e.check(kind) {
                Ok(()) => Verdict::pass(),
                Err(differs) => Verdict::fail(expected, format!("{differs}: {e}")),
            },
            Ok(other) => Verdict::fail(expected, other.describe()),
            Err(unreadable) => Verdict::fail(expected, unreadable.clone()),
        }
    }

    /// Whether the answer is the error `kind`.
    pub fn is_error(&self, kind: ErrorKind) -> bool {
        matches!(&self.read, Ok(Answer::Error(e)) if e.is(kind))
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

//! Facts of the A2A protocol (1.0, and the 0.3 forms where they differ) the checks assert, written from the specification
//! (error table §5.4 / §9.5, task states §4.1.3), never from the reference agent.

use std::fmt;

use serde_json::Value;

/// The ErrorInfo domain of A2A errors (spec 1.0 §10.6, §11.6).
pub const ERROR_DOMAIN: &str = "a2a-protocol.org";
/// The `@type` of a `google.rpc.ErrorInfo` detail.
pub const ERROR_INFO_TYPE: &str = "type.googleapis.com/google.rpc.ErrorInfo";

/// An error the spec names, with its JSON-RPC code and ErrorInfo reason.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorKind {
    TaskNotFound,
    TaskNotCancelable,
    PushNotificationNotSupported,
    UnsupportedOperation,
    ContentTypeNotSupported,
    InvalidAgentResponse,
    ExtendedAgentCardNotConfigured,
    ExtensionSupportRequired,
    VersionNotSupported,
    JsonParse,
    InvalidRequest,
    MethodNotFound,
    InvalidParams,
    Internal,
}

impl ErrorKind {
    /// The A2A-specific errors (those with an ErrorInfo reason of their own).
    pub const A2A: &'static [ErrorKind] = &[
        ErrorKind::TaskNotFound,
        ErrorKind::TaskNotCancelable,
        ErrorKind::PushNotificationNotSupported,
        ErrorKind::UnsupportedOperation,
        ErrorKind::ContentTypeNotSupported,
        ErrorKind::InvalidAgentResponse,
        ErrorKind::ExtendedAgentCardNotConfigured,
        ErrorKind::ExtensionSupportRequired,
        ErrorKind::VersionNotSupported,
    ];

    pub const fn jsonrpc_code(self) -> i64 {
        match self {
            ErrorKind::TaskNotFound => -32001,
            ErrorKind::TaskNotCancelable => -32002,
            ErrorKind::PushNotificationNotSupported => -32003,
            ErrorKind::UnsupportedOperation => -32004,
            ErrorKind::ContentTypeNotSupported => -32005,
            ErrorKind::InvalidAgentResponse => -32006,
            ErrorKind::ExtendedAgentCardNotConfigured => -32007,
            ErrorKind::ExtensionSupportRequired => -32008,
            ErrorKind::VersionNotSupported => -32009,
            ErrorKind::JsonParse => -32700,
            ErrorKind::InvalidRequest => -32600,
            ErrorKind::MethodNotFound => -32601,
            ErrorKind::InvalidParams => -32602,
            ErrorKind::Internal => -32603,
        }
    }

    /// The ErrorInfo `reason` of an A2A-specific error (UPPER_SNAKE_CASE, no `Error` suffix).
    pub fn reason(self) -> Option<&'static str> {
        Some(match self {
            ErrorKind::TaskNotFound => "TASK_NOT_FOUND",
            ErrorKind::TaskNotCancelable => "TASK_NOT_CANCELABLE",
            ErrorKind::PushNotificationNotSupported => "PUSH_NOTIFICATION_NOT_SUPPORTED",
            ErrorKind::UnsupportedOperation => "UNSUPPORTED_OPERATION",
            ErrorKind::ContentTypeNotSupported => "CONTENT_TYPE_NOT_SUPPORTED",
            ErrorKind::InvalidAgentResponse => "INVALID_AGENT_RESPONSE",
            ErrorKind::ExtendedAgentCardNotConfigured => "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            ErrorKind::ExtensionSupportRequired => "EXTENSION_SUPPORT_REQUIRED",
            ErrorKind::VersionNotSupported => "VERSION_NOT_SUPPORTED",
            _ => return None,
        })
    }

    /// The HTTP status of the error on the HTTP+JSON binding (§5.4 mapping table, 1.0.1; the
    /// other revisions' tables are in `revision`).
    pub fn http_status(self) -> u16 {
        match self {
            ErrorKind::TaskNotFound | ErrorKind::MethodNotFound => 404,
            ErrorKind::InvalidAgentResponse | ErrorKind::Internal => 500,
            _ => 400,
        }
    }

    /// The gRPC status of the error (§5.4 mapping table, 1.0.1), as its canonical name (the
    /// other revisions' tables are in `revision`).
    pub fn grpc_status(self) -> &'static str {
        match self {
            ErrorKind::TaskNotFound | ErrorKind::MethodNotFound => "NOT_FOUND",
            ErrorKind::TaskNotCancelable
            | ErrorKind::PushNotificationNotSupported
            | ErrorKind::UnsupportedOperation
            | ErrorKind::ExtendedAgentCardNotConfigured
            | ErrorKind::ExtensionSupportRequired
            | ErrorKind::VersionNotSupported => "FAILED_PRECONDITION",
            ErrorKind::ContentTypeNotSupported
            | ErrorKind::JsonParse
            | ErrorKind::InvalidRequest
            | ErrorKind::InvalidParams => "INVALID_ARGUMENT",
            ErrorKind::InvalidAgentResponse | ErrorKind::Internal => "INTERNAL",
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            ErrorKind::TaskNotFound => "TaskNotFoundError",
            ErrorKind::TaskNotCancelable => "TaskNotCancelableError",
            ErrorKind::PushNotificationNotSupported => "PushNotificationNotSupportedError",
            ErrorKind::UnsupportedOperation => "UnsupportedOperationError",
            ErrorKind::ContentTypeNotSupported => "ContentTypeNotSupportedError",
            ErrorKind::InvalidAgentResponse => "InvalidAgentResponseError",
            ErrorKind::ExtendedAgentCardNotConfigured => "ExtendedAgentCardNotConfiguredError",
            ErrorKind::ExtensionSupportRequired => "ExtensionSupportRequiredError",
            ErrorKind::VersionNotSupported => "VersionNotSupportedError",
            ErrorKind::JsonParse => "JSON parse error",
            ErrorKind::InvalidRequest => "Invalid Request",
            ErrorKind::MethodNotFound => "Method not found",
            ErrorKind::InvalidParams => "Invalid params",
            ErrorKind::Internal => "Internal error",
        }
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({})", self.name(), self.jsonrpc_code())
    }
}

/// Task states of 1.0 (ProtoJSON enum names).
pub const TASK_STATES: &[&str] = &[
    "TASK_STATE_SUBMITTED",
    "TASK_STATE_WORKING",
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_INPUT_REQUIRED",
    "TASK_STATE_REJECTED",
    "TASK_STATE_AUTH_REQUIRED",
];

/// States a task never leaves (spec 1.0 §3.1.2).
pub const TERMINAL_STATES: &[&str] = &[
    "TASK_STATE_COMPLETED",
    "TASK_STATE_FAILED",
    "TASK_STATE_CANCELED",
    "TASK_STATE_REJECTED",
];

/// States in which a task waits for the client (spec 1.0 §3.2.2).
pub const INTERRUPTED_STATES: &[&str] = &["TASK_STATE_INPUT_REQUIRED", "TASK_STATE_AUTH_REQUIRED"];

pub const ROLES: &[&str] = &["ROLE_USER", "ROLE_AGENT"];

/// The members of the `Part.content` oneof.
pub const PART_CONTENT: &[&str] = &["text", "raw", "url", "data"];

/// `task.status.state`, if it is a string.
pub fn state(task: &Value) -> Option<&str> {
    task.get("status")?.get("state")?.as_str()
}

/// A non-empty string field.
pub fn text<'a>(value: &'a Value, field: &str) -> Option<&'a str> {
    value
        .get(field)
        .and_then(Value::as_str)
        .filter(|s| !s.is_empty())
}

/// Compact JSON for messages, cut to `max` characters.
pub fn brief(value: &Value, max: usize) -> String {
    let text = value.to_string();
    if text.chars().count() <= max {
        text
    } else {
        let cut: String = text.chars().take(max).collect();
        format!("{cut}...")
    }
}

/// An optional string for messages: quoted, or `none`.
pub fn shown(value: Option<&str>) -> String {
    value.map_or_else(|| "none".to_string(), |v| format!("{v:?}"))
}

/// An optional JSON value for messages: compact JSON, or `none`.
pub fn shown_json(value: Option<&Value>) -> String {
    value.map_or_else(|| "none".to_string(), |v| brief(v, 200))
}

/// The elements of an array field, or none when the field is absent or not an array.
pub fn items<'a>(value: &'a Value, field: &str) -> impl Iterator<Item = &'a Value> {
    value
        .get(field)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

//! JSON-RPC errors with A2A `google.rpc.ErrorInfo` / `google.rpc.BadRequest` details.

use serde::Serialize;
use serde_json::{json, Map, Value};

const ERROR_INFO: &str = "type.googleapis.com/google.rpc.ErrorInfo";
const BAD_REQUEST: &str = "type.googleapis.com/google.rpc.BadRequest";
const DOMAIN: &str = "a2a-protocol.org";

/// The table mapping A2A errors to HTTP and gRPC statuses.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StatusTable {
    /// A2A 1.0.1 §5.4.
    V1_0_1,
    /// The superseded A2A 1.0.0 table.
    V1_0_0,
}

/// One entry of `google.rpc.BadRequest.fieldViolations`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FieldViolation {
    pub field: String,
    pub description: String,
}

impl FieldViolation {
    pub fn new(field: impl Into<String>, description: impl Into<String>) -> Self {
        FieldViolation {
            field: field.into(),
            description: description.into(),
        }
    }
}

/// The gRPC canonical status codes A2A errors map to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum GrpcCode {
    InvalidArgument,
    NotFound,
    FailedPrecondition,
    Unimplemented,
    Internal,
}

impl GrpcCode {
    /// The canonical name (`NOT_FOUND`), as REST error bodies carry it in `status`.
    pub fn name(self) -> &'static str {
        match self {
            GrpcCode::InvalidArgument => "INVALID_ARGUMENT",
            GrpcCode::NotFound => "NOT_FOUND",
            GrpcCode::FailedPrecondition => "FAILED_PRECONDITION",
            GrpcCode::Unimplemented => "UNIMPLEMENTED",
            GrpcCode::Internal => "INTERNAL",
        }
    }
}

/// An A2A error, binding-neutral; JSON-RPC `code` is its identity.
#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: i64,
    pub message: String,
    /// `ErrorInfo.reason`.
    pub reason: &'static str,
    /// `ErrorInfo.metadata`.
    pub metadata: Vec<(&'static str, String)>,
    /// `BadRequest.fieldViolations` (only for invalid params).
    pub violations: Vec<FieldViolation>,
}

impl RpcError {
    fn new(code: i64, reason: &'static str, message: impl Into<String>) -> Self {
        RpcError {
            code,
            message: message.into(),
            reason,
            metadata: Vec::new(),
            violations: Vec::new(),
        }
    }

    fn with(mut self, key: &'static str, value: impl Into<String>) -> Self {
        self.metadata.push((key, value.into()));
        self
    }

    pub fn parse_error(detail: impl std::fmt::Display) -> Self {
        Self::new(
            -32700,
            "PARSE_ERROR",
            format!("Invalid JSON payload: {detail}"),
        )
    }

    pub fn invalid_request(detail: impl std::fmt::Display) -> Self {
        Self::new(
            -32600,
            "INVALID_REQUEST",
            format!("Request payload validation error: {detail}"),
        )
    }

    pub fn method_not_found(method: &str) -> Self {
        Self::new(
            -32601,
            "METHOD_NOT_FOUND",
            format!("Method not found: {method}"),
        )
        .with("method", method)
    }

    pub fn invalid_params(violations: Vec<FieldViolation>) -> Self {
        let mut error = Self::new(-32602, "INVALID_PARAMS", "Invalid parameters");
        error.violations = violations;
        error
    }

    pub fn invalid_param(field: impl Into<String>, description: impl Into<String>) -> Self {
        Self::invalid_params(vec![FieldViolation::new(field, description)])
    }

    pub fn internal(detail: impl std::fmt::Display) -> Self {
        Self::new(
            -32603,
            "INTERNAL_ERROR",
            format!("Internal error: {detail}"),
        )
    }

    pub fn task_not_found(task_id: &str) -> Self {
        Self::new(-32001, "TASK_NOT_FOUND", "Task not found").with("taskId", task_id)
    }

    pub fn task_not_cancelable(task_id: &str, state: &str) -> Self {
        Self::new(-32002, "TASK_NOT_CANCELABLE", "Task cannot be canceled")
            .with("taskId", task_id)
            .with("state", state)
    }

    pub fn push_notification_not_supported() -> Self {
        Self::new(
            -32003,
            "PUSH_NOTIFICATION_NOT_SUPPORTED",
            "Push Notification is not supported",
        )
    }

    pub fn unsupported_operation(detail: impl std::fmt::Display) -> Self {
        Self::new(
            -32004,
            "UNSUPPORTED_OPERATION",
            format!("This operation is not supported: {detail}"),
        )
    }

    pub fn content_type_not_supported(media_type: &str) -> Self {
        Self::new(
            -32005,
            "CONTENT_TYPE_NOT_SUPPORTED",
            "Incompatible content types",
        )
        .with("mediaType", media_type)
    }

    pub fn extension_support_required(uri: &str) -> Self {
        Self::new(
            -32008,
            "EXTENSION_SUPPORT_REQUIRED",
            "Extension support required",
        )
        .with("extension", uri)
    }

    pub fn extended_card_not_configured() -> Self {
        Self::new(
            -32007,
            "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
            "Authenticated Extended Card is not configured",
        )
    }

    pub fn version_not_supported(requested: &str) -> Self {
        Self::new(-32009, "VERSION_NOT_SUPPORTED", "Version not supported")
            .with("requestedVersion", requested)
            .with("supportedVersions", "0.3, 1.0")
    }

    /// The table mapping an error to the other bindings: its HTTP status and gRPC status
    /// code, by A2A 1.0.1 §5.4 or by the superseded 1.0.0 table.
    pub fn canonical(&self, table: StatusTable) -> (u16, GrpcCode) {
        let superseded = table == StatusTable::V1_0_0;
        match self.code {
            -32001 | -32601 => (404, GrpcCode::NotFound),
            -32002 if superseded => (409, GrpcCode::FailedPrecondition),
            -32003 | -32004 | -32009 if superseded => (400, GrpcCode::Unimplemented),
            -32005 if superseded => (415, GrpcCode::InvalidArgument),
            -32006 if superseded => (502, GrpcCode::Internal),
            -32002 | -32003 | -32004 | -32007 | -32008 | -32009 => {
                (400, GrpcCode::FailedPrecondition)
            }
            -32700 | -32600 | -32602 | -32005 => (400, GrpcCode::InvalidArgument),
            _ => (500, GrpcCode::Internal),
        }
    }

    /// The typed details: `google.rpc.ErrorInfo`, then `google.rpc.BadRequest`
    /// when there are field violations (ProtoJSON `Any`, with `@type`).
    pub fn details(&self) -> Vec<Value> {
        let mut info = json!({"@type": ERROR_INFO, "reason": self.reason, "domain": DOMAIN});
        if let (false, Some(info)) = (self.metadata.is_empty(), info.as_object_mut()) {
            let metadata: Map<String, Value> = (self.metadata.iter())
                .map(|(key, value)| ((*key).to_owned(), Value::String(value.clone())))
                .collect();
            info.insert("metadata".to_owned(), Value::Object(metadata));
        }
        let mut details = vec![info];
        if !self.violations.is_empty() {
            details.push(json!({"@type": BAD_REQUEST, "fieldViolations": self.violations}));
        }
        details
    }

    /// The JSON-RPC `error` member of the response.
    pub fn to_json(&self) -> Value {
        json!({"code": self.code, "message": self.message, "data": self.details()})
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn superseded_table() {
        let old = |error: RpcError| {
            let (http, grpc) = error.canonical(StatusTable::V1_0_0);
            (http, grpc.name())
        };
        assert_eq!(
            old(RpcError::task_not_cancelable("t", "s")),
            (409, "FAILED_PRECONDITION")
        );
        assert_eq!(
            old(RpcError::push_notification_not_supported()),
            (400, "UNIMPLEMENTED")
        );
        assert_eq!(
            old(RpcError::unsupported_operation("x")),
            (400, "UNIMPLEMENTED")
        );
        assert_eq!(
            old(RpcError::version_not_supported("9")),
            (400, "UNIMPLEMENTED")
        );
        assert_eq!(
            old(RpcError::content_type_not_supported("a/b")),
            (415, "INVALID_ARGUMENT")
        );
        assert_eq!(old(RpcError::task_not_found("t")), (404, "NOT_FOUND"));
    }

    #[test]
    fn canonical_mapping() {
        let cases = [
            (RpcError::task_not_found("t"), 404, "NOT_FOUND"),
            (RpcError::method_not_found("m"), 404, "NOT_FOUND"),
            (
                RpcError::task_not_cancelable("t", "s"),
                400,
                "FAILED_PRECONDITION",
            ),
            (
                RpcError::push_notification_not_supported(),
                400,
                "FAILED_PRECONDITION",
            ),
            (
                RpcError::unsupported_operation("x"),
                400,
                "FAILED_PRECONDITION",
            ),
            (
                RpcError::version_not_supported("0.3"),
                400,
                "FAILED_PRECONDITION",
            ),
            (
                RpcError::content_type_not_supported("a/b"),
                400,
                "INVALID_ARGUMENT",
            ),
            (RpcError::parse_error("x"), 400, "INVALID_ARGUMENT"),
            (RpcError::invalid_request("x"), 400, "INVALID_ARGUMENT"),
            (RpcError::invalid_param("f", "d"), 400, "INVALID_ARGUMENT"),
            (RpcError::internal("x"), 500, "INTERNAL"),
        ];
        for (error, status, code) in cases {
            assert_eq!(
                {
                    let (http, grpc) = error.canonical(StatusTable::V1_0_1);
                    (http, grpc.name())
                },
                (status, code),
                "{error:?}"
            );
        }
    }
}

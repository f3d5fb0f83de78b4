//! A generic gRPC server for the A2A services: an axum [`Router`] per
//! service that decodes binary requests to ProtoJSON, hands them to a
//! [`Backend`], and encodes its ProtoJSON results back.
//!
//! Serve it with `axum::serve` (axum's `http2` feature makes that accept
//! HTTP/2 prior-knowledge connections, i.e. h2c, next to HTTP/1.1), or merge
//! it into a larger router. The routers of different services have
//! different path prefixes and merge without conflicts, e.g. 1.0 and 0.3 on
//! one port:
//!
//! ```ignore
//! let app = router_for(SERVICE, v1_backend).merge(router_for(SERVICE_0_3, v03_backend));
//! ```
//!
//! The [`Backend`] is not told the service: a backend serving both gives
//! each router its own instance (e.g. one that knows its protocol version).

use std::sync::Arc;
use std::task::{Context, Poll};

use axum::body::Body;
use axum::extract::{Path, Request, State};
use axum::response::Response;
use axum::routing::post;
use axum::Router;
use futures::stream::BoxStream;
use futures::StreamExt as _;
use prost_reflect::{DynamicMessage, MethodDescriptor};
use serde_json::Value;
use tonic::codegen::{BoxFuture, Service};
use tonic::{Code, Status};

use crate::DynamicCodec;

// BackendError is the error path of every call and carries its details by
// value on purpose; its size does not matter there.
#[allow(clippy::result_large_err)]
/// What the reference agent implements to serve gRPC. Params and results
/// are ProtoJSON of the rpc's request and response messages of the router's
/// service (for 1.0 the same objects as JSON-RPC `params` / `result`; for
/// 0.3 the proto's own JSON, which differs from 0.3 JSON-RPC).
pub trait Backend: Send + Sync + 'static {
    /// A2A-Version negotiation; `requested` is the `a2a-version` metadata
    /// (None when absent). Called before every rpc.
    fn check_version(&self, requested: Option<&str>) -> Result<(), BackendError>;

    /// The other service parameters of a request (e.g. `a2a-extensions`), read from its
    /// metadata after the version check; default: nothing to check.
    fn check_extensions(
        &self,
        _metadata: &tonic::metadata::MetadataMap,
    ) -> Result<(), BackendError> {
        Ok(())
    }

    /// A unary rpc (`method` is the rpc name, e.g. `"GetTask"`).
    fn call(&self, method: &str, params: Value) -> Result<Value, BackendError>;

    /// A server-streaming rpc. An `Err` item ends the stream with that
    /// status after the events before it.
    fn stream(
        &self,
        method: &str,
        params: Value,
    ) -> Result<BoxStream<'static, Result<Value, BackendError>>, BackendError>;
}

/// An error status for the client, with optional `google.rpc` details.
#[derive(Debug, Clone, PartialEq)]
pub struct BackendError {
    pub code: Code,
    pub message: String,
    /// `ErrorInfo.reason`; None = no ErrorInfo detail.
    pub reason: Option<String>,
    /// `ErrorInfo.metadata`.
    pub metadata: Vec<(String, String)>,
    /// `BadRequest.field_violations` as (field, description); empty = no
    /// BadRequest detail.
    pub field_violations: Vec<(String, String)>,
}

impl BackendError {
    /// A status without details.
    pub fn new(code: Code, message: impl Into<String>) -> BackendError {
        BackendError {
            code,
            message: message.into(),
            reason: None,
            metadata: Vec::new(),
            field_violations: Vec::new(),
        }
    }

    /// An A2A error: `code`, and an ErrorInfo with `reason` in the
    /// `a2a-protocol.org` domain.
    pub fn a2a(code: Code, reason: impl Into<String>, message: impl Into<String>) -> BackendError {
        BackendError {
            reason: Some(reason.into()),
            ..BackendError::new(code, message)
        }
    }

    pub fn with_metadata(mut self, key: impl Into<String>, value: impl Into<String>) -> Self {
        self.metadata.push((key.into(), value.into()));
        self
    }

    pub fn with_field_violation(
        mut self,
        field: impl Into<String>,
        description: impl Into<String>,
    ) -> Self {
        self.field_violations
            .push((field.into(), description.into()));
        self
    }

    /// The tonic status, details in `grpc-status-details-bin`.
    pub fn to_status(&self) -> Status {
        crate::details::status_with_details(
            self.code,
            &self.message,
            self.reason.as_deref(),
            &self.metadata,
            &self.field_violations,
        )
    }
}

/// An axum router serving every rpc of `lf.a2a.v1.A2AService` (1.0); the
/// same as `router_for(SERVICE, backend)`.
pub fn router(backend: Arc<dyn Backend>) -> Router {
    router_for(crate::SERVICE, backend)
}

/// An axum router serving every rpc of `service` (a full service name,
/// [`crate::SERVICE`] or [`crate::SERVICE_0_3`]) at `/<service>/<Rpc>`
/// (POST, `application/grpc`, HTTP/2), with `backend` behind all of them.
///
/// - A request that does not decode as the rpc's request message →
///   `INVALID_ARGUMENT`.
/// - [`BackendError`] → its status, with ErrorInfo / BadRequest details.
/// - A result that does not fit the response message → `INTERNAL`.
/// - An rpc name the service does not have → `UNIMPLEMENTED` (every rpc,
///   if the pool has no service of that name).
///
/// Routers of different services merge into one [`Router`].
pub fn router_for(service: &'static str, backend: Arc<dyn Backend>) -> Router {
    Router::new()
        .route(&format!("/{service}/{{method}}"), post(handle))
        .with_state(Served { service, backend })
}

/// The state of a router: its service and its backend.
#[derive(Clone)]
struct Served {
    service: &'static str,
    backend: Arc<dyn Backend>,
}

async fn handle(
    State(Served { service, backend }): State<Served>,
    Path(method): Path<String>,
    req: Request,
) -> Response {
    let Some(md) = crate::method_in(service, &method) else {
        return Status::unimplemented(format!("{service} has no rpc {method:?}"))
            .into_http::<Body>();
    };
    let codec = DynamicCodec::new(md.input()).decode_error_code(Code::InvalidArgument);
    let mut grpc = tonic::server::Grpc::new(codec);
    let call = Call { backend, md };
    if call.md.is_server_streaming() {
        grpc.server_streaming(StreamCall(call), req)
            .await
            .map(Body::new)
    } else {
        grpc.unary(UnaryCall(call), req).await.map(Body::new)
    }
}

#[derive(Clone)]
struct Call {
    backend: Arc<dyn Backend>,
    md: MethodDescriptor,
}

impl Call {
    /// Version check and request → ProtoJSON.
    fn params(&self, req: &tonic::Request<DynamicMessage>) -> Result<Value, Status> {
        let requested = req
            .metadata()
            .get("a2a-version")
            .map(|v| v.to_str().unwrap_or("(not ASCII)"));
        self.backend
            .check_version(requested)
            .map_err(|e| e.to_status())?;
        self.backend
            .check_extensions(req.metadata())
            .map_err(|e| e.to_status())?;
        crate::to_json(req.get_ref()).map_err(Status::invalid_argument)
    }

    /// A backend result → the response message, or INTERNAL.
    fn response(md: &MethodDescriptor, value: &Value) -> Result<DynamicMessage, Status> {
        crate::from_json(&md.output(), value).map_err(|e| {
            Status::internal(format!(
                "the agent's {} result does not fit the proto: {e}",
                md.name()
            ))
        })
    }
}

struct UnaryCall(Call);

impl Service<tonic::Request<DynamicMessage>> for UnaryCall {
    type Response = tonic::Response<DynamicMessage>;
    type Error = Status;
    type Future = BoxFuture<Self::Response, Status>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: tonic::Request<DynamicMessage>) -> Self::Future {
        let call = self.0.clone();
        Box::pin(async move {
            let params = call.params(&req)?;
            let result = call
                .backend
                .call(call.md.name(), params)
                .map_err(|e| e.to_status())?;
            Call::response(&call.md, &result).map(tonic::Response::new)
        })
    }
}

struct StreamCall(Call);

type EventStream = BoxStream<'static, Result<DynamicMessage, Status>>;

impl Service<tonic::Request<DynamicMessage>> for StreamCall {
    type Response = tonic::Response<EventStream>;
    type Error = Status;
    type Future = BoxFuture<Self::Response, Status>;

    fn poll_ready(&mut self, _cx: &mut Context<'_>) -> Poll<Result<(), Status>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, req: tonic::Request<DynamicMessage>) -> Self::Future {
        let call = self.0.clone();
        Box::pin(async move {
            let params = call.params(&req)?;
            let events = call
                .backend
                .stream(call.md.name(), params)
                .map_err(|e| e.to_status())?;
            let md = call.md.clone();
            // After the first error the stream ends: tonic ends the response
            // with that status.
            let out = events
                .map(move |item| match item {
                    Ok(value) => Call::response(&md, &value),
                    Err(e) => Err(e.to_status()),
                })
                .boxed();
            Ok(tonic::Response::new(out))
        })
    }
}

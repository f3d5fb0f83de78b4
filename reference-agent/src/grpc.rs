//! The gRPC binding (`lf.a2a.v1.A2AService` for 1.0, `a2a.v1.A2AService` for
//! 0.3): the `a2a-proto` server adapter turns each rpc into ProtoJSON for the
//! binding-neutral core in [`crate::service`] (through [`crate::v03`] for 0.3),
//! and the core's errors into gRPC statuses with ErrorInfo details.

// `BackendError` is the adapter's type (a status with its details); its size is not ours.
#![allow(clippy::result_large_err)]

use std::sync::Arc;

use a2a_proto::server::{Backend, BackendError};
use futures::stream::{BoxStream, StreamExt};
use serde_json::Value;
use tonic::Code;

use crate::app::App;
use crate::error::{GrpcCode, RpcError};
use crate::service;
use crate::shape::Wire;

/// The agent's core behind the gRPC adapter.
pub struct GrpcBackend(pub Arc<App>);

impl Backend for GrpcBackend {
    fn check_version(&self, requested: Option<&str>) -> Result<(), BackendError> {
        // Without the metadata rule every call is served as 1.0 (the fault).
        let requested = if self.0.policy.wire_rules.grpc_version_metadata {
            requested
        } else {
            Some("1.0")
        };
        crate::version::check_version(&self.0.policy.versions, requested)
            .map_err(|e| status(&self.0, &e))
    }

    fn check_extensions(&self, headers: &tonic::metadata::MetadataMap) -> Result<(), BackendError> {
        let mut headers = headers.clone().into_headers();
        if self.0.policy.extensions.grpc_metadata_ignored {
            headers.clear();
        }
        crate::extensions::check(&self.0.policy.extensions, &headers)
            .map_err(|e| status(&self.0, &e))
    }

    fn call(&self, method: &str, params: Value) -> Result<Value, BackendError> {
        let app = &self.0;
        let result =
            service::call(app.core(), method, Some(params)).map_err(|e| status(app, &e))?;
        Ok(app.shape.result(Wire::V1_0, method, result))
    }

    fn stream(
        &self,
        method: &str,
        params: Value,
    ) -> Result<BoxStream<'static, Result<Value, BackendError>>, BackendError> {
        let app = &self.0;
        let events = service::stream(app.core(), method, Some(params))
            .map(|events| app.shape.events(Wire::V1_0, events));
        statuses(app, events)
    }
}

/// The agent's core behind the 0.3 gRPC service (`a2a.v1.A2AService`): requests and
/// answers in the 0.3 proto JSON. The service itself says 0.3, so no version metadata is
/// needed (0.3 has none).
pub struct GrpcBackend03(pub Arc<App>);

impl Backend for GrpcBackend03 {
    fn check_version(&self, _requested: Option<&str>) -> Result<(), BackendError> {
        Ok(())
    }

    fn call(&self, method: &str, params: Value) -> Result<Value, BackendError> {
        crate::v03::call_proto03(&self.0, method, params).map_err(|e| status(&self.0, &e))
    }

    fn stream(
        &self,
        method: &str,
        params: Value,
    ) -> Result<BoxStream<'static, Result<Value, BackendError>>, BackendError> {
        statuses(&self.0, crate::v03::stream_proto03(&self.0, method, params))
    }
}

/// A stream of the core with its errors as gRPC statuses. A call that fails before its
/// first event fails up front, or (by the policy) answers an empty stream ending in the error.
fn statuses(
    app: &Arc<App>,
    events: Result<service::EventStream, RpcError>,
) -> Result<BoxStream<'static, Result<Value, BackendError>>, BackendError> {
    let events = match events {
        Ok(events) => events,
        Err(e) if app.policy.grpc.stream_errors_in_stream => {
            let error = status(app, &e);
            return Ok(futures::stream::once(async move { Err(error) }).boxed());
        }
        Err(e) => return Err(status(app, &e)),
    };
    let app = Arc::clone(app);
    Ok(events
        .map(move |event| event.map_err(|e| status(&app, &e)))
        .boxed())
}

/// An A2A error as a gRPC status (the policy's status table, ErrorInfo per §10.6).
fn status(app: &App, error: &RpcError) -> BackendError {
    let code = match app.policy.errors.grpc(error) {
        GrpcCode::NotFound => Code::NotFound,
        GrpcCode::InvalidArgument => Code::InvalidArgument,
        GrpcCode::FailedPrecondition => Code::FailedPrecondition,
        GrpcCode::Unimplemented => Code::Unimplemented,
        GrpcCode::Internal => Code::Internal,
    };
    let mut status = if app.policy.grpc.error_info {
        BackendError::a2a(code, error.reason, error.message.clone())
    } else {
        BackendError::new(code, error.message.clone())
    };
    for (key, value) in &error.metadata {
        status = status.with_metadata(*key, value.clone());
    }
    for violation in &error.violations {
        status =
            status.with_field_violation(violation.field.clone(), violation.description.clone());
    }
    status
}

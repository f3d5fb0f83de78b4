//! A dynamic gRPC client for the A2A services: any rpc by name, ProtoJSON in
//! and out. [`GrpcClient::unary`] and [`GrpcClient::server_stream`] call
//! `lf.a2a.v1.A2AService` (1.0); [`GrpcClient::unary_in`] and
//! [`GrpcClient::server_stream_in`] take the service, e.g.
//! [`crate::SERVICE_0_3`] for `a2a.v1.A2AService` (0.3). Everything below
//! holds for both.
//!
//! # What comes back where
//!
//! - `Ok(Ok(json))` / `Ok(Err(GrpcStatus))`: the peer answered. A
//!   [`GrpcStatus`] is a status the peer sent (in trailers, or
//!   trailers-only). It is also tonic's reading of an HTTP/2 response that
//!   is not gRPC: a response without `grpc-status` is mapped from its HTTP
//!   status (404 → `UNIMPLEMENTED`, 503 → `UNAVAILABLE`, 200 →
//!   `UNKNOWN` "missing grpc-status trailer", others `UNKNOWN`), and a unary
//!   call answered with OK but no message is `INTERNAL` "Missing response
//!   message.".
//! - [`ClientError::Transport`]: no gRPC answer at all — connection refused,
//!   TLS or HTTP/2 handshake failure (e.g. the peer speaks only HTTP/1.1),
//!   connection or stream reset, connect timeout. The text names the cause.
//! - [`ClientError::Deadline`]: the call's `timeout` ran out (for a unary
//!   call: before the response and trailers; for a stream: before the
//!   response headers). Only a status the peer itself sent can carry
//!   `DEADLINE_EXCEEDED`.
//! - [`ClientError::Decode`]: the peer sent bytes that are not the rpc's
//!   response message (or a message JSON cannot hold).
//! - [`ClientError::Encode`] / [`ClientError::UnknownMethod`] /
//!   [`ClientError::InvalidUrl`]: the call was not made.
//!
//! Nothing here panics on peer input. tonic 0.14 panics on a
//! `grpc-status-details-bin` that is not base64; such a header is removed
//! before tonic reads it and reported in [`GrpcStatus::details_error`]. Any
//! other panic inside tonic while reading a response is caught and reported
//! as [`ClientError::Transport`] / [`GrpcStreamEnd::Transport`].

use std::any::Any;
use std::collections::BTreeMap;
use std::error::Error as _;
use std::panic::AssertUnwindSafe;
use std::time::Duration;

use futures::FutureExt as _;
use prost_reflect::{DynamicMessage, MethodDescriptor};
use serde_json::Value;
use tonic::codegen::http::uri::PathAndQuery;
use tonic::metadata::{AsciiMetadataKey, AsciiMetadataValue};
use tonic::transport::{Channel, Endpoint};
use tonic::{Status, Streaming};

use crate::sanitize::Sanitized;
use crate::{DynamicCodec, MessageDecodeError};

/// The `google.rpc.ErrorInfo` detail of a status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ErrorInfo {
    pub reason: String,
    pub domain: String,
    pub metadata: BTreeMap<String, String>,
}

impl GrpcStatus {
    /// The code's canonical upper-snake name, e.g. `"NOT_FOUND"`.
    pub fn code_name(&self) -> &'static str {
        crate::details::code_name(self.code)
    }
}

/// A gRPC status the peer sent, with its `google.rpc.Status` details.
#[derive(Debug, Clone, PartialEq)]
pub struct GrpcStatus {
    pub code: i32,
    pub message: String,
    /// The first `google.rpc.ErrorInfo` among the details.
    pub error_info: Option<ErrorInfo>,
    /// Every detail as ProtoJSON with `"@type"`, e.g.
    /// `{"@type":"type.googleapis.com/google.rpc.ErrorInfo","reason":…,"domain":…,"metadata":{…}}`;
    /// a detail of a type this crate does not know is just `{"@type": url}`.
    pub details: Vec<Value>,
    /// `grpc-status-details-bin` was present but is not a valid
    /// `google.rpc.Status`, one of its details does not decode, or its code
    /// differs from `grpc-status`.
    pub details_error: Option<String>,
    /// The `www-authenticate` metadata of the status (an authentication challenge), if any.
    pub challenge: Option<String>,
}

#[derive(thiserror::Error, Debug)]
pub enum ClientError {
    #[error("invalid gRPC endpoint URL: {0}")]
    InvalidUrl(String),
    /// The request JSON (or a metadata entry) does not fit the proto.
    #[error("request cannot be encoded: {0}")]
    Encode(String),
    /// The service has no such rpc (or the pool no such service); the text
    /// is `"<service>/<rpc>"`, e.g. `"lf.a2a.v1.A2AService/Nope"`.
    #[error("unknown rpc {0}")]
    UnknownMethod(String),
    /// No gRPC answer: connection refused, reset, not HTTP/2, TLS failure.
    #[error("transport failure: {0}")]
    Transport(String),
    /// The peer's bytes are not the rpc's response message.
    #[error("response cannot be decoded: {0}")]
    Decode(String),
    /// The call's timeout ran out.
    #[error("deadline exceeded")]
    Deadline,
}

/// How a server stream ended, when it did not end with status OK.
#[derive(thiserror::Error, Debug, Clone, PartialEq)]
pub enum GrpcStreamEnd {
    /// The peer ended the stream with this status.
    #[error("stream ended with {}: {}", .0.code_name(), .0.message)]
    Status(GrpcStatus),
    /// The connection or stream broke (reset, connection lost).
    #[error("stream broke: {0}")]
    Transport(String),
    /// An event is not a valid `StreamResponse` of the service's package (or
    /// a message JSON cannot hold).
    #[error("event cannot be decoded: {0}")]
    Decode(String),
}

/// A lazily connected client for one endpoint. Cheap to clone; calls may run
/// concurrently.
#[derive(Debug, Clone)]
pub struct GrpcClient {
    channel: Channel,
    uri: String,
}

impl GrpcClient {
    /// `url` is what the card declares: `"host:port"` (then `default_scheme`,
    /// `"http"` or `"https"`, is put in front) or a full URL. Nothing is
    /// connected yet; the first call connects, giving up after
    /// `connect_timeout`. Must be called inside a tokio runtime.
    ///
    /// `https` uses the system's root certificates.
    pub fn new(
        url: &str,
        default_scheme: &str,
        connect_timeout: Duration,
    ) -> Result<GrpcClient, ClientError> {
        GrpcClient::trusting(url, default_scheme, connect_timeout, &[])
    }

    /// [`GrpcClient::new`] that also trusts the CA certificates `ca_pems` (PEM) for `https`.
    pub fn trusting(
        url: &str,
        default_scheme: &str,
        connect_timeout: Duration,
        ca_pems: &[Vec<u8>],
    ) -> Result<GrpcClient, ClientError> {
        let url = url.trim();
        if url.is_empty() {
            return Err(ClientError::InvalidUrl("empty URL".into()));
        }
        let full = if url.contains("://") {
            url.to_owned()
        } else {
            format!("{default_scheme}://{url}")
        };
        let endpoint = Endpoint::from_shared(full.clone())
            .map_err(|e| ClientError::InvalidUrl(format!("{full}: {e}")))?;
        let scheme = endpoint.uri().scheme_str().unwrap_or_default().to_owned();
        if endpoint.uri().host().is_none() {
            return Err(ClientError::InvalidUrl(format!("{full}: no host")));
        }
        let endpoint = match scheme.as_str() {
            "http" => endpoint,
            "https" => tls(endpoint, ca_pems)
                .map_err(|e| ClientError::InvalidUrl(format!("{full}: {e}")))?,
            other => {
                return Err(ClientError::InvalidUrl(format!(
                    "{full}: scheme {other:?} is neither http nor https"
                )))
            }
        };
        if tokio::runtime::Handle::try_current().is_err() {
            return Err(ClientError::Transport(
                "GrpcClient::new must be called inside a tokio runtime".into(),
            ));
        }
        let channel = endpoint.connect_timeout(connect_timeout).connect_lazy();
        Ok(GrpcClient { channel, uri: full })
    }

    /// The URL the client connects to (with the scheme filled in).
    pub fn uri(&self) -> &str {
        &self.uri
    }

    /// Unary call of `/lf.a2a.v1.A2AService/<method>` (1.0); the same as
    /// [`GrpcClient::unary_in`] with [`crate::SERVICE`].
    pub async fn unary(
        &self,
        method: &str,
        request: &Value,
        metadata: &[(String, String)],
        timeout: Duration,
    ) -> Result<Result<Value, GrpcStatus>, ClientError> {
        self.unary_in(crate::SERVICE, method, request, metadata, timeout)
            .await
    }

    /// Unary call of `/<service>/<method>`; `service` is a full service
    /// name, [`crate::SERVICE`] or [`crate::SERVICE_0_3`]. `request` is
    /// ProtoJSON of the rpc's request message in that service's package;
    /// `metadata` are extra ASCII metadata (e.g. `("a2a-version", "1.0")`,
    /// `("authorization", "Bearer …")`). The whole call (connecting
    /// included) is bounded by `timeout`, which is also sent as
    /// `grpc-timeout`.
    pub async fn unary_in(
        &self,
        service: &str,
        method: &str,
        request: &Value,
        metadata: &[(String, String)],
        timeout: Duration,
    ) -> Result<Result<Value, GrpcStatus>, ClientError> {
        let (md, mut req, path) = prepare(service, method, request, metadata)?;
        req.set_timeout(timeout);
        let mut grpc = tonic::client::Grpc::new(Sanitized(self.channel.clone()));
        let call = async move {
            grpc.ready()
                .await
                .map_err(|e| ClientError::Transport(error_chain(&e)))?;
            Ok::<_, ClientError>(grpc.unary(req, path, DynamicCodec::new(md.output())).await)
        };
        let answer = bounded(timeout, call).await??;
        match answer {
            Ok(resp) => crate::to_json(resp.get_ref())
                .map(Ok)
                .map_err(ClientError::Decode),
            Err(status) => classify(status).map(Err),
        }
    }

    /// Server-streaming call of the 1.0 service (`SendStreamingMessage`,
    /// `SubscribeToTask`); the same as [`GrpcClient::server_stream_in`] with
    /// [`crate::SERVICE`].
    pub async fn server_stream(
        &self,
        method: &str,
        request: &Value,
        metadata: &[(String, String)],
        timeout: Duration,
    ) -> Result<Result<GrpcEvents, GrpcStatus>, ClientError> {
        self.server_stream_in(crate::SERVICE, method, request, metadata, timeout)
            .await
    }

    /// Server-streaming call of `/<service>/<method>` (0.3:
    /// `SendStreamingMessage`, `TaskSubscription`). `timeout` bounds
    /// connecting and the arrival of the response headers only; it is not
    /// sent as `grpc-timeout`. The outer error is a failure before the call
    /// was answered; `Ok(Err(GrpcStatus))` is the call failing before any
    /// message (a trailers-only response).
    pub async fn server_stream_in(
        &self,
        service: &str,
        method: &str,
        request: &Value,
        metadata: &[(String, String)],
        timeout: Duration,
    ) -> Result<Result<GrpcEvents, GrpcStatus>, ClientError> {
        let (md, req, path) = prepare(service, method, request, metadata)?;
        let mut grpc = tonic::client::Grpc::new(Sanitized(self.channel.clone()));
        let call = async move {
            grpc.ready()
                .await
                .map_err(|e| ClientError::Transport(error_chain(&e)))?;
            Ok::<_, ClientError>(
                grpc.server_streaming(req, path, DynamicCodec::new(md.output()))
                    .await,
            )
        };
        let answer = bounded(timeout, call).await??;
        match answer {
            Ok(resp) => Ok(Ok(GrpcEvents {
                stream: resp.into_inner(),
                done: false,
            })),
            Err(status) => classify(status).map(Err),
        }
    }
}

/// The messages of a server stream.
pub struct GrpcEvents {
    stream: Streaming<DynamicMessage>,
    done: bool,
}

impl std::fmt::Debug for GrpcEvents {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GrpcEvents")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

impl GrpcEvents {
    /// Next message as ProtoJSON. `Ok(None)`: the stream ended with status
    /// OK (and keeps saying so). The caller wraps this in its own deadline;
    /// dropping `GrpcEvents` cancels the call.
    pub async fn next(&mut self) -> Result<Option<Value>, GrpcStreamEnd> {
        if self.done {
            return Ok(None);
        }
        let item = AssertUnwindSafe(self.stream.message())
            .catch_unwind()
            .await
            .map_err(|p| GrpcStreamEnd::Transport(panic_text(p)))?;
        match item {
            Ok(Some(msg)) => crate::to_json(&msg)
                .map(Some)
                .map_err(GrpcStreamEnd::Decode),
            Ok(None) => {
                self.done = true;
                Ok(None)
            }
            Err(status) => {
                self.done = true;
                Err(match classify(status) {
                    Ok(s) => GrpcStreamEnd::Status(s),
                    Err(ClientError::Decode(e)) => GrpcStreamEnd::Decode(e),
                    Err(other) => GrpcStreamEnd::Transport(other.to_string()),
                })
            }
        }
    }
}

type Prepared = (
    MethodDescriptor,
    tonic::Request<DynamicMessage>,
    PathAndQuery,
);

fn prepare(
    service: &str,
    method: &str,
    request: &Value,
    metadata: &[(String, String)],
) -> Result<Prepared, ClientError> {
    let md = crate::method_in(service, method)
        .ok_or_else(|| ClientError::UnknownMethod(format!("{service}/{method}")))?;
    let msg = crate::from_json(&md.input(), request).map_err(ClientError::Encode)?;
    let mut req = tonic::Request::new(msg);
    for (key, value) in metadata {
        let k = AsciiMetadataKey::from_bytes(key.to_ascii_lowercase().as_bytes())
            .map_err(|e| ClientError::Encode(format!("metadata key {key:?}: {e}")))?;
        let v = AsciiMetadataValue::try_from(value.as_str())
            .map_err(|e| ClientError::Encode(format!("metadata value of {key:?}: {e}")))?;
        req.metadata_mut().append(k, v);
    }
    let path = PathAndQuery::try_from(format!(
        "/{}/{}",
        md.parent_service().full_name(),
        md.name()
    ))
    .map_err(|e| ClientError::UnknownMethod(format!("{service}/{method}: {e}")))?;
    Ok((md, req, path))
}

/// Runs `call` under `timeout`, turning a tonic panic into a transport error.
async fn bounded<T>(
    timeout: Duration,
    call: impl std::future::Future<Output = T>,
) -> Result<T, ClientError> {
    match tokio::time::timeout(timeout, AssertUnwindSafe(call).catch_unwind()).await {
        Err(_) => Err(ClientError::Deadline),
        Ok(Err(panic)) => Err(ClientError::Transport(panic_text(panic))),
        Ok(Ok(v)) => Ok(v),
    }
}

/// A status the peer sent → `Ok(GrpcStatus)`; a status tonic made from a
/// local error (it has a source) → the matching [`ClientError`].
fn classify(status: Status) -> Result<GrpcStatus, ClientError> {
    let Some(source) = status.source() else {
        return Ok(crate::details::grpc_status(&status));
    };
    let mut cur: Option<&(dyn std::error::Error + 'static)> = Some(source);
    while let Some(e) = cur {
        if let Some(d) = e.downcast_ref::<MessageDecodeError>() {
            return Err(ClientError::Decode(d.0.clone()));
        }
        if e.is::<tonic::TimeoutExpired>() {
            return Err(ClientError::Deadline);
        }
        cur = e.source();
    }
    Err(ClientError::Transport(format!(
        "{} ({})",
        error_chain(source),
        crate::details::code_name(status.code() as i32)
    )))
}

/// `err` and its sources, joined with ": ", repeated texts left out.
fn error_chain(err: &(dyn std::error::Error + 'static)) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut cur = Some(err);
    while let Some(e) = cur {
        let text = e.to_string();
        if !parts.iter().any(|p| p.contains(&text)) {
            parts.push(text);
        }
        cur = e.source();
    }
    parts.join(": ")
}

fn panic_text(panic: Box<dyn Any + Send>) -> String {
    let text = panic
        .downcast_ref::<&str>()
        .map(|s| (*s).to_owned())
        .or_else(|| panic.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into());
    format!("the gRPC library failed on the response: {text}")
}

fn tls(endpoint: Endpoint, ca_pems: &[Vec<u8>]) -> Result<Endpoint, String> {
    let config = ca_pems.iter().fold(
        tonic::transport::ClientTlsConfig::new().with_native_roots(),
        |config, pem| config.ca_certificate(tonic::transport::Certificate::from_pem(pem)),
    );
    endpoint.tls_config(config).map_err(|e| e.to_string())
}

//! gRPC (spec 1.0 §10): `lf.a2a.v1.A2AService` over HTTP/2 with `a2a-version` metadata,
//! A2A errors read from the `google.rpc.Status` in `grpc-status-details-bin`. Requests and
//! responses are ProtoJSON on the kit's side, converted with the project's own proto
//! (crate `a2a-proto`). Every call is recorded like an HTTP exchange: the rpc path, the
//! metadata (credentials redacted), the request as JSON, then the status or the response
//! as JSON, and each message of a stream with its arrival time.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use a2a_proto::client::{ClientError, GrpcClient, GrpcStatus, GrpcStreamEnd};
use futures::stream;
use serde_json::{json, Value};

use super::stream::{EventStream, Frame, Start};
use super::{Answer, ErrorInfo, ErrorReply, Reply};
use crate::check::{Binding, HarnessError, ProtocolVersion};
use crate::ctx::Ctx;
use crate::wire::{redact, RecordedBody, RecordedRequest, RecordedResponse, StreamLog};

/// One client (one HTTP/2 connection, made lazily) per endpoint, shared by the checks.
fn client_for(ctx: &Ctx, url: &str) -> Result<GrpcClient, HarnessError> {
    static CLIENTS: OnceLock<Mutex<HashMap<String, GrpcClient>>> = OnceLock::new();
    // A card's gRPC url may be `host:port`: the card's own scheme tells plain from TLS.
    let scheme = if ctx.card.url.starts_with("https:") {
        "https"
    } else {
        "http"
    };
    let key = format!("{scheme} {url}");
    let clients = CLIENTS.get_or_init(Mutex::default);
    if let Some(client) = clients.lock().ok().and_then(|c| c.get(&key).cloned()) {
        return Ok(client);
    }
    let client = GrpcClient::new(url, scheme, ctx.wire.limits().request_timeout)
        .map_err(|e| HarnessError::Transport(format!("gRPC endpoint {url:?}: {e}")))?;
    if let Ok(mut clients) = clients.lock() {
        clients.insert(key, client.clone());
    }
    Ok(client)
}

/// The metadata of a call: the user's `--header`s (names lowercased) and `a2a-version`.
fn metadata(ctx: &Ctx, version: Option<String>) -> Vec<(String, String)> {
    let mut metadata: Vec<(String, String)> = ctx
        .wire
        .extra_headers()
        .iter()
        .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
        .collect();
    if let Some(version) = version {
        metadata.push(("a2a-version".into(), version));
    }
    metadata
}

/// The evidence of one call, pushed to the check's recorder when dropped.
fn log_for(
    ctx: &Ctx,
    client: &GrpcClient,
    service: &str,
    method: &str,
    params: &Value,
    metadata: &[(String, String)],
) -> StreamLog {
    let user: Vec<String> = ctx
        .wire
        .extra_headers()
        .iter()
        .map(|(k, _)| k.to_ascii_lowercase())
        .collect();
    let headers = metadata
        .iter()
        .map(|(k, v)| {
            let shown = if user.contains(k) {
                "[redacted]".to_string()
            } else {
                redact(k, v)
            };
            (k.clone(), shown)
        })
        .collect();
    let request = RecordedRequest {
        method: "gRPC".into(),
        url: format!("{}/{service}/{method}", client.uri().trim_end_matches('/')),
        headers,
        body: Some(RecordedBody::of(params.to_string().as_bytes())),
    };
    StreamLog::detached(ctx.wire.recorder(), request, ctx.wire.limits().max_body)
}

/// A gRPC status as the checks read it.
fn error_reply(status: &GrpcStatus) -> ErrorReply {
    ErrorReply {
        binding: Binding::Grpc,
        code: None,
        http_status: None,
        status: Some(status.code_name().to_string()),
        error_info: status.error_info.as_ref().map(|i| ErrorInfo {
            reason: i.reason.clone(),
            domain: i.domain.clone(),
        }),
        shape_problem: status
            .details_error
            .as_ref()
            .map(|e| format!("grpc-status-details-bin: {e}")),
        raw: status_json(status),
        version: ProtocolVersion::V1_0,
    }
}

fn status_json(status: &GrpcStatus) -> Value {
    json!({
        "code": status.code,
        "status": status.code_name(),
        "message": status.message,
        "details": status.details,
    })
}

/// The recorded response of a call that ended with `status` (and `body` when OK).
fn recorded(status: &str, body: &Value) -> Option<RecordedResponse> {
    Some(RecordedResponse {
        status: 200,
        headers: vec![("grpc-status".into(), status.into())],
        body: RecordedBody::of(body.to_string().as_bytes()),
    })
}

fn harness_error(error: ClientError, url: &str) -> HarnessError {
    match error {
        ClientError::Deadline => {
            HarnessError::Deadline(format!("no gRPC answer from {url} in time"))
        }
        ClientError::Transport(m) | ClientError::InvalidUrl(m) => HarnessError::Transport(m),
        ClientError::Encode(m) => HarnessError::Prerequisite(format!(
            "the request cannot be expressed in the gRPC binding's protobuf: {m}"
        )),
        ClientError::UnknownMethod(m) => HarnessError::Internal(format!("unknown rpc {m}")),
        ClientError::Decode(m) => HarnessError::Malformed(format!("gRPC response: {m}")),
    }
}

/// The client, the metadata and the evidence log of one call.
type Prepared = (GrpcClient, Vec<(String, String)>, StreamLog);

/// Prepares one call.
fn prepare(
    ctx: &Ctx,
    url: &str,
    service: &str,
    method: &str,
    params: &Value,
    version: Option<String>,
) -> Result<Prepared, HarnessError> {
    let client = client_for(ctx, url)?;
    let metadata = metadata(ctx, version);
    let log = log_for(ctx, &client, service, method, params, &metadata);
    Ok((client, metadata, log))
}

/// Records a call that ended with an error status.
fn record_status(log: &mut StreamLog, status: &GrpcStatus) {
    log.set_response(recorded(
        &format!("{} {}", status.code, status.code_name()),
        &status_json(status),
    ));
}

pub async fn unary(
    ctx: &Ctx,
    url: &str,
    service: &str,
    method: &str,
    params: &Value,
    version: Option<String>,
) -> Result<Reply, HarnessError> {
    let (client, metadata, mut log) = prepare(ctx, url, service, method, params, version)?;
    let timeout = ctx.wire.limits().request_timeout;
    let read = match client
        .unary_in(service, method, params, &metadata, timeout)
        .await
    {
        Ok(Ok(value)) => {
            log.set_response(recorded("0 OK", &value));
            Ok(Answer::Result(value))
        }
        Ok(Err(status)) => {
            record_status(&mut log, &status);
            Ok(Answer::Error(error_reply(&status)))
        }
        Err(ClientError::Decode(m)) => {
            log.fail(format!("response cannot be decoded: {m}"));
            Err(format!(
                "a gRPC response that is not the rpc's message: {m}"
            ))
        }
        Err(error) => {
            log.fail(error.to_string());
            return Err(harness_error(error, url));
        }
    };
    Ok(Reply {
        binding: Binding::Grpc,
        http_status: None,
        read,
        problems: Vec::new(),
        state_problems: Vec::new(),
        version: ProtocolVersion::V1_0,
    })
}

pub async fn stream(
    ctx: &Ctx,
    url: &str,
    service: &str,
    method: &str,
    params: &Value,
    version: Option<String>,
) -> Result<Start, HarnessError> {
    let (client, metadata, mut log) = prepare(ctx, url, service, method, params, version)?;
    let timeout = ctx.wire.limits().request_timeout;
    match client
        .server_stream_in(service, method, params, &metadata, timeout)
        .await
    {
        Ok(Ok(events)) => {
            log.set_response(recorded("stream", &json!(null)));
            let frames = stream::unfold(Some(events), |events| async move {
                let mut events = events?;
                let frame = match events.next().await {
                    Ok(Some(value)) => Ok(Frame {
                        kind: None,
                        data: value.to_string().into_bytes(),
                        error: None,
                    }),
                    Ok(None) => return None,
                    Err(GrpcStreamEnd::Status(status)) => Ok(Frame {
                        kind: Some("status".into()),
                        data: status_json(&status).to_string().into_bytes(),
                        error: Some(error_reply(&status)),
                    }),
                    Err(other) => Err(other.to_string()),
                };
                Some((frame, Some(events)))
            });
            Ok(Start::Stream(Box::new(EventStream::from_frames(
                Binding::Grpc,
                Box::pin(frames),
                log,
            ))))
        }
        Ok(Err(status)) => {
            record_status(&mut log, &status);
            Ok(Start::Refused(Box::new(Reply {
                binding: Binding::Grpc,
                http_status: None,
                read: Ok(Answer::Error(error_reply(&status))),
                problems: Vec::new(),
                state_problems: Vec::new(),
                version: ProtocolVersion::V1_0,
            })))
        }
        Err(error) => {
            log.fail(error.to_string());
            Err(harness_error(error, url))
        }
    }
}

//! gRPC (spec 1.0 §10): `lf.a2a.v1.A2AService` over HTTP/2 with `a2a-version` metadata,
//! A2A errors read from the `google.rpc.Status` in `grpc-status-details-bin`. Requests and
//! responses are ProtoJSON on the kit's side, converted with the project's own proto
//! (crate `a2a-proto`). Every call is recorded like an HTTP exchange: the rpc path, the
//! metadata (credentials redacted), the request as JSON, then the status or the response
//! as JSON, and each message of a stream with its arrival time.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use a2a_proto::client::{ClientError, GrpcClient, GrpcStatus, GrpcStreamEnd};
use async_trait::async_trait;
use futures::stream;
use serde_json::{json, Value};

use super::stream::{EventStream, Frame, Start};
use super::{Answer, ErrorInfo, ErrorReply, Link, Reply, Transport, VersionHeader};
use crate::exchange::evidence::{RecordedBody, RecordedRequest, RecordedResponse, StreamLog};
use crate::facts::model::{Binding, HarnessError, ProtocolVersion};

/// The gRPC clients of a run: one per endpoint (one HTTP/2 connection, made lazily), shared
/// by the transports of every check of the run.
#[derive(Debug, Clone, Default)]
pub struct Channels(Arc<Mutex<HashMap<String, GrpcClient>>>, Arc<Vec<Vec<u8>>>);

impl Channels {
    /// Channels that also trust the CA certificates `ca_pems` (PEM; `--ca-cert`).
    pub fn trusting(ca_pems: Arc<Vec<Vec<u8>>>) -> Channels {
        Channels(Arc::default(), ca_pems)
    }

    /// The client of `url`; a `host:port` url is reached with `scheme`.
    fn client(
        &self,
        url: &str,
        scheme: &str,
        connect_timeout: std::time::Duration,
    ) -> Result<GrpcClient, HarnessError> {
        let key = format!("{scheme} {url}");
        if let Some(client) = self.0.lock().ok().and_then(|c| c.get(&key).cloned()) {
            return Ok(client);
        }
        let client = GrpcClient::trusting(url, scheme, connect_timeout, &self.1)
            .map_err(|e| HarnessError::Transport(format!("gRPC endpoint {url:?}: {e}")))?;
        if let Ok(mut clients) = self.0.lock() {
            clients.insert(key, client.clone());
        }
        Ok(client)
    }
}

/// The gRPC binding of one interface.
#[derive(Debug)]
pub struct Grpc {
    link: Link,
    channels: Channels,
    /// The scheme of a card url `host:port` (the card's own: plain or TLS).
    scheme: &'static str,
}

impl Grpc {
    pub fn new(link: Link, channels: Channels, scheme: &'static str) -> Grpc {
        Grpc {
            link,
            channels,
            scheme,
        }
    }

    /// The metadata of a call: the user's `--header`s (names lowercased) and `a2a-version`.
    fn metadata(&self, version: Option<String>) -> Vec<(String, String)> {
        let mut metadata: Vec<(String, String)> = self
            .link
            .wire
            .extra_headers()
            .iter()
            .map(|(k, v)| (k.to_ascii_lowercase(), v.clone()))
            .collect();
        if let Some(version) = version {
            metadata.push(("a2a-version".into(), version));
        }
        let mut extensions = Vec::new();
        crate::facts::service_params::add_extension_headers(
            &mut extensions,
            self.link.wire.extensions(),
        );
        metadata.extend(extensions.into_iter().map(|(k, v)| (k.to_string(), v)));
        metadata
    }

    /// The evidence of one call, pushed to the check's recorder when dropped.
    fn log_for(
        &self,
        client: &GrpcClient,
        service: &str,
        method: &str,
        params: &Value,
        metadata: &[(String, String)],
    ) -> StreamLog {
        let request = RecordedRequest {
            method: "gRPC".into(),
            url: format!("{}/{service}/{method}", client.uri().trim_end_matches('/')),
            headers: metadata.to_vec(),
            body: Some(RecordedBody::of(params.to_string().as_bytes())),
        };
        self.link.wire.log(request)
    }

    /// The client, the metadata and the evidence log of one call, in the interface's
    /// version's service.
    fn prepare(
        &self,
        method: &str,
        params: Value,
        version: VersionHeader<'_>,
    ) -> Result<Prepared, HarnessError> {
        let link = &self.link;
        let (service, rpc, params) = link.codec.grpc(method, link.with_tenant(params))?;
        let timeout = link.wire.limits().request_timeout;
        let client = self
            .channels
            .client(&link.interface.url, self.scheme, timeout)?;
        let metadata = self.metadata(link.codec.version_value(version));
        let log = self.log_for(&client, service, &rpc, &params, &metadata);
        Ok(Prepared {
            client,
            service,
            rpc,
            params,
            metadata,
            log,
        })
    }
}

/// One call, ready to make.
struct Prepared {
    client: GrpcClient,
    service: &'static str,
    rpc: String,
    params: Value,
    metadata: Vec<(String, String)>,
    log: StreamLog,
}

#[async_trait]
impl Transport for Grpc {
    fn link(&self) -> &Link {
        &self.link
    }

    async fn call(
        &self,
        method: &str,
        params: Value,
        version: VersionHeader<'_>,
    ) -> Result<Reply, HarnessError> {
        let call = self.prepare(method, params, version)?;
        let reply = unary(call, &self.link).await?;
        Ok(self.link.codec.read(Binding::Grpc, method, reply))
    }

    async fn open_stream(&self, method: &str, params: Value) -> Result<Start, HarnessError> {
        let call = self.prepare(method, params, VersionHeader::Interface)?;
        let start = server_stream(call, &self.link).await?;
        Ok(self.link.codec.read_start(Binding::Grpc, start))
    }

    /// In protobuf binary a scalar at its default value is not sent: over gRPC an absent
    /// nextPageToken is "" and an absent count is 0 (the ProtoJSON of the message omits
    /// them), where JSON bindings must send them (ListTasksResponse marks them REQUIRED).
    async fn list(&self, params: Value) -> Result<Reply, HarnessError> {
        let mut reply = self
            .call("ListTasks", params, VersionHeader::Interface)
            .await?;
        if let Ok(Answer::Result(Value::Object(page))) = &mut reply.read {
            for (field, default) in [
                ("tasks", json!([])),
                ("nextPageToken", json!("")),
                ("pageSize", json!(0)),
                ("totalSize", json!(0)),
            ] {
                page.entry(field).or_insert(default);
            }
        }
        Ok(reply)
    }
}

/// A gRPC status as the checks read it.
pub fn error_reply(status: &GrpcStatus) -> ErrorReply {
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
    let mut json = json!({
        "code": status.code,
        "status": status.code_name(),
        "message": status.message,
        "details": status.details,
    });
    // An authentication challenge sent as `www-authenticate` metadata.
    if let (Some(challenge), Some(fields)) = (&status.challenge, json.as_object_mut()) {
        fields.insert("wwwAuthenticate".into(), Value::String(challenge.clone()));
    }
    json
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

/// Records a call that ended with an error status.
fn record_status(log: &mut StreamLog, status: &GrpcStatus) {
    log.set_response(recorded(
        &format!("{} {}", status.code, status.code_name()),
        &status_json(status),
    ));
}

/// A unary call.
async fn unary(call: Prepared, link: &Link) -> Result<Reply, HarnessError> {
    let Prepared {
        client,
        service,
        rpc,
        params,
        metadata,
        mut log,
    } = call;
    let url = &link.interface.url;
    let timeout = link.wire.limits().request_timeout;
    let read = match client
        .unary_in(service, &rpc, &params, &metadata, timeout)
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
    Ok(Reply::new(Binding::Grpc, None, read))
}

/// A server-streaming call. A status before any message is a refusal, whether it came
/// alone (trailers only) or after the response headers.
async fn server_stream(call: Prepared, link: &Link) -> Result<Start, HarnessError> {
    let Prepared {
        client,
        service,
        rpc,
        params,
        metadata,
        mut log,
    } = call;
    let url = &link.interface.url;
    let limits = link.wire.limits();
    match client
        .server_stream_in(service, &rpc, &params, &metadata, limits.request_timeout)
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
            let stream = EventStream::from_frames(Binding::Grpc, Box::pin(frames), log);
            Ok(stream.started(limits.stream_wait).await)
        }
        Ok(Err(status)) => {
            record_status(&mut log, &status);
            let error = Ok(Answer::Error(error_reply(&status)));
            Ok(Start::Refused(Box::new(Reply::new(
                Binding::Grpc,
                None,
                error,
            ))))
        }
        Err(error) => {
            log.fail(error.to_string());
            Err(harness_error(error, url))
        }
    }
}

//! The per-check context: the card, the interface under test, a recording transport, and an
//! id namespace so checks can run concurrently against one live agent.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::a2a::ErrorKind;
use crate::card::{FetchedCard, Interface};
use crate::check::{Binding, HarnessError, ProtocolVersion, Verdict};
use crate::transport::jsonrpc;
pub use crate::transport::jsonrpc::RpcReply;
use crate::transport::stream::{self, Start};
use crate::transport::v03::{self, Form};
use crate::transport::{grpc, rest, Reply, VersionHeader};
use crate::wire::{HttpReply, Request, Wire};

pub use crate::transport::{Answer, ErrorReply};

/// An HTTP+JSON route and the headers to send with it.
type RestRequest = (rest::Route, Vec<(&'static str, String)>);

/// What a check works with. Cheap to clone; clones share the evidence log.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub card: Arc<FetchedCard>,
    /// The interface under test; `None` for card checks.
    pub interface: Option<Interface>,
    pub wire: Wire,
    /// The interfaces this run tests and that answered the probe (selection applied): checks
    /// that compare interfaces use these and no others.
    usable: Arc<Vec<Interface>>,
    ns: Arc<str>,
    seq: Arc<AtomicU32>,
    /// The scenario contract of the run, and the scenario prefixes this check sent.
    scenarios: crate::contract::Scenarios,
}

impl Ctx {
    pub fn new(card: Arc<FetchedCard>, interface: Option<Interface>, wire: Wire, ns: &str) -> Ctx {
        Ctx {
            card,
            interface,
            wire,
            usable: Arc::default(),
            ns: Arc::from(ns),
            seq: Arc::new(AtomicU32::new(0)),
            scenarios: crate::contract::Scenarios::default(),
        }
    }

    /// With the run's scenario contract (default: every scenario honoured).
    pub fn with_scenarios(mut self, scenarios: crate::contract::Scenarios) -> Ctx {
        self.scenarios = scenarios;
        self
    }

    /// The run's scenario contract, and what this check sent of it.
    pub fn scenarios(&self) -> &crate::contract::Scenarios {
        &self.scenarios
    }

    /// With the interfaces of this run that checks comparing interfaces may use.
    pub fn with_interfaces(mut self, usable: Arc<Vec<Interface>>) -> Ctx {
        self.usable = usable;
        self
    }

    /// The interfaces of this run that answered the probe (see [`Ctx::with_interfaces`]).
    pub fn interfaces(&self) -> &[Interface] {
        &self.usable
    }

    /// The same check's context on another interface (checks that compare bindings). Ids stay
    /// in this check's namespace.
    pub fn on(&self, interface: Interface) -> Ctx {
        Ctx {
            interface: Some(interface),
            ..self.clone()
        }
    }

    /// A fresh id in this check's namespace: `<prefix>-<ns>-<n>`. Scenario prefixes of the
    /// official TCK's SUT contract (e.g. `tck-complete-task`) go first, so agents that
    /// dispatch on the prefix see them.
    pub fn id(&self, prefix: &str) -> String {
        self.scenarios.note(prefix);
        let n = self.seq.fetch_add(1, Ordering::Relaxed) + 1;
        format!("{prefix}-{}-{n}", self.ns)
    }

    /// A user message whose messageId starts with `prefix`.
    pub fn user_message(&self, prefix: &str) -> Value {
        json!({
            "messageId": self.id(prefix),
            "role": "ROLE_USER",
            "parts": [{"text": format!("a2a-tck message ({prefix})")}],
        })
    }

    /// The binding under test (JSON-RPC for card checks, which make no calls).
    pub fn binding(&self) -> Binding {
        self.interface
            .as_ref()
            .map_or(Binding::Jsonrpc, |i| i.binding)
    }

    /// What `kind` looks like on the interface under test (binding and version).
    pub fn error_form(&self, kind: ErrorKind) -> String {
        let version = self
            .interface
            .as_ref()
            .map_or(ProtocolVersion::V1_0, |i| i.version);
        kind.on_version(self.binding(), version)
    }

    fn interface(&self) -> Result<&Interface, HarnessError> {
        self.interface.as_ref().ok_or_else(|| {
            HarnessError::Internal("interface check run without an interface".into())
        })
    }

    /// Posts a raw body to the JSON-RPC endpoint with the given headers (the escape hatch
    /// for malformed-input checks).
    pub async fn post_raw(
        &self,
        body: Vec<u8>,
        headers: Vec<(&str, String)>,
    ) -> Result<RpcReply, HarnessError> {
        let url = self.interface()?.url.clone();
        let http = self
            .wire
            .send(Request {
                method: reqwest::Method::POST,
                url: &url,
                headers,
                body: Some(body),
            })
            .await?;
        Ok(RpcReply::new(http))
    }

    /// Sends a JSON-RPC request without any `A2A-Version` header.
    pub async fn rpc_without_version(
        &self,
        method: &str,
        params: Value,
    ) -> Result<RpcReply, HarnessError> {
        self.rpc_versioned(method, params, None).await
    }

    async fn rpc_versioned(
        &self,
        method: &str,
        params: Value,
        version: Option<String>,
    ) -> Result<RpcReply, HarnessError> {
        let params = self.with_tenant(params)?;
        let envelope = jsonrpc::envelope(&self.id("rpc"), method, params);
        let mut headers = vec![
            ("content-type", "application/json".to_string()),
            ("accept", "application/json".to_string()),
        ];
        if let Some(version) = version {
            headers.push(("a2a-version", version));
        }
        self.post_raw(envelope.to_string().into_bytes(), headers)
            .await
    }

    /// Clients must send the interface's tenant in every request (spec 1.0 §8.3.2): in the
    /// params (JSON-RPC, gRPC) or as the path prefix (HTTP+JSON, taken from the params).
    pub(crate) fn with_tenant(&self, mut params: Value) -> Result<Value, HarnessError> {
        let interface = self.interface()?;
        if interface.version == ProtocolVersion::V0_3 {
            return Ok(params);
        }
        if let (Some(tenant), Some(object)) = (&interface.tenant, params.as_object_mut()) {
            object
                .entry("tenant")
                .or_insert_with(|| Value::String(tenant.clone()));
        }
        Ok(params)
    }

    /// The version header value for a request.
    fn version_value(&self, version: VersionHeader<'_>) -> Result<Option<String>, HarnessError> {
        Ok(match version {
            // 0.3 clients send no version (spec 1.0 §3.6.1): an absent header means 0.3.
            VersionHeader::Interface => match self.interface()?.version {
                ProtocolVersion::V0_3 => None,
                version => Some(version.as_str().to_string()),
            },
            VersionHeader::Value(v) => Some(v.to_string()),
            VersionHeader::Absent => None,
        })
    }

    /// Calls an operation (1.0 method name, ProtoJSON params) on the interface's binding
    /// and returns the reply as received.
    pub async fn request(&self, method: &str, params: Value) -> Result<Reply, HarnessError> {
        self.request_with(method, params, VersionHeader::Interface)
            .await
    }

    /// [`Ctx::request`] with a chosen `A2A-Version`.
    pub async fn request_with(
        &self,
        method: &str,
        params: Value,
        version: VersionHeader<'_>,
    ) -> Result<Reply, HarnessError> {
        let interface = self.interface()?;
        let version = self.version_value(version)?;
        if interface.version == ProtocolVersion::V0_3 {
            return self.request_03(method, params, version).await;
        }
        match interface.binding {
            Binding::Jsonrpc => Ok(self.rpc_versioned(method, params, version).await?.reply()),
            Binding::Rest => {
                let params = self.with_tenant(params)?;
                let http = self.rest_send(method, &params, version, false).await?;
                Ok(rest::read(&http))
            }
            Binding::Grpc => {
                let params = self.with_tenant(params)?;
                let service = a2a_proto::SERVICE;
                grpc::unary(self, &interface.url, service, method, &params, version).await
            }
        }
    }

    /// A 0.3 call: the operation in the 0.3 form of the binding, and the answer read back
    /// into 1.0 ProtoJSON with what did not have the 0.3 shape in `Reply::problems`.
    async fn request_03(
        &self,
        method: &str,
        params: Value,
        version: Option<String>,
    ) -> Result<Reply, HarnessError> {
        let interface = self.interface()?;
        let missing = || HarnessError::Prerequisite(format!("{method} does not exist in 0.3"));
        let (form, mut reply) = match interface.binding {
            Binding::Jsonrpc => {
                let name = v03::jsonrpc_method(method).ok_or_else(missing)?;
                let params = v03::request(Form::JsonRpc, method, &params);
                let reply = self.rpc_versioned(name, params, version).await?.reply();
                (Form::JsonRpc, reply)
            }
            Binding::Rest => {
                let http = self.rest_send(method, &params, version, false).await?;
                (Form::Proto, rest::read(&http))
            }
            Binding::Grpc => {
                let rpc = v03::grpc_rpc(method).ok_or_else(missing)?;
                let params = v03::request(Form::Proto, method, &params);
                let service = a2a_proto::SERVICE_0_3;
                let reply =
                    grpc::unary(self, &interface.url, service, rpc, &params, version).await?;
                (Form::Proto, reply)
            }
        };
        reply.mark_0_3();
        if let Ok(Answer::Result(result)) = &mut reply.read {
            let mut reading = v03::Reading::default();
            *result = reading.result(form, method, result);
            reply.problems = reading.problems;
            reply.state_problems = reading.state_problems;
        }
        Ok(reply)
    }

    async fn rest_send(
        &self,
        method: &str,
        params: &Value,
        version: Option<String>,
        stream: bool,
    ) -> Result<HttpReply, HarnessError> {
        let (route, headers) = self.rest_request(method, params, version, stream)?;
        self.wire
            .send(Request {
                method: route.method,
                url: &route.url,
                headers,
                body: route.body.map(|b| b.to_string().into_bytes()),
            })
            .await
    }

    fn rest_request(
        &self,
        method: &str,
        params: &Value,
        version: Option<String>,
        stream: bool,
    ) -> Result<RestRequest, HarnessError> {
        let interface = self.interface()?;
        // 0.3 has its own routes (under /v1) and bodies (the 0.3 proto JSON).
        let route = match interface.version {
            ProtocolVersion::V0_3 => rest::route_03(&interface.url, method, params)?,
            ProtocolVersion::V1_0 => rest::route(&interface.url, method, params)?,
        };
        let accept = if stream {
            "text/event-stream"
        } else {
            rest::ACCEPT
        };
        let mut headers = vec![("accept", accept.to_string())];
        if route.body.is_some() {
            headers.push(("content-type", rest::REQUEST_CONTENT_TYPE.to_string()));
        }
        if let Some(version) = version {
            headers.push(("a2a-version", version));
        }
        Ok((route, headers))
    }

    /// Opens a stream (SendStreamingMessage, SubscribeToTask) on the interface's binding.
    pub async fn stream(&self, method: &str, params: Value) -> Result<Start, HarnessError> {
        let interface = self.interface()?;
        let params = self.with_tenant(params)?;
        let version = self.version_value(VersionHeader::Interface)?;
        let wait = self.wire.limits().stream_wait;
        let v03 = interface.version == ProtocolVersion::V0_3;
        let missing = || HarnessError::Prerequisite(format!("{method} does not exist in 0.3"));
        let start = match interface.binding {
            Binding::Jsonrpc => {
                let id = self.id("rpc");
                let envelope = if v03 {
                    let name = v03::jsonrpc_method(method).ok_or_else(missing)?;
                    jsonrpc::envelope(&id, name, v03::request(Form::JsonRpc, method, &params))
                } else {
                    jsonrpc::envelope(&id, method, params)
                };
                let mut headers = vec![
                    ("content-type", "application/json".to_string()),
                    ("accept", "text/event-stream".to_string()),
                ];
                if let Some(version) = version {
                    headers.push(("a2a-version", version));
                }
                let opened = self
                    .wire
                    .open(Request {
                        method: reqwest::Method::POST,
                        url: &interface.url,
                        headers,
                        body: Some(envelope.to_string().into_bytes()),
                    })
                    .await?;
                stream::start_sse(Binding::Jsonrpc, opened, Some(id), wait).await?
            }
            Binding::Rest => {
                let (route, headers) = self.rest_request(method, &params, version, true)?;
                let opened = self
                    .wire
                    .open(Request {
                        method: route.method,
                        url: &route.url,
                        headers,
                        body: route.body.map(|b| b.to_string().into_bytes()),
                    })
                    .await?;
                stream::start_sse(Binding::Rest, opened, None, wait).await?
            }
            Binding::Grpc if v03 => {
                let rpc = v03::grpc_rpc(method).ok_or_else(missing)?;
                let params = v03::request(Form::Proto, method, &params);
                let service = a2a_proto::SERVICE_0_3;
                grpc::stream(self, &interface.url, service, rpc, &params, version).await?
            }
            Binding::Grpc => {
                let service = a2a_proto::SERVICE;
                grpc::stream(self, &interface.url, service, method, &params, version).await?
            }
        };
        Ok(match start {
            Start::Stream(s) if v03 => {
                let form = match interface.binding {
                    Binding::Jsonrpc => Form::JsonRpc,
                    _ => Form::Proto,
                };
                Start::Stream(Box::new(s.in_0_3(form)))
            }
            Start::Refused(mut reply) if v03 => {
                reply.mark_0_3();
                Start::Refused(reply)
            }
            other => other,
        })
    }

    /// Opens a stream that must start: a refusal is a missing prerequisite.
    pub async fn open_stream(
        &self,
        method: &str,
        params: Value,
    ) -> Result<stream::EventStream, HarnessError> {
        match self.stream(method, params).await? {
            Start::Stream(s) => Ok(*s),
            Start::Refused(reply) => Err(HarnessError::Prerequisite(format!(
                "{method} did not start a stream; it answered {}",
                match &reply.read {
                    Ok(answer) => answer.describe(),
                    Err(unreadable) => unreadable.clone(),
                }
            ))),
        }
    }

    /// How long the kit waits for the next event of a stream.
    pub fn stream_wait(&self) -> std::time::Duration {
        self.wire.limits().stream_wait
    }

    pub async fn rpc(&self, method: &str, params: Value) -> Result<RpcReply, HarnessError> {
        let version = self.version_value(VersionHeader::Interface)?;
        self.rpc_versioned(method, params, version).await
    }

    /// Before any check runs on an interface: does it answer its binding at all? GetTask of
    /// an unknown id (then, on JSON-RPC, an unknown method if that gets no JSON-RPC answer);
    /// a request that runs past its deadline is tried once more. Only when nothing answers is
    /// the interface unusable: then every check on it is ERROR with this one reason.
    pub async fn probe(&self) -> Result<(), HarnessError> {
        let interface = self.interface()?;
        let url = interface.url.clone();
        let binding = interface.binding;
        let mut seen = String::new();
        let mut attempts = vec![("GetTask", json!({ "id": self.id("tck-probe") }))];
        if binding == Binding::Jsonrpc && interface.version == ProtocolVersion::V1_0 {
            attempts.push(("TckProbeUnknownMethod", json!({})));
        }
        for (method, params) in attempts {
            let reply = match self.request(method, params.clone()).await {
                Err(HarnessError::Deadline(_)) => self.request(method, params).await,
                other => other,
            };
            let reply = match reply {
                Ok(reply) => reply,
                Err(HarnessError::Transport(m)) => {
                    return Err(HarnessError::Transport(format!(
                        "the interface at {url} did not answer: {m}"
                    )))
                }
                Err(other) => {
                    seen = other.to_string();
                    continue;
                }
            };
            if let Some(status @ (401 | 403)) = reply.http_status {
                return Err(HarnessError::Transport(
                    self.needs_credentials(&url, &format!("HTTP {status}")),
                ));
            }
            match &reply.read {
                Ok(Answer::Error(e)) if needs_credentials(e) => {
                    return Err(HarnessError::Transport(
                        self.needs_credentials(&url, &e.to_string()),
                    ));
                }
                Ok(Answer::Error(e))
                    if binding == Binding::Rest
                        && e.shape_problem.is_some()
                        && e.http_status == Some(404)
                        && e.raw.is_string() =>
                {
                    // A plain 404 page: no HTTP+JSON binding at this URL.
                    seen = e.to_string();
                }
                Ok(_) => return Ok(()),
                Err(unreadable) => seen = unreadable.clone(),
            }
        }
        Err(HarnessError::Malformed(format!(
            "the interface at {url} did not answer {} ({seen}); check the url the card declares",
            binding.title()
        )))
    }

    /// What to tell a user whose agent wants credentials the kit was not given.
    fn needs_credentials(&self, url: &str, error: &str) -> String {
        let schemes: Vec<&String> = self
            .card
            .json
            .get("securitySchemes")
            .and_then(Value::as_object)
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        let declared = if schemes.is_empty() {
            String::new()
        } else {
            format!("; the card declares security schemes {schemes:?}")
        };
        format!(
            "the interface at {url} requires authentication ({error}){declared}; \
             give credentials with --header, e.g. --header 'Authorization: Bearer <token>'"
        )
    }

    /// Calls a method that must fail with exactly `kind`. An answer that is not the
    /// binding's error form violates the rule too.
    pub async fn call_expecting(
        &self,
        method: &str,
        params: Value,
        kind: ErrorKind,
    ) -> Result<Verdict, HarnessError> {
        Ok(self.request(method, params).await?.expect_error(kind))
    }

    /// Calls a method and reads its answer.
    pub async fn call(&self, method: &str, params: Value) -> Result<Answer, HarnessError> {
        self.request(method, params).await?.answer()
    }

    pub async fn send_message(
        &self,
        message: Value,
        configuration: Option<Value>,
    ) -> Result<Answer, HarnessError> {
        let mut params = json!({ "message": message });
        if let Some(configuration) = configuration {
            params["configuration"] = configuration;
        }
        self.call("SendMessage", params).await
    }

    pub async fn get_task(
        &self,
        id: &str,
        history_length: Option<i64>,
    ) -> Result<Answer, HarnessError> {
        let mut params = json!({ "id": id });
        if let Some(n) = history_length {
            params["historyLength"] = json!(n);
        }
        self.call("GetTask", params).await
    }

    pub async fn cancel_task(&self, id: &str) -> Result<Answer, HarnessError> {
        self.call("CancelTask", json!({ "id": id })).await
    }

    pub async fn list_tasks(&self, params: Value) -> Result<Answer, HarnessError> {
        let mut answer = self.call("ListTasks", params).await?;
        // In protobuf binary a scalar at its default value is not sent: over gRPC an absent
        // nextPageToken is "" and an absent count is 0 (the ProtoJSON of the message omits
        // them). JSON bindings must send them (ListTasksResponse marks them REQUIRED).
        if let (Binding::Grpc, Answer::Result(Value::Object(page))) = (self.binding(), &mut answer)
        {
            for (field, default) in [
                ("tasks", json!([])),
                ("nextPageToken", json!("")),
                ("pageSize", json!(0)),
                ("totalSize", json!(0)),
            ] {
                page.entry(field).or_insert(default);
            }
        }
        Ok(answer)
    }
}

/// Whether an error says the request lacked credentials (HTTP 401/403, gRPC
/// UNAUTHENTICATED/PERMISSION_DENIED).
fn needs_credentials(error: &ErrorReply) -> bool {
    error.binding == Binding::Grpc
        && matches!(
            error.status.as_deref(),
            Some("UNAUTHENTICATED" | "PERMISSION_DENIED")
        )
}

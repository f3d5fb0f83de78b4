//! The per-check context: the card, the interface under test, a recording transport, and an
//! id namespace so checks can run concurrently against one live agent.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::a2a::{self, ErrorKind};
use crate::card::{FetchedCard, Interface};
use crate::check::{HarnessError, Verdict};
use crate::wire::{HttpReply, Request, Wire};

/// What a check works with. Cheap to clone; clones share the evidence log.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub card: Arc<FetchedCard>,
    /// The interface under test; `None` for card checks.
    pub interface: Option<Interface>,
    pub wire: Wire,
    ns: Arc<str>,
    seq: Arc<AtomicU32>,
}

/// A JSON-RPC answer: a result, or an error object.
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    Result(Value),
    Error(RpcError),
}

#[derive(Debug, Clone, PartialEq)]
pub struct RpcError {
    pub code: Option<i64>,
    pub message: Option<String>,
    pub data: Option<Value>,
    pub raw: Value,
}

impl Answer {
    /// A short description for `actual` in a violation.
    pub fn describe(&self) -> String {
        match self {
            Answer::Result(v) => format!("a result: {}", a2a::brief(v, 300)),
            Answer::Error(e) => format!("an error: {}", a2a::brief(&e.raw, 300)),
        }
    }

    pub fn result(&self) -> Option<&Value> {
        match self {
            Answer::Result(v) => Some(v),
            Answer::Error(_) => None,
        }
    }
}

/// A JSON-RPC exchange as sent and received.
#[derive(Debug, Clone)]
pub struct RpcReply {
    pub http: HttpReply,
    /// The parsed body, if it is JSON.
    pub body: Option<Value>,
}

impl RpcReply {
    /// Reads the response envelope. An answer the kit cannot read is a harness error here;
    /// checks of the envelope itself judge it directly instead.
    pub fn answer(&self) -> Result<Answer, HarnessError> {
        let body = self.body.as_ref().ok_or_else(|| {
            HarnessError::Malformed(format!(
                "HTTP {} with a body that is not JSON: {}",
                self.http.status,
                self.http.body_start(200)
            ))
        })?;
        match (body.get("result"), body.get("error")) {
            (Some(result), None) => Ok(Answer::Result(result.clone())),
            (None, Some(error)) => Ok(Answer::Error(RpcError {
                code: error.get("code").and_then(Value::as_i64),
                message: error
                    .get("message")
                    .and_then(Value::as_str)
                    .map(str::to_string),
                data: error.get("data").cloned(),
                raw: error.clone(),
            })),
            _ => Err(HarnessError::Malformed(format!(
                "JSON-RPC response with neither or both of result and error: {}",
                a2a::brief(body, 300)
            ))),
        }
    }
}

impl Ctx {
    pub fn new(card: Arc<FetchedCard>, interface: Option<Interface>, wire: Wire, ns: &str) -> Ctx {
        Ctx {
            card,
            interface,
            wire,
            ns: Arc::from(ns),
            seq: Arc::new(AtomicU32::new(0)),
        }
    }

    /// A fresh id in this check's namespace: `<prefix>-<ns>-<n>`. Scenario prefixes of the
    /// official TCK's SUT contract (e.g. `tck-complete-task`) go first, so agents that
    /// dispatch on the prefix see them.
    pub fn id(&self, prefix: &str) -> String {
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
        let body = http.json();
        Ok(RpcReply { http, body })
    }

    /// Sends a JSON-RPC request with `A2A-Version` set to the interface's version, or to
    /// `version` when given.
    pub async fn rpc_with_version(
        &self,
        method: &str,
        params: Value,
        version: Option<&str>,
    ) -> Result<RpcReply, HarnessError> {
        let version = version
            .unwrap_or(self.interface()?.version.as_str())
            .to_string();
        self.rpc_versioned(method, params, Some(version)).await
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
        let interface = self.interface()?;
        let mut params = params;
        // Clients must send the interface's tenant in every request (spec 1.0 §8.3.2).
        if let (Some(tenant), Some(object)) = (&interface.tenant, params.as_object_mut()) {
            object
                .entry("tenant")
                .or_insert_with(|| Value::String(tenant.clone()));
        }
        let envelope = json!({
            "jsonrpc": "2.0",
            "id": self.id("rpc"),
            "method": method,
            "params": params,
        });
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

    pub async fn rpc(&self, method: &str, params: Value) -> Result<RpcReply, HarnessError> {
        self.rpc_with_version(method, params, None).await
    }

    /// Before any check runs on an interface: does it answer JSON-RPC at all? GetTask of an
    /// unknown id, then (if that gets no JSON-RPC answer) an unknown method; a request that
    /// runs past its deadline is tried once more. Only when neither answers is the interface
    /// unusable: then every check on it is ERROR with this one reason.
    pub async fn probe(&self) -> Result<(), HarnessError> {
        let url = self.interface()?.url.clone();
        let mut seen = String::new();
        for (method, params) in [
            ("GetTask", json!({ "id": self.id("tck-probe") })),
            ("TckProbeUnknownMethod", json!({})),
        ] {
            let reply = match self.rpc(method, params.clone()).await {
                Err(HarnessError::Deadline(_)) => self.rpc(method, params).await,
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
            if matches!(reply.http.status, 401 | 403) {
                return Err(HarnessError::Transport(
                    self.needs_credentials(&url, &reply.http),
                ));
            }
            let json_rpc = reply.body.as_ref().is_some_and(|b| {
                b.get("jsonrpc").is_some() || b.get("result").is_some() || b.get("error").is_some()
            });
            if json_rpc {
                return Ok(());
            }
            seen = format!(
                "HTTP {}, Content-Type {}: {}",
                reply.http.status,
                reply.http.header("content-type").unwrap_or("none"),
                reply.http.body_start(120)
            );
        }
        Err(HarnessError::Malformed(format!(
            "the interface at {url} did not answer JSON-RPC ({seen}); check the url the card declares"
        )))
    }

    /// What to tell a user whose agent wants credentials the kit was not given.
    fn needs_credentials(&self, url: &str, reply: &HttpReply) -> String {
        let schemes: Vec<&String> = self
            .card
            .json
            .get("securitySchemes")
            .and_then(Value::as_object)
            .map(|m| m.keys().collect())
            .unwrap_or_default();
        let challenge = reply
            .header("www-authenticate")
            .map(|c| format!(", WWW-Authenticate: {c}"))
            .unwrap_or_default();
        let declared = if schemes.is_empty() {
            String::new()
        } else {
            format!("; the card declares security schemes {schemes:?}")
        };
        format!(
            "the interface at {url} requires authentication (HTTP {}{challenge}){declared}; \
             give credentials with --header, e.g. --header 'Authorization: Bearer <token>'",
            reply.status
        )
    }

    /// Calls a method that must fail with exactly `kind`. An answer that is not a JSON-RPC
    /// response at all violates the rule too (it is not the error the binding requires).
    pub async fn call_expecting(
        &self,
        method: &str,
        params: Value,
        kind: ErrorKind,
    ) -> Result<Verdict, HarnessError> {
        Ok(expect_error_reply(&self.rpc(method, params).await?, kind))
    }

    /// Calls a method and reads its answer.
    pub async fn call(&self, method: &str, params: Value) -> Result<Answer, HarnessError> {
        self.rpc(method, params).await?.answer()
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
        self.call("ListTasks", params).await
    }

    /// Setup: sends a message with the given scenario prefix and returns the Task it created.
    /// Anything else means the target did not produce the state the check needs.
    pub async fn create_task(&self, prefix: &str) -> Result<Value, HarnessError> {
        let message = self.user_message(prefix);
        self.create_task_with(prefix, message).await
    }

    /// Like [`Ctx::create_task`], with a prepared message.
    pub async fn create_task_with(
        &self,
        prefix: &str,
        message: Value,
    ) -> Result<Value, HarnessError> {
        let answer = self.send_message(message, None).await?;
        match answer.result().and_then(|r| r.get("task")) {
            Some(task) if a2a::text(task, "id").is_some() => Ok(task.clone()),
            _ => Err(HarnessError::Prerequisite(format!(
                "SendMessage (messageId prefix `{prefix}`) did not return a task with an id; got {}",
                answer.describe()
            ))),
        }
    }

    /// Setup: creates a task and requires it to be in `state` (e.g. an input-required task).
    pub async fn create_task_in_state(
        &self,
        prefix: &str,
        state: &str,
    ) -> Result<Value, HarnessError> {
        let task = self.create_task(prefix).await?;
        match a2a::state(&task) {
            Some(s) if s == state => Ok(task),
            other => Err(HarnessError::Prerequisite(format!(
                "SendMessage (messageId prefix `{prefix}`) returned a task in state {}, \
                 not {state}",
                a2a::shown(other)
            ))),
        }
    }
}

/// Setup: one task in each terminal state the agent can be driven into: COMPLETED
/// (`tck-complete-task`), REJECTED (`tck-reject-task`), FAILED (`tck-fail-task`, the kit's own
/// scenario) and CANCELED (an input-required task, canceled). COMPLETED is required; the other
/// states are tried and left out, with the reason, when the agent does not produce them.
pub async fn terminal_tasks(
    ctx: &Ctx,
) -> Result<(Vec<(&'static str, Value)>, Vec<String>), HarnessError> {
    let mut tasks = vec![(
        "TASK_STATE_COMPLETED",
        ctx.create_task_in_state("tck-complete-task", "TASK_STATE_COMPLETED")
            .await?,
    )];
    let mut skipped = Vec::new();
    for (prefix, state) in [
        ("tck-reject-task", "TASK_STATE_REJECTED"),
        ("tck-fail-task", "TASK_STATE_FAILED"),
    ] {
        match ctx.create_task_in_state(prefix, state).await {
            Ok(task) => tasks.push((state, task)),
            Err(HarnessError::Prerequisite(why)) => skipped.push(why),
            Err(other) => return Err(other),
        }
    }
    match ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await
    {
        Ok(open) => {
            let canceled = ctx.cancel_task(&task_id(&open)).await?;
            match canceled.result() {
                Some(t) if a2a::state(t) == Some("TASK_STATE_CANCELED") => {
                    tasks.push(("TASK_STATE_CANCELED", t.clone()))
                }
                _ => skipped.push(format!(
                    "no canceled task: CancelTask gave {}",
                    canceled.describe()
                )),
            }
        }
        Err(HarnessError::Prerequisite(why)) => skipped.push(why),
        Err(other) => return Err(other),
    }
    Ok((tasks, skipped))
}

/// Task id of a task returned by setup (present: setup checked it).
pub fn task_id(task: &Value) -> String {
    a2a::text(task, "id").unwrap_or_default().to_string()
}

/// The verdict for "this call must fail with exactly `kind`".
fn expect_error(answer: &Answer, kind: ErrorKind) -> Verdict {
    let expected = format!("JSON-RPC error {kind}");
    match answer {
        Answer::Error(e) if e.code == Some(kind.jsonrpc_code()) => Verdict::pass(),
        other => Verdict::fail(expected, other.describe()),
    }
}

/// Like `expect_error`, for a raw reply: a body that is not a JSON-RPC response is a
/// violation, not a harness error.
pub fn expect_error_reply(reply: &RpcReply, kind: ErrorKind) -> Verdict {
    match reply.answer() {
        Ok(answer) => expect_error(&answer, kind),
        Err(_) => Verdict::fail(
            format!("JSON-RPC error {kind}"),
            format!(
                "HTTP {} with a body that is not a JSON-RPC response: {}",
                reply.http.status,
                reply.http.body_start(200)
            ),
        ),
    }
}

/// The task in a SendMessage result (`{"task": {...}}`), for follow-ups.
pub fn sent_task(answer: &Answer) -> Option<&Value> {
    answer.result().and_then(|r| r.get("task"))
}

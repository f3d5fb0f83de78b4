//! The per-check context: the card, the interface under test and its transport, the
//! check's ids and evidence. Checks call operations here; the transport decides how the
//! interface's binding and version carry them, so nothing here looks at either.

use std::sync::Arc;

use serde_json::{json, Value};

use crate::a2a::{self, ErrorKind};
use crate::card::{FetchedCard, Interface};
use crate::ids::Ids;
use crate::judge;
use crate::model::{Binding, HarnessError, ProtocolVersion, Verdict};
use crate::transport::jsonrpc;
pub use crate::transport::jsonrpc::RpcReply;
use crate::transport::stream::{self, Start};
use crate::transport::{Connector, Reply, Transport, VersionHeader};
use crate::wire::Wire;

pub use crate::transport::{Answer, ErrorReply};

/// What a check works with. Cheap to clone; clones share the evidence log and the ids.
#[derive(Debug, Clone)]
pub struct Ctx {
    pub card: Arc<FetchedCard>,
    /// The interface under test; `None` for card checks.
    pub interface: Option<Interface>,
    pub wire: Wire,
    /// The interface's binding, in its version; `None` for card checks.
    transport: Option<Arc<dyn Transport>>,
    /// Makes the transports of other interfaces (see [`Ctx::on`]).
    connector: Connector,
    /// The interfaces this run tests and that answered the probe (selection applied): checks
    /// that compare interfaces use these and no others.
    usable: Arc<Vec<Interface>>,
    ids: Ids,
}

impl Ctx {
    pub fn new(
        card: Arc<FetchedCard>,
        interface: Option<Interface>,
        wire: Wire,
        connector: Connector,
        ns: &str,
    ) -> Ctx {
        let ids = Ids::new(ns);
        let transport = interface
            .as_ref()
            .map(|i| connector.connect(i, &wire, &ids));
        Ctx {
            card,
            interface,
            wire,
            transport,
            connector,
            usable: Arc::default(),
            ids,
        }
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
        let transport = self.connector.connect(&interface, &self.wire, &self.ids);
        Ctx {
            interface: Some(interface),
            transport: Some(transport),
            ..self.clone()
        }
    }

    /// A fresh id in this check's namespace: `<prefix>-<ns>-<n>` (see [`Ids`]).
    pub fn id(&self, prefix: &str) -> String {
        self.ids.next(prefix)
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
        judge::expected(kind, self.binding(), version)
    }

    /// The transport of the interface under test.
    pub fn transport(&self) -> Result<&dyn Transport, HarnessError> {
        self.transport.as_deref().ok_or_else(|| {
            HarnessError::Internal("interface check run without an interface".into())
        })
    }

    /// Posts a raw body to the interface URL with the given headers (the escape hatch for
    /// malformed-input checks), read as a JSON-RPC answer.
    pub async fn post_raw(
        &self,
        body: Vec<u8>,
        headers: Vec<(&str, String)>,
    ) -> Result<RpcReply, HarnessError> {
        let http = self.transport()?.raw(body, headers).await?;
        Ok(RpcReply::new(http))
    }

    /// Sends a JSON-RPC request without any `A2A-Version` header.
    pub async fn rpc_without_version(
        &self,
        method: &str,
        params: Value,
    ) -> Result<RpcReply, HarnessError> {
        let transport = self.transport()?;
        jsonrpc::rpc(transport, method, transport.with_tenant(params), None).await
    }

    /// Sends a JSON-RPC request for `method` as it is, with the interface's version.
    pub async fn rpc(&self, method: &str, params: Value) -> Result<RpcReply, HarnessError> {
        let transport = self.transport()?;
        let version = transport.version_value(VersionHeader::Interface);
        jsonrpc::rpc(transport, method, transport.with_tenant(params), version).await
    }

    /// The params with the interface's tenant, where its version sends one (spec 1.0 §8.3.2).
    pub(crate) fn with_tenant(&self, params: Value) -> Result<Value, HarnessError> {
        Ok(self.transport()?.with_tenant(params))
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
        self.transport()?.call(method, params, version).await
    }

    /// Opens a stream (SendStreamingMessage, SubscribeToTask) on the interface's binding.
    pub async fn stream(&self, method: &str, params: Value) -> Result<Start, HarnessError> {
        self.transport()?.open_stream(method, params).await
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

    /// Calls a method that must fail with exactly `kind`. An answer that is not the
    /// binding's error form violates the rule too.
    pub async fn call_expecting(
        &self,
        method: &str,
        params: Value,
        kind: ErrorKind,
    ) -> Result<Verdict, HarnessError> {
        Ok(judge::expect_error(
            &self.request(method, params).await?,
            kind,
        ))
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
        self.transport()?.send(params).await?.answer()
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
        self.transport()?.get(params).await?.answer()
    }

    pub async fn cancel_task(&self, id: &str) -> Result<Answer, HarnessError> {
        let params = json!({ "id": id });
        self.transport()?.cancel(params).await?.answer()
    }

    pub async fn list_tasks(&self, params: Value) -> Result<Answer, HarnessError> {
        self.transport()?.list(params).await?.answer()
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

/// The verdict for "this JSON-RPC call must fail with exactly `kind`".
pub fn expect_error_reply(reply: &RpcReply, kind: ErrorKind) -> Verdict {
    reply.reply().expect_error(kind)
}

/// The task in a SendMessage result (`{"task": {...}}`), for follow-ups.
pub fn sent_task(answer: &Answer) -> Option<&Value> {
    answer.result().and_then(|r| r.get("task"))
}

//! What a check sends through its context: the interface's binding and version, raw and
//! typed requests and streams at the check's pace, each operation of A2A, and the watch that
//! shows every task an answer holds to the run's history.

use std::sync::Arc;

use serde_json::{json, Value};

use super::Ctx;
use crate::exchange::history::{Seen, Span};
use crate::exchange::transport::answer::RpcReply;
use crate::exchange::transport::jsonrpc;
use crate::exchange::transport::stream::{self, Start};
use crate::exchange::transport::{Answer, Reply, Transport, VersionHeader};
use crate::facts::model::{Binding, HarnessError, ProtocolVersion};

impl Ctx {
    /// The binding under test (JSON-RPC for card checks, which make no calls).
    pub fn binding(&self) -> Binding {
        self.interface
            .as_ref()
            .map_or(Binding::Jsonrpc, |i| i.binding)
    }

    /// The protocol version under test (1.0 for card checks, which make no calls).
    pub fn version(&self) -> ProtocolVersion {
        self.interface
            .as_ref()
            .map_or(ProtocolVersion::V1_0, |i| i.version)
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

    /// SendStreamingMessage that must start a stream: a refusal is a missing prerequisite.
    pub async fn open_send_stream(
        &self,
        params: Value,
    ) -> Result<stream::EventStream, HarnessError> {
        started("SendStreamingMessage", self.send_streaming(params).await?)
    }

    /// SubscribeToTask that must start a stream: a refusal is a missing prerequisite.
    pub async fn open_subscription(
        &self,
        params: Value,
    ) -> Result<stream::EventStream, HarnessError> {
        started("SubscribeToTask", self.subscribe(params).await?)
    }

    /// How long the kit waits for the next event of a stream.
    pub fn stream_wait(&self) -> std::time::Duration {
        self.wire.limits().stream_wait
    }

    /// `work` on each of `items`, as many at once as the run's pace allows: the slot this
    /// check holds, and as many more as the pace lends it (see [`crate::exchange::pace::Pace::slot`]),
    /// so a batch goes as fast as the agent bears and no faster. Outputs come in the order
    /// they finish. Run again alone, or without a pace, the batch goes one at a time.
    pub fn at_pace<'a, T, F, Fut>(
        &'a self,
        items: impl IntoIterator<Item = T> + 'a,
        work: F,
    ) -> impl futures::Stream<Item = Fut::Output> + 'a
    where
        T: 'a,
        F: Fn(T) -> Fut + 'a,
        Fut: std::future::Future + 'a,
    {
        use futures::StreamExt;
        let pace = self
            .wire
            .recorder()
            .observer::<crate::exchange::pace::Pace>();
        let most = pace.as_ref().map_or(1, |p| p.ceiling());
        let own = Arc::new(tokio::sync::Semaphore::new(1));
        futures::stream::iter(items)
            .map(move |item| {
                let (pace, own) = (pace.clone(), own.clone());
                let work = work(item);
                async move {
                    let _slot = crate::exchange::pace::Pace::slot(pace.as_ref(), &own).await;
                    work.await
                }
            })
            .buffer_unordered(most)
    }

    /// SendMessage with these params (ProtoJSON), as the binding answered it.
    pub async fn send(&self, params: Value) -> Result<Reply, HarnessError> {
        let sent = std::time::Instant::now();
        let reply = self.transport()?.send(params).await?;
        if let Ok(Answer::Result(result)) = &reply.read {
            if let Some(task) = result.get("task") {
                self.saw(Seen::Sent, sent, task);
            }
        }
        Ok(reply)
    }

    /// GetTask with these params, as the binding answered it.
    pub async fn get(&self, params: Value) -> Result<Reply, HarnessError> {
        let sent = std::time::Instant::now();
        let limited = params.get("historyLength").is_some();
        let reply = self.transport()?.get(params).await?;
        if let Ok(Answer::Result(task)) = &reply.read {
            self.saw(Seen::Read { limited }, sent, task);
        }
        Ok(reply)
    }

    /// ListTasks with these params, as the binding answered it.
    pub async fn list(&self, params: Value) -> Result<Reply, HarnessError> {
        let sent = std::time::Instant::now();
        let reply = self.transport()?.list(params).await?;
        if let Ok(Answer::Result(page)) = &reply.read {
            for task in page
                .get("tasks")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                self.saw(Seen::Listed, sent, task);
            }
        }
        Ok(reply)
    }

    /// CancelTask with these params, as the binding answered it.
    pub async fn cancel(&self, params: Value) -> Result<Reply, HarnessError> {
        let sent = std::time::Instant::now();
        let reply = self.transport()?.cancel(params).await?;
        if let Ok(Answer::Result(task)) = &reply.read {
            self.saw(Seen::Canceled, sent, task);
        }
        Ok(reply)
    }

    /// Keeps a sight of `task` in the run's history of every task (when the run keeps one).
    fn saw(&self, seen: Seen, sent: std::time::Instant, task: &Value) {
        let (Some(history), Some(interface)) = (self.wire.history(), &self.interface) else {
            return;
        };
        let span = Span {
            sent,
            answered: std::time::Instant::now(),
        };
        history.task(
            (interface.binding, interface.version),
            seen,
            self.ids.ns(),
            span,
            task,
        );
    }

    /// The stream, its events kept in the run's history of every task as they are read.
    fn watched(&self, start: Start) -> Start {
        let (Some(history), Some(interface)) = (self.wire.history().cloned(), &self.interface)
        else {
            return start;
        };
        let stream = match start {
            Start::Stream(stream) => stream,
            refused => return refused,
        };
        let place = (interface.binding, interface.version);
        let by = self.ids.ns().to_string();
        Start::Stream(Box::new(stream.watched(Box::new(move |event| {
            let now = std::time::Instant::now();
            let span = Span {
                sent: now,
                answered: now,
            };
            for kind in crate::exchange::transport::stream::EVENT_KINDS {
                if let Some(payload) = event.get(kind).filter(|_| *kind != "message") {
                    history.task(place, Seen::Event, &by, span, payload);
                }
            }
        }))))
    }

    /// CreateTaskPushNotificationConfig with these params, as the binding answered it.
    pub async fn create_push_config(&self, params: Value) -> Result<Reply, HarnessError> {
        self.transport()?.create_push_config(params).await
    }

    /// GetTaskPushNotificationConfig with these params, as the binding answered it.
    pub async fn get_push_config(&self, params: Value) -> Result<Reply, HarnessError> {
        self.transport()?.get_push_config(params).await
    }

    /// ListTaskPushNotificationConfigs with these params, as the binding answered it.
    pub async fn list_push_configs(&self, params: Value) -> Result<Reply, HarnessError> {
        self.transport()?.list_push_configs(params).await
    }

    /// DeleteTaskPushNotificationConfig with these params, as the binding answered it.
    pub async fn delete_push_config(&self, params: Value) -> Result<Reply, HarnessError> {
        self.transport()?.delete_push_config(params).await
    }

    /// GetExtendedAgentCard, as the binding answered it.
    pub async fn extended_card(&self) -> Result<Reply, HarnessError> {
        self.transport()?.extended_card(json!({})).await
    }

    /// SendStreamingMessage with these params: the stream, or the binding's refusal.
    pub async fn send_streaming(&self, params: Value) -> Result<Start, HarnessError> {
        Ok(self.watched(self.transport()?.stream(params).await?))
    }

    /// SubscribeToTask with these params: the stream, or the binding's refusal.
    pub async fn subscribe(&self, params: Value) -> Result<Start, HarnessError> {
        Ok(self.watched(self.transport()?.subscribe(params).await?))
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
        self.send(params).await?.answer()
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
        self.get(params).await?.answer()
    }

    pub async fn cancel_task(&self, id: &str) -> Result<Answer, HarnessError> {
        let params = json!({ "id": id });
        self.cancel(params).await?.answer()
    }

    pub async fn list_tasks(&self, params: Value) -> Result<Answer, HarnessError> {
        self.list(params).await?.answer()
    }
}

/// The stream `method` started, or its refusal as a missing prerequisite.
fn started(method: &str, start: Start) -> Result<stream::EventStream, HarnessError> {
    match start {
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

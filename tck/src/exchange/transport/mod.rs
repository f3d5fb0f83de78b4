//! The bindings behind one [`Transport`] trait. A check names an operation by its 1.0 method
//! with ProtoJSON params; the interface's transport (JSON-RPC, HTTP+JSON/REST or gRPC) turns
//! it into its wire form, written by the interface's protocol version ([`Codec`]: 1.0, or
//! 0.3 in [`v03`]), and returns what came back, read but not judged: a [`Reply`] for a
//! unary call, a [`Start`] for a stream. Nothing is retried, every read has a deadline, and
//! every exchange is recorded as evidence. Which error a rule expects is [`crate::exchange::judge`]'s.

use std::fmt;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::exchange::card::Interface;
use crate::exchange::wire::{HttpReply, Request, Wire};
use crate::facts::ids::Ids;
use crate::facts::model::{Binding, HarnessError, ProtocolVersion};

pub mod answer;
pub mod codec;
pub mod grpc;
pub mod jsonrpc;
mod reply;
pub mod rest;
pub mod stream;
pub mod v03;

pub use codec::Codec;
pub use reply::{error_info_in, Answer, ErrorInfo, ErrorReply, Reply};
pub use stream::Start;

/// Which `A2A-Version` a request carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionHeader<'a> {
    /// The interface's declared version (the normal case).
    Interface,
    /// This value.
    Value(&'a str),
    /// No version at all.
    Absent,
}

/// One interface's binding, as a check calls it. Each binding implements [`Transport::call`]
/// and [`Transport::open_stream`]; the spec operations are those two with the operation's
/// name, and [`Transport::raw`] posts bytes as they are (malformed-input checks).
#[async_trait]
pub trait Transport: Send + Sync + fmt::Debug {
    /// The interface, its recording client, its ids and its version's codec.
    fn link(&self) -> &Link;

    /// Calls `method` (1.0 name, ProtoJSON params) with the `A2A-Version` `version` and
    /// returns the answer as received.
    async fn call(
        &self,
        method: &str,
        params: Value,
        version: VersionHeader<'_>,
    ) -> Result<Reply, HarnessError>;

    /// Opens a stream (SendStreamingMessage, SubscribeToTask). An error before the first
    /// event, however the binding sends it, is a refusal ([`Start::Refused`]).
    async fn open_stream(&self, method: &str, params: Value) -> Result<Start, HarnessError>;

    /// The interface under test.
    fn interface(&self) -> &Interface {
        &self.link().interface
    }

    /// The params with the interface's tenant, where the version sends one (spec 1.0 §8.3.2).
    fn with_tenant(&self, params: Value) -> Value {
        self.link().with_tenant(params)
    }

    /// The `A2A-Version` value a request carries.
    fn version_value(&self, version: VersionHeader<'_>) -> Option<String> {
        self.link().codec.version_value(version)
    }

    /// POSTs `body` with exactly `headers` (and the user's) to the interface URL.
    async fn raw(
        &self,
        body: Vec<u8>,
        headers: Vec<(&str, String)>,
    ) -> Result<HttpReply, HarnessError> {
        self.link().post(body, headers).await
    }

    /// SendMessage.
    async fn send(&self, params: Value) -> Result<Reply, HarnessError> {
        self.call("SendMessage", params, VersionHeader::Interface)
            .await
    }

    /// SendStreamingMessage.
    async fn stream(&self, params: Value) -> Result<Start, HarnessError> {
        self.open_stream("SendStreamingMessage", params).await
    }

    /// GetTask.
    async fn get(&self, params: Value) -> Result<Reply, HarnessError> {
        self.call("GetTask", params, VersionHeader::Interface).await
    }

    /// ListTasks.
    async fn list(&self, params: Value) -> Result<Reply, HarnessError> {
        self.call("ListTasks", params, VersionHeader::Interface)
            .await
    }

    /// CancelTask.
    async fn cancel(&self, params: Value) -> Result<Reply, HarnessError> {
        self.call("CancelTask", params, VersionHeader::Interface)
            .await
    }

    /// SubscribeToTask.
    async fn subscribe(&self, params: Value) -> Result<Start, HarnessError> {
        self.open_stream("SubscribeToTask", params).await
    }

    /// CreateTaskPushNotificationConfig.
    async fn create_push_config(&self, params: Value) -> Result<Reply, HarnessError> {
        let method = "CreateTaskPushNotificationConfig";
        self.call(method, params, VersionHeader::Interface).await
    }

    /// GetTaskPushNotificationConfig.
    async fn get_push_config(&self, params: Value) -> Result<Reply, HarnessError> {
        let method = "GetTaskPushNotificationConfig";
        self.call(method, params, VersionHeader::Interface).await
    }

    /// ListTaskPushNotificationConfigs.
    async fn list_push_configs(&self, params: Value) -> Result<Reply, HarnessError> {
        let method = "ListTaskPushNotificationConfigs";
        self.call(method, params, VersionHeader::Interface).await
    }

    /// DeleteTaskPushNotificationConfig.
    async fn delete_push_config(&self, params: Value) -> Result<Reply, HarnessError> {
        let method = "DeleteTaskPushNotificationConfig";
        self.call(method, params, VersionHeader::Interface).await
    }

    /// GetExtendedAgentCard.
    async fn extended_card(&self, params: Value) -> Result<Reply, HarnessError> {
        let method = "GetExtendedAgentCard";
        self.call(method, params, VersionHeader::Interface).await
    }
}

/// What every transport of one check holds: the interface, the check's recording client,
/// the check's ids (JSON-RPC request ids) and the codec of the interface's version.
#[derive(Debug, Clone)]
pub struct Link {
    pub interface: Interface,
    pub wire: Wire,
    pub ids: Ids,
    pub codec: &'static dyn Codec,
}

impl Link {
    /// The params with the interface's tenant, where the version sends one.
    pub fn with_tenant(&self, params: Value) -> Value {
        self.codec
            .with_tenant(self.interface.tenant.as_deref(), params)
    }

    /// POSTs `body` to the interface URL.
    pub async fn post(
        &self,
        body: Vec<u8>,
        headers: Vec<(&str, String)>,
    ) -> Result<HttpReply, HarnessError> {
        self.wire
            .send(Request {
                method: reqwest::Method::POST,
                url: &self.interface.url,
                headers,
                body: Some(body),
            })
            .await
    }
}

/// What a run shares with every transport it makes: the gRPC channels (the HTTP client
/// travels in each check's [`Wire`]) and the scheme of the card's URL, by which a gRPC url
/// of the form `host:port` is reached. Made by the runner, dropped with the run.
#[derive(Debug, Clone)]
pub struct Connector {
    channels: grpc::Channels,
    scheme: &'static str,
}

impl Connector {
    pub fn new(card_url: &str) -> Connector {
        Connector::trusting(card_url, Arc::default())
    }

    /// [`Connector::new`] whose gRPC channels also trust the CA certificates `ca_pems` (PEM).
    pub fn trusting(card_url: &str, ca_pems: Arc<Vec<Vec<u8>>>) -> Connector {
        Connector {
            channels: grpc::Channels::trusting(ca_pems),
            scheme: if card_url.starts_with("https:") {
                "https"
            } else {
                "http"
            },
        }
    }

    /// The transport of `interface` for one check: its exchanges recorded through `wire`,
    /// its request ids drawn from `ids`.
    pub fn connect(&self, interface: &Interface, wire: &Wire, ids: &Ids) -> Arc<dyn Transport> {
        let codec: &'static dyn Codec = match interface.version {
            ProtocolVersion::V1_0 => &codec::V1_0,
            ProtocolVersion::V0_3 => &v03::V0_3,
        };
        let link = Link {
            interface: interface.clone(),
            wire: wire.clone(),
            ids: ids.clone(),
            codec,
        };
        match interface.binding {
            Binding::Jsonrpc => Arc::new(jsonrpc::JsonRpc(link)),
            Binding::Rest => Arc::new(rest::Rest(link)),
            Binding::Grpc => Arc::new(grpc::Grpc::new(link, self.channels.clone(), self.scheme)),
        }
    }
}

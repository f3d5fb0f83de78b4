//! How a protocol version writes requests and reads answers on each binding. The bindings ask
//! the interface's [`Codec`] and never look at the version themselves: 1.0 ([`V1_0`], here)
//! sends operations as they are; 0.3 ([`super::v03`]) rewrites them and reads answers back.

use std::fmt;

use serde_json::Value;

use super::rest::{self, Route};
use super::{Reply, Start, VersionHeader};
use crate::facts::model::{Binding, HarnessError, ProtocolVersion};

/// One protocol version's forms of every binding.
pub trait Codec: Send + Sync + fmt::Debug {
    /// The version.
    fn version(&self) -> ProtocolVersion;

    /// The `A2A-Version` value of a request.
    fn version_value(&self, version: VersionHeader<'_>) -> Option<String> {
        match version {
            VersionHeader::Interface => Some(self.version().as_str().to_string()),
            VersionHeader::Value(v) => Some(v.to_string()),
            VersionHeader::Absent => None,
        }
    }

    /// The params with the interface's `tenant`, where this version sends one.
    fn with_tenant(&self, tenant: Option<&str>, params: Value) -> Value;

    /// The JSON-RPC method and params of an operation.
    fn jsonrpc(&self, method: &str, params: Value) -> Result<(String, Value), HarnessError>;

    /// The HTTP+JSON route of an operation on the interface at `base`.
    fn route(&self, base: &str, method: &str, params: &Value) -> Result<Route, HarnessError>;

    /// The gRPC service, rpc and request of an operation.
    fn grpc(
        &self,
        method: &str,
        params: Value,
    ) -> Result<(&'static str, String, Value), HarnessError>;

    /// The answer of `method` on `binding`, read into 1.0 ProtoJSON.
    fn read(&self, binding: Binding, method: &str, reply: Reply) -> Reply;

    /// A stream's start on `binding`, its events to be read into 1.0 ProtoJSON.
    fn read_start(&self, binding: Binding, start: Start) -> Start;
}

/// Protocol 1.0: the operations as the checks name them.
#[derive(Debug)]
pub struct Current;

/// The 1.0 codec.
pub static V1_0: Current = Current;

impl Codec for Current {
    fn version(&self) -> ProtocolVersion {
        ProtocolVersion::V1_0
    }

    /// Clients must send the interface's tenant in every request (spec 1.0 §8.3.2): in the
    /// params (JSON-RPC, gRPC) or as the path prefix (HTTP+JSON, taken from the params).
    fn with_tenant(&self, tenant: Option<&str>, mut params: Value) -> Value {
        if let (Some(tenant), Some(object)) = (tenant, params.as_object_mut()) {
            object
                .entry("tenant")
                .or_insert_with(|| Value::String(tenant.to_string()));
        }
        params
    }

    fn jsonrpc(&self, method: &str, params: Value) -> Result<(String, Value), HarnessError> {
        Ok((method.to_string(), params))
    }

    fn route(&self, base: &str, method: &str, params: &Value) -> Result<Route, HarnessError> {
        rest::route(base, method, params)
    }

    fn grpc(
        &self,
        method: &str,
        params: Value,
    ) -> Result<(&'static str, String, Value), HarnessError> {
        Ok((a2a_proto::SERVICE, method.to_string(), params))
    }

    fn read(&self, _binding: Binding, _method: &str, reply: Reply) -> Reply {
        reply
    }

    fn read_start(&self, _binding: Binding, start: Start) -> Start {
        start
    }
}

//! JSON-RPC 2.0 over HTTP (spec 1.0 §9): the envelope and the binding's [`Transport`] (every
//! operation a POST to the interface URL; streams as SSE). A response is read into an answer by
//! [`super::answer`].

use async_trait::async_trait;
use serde_json::{json, Value};

use super::answer::RpcReply;
use super::stream::{self, Start};
use super::{Link, Reply, Transport, VersionHeader};
use crate::exchange::wire::Request;
use crate::facts::model::{Binding, HarnessError};

/// The JSON-RPC binding of one interface.
#[derive(Debug)]
pub struct JsonRpc(pub Link);

#[async_trait]
impl Transport for JsonRpc {
    fn link(&self) -> &Link {
        &self.0
    }

    async fn call(
        &self,
        method: &str,
        params: Value,
        version: VersionHeader<'_>,
    ) -> Result<Reply, HarnessError> {
        let link = &self.0;
        let (name, params) = link.codec.jsonrpc(method, link.with_tenant(params))?;
        let version = link.codec.version_value(version);
        let reply = rpc(self, &name, params, version).await?.reply();
        Ok(link.codec.read(Binding::Jsonrpc, method, reply))
    }

    async fn open_stream(&self, method: &str, params: Value) -> Result<Start, HarnessError> {
        let link = &self.0;
        let params = link.with_tenant(params);
        let version = link.codec.version_value(VersionHeader::Interface);
        let (name, params) = link.codec.jsonrpc(method, params)?;
        let id = link.ids.next("rpc");
        let envelope = envelope(&id, &name, params);
        let mut headers = vec![
            ("content-type", "application/json".to_string()),
            ("accept", "text/event-stream".to_string()),
        ];
        if let Some(version) = version {
            headers.push(("a2a-version", version));
        }
        let opened = link
            .wire
            .open(Request {
                method: reqwest::Method::POST,
                url: &link.interface.url,
                headers,
                body: Some(envelope.to_string().into_bytes()),
            })
            .await?;
        let wait = link.wire.limits().stream_wait;
        let start = stream::start_sse(Binding::Jsonrpc, opened, Some(id), wait).await?;
        Ok(link.codec.read_start(Binding::Jsonrpc, start))
    }
}

/// Posts a JSON-RPC request for `method` as it is (an id in the check's namespace, the
/// `A2A-Version` `version`) through `transport`'s raw escape hatch.
pub async fn rpc(
    transport: &dyn Transport,
    method: &str,
    params: Value,
    version: Option<String>,
) -> Result<RpcReply, HarnessError> {
    let envelope = envelope(&transport.link().ids.next("rpc"), method, params);
    let mut headers = vec![
        ("content-type", "application/json".to_string()),
        ("accept", "application/json".to_string()),
    ];
    if let Some(version) = version {
        headers.push(("a2a-version", version));
    }
    let http = transport
        .raw(envelope.to_string().into_bytes(), headers)
        .await?;
    Ok(RpcReply::new(http))
}

/// The request envelope.
pub fn envelope(id: &str, method: &str, params: Value) -> Value {
    json!({
        "jsonrpc": "2.0",
        "id": id,
        "method": method,
        "params": params,
    })
}

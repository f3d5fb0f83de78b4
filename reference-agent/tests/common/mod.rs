//! Shared by the agent's end-to-end tests: one agent on 127.0.0.1:0 and an HTTP client.

#![allow(dead_code)]

pub mod rpc;
pub mod sse;
pub mod v03;

use std::net::SocketAddr;
use std::time::Duration;

use a2a_reference_agent::{start, AgentConfig, Fault, RunningAgent};
use serde_json::Value;
use tokio::time::timeout;

/// How long a read may take before the test fails.
pub const WAIT: Duration = Duration::from_secs(5);

/// A REST or JSON-RPC reply: status, content type and JSON body.
pub struct Reply {
    pub status: u16,
    pub content_type: String,
    pub body: Value,
}

/// The Content-Type of a response ("" when absent).
pub fn header(response: &reqwest::Response) -> String {
    response
        .headers()
        .get("content-type")
        .map(|v| v.to_str().expect("ASCII").to_owned())
        .unwrap_or_default()
}

/// An agent under test; dropping it stops the agent.
pub struct Harness {
    pub agent: RunningAgent,
    pub http: reqwest::Client,
}

impl Harness {
    pub async fn new(config: AgentConfig) -> Self {
        let _ = rustls::crypto::ring::default_provider().install_default();
        let addr: SocketAddr = "127.0.0.1:0".parse().expect("address");
        let agent = start(addr, config).await.expect("agent starts");
        Harness {
            agent,
            http: reqwest::Client::new(),
        }
    }

    pub async fn conformant() -> Self {
        Self::new(AgentConfig::default()).await
    }

    pub async fn faulty(fault: Fault) -> Self {
        Self::new(AgentConfig::default().with_fault(fault)).await
    }

    /// Sends a request and reads its JSON answer, each step within [`WAIT`].
    pub async fn reply(request: reqwest::RequestBuilder) -> Reply {
        let response = timeout(WAIT, request.send())
            .await
            .expect("response in time")
            .expect("request");
        let status = response.status().as_u16();
        let content_type = header(&response);
        let text = timeout(WAIT, response.text())
            .await
            .expect("body in time")
            .expect("body");
        let body = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{e}: {text}"));
        Reply {
            status,
            content_type,
            body,
        }
    }
}

//! Shared by the agent's end-to-end tests: one agent on 127.0.0.1:0 and an HTTP client.

#![allow(dead_code)]

use std::net::SocketAddr;

use a2a_reference_agent::{start, AgentConfig, Fault, RunningAgent};

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
}

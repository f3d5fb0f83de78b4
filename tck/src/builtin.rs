//! The built-in target: the reference agent started in-process on an ephemeral loopback port.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use a2a_reference_agent::{AgentConfig, Fault, RunningAgent};

/// Starts the reference agent on 127.0.0.1 with the given faults.
pub async fn start(faults: &[Fault]) -> std::io::Result<RunningAgent> {
    let config = AgentConfig {
        faults: faults.iter().copied().collect::<BTreeSet<_>>(),
    };
    a2a_reference_agent::start(SocketAddr::from(([127, 0, 0, 1], 0)), config).await
}

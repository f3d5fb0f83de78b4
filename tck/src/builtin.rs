//! The built-in target: the reference agent started in-process on an ephemeral loopback port.

use std::net::SocketAddr;

use a2a_reference_agent::{AgentConfig, Fault, RunningAgent};

/// Starts the reference agent on 127.0.0.1 with the given faults, in the full profile.
pub async fn start(faults: &[Fault]) -> std::io::Result<RunningAgent> {
    start_with(full_profile(faults)).await
}

/// The configuration of a builtin run: the given faults, with push notifications on.
pub fn full_profile(faults: &[Fault]) -> AgentConfig {
    AgentConfig {
        push: true,
        ..AgentConfig::with_faults(faults.iter().copied())
    }
}

/// Starts the reference agent on 127.0.0.1 with a configuration.
pub async fn start_with(config: AgentConfig) -> std::io::Result<RunningAgent> {
    a2a_reference_agent::start(SocketAddr::from(([127, 0, 0, 1], 0)), config).await
}

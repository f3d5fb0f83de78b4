//! The built-in target: the reference agent started in-process on an ephemeral loopback port.

use std::net::SocketAddr;

use a2a_reference_agent::{AgentConfig, Fault, RunningAgent};

/// The builtin profile: the reference agent with every feature the kit judges turned on
/// (the standalone agent keeps them off unless asked).
pub fn profile() -> AgentConfig {
    AgentConfig {
        required_extension: true,
        ..AgentConfig::default()
    }
}

/// Starts the reference agent on 127.0.0.1 in the builtin [`profile`] with the given faults.
pub async fn start(faults: &[Fault]) -> std::io::Result<RunningAgent> {
    let mut config = profile();
    config.faults.extend(faults.iter().copied());
    start_with(config).await
}

/// Starts the reference agent on 127.0.0.1 with a configuration.
pub async fn start_with(config: AgentConfig) -> std::io::Result<RunningAgent> {
    a2a_reference_agent::start(SocketAddr::from(([127, 0, 0, 1], 0)), config).await
}

//! The built-in target: the reference agent started in-process on an ephemeral loopback port.

use std::net::SocketAddr;

use a2a_reference_agent::{AgentConfig, Fault, RunningAgent};

use crate::facts::ids::fresh_token;

/// The builtin profile: the reference agent with every feature the kit judges turned on
/// (the standalone agent keeps them off unless asked): push notifications and a required
/// extension; authenticated mode is added by [`authenticated`], which returns the tokens.
pub fn profile() -> AgentConfig {
    AgentConfig {
        required_extension: true,
        push: true,
        ..AgentConfig::default()
    }
}

/// Starts the reference agent on 127.0.0.1 in the builtin [`profile`] with the given faults.
pub async fn start(faults: &[Fault]) -> std::io::Result<RunningAgent> {
    start_with(full_profile(faults)).await
}

/// The configuration of a builtin run: the builtin [`profile`] with the given faults.
pub fn full_profile(faults: &[Fault]) -> AgentConfig {
    let mut config = profile();
    config.faults.extend(faults.iter().copied());
    config
}

/// Starts the reference agent on 127.0.0.1 with a configuration.
pub async fn start_with(config: AgentConfig) -> std::io::Result<RunningAgent> {
    a2a_reference_agent::start(SocketAddr::from(([127, 0, 0, 1], 0)), config).await
}

/// The credentials the kit holds for the built-in agent in authenticated mode: a header
/// for each of two principals.
#[derive(Clone)]
pub struct Credentials {
    /// Sent on every request (the first principal).
    pub headers: Vec<(String, String)>,
    /// The second principal's, for the checks of isolation.
    pub other: Vec<(String, String)>,
    /// The limited principal's (authenticated, permitted nothing), for the checks of
    /// authorization errors.
    pub limited: Vec<(String, String)>,
}

impl std::fmt::Debug for Credentials {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Credentials([redacted])")
    }
}

/// Turns on authenticated mode in `config` with two fresh tokens (the first two of its own
/// when it has some) and a fresh limited token (its first, when it has one), and returns
/// the credentials of the three principals.
pub fn authenticated(config: &mut AgentConfig) -> Credentials {
    while config.bearer_tokens.len() < 2 {
        config.bearer_tokens.push(fresh_token());
    }
    if config.limited_tokens.is_empty() {
        config.limited_tokens.push(fresh_token());
    }
    let header = |token: &String| vec![("Authorization".to_string(), format!("Bearer {token}"))];
    Credentials {
        headers: header(&config.bearer_tokens[0]),
        other: header(&config.bearer_tokens[1]),
        limited: header(&config.limited_tokens[0]),
    }
}

/// Starts the reference agent as the kit's built-in target: the builtin [`profile`] in
/// authenticated mode (two generated tokens and a limited one), with the given faults; returns the agent and the credentials to use.
pub async fn start_full(faults: &[Fault]) -> std::io::Result<(RunningAgent, Credentials)> {
    let mut config = profile();
    config.faults.extend(faults.iter().copied());
    let credentials = authenticated(&mut config);
    Ok((start_with(config).await?, credentials))
}

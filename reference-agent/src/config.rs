//! How the agent is configured: its faults and profile, and the paths it serves.

use std::collections::BTreeSet;

use crate::fault::Fault;
use crate::store_kind::StoreKind;

/// Path of the JSON-RPC endpoint.
pub const JSONRPC_PATH: &str = "/a2a/jsonrpc";

/// Path of the HTTP+JSON/REST interface (routes are relative to it).
pub const REST_PATH: &str = "/a2a/rest";

/// The environment variable of the official SDKs' test agents that starts the agent in the
/// ACTS runner's "reduced" configuration: streaming, push notifications and the extended card
/// switched off (see [`AgentConfig::acts_reduced`]).
pub const ACTS_REDUCED_CAPABILITIES: &str = "ITK_ACTS_REDUCED_CAPABILITIES";

/// The environment variable of the official SDKs' test agents that starts the agent in the
/// ACTS runner's "auth" configuration: a bearer scheme declared and enforced (see
/// [`AgentConfig::acts_auth`]).
pub const ACTS_AUTH: &str = "ITK_ACTS_AUTH";

/// The token of the full principal under [`ACTS_AUTH`], as the ACTS runner sends it.
pub const ACTS_VALID_TOKEN: &str = "itk-valid-token";

/// The token under [`ACTS_AUTH`] that authenticates but lacks permission.
pub const ACTS_INSUFFICIENT_TOKEN: &str = "itk-insufficient-token";

/// Whether an environment variable's value turns its switch on: set and not empty, and not
/// `0` nor `false` (any case).
pub fn switched_on(value: Option<&str>) -> bool {
    value
        .map(str::trim)
        .is_some_and(|v| !v.is_empty() && v != "0" && !v.eq_ignore_ascii_case("false"))
}

/// How the agent behaves. `Default` is fully conformant.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AgentConfig {
    pub faults: BTreeSet<Fault>,
    /// Serve as an agent without the streaming capability (a conformant profile, not a
    /// fault): the card says `streaming: false` and streaming operations get
    /// UnsupportedOperationError.
    pub no_streaming: bool,
    /// Delay every response of every binding by this many milliseconds (0 = none), to
    /// benchmark a slow agent.
    pub delay_ms: u64,
    /// Spend this many microseconds of CPU on every request, one request at a time (0 =
    /// none): the work of a single-threaded agent, to benchmark a client against an agent
    /// whose CPU is the bottleneck.
    pub work_us: u64,
    /// Declare and deliver push notifications (`capabilities.pushNotifications: true`); off,
    /// the push-config operations answer PushNotificationNotSupportedError.
    pub push: bool,
    /// Call webhooks on any host, not only on loopback (127.0.0.0/8, ::1, localhost).
    pub push_allow_any_host: bool,
    /// Authenticated mode: every operation needs `Authorization: Bearer <token>` with one of
    /// these tokens, each one principal with tasks of its own; the card declares the bearer
    /// scheme and an extended card (empty = open, the default).
    pub bearer_tokens: Vec<String>,
    /// In authenticated mode, tokens of a *limited* principal (`--limited-token`): they
    /// authenticate, but the principal may do nothing. Every operation it asks for, the
    /// extended card included, is refused with an authorization error (HTTP 403, gRPC
    /// PERMISSION_DENIED; spec 1.0 §3.3.2). Ignored when `bearer_tokens` is empty.
    pub limited_tokens: Vec<String>,
    /// Declare one extension with `required: true` ([`crate::extensions::REQUIRED_EXTENSION`]) and
    /// refuse 1.0 requests that do not activate it (`--required-extension`).
    pub required_extension: bool,
    /// Serve every binding over TLS with a certificate made at start (`--tls`).
    pub tls: bool,
    /// Where tasks are kept: in memory (default) or in a SQLite file that survives a restart.
    pub store: StoreKind,
}

impl AgentConfig {
    /// A configuration with the given faults.
    pub fn with_faults(faults: impl IntoIterator<Item = Fault>) -> Self {
        AgentConfig {
            faults: faults.into_iter().collect(),
            ..AgentConfig::default()
        }
    }

    /// Adds one fault.
    pub fn with_fault(mut self, fault: Fault) -> Self {
        self.faults.insert(fault);
        self
    }

    /// The ACTS "reduced" configuration ([`ACTS_REDUCED_CAPABILITIES`]): no streaming and no
    /// push notifications, whatever else asked for them. This agent declares an extended card
    /// only in authenticated mode, which [`AgentConfig::acts_auth`] turns on; the two do not
    /// go together.
    pub fn acts_reduced(&mut self) {
        self.no_streaming = true;
        self.push = false;
        self.push_allow_any_host = false;
    }

    /// The ACTS "auth" configuration ([`ACTS_AUTH`]): authenticated mode with
    /// [`ACTS_VALID_TOKEN`] as the first (full) principal and [`ACTS_INSUFFICIENT_TOKEN`] as
    /// a limited one, besides any tokens already given.
    pub fn acts_auth(&mut self) {
        self.bearer_tokens.retain(|t| t != ACTS_VALID_TOKEN);
        self.bearer_tokens.insert(0, ACTS_VALID_TOKEN.to_string());
        if !self
            .limited_tokens
            .iter()
            .any(|t| t == ACTS_INSUFFICIENT_TOKEN)
        {
            self.limited_tokens
                .push(ACTS_INSUFFICIENT_TOKEN.to_string());
        }
    }

    /// Whether `fault` is active.
    pub fn has(&self, fault: Fault) -> bool {
        self.faults.contains(&fault)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_switch_is_on_unless_unset_empty_zero_or_false() {
        for on in ["1", "true", "yes", "on", " 1 "] {
            assert!(switched_on(Some(on)), "{on:?}");
        }
        for off in [
            None,
            Some(""),
            Some(" "),
            Some("0"),
            Some("false"),
            Some("FALSE"),
        ] {
            assert!(!switched_on(off), "{off:?}");
        }
    }

    #[test]
    fn the_auth_configuration_puts_the_valid_token_first_once() {
        let mut config = AgentConfig {
            bearer_tokens: vec!["mine".into(), ACTS_VALID_TOKEN.into()],
            ..AgentConfig::default()
        };
        config.acts_auth();
        config.acts_auth();
        assert_eq!(config.bearer_tokens, [ACTS_VALID_TOKEN, "mine"]);
        assert_eq!(config.limited_tokens, [ACTS_INSUFFICIENT_TOKEN]);
    }

    #[test]
    fn the_reduced_configuration_overrides_push_and_streaming() {
        let mut config = AgentConfig {
            push: true,
            push_allow_any_host: true,
            ..AgentConfig::default()
        };
        config.acts_reduced();
        assert!(config.no_streaming && !config.push && !config.push_allow_any_host);
    }
}

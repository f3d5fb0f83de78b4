//! How the agent is configured: its faults and profile, and the paths it serves.

use std::collections::BTreeSet;

use crate::fault::Fault;
use crate::store_kind::StoreKind;

/// Path of the JSON-RPC endpoint.
pub const JSONRPC_PATH: &str = "/a2a/jsonrpc";

/// Path of the HTTP+JSON/REST interface (routes are relative to it).
pub const REST_PATH: &str = "/a2a/rest";

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

    /// Whether `fault` is active.
    pub fn has(&self, fault: Fault) -> bool {
        self.faults.contains(&fault)
    }
}

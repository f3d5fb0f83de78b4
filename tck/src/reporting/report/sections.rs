//! The report's sections made beside the results: the compatibility figure, what the card
//! declares that the run did not test, and the restart of the durability area.

use std::collections::BTreeMap;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::suite::check::Level;

/// The compatibility summary of a run.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Compatibility {
    /// Requirements by the strongest level of the checks that cite them.
    pub levels: BTreeMap<Level, LevelCount>,
    /// Satisfied requirements over applicable ones, all levels, in percent (one decimal);
    /// absent when no requirement applied. Unjudged requirements count as not satisfied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub percent: Option<f64>,
    /// Where the results come from: `card`, `jsonrpc 1.0`, ...
    pub tested_on: Vec<String>,
    /// The summary in one quotable line.
    pub line: String,
}

/// The requirements of one level, by outcome.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct LevelCount {
    /// Passed on every interface (and the card) where a check of it applied.
    pub satisfied: usize,
    /// Broken somewhere: a check of it is FAIL or WARN on at least one interface.
    pub violated: usize,
    /// Not broken, but not shown either: some check of it is ERROR or UNTESTABLE.
    pub unjudged: usize,
    /// Every check of it is N/A (a capability the card does not declare).
    pub not_applicable: usize,
}

/// Something the card declares that the run did not test.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct UntestedDeclaration {
    /// What the card declares, e.g. `pushNotifications` or `securitySchemes`.
    pub what: String,
    /// Why no check tested it.
    pub why: String,
}

/// An operation the agent refused on one interface wherever the kit called it (it never
/// answered it with success in the run): one cause, reported once, with the results it
/// stopped. Operations the card does not declare (streaming, push notifications, the extended
/// card without their capability) are not listed: their refusal is the answer the spec asks
/// for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RefusedOperation {
    /// The operation as the wire names it (`ListTasks`, `tasks/get` on 0.3 JSON-RPC).
    pub operation: String,
    /// The binding of the interface that refused it.
    pub binding: crate::suite::check::Binding,
    /// The protocol version of that interface.
    pub version: crate::suite::check::ProtocolVersion,
    /// How it was refused: UnsupportedOperationError, method not found, no such route, gRPC
    /// UNIMPLEMENTED, with the binding's code or status.
    pub answer: String,
    /// The sentence (registry id) that obliges this agent to offer the operation, when one
    /// with an RFC 2119 keyword does: the results it stopped keep their FAIL. Absent when
    /// none does: a result that stopped at the refusal is UNTESTABLE, not FAIL or WARN.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub required_by: Option<String>,
    /// The checks whose results on this interface met the refusal and did not pass, in
    /// catalogue order.
    pub results: Vec<String>,
}

/// What the report says of the restart (its results are the `durability.*` ones).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DurabilityReport {
    /// How the target was restarted (`--restart-cmd ...`, or the built-in agent in-process).
    pub restart: String,
    /// Whether the target was restarted and its card answered again in time.
    pub restarted: bool,
    /// What happened: how long the agent took to come back, or why it did not.
    pub message: String,
    /// Milliseconds from the restart to the card answering again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub ready_ms: Option<u64>,
}

/// What a report judges: an agent (`a2a-tck`, the default) or a client (`a2a-tck client`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum Mode {
    /// An agent, through its card and interfaces.
    Server,
    /// A client, run through its adapter against the kit's scripted agent.
    Client,
}

/// The client a client-mode report judges, as its adapter describes it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ClientUnderTest {
    /// The client's name, as the adapter gives it.
    pub name: String,
    /// Its version.
    pub version: String,
    /// The command that runs the adapter, or `builtin` for the kit's reference client.
    pub command: String,
    /// The bindings it declares.
    pub bindings: Vec<crate::facts::model::Binding>,
    /// The protocol versions it declares.
    pub versions: Vec<crate::facts::model::ProtocolVersion>,
    /// The optional features its adapter drives (`streaming`, `push`, `extended-card`, ...).
    pub features: Vec<String>,
    /// The calls its API offers (`send`, `stream`, `get`, `cancel`, `subscribe`, `push`,
    /// `extended_card`), when its adapter declares them; absent means every call. A step of a
    /// call it lacks is not asked of it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub operations: Option<Vec<String>>,
}

/// One other configuration of the agent a run tested (`--configuration NAME=URL`, `--plan`),
/// and what the report took from it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ConfigurationRun {
    /// Its name (`reduced`, `auth`, ...), which the results taken from it carry.
    pub name: String,
    /// The base URL of the agent started in this configuration.
    pub target: String,
    /// The URL its card was read from.
    pub card_url: String,
    /// SHA-256 of its card as served, `sha256:<hex>`; empty when no usable card was read.
    pub card_sha256: String,
    /// The capabilities its card declares true (`streaming`, `pushNotifications`,
    /// `extendedAgentCard`) and the security schemes it names (`security:bearer`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub declares: Vec<String>,
    /// The checks run in it: those with a result N/A or UNTESTABLE in the default
    /// configuration.
    pub checks_run: usize,
    /// Results of the report judged in this configuration (PASS, WARN or FAIL there, N/A or
    /// UNTESTABLE in the default one).
    pub results_taken: usize,
    /// The verdict of its own run, over the checks run in it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<super::Verdict>,
    /// Why it could not be tested (its card unusable, ...); the run is then `inconclusive`
    /// at best.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<String>,
}

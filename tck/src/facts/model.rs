//! The words every layer shares: which binding and protocol version an interface speaks, what
//! a check finds ([`Verdict`]) and why the kit could not find anything ([`HarnessError`]).
//! Checks, the judge, the transports and the runner all use these; this module uses none of
//! them.

use std::fmt;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A protocol binding, as named in `AgentInterface.protocolBinding`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Binding {
    Jsonrpc,
    Rest,
    Grpc,
}

impl Binding {
    pub fn as_str(self) -> &'static str {
        match self {
            Binding::Jsonrpc => "jsonrpc",
            Binding::Rest => "rest",
            Binding::Grpc => "grpc",
        }
    }

    /// The binding's name in prose.
    pub fn title(self) -> &'static str {
        match self {
            Binding::Jsonrpc => "JSON-RPC",
            Binding::Rest => "HTTP+JSON",
            Binding::Grpc => "gRPC",
        }
    }

    /// The binding named by a card's `protocolBinding` value (case-insensitive).
    pub fn from_card(value: &str) -> Option<Binding> {
        match value.to_ascii_uppercase().as_str() {
            "JSONRPC" => Some(Binding::Jsonrpc),
            "HTTP+JSON" => Some(Binding::Rest),
            "GRPC" => Some(Binding::Grpc),
            _ => None,
        }
    }
}

impl fmt::Display for Binding {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A protocol version the kit knows how to test.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum ProtocolVersion {
    #[serde(rename = "1.0")]
    V1_0,
    #[serde(rename = "0.3")]
    V0_3,
}

impl ProtocolVersion {
    pub fn as_str(self) -> &'static str {
        match self {
            ProtocolVersion::V1_0 => "1.0",
            ProtocolVersion::V0_3 => "0.3",
        }
    }

    /// Parses a `Major.Minor[.Patch]` value; the patch number is ignored (spec 1.0 §3.6).
    pub fn from_declared(value: &str) -> Option<ProtocolVersion> {
        let mut parts = value.trim().split('.');
        let major = parts.next()?;
        let minor = parts.next()?;
        match (major, minor) {
            ("1", "0") => Some(ProtocolVersion::V1_0),
            ("0", "3") => Some(ProtocolVersion::V0_3),
            _ => None,
        }
    }
}

impl fmt::Display for ProtocolVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The author's finding.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Verdict {
    /// The target does what the sentence asks.
    Satisfied { detail: Option<String> },
    /// The target broke the sentence. `expected` is empty where `actual` says the whole of it
    /// in one sentence ([`Verdict::broken`]).
    Violated { expected: String, actual: String },
    /// The sentence does not apply to this target (e.g. a capability it does not declare).
    NotApplicable { reason: String },
    /// The target's answer is not the one the current text asks for, but a careful reader
    /// can defend it: it follows superseded text (1.0.0 where 1.0.1 changed it) or one side
    /// of a sentence the spec contradicts, or it misses only a SHOULD-strength side of a MUST
    /// sentence. WARN at every level, never FAIL, never PASS; `why` names the text the answer
    /// follows.
    Tolerated {
        expected: String,
        actual: String,
        why: String,
    },
}

impl Verdict {
    pub fn pass() -> Verdict {
        Verdict::Satisfied { detail: None }
    }

    pub fn pass_with(detail: impl Into<String>) -> Verdict {
        Verdict::Satisfied {
            detail: Some(detail.into()),
        }
    }

    pub fn fail(expected: impl Into<String>, actual: impl Into<String>) -> Verdict {
        Verdict::Violated {
            expected: expected.into(),
            actual: actual.into(),
        }
    }

    /// A violation said in one sentence, what was seen against what the rule asks (the
    /// client checks' judges find this way): its message is `why` alone.
    pub fn broken(why: impl Into<String>) -> Verdict {
        Verdict::Violated {
            expected: String::new(),
            actual: why.into(),
        }
    }

    /// A defensible answer that follows superseded or contested text (see
    /// [`Verdict::Tolerated`]).
    pub fn tolerate(
        expected: impl Into<String>,
        actual: impl Into<String>,
        why: impl Into<String>,
    ) -> Verdict {
        Verdict::Tolerated {
            expected: expected.into(),
            actual: actual.into(),
            why: why.into(),
        }
    }

    /// The verdict where the sentence is only a recommendation (the other version of the
    /// spec makes it a SHOULD): a violation is tolerated (WARN), naming `why`.
    pub fn only_recommended(self, why: &str) -> Verdict {
        match self {
            Verdict::Violated { expected, actual } => Verdict::tolerate(expected, actual, why),
            other => other,
        }
    }

    /// The result message a person reads for this verdict.
    pub fn message(&self) -> String {
        match self {
            Verdict::Satisfied { detail } => detail.clone().unwrap_or_else(|| "satisfied".into()),
            Verdict::Violated { expected, actual } if expected.is_empty() => actual.clone(),
            Verdict::Violated { expected, actual } => format!("expected {expected}; got {actual}"),
            Verdict::NotApplicable { reason } => reason.clone(),
            Verdict::Tolerated {
                expected,
                actual,
                why,
            } => format!("expected {expected}; got {actual}; tolerated, not failed: {why}"),
        }
    }
}

/// Why the kit could not reach a verdict.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum HarnessError {
    /// The request could not be completed: connection refused, reset, DNS, TLS; in client
    /// mode, the client's adapter could not be run to its end.
    #[error("transport error: {0}")]
    Transport(String),
    /// A request or the check itself ran past its deadline.
    #[error("deadline passed: {0}")]
    Deadline(String),
    /// The answer could not be parsed well enough to judge it.
    #[error("malformed answer: {0}")]
    Malformed(String),
    /// The target did not produce the state the check needs (a setup step failed).
    #[error("could not provoke the state under test: {0}")]
    Prerequisite(String),
    /// A bug of the kit itself.
    #[error("internal error of the kit: {0}")]
    Internal(String),
}

/// The agent a check needs beyond what its card declares: how the kit's own suites serve it,
/// and, for [`Profile::Restart`], when the runner runs it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Profile {
    /// Any agent its card describes.
    Any,
    /// An agent serving over TLS (`https`).
    Tls,
    /// An agent that requires credentials, with a second principal and a limited one.
    Authenticated,
    /// An agent the run restarts in the middle (the durability area, run only when asked).
    Restart,
}

/// What a check needs of the agent and what it costs, beside the card's capabilities
/// (`Check::requires`): everything the runner and the tests need to know about it besides
/// its code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Needs {
    /// The scenarios beyond the plain message it may send: what it needs the agent to play.
    /// The runner holds it to them (sending another is an ERROR of the kit); with
    /// `--contract none` a check that lists any is not run.
    pub scenarios: &'static [&'static str],
    /// Scenarios it sends only when the contract gives them, beside plain messages it judges
    /// anyway: declared, never a reason not to run it.
    pub optional: &'static [&'static str],
    /// The estimated length of its chain of sequential exchanges, counted on a run against
    /// the reference agent: the runner starts the longest chains first, and its deadline
    /// grows with it.
    pub weight: u32,
    /// Exchanges it makes in a batch besides its chain, as many at once as the run's pace
    /// allows (`Ctx::at_pace`): its deadline counts them one after another, as they go when
    /// the check runs alone.
    pub batch: u32,
    /// The agent it needs.
    pub profile: Profile,
    /// It judges the traffic of the whole run on its interface (every message's wire shape,
    /// every webhook's calls), so it runs after every other check there and is never run again
    /// alone.
    pub judges_the_run: bool,
    /// The run's wire-shape audit judges its messages. Off for a check that sends a
    /// deliberately invalid message an agent may defensibly process: the agent then owes the
    /// message back in the task's history, invalid as it was sent, and judging that echo
    /// would turn the check's WARN into a wire-shape failure.
    pub audited: bool,
}

impl Needs {
    /// No scenario, one exchange at a time, any agent.
    pub const NONE: Needs = Needs {
        scenarios: &[],
        optional: &[],
        weight: 1,
        batch: 0,
        profile: Profile::Any,
        judges_the_run: false,
        audited: true,
    };

    /// These scenarios (see [`Needs::scenarios`]).
    pub const fn sends(self, scenarios: &'static [&'static str]) -> Needs {
        Needs { scenarios, ..self }
    }

    /// These scenarios when the contract gives them (see [`Needs::optional`]).
    pub const fn may_send(self, optional: &'static [&'static str]) -> Needs {
        Needs { optional, ..self }
    }

    /// A chain of `weight` sequential exchanges.
    pub const fn weighs(self, weight: u32) -> Needs {
        Needs { weight, ..self }
    }

    /// A batch of `batch` exchanges besides its chain (see [`Needs::batch`]).
    pub const fn batches(self, batch: u32) -> Needs {
        Needs { batch, ..self }
    }

    /// On an agent of this profile.
    pub const fn on(self, profile: Profile) -> Needs {
        Needs { profile, ..self }
    }

    /// Judging the whole run's traffic (see [`Needs::judges_the_run`]).
    pub const fn after_the_rest(self) -> Needs {
        Needs {
            judges_the_run: true,
            ..self
        }
    }

    /// Left out of the wire-shape audit (see [`Needs::audited`]).
    pub const fn unaudited(self) -> Needs {
        Needs {
            audited: false,
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn versions_ignore_patch_numbers() {
        assert_eq!(
            ProtocolVersion::from_declared("1.0"),
            Some(ProtocolVersion::V1_0)
        );
        assert_eq!(
            ProtocolVersion::from_declared("1.0.7"),
            Some(ProtocolVersion::V1_0)
        );
        assert_eq!(ProtocolVersion::from_declared("1"), None);
        assert_eq!(
            ProtocolVersion::from_declared("0.3.0"),
            Some(ProtocolVersion::V0_3)
        );
        assert_eq!(ProtocolVersion::from_declared("0.2"), None);
        assert_eq!(Binding::from_card("jsonrpc"), Some(Binding::Jsonrpc));
        assert_eq!(Binding::from_card("HTTP+JSON"), Some(Binding::Rest));
    }
}

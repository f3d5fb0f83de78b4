//! The check model: a check is data (id, level, spec reference, applicability) plus what it
//! runs. The author returns a [`Verdict`]; the runner turns level x verdict into a [`Status`].
//! A check of an agent runs an async function on the agent ([`AgentRun`]); a check of a client
//! (`a2a-tck client`) has the same form, its scope a play ([`Scope::Play`]) and its run a judge
//! over what the play showed (`client::checks::Judge`).

use std::fmt;

use futures::future::BoxFuture;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

pub use crate::facts::model::{Binding, HarnessError, Needs, Profile, ProtocolVersion, Verdict};
use crate::suite::ctx::Ctx;

/// The RFC 2119 keyword of the sentence a check tests.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "UPPERCASE")]
pub enum Level {
    Must,
    Should,
    May,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Must, Level::Should, Level::May];

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Must => "MUST",
            Level::Should => "SHOULD",
            Level::May => "MAY",
        }
    }
}

impl fmt::Display for Level {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}
/// An optional capability an agent declares in `AgentCard.capabilities`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Capability {
    Streaming,
    PushNotifications,
    ExtendedAgentCard,
}

impl Capability {
    /// The field of `AgentCard.capabilities` that declares it.
    pub fn card_field(self) -> &'static str {
        match self {
            Capability::Streaming => "streaming",
            Capability::PushNotifications => "pushNotifications",
            Capability::ExtendedAgentCard => "extendedAgentCard",
        }
    }
}

/// A condition on the card for a check to apply; when it does not hold the result is N/A.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Gate {
    /// The card declares the capability (`capabilities.<field>: true`).
    Declares(Capability),
    /// The card does not declare it (false or absent): for "unsupported" error rules.
    Lacks(Capability),
}

impl fmt::Display for Gate {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Gate::Declares(c) => write!(f, "the card declares capabilities.{}", c.card_field()),
            Gate::Lacks(c) => write!(
                f,
                "the card does not declare capabilities.{}",
                c.card_field()
            ),
        }
    }
}

/// Where a check applies.
#[derive(Debug, Clone, Copy)]
pub enum Scope {
    /// Once per run, against the agent card itself.
    Card,
    /// Once per declared interface whose binding and version are listed.
    Interface {
        bindings: &'static [Binding],
        versions: &'static [ProtocolVersion],
    },
    /// A check of a client (`a2a-tck client`): once per run of the play with this id (in
    /// `fixtures/client-plays.json`) on every binding the client declares, at each of these
    /// versions the play runs on.
    Play {
        play: &'static str,
        versions: &'static [ProtocolVersion],
    },
}

impl Scope {
    /// Whether it is a check of a client.
    pub fn is_play(&self) -> bool {
        matches!(self, Scope::Play { .. })
    }
}

/// The sentence a check tests: the spec version and section (sections are data: A2A
/// renumbers between releases) and the ids of that sentence in our catalogue of normative
/// statements (`V10-...`).
#[derive(Debug, Clone, Copy)]
pub struct SpecRef {
    pub version: &'static str,
    pub section: &'static str,
    pub statements: &'static [&'static str],
}

/// What a check returns to the runner.
pub type CheckFuture = BoxFuture<'static, Result<Verdict, HarnessError>>;

/// What a check of an agent runs: the exchanges with the agent, judged.
pub type AgentRun = fn(Ctx) -> CheckFuture;

/// One conformance check: of an agent (`Run` = [`AgentRun`], the default) or of a client (its
/// run a judge over what a play showed, `client::checks::Judge`). Both return the same
/// `Result<Verdict, HarnessError>`, which [`Status::of`] maps.
pub struct Check<Run = AgentRun> {
    /// Stable kebab slug by topic, never a position.
    pub id: &'static str,
    pub level: Level,
    pub spec: SpecRef,
    /// The sentence, shortened, in our words.
    pub requirement: &'static str,
    pub scope: Scope,
    /// Conditions on the card's capabilities for the check to apply.
    pub requires: &'static [Gate],
    /// Official A2A TCK requirement ids this check corresponds to.
    pub maps_to: &'static [&'static str],
    /// Ids of the tests of ACTS, the declarative A2A Conformance Test Specification (e.g.
    /// "CORE-SEND-001"), that this check covers, wholly or partly. ACTS reuses official TCK id
    /// strings with other meanings, so these are decided from what each ACTS test sends and
    /// expects, never from `maps_to`. Every id is listed in `fixtures/acts-tests.json`.
    pub acts: &'static [&'static str],
    /// Where the spec is ambiguous: the reading this check takes, shown beside its result.
    pub reading: Option<&'static str>,
    /// The scenarios it sends, its weight and the agent it needs.
    pub needs: Needs,
    pub run: Run,
}

impl<Run> fmt::Debug for Check<Run> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Check")
            .field("id", &self.id)
            .field("level", &self.level)
            .finish_non_exhaustive()
    }
}
/// The status of one result in the report.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
pub enum Status {
    /// The target satisfies the sentence.
    #[serde(rename = "PASS")]
    Pass,
    /// A MUST sentence is violated.
    #[serde(rename = "FAIL")]
    Fail,
    /// A SHOULD (or MAY) sentence is not followed.
    #[serde(rename = "WARN")]
    Warn,
    /// The sentence does not apply (capability not declared).
    #[serde(rename = "N/A")]
    NotApplicable,
    /// The target did not produce the state the check needs; counted against it, never a pass.
    #[serde(rename = "UNTESTABLE")]
    Untestable,
    /// The kit could not tell (connection refused, deadline passed, unparseable answer).
    #[serde(rename = "ERROR")]
    Error,
}

impl Status {
    pub const ALL: [Status; 6] = [
        Status::Pass,
        Status::Fail,
        Status::Warn,
        Status::NotApplicable,
        Status::Untestable,
        Status::Error,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Fail => "FAIL",
            Status::Warn => "WARN",
            Status::NotApplicable => "N/A",
            Status::Untestable => "UNTESTABLE",
            Status::Error => "ERROR",
        }
    }

    /// Level x outcome -> status. This is the only place that mapping lives.
    pub fn of(level: Level, outcome: &Result<Verdict, HarnessError>) -> Status {
        match outcome {
            Ok(Verdict::Satisfied { .. }) => Status::Pass,
            Ok(Verdict::Violated { .. }) => match level {
                Level::Must => Status::Fail,
                Level::Should | Level::May => Status::Warn,
            },
            Ok(Verdict::NotApplicable { .. }) => Status::NotApplicable,
            // Never FAIL (the answer is defensible) and never PASS (it is not the current
            // text's): WARN, which does not fail the verdict (see report::Verdict::of).
            Ok(Verdict::Tolerated { .. }) => Status::Warn,
            Err(HarnessError::Prerequisite(_)) => Status::Untestable,
            Err(_) => Status::Error,
        }
    }
}

impl fmt::Display for Status {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn level_and_verdict_map_to_status() {
        let violated = Ok(Verdict::fail("a", "b"));
        assert_eq!(Status::of(Level::Must, &violated), Status::Fail);
        assert_eq!(Status::of(Level::Should, &violated), Status::Warn);
        assert_eq!(Status::of(Level::May, &violated), Status::Warn);
        assert_eq!(Status::of(Level::Must, &Ok(Verdict::pass())), Status::Pass);
        let na = Ok(Verdict::NotApplicable { reason: "x".into() });
        assert_eq!(Status::of(Level::Must, &na), Status::NotApplicable);
        let prereq = Err(HarnessError::Prerequisite("x".into()));
        assert_eq!(Status::of(Level::Must, &prereq), Status::Untestable);
        let tolerated = Ok(Verdict::tolerate("a", "b", "superseded 1.0.0 text"));
        for level in Level::ALL {
            assert_eq!(Status::of(level, &tolerated), Status::Warn);
        }
        let dead = Err(HarnessError::Transport("refused".into()));
        assert_eq!(Status::of(Level::Should, &dead), Status::Error);
    }
}

//! Which scenario contract the agent honours, and how its scenarios are carried: the official
//! TCK's messageId prefix table (with or without the kit's own extra scenarios), the ACTS
//! contract (the prefix at the start of the first text part, follow-ups as plain text), or
//! none. A probe, run once per run on one interface, finds out from what the agent is seen to
//! do; `--contract` may state it instead. Checks name scenarios by the kit's own names and
//! consult the outcome through their context, which sends each name the way the contract
//! carries it, so a scenario the agent does not honour is treated the same on every binding.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::facts::behaviors::Undeclared;
use crate::suite::card_drive::CardDriven;

mod scenarios;
pub use scenarios::Scenarios;

/// A scenario contract.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Contract {
    /// The official TCK's prefix table only.
    Official,
    /// The official table and the kit's own scenarios.
    Kit,
    /// The ACTS contract (A2A Conformance Test Specification §11): the prefix starts the
    /// first text part, follow-ups are plain text.
    Acts,
    /// No scenario at all: the agent answers every message its own way.
    None,
    /// A drive file (`--drive`) says which message brings the agent into each state.
    Drive,
}

impl Contract {
    pub fn as_str(self) -> &'static str {
        match self {
            Contract::Official => "official",
            Contract::Kit => "kit",
            Contract::Acts => "acts",
            Contract::None => "none",
            Contract::Drive => "drive",
        }
    }

    /// Where this contract carries a scenario's prefix.
    pub fn carrier(self) -> Carrier {
        match self {
            Contract::Acts => Carrier::FirstText,
            Contract::Drive => Carrier::DriveFile,
            _ => Carrier::MessageId,
        }
    }
}

/// Where a scenario's prefix travels in a message.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "camelCase")]
pub enum Carrier {
    /// `message.messageId` starts with the prefix (official TCK, the kit); every follow-up
    /// carries a prefix of its own.
    MessageId,
    /// The text of the first part starts with the prefix (ACTS §11); the messageId is
    /// ignored, and follow-ups are plain text (`done` ends a multi-turn task).
    FirstText,
    /// The messages of a drive file, values taken from the agent's own answers.
    DriveFile,
}

impl Carrier {
    pub fn as_str(self) -> &'static str {
        match self {
            Carrier::MessageId => "messageId",
            Carrier::FirstText => "first text part",
            Carrier::DriveFile => "drive file",
        }
    }
}

/// The kit's scenario names with their ACTS counterparts (ACTS §11.2, and `tck-auth-required`
/// as the SDKs' ACTS agents play it). The kit's held `tck-long-running` (WORKING until a
/// follow-up or a cancel) is ACTS's `tck-cancel`: ACTS's own `tck-long-running` completes by
/// itself after a delay, and the kit never sends it. Its input-required task, which a
/// follow-up completes, is ACTS's `tck-multi-turn` (ended by a turn saying `done`). Names
/// without a counterpart (`tck-stream-002`, `tck-stream-artifact-file`) are sent the
/// messageId way under ACTS too.
pub const ACTS_NAMES: &[(&str, &str)] = &[
    (PLAIN, "tck-complete-task"),
    ("tck-input-required", "tck-multi-turn"),
    ("tck-artifact-text", "tck-artifact-text"),
    ("tck-artifact-file", "tck-artifact-file"),
    ("tck-artifact-file-url", "tck-artifact-file-url"),
    ("tck-artifact-data", "tck-artifact-data"),
    ("tck-message-response", "tck-message-response"),
    ("tck-reject-task", "tck-reject-task"),
    ("tck-stream-001", "tck-stream-basic"),
    ("tck-stream-003", "tck-stream-basic"),
    ("tck-stream-ordering-001", "tck-stream-basic"),
    ("tck-stream-artifact-text", "tck-stream-basic"),
    ("tck-stream-artifact-chunked", "tck-stream-chunked"),
    ("tck-long-running", "tck-cancel"),
    ("tck-fail-task", "tck-task-failure"),
    ("tck-auth-required", "tck-auth-required"),
];

/// The ACTS prefix of the kit's scenario `name`, if ACTS has one.
pub fn acts_name(name: &str) -> Option<&'static str> {
    ACTS_NAMES.iter().find(|(k, _)| *k == name).map(|(_, a)| *a)
}

/// What every refusal of an undeclared scenario says (see [`Scenarios::refusal`]): the
/// `--undeclared fail` rule fails only a check stopped by such a refusal.
pub const UNDECLARED_WORDS: &str = "the SUT behaviours file";

/// The ACTS follow-up that ends a multi-turn task.
pub const ACTS_DONE: &str = "done";
/// An ACTS follow-up that keeps a multi-turn task asking for input.
pub const ACTS_MORE: &str = "here is more input";

/// The messageId prefix of a plain message: the default every agent answers its own way (a
/// task or a message). It needs no scenario.
pub const PLAIN: &str = "tck-complete-task";

/// The prefixes of the official TCK's scenario table, [`PLAIN`] included.
pub const OFFICIAL: &[&str] = &[
    PLAIN,
    "tck-input-required",
    "tck-artifact-text",
    "tck-artifact-file",
    "tck-artifact-file-url",
    "tck-artifact-data",
    "tck-message-response",
    "tck-reject-task",
    "tck-stream-001",
    "tck-stream-002",
    "tck-stream-003",
    "tck-stream-ordering-001",
    "tck-stream-artifact-text",
    "tck-stream-artifact-file",
    "tck-stream-artifact-chunked",
];

/// The kit's own scenarios, beyond the official table, with the state each one gives a task
/// (the task is sent with `returnImmediately`, and `tck-long-running` must still be WORKING
/// when read back).
pub const KIT_ONLY: &[(&str, &str)] = &[
    ("tck-long-running", "TASK_STATE_WORKING"),
    ("tck-fail-task", "TASK_STATE_FAILED"),
    ("tck-auth-required", "TASK_STATE_AUTH_REQUIRED"),
];

/// Whether `prefix` names a scenario (official or the kit's own) other than the plain message.
pub fn is_scenario(prefix: &str) -> bool {
    prefix != PLAIN && (OFFICIAL.contains(&prefix) || is_kit_only(prefix))
}

pub fn is_kit_only(prefix: &str) -> bool {
    KIT_ONLY.iter().any(|(p, _)| *p == prefix)
}

/// The contract of a run, as recorded in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct ContractReport {
    /// Given with `--contract`; absent when the probe decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub requested: Option<Contract>,
    /// What the probe found; absent when no probe ran (a contract given with `--contract`
    /// is taken as said, and a run without a usable interface has nothing to probe).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detected: Option<Contract>,
    /// The contract the checks used: the requested one, else the detected one, but never
    /// `none` unless requested (a probe that saw no scenario played still leaves the official
    /// table in use, so checks say UNTESTABLE rather than go unrun).
    pub used: Contract,
    /// Where the checks carried each scenario's prefix: `messageId` (official, kit) or
    /// `firstText` (ACTS).
    pub carrier: Carrier,
    /// The kit's own scenarios the checks used (those the probe showed honoured, or all of
    /// them with `--contract kit` or `--contract acts`), by the kit's names.
    pub kit_scenarios: Vec<String>,
    /// The scenarios the probe saw honoured, each as `carrier: name` (the name as sent):
    /// the state reached, a held state seen held again at a later read, and the kit's
    /// release (a follow-up or a cancel) seen to move it. Empty when no probe ran.
    #[serde(default)]
    pub honoured: Vec<String>,
    /// What the probe sent and what came back, one line per scenario.
    pub evidence: Vec<String>,
    /// The SDK's ACTS behaviour file given with `--sut-behaviors`, which is then the contract
    /// (no probe); absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sut_behaviors: Option<DeclaredBehaviors>,
    /// The message taken from the agent's card: with no contract given and no drive file,
    /// an agent that plays no scenario contract (`--contract none`, or none detected) is sent
    /// a skill's example, or a data part when its input modes take JSON only, in place of
    /// the kit's own text. Absent when the kit's own text was sent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_driven: Option<CardDriven>,
}

/// An ACTS behaviour file as a run used it (`--sut-behaviors`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct DeclaredBehaviors {
    /// The file's path, as given.
    pub file: String,
    /// SHA-256 of the file's bytes, `sha256:<hex>`.
    pub sha256: String,
    /// The file's `acts_version`.
    pub acts_version: String,
    /// The ACTS prefixes the file declares, sorted.
    pub declared: Vec<String>,
    /// The kit's scenarios the run used, each as `kit name = ACTS prefix`.
    pub used: Vec<String>,
    /// The kit's scenarios the file leaves undeclared (by the kit's names), which the kit
    /// never sent: a check that needs one of them is UNTESTABLE, or FAIL with
    /// `--undeclared fail`.
    pub undeclared: Vec<String>,
    /// What a check that needs an undeclared scenario got: `untestable` (the default) or
    /// `fail` (`--undeclared fail`, the ACTS runner's rule).
    pub undeclared_rule: Undeclared,
}

/// The words for a kit-only scenario the probe found unplayed.
pub fn not_honoured(prefix: &str) -> String {
    format!("the agent does not honour the kit's scenario `{prefix}` (the contract probe did not see it played)")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;

    use super::*;
    use crate::facts::a2a;

    #[test]
    fn the_tables_cover_the_scenario_fixture() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../../../fixtures/scenarios.json"))
                .expect("JSON");
        let mut in_fixture: Vec<&str> = a2a::items(&fixture, "scenarios")
            .filter_map(|s| a2a::text(s, "prefix"))
            .collect();
        let mut known: Vec<&str> = OFFICIAL
            .iter()
            .copied()
            .chain(KIT_ONLY.iter().map(|(p, _)| *p))
            .collect();
        in_fixture.sort_unstable();
        known.sort_unstable();
        assert_eq!(
            in_fixture, known,
            "a scenario is neither official nor kit-only"
        );
    }

    #[test]
    fn a_contract_decides_what_may_be_sent() {
        let none = Scenarios::new(Contract::None, false, BTreeSet::new());
        assert!(none.honours(PLAIN) && none.honours("tck-no-such-task"));
        assert!(!none.honours("tck-input-required") && !none.honours("tck-fail-task"));
        let official = Scenarios::new(Contract::Official, true, BTreeSet::new());
        assert!(official.honours("tck-input-required"));
        assert!(official
            .refusal("tck-fail-task")
            .is_some_and(|w| w.contains("`official`")));
        let probed = Scenarios::new(Contract::Official, false, ["tck-fail-task"].into());
        assert!(probed.honours("tck-fail-task"));
        assert!(probed
            .refusal("tck-long-running")
            .is_some_and(|w| w.contains("does not honour")));
        probed.note("tck-input-required");
        probed.note("tck-no-such-task");
        probed.note(PLAIN);
        assert_eq!(probed.fresh().sent().len(), 0);
        assert_eq!(
            probed.sent().into_iter().collect::<Vec<_>>(),
            ["tck-input-required"]
        );
    }
}

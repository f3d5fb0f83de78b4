//! Which scenario contract the agent honours, and how its scenarios are carried: the official
//! TCK's messageId prefix table (with or without the kit's own extra scenarios), the ACTS
//! contract (the prefix at the start of the first text part, follow-ups as plain text), or
//! none. A probe, run once per run on one interface, finds out from what the agent is seen to
//! do; `--contract` may state it instead. Checks name scenarios by the kit's own names and
//! consult the outcome through their context, which sends each name the way the contract
//! carries it, so a scenario the agent does not honour is treated the same on every binding.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;

use serde::{Deserialize, Serialize};

use crate::behaviors::{SutBehaviors, Undeclared};
use crate::card_drive::CardDriven;
use crate::drive::Drive;
use crate::model::{HarnessError, Needs};

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

/// What the checks of a run may ask of the agent; shared by every check context.
#[derive(Debug, Clone)]
pub struct Scenarios {
    used: Contract,
    /// The kit-only scenarios are left out because `--contract official` says so, not
    /// because the probe found them unplayed.
    official_by_request: bool,
    kit: Arc<BTreeSet<&'static str>>,
    /// The scenario prefixes this check has sent (see [`Scenarios::note`]).
    sent: Arc<Mutex<BTreeSet<&'static str>>>,
    /// Under [`Contract::Drive`]: the drive file.
    drive: Option<Arc<Drive>>,
    /// An ACTS behaviour file (`--sut-behaviors`): the contract is ACTS, and only the
    /// scenarios whose ACTS counterpart it declares are sent.
    declared: Option<Arc<SutBehaviors>>,
    /// What a check that needs an undeclared scenario gets.
    undeclared: Undeclared,
    /// The undeclared scenarios this check was refused (see [`Scenarios::refusal`]).
    refused: Arc<Mutex<BTreeSet<String>>>,
    /// The drive file's pointers this check's follow-ups found nothing at (see
    /// [`Scenarios::note_unresolved`]).
    unresolved: Arc<Mutex<Vec<String>>>,
    /// The message taken from the agent's card (see [`crate::card_drive`]), whose parts
    /// every message carried by its messageId carries in place of the kit's own text.
    card: Option<Arc<CardDriven>>,
}

impl Default for Scenarios {
    /// Everything honoured: the reference agent's full table.
    fn default() -> Self {
        Scenarios::new(
            Contract::Kit,
            false,
            KIT_ONLY.iter().map(|(p, _)| *p).collect(),
        )
    }
}

impl Scenarios {
    /// The kit-only scenarios the contract gives, by name.
    pub fn kit_names(&self) -> Vec<String> {
        self.kit.iter().map(|p| p.to_string()).collect()
    }

    pub fn new(
        used: Contract,
        official_by_request: bool,
        kit: BTreeSet<&'static str>,
    ) -> Scenarios {
        Scenarios {
            used,
            official_by_request,
            kit: Arc::new(kit),
            sent: Arc::default(),
            drive: None,
            declared: None,
            undeclared: Undeclared::default(),
            refused: Arc::default(),
            unresolved: Arc::default(),
            card: None,
        }
    }

    /// The same contract, its messages taking their parts from the agent's card.
    pub fn with_card(self, card: CardDriven) -> Scenarios {
        Scenarios {
            card: Some(Arc::new(card)),
            ..self
        }
    }

    /// The message taken from the agent's card, when the run took one.
    pub fn card_driven(&self) -> Option<&CardDriven> {
        self.card.as_deref()
    }

    /// The scenarios an ACTS behaviour file declares (`--sut-behaviors`): carried the ACTS
    /// way, each kit scenario used only when the file declares its ACTS counterpart. The
    /// file's `tck-long-running` is ACTS's timed task (WORKING, then COMPLETED after its
    /// `delay_ms`), never the kit's held one, which is ACTS's `tck-cancel`.
    pub fn declared(file: Arc<SutBehaviors>, undeclared: Undeclared) -> Scenarios {
        let kit = KIT_ONLY
            .iter()
            .map(|(p, _)| *p)
            .filter(|p| acts_name(p).is_some_and(|a| file.declares(a)))
            .collect();
        Scenarios {
            declared: Some(file),
            undeclared,
            ..Scenarios::new(Contract::Acts, false, kit)
        }
    }

    /// The behaviour file, under `--sut-behaviors`.
    pub fn sut_behaviors(&self) -> Option<&SutBehaviors> {
        self.declared.as_deref()
    }

    /// What a check that needs an undeclared scenario gets.
    pub fn undeclared_rule(&self) -> Undeclared {
        self.undeclared
    }

    /// The record of a behaviour file for the report: what it declares, and what the run
    /// used and left out of the kit's scenarios.
    pub fn declared_report(&self) -> Option<DeclaredBehaviors> {
        let file = self.declared.as_ref()?;
        let kit_names = OFFICIAL
            .iter()
            .chain(KIT_ONLY.iter().map(|(p, _)| p))
            .filter(|p| is_scenario(p));
        let (mut used, mut undeclared) = (Vec::new(), Vec::new());
        for name in kit_names {
            match acts_name(name).filter(|a| file.declares(a)) {
                Some(acts) => used.push(format!("{name} = {acts}")),
                None => undeclared.push(name.to_string()),
            }
        }
        Some(DeclaredBehaviors {
            file: file.path.clone(),
            sha256: file.sha256.clone(),
            acts_version: file.acts_version.clone(),
            declared: file.prefixes(),
            used,
            undeclared,
            undeclared_rule: self.undeclared,
        })
    }

    /// Why `needs` cannot be met under a behaviour file: every scenario the check may send
    /// (needed and optional) is undeclared, so the kit sends none and the check does not run
    /// (its result says why).
    /// The words name the ACTS prefixes the file would have to declare.
    pub fn undeclared(&self, needs: &Needs) -> Option<String> {
        self.declared.as_ref()?;
        let wanted: Vec<&str> = needs
            .scenarios
            .iter()
            .chain(needs.optional)
            .copied()
            .filter(|p| is_scenario(p))
            .collect();
        if needs.scenarios.is_empty() || wanted.iter().any(|p| self.honours(p)) {
            return None;
        }
        let words: Vec<String> = wanted.iter().filter_map(|p| self.refusal(p)).collect();
        Some(format!("the kit sent nothing: {}", words.join("; ")))
    }

    /// The undeclared scenarios this check was refused.
    pub fn refused(&self) -> BTreeSet<String> {
        self.refused.lock().expect("not poisoned").clone()
    }

    /// The scenarios a drive file plays.
    pub fn driven(drive: Arc<Drive>) -> Scenarios {
        let kit = KIT_ONLY
            .iter()
            .map(|(p, _)| *p)
            .filter(|p| drive.drives(p))
            .collect();
        Scenarios {
            drive: Some(drive),
            ..Scenarios::new(Contract::Drive, false, kit)
        }
    }

    /// The drive file, under [`Contract::Drive`].
    pub fn drive(&self) -> Option<&Drive> {
        self.drive.as_deref()
    }

    /// The same policy, with a fresh record of sent prefixes (one per check).
    pub fn fresh(&self) -> Scenarios {
        Scenarios {
            sent: Arc::default(),
            refused: Arc::default(),
            unresolved: Arc::default(),
            ..self.clone()
        }
    }

    /// Records that a follow-up of the drive file went out with null where `pointer` found
    /// nothing in the task it answers (`task_id`).
    pub fn note_unresolved(&self, pointer: &str, task_id: &str) {
        self.unresolved.lock().expect("not poisoned").push(format!(
            "the drive file's pointer {pointer:?} found nothing in task {task_id}, so the \
             follow-up carried null in its place"
        ));
    }

    /// Why the check's follow-ups were not the drive file's: none when every pointer found
    /// its value. A check whose follow-up carried such a gap judges the file, not the agent.
    pub fn unresolved(&self) -> Vec<String> {
        self.unresolved.lock().expect("not poisoned").clone()
    }

    pub fn used(&self) -> Contract {
        self.used
    }

    /// Why `check` is not run under this contract: it needs a scenario and the contract is
    /// `none`; or it exists for kit-only scenarios only and the contract does not give them;
    /// or a drive file names none of the states it needs (a product agent is never sent a
    /// scenario's label in the hope that it plays it).
    pub fn not_run(&self, needs: &Needs) -> Option<String> {
        // A drive file that gives an optional scenario instead (a long-running task to cancel
        // where the check would otherwise cancel an input-required one) drives the check.
        // Under a behaviour file a check is judged, not left out: see [`Scenarios::undeclared`].
        if self.declared.is_some() {
            return None;
        }
        let optional = needs.optional;
        let needs = needs.scenarios;
        let undriven = self.used == Contract::Drive
            && !needs.is_empty()
            && (needs.iter().chain(optional)).all(|p| !self.honours(p));
        if undriven || (self.used != Contract::None && needs.iter().all(|p| is_kit_only(p))) {
            return needs
                .iter()
                .find_map(|p| self.refusal(p))
                .map(|why| format!("not run: {why}"));
        }
        (self.used == Contract::None && !needs.is_empty()).then(|| {
            format!(
                "not run: it needs the agent to play the scenario(s) {}, and the contract is `none`",
                needs
                    .iter()
                    .map(|p| format!("`{p}`"))
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        })
    }

    /// An internal error when a check sent a scenario its [`Needs`] do not
    /// declare (a bug of the kit).
    pub fn held_to(&self, needs: &Needs) -> Result<(), HarnessError> {
        let undeclared: Vec<&str> = (self.sent().into_iter())
            .filter(|p| !needs.scenarios.contains(p) && !needs.optional.contains(p))
            .collect();
        if undeclared.is_empty() {
            Ok(())
        } else {
            Err(HarnessError::Internal(format!(
                "the check sent scenario(s) {undeclared:?} that its `needs` do not declare"
            )))
        }
    }

    /// Whether the checks may use `prefix`: the plain message always, the official table
    /// unless the contract is none, a kit-only scenario when the agent honours it.
    pub fn honours(&self, prefix: &str) -> bool {
        if let Some(drive) = &self.drive {
            return !is_scenario(prefix) || drive.drives(prefix);
        }
        if let Some(file) = &self.declared {
            return !is_scenario(prefix) || acts_name(prefix).is_some_and(|a| file.declares(a));
        }
        if is_kit_only(prefix) {
            self.used != Contract::None && self.kit.contains(prefix)
        } else if is_scenario(prefix) {
            self.used != Contract::None
        } else {
            true
        }
    }

    /// Why the checks may not use `prefix`, in words; `None` when they may. Under a
    /// behaviour file the words contain [`UNDECLARED_WORDS`].
    pub fn refusal(&self, prefix: &str) -> Option<String> {
        if self.honours(prefix) {
            None
        } else if self.declared.is_some() {
            self.refused
                .lock()
                .expect("not poisoned")
                .insert(prefix.to_string());
            Some(match acts_name(prefix) {
                Some(acts) => format!(
                    "{UNDECLARED_WORDS} declares no `{acts}` (the kit's scenario `{prefix}`)"
                ),
                None => format!(
                    "ACTS has no behaviour for the kit's scenario `{prefix}`, so {UNDECLARED_WORDS} \
                     cannot declare it"
                ),
            })
        } else if self.drive.is_some() {
            Some(match crate::drive::state_of(prefix) {
                Some(state) => format!(
                    "the drive file names no `{state}` state (the kit's scenario `{prefix}`; \
                     see `a2a-tck --drive`)"
                ),
                None => format!(
                    "the drive file does not say how to play `{prefix}` (see `a2a-tck --drive`)"
                ),
            })
        } else if self.used == Contract::None {
            Some(format!(
                "the contract is `none`, so the kit does not send the scenario `{prefix}`"
            ))
        } else if self.official_by_request {
            Some(format!(
                "the contract is `official`, so the kit's own scenario `{prefix}` is not used"
            ))
        } else {
            Some(not_honoured(prefix))
        }
    }

    /// The text that starts the first part of a message for the scenario `name`, when the
    /// contract carries it there (ACTS, and a name with an ACTS counterpart).
    pub fn text_prefix(&self, name: &str) -> Option<&'static str> {
        let acts = (self.used.carrier() == Carrier::FirstText)
            .then(|| acts_name(name))
            .flatten()?;
        // A plain message whose ACTS prefix the behaviour file leaves out carries none.
        match &self.declared {
            Some(file) if !file.declares(acts) => None,
            _ => Some(acts),
        }
    }

    /// The text of a follow-up playing `name` on an existing task, when the contract carries
    /// scenarios in the text: ACTS follow-ups are plain text, and the task keeps the
    /// behaviour of its first message, so every follow-up is `done` (the task completes)
    /// but one that keeps the task asking for input (any other turn).
    pub fn follow_up_text(&self, name: &str) -> Option<&'static str> {
        // A follow-up names no behaviour of its own: its text is the same whether or not a
        // behaviour file declares `name`'s ACTS counterpart.
        (self.used.carrier() == Carrier::FirstText)
            .then(|| acts_name(name))
            .flatten()?;
        Some(match name {
            "tck-input-required" => ACTS_MORE,
            _ => ACTS_DONE,
        })
    }

    /// Whether a follow-up message releases the kit's held `tck-long-running` task. Under
    /// ACTS the held task is `tck-cancel`, which only a cancel ends.
    pub fn follow_up_releases_held(&self) -> bool {
        // Under a drive file the long-running task is one the agent works on: a cancel ends it.
        self.used.carrier() == Carrier::MessageId
    }

    /// Records that a message with `prefix` is sent (ids of other prefixes are ignored).
    pub fn note(&self, prefix: &str) {
        if let Some(known) = OFFICIAL
            .iter()
            .chain(KIT_ONLY.iter().map(|(p, _)| p))
            .find(|p| **p == prefix && is_scenario(p))
        {
            self.sent.lock().expect("not poisoned").insert(known);
        }
    }

    /// The scenario prefixes sent so far.
    pub fn sent(&self) -> BTreeSet<&'static str> {
        self.sent.lock().expect("not poisoned").clone()
    }
}

/// The words for a kit-only scenario the probe found unplayed.
pub fn not_honoured(prefix: &str) -> String {
    format!("the agent does not honour the kit's scenario `{prefix}` (the contract probe did not see it played)")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::a2a;

    #[test]
    fn the_tables_cover_the_scenario_fixture() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../../fixtures/scenarios.json")).expect("JSON");
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

//! What the checks of a run may ask of the agent ([`Scenarios`], shared by every check
//! context): the contract in use and the scenarios it carries, the kit-only scenarios the probe
//! saw played, the drive file's plays or the card's own message, the behaviours an SDK
//! declares, and the scenarios each check sent, which the runner holds to its needs.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use super::{
    acts_name, is_kit_only, is_scenario, not_honoured, Carrier, Contract, DeclaredBehaviors,
    ACTS_DONE, ACTS_MORE, KIT_ONLY, OFFICIAL, UNDECLARED_WORDS,
};
use crate::facts::behaviors::{SutBehaviors, Undeclared};
use crate::facts::drive::Drive;
use crate::facts::model::{HarnessError, Needs};
use crate::suite::card_drive::CardDriven;
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
    /// The message taken from the agent's card (see [`crate::suite::card_drive`]), whose parts
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
            Some(match crate::facts::drive::state_of(prefix) {
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

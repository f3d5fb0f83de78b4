//! Which scenario contract the agent honours: the official TCK's messageId prefix table, the
//! kit's own extra scenarios too, or none. A probe, run once per run on one interface, finds
//! out; `--contract` may state it instead. Checks consult the outcome through their context, so
//! a scenario the agent does not honour is treated the same on every binding.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use schemars::JsonSchema;

use serde::{Deserialize, Serialize};
use serde_json::json;

use crate::a2a;
use crate::card::Interface;
use crate::check::HarnessError;
use crate::check::ProtocolVersion;
use crate::ctx::Ctx;

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
    /// No scenario at all: the agent answers every message its own way.
    None,
}

impl Contract {
    pub fn as_str(self) -> &'static str {
        match self {
            Contract::Official => "official",
            Contract::Kit => "kit",
            Contract::None => "none",
        }
    }
}

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
    /// The kit's own scenarios the checks used (those the probe showed honoured, or all of
    /// them with `--contract kit`).
    pub kit_scenarios: Vec<String>,
    /// What the probe sent and what came back, one line per scenario.
    pub evidence: Vec<String>,
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
        }
    }

    /// The same policy, with a fresh record of sent prefixes (one per check).
    pub fn fresh(&self) -> Scenarios {
        Scenarios {
            sent: Arc::default(),
            ..self.clone()
        }
    }

    pub fn used(&self) -> Contract {
        self.used
    }

    /// Whether the checks may use `prefix`: the plain message always, the official table
    /// unless the contract is none, a kit-only scenario when the agent honours it.
    pub fn honours(&self, prefix: &str) -> bool {
        if is_kit_only(prefix) {
            self.used != Contract::None && self.kit.contains(prefix)
        } else if is_scenario(prefix) {
            self.used != Contract::None
        } else {
            true
        }
    }

    /// Why the checks may not use `prefix`, in words; `None` when they may.
    pub fn refusal(&self, prefix: &str) -> Option<String> {
        if self.honours(prefix) {
            None
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
    format!("the agent does not honour the kit's scenario `{prefix}` (the contract probe found it unplayed)")
}

/// The run's scenario contract: the requested one (no probe), else what the contract probe
/// finds on one usable interface (1.0 JSON-RPC first), so every binding is judged alike.
pub async fn decide(
    requested: Option<Contract>,
    usable: &[Interface],
    ctx_on: impl Fn(Interface) -> Ctx,
) -> (Scenarios, Option<ContractReport>) {
    let mut probed = usable.to_vec();
    probed.sort_by_key(|i| (i.version != ProtocolVersion::V1_0, i.binding));
    let probe_on = probed.into_iter().next();
    let (detected, honoured, evidence) = match (requested, probe_on) {
        // A contract given with --contract is taken as said: no probe.
        (Some(_), _) | (_, None) => (None, Default::default(), Vec::new()),
        (_, Some(interface)) => {
            let place = format!("{} {}", interface.binding, interface.version);
            let (detected, honoured, lines) = probe(&ctx_on(interface)).await;
            let evidence = lines.into_iter().map(|l| format!("{place}: {l}")).collect();
            (Some(detected), honoured, evidence)
        }
    };
    // Left to the probe, the official table is always tried: an agent whose answers the probe
    // cannot read (a state misspelled or missing) must not have its checks left out, so only
    // `--contract none` leaves them out; the probe's finding stays in the report.
    let used = match (requested, detected) {
        (Some(contract), _) => contract,
        (None, Some(Contract::None)) => Contract::Official,
        (None, Some(detected)) => detected,
        (None, None) => return (Scenarios::default(), None),
    };
    // A kit-only scenario is used when the probe showed it honoured, or when asked for.
    let kit = match requested {
        Some(Contract::Kit) => KIT_ONLY.iter().map(|(p, _)| *p).collect(),
        Some(Contract::Official | Contract::None) => Default::default(),
        None => honoured,
    };
    let report = ContractReport {
        requested,
        detected,
        used,
        kit_scenarios: kit.iter().map(|p| p.to_string()).collect(),
        evidence,
    };
    let by_request = requested == Some(Contract::Official);
    (Scenarios::new(used, by_request, kit), Some(report))
}

/// The probe: sends the official `tck-input-required` and each kit-only scenario once
/// (concurrently, non-blocking), reads back the state each task reached, and cancels the
/// tasks left open. Transport trouble counts as "not honoured", with the reason.
pub async fn probe(ctx: &Ctx) -> (Contract, BTreeSet<&'static str>, Vec<String>) {
    let official = try_scenario(ctx, "tck-input-required", "TASK_STATE_INPUT_REQUIRED");
    let kit = futures::future::join_all(
        KIT_ONLY
            .iter()
            .map(|(prefix, state)| try_scenario(ctx, prefix, state)),
    );
    let (official, kit) = futures::join!(official, kit);
    let mut evidence = vec![official.1];
    let mut honoured = BTreeSet::new();
    for ((prefix, _), (ok, line)) in KIT_ONLY.iter().zip(kit) {
        evidence.push(line);
        if ok {
            honoured.insert(*prefix);
        }
    }
    let detected = match (official.0, honoured.len() == KIT_ONLY.len()) {
        (false, _) => Contract::None,
        (true, false) => Contract::Official,
        (true, true) => Contract::Kit,
    };
    (detected, honoured, evidence)
}

/// Sends one scenario and says whether the task reached `state` (and, when it is open, still
/// shows it on GetTask); an open task is canceled afterwards.
async fn try_scenario(ctx: &Ctx, prefix: &'static str, state: &str) -> (bool, String) {
    match attempt(ctx, prefix, state).await {
        Ok((ok, got, id)) => {
            if let Some(id) = id.filter(|_| !a2a::TERMINAL_STATES.contains(&got.as_str())) {
                let _ = ctx.cancel_task(&id).await;
            }
            let words = if ok { "honoured" } else { "not honoured" };
            (ok, format!("`{prefix}`: {got} ({words})"))
        }
        Err(error) => (false, format!("`{prefix}`: {error} (not honoured)")),
    }
}

async fn attempt(
    ctx: &Ctx,
    prefix: &'static str,
    state: &str,
) -> Result<(bool, String, Option<String>), HarnessError> {
    let message = ctx.user_message(prefix);
    let answer = ctx
        .send_message(message, Some(json!({ "returnImmediately": true })))
        .await?;
    let Some(task) = answer
        .result()
        .and_then(|r| r.get("task"))
        .filter(|t| a2a::text(t, "id").is_some())
    else {
        return Ok((false, format!("no task ({})", answer.describe()), None));
    };
    let id = a2a::text(task, "id").unwrap_or_default().to_string();
    let mut got = a2a::state(task).unwrap_or("no state").to_string();
    // Read it back until it settles: an agent answers `returnImmediately` with the task as
    // it stands (often SUBMITTED) and reaches the scenario's state a moment later; an agent
    // that does not know the prefix completes it instead. A task in SUBMITTED, or in
    // WORKING when another state is expected, is read again with a growing pause, under
    // the stream deadline; a task expected WORKING must still be WORKING on a second read.
    let deadline = tokio::time::Instant::now() + ctx.stream_wait();
    let mut pause = Duration::from_millis(5);
    let mut reads = 0;
    while !a2a::TERMINAL_STATES.contains(&got.as_str()) {
        let settled = match got.as_str() {
            "TASK_STATE_SUBMITTED" => false,
            "TASK_STATE_WORKING" if state == "TASK_STATE_WORKING" => reads >= 1,
            "TASK_STATE_WORKING" => false,
            _ => true,
        };
        if settled || tokio::time::Instant::now() + pause > deadline {
            break;
        }
        if reads > 0 {
            tokio::time::sleep(pause).await;
            pause = (pause * 2).min(Duration::from_millis(200));
        }
        reads += 1;
        let now = ctx.get_task(&id, None).await?;
        match now.result().and_then(|t| a2a::state(t)) {
            Some(s) => got = s.to_string(),
            None => break,
        }
    }
    Ok((got == state, got, Some(id)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_tables_cover_the_scenario_fixture() {
        let fixture: serde_json::Value =
            serde_json::from_str(include_str!("../../fixtures/scenarios.json")).expect("JSON");
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

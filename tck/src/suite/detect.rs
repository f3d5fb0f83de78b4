//! The contract probe: which scenario contract the agent plays, found once per run on one
//! interface from what the agent is seen to do (see [`crate::suite::contract`] for the contracts and
//! the scenarios they carry), unless `--contract` states it.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use serde_json::json;

use crate::exchange::card::Interface;
use crate::facts::a2a;
use crate::facts::drive::Drive;
use crate::facts::model::{HarnessError, ProtocolVersion};
use crate::suite::contract::{
    acts_name, is_kit_only, Carrier, Contract, ContractReport, Scenarios, KIT_ONLY, PLAIN,
};
use crate::suite::ctx::{Answer, Ctx};

/// The run's scenario contract: the requested one (no probe), else what the contract probe
/// finds on one usable interface (1.0 JSON-RPC first), so every binding is judged alike.
pub async fn decide(
    requested: Option<Contract>,
    drive: Option<Arc<Drive>>,
    usable: &[Interface],
    ctx_on: impl Fn(Interface) -> Ctx,
) -> (Scenarios, Option<ContractReport>) {
    if let Some(drive) = drive {
        let scenarios = Scenarios::driven(Arc::clone(&drive));
        let report = ContractReport {
            requested: Some(Contract::Drive),
            detected: None,
            used: Contract::Drive,
            carrier: Carrier::DriveFile,
            kit_scenarios: scenarios.kit_names(),
            honoured: Vec::new(),
            evidence: vec![format!(
                "the drive file plays {}",
                drive.scenarios().join(", ")
            )],
            sut_behaviors: None,
            card_driven: None,
        };
        return (scenarios, Some(report));
    }
    let mut probed = usable.to_vec();
    probed.sort_by_key(|i| (i.version != ProtocolVersion::V1_0, i.binding));
    let probe_on = probed.into_iter().next().map(|i| (i.clone(), ctx_on(i)));
    let found = match (requested, &probe_on) {
        // A contract given with --contract is taken as said: no probe.
        (Some(_), _) | (_, None) => None,
        (_, Some((interface, ctx))) => {
            let place = format!("{} {}", interface.binding, interface.version);
            let mut found = probe(ctx).await;
            for line in &mut found.evidence {
                *line = format!("{place}: {line}");
            }
            Some(found)
        }
    };
    // Left to the probe, the official table is always tried: an agent whose answers the probe
    // cannot read (a state misspelled or missing) must not have its checks left out, so only
    // `--contract none` leaves them out; the probe's finding stays in the report.
    let used = match (requested, &found) {
        (Some(contract), _) => contract,
        (None, Some(f)) if f.detected == Contract::None => Contract::Official,
        (None, Some(f)) => f.detected,
        (None, None) => return (Scenarios::default(), None),
    };
    // A kit-only scenario is used when the probe showed it honoured, or when asked for.
    let kit = match (requested, &found) {
        (Some(Contract::Kit | Contract::Acts), _) => KIT_ONLY.iter().map(|(p, _)| *p).collect(),
        (Some(Contract::Official | Contract::None | Contract::Drive), _) => Default::default(),
        (None, Some(f)) => f.kit.clone(),
        (None, None) => Default::default(),
    };
    // An agent that plays no contract, and nothing else to say what to send it: the card's
    // examples and input modes say it (the kit's own text otherwise).
    let plays_none = match (requested, &found) {
        (Some(Contract::None), _) => true,
        (None, Some(f)) => f.detected == Contract::None,
        _ => false,
    };
    // An agent whose card takes JSON only is sent the card's data part under a contract
    // carried in the messageId too: the kit's text is what its card says it refuses, and a
    // refusal of it would judge the kit's message, not the agent. (The ACTS carrier needs the
    // text part.)
    let card_driven = probe_on
        .and_then(|(_, ctx)| crate::suite::card_drive::from_card(&ctx.card.json))
        .filter(|c| {
            plays_none
                || (used.carrier() == Carrier::MessageId
                    && c.part == crate::suite::card_drive::PartKind::Data)
        });
    let (detected, honoured, mut evidence) = match found {
        Some(f) => (Some(f.detected), f.honoured, f.evidence),
        None => (None, Vec::new(), Vec::new()),
    };
    evidence.extend(card_driven.as_ref().map(|c| c.words()));
    let report = ContractReport {
        requested,
        detected,
        used,
        carrier: used.carrier(),
        kit_scenarios: kit.iter().map(|p| p.to_string()).collect(),
        honoured,
        evidence,
        sut_behaviors: None,
        card_driven: card_driven.clone(),
    };
    let by_request = requested == Some(Contract::Official);
    let scenarios = Scenarios::new(used, by_request, kit);
    let scenarios = match card_driven {
        Some(card) => scenarios.with_card(card),
        None => scenarios,
    };
    (scenarios, Some(report))
}

/// The contract an ACTS behaviour file declares (`--sut-behaviors`): ACTS, carried in the
/// first text part, with the scenarios whose ACTS counterpart the file declares. Nothing is
/// probed: the file is the SDK's own statement of what its test agent plays.
pub fn declared(
    file: Arc<crate::facts::behaviors::SutBehaviors>,
    rule: crate::facts::behaviors::Undeclared,
) -> (Scenarios, ContractReport) {
    let scenarios = Scenarios::declared(file, rule);
    let record = scenarios.declared_report();
    let evidence = record.iter().map(|r| {
        format!(
            "the SUT behaviours file {} ({}) declares {}",
            r.file,
            r.sha256,
            r.declared.join(", ")
        )
    });
    let report = ContractReport {
        requested: Some(Contract::Acts),
        detected: None,
        used: Contract::Acts,
        carrier: Carrier::FirstText,
        kit_scenarios: scenarios.kit_names(),
        honoured: Vec::new(),
        evidence: evidence.collect(),
        sut_behaviors: record,
        card_driven: None,
    };
    (scenarios, report)
}

/// What the contract probe saw.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Probed {
    /// The contract the agent was seen to play (`None`: no scenario seen played).
    pub detected: Contract,
    /// The kit-only scenarios seen honoured under the detected contract's carrier.
    pub kit: BTreeSet<&'static str>,
    /// `carrier: name` of every scenario seen honoured.
    pub honoured: Vec<String>,
    pub evidence: Vec<String>,
}

/// One scenario the probe tries: the kit's name and the state it must give the task. A task
/// the contract keeps open is `held`: it counts only when it is seen in that state again at
/// a later read, after the probe's other work, and the kit's release then moves it.
struct Trial {
    name: &'static str,
    state: &'static str,
    held: bool,
}

const TRIALS: &[Trial] = &[
    Trial {
        name: PLAIN,
        state: "TASK_STATE_COMPLETED",
        held: false,
    },
    Trial {
        name: "tck-input-required",
        state: "TASK_STATE_INPUT_REQUIRED",
        held: true,
    },
    Trial {
        name: "tck-long-running",
        state: "TASK_STATE_WORKING",
        held: true,
    },
    Trial {
        name: "tck-fail-task",
        state: "TASK_STATE_FAILED",
        held: false,
    },
    Trial {
        name: "tck-auth-required",
        state: "TASK_STATE_AUTH_REQUIRED",
        held: true,
    },
];

/// What one trial gave: the task's id (when a task came back) and the state it reached.
#[derive(Debug, Default)]
struct Seen {
    id: Option<String>,
    /// The task's contextId, as the first answer gave it.
    context: Option<String>,
    state: String,
    /// For a held trial: the state at the later read, and after the release.
    later: Option<String>,
    released: Option<String>,
}

/// The probe: under each carrier (messageId and the first text part) sends each trial once
/// (concurrently, at the run's pace, non-blocking) and reads back the state each task
/// reached; once both carriers are done, reads every held task again, then releases it (an input-required task
/// by the carrier's completing follow-up, the kit's held WORKING task by a follow-up under
/// the messageId carrier and by a cancel under ACTS, an auth-required task by a cancel) and
/// reads where it went. A scenario counts as honoured only on that evidence, and only when
/// the plain message under the same carrier does not reach the same state (an agent that
/// asks for input whatever it is sent plays no scenario). Transport trouble counts as "not
/// honoured", with the reason.
pub async fn probe(ctx: &Ctx) -> Probed {
    let carriers = [Contract::Kit, Contract::Acts];
    // One context per carrier, with every scenario allowed: the probe decides what is played.
    let on: Vec<Ctx> = carriers
        .iter()
        .map(|c| {
            let all = KIT_ONLY.iter().map(|(p, _)| *p).collect();
            ctx.clone().with_scenarios(Scenarios::new(*c, false, all))
        })
        .collect();
    // Every trial of both carriers at once, as many as the run's pace allows (against a slow
    // agent, one after another they would add up); then, once every first look is done, every
    // trial is settled the same way.
    let pairs: Vec<(usize, usize)> = (0..on.len())
        .flat_map(|c| (0..TRIALS.len()).map(move |t| (c, t)))
        .collect();
    let on = &on;
    let mut looked: Vec<((usize, usize), Seen)> = ctx
        .at_pace(pairs, |(c, t)| async move {
            ((c, t), first_look(&on[c], &TRIALS[t]).await)
        })
        .collect()
        .await;
    looked.sort_by_key(|(at, _)| *at);
    let mut settled: Vec<((usize, usize), Seen)> = ctx
        .at_pace(looked, |((c, t), got)| async move {
            ((c, t), settle_held(&on[c], &TRIALS[t], got).await)
        })
        .collect()
        .await;
    settled.sort_by_key(|(at, _)| *at);
    let mut seen: Vec<Vec<Seen>> = on.iter().map(|_| Vec::new()).collect();
    for ((c, _), got) in settled {
        seen[c].push(got);
    }
    let mut evidence = Vec::new();
    let mut honoured_names = Vec::new();
    let mut by_carrier: Vec<BTreeSet<&'static str>> = Vec::new();
    for (contract, trials) in carriers.iter().zip(&seen) {
        let carrier = contract.carrier();
        let plain = &trials[0].state;
        let mut honoured = BTreeSet::new();
        for (trial, got) in TRIALS.iter().zip(trials).skip(1) {
            let sent_as = match carrier {
                Carrier::FirstText => acts_name(trial.name).unwrap_or(trial.name),
                Carrier::MessageId | Carrier::DriveFile => trial.name,
            };
            let (ok, why) = judge_trial(trial, got, plain);
            let label = format!("{} `{sent_as}`", carrier.as_str());
            evidence.push(format!(
                "{label}: {} ({})",
                describe(got),
                if ok {
                    "honoured".to_string()
                } else {
                    format!("not honoured: {why}")
                }
            ));
            if ok {
                honoured.insert(trial.name);
                honoured_names.push(format!("{}: {sent_as}", carrier.as_str()));
            }
        }
        by_carrier.push(honoured);
    }
    let official = by_carrier[0].contains("tck-input-required");
    let acts = by_carrier[1].contains("tck-input-required");
    let kit_only = |set: &BTreeSet<&'static str>| -> BTreeSet<&'static str> {
        set.iter().copied().filter(|n| is_kit_only(n)).collect()
    };
    let (detected, kit) = if official {
        let kit = kit_only(&by_carrier[0]);
        let all = kit.len() == KIT_ONLY.len();
        (
            if all {
                Contract::Kit
            } else {
                Contract::Official
            },
            kit,
        )
    } else if acts {
        (Contract::Acts, kit_only(&by_carrier[1]))
    } else {
        (Contract::None, kit_only(&by_carrier[0]))
    };
    Probed {
        detected,
        kit,
        honoured: honoured_names,
        evidence,
    }
}

/// Whether a trial's evidence shows the scenario played, and if not, why not.
fn judge_trial(trial: &Trial, got: &Seen, plain: &str) -> (bool, String) {
    if got.state != trial.state {
        return (false, format!("expected {}", trial.state));
    }
    if plain == trial.state {
        return (
            false,
            format!(
                "the plain message reached {plain} too, so the state says nothing of the scenario"
            ),
        );
    }
    if !trial.held {
        return (true, String::new());
    }
    match (&got.later, &got.released) {
        (Some(later), _) if later != trial.state => (
            false,
            format!("it did not stay there: {later} at a later read"),
        ),
        (Some(_), Some(released)) if released != trial.state => (true, String::new()),
        (Some(_), Some(_)) => (false, "the kit's release did not move it".to_string()),
        _ => (false, "not read again".to_string()),
    }
}

fn describe(got: &Seen) -> String {
    let mut words = got.state.clone();
    if let Some(later) = &got.later {
        words.push_str(&format!(", later {later}"));
    }
    if let Some(released) = &got.released {
        words.push_str(&format!(", after the release {released}"));
    }
    words
}

/// Sends one trial non-blocking and reads the task back until it settles.
async fn first_look(ctx: &Ctx, trial: &Trial) -> Seen {
    match attempt(ctx, trial.name, trial.state).await {
        Ok((state, id, context)) => Seen {
            id,
            context,
            state,
            ..Seen::default()
        },
        Err(error) => Seen {
            state: error.to_string(),
            ..Seen::default()
        },
    }
}

/// For a held trial that reached its state: reads it again, then releases it and reads
/// where it went. Any other open task is canceled.
async fn settle_held(ctx: &Ctx, trial: &Trial, mut got: Seen) -> Seen {
    let Some(id) = got.id.clone() else { return got };
    if a2a::TERMINAL_STATES.contains(&got.state.as_str()) {
        return got;
    }
    if !(trial.held && got.state == trial.state) {
        let _ = ctx.cancel_task(&id).await;
        return got;
    }
    let later = read_state(ctx, &id).await;
    let still = later == trial.state;
    got.later = Some(later);
    if !still {
        let _ = ctx.cancel_task(&id).await;
        return got;
    }
    let by_follow_up = match trial.name {
        "tck-input-required" => true,
        "tck-long-running" => ctx.scenarios().follow_up_releases_held(),
        _ => false,
    };
    let released = if by_follow_up {
        let mut message = ctx.follow_up_message(PLAIN);
        message["taskId"] = json!(id);
        let context = match got.context.clone() {
            Some(context) => context,
            None => context_of(ctx, &id).await,
        };
        message["contextId"] = json!(context);
        match ctx.send_message(message, None).await {
            Ok(answer) => state_after(ctx, &id, &answer).await,
            Err(error) => error.to_string(),
        }
    } else {
        match ctx.cancel_task(&id).await {
            Ok(answer) => state_after(ctx, &id, &answer).await,
            Err(error) => error.to_string(),
        }
    };
    if !a2a::TERMINAL_STATES.contains(&released.as_str()) {
        let _ = ctx.cancel_task(&id).await;
    }
    got.released = Some(released);
    got
}

/// The contextId of task `id`, as GetTask shows it (empty when unreadable).
async fn context_of(ctx: &Ctx, id: &str) -> String {
    match ctx.get_task(id, None).await {
        Ok(answer) => answer
            .result()
            .and_then(|t| a2a::text(t, "contextId"))
            .unwrap_or_default()
            .to_string(),
        Err(_) => String::new(),
    }
}

/// The task's state after a release: the answer's task, else a GetTask (what went wrong, in
/// words, when neither shows a state).
pub(crate) async fn state_after(ctx: &Ctx, id: &str, answer: &Answer) -> String {
    let task = answer.result().map(|r| r.get("task").unwrap_or(r));
    match task
        .filter(|t| a2a::text(t, "id") == Some(id))
        .and_then(a2a::state)
    {
        Some(state) => state.to_string(),
        None => read_state(ctx, id).await,
    }
}

async fn read_state(ctx: &Ctx, id: &str) -> String {
    match ctx.get_task(id, None).await {
        Ok(answer) => answer
            .result()
            .and_then(|t| a2a::state(t))
            .map_or_else(|| answer.describe(), str::to_string),
        Err(error) => error.to_string(),
    }
}

async fn attempt(
    ctx: &Ctx,
    prefix: &'static str,
    state: &str,
) -> Result<(String, Option<String>, Option<String>), HarnessError> {
    let message = ctx.user_message(prefix);
    let answer = ctx
        .send_message(message, Some(json!({ "returnImmediately": true })))
        .await?;
    let Some(task) = answer
        .result()
        .and_then(|r| r.get("task"))
        .filter(|t| a2a::text(t, "id").is_some())
    else {
        return Ok((format!("no task ({})", answer.describe()), None, None));
    };
    let id = a2a::text(task, "id").unwrap_or_default().to_string();
    let context = a2a::text(task, "contextId").map(str::to_string);
    let mut got = a2a::state(task).unwrap_or("no state").to_string();
    // Read it back until it settles: an agent answers `returnImmediately` with the task as
    // it stands (often SUBMITTED) and reaches the scenario's state a moment later; an agent
    // that does not know the prefix completes it instead. A task in SUBMITTED, or in
    // WORKING when another state is expected, is read again with a growing pause, under
    // the stream deadline; a task expected WORKING is read back once. Whether a held state
    // holds is seen at a later read, not here.
    let deadline = tokio::time::Instant::now() + ctx.stream_wait();
    let mut pause = Duration::from_millis(5);
    let mut reads = 0;
    while !a2a::TERMINAL_STATES.contains(&got.as_str()) {
        let settled = match got.as_str() {
            "TASK_STATE_SUBMITTED" => false,
            // Read back once: the later read that decides comes after the probe's other work.
            "TASK_STATE_WORKING" => state == "TASK_STATE_WORKING" && reads >= 1,
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
    Ok((got, Some(id), context))
}

//! The scenario contract end to end: `--contract none` leaves out (and lists) the checks that
//! need a scenario and still exits 0 against the reference agent; an agent that honours only
//! the official prefix table is judged with the official fallbacks, and the kit-only scenarios
//! it does not play are left out with the same words on every binding.

use crate::support;

use support::BIN;

use std::collections::BTreeMap;

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::Status;

/// The scenarios check `id` may send, from its `needs`.
fn scenarios_of(id: &str) -> &'static [&'static str] {
    (a2a_tck::suite::checks::all().into_iter())
        .find(|c| c.id == id)
        .map_or(&[], |c| c.needs.scenarios)
}
use a2a_tck::reporting::report::{Report, Verdict};
use a2a_tck::run::runner::{self, RunOptions};
use a2a_tck::suite::contract::Contract;

fn temp_path(name: &str) -> std::path::PathBuf {
    support::temp_path("contract", name)
}

/// Runs the binary; returns its exit code, stdout and report.
fn kit(name: &str, args: &[&str]) -> (Option<i32>, String, Report) {
    let path = temp_path(name);
    let output = std::process::Command::new(BIN)
        .args(args)
        .args(["--report", path.to_str().expect("utf8")])
        .output()
        .expect("the kit runs");
    let report = Report::read(&path).expect("a complete report");
    let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
    (output.status.code(), stdout, report)
}

async fn run(faults: &[Fault], contract: Option<Contract>) -> Report {
    let agent = a2a_tck::run::builtin::start(faults)
        .await
        .expect("agent starts");
    let mut options = RunOptions::new(&agent.base_url(), &agent.card_url());
    options.contract = contract;
    let report = runner::run(&a2a_tck::suite::checks::all(), &options)
        .await
        .expect("run");
    agent.shutdown().await;
    report
}

#[test]
fn contract_none_lists_the_unrun_checks_and_exits_0() {
    let markdown = temp_path("none.md");
    let (code, stdout, report) = kit(
        "none.json",
        &[
            "--contract",
            "none",
            "--markdown",
            markdown.to_str().expect("utf8"),
        ],
    );
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(report.verdict, Verdict::Conformant);
    let contract = report.contract.as_ref().expect("contract recorded");
    assert_eq!(
        (contract.requested, contract.used),
        (Some(Contract::None), Contract::None)
    );
    assert!(!report.not_run.is_empty());
    for entry in &report.not_run {
        assert!(
            !scenarios_of(&entry.id).is_empty(),
            "{} needs no scenario",
            entry.id
        );
        assert!(entry.reason.contains("`none`"), "{}", entry.reason);
    }
    for result in &report.results {
        assert!(scenarios_of(&result.id).is_empty(), "{} ran", result.id);
        assert!(
            matches!(result.status, Status::Pass | Status::NotApplicable),
            "{} {}: {}",
            result.id,
            result.status,
            result.message
        );
    }
    // In words, in every summary: the verdict line, the console list, the Markdown.
    assert!(
        report.verdict_reason.contains("not run"),
        "{}",
        report.verdict_reason
    );
    assert!(stdout.contains("NOT RUN"), "{stdout}");
    let md = std::fs::read_to_string(markdown).expect("markdown");
    assert!(md.contains("## Not run"), "{md}");
}

#[test]
fn official_contract_against_an_official_only_agent_has_no_untestable() {
    let (code, stdout, report) = kit(
        "official.json",
        &[
            "--contract",
            "official",
            "--fault",
            "official-contract-only",
        ],
    );
    assert_eq!(code, Some(0), "{stdout}");
    assert_eq!(report.verdict, Verdict::Conformant);
    only_kit_only_checks_not_run(&report, "the contract is `official`");
    let contract = report.contract.as_ref().expect("contract recorded");
    assert_eq!(contract.used, Contract::Official);
    assert!(contract.kit_scenarios.is_empty());
    assert!(report
        .results
        .iter()
        .all(|r| r.status != Status::Untestable && r.status != Status::Fail));
    left_out_alike(&report, "the contract is `official`");
}

#[tokio::test]
async fn the_probe_finds_an_official_only_agent_and_judges_every_binding_alike() {
    let report = run(&[Fault::OfficialContractOnly], None).await;
    let contract = report.contract.as_ref().expect("contract recorded");
    assert_eq!(contract.detected, Some(Contract::Official));
    assert_eq!(contract.used, Contract::Official);
    assert!(contract.kit_scenarios.is_empty(), "{contract:?}");
    assert!(contract
        .evidence
        .iter()
        .any(|l| l.contains("tck-fail-task") && l.contains("not honoured")));
    assert!(report
        .results
        .iter()
        .all(|r| r.status != Status::Untestable && r.status != Status::Fail));
    only_kit_only_checks_not_run(&report, "does not honour the kit's scenario");
    left_out_alike(
        &report,
        "does not honour the kit's scenario `tck-fail-task`",
    );
    // The full reference agent honours them all.
    let report = run(&[], None).await;
    let contract = report.contract.as_ref().expect("contract recorded");
    assert_eq!(contract.detected, Some(Contract::Kit));
    assert_eq!(contract.kit_scenarios.len(), 3);
}

/// The checks that exist for kit-only scenarios alone are not run, saying `words`; no other.
fn only_kit_only_checks_not_run(report: &Report, words: &str) {
    let ids: std::collections::BTreeSet<&str> =
        report.not_run.iter().map(|n| n.id.as_str()).collect();
    assert_eq!(
        ids.into_iter().collect::<Vec<_>>(),
        [
            "auth.in-task-auth-required-explained",
            "send.auth-required-follow-up-continues-task",
            "send.non-blocking-returns-open-task",
            "streaming.failed-task-ends-stream-failed"
        ]
    );
    for entry in &report.not_run {
        assert!(entry.reason.contains(words), "{}", entry.reason);
    }
}

/// The checks over every terminal state leave FAILED out, saying `words`, with the same
/// message on every binding and version.
fn left_out_alike(report: &Report, words: &str) {
    for id in [
        "send.terminal-task-rejects-message",
        "tasks.cancel.terminal-task-not-cancelable",
    ] {
        let messages: BTreeMap<String, &str> = report
            .results
            .iter()
            .filter(|r| r.id == id)
            .map(|r| {
                (
                    format!("{:?} {:?}", r.binding, r.version),
                    r.message.as_str(),
                )
            })
            .collect();
        assert!(messages.len() >= 3, "{id}: {messages:?}");
        for message in messages.values() {
            assert!(message.contains(words), "{id}: {message}");
        }
        let distinct: std::collections::BTreeSet<&&str> = messages.values().collect();
        assert_eq!(
            distinct.len(),
            1,
            "{id} differs between bindings: {messages:?}"
        );
    }
}

#[tokio::test]
async fn a_probe_that_sees_no_scenario_played_never_leaves_checks_out() {
    // States the probe cannot read: it finds no contract, yet only `--contract none` may
    // leave checks out (beyond those that exist for kit-only scenarios alone), so the broken
    // state names still FAIL.
    let report = run(&[Fault::OmitStatusState], None).await;
    let contract = report.contract.as_ref().expect("contract recorded");
    assert_eq!(contract.detected, Some(Contract::None));
    assert_eq!(contract.used, Contract::Official);
    only_kit_only_checks_not_run(&report, "does not honour the kit's scenario");
    assert_eq!(report.verdict, Verdict::NonConformant);
}

#[tokio::test]
async fn an_agent_that_plays_only_acts_is_driven_by_the_first_text_part() {
    let report = run(&[Fault::ActsContractOnly], None).await;
    let contract = report.contract.as_ref().expect("contract recorded");
    assert_eq!(
        contract.detected,
        Some(Contract::Acts),
        "{:?}",
        contract.evidence
    );
    assert_eq!(contract.used, Contract::Acts);
    assert_eq!(
        contract.carrier,
        a2a_tck::suite::contract::Carrier::FirstText
    );
    assert_eq!(contract.kit_scenarios.len(), 3, "{contract:?}");
    assert!(contract
        .honoured
        .iter()
        .any(|h| h.ends_with("tck-multi-turn")));
    assert!(report.not_run.is_empty(), "{:?}", report.not_run);
    for result in &report.results {
        assert!(
            matches!(result.status, Status::Pass | Status::NotApplicable),
            "{} {:?} {:?}: {:?} {}",
            result.id,
            result.binding,
            result.version,
            result.status,
            result.message
        );
    }
    assert_eq!(report.verdict, Verdict::Conformant);
}

#[tokio::test]
async fn the_full_agent_under_contract_acts_passes_everything() {
    let report = run(&[], Some(Contract::Acts)).await;
    let contract = report.contract.as_ref().expect("contract recorded");
    assert_eq!(
        (contract.requested, contract.used),
        (Some(Contract::Acts), Contract::Acts)
    );
    assert!(report.not_run.is_empty(), "{:?}", report.not_run);
    assert!(report
        .results
        .iter()
        .all(|r| matches!(r.status, Status::Pass | Status::NotApplicable)));
}

/// Statuses by check id, binding and version.
fn statuses(report: &Report) -> BTreeMap<String, Status> {
    report
        .results
        .iter()
        .map(|r| {
            (
                format!("{} {:?} {:?}", r.id, r.binding, r.version),
                r.status,
            )
        })
        .collect()
}

#[tokio::test]
async fn a_drive_file_drives_an_agent_that_plays_no_contract_through_its_approval_step() {
    let agent = a2a_tck::run::builtin::start(&[Fault::PlaysNoContract])
        .await
        .expect("agent starts");
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/drive-reference.toml");
    let drive = a2a_tck::facts::drive::Drive::read(&path).expect("the example drive file parses");
    let mut options = RunOptions::new(&agent.base_url(), &agent.card_url());
    let undriven = runner::run(&a2a_tck::suite::checks::all(), &options)
        .await
        .expect("run");
    options.drive = Some(std::sync::Arc::new(drive));
    let driven = runner::run(&a2a_tck::suite::checks::all(), &options)
        .await
        .expect("run");
    agent.shutdown().await;
    // No false verdict either way: only what the agent was seen to do is judged.
    for report in [&undriven, &driven] {
        for r in &report.results {
            assert!(
                !matches!(r.status, Status::Fail | Status::Warn | Status::Error),
                "{} {:?} {:?}: {:?} {}",
                r.id,
                r.binding,
                r.version,
                r.status,
                r.message
            );
        }
    }
    let contract = driven.contract.as_ref().expect("contract recorded");
    assert_eq!(contract.used, Contract::Drive);
    // The approval round trip is exercised and judged with the drive file, and is
    // UNTESTABLE without it.
    let (before, after) = (statuses(&undriven), statuses(&driven));
    for id in [
        "subscribe.receives-later-updates",
        "subscribe.closes-at-terminal-state",
        "send.follow-up-continues-interrupted-task",
        "push.delivery-every-update-in-order",
    ] {
        let key = format!("{id} Some(Jsonrpc) Some(V1_0)");
        assert_eq!(
            before.get(&key),
            Some(&Status::Untestable),
            "{key} undriven"
        );
        assert_eq!(after.get(&key), Some(&Status::Pass), "{key} driven");
    }
    let untestable = |r: &Report| {
        r.results
            .iter()
            .filter(|r| r.status == Status::Untestable)
            .count()
    };
    assert!(untestable(&driven) * 4 < untestable(&undriven));
}

/// A drive file's pointer that finds nothing in the task (a part the agent's answer does not
/// have): the follow-up carries null where the file meant the agent's value, so the result
/// judges the file, not the agent: never a FAIL; a result not judged PASS (the reference agent
/// continues the task whatever the approval carries) is UNTESTABLE naming the pointer.
#[tokio::test]
async fn a_drive_pointer_that_finds_nothing_is_untestable_never_a_fail() {
    let agent = a2a_tck::run::builtin::start(&[Fault::PlaysNoContract])
        .await
        .expect("agent starts");
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/drive-reference.toml");
    let text = std::fs::read_to_string(&path).expect("the example drive file");
    let (right, wrong) = (
        "/status/message/parts/1/data/approvalId",
        "/status/message/parts/7/data/approvalId",
    );
    assert!(text.contains(right), "the fixture's pointer moved");
    let drive =
        a2a_tck::facts::drive::Drive::parse(&text.replace(right, wrong), false).expect("parses");
    let mut options = RunOptions::new(&agent.base_url(), &agent.card_url());
    options.drive = Some(std::sync::Arc::new(drive));
    options.filter.select = vec!["send.follow-up-continues-interrupted-task".into()];
    let report = runner::run(&a2a_tck::suite::checks::all(), &options)
        .await
        .expect("run");
    agent.shutdown().await;
    assert!(!report.results.is_empty());
    for r in &report.results {
        assert!(
            matches!(r.status, Status::Pass | Status::Untestable),
            "{} {:?} {:?}: {:?} {}",
            r.id,
            r.binding,
            r.version,
            r.status,
            r.message
        );
        if r.status == Status::Untestable {
            assert!(r.message.contains(wrong), "{}", r.message);
        }
    }
}

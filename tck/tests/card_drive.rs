//! Driving an agent from its card: with no contract and no drive file given, an agent that
//! plays no scenario contract is sent what its card declares it takes (a skill's example as
//! text; a data part when it takes JSON only), the report says so, and a contract or a drive
//! file given leaves the card unused.

use std::collections::BTreeMap;

use a2a_reference_agent::Fault;
use a2a_tck::facts::drive::Drive;
use a2a_tck::reporting::report::{CheckResult, Report};
use a2a_tck::run::runner::{self, RunOptions};
use a2a_tck::suite::card_drive::{CardDriven, CardSource, PartKind};
use a2a_tck::suite::check::Status;
use a2a_tck::suite::contract::Contract;

async fn run(fault: Fault, contract: Option<Contract>, drive: Option<Drive>) -> Report {
    let agent = a2a_tck::run::builtin::start(&[fault])
        .await
        .expect("agent starts");
    let mut options = RunOptions::new(&agent.base_url(), &agent.card_url());
    options.contract = contract;
    options.drive = drive.map(std::sync::Arc::new);
    let report = runner::run(&a2a_tck::suite::checks::all(), &options)
        .await
        .expect("run");
    agent.shutdown().await;
    report
}

fn card_driven(report: &Report) -> Option<&CardDriven> {
    report
        .contract
        .as_ref()
        .and_then(|c| c.card_driven.as_ref())
}

/// The statuses of check `id`, by interface.
fn statuses(report: &Report, id: &str) -> BTreeMap<String, Status> {
    (report.results.iter())
        .filter(|r| r.id == id)
        .map(|r| (format!("{:?} {:?}", r.binding, r.version), r.status))
        .collect()
}

/// The bodies of the requests in a result's evidence, as text without JSON escapes.
fn sent(result: &CheckResult) -> String {
    (result.evidence.iter())
        .filter_map(|e| e.request.body.as_ref())
        .map(|b| serde_json::to_string(b).expect("a body").replace('\\', ""))
        .collect::<Vec<_>>()
        .join("\n")
}

fn no_false_verdict(report: &Report) {
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

const PLAIN_CHECK: &str = "send.returns-task-or-message";

#[tokio::test]
async fn an_agent_that_takes_only_json_is_sent_a_data_part_from_its_card() {
    // A contract carried in the messageId given: the card is read all the same, for the
    // card takes JSON only and the kit's own text is what it refuses; the data part goes out
    // and the plain message is judged (a refused text would judge the kit's message).
    let given = run(Fault::AcceptsOnlyData, Some(Contract::Official), None).await;
    let driven = card_driven(&given).expect("card driven under a given contract");
    assert_eq!(
        (driven.source, driven.part),
        (CardSource::InputModes, PartKind::Data)
    );
    no_false_verdict(&given);
    let judged = statuses(&given, PLAIN_CHECK);
    assert!(
        !judged.is_empty() && judged.values().all(|s| *s == Status::Pass),
        "{judged:?}"
    );

    // Nothing given: the probe sees no contract played, and the card's input modes (JSON
    // only, no example that is a JSON object) make the message a data part.
    for (contract, probed) in [(None, true), (Some(Contract::None), false)] {
        let report = run(Fault::AcceptsOnlyData, contract, None).await;
        let record = report.contract.as_ref().expect("contract recorded");
        assert_eq!(record.detected.is_some(), probed, "{record:?}");
        let driven = card_driven(&report).expect("card driven");
        assert_eq!(
            (driven.skill.as_deref(), driven.source, driven.part),
            (None, CardSource::InputModes, PartKind::Data)
        );
        assert!(
            (record.evidence.iter())
                .any(|l| l.starts_with("probe message taken from the card: defaultInputModes")),
            "{:?}",
            record.evidence
        );
        no_false_verdict(&report);
        // Judged on every interface, 1.0 and 0.3 alike, where the kit's text was refused.
        let judged = statuses(&report, PLAIN_CHECK);
        assert_eq!(judged.len(), 6, "{judged:?}");
        assert!(judged.values().all(|s| *s == Status::Pass), "{judged:?}");
        if !probed {
            // Under `--contract none` every result judged is a PASS, which keeps no evidence.
            continue;
        }
        // What went out, in each version's form (the UNTESTABLE results keep it): a 1.0 data
        // part with its mediaType, a 0.3 DataPart (`kind: "data"`, no mediaType).
        let wire: String = report.results.iter().map(sent).collect();
        assert!(
            wire.contains(r#"{"data":{"query":"hello"},"mediaType":"application/json"}"#),
            "no 1.0 data part on the wire"
        );
        assert!(
            wire.contains(r#"{"data":{"query":"hello"},"kind":"data"}"#)
                || wire.contains(r#"{"kind":"data","data":{"query":"hello"}}"#),
            "no 0.3 data part on the wire"
        );
        assert!(
            !wire.contains("a2a-tck message ("),
            "the kit's own text went out"
        );
    }
}

#[tokio::test]
async fn a_skill_example_is_the_text_sent_and_a_drive_file_leaves_the_card_unused() {
    // The reference agent's card: skill `tck`, whose first example is this text.
    let example = "messageId tck-complete-task-1: completes the task";
    let report = run(Fault::PlaysNoContract, None, None).await;
    let record = report.contract.as_ref().expect("contract recorded");
    assert_eq!(record.detected, Some(Contract::None));
    let driven = card_driven(&report).expect("card driven");
    assert_eq!(
        (driven.skill.as_deref(), driven.source, driven.part),
        (Some("tck"), CardSource::Example, PartKind::Text)
    );
    assert!(
        (record.evidence.iter())
            .any(|l| l.starts_with("probe message taken from the card: skill `tck` example")),
        "{:?}",
        record.evidence
    );
    no_false_verdict(&report);
    // The UNTESTABLE results keep their evidence: the example is what their messages said.
    let kept: Vec<&CheckResult> = (report.results.iter())
        .filter(|r| r.status == Status::Untestable && r.id.starts_with("send."))
        .collect();
    assert!(!kept.is_empty());
    for result in kept {
        let wire = sent(result);
        assert!(wire.contains(example), "{}: {wire}", result.id);
    }

    // A drive file given: its messages, not the card's.
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/drive-reference.toml");
    let drive = Drive::read(&path).expect("the example drive file parses");
    let driven = run(Fault::PlaysNoContract, None, Some(drive)).await;
    assert_eq!(
        driven.contract.as_ref().map(|c| c.used),
        Some(Contract::Drive)
    );
    assert_eq!(card_driven(&driven), None);
    let wire: String = driven.results.iter().map(sent).collect();
    assert!(!wire.contains(example), "the card's example went out");
}

#[tokio::test]
async fn an_agent_that_plays_a_contract_never_gets_the_card() {
    for contract in [None, Some(Contract::Kit), Some(Contract::Acts)] {
        let report = run(Fault::OfficialContractOnly, contract, None).await;
        assert_eq!(card_driven(&report), None, "{contract:?}");
        let record = report.contract.as_ref().expect("contract recorded");
        assert!(
            !(record.evidence.iter()).any(|l| l.contains("taken from the card")),
            "{contract:?}"
        );
    }
}

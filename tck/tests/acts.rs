//! ACTS in and out: an SDK's behaviour file (`--sut-behaviors`) read and used as the run's
//! contract, and the ACTS report (`--acts-report`) written from the run and valid against
//! `schemas/acts-report.schema.json`.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use a2a_reference_agent::Fault;
use a2a_tck::facts::behaviors::{SutBehaviors, Undeclared};
use a2a_tck::reporting::acts_report::{self, ActsReport, Outcome, Sdk};
use a2a_tck::reporting::report::Report;
use a2a_tck::run::runner::{self, RunOptions};
use a2a_tck::suite::check::{Binding, Status};
use a2a_tck::suite::contract::Contract;

use crate::support;

fn file(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/acts")
        .join(name)
}

fn schema() -> jsonschema::Validator {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas/acts-report.schema.json");
    let text = std::fs::read_to_string(path).expect("the ACTS report schema");
    let schema: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    jsonschema::validator_for(&schema).expect("the schema compiles")
}

fn assert_valid(document: &ActsReport) {
    let instance: serde_json::Value =
        serde_json::from_str(&document.to_json()).expect("the document is JSON");
    let errors: Vec<String> = (schema().iter_errors(&instance))
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "{}: {errors:#?}", document.transport);
}

#[test]
fn an_sdk_file_reads_with_every_prefix() {
    let read = SutBehaviors::read(&file("sut-behaviors.yaml")).expect("reads");
    assert_eq!(read.acts_version, "1.0");
    assert_eq!(read.behaviors.len(), 15);
    assert!(read.sha256.starts_with("sha256:") && read.sha256.len() == 71);
    assert_eq!(read.delay_ms("tck-long-running"), Some(1000));
    let stream = (read.behaviors.iter())
        .find(|b| b.prefix == "tck-stream-basic")
        .expect("declared");
    assert_eq!(stream.streaming, Some(true));
    assert_eq!(stream.artifacts.as_ref().map(Vec::len), Some(1));
    // Every kit scenario with an ACTS counterpart is then used.
    let scenarios =
        a2a_tck::suite::contract::Scenarios::declared(Arc::new(read), Undeclared::default());
    let record = scenarios.declared_report().expect("recorded");
    assert_eq!(
        record.undeclared,
        ["tck-stream-002", "tck-stream-artifact-file"],
        "only the names ACTS has no behaviour for"
    );
    assert_eq!(scenarios.used(), Contract::Acts);
}

#[test]
fn unknown_fields_are_accepted() {
    let read = SutBehaviors::read(&file("sut-behaviors-extra-fields.yaml")).expect("reads");
    assert_eq!(read.acts_version, "1.0");
    assert_eq!(
        read.prefixes(),
        ["tck-complete-task", "tck-long-running", "tck-multi-turn"]
    );
    assert!(read.behaviors[1].other.contains_key("max_turns"));
    // ACTS's timed tck-long-running is not the kit's held task (ACTS's tck-cancel).
    let scenarios =
        a2a_tck::suite::contract::Scenarios::declared(Arc::new(read), Undeclared::default());
    assert!(!scenarios.honours("tck-long-running"));
    assert!(scenarios.honours("tck-input-required"));
    assert!(scenarios
        .refusal("tck-long-running")
        .is_some_and(|w| w.contains("declares no `tck-cancel`")));
}

#[test]
fn a_file_of_another_shape_is_a_usage_error() {
    let err = SutBehaviors::read(&file("sut-behaviors-malformed.yaml")).expect_err("refused");
    assert!(err.contains("sut-behaviors-malformed.yaml"), "{err}");
    assert!(err.contains("`behaviors` list"), "{err}");
    let output = std::process::Command::new(support::BIN)
        .args(["--sut-behaviors"])
        .arg(file("sut-behaviors-malformed.yaml"))
        .output()
        .expect("the kit runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = support::stderr(&output);
    assert!(
        stderr.contains("--sut-behaviors") && stderr.contains("ACTS SUT behaviours file"),
        "{stderr}"
    );
    // It conflicts with another contract.
    let output = std::process::Command::new(support::BIN)
        .args(["--contract", "kit", "--sut-behaviors"])
        .arg(file("sut-behaviors.yaml"))
        .output()
        .expect("the kit runs");
    assert_eq!(output.status.code(), Some(2));
}

async fn run_declared(name: &str, rule: Undeclared) -> Report {
    let agent = a2a_tck::run::builtin::start(&[Fault::ActsContractOnly])
        .await
        .expect("agent starts");
    let mut options = RunOptions::new(&agent.base_url(), &agent.card_url());
    options.sut_behaviors = Some(Arc::new(SutBehaviors::read(&file(name)).expect("reads")));
    options.undeclared = rule;
    let report = runner::run(&a2a_tck::suite::checks::all(), &options)
        .await
        .expect("run");
    agent.shutdown().await;
    report
}

const UNDECLARED_WORDS: &str = "the SUT behaviours file declares no";

/// Against the reference agent playing ACTS alone, a file that declares part of the contract:
/// nothing undeclared is sent, the checks that need it say so (UNTESTABLE, or FAIL under the
/// ACTS rule), everything else passes, and the ACTS reports are valid.
#[tokio::test]
async fn a_partial_file_is_the_contract_and_the_acts_report_follows() {
    let report = run_declared("sut-behaviors-partial.yaml", Undeclared::Untestable).await;
    let contract = report.contract.as_ref().expect("contract recorded");
    assert_eq!(
        (contract.requested, contract.detected),
        (Some(Contract::Acts), None)
    );
    let declared = contract.sut_behaviors.as_ref().expect("file recorded");
    assert_eq!(
        declared.declared,
        [
            "tck-complete-task",
            "tck-long-running",
            "tck-message-response",
            "tck-multi-turn"
        ]
    );
    assert!(declared.sha256.starts_with("sha256:"));
    assert!(contract.kit_scenarios.is_empty(), "{contract:?}");
    let mut untestable = BTreeSet::new();
    for r in &report.results {
        match r.status {
            Status::Pass | Status::NotApplicable => {}
            Status::Untestable => {
                assert!(
                    r.message.contains(UNDECLARED_WORDS),
                    "{}: {}",
                    r.id,
                    r.message
                );
                untestable.insert(r.id.clone());
            }
            other => panic!("{} {:?}: {other:?} {}", r.id, r.binding, r.message),
        }
    }
    for id in [
        "send.blocking-returns-artifacts",
        "streaming.states-in-order",
        "send.non-blocking-returns-open-task",
    ] {
        assert!(untestable.contains(id), "{id}: {untestable:?}");
    }
    // A check whose every scenario is undeclared sent nothing at all.
    let sent_nothing = (report.results.iter())
        .filter(|r| r.id == "streaming.states-in-order")
        .all(|r| r.evidence.is_empty());
    assert!(sent_nothing);
    assert!(report.not_run.is_empty(), "{:?}", report.not_run);

    // The ACTS reports: one per binding, valid, their counts adding up.
    let sdk = Sdk::of(&report, Some("example"), Some("1.2.3"), Some("rust"), None);
    let documents = acts_report::documents(&report, &sdk, &acts_report::own_configuration);
    let transports: Vec<&str> = documents.iter().map(|d| d.transport.as_str()).collect();
    assert_eq!(transports, ["jsonrpc", "rest", "grpc"]);
    for document in &documents {
        assert_valid(document);
        let s = &document.summary;
        assert_eq!(s.total, s.passed + s.failed + s.skipped + s.errors);
        assert_eq!(
            s.total,
            s.by_level.must.total + s.by_level.should.total + s.by_level.may.total
        );
        assert_eq!((s.failed, s.errors), (0, 0), "{}", document.transport);
        let tests: Vec<_> = document.suites.iter().flat_map(|s| &s.tests).collect();
        let binding = match document.transport.as_str() {
            "jsonrpc" => Binding::Jsonrpc,
            "rest" => Binding::Rest,
            _ => Binding::Grpc,
        };
        assert!(tests
            .iter()
            .all(|t| acts_report::applies_to(&t.id, binding)));
        let client = tests
            .iter()
            .find(|t| t.id == "CLIENT-PARSE-001")
            .expect("listed");
        assert_eq!(client.result, Outcome::Skip);
        assert!(client
            .skip_reason
            .as_deref()
            .is_some_and(|w| w.starts_with("not covered by a2a-tck: ")));
        let artifacts = tests.iter().find(|t| t.id == "DM-ART-001").expect("listed");
        assert_eq!(artifacts.result, Outcome::Skip);
        assert_eq!(artifacts.kit_status, Some(Status::Untestable));
        assert!(tests.iter().all(|t| t.configuration == "default"));
        let send = tests
            .iter()
            .find(|t| t.id == "CORE-SEND-001")
            .expect("listed");
        assert_eq!(send.result, Outcome::Pass, "{send:?}");
        assert!(!send.kit_checks.is_empty() && !send.steps.is_empty());
        assert!(document
            .file_name()
            .starts_with(&format!("acts-report-example-{}-", document.transport)));
        assert!(
            document.console_lines()[0].starts_with(&format!("ACTS {}: MUST ", document.transport))
        );
    }
}

#[tokio::test]
async fn under_the_acts_rule_an_undeclared_scenario_fails_its_check() {
    let report = run_declared("sut-behaviors-partial.yaml", Undeclared::Fail).await;
    let failed: Vec<_> = (report.results.iter())
        .filter(|r| matches!(r.status, Status::Fail | Status::Warn))
        .collect();
    assert!(!failed.is_empty());
    for r in &failed {
        assert!(
            r.message.contains(UNDECLARED_WORDS),
            "{}: {}",
            r.id,
            r.message
        );
    }
    assert!(!report
        .results
        .iter()
        .any(|r| r.status == Status::Untestable));
    // The ACTS report: failures carry what failed.
    let sdk = Sdk::of(&report, None, None, None, None);
    assert_eq!(sdk.language, "unknown");
    for document in acts_report::documents(&report, &sdk, &acts_report::own_configuration) {
        assert_valid(&document);
        assert!(document.summary.by_level.must.failed > 0);
    }
}

#[tokio::test]
async fn a_configuration_read_from_each_result_tags_its_test() {
    let report = run_declared("sut-behaviors.yaml", Undeclared::Untestable).await;
    assert!(
        report
            .results
            .iter()
            .all(|r| matches!(r.status, Status::Pass | Status::NotApplicable)),
        "the full file drives every check"
    );
    let sdk = Sdk::of(&report, None, None, None, None);
    let configuration = |r: &a2a_tck::reporting::report::CheckResult| {
        r.id.starts_with("streaming.")
            .then(|| "reduced".to_string())
    };
    for document in acts_report::documents(&report, &sdk, &configuration) {
        assert_valid(&document);
        let tests: Vec<_> = document.suites.iter().flat_map(|s| &s.tests).collect();
        assert!(tests.iter().any(|t| t.configuration == "reduced"));
        assert!(tests.iter().any(|t| t.configuration == "default"));
        assert_eq!(document.summary.failed, 0);
    }
}

#[test]
fn the_command_writes_one_document_per_binding_or_one_path() {
    let dir = support::temp_path("acts", "reports");
    let _ = std::fs::remove_dir_all(&dir);
    let output = std::process::Command::new(support::BIN)
        .args([
            "--fault",
            "acts-contract-only",
            "--select",
            "send.*",
            "--sut-behaviors",
        ])
        .arg(file("sut-behaviors.yaml"))
        .args([
            "--sdk-name",
            "Example SDK",
            "--sdk-language",
            "rust",
            "--acts-report",
        ])
        .arg(&dir)
        .output()
        .expect("the kit runs");
    let stdout = support::stdout(&output);
    assert_eq!(
        output.status.code(),
        Some(0),
        "{stdout}{}",
        support::stderr(&output)
    );
    let mut names: Vec<String> = std::fs::read_dir(&dir)
        .expect("written")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    assert_eq!(names.len(), 3, "{names:?}");
    for (name, transport) in names.iter().zip(["grpc", "jsonrpc", "rest"]) {
        assert!(
            name.starts_with(&format!("acts-report-example-sdk-{transport}-"))
                && name.ends_with("Z.json"),
            "{name}"
        );
        assert!(
            stdout.contains(&format!("ACTS {transport}: MUST ")),
            "{stdout}"
        );
        let instance: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(dir.join(name)).expect("read"))
                .expect("JSON");
        let errors: Vec<String> = schema()
            .iter_errors(&instance)
            .map(|e| e.to_string())
            .collect();
        assert!(errors.is_empty(), "{name}: {errors:?}");
        assert_eq!(instance["sdk"]["language"], "rust");
    }
    // One binding, one path; several bindings and one path is an error of the write.
    let path = support::temp_path("acts", "one.json");
    let output = std::process::Command::new(support::BIN)
        .args([
            "--fault",
            "acts-contract-only",
            "--select",
            "card.*",
            "--binding",
            "rest",
        ])
        .args(["--contract", "acts", "--acts-report"])
        .arg(&path)
        .output()
        .expect("the kit runs");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}",
        support::stderr(&output)
    );
    let written: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("written")).expect("JSON");
    assert_eq!(written["transport"], "rest");
    let output = std::process::Command::new(support::BIN)
        .args([
            "--fault",
            "acts-contract-only",
            "--select",
            "card.*",
            "--acts-report",
        ])
        .arg(support::temp_path("acts", "many.json"))
        .output()
        .expect("the kit runs");
    assert_eq!(output.status.code(), Some(2));
    assert!(support::stderr(&output).contains("give a directory"));
}

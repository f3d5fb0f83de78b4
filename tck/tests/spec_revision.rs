//! `--spec-revision`: one agent that follows the 1.0.0 error table (fault
//! `errors-1-0-0-table`) and the conformant reference agent, which follows 1.0.1, judged by
//! the default (latest, tolerant), by 1.0.0 and by 1.0.1. The two revisions give different
//! verdicts on an agent that follows one table; the default tolerates the older one.

use a2a_tck::api::{self, Binding, Fault, Options, Report, Status};
use a2a_tck::reporting::report::CheckResult;
use a2a_tck::suite::revised::REVISED;

/// The results that show the six rows 1.0.1 changed on the reference agent: where both
/// tables differ on the binding the check meets them on.
const CHANGED: &[(&str, Binding)] = &[
    ("tasks.cancel.terminal-task-not-cancelable", Binding::Rest),
    ("versioning.unsupported-version-rejected", Binding::Grpc),
    ("send.terminal-task-rejects-message", Binding::Grpc),
    ("grpc.service-parameters-in-metadata", Binding::Grpc),
];

fn options(faults: &[Fault], revision: &str, select_all: bool) -> Options {
    let mut config = a2a_tck::run::builtin::profile();
    config.faults.extend(faults.iter().copied());
    let mut options = Options::builtin_with(config).spec_revision(revision);
    if !select_all {
        for revised in REVISED {
            options = options.select(revised.check);
        }
    }
    options
}

async fn run(faults: &[Fault], revision: &str) -> Report {
    api::run(&options(faults, revision, false))
        .await
        .expect("the run starts")
}

fn result<'a>(report: &'a Report, id: &str, binding: Binding) -> &'a CheckResult {
    report
        .results
        .iter()
        .find(|r| r.id == id && r.binding == Some(binding) && r.version.is_some())
        .unwrap_or_else(|| panic!("a result of {id} on {binding}"))
}

fn statuses(report: &Report) -> Vec<(String, Status)> {
    CHANGED
        .iter()
        .map(|(id, binding)| {
            let r = result(report, id, *binding);
            (format!("{id} [{binding}]"), r.status)
        })
        .collect()
}

fn all(status: Status) -> Vec<(String, Status)> {
    CHANGED
        .iter()
        .map(|(id, binding)| (format!("{id} [{binding}]"), status))
        .collect()
}

/// Every result of the selection passed (or did not apply).
fn nothing_else(report: &Report) -> Vec<String> {
    report
        .results
        .iter()
        .filter(|r| !matches!(r.status, Status::Pass | Status::NotApplicable))
        .map(|r| format!("{} {:?} {:?}: {}", r.id, r.binding, r.status, r.message))
        .collect()
}

#[tokio::test(flavor = "multi_thread")]
async fn an_agent_of_the_1_0_0_table_is_tolerated_by_default_passes_1_0_0_and_fails_1_0_1() {
    // The default: the whole run, so that every tolerated answer shows, and each is of a
    // check `explain` says differs by revision.
    let report = api::run(&options(&[Fault::Errors100Table], "latest", true))
        .await
        .expect("the run starts");
    assert_eq!(statuses(&report), all(Status::Warn));
    let tolerated: Vec<&str> = (report.results.iter())
        .filter(|r| r.message.contains("tolerated, not failed"))
        .map(|r| r.id.as_str())
        .collect();
    assert!(!tolerated.is_empty());
    for id in &tolerated {
        assert!(
            REVISED.iter().any(|r| r.check == *id),
            "{id} tolerates a 1.0.0 answer but is not in revised::REVISED"
        );
    }
    let judged = report.spec_revision.as_ref().expect("a 1.0 run");
    assert_eq!((judged.revision.as_str(), judged.tolerant), ("1.0.1", true));
    assert_eq!(judged.tolerated, ["1.0.0"]);

    let report = run(&[Fault::Errors100Table], "1.0.0").await;
    assert_eq!(statuses(&report), all(Status::Pass));
    assert_eq!(nothing_else(&report), Vec::<String>::new());
    let judged = report.spec_revision.as_ref().expect("a 1.0 run");
    assert_eq!(
        (judged.revision.as_str(), judged.tolerant),
        ("1.0.0", false)
    );
    let cancel = (report.readings.iter())
        .find(|r| r.sentence.contains("TaskNotCancelableError"))
        .expect("the cancel row met");
    assert_eq!(cancel.section, "5.4");
    assert!(cancel.reading.contains("HTTP 409"), "{}", cancel.reading);
    assert!(cancel
        .checks
        .contains(&"tasks.cancel.terminal-task-not-cancelable".to_string()));

    let report = run(&[Fault::Errors100Table], "1.0.1").await;
    assert_eq!(statuses(&report), all(Status::Fail));
    let cancel = result(
        &report,
        "tasks.cancel.terminal-task-not-cancelable",
        Binding::Rest,
    );
    assert!(
        !cancel.message.contains("tolerated"),
        "no tolerance when pinned: {}",
        cancel.message
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn the_reference_agent_of_the_1_0_1_table_fails_1_0_0_and_passes_1_0_1() {
    let report = run(&[], "1.0.0").await;
    assert_eq!(statuses(&report), all(Status::Fail));
    let cancel = result(
        &report,
        "tasks.cancel.terminal-task-not-cancelable",
        Binding::Rest,
    );
    assert!(cancel.message.contains("HTTP 409"), "{}", cancel.message);

    let report = run(&[], "1.0.1").await;
    assert_eq!(statuses(&report), all(Status::Pass));
    assert_eq!(nothing_else(&report), Vec::<String>::new());
}

/// ErrorInfo in a JSON-RPC error.data: a MUST in 1.0.0, a SHOULD in 1.0.1 and by default.
#[tokio::test(flavor = "multi_thread")]
async fn json_rpc_error_info_is_a_must_under_1_0_0_only() {
    let id = "jsonrpc.errors.error-info-in-data";
    for (revision, level, status) in [
        ("latest", a2a_tck::suite::check::Level::Should, Status::Warn),
        ("1.0.1", a2a_tck::suite::check::Level::Should, Status::Warn),
        ("1.0.0", a2a_tck::suite::check::Level::Must, Status::Fail),
    ] {
        let mut config = a2a_tck::run::builtin::profile();
        config.faults.insert(Fault::OmitErrorInfo);
        let options = Options::builtin_with(config)
            .select(id)
            .spec_revision(revision);
        let report = api::run(&options).await.expect("the run starts");
        let r = result(&report, id, Binding::Jsonrpc);
        assert_eq!(
            (r.level, r.status),
            (level, status),
            "{revision}: {}",
            r.message
        );
    }
}

#[tokio::test(flavor = "multi_thread")]
async fn an_unknown_revision_is_a_usage_error() {
    let options = Options::builtin().select("card.*").spec_revision("1.0.2");
    match api::run(&options).await {
        Err(api::Error::Usage(message)) => assert!(message.contains("1.0.0, 1.0.1, latest")),
        other => panic!("expected a usage error, got {:?}", other.map(|r| r.verdict)),
    }
}

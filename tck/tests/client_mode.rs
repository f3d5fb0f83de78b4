//! Client mode (`a2a-tck client`): the reference client passes every client check; each check
//! fails (FAIL for MUST, WARN for SHOULD) under the reference client's fault that the table names
//! for it, and the fault list and the table agree; a broken or silent adapter gives ERROR, never
//! FAIL; the reports of a client run are the usual ones, marked with their mode and client; an
//! adapter that starts slowly gives the same results run once per scenario or staying up (one
//! start besides the describe run), each result carrying its play's exchanges and its own standard error; a hung adapter
//! that stays up is an ERROR, killed and started again for the next scenario.

use std::collections::BTreeSet;
use std::path::Path;
use std::time::Duration;

use a2a_tck::client::adapter::Client;
use a2a_tck::client::client_checks;
use a2a_tck::client::client_runner::{run, ClientOptions};
use a2a_tck::client::reference_client::ClientFault;
use a2a_tck::suite::check::{Level, Status};
use a2a_tck::suite::filter::Filter;

#[path = "negative/client.rs"]
mod cases;
use a2a_tck::reporting::report::{Mode, Verdict};

fn options(client: Client, select: Vec<String>) -> ClientOptions {
    ClientOptions {
        client,
        scenario_timeout: Duration::from_secs(30),
        filter: Filter {
            select,
            ..Filter::default()
        },
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_reference_client_passes_every_check_on_every_binding_and_version() {
    let report = run(&options(Client::Reference(Vec::new()), Vec::new())).await;
    let failing: Vec<String> = (report.results.iter())
        .filter(|r| r.status != Status::Pass)
        .map(|r| {
            format!(
                "{} ({:?} {:?}): {:?} {}",
                r.id, r.binding, r.version, r.status, r.message
            )
        })
        .collect();
    assert!(failing.is_empty(), "{failing:#?}");
    assert_eq!(
        report.verdict,
        Verdict::Conformant,
        "{}",
        report.verdict_reason
    );
    assert_eq!(report.mode, Some(Mode::Client));
    let client = report.client.as_ref().expect("the client's identity");
    assert_eq!(client.name, "a2a-tck reference client");
    assert_eq!(client.command, "builtin");
    let ids: BTreeSet<&str> = report.results.iter().map(|r| r.id.as_str()).collect();
    assert_eq!(ids.len(), client_checks::all().len(), "every check ran");
    let places: BTreeSet<String> = report
        .results
        .iter()
        .map(a2a_tck::reporting::report::place)
        .collect();
    assert_eq!(places.len(), 6, "three bindings x two versions: {places:?}");
    // The play's bearer token is scrubbed from the report, as a server run's credentials are.
    let authenticated = (report.results.iter())
        .find(|r| r.id == "client.extended-card.authenticated")
        .expect("the extended-card play ran");
    let scenario = (authenticated.evidence.first())
        .and_then(|e| e.request.body.as_ref())
        .and_then(|b| b.json.as_ref())
        .expect("the scenario in the evidence");
    assert_eq!(scenario["bearer"], "[redacted]");
    let sent = (authenticated
        .evidence
        .iter()
        .flat_map(|e| &e.request.headers))
    .find(|(name, _)| name.eq_ignore_ascii_case("authorization"))
    .expect("the client sent its credentials");
    assert_eq!(sent.1, "[redacted]");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_check_fails_under_its_fault() {
    let mut missed = Vec::new();
    for case in cases::CASES {
        let check = client_checks::find(case.check).expect("a case of a client check");
        let fault = case.fault;
        let report = run(&options(
            Client::Reference(vec![fault]),
            vec![check.id.to_owned()],
        ))
        .await;
        let expected = match check.level {
            Level::Must => Status::Fail,
            _ => Status::Warn,
        };
        let statuses: Vec<Status> = (report.results.iter())
            .filter(|r| r.id == check.id)
            .map(|r| r.status)
            .collect();
        if !statuses.contains(&expected) {
            missed.push(format!("{} under {fault}: {statuses:?}", check.id));
        }
    }
    assert!(
        missed.is_empty(),
        "checks that do not fail under their fault: {missed:#?}"
    );
}

#[test]
fn every_check_has_a_case_and_every_fault_breaks_exactly_one() {
    let cased: Vec<&str> = cases::CASES.iter().map(|c| c.check).collect();
    let checks: Vec<&str> = client_checks::all().iter().map(|c| c.id).collect();
    assert_eq!(
        cased.iter().copied().collect::<BTreeSet<_>>(),
        checks.iter().copied().collect::<BTreeSet<_>>(),
        "client checks without a negative case, or cases of no check"
    );
    assert_eq!(cased.len(), checks.len(), "a check with two cases");
    let named: Vec<ClientFault> = cases::CASES.iter().map(|c| c.fault).collect();
    let unique: BTreeSet<ClientFault> = named.iter().copied().collect();
    assert_eq!(unique.len(), named.len(), "a fault named by two checks");
    let all: BTreeSet<ClientFault> = ClientFault::ALL.iter().copied().collect();
    assert_eq!(
        unique, all,
        "the cases' faults and the reference client's differ"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_adapter_that_prints_nothing_gives_error_or_untestable_never_fail() {
    // Describes itself, then does nothing for every play.
    let script = r#"if grep -q describe "$A2A_TCK_SCENARIO"; then
  echo '{"event":"client","name":"silent","version":"0","bindings":["JSONRPC"],"versions":["1.0"],"features":[]}'
fi"#;
    let report = run(&options(Client::Command(script.into()), Vec::new())).await;
    let judged: Vec<String> = (report.results.iter())
        .filter(|r| matches!(r.status, Status::Fail | Status::Warn | Status::Pass))
        .map(|r| format!("{} {:?}: {}", r.id, r.status, r.message))
        .collect();
    assert!(judged.is_empty(), "a silent client was judged: {judged:#?}");
    assert!(
        report
            .results
            .iter()
            .any(|r| r.status == Status::NotApplicable),
        "REST and gRPC are N/A"
    );
    assert_eq!(report.verdict, Verdict::Inconclusive);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_adapter_past_its_deadline_is_an_error_with_the_reason() {
    let script = r#"if grep -q describe "$A2A_TCK_SCENARIO"; then
  echo '{"event":"client","name":"slow","version":"0","bindings":["JSONRPC"],"versions":["1.0"],"features":[]}'
else sleep 20; fi"#;
    let mut options = options(
        Client::Command(script.into()),
        vec!["client.read.results".into()],
    );
    options.scenario_timeout = Duration::from_millis(500);
    let report = run(&options).await;
    let result = (report.results.iter())
        .find(|r| r.id == "client.read.results" && r.status != Status::NotApplicable)
        .expect("the check ran on JSON-RPC 1.0");
    assert_eq!(result.status, Status::Error, "{}", result.message);
    assert!(
        result.message.contains("scenario timeout"),
        "{}",
        result.message
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_cannot_describe_itself_gives_an_error_report() {
    let report = run(&options(Client::Command("exit 3".into()), Vec::new())).await;
    assert_eq!(report.verdict, Verdict::Error);
    assert!(report
        .failure
        .expect("a failure")
        .message
        .contains("describe"));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_report_renders_in_every_format_and_names_its_client() {
    let report = run(&options(
        Client::Reference(vec![ClientFault::LastInterface]),
        vec!["client.interface.*".into()],
    ))
    .await;
    assert_eq!(report.verdict, Verdict::NonConformant);
    for format in a2a_tck::reporting::format::Format::ALL {
        let text = format.render(&report, None).expect("the report renders");
        assert!(
            text.contains("client.interface.first-supported"),
            "{format:?}"
        );
    }
    let markdown = a2a_tck::reporting::format::Format::Markdown
        .render(&report, None)
        .expect("markdown");
    assert!(
        markdown.contains("Client a2a-tck reference client"),
        "{markdown}"
    );
    // The plays' exchanges, the passing ones' too.
    assert!(markdown.contains("## Exchanges of each play"), "{markdown}");
    assert!(
        markdown.contains("/.well-known/agent-card.json"),
        "{markdown}"
    );
    let html = a2a_tck::reporting::format::Format::Html
        .render(&report, None)
        .expect("html");
    assert!(html.contains("/.well-known/agent-card.json"));
    let json: serde_json::Value = serde_json::from_str(&report.to_json()).expect("JSON");
    assert_eq!(json["mode"], "client");
    assert_eq!(json["client"]["command"], "builtin");
    let dir = tempfile::tempdir().expect("a scratch folder");
    let path = dir.path().join("client.json");
    report.write(&path).expect("written");
    let read = a2a_tck::reporting::report::Report::read(&path).expect("the report reads back");
    assert_eq!(read, report);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_timeout_play_bounds_its_own_wait_on_a_client_that_ignores_its_deadline() {
    // The stage holds the answer 2.5 s, whatever the client's own default.
    let report = run(&options(
        Client::Reference(vec![ClientFault::IgnoreTimeout]),
        vec!["client.timeout.gives-up".into()],
    ))
    .await;
    assert_eq!(report.results.len(), 6, "one result per binding x version");
    for result in &report.results {
        assert_eq!(result.status, Status::Warn, "{}", result.message);
        assert!(
            result.message.contains("held the answer"),
            "{}",
            result.message
        );
        assert!(
            result.duration_ms < 10_000,
            "the play waited {} ms",
            result.duration_ms
        );
    }
}

/// `tck/tests/adapters/slow_adapter.py` in `mode`, noting its starts in `starts`.
fn slow_adapter(mode: &str, starts: &Path, delay: &str) -> Client {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/adapters/slow_adapter.py");
    Client::Command(format!(
        "SLOW_ADAPTER_MODE={mode} SLOW_ADAPTER_DELAY={delay} SLOW_ADAPTER_STARTS='{}' python3 '{}'",
        starts.display(),
        script.display()
    ))
}

fn starts_in(path: &Path) -> usize {
    std::fs::read_to_string(path).map_or(0, |text| text.lines().count())
}

/// What the adapter printed on standard error in the play of `result` (its evidence's first
/// exchange is the adapter's run).
fn adapter_output(result: &a2a_tck::reporting::report::CheckResult) -> String {
    let run = result.evidence.first().expect("the play's evidence");
    assert_eq!(run.request.method, "ADAPTER");
    let printed = run.response.as_ref().expect("what it printed");
    let json = printed.body.json.as_ref().expect("as JSON");
    json["other_output"].as_str().unwrap_or("").to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_adapter_gives_the_same_results_run_per_scenario_or_staying_up() {
    let mut statuses = Vec::new();
    // The describe run and one run per scenario (JSON-RPC in 1.0 and 0.3); or the describe
    // run and one process for every scenario.
    for (mode, expected_starts) in [("one-shot", 3), ("persistent", 2)] {
        let dir = tempfile::tempdir().expect("a scratch folder");
        let starts = dir.path().join("starts");
        let report = run(&options(
            slow_adapter(mode, &starts, "1"),
            vec!["client.card.tolerates-unknown-fields".into()],
        ))
        .await;
        let ran: Vec<&a2a_tck::reporting::report::CheckResult> = (report.results.iter())
            .filter(|r| r.status != Status::NotApplicable)
            .collect();
        let mut here = Vec::new();
        for result in &ran {
            assert_eq!(result.status, Status::Pass, "{mode}: {}", result.message);
            let version = result.version.expect("a version").as_str();
            let other = if version == "1.0" { "0.3" } else { "1.0" };
            let said = adapter_output(result);
            assert!(
                said.contains(&format!("scenario basic JSONRPC {version}\n"))
                    && !said.contains(&format!("JSONRPC {other}")),
                "{mode}: each play keeps its own standard error: {said}"
            );
            assert!(
                (result.evidence.iter()).any(|e| e.request.method == "GET"
                    && e.request.url.ends_with("/.well-known/agent-card.json")
                    && e.response.as_ref().is_some_and(|r| {
                        r.status == 200
                            && (r.body.json.as_ref()).is_some_and(|card| card["skills"].is_array())
                    })),
                "{mode}: a passing result shows the client's requests and the card served: {:?}",
                result.evidence
            );
            here.push((result.id.clone(), version.to_owned(), result.status));
        }
        assert_eq!(here.len(), 2, "{mode}: JSON-RPC 1.0 and 0.3");
        assert_eq!(starts_in(&starts), expected_starts, "{mode}: starts");
        let compatibility = report.compatibility.expect("a compatibility figure");
        assert_eq!(
            compatibility.tested_on,
            vec!["jsonrpc 1.0", "jsonrpc 0.3"],
            "{mode}: the pairs the client declares"
        );
        statuses.push(here);
    }
    assert_eq!(statuses[0], statuses[1]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_hung_adapter_that_stays_up_is_an_error_and_is_started_again() {
    let dir = tempfile::tempdir().expect("a scratch folder");
    let starts = dir.path().join("starts");
    let mut options = options(
        slow_adapter("hang", &starts, "0.2"),
        vec!["client.card.tolerates-unknown-fields".into()],
    );
    options.scenario_timeout = Duration::from_secs(3);
    let report = run(&options).await;
    let ran: Vec<&a2a_tck::reporting::report::CheckResult> = (report.results.iter())
        .filter(|r| r.status != Status::NotApplicable)
        .collect();
    let statuses: Vec<Status> = ran.iter().map(|r| r.status).collect();
    assert_eq!(statuses, vec![Status::Error, Status::Pass], "{ran:#?}");
    assert!(
        ran[0].message.contains("scenario timeout"),
        "{}",
        ran[0].message
    );
    assert!(
        adapter_output(ran[0]).contains("hanging"),
        "its standard error is kept"
    );
    // The describe run, the process of the first scenario, and the one started after it.
    assert_eq!(starts_in(&starts), 3, "started again after it was killed");
}

//! The verdict says what the run could not judge: an agent that wants credentials the kit was
//! not given is not non-conformant, a run that left checks out says so, and a floor on what
//! was judged fails the gate. The agents are scripted servers on 127.0.0.1 that each test
//! starts and stops.

use crate::support;

use a2a_tck::reporting::report::{Report, Verdict};
use a2a_tck::suite::check::Status;
use serde_json::json;
use wiremock::matchers::{header, method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn temp_path(name: &str) -> std::path::PathBuf {
    support::temp_path("verdict", name)
}

/// A card with a bearer security scheme, 1.0 JSON-RPC and HTTP+JSON interfaces and a 0.3 half
/// (`url`, `preferredTransport`), all on `base`; every other request gets HTTP 401 with a
/// body that is not the binding's error form (as a FastAPI or Starlette guard answers).
async fn guarded_agent() -> MockServer {
    let server = MockServer::start().await;
    let base = server.uri();
    let card = json!({
        "name": "guarded", "description": "an agent behind a bearer token", "version": "1",
        "protocolVersion": "0.3", "url": format!("{base}/v03"), "preferredTransport": "JSONRPC",
        "supportedInterfaces": [
            {"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": format!("{base}/rest"), "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": true},
        "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
        "security": [{"bearer": []}],
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "echo", "description": "echoes", "tags": ["echo"]}]
    });
    Mock::given(method("GET"))
        .and(path("/.well-known/agent-card.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(card))
        .with_priority(1)
        .mount(&server)
        .await;
    Mock::given(wiremock::matchers::any())
        .respond_with(
            ResponseTemplate::new(401)
                .insert_header("www-authenticate", "Bearer")
                .set_body_json(json!({"detail": "Not authenticated"})),
        )
        .mount(&server)
        .await;
    server
}

async fn run(args: &[&str], report: &std::path::Path) -> (std::process::Output, Report) {
    let mut all: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    all.extend(["--report".to_string(), report.display().to_string()]);
    let output = support::kit(all).await;
    let read = Report::read(report).unwrap_or_else(|e| {
        panic!(
            "a complete report: {e}; stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, read)
}

#[tokio::test]
async fn an_agent_wanting_credentials_is_not_non_conformant_and_the_verdict_names_the_flag() {
    let server = guarded_agent().await;
    let (output, report) = run(&["--target", &server.uri()], &temp_path("guarded.json")).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_ne!(report.verdict, Verdict::NonConformant, "{stdout}");
    assert_eq!(report.verdict, Verdict::Inconclusive, "{stdout}");
    assert!(
        report.verdict_reason.contains("credentials") && report.verdict_reason.contains("--bearer"),
        "{}",
        report.verdict_reason
    );
    assert!(report
        .interfaces
        .iter()
        .filter(|i| i.tested)
        .all(|i| i.needs_credentials));
    // No check fails on the kit's own unauthenticated request.
    let failed: Vec<&str> = report
        .results
        .iter()
        .filter(|r| r.status == Status::Fail)
        .filter(|r| {
            r.evidence.iter().any(|e| {
                e.response
                    .as_ref()
                    .is_some_and(|answer| matches!(answer.status, 401 | 403))
            })
        })
        .map(|r| r.id.as_str())
        .collect();
    assert!(failed.is_empty(), "FAIL on a 401: {failed:?}");
    let v03 = report
        .results
        .iter()
        .find(|r| r.id == "v03.card.declared-transports-answer")
        .expect("the 0.3 card check ran");
    assert_ne!(v03.status, Status::Fail, "{}", v03.message);
    assert_eq!(output.status.code(), Some(1), "{stdout}");
    let verdict_line = stdout
        .lines()
        .find(|l| l.starts_with("verdict:"))
        .expect("a verdict line");
    assert!(verdict_line.contains("--bearer"), "{verdict_line}");
}

#[tokio::test]
async fn the_kit_sends_the_credentials_it_was_given_on_every_request() {
    // The agent answers a request with the token 500, one without it 401. Every check runs,
    // but those whose point is the absence of credentials (auth.*, extended-card.*): none
    // may send a request without the token it was given.
    let server = guarded_agent().await;
    Mock::given(header("authorization", "Bearer SECRET"))
        .respond_with(ResponseTemplate::new(500))
        .with_priority(2)
        .mount(&server)
        .await;
    let uri = server.uri();
    let mut args = vec!["--target", uri.as_str(), "--bearer", "SECRET"];
    let catalog = a2a_tck::suite::checks::all();
    for check in &catalog {
        if !(check.id.starts_with("auth.") || check.id.starts_with("extended-card.")) {
            args.extend(["--select", check.id]);
        }
    }
    let (_, report) = run(&args, &temp_path("given.json")).await;
    let requests = server.received_requests().await.expect("recorded");
    let bare: Vec<String> = requests
        .iter()
        .filter(|r| r.url.path() != "/.well-known/agent-card.json")
        .filter(|r| !r.headers.contains_key("authorization"))
        .map(|r| format!("{} {}", r.method, r.url))
        .collect();
    assert!(
        bare.is_empty(),
        "requests without the credentials: {bare:?}"
    );
    assert!(!report.results.is_empty());
}

/// The built-in agent, run with `args` through the binary.
async fn builtin(name: &str, args: &[&str]) -> (std::process::Output, Report) {
    run(args, &temp_path(&format!("{name}.json"))).await
}

#[tokio::test]
async fn a_should_only_selection_that_passes_exits_0_and_says_it_is_partial() {
    // The README's durability recipe: every check of the area is a SHOULD.
    let (output, report) = builtin(
        "durability",
        &["--durability", "--select", "durability.*", "--quiet"],
    )
    .await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(report.results.iter().all(|r| r.status == Status::Pass));
    assert_eq!(report.verdict, Verdict::Conformant, "{stdout}");
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let partial = report.partial.as_ref().expect("a selection is partial");
    assert!(partial.checks_not_selected > 0, "{partial:?}");
    assert!(
        stdout.contains("verdict: conformant (partial: ") && stdout.contains("checks not selected"),
        "{stdout}"
    );
}

#[tokio::test]
async fn contract_none_passes_on_what_it_ran_and_a_floor_can_refuse_it() {
    let args = [
        "--contract",
        "none",
        "--binding",
        "jsonrpc",
        "--protocol-version",
        "1.0",
    ];
    let (html, markdown) = (temp_path("none.html"), temp_path("none.md"));
    let mut written: Vec<&str> = args.to_vec();
    written.extend(["--html", html.to_str().expect("utf8")]);
    written.extend(["--markdown", markdown.to_str().expect("utf8")]);
    let (output, report) = builtin("none", &written).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert_eq!(report.verdict, Verdict::Conformant, "{stdout}");
    // Every format gives the same verdict, `partial` included: the HTML headline and title
    // too.
    let words = report.verdict_words();
    let page = std::fs::read_to_string(&html).expect("html");
    let headline = (page.split("<h1>").nth(1)).and_then(|h| h.split("</h1>").next());
    assert!(
        headline.is_some_and(|h| h.contains(&words)),
        "{words}: {headline:?}"
    );
    assert!(page.contains(&format!(": {words}</title>")), "{words}");
    let md = std::fs::read_to_string(&markdown).expect("markdown");
    assert!(
        md.lines().next().is_some_and(|l| l.ends_with(&words)),
        "{md}"
    );
    assert!(stdout.contains(&format!("verdict: {words}")), "{stdout}");
    // `none` sends no scenario: nothing is said to carry one.
    assert!(
        stdout.contains("no scenario sent") && !stdout.contains("carried in the messageId"),
        "{stdout}"
    );
    assert_eq!(output.status.code(), Some(0), "{stdout}");
    let partial = report.partial.as_ref().expect("partial");
    assert!(partial.checks_not_run > 0, "{partial:?}");
    assert_eq!(partial.interfaces_not_selected, report.interfaces.len() - 1);
    assert!(
        report.verdict_words().starts_with("conformant (partial: ")
            && report
                .verdict_words()
                .contains("not run (no scenario contract)"),
        "{}",
        report.verdict_words()
    );
    // A floor of every planned result: the results not run keep it from being met.
    let mut floored: Vec<&str> = args.to_vec();
    floored.extend(["--min-judged", "100%", "--quiet"]);
    let (output, report) = builtin("none-floored", &floored).await;
    assert_eq!(output.status.code(), Some(1));
    let floor = report.floor.expect("the floor is in the report");
    assert!(!floor.passed && floor.judged < floor.planned, "{floor:?}");
    assert!(String::from_utf8_lossy(&output.stdout).contains("floor: FAIL"));
    // A floor the run meets leaves the exit status alone.
    let mut met: Vec<&str> = args.to_vec();
    met.extend(["--min-judged", "1"]);
    let (output, report) = builtin("none-met", &met).await;
    assert_eq!(output.status.code(), Some(0));
    assert!(report.floor.expect("floor").passed);
    // Nonsense is a usage error.
    let bad = support::kit(vec!["--min-judged".into(), "lots".into()]).await;
    assert_eq!(bad.status.code(), Some(2));
}

#[tokio::test]
async fn a_full_run_is_not_partial() {
    let (_, report) = builtin("full", &["--select", "*", "--quiet"]).await;
    assert_eq!(report.partial, None, "{:?}", report.partial);
    assert_eq!(report.verdict_words(), report.verdict.as_str());
}

fn result(
    id: &str,
    level: a2a_tck::suite::check::Level,
    status: Status,
) -> a2a_tck::reporting::report::CheckResult {
    a2a_tck::reporting::report::CheckResult {
        id: id.into(),
        level,
        spec_version: "1.0".into(),
        section: "1".into(),
        statements: Vec::new(),
        requirement: String::new(),
        binding: Some(a2a_tck::suite::check::Binding::Jsonrpc),
        version: Some(a2a_tck::suite::check::ProtocolVersion::V1_0),
        status,
        message: String::new(),
        reading: None,
        maps_to: Vec::new(),
        acts: Vec::new(),
        duration_ms: 0,
        evidence: Vec::new(),
        configuration: None,
    }
}

#[test]
fn the_verdict_rules_name_their_units_and_judge_what_was_selected() {
    use a2a_tck::reporting::report::VerdictScope;
    use a2a_tck::suite::check::Level::{Must, Should};
    let scope = |must_selected, needs: &[&str]| VerdictScope {
        interfaces_tested: 2,
        needs_credentials: needs.iter().map(|s| s.to_string()).collect(),
        must_selected,
    };
    // Counts say results and checks.
    let failing = [
        result("a", Must, Status::Fail),
        result("a", Must, Status::Fail),
        result("b", Must, Status::Pass),
    ];
    let (verdict, reason) = Verdict::of(&failing, &scope(true, &[]));
    assert_eq!(verdict, Verdict::NonConformant);
    assert_eq!(reason, "1 MUST check failed (2 results)");
    // Refused for credentials: inconclusive, even beside a failure, naming the flag.
    let (verdict, reason) = Verdict::of(&failing, &scope(true, &["JSONRPC 1.0"]));
    assert_eq!(verdict, Verdict::Inconclusive);
    assert!(reason.contains("--bearer") && reason.contains("besides, 1 MUST check failed"));
    // SHOULD-only, all passing: conformant; all N/A: nothing was judged.
    let should = [
        result("s", Should, Status::Pass),
        result("s", Should, Status::Warn),
    ];
    assert_eq!(
        Verdict::of(&should, &scope(false, &[])).0,
        Verdict::Conformant
    );
    let none = [result("s", Should, Status::NotApplicable)];
    assert_eq!(
        Verdict::of(&none, &scope(false, &[])).0,
        Verdict::Inconclusive
    );
    // MUST checks selected, none applied: still inconclusive.
    let na = [
        result("m", Must, Status::NotApplicable),
        result("s", Should, Status::Pass),
    ];
    assert_eq!(Verdict::of(&na, &scope(true, &[])).0, Verdict::Inconclusive);
    let partial = a2a_tck::reporting::report::Partial {
        checks_not_selected: 1,
        checks_not_run: 61,
        interfaces_not_selected: 2,
    };
    assert_eq!(
        partial.words(),
        "61 checks not run (no scenario contract), 1 check not selected, 2 interfaces not selected"
    );
    assert_eq!(
        a2a_tck::reporting::report::Partial::default().if_any(),
        None
    );
}

/// A drive-file run's checks not run are those the drive file does not give, and its verdict
/// says so, never "no scenario contract".
#[test]
fn a_drive_file_run_names_the_drive_file_for_what_it_did_not_run() {
    use a2a_tck::suite::contract::{Carrier, Contract, ContractReport};
    let partial = a2a_tck::reporting::report::Partial {
        checks_not_run: 3,
        ..Default::default()
    };
    let drive = ContractReport {
        requested: Some(Contract::Drive),
        detected: None,
        used: Contract::Drive,
        carrier: Carrier::DriveFile,
        kit_scenarios: Vec::new(),
        honoured: Vec::new(),
        evidence: Vec::new(),
        sut_behaviors: None,
        card_driven: None,
    };
    assert_eq!(
        partial.words_for(Some(&drive)),
        "3 checks not run (not in the drive file)"
    );
    assert_eq!(partial.words(), "3 checks not run (no scenario contract)");
}

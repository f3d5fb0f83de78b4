//! The reports beside the JSON one carry what the Markdown carries: JUnit cases named by
//! check and place with WARN visible, the HTML sections, a SARIF log whose results are
//! located in the card or the baseline, the agent's latency; and `a2a-tck card FILE|URL`
//! judges a card without an agent, with the same outputs and exit codes.

use crate::support;

use std::path::{Path, PathBuf};
use std::process::Output;

use a2a_tck::exchange::evidence::{Exchange, RecordedBody, RecordedRequest, RecordedResponse};
use a2a_tck::reporting::report::{Report, Verdict};
use a2a_tck::run::runner::{self, RunOptions};
use a2a_tck::suite::check::{Binding, Status};
use scraper::{Html, Selector};
use serde_json::Value;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn cards_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/cards")
}

fn temp(name: &str) -> PathBuf {
    support::temp_path("outputs", name)
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn code(output: &Output) -> Option<i32> {
    output.status.code()
}

/// The SARIF 2.1.0 JSON Schema, as the SARIF Multitool ships it (npm package
/// `@microsoft/sarif-multitool-linux` 5.7.0, MIT), kept here so the test runs offline.
fn sarif_schema() -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/schemas/sarif-2.1.0.json");
    serde_json::from_str(&read(&path)).expect("the SARIF schema is JSON")
}

/// The SARIF log validates against the SARIF 2.1.0 schema, and holds to what code-scanning
/// views read besides: version, driver and rules (each with a help text, which GitHub
/// requires), and results whose rule exists at its index, with a level, a message and a
/// located artifact with a region.
fn assert_sarif_shape(log: &Value) {
    let schema = sarif_schema();
    let validator = jsonschema::validator_for(&schema).expect("the SARIF schema compiles");
    let errors: Vec<String> = validator
        .iter_errors(log)
        .map(|e| format!("{} at {}", e, e.instance_path()))
        .collect();
    assert!(errors.is_empty(), "not valid SARIF 2.1.0: {errors:#?}");
    assert_eq!(log["version"], "2.1.0");
    assert!(log["$schema"]
        .as_str()
        .is_some_and(|s| s.contains("sarif-2.1.0")));
    let run = &log["runs"][0];
    let driver = &run["tool"]["driver"];
    assert_eq!(driver["name"], "a2a-tck");
    let rules = driver["rules"].as_array().expect("rules");
    for rule in rules {
        assert!(rule["id"].as_str().is_some_and(|id| !id.is_empty()));
        assert!(rule["shortDescription"]["text"].as_str().is_some());
        assert!(rule["help"]["text"].as_str().is_some(), "{rule}");
        let level = rule["defaultConfiguration"]["level"].as_str();
        assert!(
            matches!(level, Some("error" | "warning" | "note")),
            "{rule}"
        );
    }
    for result in run["results"].as_array().expect("results") {
        let index = result["ruleIndex"].as_u64().expect("ruleIndex") as usize;
        assert_eq!(rules[index]["id"], result["ruleId"], "{result}");
        let level = result["level"].as_str();
        assert!(
            matches!(level, Some("error" | "warning" | "note")),
            "{result}"
        );
        assert!(result["message"]["text"]
            .as_str()
            .is_some_and(|t| !t.is_empty()));
        let physical = &result["locations"][0]["physicalLocation"];
        assert!(physical["artifactLocation"]["uri"]
            .as_str()
            .is_some_and(|u| !u.is_empty()));
        assert!(physical["region"]["startLine"]
            .as_u64()
            .is_some_and(|l| l >= 1));
    }
    assert!(run["invocations"][0]["executionSuccessful"].is_boolean());
}

/// `a2a-tck card <source> <args>` run from `dir`, with every report written into the temp
/// directory under `name`; returns the output and the report.
async fn card(dir: &Path, source: &str, name: &str, args: &[&str]) -> (Output, Report) {
    let report = temp(&format!("{name}.json"));
    let mut all: Vec<String> = vec!["card".into(), source.into()];
    all.extend(args.iter().map(|a| a.to_string()));
    for (flag, ext) in [
        ("--report", "json"),
        ("--junit", "xml"),
        ("--markdown", "md"),
        ("--html", "html"),
        ("--sarif", "sarif"),
    ] {
        all.push(flag.into());
        all.push(temp(&format!("{name}.{ext}")).display().to_string());
    }
    let dir = dir.to_path_buf();
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(support::BIN)
            .args(&all)
            .current_dir(dir)
            .output()
    })
    .await
    .expect("join")
    .expect("the kit runs");
    let report = Report::read(&report).unwrap_or_else(|e| {
        panic!(
            "a complete report: {e}; stderr: {}",
            String::from_utf8_lossy(&output.stderr)
        )
    });
    (output, report)
}

fn result<'a>(report: &'a Report, id: &str) -> &'a a2a_tck::reporting::report::CheckResult {
    report
        .results
        .iter()
        .find(|r| r.id == id)
        .unwrap_or_else(|| panic!("{id} has a result"))
}

#[tokio::test]
async fn a_valid_card_file_passes_and_the_fetch_checks_say_why_they_are_not_applicable() {
    let (output, report) = card(&cards_dir(), "valid-1.0.json", "valid", &[]).await;
    assert_eq!(code(&output), Some(0), "{report:#?}");
    assert_eq!(report.verdict, Verdict::Conformant);
    assert!(report.verdict_reason.contains("card alone"));
    assert!(report.results.iter().all(|r| r.binding.is_none()));
    assert_eq!(
        result(&report, "card.fields.required-present").status,
        Status::Pass
    );
    for id in [
        "card.media-type-json",
        "card.caching.etag",
        "card.discovery.served-at-well-known-path",
    ] {
        let r = result(&report, id);
        assert_eq!(r.status, Status::NotApplicable, "{id}");
        assert!(
            r.message.contains("read from a file"),
            "{id}: {}",
            r.message
        );
    }
    let agent = result(&report, "v03.card.declared-transports-answer");
    assert!(
        agent.message.contains("judges the card alone"),
        "{}",
        agent.message
    );
    assert!(report.interfaces.iter().all(|i| !i.tested));
    assert_eq!(report.target.card_url, "valid-1.0.json");
    let sarif: Value = serde_json::from_str(&read(&temp("valid.sarif"))).expect("json");
    assert_sarif_shape(&sarif);
    // The schema does judge: a run without its tool, or a result with an unknown level, is
    // not SARIF.
    let schema = sarif_schema();
    let validator = jsonschema::validator_for(&schema).expect("compiles");
    let mut broken = sarif.clone();
    broken["runs"][0]
        .as_object_mut()
        .expect("a run")
        .remove("tool");
    assert!(!validator.is_valid(&broken));
    let mut broken = sarif.clone();
    broken["runs"][0]["results"] =
        serde_json::json!([{"message": {"text": "x"}, "level": "fatal"}]);
    assert!(!validator.is_valid(&broken));
    assert_eq!(
        sarif["runs"][0]["results"].as_array().map(Vec::len),
        Some(0)
    );
}

#[tokio::test]
async fn a_broken_card_file_fails_with_every_output() {
    let (output, report) = card(&cards_dir(), "broken-1.0.json", "broken", &[]).await;
    assert_eq!(code(&output), Some(1));
    assert_eq!(report.verdict, Verdict::NonConformant);
    let fields = result(&report, "card.fields.required-present");
    assert_eq!(fields.status, Status::Fail);
    assert!(fields.message.contains("description"), "{}", fields.message);
    assert_eq!(
        result(&report, "card.interfaces.declare-binding-url-version").status,
        Status::Fail
    );
    assert_eq!(
        result(&report, "card.interfaces.version-is-major-minor").status,
        Status::Warn
    );
    // The evidence is the file, as read.
    let exchange = &fields.evidence[0];
    assert_eq!(exchange.request.method, "READ");
    assert!(
        exchange.request.url.starts_with("file://")
            && exchange.request.url.ends_with("broken-1.0.json")
    );

    // SARIF: a result per FAIL and WARN, located in the card file as given (relative).
    let sarif: Value = serde_json::from_str(&read(&temp("broken.sarif"))).expect("json");
    assert_sarif_shape(&sarif);
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let of = |id: &str| {
        results
            .iter()
            .find(|r| r["ruleId"] == id)
            .unwrap_or_else(|| panic!("{id}"))
    };
    assert_eq!(of("card.fields.required-present")["level"], "error");
    assert_eq!(
        of("card.interfaces.version-is-major-minor")["level"],
        "warning"
    );
    let artifact =
        &of("card.fields.required-present")["locations"][0]["physicalLocation"]["artifactLocation"];
    assert_eq!(artifact["uri"], "broken-1.0.json");
    assert_eq!(artifact["uriBaseId"], "%SRCROOT%");
    assert_eq!(results.len(), 3, "two FAILs and a WARN: {results:#?}");
    let rule = sarif["runs"][0]["tool"]["driver"]["rules"]
        .as_array()
        .and_then(|rules| {
            rules
                .iter()
                .find(|r| r["id"] == "card.fields.required-present")
        })
        .expect("the rule");
    assert!(rule["fullDescription"]["text"]
        .as_str()
        .is_some_and(|t| t.contains("§5.7")));

    // JUnit: names carry the place; the WARN is a passing case that says WARN.
    let junit = read(&temp("broken.xml"));
    assert!(
        junit.contains(r#"name="card.fields.required-present [card]""#),
        "{junit}"
    );
    let warn_case = junit
        .split("<testcase ")
        .find(|case| case.starts_with(r#"name="card.interfaces.version-is-major-minor [card]""#))
        .expect("the WARN case");
    assert!(
        warn_case.contains(r#"<property name="status" value="WARN"/>"#),
        "{warn_case}"
    );
    assert!(
        warn_case.contains("<system-err>WARN [SHOULD]"),
        "{warn_case}"
    );
    assert!(
        !warn_case.contains("<failure") && !warn_case.contains("<skipped"),
        "{warn_case}"
    );

    // Markdown and HTML are written too.
    assert!(read(&temp("broken.md")).contains("card.fields.required-present"));
    let page = Html::parse_document(&read(&temp("broken.html")));
    let compat = Selector::parse("#compatibility").expect("selector");
    assert!(
        page.select(&compat).next().is_some(),
        "the compatibility figure"
    );
}

#[tokio::test]
async fn sarif_with_a_baseline_is_located_in_the_baseline_file() {
    let dir = temp("baseline-dir");
    std::fs::create_dir_all(&dir).expect("dir");
    std::fs::copy(cards_dir().join("broken-1.0.json"), dir.join("card.json")).expect("copy");
    let baseline = "# reviewed\n\
        [[expect]]\n\
        check = \"card.fields.required-present\"\n\
        status = \"FAIL\"\n\
        reason = \"the description is written in the next release\"\n\
        \n\
        [[expect]]\n\
        check = \"card.interfaces.declare-binding-url-version\"\n\
        status = \"FAIL\"\n\
        reason = \"the URL is filled in at deploy time\"\n\
        \n\
        [[expect]]\n\
        check = \"card.interfaces.version-is-major-minor\"\n\
        status = \"WARN\"\n\
        reason = \"kept as the SDK writes it\"\n";
    std::fs::write(dir.join("a2a-baseline.toml"), baseline).expect("baseline");
    let (output, report) = card(
        &dir,
        "card.json",
        "gated",
        &["--expect", "a2a-baseline.toml"],
    )
    .await;
    let gate = report.baseline.as_ref().expect("a gate");
    assert_eq!(gate.expected.len(), 3, "{gate:#?}");
    assert!(matches!(code(&output), Some(0 | 1)));
    let sarif: Value = serde_json::from_str(&read(&temp("gated.sarif"))).expect("json");
    assert_sarif_shape(&sarif);
    let results = sarif["runs"][0]["results"].as_array().expect("results");
    let fields = results
        .iter()
        .find(|r| r["ruleId"] == "card.fields.required-present")
        .expect("the FAIL");
    let physical = &fields["locations"][0]["physicalLocation"];
    assert_eq!(physical["artifactLocation"]["uri"], "a2a-baseline.toml");
    assert_eq!(
        physical["region"]["startLine"], 3,
        "the line naming the check"
    );
    assert_eq!(fields["suppressions"][0]["kind"], "external");
    assert_eq!(
        fields["suppressions"][0]["justification"],
        "the description is written in the next release"
    );
    // The HTML shows the gate.
    let page = read(&temp("gated.html"));
    assert!(page.contains("id=\"baseline\"") && page.contains("a2a-baseline.toml"));
}

#[tokio::test]
async fn a_card_url_is_judged_with_its_http_response_and_a_missing_file_exits_2() {
    let server = MockServer::start().await;
    let card_text = read(&cards_dir().join("valid-1.0.json"));
    Mock::given(method("GET"))
        .and(path("/.well-known/agent-card.json"))
        .respond_with(
            ResponseTemplate::new(200)
                .set_body_raw(card_text, "application/json")
                .insert_header("cache-control", "max-age=60"),
        )
        .mount(&server)
        .await;
    let url = format!("{}/.well-known/agent-card.json", server.uri());
    let (output, report) = card(&cards_dir(), &url, "url", &[]).await;
    assert_eq!(code(&output), Some(0), "{report:#?}");
    assert_eq!(result(&report, "card.media-type-json").status, Status::Pass);
    assert_eq!(
        result(&report, "card.caching.cache-control-max-age").status,
        Status::Pass
    );
    assert_eq!(result(&report, "card.caching.etag").status, Status::Warn);
    let sarif: Value = serde_json::from_str(&read(&temp("url.sarif"))).expect("json");
    assert_sarif_shape(&sarif);
    let uri = &sarif["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        ["artifactLocation"]["uri"];
    assert_eq!(uri.as_str(), Some(url.as_str()));
    // Nothing was asked of the agent but its card.
    let requests = server.received_requests().await.unwrap_or_default();
    assert!(
        requests
            .iter()
            .all(|r| r.url.path() == "/.well-known/agent-card.json"),
        "{:?}",
        requests
            .iter()
            .map(|r| r.url.to_string())
            .collect::<Vec<_>>()
    );

    let (output, report) = card(&cards_dir(), "no-such-card.json", "missing", &[]).await;
    assert_eq!(code(&output), Some(2));
    assert_eq!(report.verdict, Verdict::Error);
    let sarif: Value = serde_json::from_str(&read(&temp("missing.sarif"))).expect("json");
    assert_sarif_shape(&sarif);
    let unusable = &sarif["runs"][0]["results"][0];
    assert_eq!(unusable["ruleId"], a2a_tck::reporting::sarif::UNUSABLE_RULE);
    assert_eq!(
        unusable["locations"][0]["physicalLocation"]["artifactLocation"]["uri"],
        "no-such-card.json"
    );
    assert_eq!(
        sarif["runs"][0]["invocations"][0]["executionSuccessful"],
        false
    );
    let (output, report) = card(&cards_dir(), "file:///dev/null", "empty", &[]).await;
    assert_eq!(code(&output), Some(2), "an empty file is not a card");
    assert_eq!(report.verdict, Verdict::Error);

    let refused = std::process::Command::new(support::BIN)
        .args(["card", "ftp://host/card.json"])
        .output()
        .expect("runs");
    assert_eq!(code(&refused), Some(2));
    let refused = std::process::Command::new(support::BIN)
        .args(["card", "valid-1.0.json", "--target", "http://127.0.0.1:9"])
        .current_dir(cards_dir())
        .output()
        .expect("runs");
    assert_eq!(code(&refused), Some(2));
    assert!(String::from_utf8_lossy(&refused.stderr).contains("--target"));
    // Its help lists the flags it takes, not those of a run against an agent.
    let help = std::process::Command::new(support::BIN)
        .args(["card", "--help"])
        .output()
        .expect("runs");
    assert_eq!(code(&help), Some(0));
    let help = String::from_utf8_lossy(&help.stdout);
    assert!(
        help.contains("--sarif") && help.contains("--expect"),
        "{help}"
    );
    for flag in [
        "--target",
        "--fault",
        "--durability",
        "--contract",
        "--binding",
    ] {
        assert!(!help.contains(flag), "{flag} in {help}");
    }
}

/// A full run of the built-in agent: JUnit names unique, latency per operation on every
/// binding, and the HTML and Markdown showing it.
#[tokio::test]
async fn a_builtin_run_names_cases_uniquely_and_reports_latency() {
    let agent = a2a_tck::run::builtin::start(&[])
        .await
        .expect("agent starts");
    let mut options = RunOptions::new(&agent.base_url(), &agent.card_url());
    options.builtin = true;
    let report = runner::run(&a2a_tck::suite::checks::all(), &options)
        .await
        .expect("run");
    agent.shutdown().await;

    let junit = a2a_tck::reporting::output::junit(&report).expect("junit");
    let names: Vec<&str> = junit
        .split("<testcase name=\"")
        .skip(1)
        .filter_map(|case| case.split('"').next())
        .collect();
    assert_eq!(names.len(), report.results.len());
    let mut unique = names.clone();
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), names.len(), "JUnit case names are unique");
    assert!(
        names.contains(&"send.returns-task-or-message [jsonrpc 1.0]"),
        "{names:?}"
    );
    assert!(
        names.contains(&"send.returns-task-or-message [grpc 0.3]"),
        "{names:?}"
    );

    for binding in [Binding::Jsonrpc, Binding::Rest, Binding::Grpc] {
        let send = report
            .latency
            .iter()
            .find(|l| l.binding == binding && l.operation.contains("end") && l.answer.is_some())
            .unwrap_or_else(|| panic!("a timed send on {binding}: {:#?}", report.latency));
        let answer = send.answer.as_ref().expect("figures");
        assert!(
            answer.count > 0 && answer.median_ms <= answer.p95_ms && answer.p95_ms <= answer.max_ms
        );
    }
    assert!(
        report.latency.iter().any(|l| l.first_event.is_some()),
        "streams are timed to their first event: {:#?}",
        report.latency
    );
    let markdown = a2a_tck::reporting::output::markdown(&report);
    assert!(markdown.contains("## Latency"));
    let page = a2a_tck::reporting::html::page(&report);
    let document = Html::parse_document(&page);
    for css in ["#latency table", "#compatibility", "#contract"] {
        let selector = Selector::parse(css).expect("selector");
        assert!(document.select(&selector).next().is_some(), "{css}");
    }
}

/// A run with a broken rule: its SARIF results are located in the card URL, one per place,
/// each with a stable fingerprint of check and place, and the log is valid SARIF.
#[tokio::test]
async fn interface_failures_are_sarif_results_per_place() {
    let fault = "stream-status-out-of-order".parse().expect("fault");
    let agent = a2a_tck::run::builtin::start(&[fault])
        .await
        .expect("agent starts");
    let mut options = RunOptions::new(&agent.base_url(), &agent.card_url());
    options.filter.select = vec!["streaming.*".into()];
    let report = runner::run(&a2a_tck::suite::checks::all(), &options)
        .await
        .expect("run");
    agent.shutdown().await;
    let log: Value =
        serde_json::from_str(&a2a_tck::reporting::sarif::sarif(&report, None)).expect("json");
    assert_sarif_shape(&log);
    let results = log["runs"][0]["results"].as_array().expect("results");
    let failed: Vec<&a2a_tck::reporting::report::CheckResult> = report
        .results
        .iter()
        .filter(|r| r.status != Status::Pass && r.status != Status::NotApplicable)
        .collect();
    assert!(!failed.is_empty(), "the fault fails a check");
    assert_eq!(results.len(), failed.len());
    let mut prints: Vec<&str> = results
        .iter()
        .filter_map(|r| r["partialFingerprints"]["a2aCheckPlace/v1"].as_str())
        .collect();
    assert_eq!(prints.len(), results.len());
    prints.sort_unstable();
    prints.dedup();
    assert_eq!(
        prints.len(),
        results.len(),
        "one fingerprint per check and place"
    );
    for result in results {
        let uri = &result["locations"][0]["physicalLocation"]["artifactLocation"]["uri"];
        assert_eq!(uri.as_str(), Some(report.target.card_url.as_str()));
    }
}

/// A gRPC answer reads as its gRPC status in the HTML evidence, not as the HTTP 200 it
/// rides on; the not-run list and untested declarations have their sections.
#[tokio::test]
async fn grpc_evidence_shows_the_grpc_status_and_the_page_lists_what_was_not_run() {
    let (_, mut report) = card(&cards_dir(), "broken-1.0.json", "grpc-page", &[]).await;
    let failed = report
        .results
        .iter_mut()
        .find(|r| r.status == Status::Fail)
        .expect("a FAIL");
    failed.evidence = vec![Exchange {
        request: RecordedRequest {
            method: "gRPC".into(),
            url: "http://127.0.0.1:1/lf.a2a.v1.A2AService/GetTask".into(),
            headers: Vec::new(),
            body: None,
        },
        response: Some(RecordedResponse {
            status: 200,
            headers: vec![("grpc-status".into(), "5 NOT_FOUND".into())],
            body: RecordedBody::of(b"{}"),
        }),
        error: None,
        elapsed_ms: 3,
        events: Vec::new(),
        dropped: None,
    }];
    report.not_run.push(a2a_tck::reporting::report::NotRun {
        id: "tasks.cancel-completed-rejected".into(),
        level: a2a_tck::suite::check::Level::Must,
        binding: Some(Binding::Jsonrpc),
        version: Some(a2a_tck::suite::check::ProtocolVersion::V1_0),
        reason: "needs the agent to play a scenario".into(),
    });
    report
        .untested_declarations
        .push(a2a_tck::reporting::report::UntestedDeclaration {
            what: "pushNotifications".into(),
            why: "not selected".into(),
        });
    let page = a2a_tck::reporting::html::page(&report);
    let document = Html::parse_document(&page);
    let responses: Vec<String> = document
        .select(&Selector::parse(".exchange h4.response").expect("selector"))
        .map(|e| e.text().collect::<String>())
        .collect();
    assert!(
        responses
            .iter()
            .any(|r| r.contains("grpc-status 5 NOT_FOUND") && !r.contains("200")),
        "{responses:?}"
    );
    for css in ["#not-run table", "#untested table"] {
        let selector = Selector::parse(css).expect("selector");
        assert!(document.select(&selector).next().is_some(), "{css}");
    }
    let text = a2a_tck::reporting::evidence_text::text(
        &report
            .results
            .iter()
            .find(|r| r.status == Status::Fail)
            .expect("fail")
            .evidence,
        a2a_tck::reporting::evidence_text::Caps::COMPACT,
    );
    assert!(text.contains("< grpc-status 5"), "{text}");
}

//! The binary end to end: exit codes, reports, and hostile or dead targets. Every target here
//! is a server on 127.0.0.1 that the test starts and stops.

use crate::support;

use support::{stderr, BIN};

use std::process::Output;
use std::time::{Duration, Instant};

use a2a_tck::reporting::report::{Report, Verdict};
use a2a_tck::suite::check::Status;
use serde_json::json;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// Runs the kit with `args`, in a blocking thread so test servers keep serving.
async fn kit(args: &[&str]) -> (Output, Duration) {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let started = Instant::now();
    let output =
        tokio::task::spawn_blocking(move || std::process::Command::new(BIN).args(&args).output())
            .await
            .expect("join")
            .expect("the kit runs");
    (output, started.elapsed())
}

/// Runs the kit with `args` and `--report <temp>/<name>`, and reads the report back (it must
/// be complete).
async fn kit_report(name: &str, args: &[&str]) -> (Output, Duration, Report) {
    let path = temp_path(name);
    let path_text = path.to_str().expect("utf8").to_string();
    let mut all: Vec<&str> = args.to_vec();
    all.extend(["--report", path_text.as_str()]);
    let (output, took) = kit(&all).await;
    let report = Report::read(&path)
        .unwrap_or_else(|e| panic!("a complete report: {e}; stderr: {}", stderr(&output)));
    (output, took, report)
}

fn temp_path(name: &str) -> std::path::PathBuf {
    support::temp_path("cli", name)
}

#[tokio::test]
async fn builtin_run_is_conformant_and_writes_reports() {
    let report_path = temp_path("builtin.json");
    let junit_path = temp_path("builtin.xml");
    let markdown_path = temp_path("builtin.md");
    let (output, _) = kit(&[
        "--report",
        report_path.to_str().expect("utf8"),
        "--junit",
        junit_path.to_str().expect("utf8"),
        "--markdown",
        markdown_path.to_str().expect("utf8"),
    ])
    .await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report = Report::read(&report_path).expect("a complete report");
    assert_eq!(report.verdict, Verdict::Conformant);
    // Only the checks of agents without streaming, push or the extended card are N/A (the
    // agent declares them all, the extended card in authenticated mode); push-config paging on
    // 0.3 JSON-RPC, which has no paging parameters; the OAuth URL check, the agent declaring a
    // bearer scheme only; and the tls.* checks and the jku's scheme, on the plain-http builtin
    // (`--tls` serves it over TLS).
    for result in &report.results {
        let no_paging = result.id == "push.config-list-pages"
            && result.binding == Some(a2a_tck::suite::check::Binding::Jsonrpc)
            && result.version == Some(a2a_tck::suite::check::ProtocolVersion::V0_3);
        let gated = result.id.starts_with("capabilities.streaming-absent")
            || result.id.starts_with("capabilities.push-absent")
            || result.id == "capabilities.extended-card-absent-rejected"
            || result.id == "auth.card-oauth-urls"
            || result.id.starts_with("tls.")
            || result.id == "card.signature.jku-over-https"
            // The agent declares 0.3 beside 1.0 on its JSON-RPC URL: nothing to probe.
            || result.id == "versioning.card-declares-every-version"
            || no_paging;
        let expected = if gated {
            Status::NotApplicable
        } else {
            Status::Pass
        };
        assert_eq!(result.status, expected, "{}: {}", result.id, result.message);
    }
    let junit = std::fs::read_to_string(&junit_path).expect("junit written");
    assert!(junit.contains("<testsuites") && junit.contains("send.returns-task-or-message"));
    let markdown = std::fs::read_to_string(&markdown_path).expect("markdown written");
    assert!(markdown.contains(": conformant") && markdown.contains("| PASS |"));
    let (explained, _) = kit(&["explain", "send.returns-task-or-message"]).await;
    assert_eq!(explained.status.code(), Some(0));
    let explained = String::from_utf8_lossy(&explained.stdout);
    assert!(explained.contains("V10-3.1.1-02"));
    assert!(explained.contains("ACTS         CORE-SEND-001, CORE-SEND-003"));
    let run = report
        .results
        .iter()
        .find(|r| r.id == "send.returns-task-or-message")
        .expect("send.returns-task-or-message ran");
    assert_eq!(run.acts, ["CORE-SEND-001", "CORE-SEND-003"]);
}

#[tokio::test]
async fn a_fault_makes_the_run_fail_with_exit_1() {
    let (output, _, report) = kit_report("fault.json", &["--fault", "omit-context-id"]).await;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(report.verdict, Verdict::NonConformant);
    let failed = report
        .results
        .iter()
        .find(|r| r.id == "send.context-id-generated-when-absent")
        .expect("result");
    assert_eq!(failed.status, Status::Fail);
    assert!(
        !failed.evidence.is_empty(),
        "a failure carries its exchanges"
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("FAIL") && stdout.contains("send.context-id-generated-when-absent"));
}

#[tokio::test]
async fn unreachable_target_exits_2_quickly() {
    let (output, took, report) =
        kit_report("port-9.json", &["--target", "http://127.0.0.1:9"]).await;
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        report.verdict,
        Verdict::Error,
        "the report is written all the same"
    );
    let message = stderr(&output);
    assert!(
        message.contains("http://127.0.0.1:9/.well-known/agent-card.json"),
        "{message}"
    );
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

/// Runs the kit against an unusable target with every report asked for; checks the exit
/// status and that each report says `error` with the card exchange; returns the JSON report.
async fn unusable(name: &str, args: &[&str]) -> (Output, Duration, Report) {
    let paths = ["json", "xml", "md", "html"].map(|ext| temp_path(&format!("{name}.{ext}")));
    let [json, junit, markdown, html] = paths.each_ref().map(|p| p.to_str().expect("utf8"));
    let mut all = args.to_vec();
    all.extend([
        "--report",
        json,
        "--junit",
        junit,
        "--markdown",
        markdown,
        "--html",
        html,
    ]);
    let (output, took) = kit(&all).await;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    let report = Report::read(&paths[0]).expect("a complete report");
    assert_eq!(report.verdict, Verdict::Error);
    assert!(report.results.is_empty());
    let failure = report.failure.clone().expect("the failure");
    assert_eq!(failure.evidence.len(), 1, "the card exchange");
    assert!(failure.evidence[0]
        .request
        .url
        .ends_with("/.well-known/agent-card.json"));
    let read = |path| std::fs::read_to_string(path).expect("written");
    let junit = read(&paths[1]);
    assert!(
        junit.contains("agent-card") && junit.contains("<error"),
        "{junit}"
    );
    assert!(
        junit.contains("&gt; GET "),
        "the JUnit error carries the exchange: {junit}"
    );
    assert!(read(&paths[2]).contains("could not start"));
    let html = read(&paths[3]);
    assert!(html.contains("v-error") && html.contains("agent-card.json"));
    (output, took, report)
}

#[tokio::test]
async fn an_unusable_card_still_writes_every_report() {
    // A dead port: no response, and why.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let target = format!("http://127.0.0.1:{port}");
    let (_, _, report) = unusable("dead", &["--target", &target]).await;
    let failure = report.failure.expect("failure");
    assert!(
        failure.message.contains("could not fetch"),
        "{}",
        failure.message
    );
    let exchange = &failure.evidence[0];
    assert!(exchange.response.is_none() && exchange.error.is_some());

    // An HTML page where the card should be: what came back.
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("<html><body>hello</body></html>", "text/html"),
        )
        .mount(&server)
        .await;
    let (_, _, report) = unusable("html-card", &["--target", &server.uri()]).await;
    let exchange = &report.failure.expect("failure").evidence[0];
    let response = exchange.response.as_ref().expect("a response");
    assert_eq!(response.status, 200);
    let body = response.body.text.as_deref().unwrap_or_default();
    assert!(body.contains("<html>"), "{body}");
}

#[tokio::test]
async fn usage_errors_exit_2() {
    let (output, _) = kit(&[
        "--target",
        "http://127.0.0.1:9",
        "--fault",
        "omit-context-id",
    ])
    .await;
    assert_eq!(output.status.code(), Some(2));
    let (output, _) = kit(&["--select", "no.such.check"]).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("matches no check"));
    let (output, _) = kit(&["--target", "not a url"]).await;
    assert_eq!(output.status.code(), Some(2));
}

/// --card-url without --target tests the agent that card describes (here a reference agent
/// the test starts), never the built-in one: the report's target is the card URL, and every
/// exchange goes to that agent.
#[tokio::test]
async fn a_card_url_alone_tests_the_agent_it_describes() {
    let agent = a2a_tck::run::builtin::start_with(a2a_reference_agent::AgentConfig::default())
        .await
        .expect("the reference agent starts");
    let (base, card_url) = (agent.base_url(), agent.card_url());
    let (output, _, report) = kit_report(
        "card-url-alone.json",
        &[
            "--card-url",
            &card_url,
            "--select",
            "{card.fields.required-present,tasks.get.unknown-id-returns-task-not-found}",
        ],
    )
    .await;
    agent.shutdown().await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    assert!(!report.target.builtin, "{:?}", report.target);
    assert_eq!(report.target.url, card_url);
    assert_eq!(report.target.card_url, card_url);
    assert!(!report.interfaces.is_empty());
    let authority = base.trim_start_matches("http://");
    for interface in &report.interfaces {
        assert!(
            interface.url.contains(authority),
            "{interface:?} is not on {base}"
        );
    }
    assert!(report.results.iter().any(|r| r.binding.is_some()));
    for result in &report.results {
        assert_eq!(
            result.status,
            Status::Pass,
            "{}: {}",
            result.id,
            result.message
        );
        for exchange in &result.evidence {
            assert!(
                exchange.request.url.contains(authority),
                "{} went to {}",
                result.id,
                exchange.request.url
            );
        }
    }
}

/// --target builtin tests the built-in agent's own card: another card URL beside it is a usage
/// error, and so is a --card-url alone that is not a URL.
#[tokio::test]
async fn a_card_url_beside_the_builtin_target_is_a_usage_error() {
    let card = "http://127.0.0.1:9/.well-known/agent-card.json";
    let (output, _) = kit(&["--target", "builtin", "--card-url", card]).await;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
    assert!(
        stderr(&output).contains("--card-url"),
        "{}",
        stderr(&output)
    );
    let (output, _) = kit(&["--card-url", "not a url"]).await;
    assert_eq!(output.status.code(), Some(2), "{}", stderr(&output));
}

/// The kit alone sets A2A-Version and A2A-Extensions: a user header naming one (any case,
/// either option) is a usage error that names the option doing its work, and no report is
/// written; the agent is never asked anything.
#[tokio::test]
async fn headers_the_kit_sets_itself_are_usage_errors() {
    let report = temp_path("kit-owned-header.json");
    let report_text = report.to_str().expect("utf8");
    let cases = [
        ("--header", "A2A-Version: 1.0", "--protocol-version"),
        ("--header", "a2a-version:0.3", "--protocol-version"),
        ("--other-header", "A2A-VERSION: 1.0", "--protocol-version"),
        ("--header", "A2A-Extensions: urn:x", "required: true"),
        (
            "--other-header",
            "x-a2a-extensions: urn:x",
            "required: true",
        ),
    ];
    for (flag, header, instead) in cases {
        let _ = std::fs::remove_file(&report);
        let (output, _) = kit(&[
            "--target",
            "http://127.0.0.1:9",
            flag,
            header,
            "--report",
            report_text,
        ])
        .await;
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{flag} {header}: {message}");
        assert!(
            message.contains(flag) && message.contains(instead),
            "{flag} {header}: {message}"
        );
        assert!(!report.exists(), "{flag} {header}: a report was written");
    }
}

/// A malformed --header (no colon) is a usage error that does not echo the text: it may be a
/// bare token.
#[tokio::test]
async fn a_malformed_header_is_not_echoed() {
    for flag in ["--header", "--other-header"] {
        for text in [
            "Bearer t0p-s3cret-value",
            "Authorization Bearer t0p s3cret: x",
        ] {
            let (output, _) = kit(&["--target", "http://127.0.0.1:9", flag, text]).await;
            let message = stderr(&output);
            assert_eq!(output.status.code(), Some(2), "{message}");
            assert!(message.contains(flag), "{message}");
            assert!(
                !message.contains("s3cret"),
                "the header's text was echoed: {message}"
            );
        }
    }
}

#[tokio::test]
async fn card_404_and_html_exit_2_with_what_came_back() {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/.well-known/agent-card.json"))
        .respond_with(ResponseTemplate::new(404).set_body_string("no card here"))
        .mount(&server)
        .await;
    let (output, _) = kit(&["--target", &server.uri()]).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("HTTP 404"), "{}", stderr(&output));

    let html = MockServer::start().await;
    Mock::given(method("GET"))
        .respond_with(
            ResponseTemplate::new(200).set_body_raw("<html><body>hello</body></html>", "text/html"),
        )
        .mount(&html)
        .await;
    let (output, _) = kit(&["--target", &html.uri()]).await;
    assert_eq!(output.status.code(), Some(2));
    let message = stderr(&output);
    assert!(
        message.contains("not JSON") && message.contains("<html>"),
        "{message}"
    );
}

/// A server that accepts connections and never answers.
async fn silent_server() -> (String, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let task = tokio::spawn(async move {
        let mut held = Vec::new();
        while let Ok((socket, _)) = listener.accept().await {
            held.push(socket);
        }
    });
    (url, task)
}

#[tokio::test]
async fn silent_target_ends_within_the_deadline() {
    let (url, server) = silent_server().await;
    let (output, took, report) = unusable("silent", &["--target", &url, "--timeout", "1"]).await;
    server.abort();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("within"), "{}", stderr(&output));
    let failure = report.failure.expect("failure");
    assert!(failure.evidence[0]
        .error
        .as_deref()
        .is_some_and(|e| e.contains("within")));
    assert!(took < Duration::from_secs(8), "took {took:?}");
}

/// A server that answers 200 with an endless body, until the client hangs up (bounded).
async fn firehose_server() -> (String, tokio::task::JoinHandle<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let url = format!("http://{}", listener.local_addr().expect("addr"));
    let task = tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut request = [0u8; 4096];
                let _ = socket.read(&mut request).await;
                let head = "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 314572800\r\n\r\n[";
                if socket.write_all(head.as_bytes()).await.is_err() {
                    return;
                }
                let chunk = vec![b'1'; 64 * 1024];
                for _ in 0..(300 * 16) {
                    if socket.write_all(&chunk).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (url, task)
}

#[tokio::test]
async fn enormous_card_is_cut_off() {
    let (url, server) = firehose_server().await;
    let (output, took, report) = unusable("enormous", &["--target", &url]).await;
    server.abort();
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("limit"), "{}", stderr(&output));
    let response = report.failure.expect("failure").evidence[0]
        .response
        .clone();
    assert!(
        response.is_some_and(|r| r.body.truncated),
        "the start of the body is kept"
    );
    assert!(took < Duration::from_secs(20), "took {took:?}");
}

/// A server with a valid card whose only interface is at `interface_url`, or at the
/// server's own `/rpc` when none is given.
async fn card_server(interface_url: Option<&str>) -> MockServer {
    support::card_server("mock", interface_url).await
}

#[tokio::test]
async fn dead_interface_gives_error_results_not_passes() {
    let server = card_server(Some("http://127.0.0.1:9/rpc")).await;
    let (output, took, report) =
        kit_report("dead-interface.json", &["--target", &server.uri()]).await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(took < Duration::from_secs(20), "took {took:?}");
    assert_eq!(report.verdict, Verdict::Inconclusive);
    let problem = report.interfaces[0].problem.as_deref().unwrap_or_default();
    assert!(problem.contains("did not answer"), "{problem}");
    let interface_results: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.binding.is_some())
        .collect();
    assert!(!interface_results.is_empty());
    for result in interface_results {
        // Checks of a capability the card does not declare are N/A without a call.
        if result.status == Status::NotApplicable {
            continue;
        }
        assert_eq!(
            result.status,
            Status::Error,
            "{}: {}",
            result.id,
            result.message
        );
        assert!(!result.evidence.is_empty(), "{} has no evidence", result.id);
    }
}

#[tokio::test]
async fn interface_answering_html_is_unusable_never_a_pass() {
    let server = card_server(None).await;
    Mock::given(method("POST"))
        .and(path("/rpc"))
        .respond_with(ResponseTemplate::new(200).set_body_raw("<html>oops</html>", "text/html"))
        .mount(&server)
        .await;
    let (output, _, report) = kit_report("html-interface.json", &["--target", &server.uri()]).await;
    assert_eq!(output.status.code(), Some(1));
    let problem = report.interfaces[0].problem.as_deref().unwrap_or_default();
    assert!(problem.contains("did not answer JSON-RPC"), "{problem}");
    for result in report
        .results
        .iter()
        .filter(|r| r.binding.is_some() && r.status != Status::NotApplicable)
    {
        assert_eq!(
            result.status,
            Status::Error,
            "{}: {}",
            result.id,
            result.message
        );
    }
}

fn method_not_found() -> ResponseTemplate {
    ResponseTemplate::new(200).set_body_json(json!({
        "jsonrpc": "2.0", "id": null, "error": {"code": -32601, "message": "Method not found"}
    }))
}

#[tokio::test]
async fn an_interface_with_one_odd_answer_is_still_tested() {
    // GetTask answers plain text; everything else is JSON-RPC. The probe must not condemn
    // the interface, and the GetTask check must FAIL, not ERROR.
    let server = card_server(None).await;
    Mock::given(method("POST"))
        .and(path("/rpc"))
        .and(wiremock::matchers::body_string_contains("\"GetTask\""))
        .respond_with(ResponseTemplate::new(404).set_body_string("Task not found"))
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/rpc"))
        .respond_with(method_not_found())
        .mount(&server)
        .await;
    let (output, _, report) = kit_report(
        "odd-answer.json",
        &[
            "--target",
            &server.uri(),
            "--select",
            "tasks.get.unknown-id-returns-task-not-found",
        ],
    )
    .await;
    assert_eq!(output.status.code(), Some(1));
    assert_eq!(report.interfaces[0].problem, None);
    assert_eq!(
        report.results[0].status,
        Status::Fail,
        "{}",
        report.results[0].message
    );
}

#[tokio::test]
async fn credentials_are_asked_for_sent_and_redacted() {
    let server = card_server(None).await;
    Mock::given(method("POST"))
        .and(path("/rpc"))
        .and(wiremock::matchers::header("authorization", "Bearer s3cret"))
        .respond_with(method_not_found())
        .mount(&server)
        .await;
    Mock::given(method("POST"))
        .and(path("/rpc"))
        .respond_with(ResponseTemplate::new(401).insert_header("www-authenticate", "Bearer"))
        .mount(&server)
        .await;
    let uri = server.uri();
    let select = "tasks.get.unknown-id-returns-task-not-found";

    let (output, _, report) = kit_report(
        "no-credentials.json",
        &["--target", &uri, "--select", select],
    )
    .await;
    assert_eq!(output.status.code(), Some(1));
    let problem = report.interfaces[0].problem.as_deref().unwrap_or_default();
    assert!(
        problem.contains("requires authentication") && problem.contains("--header"),
        "{problem}"
    );

    let (output, _, report) = kit_report(
        "credentials.json",
        &[
            "--target",
            &uri,
            "--header",
            "Authorization: Bearer s3cret",
            "--select",
            select,
        ],
    )
    .await;
    assert_eq!(output.status.code(), Some(1));
    // With the credentials the agent answers: every call "method not found", so GetTask is
    // refused outright, which stops the check (named once in the report), not a FAIL.
    assert_eq!(
        report.results[0].status,
        Status::Untestable,
        "{}",
        report.results[0].message
    );
    assert!(
        report.results[0].message.contains("refusal of GetTask"),
        "{}",
        report.results[0].message
    );
    assert_eq!(report.refused_operations.len(), 1);
    let text = std::fs::read_to_string(temp_path("credentials.json")).expect("report text");
    assert!(!text.contains("s3cret"), "a credential reached the report");
    assert!(text.contains("[redacted]"));
}

#[tokio::test]
async fn the_client_checks_are_listed_and_explained() {
    // `list` shows both sides, each line naming its own; `--client` keeps the client's.
    let (all, _) = kit(&["list"]).await;
    assert!(all.status.success(), "{}", stderr(&all));
    let all = String::from_utf8_lossy(&all.stdout).into_owned();
    let (listed, _) = kit(&["list", "--client"]).await;
    assert!(listed.status.success(), "{}", stderr(&listed));
    let text = String::from_utf8_lossy(&listed.stdout);
    let side = |text: &str, id: &str| {
        (text.lines())
            .find(|l| l.split_whitespace().next() == Some(id))
            .and_then(|l| l.split_whitespace().nth(1).map(str::to_owned))
    };
    for check in a2a_tck::client::client_checks::all() {
        assert_eq!(
            side(&text, check.id).as_deref(),
            Some("client"),
            "{}",
            check.id
        );
        assert_eq!(
            side(&all, check.id).as_deref(),
            Some("client"),
            "{}",
            check.id
        );
    }
    for check in a2a_tck::suite::checks::all() {
        assert!(
            !text.contains(&format!("{} ", check.id)),
            "{} under --client",
            check.id
        );
        assert_eq!(
            side(&all, check.id).as_deref(),
            Some("agent"),
            "{}",
            check.id
        );
    }
    let (explained, _) = kit(&["explain", "client.follow-up.same-task"]).await;
    assert!(explained.status.success(), "{}", stderr(&explained));
    let text = String::from_utf8_lossy(&explained.stdout);
    assert!(
        text.contains("the play follow-up")
            && text.contains("V10-3.4.2-03")
            && text.contains("side         a client"),
        "{text}"
    );
    let (unknown, _) = kit(&["explain", "client.nothing"]).await;
    assert_eq!(unknown.status.code(), Some(2));
}

#[tokio::test]
async fn client_mode_refuses_the_flags_of_an_agent_run() {
    let (out, _) = kit(&["client", "--fault", "omit-context-id"]).await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let (out, _) = kit(&[
        "client",
        "--cmd",
        "true",
        "--client-fault",
        "last-interface",
    ])
    .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out)); // Every flag of an agent run it would not use is refused, by name, before any play:
                                                                // never accepted and silently ignored.
    for (flag, given) in [
        ("--tls", &["--tls"][..]),
        ("--durability", &["--durability"]),
        ("--header", &["--header", "X-Key: 1"]),
        ("--bearer", &["--bearer", "t"]),
        ("--contract", &["--contract", "none"]),
        ("--timeout", &["--timeout", "3"]),
        ("--jobs", &["--jobs", "2"]),
        ("--restart-cmd", &["--restart-cmd", "true"]),
        ("--webhook-url", &["--webhook-url", "http://127.0.0.1:9/h"]),
        ("--trusted-key", &["--trusted-key", "key.json"]),
    ] {
        let mut args = vec!["client", "--select", "client.nothing*"];
        args.extend(given);
        let (out, _) = kit(&args).await;
        assert_eq!(out.status.code(), Some(2), "{flag}: {}", stderr(&out));
        assert!(stderr(&out).contains(flag), "{flag}: {}", stderr(&out));
    }
}

/// A drive file's pointer without its leading `/` is no JSON pointer: the file is refused when
/// it is read (exit 2, naming the field), before the kit sends null in its place and blames the
/// agent.
#[tokio::test]
async fn a_drive_pointer_without_its_slash_is_a_usage_error() {
    let path =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../fixtures/drive-reference.toml");
    let text = std::fs::read_to_string(&path).expect("the example drive file");
    let right = "\"/status/message/parts/1/data/approvalId\"";
    assert!(text.contains(right), "the fixture's pointer moved");
    let drive = temp_path("slashless-drive.toml");
    std::fs::write(
        &drive,
        text.replace(right, "\"status/message/parts/1/data/approvalId\""),
    )
    .expect("write");
    let (out, _) = kit(&[
        "--fault",
        "plays-no-contract",
        "--drive",
        drive.to_str().expect("utf8"),
    ])
    .await;
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    assert!(
        stderr(&out).contains("input-required.follow-up")
            && stderr(&out).contains("start with `/`"),
        "{}",
        stderr(&out)
    );
}

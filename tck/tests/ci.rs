//! What a CI pipeline relies on, end to end through the binary: reports that are always written
//! and never replace what they should write through (a symlink, a device, standard output),
//! report paths checked before the first request, exit codes per the README's table, runs
//! stopped by SIGINT/SIGTERM that still report, and the command line's conventions (`--version`,
//! a closed pipe, bad values). Every agent here is a server on 127.0.0.1 the test starts.

use crate::support;

use std::path::Path;
use std::process::{Output, Stdio};
use std::time::{Duration, Instant};

use a2a_tck::reporting::report::{Report, Verdict};
use serde_json::json;
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpListener;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

use support::{stderr, stdout, BIN};

/// A check of the built-in agent that runs in well under a second.
const QUICK: &str = "card.*";

async fn kit(args: &[&str]) -> Output {
    kit_in(args, None).await
}

/// Runs the kit with `args` in the directory `dir` (default: the test's).
async fn kit_in(args: &[&str], dir: Option<&Path>) -> Output {
    let args: Vec<String> = args.iter().map(|a| a.to_string()).collect();
    let dir = dir.map(Path::to_path_buf);
    tokio::task::spawn_blocking(move || {
        let mut command = std::process::Command::new(BIN);
        command.args(&args);
        if let Some(dir) = dir {
            command.current_dir(dir);
        }
        command.output()
    })
    .await
    .expect("join")
    .expect("the kit runs")
}

fn text(path: &Path) -> &str {
    path.to_str().expect("utf8")
}

fn names(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .expect("read dir")
        .map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// A wiremock agent whose card has one JSON-RPC interface that answers nothing useful; the test
/// only asks whether it was called at all.
async fn watched_agent() -> MockServer {
    support::card_server("watched", None).await
}

async fn requests(server: &MockServer) -> usize {
    server.received_requests().await.map_or(0, |r| r.len())
}

// --- 1. reports that are always there and harm nothing ---

/// `--report LINK`, LINK a symlink (as `/dev/stdout` is): the report goes to the link's target
/// and the link stays a link, never replaced by a regular file.
#[cfg(unix)]
#[tokio::test]
async fn a_symlinked_report_path_is_written_through_not_replaced() {
    let dir = tempfile::tempdir().expect("temp dir");
    let target = dir.path().join("target.json");
    std::fs::write(&target, "").expect("target");
    let link = dir.path().join("stdout");
    std::os::unix::fs::symlink(&target, &link).expect("symlink");
    let output = kit(&["--select", QUICK, "--quiet", "--report", text(&link)]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let meta = std::fs::symlink_metadata(&link).expect("link");
    assert!(meta.file_type().is_symlink(), "the symlink was replaced");
    assert_eq!(std::fs::read_link(&link).expect("link"), target);
    let report = Report::read(&target).expect("the target holds the report");
    assert_eq!(report.verdict, Verdict::Conformant);
    assert_eq!(names(dir.path()), ["stdout", "target.json"]);
}

/// `--report -` writes the JSON report on standard output, the summary on standard error, and
/// no file named `-`.
#[tokio::test]
async fn a_dash_is_standard_output() {
    let dir = tempfile::tempdir().expect("temp dir");
    let output = kit_in(&["--select", QUICK, "--report", "-"], Some(dir.path())).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
    let report: Report = serde_json::from_slice(&output.stdout)
        .unwrap_or_else(|e| panic!("stdout is the report: {e}: {}", stdout(&output)));
    assert!(report.complete);
    assert!(
        stderr(&output).contains("conformant"),
        "{}",
        stderr(&output)
    );
    assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
    // Two reports cannot share standard output.
    let output = kit(&["--report", "-", "--junit", "-"]).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(
        stderr(&output).contains("standard output"),
        "{}",
        stderr(&output)
    );
}

/// A directory as a report path is a usage error found before the agent is asked anything,
/// and leaves nothing in the directory.
#[tokio::test]
async fn a_directory_is_a_usage_error_before_any_request() {
    let agent = watched_agent().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let missing = format!("{}/reports/", dir.path().display());
    for (flag, given) in [("--report", text(dir.path())), ("--html", missing.as_str())] {
        let output = kit(&["--target", &agent.uri(), flag, given]).await;
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{flag} {given}: {message}");
        assert!(
            message.contains(flag) && message.contains("directory"),
            "{message}"
        );
    }
    assert_eq!(requests(&agent).await, 0, "the agent was asked");
    assert!(names(dir.path()).is_empty(), "{:?}", names(dir.path()));
}

/// A report path that cannot be written (its directory would be under a regular file) fails
/// the run with exit 2 before its first request, naming the flag.
#[tokio::test]
async fn an_unwritable_report_path_is_found_before_any_request() {
    let agent = watched_agent().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let file = dir.path().join("file");
    std::fs::write(&file, "").expect("file");
    let report = dir.path().join("report.json");
    let junit = file.join("junit.xml");
    let output = kit(&[
        "--target",
        &agent.uri(),
        "--report",
        text(&report),
        "--junit",
        text(&junit),
    ])
    .await;
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(
        message.contains("--junit") && message.contains("junit.xml"),
        "{message}"
    );
    assert_eq!(requests(&agent).await, 0, "the agent was asked");
    assert!(!report.exists());
}

/// A report that fails to be written (`/dev/full`: writable, and every write fails) does not
/// keep the others from being written; the run exits 2 naming it.
#[tokio::test]
async fn one_unwritable_report_does_not_stop_the_others() {
    let full = Path::new("/dev/full");
    if !full.exists() {
        return;
    }
    let dir = tempfile::tempdir().expect("temp dir");
    let [junit, markdown, html] = ["r.xml", "r.md", "r.html"].map(|n| dir.path().join(n));
    let output = kit(&[
        "--select",
        QUICK,
        "--report",
        "/dev/full",
        "--junit",
        text(&junit),
        "--markdown",
        text(&markdown),
        "--html",
        text(&html),
    ])
    .await;
    let message = stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{message}");
    assert!(message.contains("--report /dev/full"), "{message}");
    for written in [&junit, &markdown, &html] {
        let size = std::fs::metadata(written).map_or(0, |m| m.len());
        assert!(size > 0, "{} was not written: {message}", written.display());
    }
    assert!(
        !stdout(&output).is_empty(),
        "the summary is still printed: {message}"
    );
}

/// Two runs writing the same report path at once each write it whole, never sharing a
/// temporary file, and leave nothing else beside it.
#[tokio::test]
async fn concurrent_runs_writing_one_path_do_not_collide() {
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    let shown = text(&report).to_string();
    for _ in 0..3 {
        let runs = (0..4).map(|_| {
            let shown = shown.clone();
            async move { kit(&["--select", QUICK, "--quiet", "--report", &shown]).await }
        });
        for output in futures::future::join_all(runs).await {
            assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
        }
        Report::read(&report).expect("a whole report");
        assert_eq!(names(dir.path()), ["report.json"]);
    }
}

// --- 4. exit codes a pipeline can branch on ---

/// The rows of the README's exit table, by their exit status.
fn readme_exit_rows() -> Vec<u8> {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../README.md"))
        .expect("README");
    let table = readme
        .split("| exit |")
        .nth(1)
        .expect("the README has an exit table");
    table
        .lines()
        .skip(2)
        .take_while(|line| line.starts_with('|'))
        .map(|line| {
            let code = line.trim_start_matches('|').split('|').next().unwrap_or("");
            code.trim().parse().expect("an exit status")
        })
        .collect()
}

/// Each row of the README's exit table is what the binary does: every case the table names
/// gives its status.
#[tokio::test]
async fn every_row_of_the_readme_exit_table_holds() {
    assert_eq!(readme_exit_rows(), [0, 1, 2, 130, 143]);
    let dir = tempfile::tempdir().expect("temp dir");
    let at = |name: &str| dir.path().join(name).to_str().expect("utf8").to_string();
    let (passing, failing) = (at("passing.json"), at("failing.json"));
    let check = "send.context-id-generated-when-absent";
    let stale = at("expects-a-failure.toml");
    std::fs::write(
        &stale,
        "[[expect]]\ncheck = \"card.*\"\nstatus = \"FAIL\"\nreason = \"expected to go stale\"\n",
    )
    .expect("baseline");
    let accepting = at("accepting.toml");
    std::fs::write(
        &accepting,
        format!("[[expect]]\ncheck = \"{check}\"\nstatus = \"FAIL\"\nreason = \"tracked\"\n"),
    )
    .expect("baseline");
    let unreadable = at("unreadable.toml");
    std::fs::write(&unreadable, "not = [toml").expect("baseline");
    let dead = "http://127.0.0.1:9";

    let cases: Vec<(u8, Vec<String>)> = vec![
        // 0: conformant; the gate passes; diff without a regression.
        (
            0,
            args(&["--select", check, "--quiet", "--report", &passing]),
        ),
        (
            0,
            args(&[
                "--select",
                check,
                "--fault",
                "omit-context-id",
                "--quiet",
                "--expect",
                &accepting,
                "--report",
                &failing,
            ]),
        ),
        // 1: non-conformant; the gate fails (a stale entry); diff with a regression.
        (
            1,
            args(&["--select", check, "--fault", "omit-context-id", "--quiet"]),
        ),
        (1, args(&["--select", QUICK, "--quiet", "--expect", &stale])),
        // 2: the kit could not run: an agent that is down, with or without --expect; a usage
        // error; an unwritable report; an unreadable baseline; an unreadable report to diff.
        (2, args(&["--target", dead, "--quiet"])),
        (2, args(&["--target", dead, "--quiet", "--expect", &stale])),
        (2, args(&["--jobs", "0"])),
        (
            2,
            args(&["--select", QUICK, "--quiet", "--report", &at("dir/")]),
        ),
        (2, args(&["--select", QUICK, "--expect", &unreadable])),
    ];
    for (code, args) in &cases {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = kit(&args).await;
        assert_eq!(
            output.status.code(),
            Some(i32::from(*code)),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    // The agent that is down, with --expect: said to be down, never "stale entries".
    let output = kit(&["--target", dead, "--expect", &stale]).await;
    assert!(
        !stderr(&output).contains("stale") && !stdout(&output).contains("stale"),
        "{}{}",
        stdout(&output),
        stderr(&output)
    );
    let diff = |old: &str, new: &str| args(&["diff", old, new]);
    for (code, args) in [
        (0, diff(&passing, &passing)),
        (1, diff(&passing, &failing)),
        (2, diff(&passing, &unreadable)),
    ] {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let output = kit(&args).await;
        assert_eq!(
            output.status.code(),
            Some(code),
            "{args:?}: {}",
            stderr(&output)
        );
    }
    // 130 and 143: `interrupted_runs_still_report` below.
}

/// `inconclusive` (exit 1) in the README's row 1: an interface that does not answer.
#[tokio::test]
async fn an_inconclusive_run_exits_1() {
    let server = MockServer::start().await;
    let card = json!({
        "name": "dead", "description": "an interface nothing listens on", "version": "1",
        "supportedInterfaces": [{"url": "http://127.0.0.1:9/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": []
    });
    Mock::given(method("GET"))
        .and(path("/.well-known/agent-card.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(card))
        .mount(&server)
        .await;
    let output = kit(&[
        "--target",
        &server.uri(),
        "--select",
        "tasks.get.*",
        "--quiet",
    ])
    .await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("inconclusive"),
        "{}",
        stdout(&output)
    );
}

fn args(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

// --- 2. interrupted runs still report ---

/// An agent whose card declares one JSON-RPC 1.0 interface that answers GetTask (the kit's
/// probe) with a JSON-RPC error at once and holds every other call open without an answer;
/// each held call is told on the channel.
async fn slow_agent() -> (String, tokio::sync::mpsc::UnboundedReceiver<()>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let card = json!({
        "name": "slow", "description": "never answers a message", "version": "1",
        "supportedInterfaces": [{"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": []
    })
    .to_string();
    let (held, told) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        while let Ok((socket, _)) = listener.accept().await {
            let (card, held) = (card.clone(), held.clone());
            tokio::spawn(async move {
                let mut socket = BufReader::new(socket);
                loop {
                    let mut head = String::new();
                    let mut length = 0usize;
                    loop {
                        let mut line = String::new();
                        if socket.read_line(&mut line).await.unwrap_or(0) == 0 {
                            return;
                        }
                        if let Some(value) =
                            line.to_ascii_lowercase().strip_prefix("content-length:")
                        {
                            length = value.trim().parse().unwrap_or(0);
                        }
                        if line == "\r\n" {
                            break;
                        }
                        head.push_str(&line);
                    }
                    let mut body = vec![0u8; length];
                    if socket.read_exact(&mut body).await.is_err() {
                        return;
                    }
                    let body = String::from_utf8_lossy(&body).into_owned();
                    let answer = if head.starts_with("GET") {
                        card.clone()
                    } else if !body.contains("\"GetTask\"")
                        && !body.contains("TckProbeUnknownMethod")
                    {
                        let _ = held.send(());
                        // Held open: only the kit's interruption ends this call.
                        std::future::pending::<()>().await;
                        return;
                    } else {
                        let id = serde_json::from_str::<serde_json::Value>(&body)
                            .ok()
                            .and_then(|v| v.get("id").cloned())
                            .unwrap_or(serde_json::Value::Null);
                        json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32001, "message": "Task not found"}})
                            .to_string()
                    };
                    let reply = format!(
                        "HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: {}\r\n\r\n{answer}",
                        answer.len()
                    );
                    if socket.get_mut().write_all(reply.as_bytes()).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    (base, told)
}

/// Starts the kit against a slow agent, waits until a check is held in flight, and sends it
/// `signals` (the second once the first is acknowledged on stderr); returns the exit status,
/// stdout, stderr, how long the kit took after the first signal, and the report if written.
async fn interrupt(
    name: &str,
    signals: &[&str],
) -> (Option<i32>, String, String, Duration, Option<Report>) {
    let (agent, mut held) = slow_agent().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join(format!("{name}.json"));
    let junit = dir.path().join(format!("{name}.xml"));
    let markdown = dir.path().join(format!("{name}.md"));
    let html = dir.path().join(format!("{name}.html"));
    let mut child = tokio::process::Command::new(BIN)
        .args([
            "--target",
            &agent,
            "--contract",
            "none",
            "--timeout",
            "120",
            "--check-timeout",
            "300",
            "--report",
            text(&report),
            "--junit",
            text(&junit),
            "--markdown",
            text(&markdown),
            "--html",
            text(&html),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the kit starts");
    let pid = child.id().expect("pid").to_string();
    tokio::time::timeout(Duration::from_secs(60), held.recv())
        .await
        .expect("a check is in flight within 60 s")
        .expect("the agent runs");
    let mut errors = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut stderr_text = String::new();
    let signalled = Instant::now();
    for (i, signal) in signals.iter().enumerate() {
        let sent = std::process::Command::new("kill")
            .args([&format!("-{signal}"), &pid])
            .status()
            .expect("kill runs");
        assert!(sent.success());
        if i + 1 < signals.len() {
            // The next signal once the kit has said it is stopping.
            let acknowledged = tokio::time::timeout(Duration::from_secs(20), async {
                while let Ok(Some(line)) = errors.next_line().await {
                    stderr_text.push_str(&line);
                    stderr_text.push('\n');
                    if line.contains("no new check starts") {
                        return true;
                    }
                }
                false
            })
            .await;
            assert_eq!(acknowledged, Ok(true), "{stderr_text}");
        }
    }
    let mut out = child.stdout.take().expect("stdout");
    let (status, out_text, rest) = tokio::time::timeout(Duration::from_secs(30), async {
        let mut out_text = String::new();
        let mut rest = String::new();
        let (_, _) = tokio::join!(out.read_to_string(&mut out_text), async {
            while let Ok(Some(line)) = errors.next_line().await {
                rest.push_str(&line);
                rest.push('\n');
            }
        });
        (child.wait().await.expect("exit"), out_text, rest)
    })
    .await
    .expect("the kit ends within 30 s of the signal");
    stderr_text.push_str(&rest);
    let took = signalled.elapsed();
    let read = Report::read(&report).ok();
    if let Some(report) = &read {
        assert!(
            std::fs::metadata(&junit).is_ok_and(|m| m.len() > 0),
            "the JUnit report is written too"
        );
        // Every format says the run was interrupted, and none calls it conformant.
        for (format, path) in [("Markdown", &markdown), ("HTML", &html)] {
            let written = std::fs::read_to_string(path).unwrap_or_default();
            let headline = written
                .lines()
                .find(|l| l.contains("A2A conformance of"))
                .unwrap_or_default();
            assert!(
                headline.contains("interrupted") && !headline.contains("conformant"),
                "{format}: {headline}"
            );
            assert!(!written.contains("100.0%"), "{format}: {written}");
        }
        if report.not_run.iter().all(|n| n.reason == "interrupted") {
            let md = std::fs::read_to_string(&markdown).unwrap_or_default();
            assert!(
                !md.contains("need the agent to play a test scenario"),
                "the checks a stop left out are not said to need a scenario: {md}"
            );
        }
    }
    (status.code(), out_text, stderr_text, took, read)
}

/// SIGINT in the middle of a run: the checks held in flight are cut after the grace, the rest
/// are not run ("interrupted"), every report is written with `interrupted: true`, the summary
/// is printed, and the kit exits 130; SIGTERM the same with 143.
#[tokio::test]
async fn interrupted_runs_still_report() {
    for (signal, code) in [("INT", 130), ("TERM", 143)] {
        let (status, out, err, took, report) = interrupt(signal, &[signal]).await;
        assert_eq!(status, Some(code), "{signal}: {err}");
        let report = report.unwrap_or_else(|| panic!("{signal}: a report: {err}"));
        assert!(report.interrupted, "{signal}");
        // Its verdict is `interrupted`, never `conformant`, and it shows no compatibility
        // figure over the few results it judged.
        assert_eq!(report.verdict, Verdict::Interrupted, "{signal}");
        assert!(
            report
                .compatibility
                .as_ref()
                .is_none_or(|c| c.percent.is_none()),
            "{signal}: {:?}",
            report.compatibility
        );
        let verdict_line = out
            .lines()
            .find(|l| l.starts_with("verdict:"))
            .unwrap_or("");
        assert!(
            verdict_line.starts_with("verdict: interrupted"),
            "{signal}: {verdict_line}"
        );
        assert!(
            out.contains("the run was interrupted before they ran"),
            "{signal}: the checks a stop left out are the stop's: {out}"
        );
        assert!(
            report.not_run.iter().any(|n| n.reason == "interrupted"),
            "{signal}: {:?}",
            report.not_run
        );
        assert!(
            report.verdict_reason.contains("interrupted"),
            "{}",
            report.verdict_reason
        );
        assert!(out.contains("verdict"), "{signal}: the summary: {out}");
        assert!(took < Duration::from_secs(20), "{signal}: took {took:?}");
    }
}

/// A second signal ends the kit at once, with the first one's status.
#[tokio::test]
async fn a_second_signal_exits_at_once() {
    let (status, _, err, took, _) = interrupt("twice", &["INT", "TERM"]).await;
    assert_eq!(status, Some(130), "{err}");
    assert!(err.contains("again"), "{err}");
    assert!(took < Duration::from_secs(10), "took {took:?}");
}

// --- 7. conventions ---

#[tokio::test]
async fn version_prints_the_kits_version() {
    for flag in ["--version", "-V"] {
        let output = kit(&[flag]).await;
        assert_eq!(output.status.code(), Some(0), "{flag}: {}", stderr(&output));
        assert!(
            stdout(&output).contains(env!("CARGO_PKG_VERSION")),
            "{flag}: {}",
            stdout(&output)
        );
    }
    // The protocol filter of earlier releases is a usage error naming its new spelling, never
    // a run that prints a version and exits 0.
    for given in [&["--version", "1.0"][..], &["--version=0.3"]] {
        let output = kit(given).await;
        assert_eq!(output.status.code(), Some(2), "{given:?}");
        assert!(
            stderr(&output).contains("--protocol-version"),
            "{}",
            stderr(&output)
        );
    }
    let output = kit(&["list", "--protocol-version", "0.3"]).await;
    assert_eq!(output.status.code(), Some(0), "{}", stderr(&output));
}

/// `a2a-tck list | head -1`: the reader goes away, and the kit ends quietly.
#[tokio::test]
async fn a_closed_pipe_ends_quietly() {
    for command in ["list", "coverage", "schema"] {
        let mut child = std::process::Command::new(BIN)
            .arg(command)
            .env("RUST_BACKTRACE", "1")
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("the kit runs");
        // The reader closes at once, as `head -1` does after its line.
        drop(child.stdout.take());
        let output = tokio::task::spawn_blocking(move || child.wait_with_output())
            .await
            .expect("join")
            .expect("exit");
        let code = output.status.code();
        assert!(
            code == Some(0) || code == Some(141),
            "{command}: {code:?}: {}",
            stderr(&output)
        );
        assert!(
            !stderr(&output).contains("panicked"),
            "{command}: {}",
            stderr(&output)
        );
    }
}

/// Bad values are usage errors, and a secret in one is never echoed.
#[tokio::test]
async fn bad_values_are_usage_errors_that_echo_no_secret() {
    let agent = watched_agent().await;
    let dir = tempfile::tempdir().expect("temp dir");
    let key = dir.path().join("key.pem");
    std::fs::write(
        &key,
        "-----BEGIN PRIVATE KEY-----\nMC4CAQAwBQYDK2VwBCIEIA==\n-----END PRIVATE KEY-----\n",
    )
    .expect("key");
    let empty = dir.path().join("empty.pem");
    std::fs::write(&empty, "").expect("empty");
    let cases: [(&[&str], &str); 5] = [
        (&["--jobs", "0"], "--jobs"),
        (&["--ca-cert", text(&key)], "--ca-cert"),
        (&["--ca-cert", text(&empty)], "--ca-cert"),
        (
            &["--header", "Authorization Bearer S3CRET-T0KEN"],
            "--header",
        ),
        (
            &["--header", "Authorization=Bearer S3CRET-T0KEN"],
            "--header",
        ),
    ];
    for (given, flag) in cases {
        let uri = agent.uri();
        let mut all = vec!["--target", uri.as_str()];
        all.extend(given);
        let output = kit(&all).await;
        let message = stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{given:?}: {message}");
        assert!(message.contains(flag), "{given:?}: {message}");
        assert!(!message.contains("S3CRET"), "{given:?}: {message}");
        assert!(!stdout(&output).contains("S3CRET"), "{given:?}");
    }
    assert_eq!(requests(&agent).await, 0, "the agent was asked");
}

//! Agents that are slow, loaded or answer errors, and runs stopped in each of their phases. A
//! scripted JSON-RPC 1.0 front stands before the reference agent (in this process): it
//! forwards every request, except that it answers the SendMessage of the parallel phase with
//! an internal error (one that names contention, or one that does not), and holds the
//! SendMessage of a check run again alone open, telling the test. The kit's pace rule: an
//! error that says it is load (`database is locked`) sends the check to a second, solitary
//! run; one that does not is the agent's answer, judged. A signal in any phase (the checks
//! run at once, the solitary reruns, the durability area's restart) still leaves every report
//! asked for, marked interrupted.

use crate::support;

use std::process::Stdio;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;
use std::time::Duration;

use a2a_tck::reporting::report::Report;
use a2a_tck::suite::check::Status;
use axum::body::Bytes;
use axum::extract::State;
use axum::http::HeaderMap;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, BufReader};
use tokio::net::TcpListener;
use tokio::sync::mpsc;

/// What the front answers to a SendMessage that is not a solitary rerun's.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Loaded {
    /// -32603 "database is locked": a sign of load; a solitary rerun's call is held open.
    Locked,
    /// -32603 "database is locked", but a solitary rerun's call is answered.
    LockedUnlessAlone,
    /// -32603 "Internal error": the agent's answer to the request.
    Plain,
    /// Forwarded, counting the SendMessages of a batch (`historyLength` 0) in flight at once.
    Counted,
}

struct Front {
    loaded: Loaded,
    upstream: String,
    client: a2a_tck::exchange::wire::HttpClient,
    card: Value,
    /// Told when a solitary rerun's SendMessage arrives (and then held open).
    alone: mpsc::UnboundedSender<()>,
    in_flight: AtomicUsize,
    most: AtomicUsize,
}

/// The front and the reference agent behind it; both stop when dropped.
struct Scripted {
    base: String,
    front: Arc<Front>,
    alone: mpsc::UnboundedReceiver<()>,
    _agent: a2a_reference_agent::RunningAgent,
    task: tokio::task::JoinHandle<()>,
}

impl Drop for Scripted {
    fn drop(&mut self) {
        self.task.abort();
    }
}

async fn scripted(loaded: Loaded) -> Scripted {
    let agent = a2a_tck::run::builtin::start_with(a2a_reference_agent::AgentConfig::default())
        .await
        .expect("the reference agent starts");
    let upstream = format!("{}{}", agent.base_url(), a2a_reference_agent::JSONRPC_PATH);
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let card = json!({
        "name": "scripted", "description": "answers under load as scripted", "version": "1",
        "supportedInterfaces": [
            {"url": format!("{base}/rpc"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "echo", "description": "echoes", "tags": ["echo"]}]
    });
    let (told, alone) = mpsc::unbounded_channel();
    let front = Arc::new(Front {
        loaded,
        upstream,
        client: a2a_tck::exchange::wire::client().expect("client"),
        card,
        alone: told,
        in_flight: AtomicUsize::new(0),
        most: AtomicUsize::new(0),
    });
    let app = Router::new()
        .route("/.well-known/agent-card.json", get(card_of))
        .route("/rpc", post(rpc))
        .with_state(front.clone());
    let task = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Scripted {
        base,
        front,
        alone,
        _agent: agent,
        task,
    }
}

async fn card_of(State(front): State<Arc<Front>>) -> Json<Value> {
    Json(front.card.clone())
}

async fn rpc(State(front): State<Arc<Front>>, headers: HeaderMap, body: Bytes) -> Response {
    let request: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let id = request.get("id").cloned().unwrap_or(Value::Null);
    let message_id = request["params"]["message"]["messageId"]
        .as_str()
        .unwrap_or("")
        .to_string();
    let alone = message_id.contains("-alone-");
    let scripted = match front.loaded {
        Loaded::Counted => false,
        Loaded::LockedUnlessAlone => !alone,
        Loaded::Locked | Loaded::Plain => true,
    };
    if request["method"] == "SendMessage" && scripted {
        if alone {
            let _ = front.alone.send(());
            // Held open: only the kit's stop ends this call.
            std::future::pending::<()>().await;
        }
        let message = match front.loaded {
            Loaded::Plain => "Internal error",
            _ => "database is locked",
        };
        return Json(
            json!({"jsonrpc": "2.0", "id": id, "error": {"code": -32603, "message": message}}),
        )
        .into_response();
    }
    let counted = request["method"] == "SendMessage"
        && request["params"]["configuration"]["historyLength"] == json!(0);
    if counted {
        let now = front.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
        front.most.fetch_max(now, Ordering::SeqCst);
    }
    let mut forward = (front.client)
        .post(&front.upstream)
        .header("content-type", "application/json")
        .body(body.to_vec());
    for name in ["a2a-version", "accept"] {
        if let Some(value) = headers.get(name).and_then(|v| v.to_str().ok()) {
            forward = forward.header(name, value);
        }
    }
    let answer = match forward.send().await {
        Ok(answer) => answer.bytes().await.unwrap_or_default(),
        Err(_) => Bytes::new(),
    };
    if counted {
        front.in_flight.fetch_sub(1, Ordering::SeqCst);
    }
    ([("content-type", "application/json")], answer).into_response()
}

/// The check these tests run: one plain SendMessage, judged on its answer.
const SEND: &str = "send.returns-task-or-message";

async fn run(scripted: &Scripted, select: &str, jobs: usize) -> Report {
    let card_url = format!("{}/.well-known/agent-card.json", scripted.base);
    support::run_jobs(&scripted.base, &card_url, select, jobs).await
}

#[tokio::test]
async fn a_plain_internal_error_is_the_agents_answer_and_is_not_run_again() {
    let scripted = scripted(Loaded::Plain).await;
    let report = run(&scripted, SEND, 8).await;
    let results = support::results_of(&report, SEND);
    assert!(!results.is_empty());
    for result in results {
        assert_ne!(
            result.status,
            Status::Pass,
            "{}",
            support::explain(&[result])
        );
        assert!(
            !result.message.contains("run again alone"),
            "{}",
            result.message
        );
    }
    let used = report.concurrency.expect("the report says what it used");
    assert!(used.lowered.is_empty(), "{used:?}");
}

#[tokio::test]
async fn an_error_that_names_contention_lowers_the_pace_and_is_judged_alone() {
    let scripted = scripted(Loaded::LockedUnlessAlone).await;
    let report = run(&scripted, SEND, 8).await;
    let results = support::results_of(&report, SEND);
    assert!(
        support::all_have(&results, Status::Pass),
        "{}",
        support::explain(&results)
    );
    assert!(
        results
            .iter()
            .all(|r| r.message.contains("run again alone")),
        "{}",
        support::explain(&results)
    );
    let used = report.concurrency.expect("the report says what it used");
    assert!(
        used.lowered.iter().any(|why| why.contains("contention")),
        "{used:?}"
    );
    assert!(used.at_end < used.start, "{used:?}");
}

/// The kit's binary against the front, with a JSON and a JUnit report, stopped with SIGTERM
/// once `ready` says the phase under test has begun; the report, and the kit's stderr.
async fn stopped_when<F>(args: &[&str], ready: F) -> (Option<Report>, String)
where
    F: std::future::Future<Output = ()>,
{
    let dir = tempfile::tempdir().expect("temp dir");
    let report = dir.path().join("report.json");
    let junit = dir.path().join("report.xml");
    let mut child = tokio::process::Command::new(support::BIN)
        .args(args)
        .args([
            "--report",
            report.to_str().expect("utf8"),
            "--junit",
            junit.to_str().expect("utf8"),
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the kit starts");
    tokio::time::timeout(Duration::from_secs(120), ready)
        .await
        .expect("the phase begins within 120 s");
    terminate(&child);
    let mut out = child.stdout.take().expect("stdout");
    let mut err = child.stderr.take().expect("stderr");
    let (status, stderr) = tokio::time::timeout(
        a2a_tck::facts::stop::GRACE + Duration::from_secs(20),
        async {
            let (mut o, mut e) = (String::new(), String::new());
            let _ = tokio::join!(out.read_to_string(&mut o), err.read_to_string(&mut e));
            (child.wait().await.expect("exit"), e)
        },
    )
    .await
    .expect("the kit ends soon after the signal");
    assert_eq!(status.code(), Some(143), "{stderr}");
    let read = Report::read(&report).ok();
    if read.is_some() {
        assert!(
            std::fs::metadata(&junit).is_ok_and(|m| m.len() > 0),
            "the JUnit report is written too"
        );
    }
    (read, stderr)
}

#[tokio::test]
async fn a_stop_while_a_check_runs_again_alone_still_reports() {
    let mut scripted = scripted(Loaded::Locked).await;
    let alone = &mut scripted.alone;
    let (report, stderr) = stopped_when(
        &[
            "--target",
            &scripted.base,
            "--contract",
            "none",
            "--select",
            SEND,
        ],
        async {
            alone.recv().await;
        },
    )
    .await;
    let report = report.unwrap_or_else(|| panic!("a report: {stderr}"));
    assert!(report.interrupted);
    let results = support::results_of(&report, SEND);
    assert!(!results.is_empty(), "{report:?}");
    assert!(
        results.iter().any(|r| r.message.contains("cut short")),
        "{}",
        support::explain(&results)
    );
}

#[tokio::test]
async fn a_stop_during_the_durability_restart_still_reports() {
    let agent = a2a_tck::run::builtin::start_with(a2a_reference_agent::AgentConfig::default())
        .await
        .expect("the reference agent starts");
    let base = agent.base_url();
    let dir = tempfile::tempdir().expect("temp dir");
    let args = [
        "--target",
        &base,
        "--select",
        "durability.*",
        "--restart-cmd",
        "echo restarting >&2; sleep 60",
        "--ready-timeout",
        "120",
    ];
    let dir_path = dir.path().to_path_buf();
    let report = dir_path.join("report.json");
    let mut child = tokio::process::Command::new(support::BIN)
        .args(args)
        .args(["--report", report.to_str().expect("utf8")])
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .expect("the kit starts");
    let mut lines = BufReader::new(child.stderr.take().expect("stderr")).lines();
    let mut seen = String::new();
    let restarting = tokio::time::timeout(Duration::from_secs(120), async {
        while let Ok(Some(line)) = lines.next_line().await {
            seen.push_str(&line);
            seen.push('\n');
            if line.contains("restarting") {
                return true;
            }
        }
        false
    })
    .await;
    assert_eq!(restarting, Ok(true), "{seen}");
    terminate(&child);
    let status = tokio::time::timeout(
        a2a_tck::facts::stop::GRACE + Duration::from_secs(20),
        async {
            while let Ok(Some(line)) = lines.next_line().await {
                seen.push_str(&line);
                seen.push('\n');
            }
            child.wait().await.expect("exit")
        },
    )
    .await
    .expect("the kit ends soon after the signal");
    assert_eq!(status.code(), Some(143), "{seen}");
    let report = Report::read(&report).unwrap_or_else(|e| panic!("a report ({e}): {seen}"));
    assert!(report.interrupted);
    assert!(
        (report.not_run.iter())
            .any(|n| n.id.starts_with("durability.") && n.reason == "interrupted"),
        "{:?}",
        report.not_run
    );
    agent.shutdown().await;
}

#[tokio::test]
async fn a_batch_goes_at_the_runs_pace_within_its_ceiling() {
    let scripted = scripted(Loaded::Counted).await;
    let report = run(&scripted, "tasks.list.page-size-bounds", 6).await;
    let results = support::results_of(&report, "tasks.list.page-size-bounds");
    assert!(
        support::all_have(&results, Status::Pass),
        "{}",
        support::explain(&results)
    );
    let most = scripted.front.most.load(Ordering::SeqCst);
    assert!((2..=6).contains(&most), "{most} SendMessages at once");
    let used = report.concurrency.expect("the report says what it used");
    assert_eq!((used.ceiling, used.start), (6, 4));
    assert!(used.most_in_flight <= 6, "{used:?}");
    // Alone, a batch goes one at a time.
    let scripted = self::scripted(Loaded::Counted).await;
    let report = run(&scripted, "tasks.list.page-size-bounds", 1).await;
    assert_eq!(scripted.front.most.load(Ordering::SeqCst), 1);
    assert_eq!(report.concurrency.map(|c| c.most_in_flight), Some(1));
}

/// Sends SIGTERM to the kit, as a CI job's cancel or a container stop does.
fn terminate(child: &tokio::process::Child) {
    let pid = child.id().expect("pid").to_string();
    let sent = std::process::Command::new("kill")
        .args(["-TERM", &pid])
        .status()
        .expect("kill runs");
    assert!(sent.success());
}

//! Shared by the test harnesses: run selected checks against a target through the public API.

#![allow(dead_code)]

pub mod browser;

use a2a_tck::reporting::report::{CheckResult, Report};
use a2a_tck::run::runner::{self, Filter, RunOptions};
use a2a_tck::suite::check::Status;

/// The kit's binary, for the tests that run it as a user would.
pub const BIN: &str = env!("CARGO_BIN_EXE_a2a-tck");

/// Runs the kit's binary with `args` in a blocking thread, so agents serving in this process
/// keep answering.
pub async fn kit(args: Vec<String>) -> std::process::Output {
    tokio::task::spawn_blocking(move || std::process::Command::new(BIN).args(&args).output())
        .await
        .expect("join")
        .expect("the kit runs")
}

/// The reference agent's binary, beside this test's: `cargo test --workspace` builds it (the
/// package has integration tests). When it is missing (`cargo test -p a2a-tck` on a fresh
/// tree), it is built here.
pub fn agent_binary() -> std::path::PathBuf {
    let exe = std::env::current_exe().expect("the test's path");
    let profile_dir = exe
        .parent()
        .and_then(std::path::Path::parent)
        .expect("target/<profile>/deps/<test>");
    let binary = profile_dir.join("a2a-reference-agent");
    if binary.exists() {
        return binary;
    }
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut build = std::process::Command::new(cargo);
    build.args([
        "build",
        "--quiet",
        "-p",
        "a2a-reference-agent",
        "--bin",
        "a2a-reference-agent",
    ]);
    if profile_dir.ends_with("release") {
        build.arg("--release");
    }
    let status = build.status().expect("cargo runs");
    assert!(status.success(), "building a2a-reference-agent failed");
    assert!(binary.exists(), "no {}", binary.display());
    binary
}

pub fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// Waits until something accepts connections on 127.0.0.1:`port`, 20 s at most.
pub fn listening(port: u16) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while std::time::Instant::now() < deadline {
        if std::net::TcpStream::connect(("127.0.0.1", port)).is_ok() {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    panic!("nothing listened on port {port} within 20 s");
}

/// A mock agent serving a 1.0 card named `name` at the well-known path, whose one JSON-RPC
/// interface is `interface_url` (default: `/rpc` on the mock itself). Mount the interface's
/// answers on it as a test needs.
pub async fn card_server(name: &str, interface_url: Option<&str>) -> wiremock::MockServer {
    use wiremock::matchers::{method, path};
    let server = wiremock::MockServer::start().await;
    let url = interface_url.map_or_else(|| format!("{}/rpc", server.uri()), str::to_string);
    let card = serde_json::json!({
        "name": name, "description": "a card for a mock interface", "version": "1",
        "supportedInterfaces": [{"url": url, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}],
        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": []
    });
    wiremock::Mock::given(method("GET"))
        .and(path("/.well-known/agent-card.json"))
        .respond_with(wiremock::ResponseTemplate::new(200).set_body_json(card))
        .mount(&server)
        .await;
    server
}

/// What a process wrote on standard output, as text.
pub fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// What a process wrote on standard error, as text.
pub fn stderr(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}

/// A path `name` in the temporary directory of this test binary's `area`.
pub fn temp_path(area: &str, name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("a2a-tck-{area}-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

/// Runs the checks whose id matches `select` (a glob; an exact id selects one check).
pub async fn run(target: &str, card_url: &str, select: &str) -> Report {
    run_as(target, card_url, select, None, None).await
}

/// [`run`], trusting the CA certificate `ca_pem` (an agent under `--tls`).
pub async fn run_trusting(
    target: &str,
    card_url: &str,
    select: &str,
    ca_pem: Option<&str>,
) -> Report {
    run_as(target, card_url, select, None, ca_pem).await
}

/// [`run`] with the credentials of the built-in agent in authenticated mode.
pub async fn run_with(
    target: &str,
    card_url: &str,
    select: &str,
    credentials: Option<a2a_tck::run::builtin::Credentials>,
) -> Report {
    run_as(target, card_url, select, credentials, None).await
}

/// [`run`] with credentials (authenticated mode) and a CA to trust (`--tls`), each optional.
pub async fn run_as(
    target: &str,
    card_url: &str,
    select: &str,
    credentials: Option<a2a_tck::run::builtin::Credentials>,
    ca_pem: Option<&str>,
) -> Report {
    run_as_with(
        target,
        card_url,
        select,
        credentials,
        ca_pem,
        Default::default(),
    )
    .await
}

/// Webhook options under which agents are given a URL that does not read as loopback
/// (`http://[::ffff:127.0.0.1]:PORT`, an IPv4-mapped address, so every call still stays on
/// the loopback interface) while the receiver listens on 127.0.0.1: the kit can then offer a
/// plain loopback webhook as the private address whose calls it sees.
pub fn routable_webhook() -> a2a_tck::exchange::webhook::WebhookOptions {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    a2a_tck::exchange::webhook::WebhookOptions {
        url: Some(format!("http://[::ffff:127.0.0.1]:{port}/hooks")),
        listen: Some(std::net::SocketAddr::from(([127, 0, 0, 1], port))),
    }
}

/// [`run`] with `jobs` checks at once.
pub async fn run_jobs(target: &str, card_url: &str, select: &str, jobs: usize) -> Report {
    let mut options = RunOptions::new(target, card_url);
    options.jobs = jobs;
    run_selected(options, select).await
}

/// [`run_as`] with the webhook receiver's options (`--webhook-url`, `--webhook-listen`).
pub async fn run_as_with(
    target: &str,
    card_url: &str,
    select: &str,
    credentials: Option<a2a_tck::run::builtin::Credentials>,
    ca_pem: Option<&str>,
    webhook: a2a_tck::exchange::webhook::WebhookOptions,
) -> Report {
    let mut options = RunOptions::new(target, card_url);
    options.webhook = webhook;
    options
        .ca_certs
        .extend(ca_pem.map(|pem| pem.as_bytes().to_vec()));
    if let Some(credentials) = credentials {
        options.use_credentials(credentials);
    }
    run_selected(options, select).await
}

/// Runs the checks matching `select` with `options`, streams judged after a short wait.
async fn run_selected(mut options: RunOptions, select: &str) -> Report {
    // A stream that should have closed is judged after this wait: keep negative runs short.
    options.limits.stream_wait = std::time::Duration::from_millis(1500);
    options.filter = Filter {
        select: vec![select.to_string()],
        ..Filter::default()
    };
    match runner::run(&a2a_tck::suite::checks::all(), &options).await {
        Ok(report) => report,
        Err(e) => panic!("the run did not start: {e}"),
    }
}

/// Runs the durability checks matching `select` against the built-in agent with `faults`, on
/// a SQLite file, restarted in-process in the middle of the run.
pub async fn run_durable(faults: &[a2a_reference_agent::Fault], select: &str) -> Report {
    let config = a2a_tck::run::builtin::full_profile(faults);
    let agent = a2a_tck::run::durability::BuiltinDurable::start(config)
        .await
        .expect("the built-in agent starts on SQLite");
    let mut options = RunOptions::new(&agent.base_url(), &agent.served_card_url());
    options.limits.stream_wait = std::time::Duration::from_millis(1500);
    options.filter = Filter {
        select: vec![select.to_string()],
        ..Filter::default()
    };
    options.durability = Some(agent.durability(std::time::Duration::from_secs(10)));
    let report = runner::run(&a2a_tck::suite::checks::all(), &options).await;
    agent.shutdown().await;
    match report {
        Ok(report) => report,
        Err(e) => panic!("the run did not start: {e}"),
    }
}

/// A readable account of results, with their evidence, for failure messages.
pub fn explain(results: &[&CheckResult]) -> String {
    results
        .iter()
        .map(|r| {
            format!(
                "{} {} [{}]: {}\n  evidence: {}",
                r.status,
                r.id,
                r.binding.map_or("card".to_string(), |b| b.to_string()),
                r.message,
                serde_json::to_string(&r.evidence).unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The results of one check id.
pub fn results_of<'a>(report: &'a Report, id: &str) -> Vec<&'a CheckResult> {
    report.results.iter().filter(|r| r.id == id).collect()
}

pub fn all_have(results: &[&CheckResult], status: Status) -> bool {
    !results.is_empty() && results.iter().all(|r| r.status == status)
}

//! The standalone binary honours the environment variables of the official SDKs' test agents,
//! `ITK_ACTS_REDUCED_CAPABILITIES` and `ITK_ACTS_AUTH`: started with each, it serves the card
//! of that configuration and enforces it.

use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// The binary, started with one environment variable; killed when dropped.
struct Agent {
    child: Child,
    base: String,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn free_port() -> u16 {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("a free port");
    listener.local_addr().expect("its address").port()
}

/// Starts the binary with `env` set (and both variables otherwise unset), and waits, 20 s at
/// most, until it listens.
fn start(env: &[(&str, &str)]) -> Agent {
    let port = free_port();
    let mut command = Command::new(env!("CARGO_BIN_EXE_a2a-reference-agent"));
    command
        .args(["--port", &port.to_string()])
        .env_remove("ITK_ACTS_REDUCED_CAPABILITIES")
        .env_remove("ITK_ACTS_AUTH")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    let child = command.spawn().expect("the agent starts");
    let agent = Agent {
        child,
        base: format!("http://127.0.0.1:{port}"),
    };
    let deadline = Instant::now() + Duration::from_secs(20);
    while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
        assert!(Instant::now() < deadline, "nothing listened within 20 s");
        std::thread::sleep(Duration::from_millis(20));
    }
    agent
}

/// A client whose every request has a deadline.
fn http() -> reqwest::Client {
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .timeout(Duration::from_secs(5))
        .build()
        .expect("a client")
}

async fn card(agent: &Agent) -> Value {
    let url = format!("{}/.well-known/agent-card.json", agent.base);
    let response = http().get(&url).send().await.expect("the card is served");
    let text = response.text().await.expect("a card");
    serde_json::from_str(&text).expect("a JSON card")
}

/// The status of a JSON-RPC SendMessage with `token` (none: no Authorization).
async fn send_status(agent: &Agent, token: Option<&str>) -> u16 {
    let body = serde_json::json!({
        "jsonrpc": "2.0", "id": 1, "method": "SendMessage",
        "params": {"message": {"messageId": "tck-complete-task-1", "role": "ROLE_USER",
                               "parts": [{"text": "hi"}]}}
    });
    let mut request = http()
        .post(format!("{}/a2a/jsonrpc", agent.base))
        .header("A2A-Version", "1.0")
        .header("Content-Type", "application/json")
        .body(body.to_string());
    if let Some(token) = token {
        request = request.bearer_auth(token);
    }
    request.send().await.expect("an answer").status().as_u16()
}

#[tokio::test]
async fn without_either_variable_the_card_declares_streaming_and_no_security() {
    let agent = start(&[]);
    let card = card(&agent).await;
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(card["capabilities"]["extendedAgentCard"], false);
    assert!(card.get("securitySchemes").is_none());
}

#[tokio::test]
async fn reduced_capabilities_switch_off_streaming_push_and_the_extended_card() {
    let agent = start(&[("ITK_ACTS_REDUCED_CAPABILITIES", "1")]);
    let card = card(&agent).await;
    assert_eq!(card["capabilities"]["streaming"], false);
    assert_eq!(card["capabilities"]["pushNotifications"], false);
    assert_eq!(card["capabilities"]["extendedAgentCard"], false);
    assert!(card.get("securitySchemes").is_none());
}

#[tokio::test]
async fn a_variable_set_to_false_or_zero_changes_nothing() {
    let agent = start(&[
        ("ITK_ACTS_REDUCED_CAPABILITIES", "false"),
        ("ITK_ACTS_AUTH", "0"),
    ]);
    let card = card(&agent).await;
    assert_eq!(card["capabilities"]["streaming"], true);
    assert!(card.get("securitySchemes").is_none());
}

#[tokio::test]
async fn auth_declares_and_enforces_a_bearer_scheme_with_the_two_itk_tokens() {
    let agent = start(&[("ITK_ACTS_AUTH", "1")]);
    let card = card(&agent).await;
    assert!(card["securitySchemes"]["bearer"].is_object(), "{card}");
    assert_eq!(card["capabilities"]["extendedAgentCard"], true);
    assert_eq!(card["capabilities"]["streaming"], true);
    assert_eq!(send_status(&agent, None).await, 401);
    assert_eq!(
        send_status(&agent, Some("itk-insufficient-token")).await,
        403
    );
    assert_eq!(send_status(&agent, Some("itk-valid-token")).await, 200);
}

#[test]
fn both_variables_together_are_refused_at_start() {
    let mut child = Command::new(env!("CARGO_BIN_EXE_a2a-reference-agent"))
        .args(["--port", "0"])
        .env("ITK_ACTS_REDUCED_CAPABILITIES", "1")
        .env("ITK_ACTS_AUTH", "1")
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the agent runs");
    let deadline = Instant::now() + Duration::from_secs(20);
    let status = loop {
        if let Some(status) = child.try_wait().expect("its status") {
            break status;
        }
        if Instant::now() > deadline {
            let _ = child.kill();
            panic!("the agent still ran after 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    assert!(!status.success());
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().expect("piped"), &mut stderr)
        .expect("its error");
    assert!(stderr.contains("both set"), "{stderr}");
}

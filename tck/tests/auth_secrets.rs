//! Credentials never appear in anything the kit writes: the reports (JSON, JUnit, HTML,
//! Markdown), the summary on stdout, or stderr. The agent runs in authenticated mode with
//! faults that make the auth checks WARN, so their evidence (requests with the credential
//! headers) is written; the kit gets its token from --bearer-env, the second principal's
//! from --other-bearer, the limited principal's from --limited-bearer-env and an API key
//! from --header.

use std::collections::BTreeSet;
use std::net::SocketAddr;

use a2a_reference_agent::{AgentConfig, Fault};

const BIN: &str = env!("CARGO_BIN_EXE_a2a-tck");

#[tokio::test]
async fn secrets_never_reach_an_output() {
    let (mine, other, limited, key) = (
        "tck-secret-first-principal-0123456789",
        "tck-secret-second-principal-9876543210",
        "tck-secret-limited-principal-2468013579",
        "tck-secret-api-key-5555",
    );
    let config = AgentConfig {
        bearer_tokens: vec![mine.to_string(), other.to_string()],
        limited_tokens: vec![limited.to_string()],
        faults: BTreeSet::from([Fault::AuthWrongStatus, Fault::AuthNoChallenge]),
        ..AgentConfig::default()
    };
    let agent = a2a_reference_agent::start(SocketAddr::from(([127, 0, 0, 1], 0)), config)
        .await
        .expect("the agent starts");
    let dir = std::env::temp_dir().join(format!("a2a-tck-secrets-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    let file = |name: &str| dir.join(name).to_string_lossy().into_owned();
    let args: Vec<String> = [
        "--target",
        &agent.base_url(),
        "--bearer-env",
        "A2A_TCK_TEST_TOKEN",
        "--other-bearer",
        other,
        "--limited-bearer-env",
        "A2A_TCK_TEST_LIMITED_TOKEN",
        "--header",
        &format!("X-Api-Key: {key}"),
        "--select",
        "auth.*",
        "--select",
        "extended-card.*",
        "--select",
        "tasks.get.*",
        "--report",
        &file("report.json"),
        "--junit",
        &file("report.xml"),
        "--html",
        &file("report.html"),
        "--markdown",
        &file("report.md"),
    ]
    .iter()
    .map(|a| a.to_string())
    .collect();
    let output = tokio::task::spawn_blocking(move || {
        std::process::Command::new(BIN)
            .args(&args)
            .env("A2A_TCK_TEST_TOKEN", mine)
            .env("A2A_TCK_TEST_LIMITED_TOKEN", limited)
            .output()
    })
    .await
    .expect("join")
    .expect("the kit runs");
    agent.shutdown().await;
    let mut outputs = vec![
        (
            "stdout".to_string(),
            String::from_utf8_lossy(&output.stdout).into_owned(),
        ),
        (
            "stderr".to_string(),
            String::from_utf8_lossy(&output.stderr).into_owned(),
        ),
    ];
    for name in ["report.json", "report.xml", "report.html", "report.md"] {
        let text = std::fs::read_to_string(dir.join(name)).expect("every report is written");
        outputs.push((name.to_string(), text));
    }
    for (name, text) in &outputs {
        for secret in [mine, other, limited, key] {
            assert!(!text.contains(secret), "{name} holds a secret");
        }
    }
    // Not vacuous: the WARN results carry the credential headers, redacted.
    let report = &outputs[2].1;
    assert!(
        report.contains("\"authorization\""),
        "no credential header in the evidence"
    );
    assert!(report.contains("[redacted]"));
    assert!(
        outputs[0].1.contains("auth.rejection-form"),
        "the auth checks did not WARN: {}",
        outputs[0].1
    );
    let _ = std::fs::remove_dir_all(&dir);
}

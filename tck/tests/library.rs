//! The kit as a library (`a2a_tck::api`), used the way an SDK gates on it in its own suite:
//! start the agent in-process, run the kit against it, assert the verdict.

use std::time::Duration;

use a2a_tck::api::{self, AgentConfig, Error, Fault, Level, Options, Status, Verdict};

/// The gate an SDK writes: its agent (here the reference agent, started in-process on an
/// ephemeral loopback port) must be conformant on every declared interface.
#[tokio::test(flavor = "multi_thread")]
async fn an_agent_started_in_process_is_conformant() {
    let agent = a2a_reference_agent::start(([127, 0, 0, 1], 0).into(), AgentConfig::default())
        .await
        .expect("the agent starts");
    let outcome = api::run(&Options::url(agent.base_url())).await;
    agent.shutdown().await;
    let report = outcome.expect("the run starts");
    assert_eq!(
        report.verdict,
        Verdict::Conformant,
        "{}",
        api::summary(&report)
    );
    assert!(api::problems(&report).is_empty());
    assert!(!report.target.builtin);
    assert!(report.results.iter().any(|r| r.status == Status::Pass));
}

/// The same gate closes on an agent that breaks a rule.
#[tokio::test(flavor = "multi_thread")]
async fn a_broken_rule_fails_the_gate() {
    let config = AgentConfig::with_faults([Fault::OmitContextId]);
    let options = Options::builtin_with(config)
        .select("send.*")
        .stream_wait(Duration::from_millis(1500));
    let report = api::run(&options).await.expect("the run starts");
    assert_eq!(report.verdict, Verdict::NonConformant);
    let problems = api::problems(&report);
    assert!(
        problems.iter().any(|r| r.status == Status::Fail),
        "{}",
        api::summary(&report)
    );
    assert!(report.target.builtin);
    assert!(report.results.iter().all(|r| r.id.starts_with("send.")));
}

/// `run_blocking` serves callers without an async runtime; the selection narrows the run.
#[test]
fn run_blocking_with_a_selection() {
    let options = Options::builtin().level(Level::Must).select("card.*");
    let report = api::run_blocking(&options).expect("the run starts");
    assert_eq!(
        report.verdict,
        Verdict::Conformant,
        "{}",
        api::summary(&report)
    );
    assert!(!report.results.is_empty());
    assert!(report
        .results
        .iter()
        .all(|r| r.id.starts_with("card.") && r.level == Level::Must));
}

/// Options that cannot run are refused before anything is sent.
#[tokio::test]
async fn unusable_options_are_refused() {
    let refused = |outcome: Result<api::Report, Error>| match outcome {
        Err(error) => error,
        Ok(report) => panic!("expected an error, got a report: {}", api::summary(&report)),
    };
    let no_match = refused(api::run(&Options::builtin().select("no-such-check.*")).await);
    assert!(matches!(no_match, Error::Usage(_)), "{no_match}");
    let zero = refused(api::run(&Options::builtin().check_timeout(Duration::ZERO)).await);
    assert!(matches!(zero, Error::Usage(_)), "{zero}");
    let header = refused(api::run(&Options::builtin().header("bad name", "x")).await);
    assert!(matches!(header, Error::Usage(_)), "{header}");
    let url = refused(api::run(&Options::url("not a url")).await);
    assert!(matches!(url, Error::Run(_)), "{url}");
}

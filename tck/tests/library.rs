//! The kit as a library (`a2a_tck::api`), used the way an SDK gates on it in its own suite:
//! start the agent in-process, run the kit against it, assert the verdict.

use std::time::Duration;

use a2a_tck::api::{
    self, AgentConfig, Binding, Error, Fault, Level, Options, ProtocolVersion, Status, Verdict,
};

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
    let jobs = refused(api::run(&Options::builtin().jobs(0)).await);
    assert!(matches!(jobs, Error::Usage(_)), "{jobs}");
    let pem = refused(api::run(&Options::builtin().ca_cert("not a certificate")).await);
    assert!(matches!(pem, Error::Usage(_)), "{pem}");
    let drive = api::Drive::parse("[completed]\ntext = \"hi\"\n", false).expect("parses");
    let both = Options::builtin()
        .drive(drive)
        .contract(api::Contract::Acts);
    let both = refused(api::run(&both).await);
    assert!(matches!(both, Error::Usage(_)), "{both}");
    // A behaviour file implies the ACTS carrier: beside a contract or a drive file, one of
    // them would be dropped without a word.
    let behaviors = || {
        a2a_tck::facts::behaviors::SutBehaviors::read(std::path::Path::new(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/../fixtures/sut-behaviors-reference.yaml"
        )))
        .expect("the example behaviour file")
    };
    let with_contract = Options::builtin()
        .sut_behaviors(behaviors())
        .contract(api::Contract::None);
    let with_contract = refused(api::run(&with_contract).await);
    assert!(
        matches!(&with_contract, Error::Usage(m) if m.contains("sut_behaviors")),
        "{with_contract}"
    );
    let drive = api::Drive::parse("[completed]\ntext = \"hi\"\n", false).expect("parses");
    let with_drive = Options::builtin().sut_behaviors(behaviors()).drive(drive);
    let with_drive = refused(api::run(&with_drive).await);
    assert!(
        matches!(&with_drive, Error::Usage(m) if m.contains("sut_behaviors")),
        "{with_drive}"
    );
}

/// An agent whose card cannot be read gives the report the command writes then: verdict
/// `error`, with the card exchange, not an `Err`.
#[tokio::test]
async fn an_unusable_card_is_a_report_with_its_evidence() {
    // A port nothing listens on: bound, then released.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let options =
        Options::url(format!("http://127.0.0.1:{port}")).request_timeout(Duration::from_secs(2));
    let report = api::run(&options).await.expect("a report, not an error");
    assert_eq!(report.verdict, Verdict::Error, "{}", api::summary(&report));
    assert!(report.results.is_empty());
    let failure = report.failure.as_ref().expect("the failure is recorded");
    assert!(!failure.evidence.is_empty(), "{failure:?}");
}

/// The options the command line has: the contract, a drive file, the built-in agent over TLS.
#[tokio::test]
async fn the_library_takes_the_command_line_options() {
    let acts = api::run(
        &Options::builtin()
            .contract(api::Contract::Acts)
            .select("subscribe.*")
            .version(ProtocolVersion::V1_0),
    )
    .await
    .expect("a report");
    assert_eq!(acts.verdict, Verdict::Conformant, "{}", api::summary(&acts));
    assert_eq!(
        acts.contract.as_ref().map(|c| c.used),
        Some(api::Contract::Acts)
    );
    let drive = api::Drive::read(std::path::Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../fixtures/drive-reference.toml"
    )))
    .expect("the example drive file");
    let config = AgentConfig {
        faults: [Fault::PlaysNoContract].into(),
        ..a2a_tck::run::builtin::profile()
    };
    let driven = api::run(
        &Options::builtin_with(config)
            .drive(drive)
            .select("subscribe.receives-later-updates")
            .binding(Binding::Jsonrpc)
            .version(ProtocolVersion::V1_0),
    )
    .await
    .expect("a report");
    assert!(
        !driven.results.is_empty() && driven.results.iter().all(|r| r.status == Status::Pass),
        "{}",
        api::summary(&driven)
    );
    let tls = api::run(&Options::builtin_tls().select("tls.*"))
        .await
        .expect("a report");
    assert!(
        tls.results.iter().any(|r| r.status == Status::Pass),
        "{}",
        api::summary(&tls)
    );
}

/// The gate of `--expect` and the floor of `--min-judged`, through the library.
#[tokio::test(flavor = "multi_thread")]
async fn a_baseline_and_a_floor_judge_the_report() {
    let config = AgentConfig::with_faults([Fault::OmitContextId]);
    let options = Options::builtin_with(config)
        .select("send.*")
        .stream_wait(Duration::from_millis(1500));
    let first = api::run(&options).await.expect("the run starts");
    let failing: Vec<String> = (first.results.iter())
        .filter(|r| r.status == Status::Fail)
        .map(|r| r.id.clone())
        .collect();
    assert!(!failing.is_empty(), "{}", api::summary(&first));
    let dir = tempfile::tempdir().expect("temp dir");
    let path = dir.path().join("a2a-tck-baseline.toml");
    let entries: String = (failing.iter())
        .map(|id| format!("[[expect]]\ncheck = \"{id}\"\nstatus = \"FAIL\"\nreason = \"contextId omitted, tracked\"\n\n"))
        .collect();
    std::fs::write(&path, entries).expect("baseline written");
    let baseline = api::Baseline::load(&path).expect("the baseline loads");
    let gated = api::run(
        &options
            .clone()
            .expect(baseline, path.display().to_string())
            .min_judged("1".parse().expect("a floor")),
    )
    .await
    .expect("the run starts");
    let gate = gated.baseline.as_ref().expect("the gate's outcome");
    assert!(gate.passed, "{}", gate.reason);
    assert!(gated.floor.as_ref().is_some_and(|f| f.passed));
    let unmet = api::run(&options.min_judged("100000".parse().expect("a floor")))
        .await
        .expect("the run starts");
    assert!(unmet.floor.as_ref().is_some_and(|f| !f.passed));
}

/// The library renders a report in every format the command writes, from one table.
#[tokio::test(flavor = "multi_thread")]
async fn every_format_renders_the_report() {
    let report = api::run(&Options::builtin().select("card.*"))
        .await
        .expect("the run starts");
    let flags: Vec<&str> = api::Format::ALL.iter().map(|f| f.flag()).collect();
    assert_eq!(
        flags,
        ["--report", "--junit", "--markdown", "--html", "--sarif"]
    );
    for format in api::Format::ALL {
        let text = format.render(&report, None).expect("rendered");
        assert!(!text.is_empty(), "{}", format.label());
        if matches!(format, api::Format::Json | api::Format::Sarif) {
            serde_json::from_str::<serde_json::Value>(&text).expect("JSON");
        }
    }
    assert_eq!(
        api::markdown(&report),
        api::Format::Markdown.render(&report, None).expect("md")
    );
}

//! The kit against the reference agent served over TLS with a private CA: `--ca-cert` makes
//! the kit trust it (every binding, gRPC included), the `tls.*` checks pass, and without the
//! CA the card cannot be fetched. Also the builtin `--tls` run.

use crate::support;

use a2a_tck::reporting::report::Report;

fn temp_path(name: &str) -> std::path::PathBuf {
    support::temp_path("tls", name)
}

#[tokio::test(flavor = "multi_thread")]
async fn ca_cert_trusts_the_agents_private_ca() {
    let mut config = a2a_tck::run::builtin::profile();
    config.tls = true;
    let agent = a2a_tck::run::builtin::start_with(config)
        .await
        .expect("agent");
    let base = agent.base_url();
    assert!(base.starts_with("https://"), "{base}");
    let ca = temp_path("ca.pem");
    std::fs::write(&ca, agent.ca_pem().expect("a CA under tls")).expect("write CA");
    let report_path = temp_path("report.json");
    let args = [
        "--target",
        &base,
        "--ca-cert",
        ca.to_str().expect("utf8"),
        "--select",
        "tls.*",
        "--select",
        "extensions.*",
        "--select",
        "tasks.get.*",
        "--report",
        report_path.to_str().expect("utf8"),
        "--quiet",
    ];
    let output = support::kit(args.iter().map(|a| a.to_string()).collect()).await;
    assert!(
        output.status.success(),
        "{}\n{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    let report = Report::read(&report_path).expect("a complete report");
    let tls: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.id.starts_with("tls."))
        .collect();
    assert_eq!(tls.len(), 4);
    assert!(
        report
            .results
            .iter()
            .all(|r| r.status.to_string() == "PASS"),
        "{:?}",
        report
            .results
            .iter()
            .map(|r| (&r.id, r.status.to_string(), &r.message))
            .collect::<Vec<_>>()
    );
    // gRPC over TLS was used (its results are there and passed).
    assert!(report.results.iter().any(|r| r.id.starts_with("tasks.get.")
        && r.binding == Some(a2a_tck::suite::check::Binding::Grpc)));

    // Without the CA the card is not trusted: the run cannot start.
    let untrusted = ["--target", &base, "--select", "tls.*", "--quiet"];
    let output = support::kit(untrusted.iter().map(|a| a.to_string()).collect()).await;
    assert!(!output.status.success());
    agent.shutdown().await;
}

#[tokio::test(flavor = "multi_thread")]
async fn builtin_tls_flag_passes_the_tls_checks() {
    let report_path = temp_path("builtin.json");
    let args = [
        "--tls",
        "--select",
        "tls.*",
        "--select",
        "tasks.get.*",
        "--report",
        report_path.to_str().expect("utf8"),
        "--quiet",
    ];
    let output = support::kit(args.iter().map(|a| a.to_string()).collect()).await;
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stdout)
    );
    let report = Report::read(&report_path).expect("a complete report");
    let tls = report.results.iter().filter(|r| r.id.starts_with("tls."));
    assert_eq!(tls.count(), 4);
    assert!(report
        .results
        .iter()
        .all(|r| r.status.to_string() == "PASS"));
    assert!(
        report.target.url.starts_with("https://"),
        "{}",
        report.target.url
    );
}

//! The binary on what a card declares: a declaration no check tested is named in the summary,
//! the verdict, the Markdown and the JSON report; and `a2a-tck coverage` prints the coverage
//! table of both registries (1.0 and 0.3). Every target is a server on 127.0.0.1 that the
//! test starts and stops.

use crate::support;

use a2a_tck::reporting::report::Report;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

fn temp_path(name: &str) -> std::path::PathBuf {
    support::temp_path("declared", name)
}

#[tokio::test]
async fn declarations_no_check_tested_are_named_everywhere() {
    let server = MockServer::start().await;
    let card = json!({
        "name": "mock", "description": "a card that declares much", "version": "1",
        "supportedInterfaces": [
            {"url": "http://127.0.0.1:9/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}
        ],
        "capabilities": {
            "streaming": true, "pushNotifications": true,
            "extensions": [{"uri": "https://example.com/ext/v1"}]
        },
        "securitySchemes": {"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}},
        "signatures": [{"protected": "e30", "signature": "c2ln"}],
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"], "skills": []
    });
    Mock::given(method("GET"))
        .and(path("/.well-known/agent-card.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(card))
        .mount(&server)
        .await;
    let (report_path, markdown_path) = (temp_path("declares.json"), temp_path("declares.md"));
    let args = [
        "--target",
        &server.uri(),
        "--select",
        "card.*",
        "--report",
        report_path.to_str().expect("utf8"),
        "--markdown",
        markdown_path.to_str().expect("utf8"),
    ];
    let output = support::kit(args.iter().map(|a| a.to_string()).collect()).await;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let report = Report::read(&report_path).expect("a complete report");
    let why = |what: &str| {
        report
            .untested_declarations
            .iter()
            .find(|u| u.what == what)
            .map(|u| u.why.clone())
            .unwrap_or_else(|| panic!("{what} not named: {:?}", report.untested_declarations))
    };
    assert_eq!(
        why("pushNotifications"),
        "the selection (--select, --level) excluded its checks"
    );
    assert_eq!(
        why("streaming"),
        "the selection (--select, --level) excluded its checks"
    );
    assert_eq!(
        why("extensions"),
        "the selection (--select, --level) excluded its checks"
    );
    assert_eq!(
        why("securitySchemes"),
        "the selection (--select, --level) excluded its checks"
    );
    // The card.* selection runs the signature checks: its (bogus) signature is judged, so
    // it is tested, not named.
    assert!(
        report
            .untested_declarations
            .iter()
            .all(|u| u.what != "signatures"),
        "{:?}",
        report.untested_declarations
    );
    assert_eq!(report.untested_declarations.len(), 4);
    // Said once, with the list of what the selection excluded, not once per declaration.
    let excluded = "declared, not tested: the selection (--select, --level) excluded its checks";
    let listed = stdout
        .lines()
        .filter(|l| l.starts_with("NOT TESTED") && l.contains(excluded))
        .collect::<Vec<_>>()
        .join("\n");
    for (what, text) in [("summary", &listed), ("verdict", &report.verdict_reason)] {
        assert_eq!(text.matches(excluded).count(), 1, "{what}: {text}");
        let said = text
            .split(['\n', ';'])
            .find(|part| part.contains(excluded))
            .expect("said once");
        for name in [
            "streaming",
            "pushNotifications",
            "extensions",
            "securitySchemes",
        ] {
            assert!(said.contains(name), "{what}: {name} not in {said}");
        }
    }
    let markdown = std::fs::read_to_string(&markdown_path).expect("markdown");
    assert!(markdown.contains("## Declared, not tested"), "{markdown}");
    assert!(markdown.contains("| `pushNotifications` |"), "{markdown}");
}

#[tokio::test]
async fn builtin_card_leaves_only_what_the_selection_excluded() {
    // The reference agent declares streaming, push notifications, a required extension,
    // authentication and the extended card, and signs its card: with the streaming, auth and
    // extended-card checks selected, push, the extension and the signatures are left, excluded
    // by the selection.
    let report_path = temp_path("builtin-streams.json");
    let args = [
        "--select",
        "streaming.*",
        "--select",
        "auth.*",
        "--select",
        "extended-card.*",
        "--binding",
        "jsonrpc",
        "--protocol-version",
        "1.0",
        "--report",
        report_path.to_str().expect("utf8"),
    ];
    let output = support::kit(args.iter().map(|a| a.to_string()).collect()).await;
    assert_eq!(output.status.code(), Some(0), "{output:?}");
    let report = Report::read(&report_path).expect("a complete report");
    let untested: Vec<(&str, &str)> = report
        .untested_declarations
        .iter()
        .map(|u| (u.what.as_str(), u.why.as_str()))
        .collect();
    let excluded = "the selection (--select, --level) excluded its checks";
    assert_eq!(
        untested,
        [
            ("pushNotifications", excluded),
            ("extensions", excluded),
            ("signatures", excluded)
        ]
    );
}

#[tokio::test]
async fn coverage_prints_the_registry_table() {
    let output = support::kit(vec!["coverage".into()]).await;
    assert_eq!(output.status.code(), Some(0));
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.starts_with("a2a-v1.0.toml: "), "{stdout}");
    for row in ["MUST", "SHOULD", "MAY", "other", "total"] {
        assert!(
            stdout.lines().any(|l| l.trim_start().starts_with(row)),
            "no {row} row: {stdout}"
        );
    }
    assert!(stdout.contains("server-side MUST entries: "), "{stdout}");
    assert!(
        stdout.contains("\na2a-v0.3.toml: "),
        "no 0.3 table: {stdout}"
    );
    assert!(
        stdout.contains("\nexternal.toml: "),
        "no table of the external sentences: {stdout}"
    );
    assert_eq!(
        stdout.matches("server-side MUST entries: ").count(),
        3,
        "{stdout}"
    );
}

/// A card in the pre-0.3 shape (a top-level url, no protocolVersion, no supportedInterfaces):
/// its interface is named in the report as declared and not tested, with why and how to test
/// it; with --assume-version 0.3 it is tested as 0.3 and the verdict says so.
#[tokio::test]
async fn a_card_without_a_version_names_its_interface() {
    let server = MockServer::start().await;
    let card = json!({
        "name": "old", "description": "a card of the pre-0.3 shape", "version": "1",
        "url": "http://127.0.0.1:9/rpc",
        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": []
    });
    Mock::given(method("GET"))
        .and(path("/.well-known/agent-card.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(card))
        .mount(&server)
        .await;
    let run = |assume: bool, name: &str| {
        let report_path = temp_path(name);
        let mut args = vec![
            "--target".to_string(),
            server.uri(),
            "--select".into(),
            "card.*".into(),
            "--report".into(),
            report_path.to_str().expect("utf8").to_string(),
        ];
        if assume {
            args.extend(["--assume-version".into(), "0.3".into()]);
        }
        async move {
            let output = support::kit(args).await;
            (
                Report::read(&report_path).expect("a complete report"),
                String::from_utf8_lossy(&output.stdout).into_owned(),
            )
        }
    };
    let (report, stdout) = run(false, "unversioned.json").await;
    assert_eq!(report.interfaces.len(), 1, "{:?}", report.interfaces);
    let interface = &report.interfaces[0];
    assert!(!interface.tested);
    assert_eq!(interface.url, "http://127.0.0.1:9/rpc");
    let why = interface.reason.as_deref().unwrap_or_default();
    assert!(
        why.contains("no protocolVersion") && why.contains("--assume-version 0.3"),
        "{why}"
    );
    let named = (report.untested_declarations.iter())
        .find(|u| u.what.contains("http://127.0.0.1:9/rpc"))
        .unwrap_or_else(|| panic!("not named: {:?}", report.untested_declarations));
    assert_eq!(named.why, why);
    assert!(
        stdout
            .lines()
            .any(|l| l.starts_with("NOT TESTED") && l.contains("http://127.0.0.1:9/rpc")),
        "{stdout}"
    );
    let (report, _) = run(true, "assumed.json").await;
    let interface = &report.interfaces[0];
    assert!(interface.tested, "{interface:?}");
    assert_eq!(
        interface.version,
        Some(a2a_tck::suite::check::ProtocolVersion::V0_3)
    );
    assert!(
        report
            .verdict_reason
            .contains("tested as 0.3 (--assume-version 0.3)"),
        "{}",
        report.verdict_reason
    );
    assert!(
        report.untested_declarations.is_empty(),
        "{:?}",
        report.untested_declarations
    );
    // A survey entry says it with `assume_version` (a JavaScript framework's own A2A server
    // serves a card of this shape).
    let dir = temp_path("assume-survey");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder");
    let file = dir.join("agents.toml");
    std::fs::write(
        &file,
        format!(
            "[[agent]]\nname = \"old\"\ntarget = \"{}\"\nselect = [\"card.*\"]\n\
             assume_version = \"0.3\"\n",
            server.uri()
        ),
    )
    .expect("the survey file");
    let out = dir.join("out");
    let output = support::kit(vec![
        "survey".into(),
        file.to_str().expect("utf8").into(),
        "--out".into(),
        out.to_str().expect("utf8").into(),
    ])
    .await;
    let report = Report::read(&out.join("old").join("report.json"))
        .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&output.stderr)));
    assert!(report.interfaces[0].tested, "{:?}", report.interfaces);
    assert!(
        report
            .verdict_reason
            .contains("tested as 0.3 (--assume-version 0.3)"),
        "{}",
        report.verdict_reason
    );
}

//! A check that judged nothing says so: N/A with the reason, never a PASS over nothing. A 0.3
//! card (no `supportedInterfaces`) gives the interface-version checks no version to read and
//! the version probe no 1.0-only JSON-RPC URL; a signature whose header cannot be read gives
//! `typ` nothing to judge. The built-in report's PASS messages are held to it too
//! (`report::builtin_report_snapshot`).

use crate::support;

use a2a_tck::suite::check::Status;
use serde_json::json;
use wiremock::matchers::{method, path};
use wiremock::{Mock, MockServer, ResponseTemplate};

/// The results of `select` on a card served by a mock whose interfaces do not answer.
async fn judged_on(
    card: serde_json::Value,
    select: &str,
) -> Vec<a2a_tck::reporting::report::CheckResult> {
    let server = MockServer::start().await;
    Mock::given(method("GET"))
        .and(path("/.well-known/agent-card.json"))
        .respond_with(ResponseTemplate::new(200).set_body_json(card))
        .mount(&server)
        .await;
    let card_url = format!("{}/.well-known/agent-card.json", server.uri());
    let report = support::run(&server.uri(), &card_url, select).await;
    report
        .results
        .into_iter()
        .filter(|r| r.id == select)
        .collect()
}

fn card_0_3() -> serde_json::Value {
    json!({
        "name": "old", "description": "a 0.3 card", "version": "1",
        "protocolVersion": "0.3.0", "url": "http://127.0.0.1:9/rpc", "preferredTransport": "JSONRPC",
        "capabilities": {}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": []
    })
}

#[tokio::test]
async fn interface_version_checks_on_a_card_without_interfaces_are_not_applicable() {
    for (select, reason) in [
        (
            "card.interfaces.version-is-known",
            "no supportedInterfaces entry declares a protocolVersion",
        ),
        (
            "card.interfaces.version-is-major-minor",
            "no supportedInterfaces entry declares a protocolVersion",
        ),
        (
            "versioning.card-declares-every-version",
            "no JSON-RPC URL for 1.0 alone",
        ),
    ] {
        let results = judged_on(card_0_3(), select).await;
        assert_eq!(
            results.len(),
            1,
            "{select}: {}",
            support::explain(&results.iter().collect::<Vec<_>>())
        );
        let result = &results[0];
        assert_eq!(
            result.status,
            Status::NotApplicable,
            "{select}: {}",
            result.message
        );
        assert!(
            result.message.contains(reason),
            "{select}: {}",
            result.message
        );
    }
}

#[tokio::test]
async fn typ_of_unreadable_headers_is_not_applicable() {
    let mut card = card_0_3();
    // "e30" is `{}`; "bm90IGpzb24" is base64url for "not json", which no header reader takes.
    card["signatures"] = json!([{"protected": "bm90IGpzb24", "signature": "c2ln"}]);
    let results = judged_on(card, "card.signature.typ-jose").await;
    assert_eq!(results.len(), 1);
    assert_eq!(
        results[0].status,
        Status::NotApplicable,
        "{}",
        results[0].message
    );
    assert!(
        results[0].message.contains("header could be read"),
        "{}",
        results[0].message
    );
}

#[tokio::test]
async fn a_1_0_only_url_that_refuses_0_3_passes_the_version_probe() {
    let server = support::card_server("one version", None).await;
    Mock::given(method("POST"))
        .and(path("/rpc"))
        .respond_with(ResponseTemplate::new(200).set_body_json(json!({
            "jsonrpc": "2.0", "id": null,
            "error": {"code": -32601, "message": "Method not found"}
        })))
        .mount(&server)
        .await;
    let card_url = format!("{}/.well-known/agent-card.json", server.uri());
    let select = "versioning.card-declares-every-version";
    let report = support::run(&server.uri(), &card_url, select).await;
    let results = support::results_of(&report, select);
    assert!(
        support::all_have(&results, Status::Pass),
        "{}",
        support::explain(&results)
    );
    assert!(
        results[0].message.starts_with("1 "),
        "{}",
        results[0].message
    );
}

//! An agent that serves one card per protocol version on one URL (`Vary: A2A-Version`), as a
//! real Mastra server does: its 0.3 card without `A2A-Version`, a 1.0 card (with
//! `supportedInterfaces`) when asked with `A2A-Version: 1.0`. The kit reads both, tests the
//! interfaces of both, judges each card, and says in the report that the cards differ. A
//! 1.0 read that fails, or that gives the same card, changes nothing.
//!
//! The card server binds 127.0.0.1 on an ephemeral port; the interfaces both cards declare
//! are those of a reference agent the test starts (it serves 0.3 and 1.0 on one URL).

use crate::support;

use std::sync::Arc;

use a2a_tck::reporting::report::Report;
use a2a_tck::suite::check::{Binding, ProtocolVersion, Status};
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde_json::{json, Value};
use tokio::net::TcpListener;

/// What the card server answers to a request with `A2A-Version: 1.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Versioned {
    /// Another card: the 1.0 one.
    Differs,
    /// HTTP 406.
    Refused,
    /// The same card as without the header.
    Same,
}

struct Cards {
    versioned: Versioned,
    v03: Value,
    v10: Value,
}

fn cards(rpc: &str, versioned: Versioned) -> Cards {
    let common = json!({
        "name": "versioned", "description": "one card per protocol version", "version": "1",
        "capabilities": {"streaming": true},
        "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"],
        "skills": [{"id": "echo", "name": "echo", "description": "echoes", "tags": ["echo"]}]
    });
    let mut v03 = common.clone();
    v03["protocolVersion"] = json!("0.3.0");
    v03["url"] = json!(rpc);
    v03["preferredTransport"] = json!("JSONRPC");
    let mut v10 = common;
    v10["supportedInterfaces"] =
        json!([{"url": rpc, "protocolBinding": "JSONRPC", "protocolVersion": "1.0"}]);
    Cards {
        versioned,
        v03,
        v10,
    }
}

async fn card_of(State(cards): State<Arc<Cards>>, headers: HeaderMap) -> Response {
    let asks_1_0 = (headers.get("a2a-version"))
        .and_then(|v| v.to_str().ok())
        .is_some_and(|v| v.trim().starts_with("1."));
    let card = match (asks_1_0, cards.versioned) {
        (true, Versioned::Differs) => cards.v10.clone(),
        (true, Versioned::Refused) => {
            return (StatusCode::NOT_ACCEPTABLE, "no such version").into_response()
        }
        _ => cards.v03.clone(),
    };
    let mut response = Json(card).into_response();
    response
        .headers_mut()
        .insert("vary", "A2A-Version".parse().expect("header"));
    response
}

/// Runs `select` against the card server (answering `versioned`) in front of a reference
/// agent.
async fn run(versioned: Versioned, select: &str) -> Report {
    let agent = a2a_tck::run::builtin::start_with(a2a_reference_agent::AgentConfig::default())
        .await
        .expect("the reference agent starts");
    let rpc = format!("{}{}", agent.base_url(), a2a_reference_agent::JSONRPC_PATH);
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
    let base = format!("http://{}", listener.local_addr().expect("addr"));
    let app = Router::new()
        .route("/.well-known/agent-card.json", get(card_of))
        .with_state(Arc::new(cards(&rpc, versioned)));
    let server = tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    let card_url = format!("{base}/.well-known/agent-card.json");
    let report = support::run(&base, &card_url, select).await;
    server.abort();
    agent.shutdown().await;
    report
}

const SELECT: &str = "{card.fields.required-present,card.discovery.served-at-well-known-path,\
                      tasks.get.unknown-id-returns-task-not-found,\
                      versioning.card-declares-every-version}";

fn places(report: &Report, id: &str) -> Vec<(Option<Binding>, Option<ProtocolVersion>, Status)> {
    (report.results.iter())
        .filter(|r| r.id == id)
        .map(|r| (r.binding, r.version, r.status))
        .collect()
}

fn explain(report: &Report) -> String {
    support::explain(&report.results.iter().collect::<Vec<_>>())
}

#[tokio::test]
async fn both_cards_are_read_and_the_interfaces_of_both_are_tested() {
    let report = run(Versioned::Differs, SELECT).await;
    let why = explain(&report);
    // The report says the agent serves another card to a 1.0 client.
    let versioned = report.target.versioned_card.as_ref().expect("cards differ");
    assert_eq!(versioned.a2a_version, ProtocolVersion::V1_0);
    assert_ne!(versioned.card_sha256, report.target.card_sha256);
    assert!(
        a2a_tck::reporting::output::summary(&report)
            .contains("serves a different card with A2A-Version: 1.0"),
        "{}",
        a2a_tck::reporting::output::summary(&report)
    );
    // The 1.0 interface only the 1.0 card declares is tested, beside the 0.3 one.
    let declared: Vec<_> = (report.interfaces.iter())
        .map(|d| (d.binding, d.version, d.tested, d.card_a2a_version))
        .collect();
    assert_eq!(
        declared,
        vec![
            (
                Some(Binding::Jsonrpc),
                Some(ProtocolVersion::V0_3),
                true,
                None
            ),
            (
                Some(Binding::Jsonrpc),
                Some(ProtocolVersion::V1_0),
                true,
                Some(ProtocolVersion::V1_0)
            ),
        ],
        "{:?}",
        report.interfaces
    );
    assert_eq!(
        places(&report, "tasks.get.unknown-id-returns-task-not-found"),
        vec![
            (
                Some(Binding::Jsonrpc),
                Some(ProtocolVersion::V0_3),
                Status::Pass
            ),
            (
                Some(Binding::Jsonrpc),
                Some(ProtocolVersion::V1_0),
                Status::Pass
            ),
        ],
        "{why}"
    );
    // Each card is judged by its own version's rules: the 0.3 card (url, protocolVersion)
    // and the 1.0 card (supportedInterfaces) both carry their required fields.
    for id in [
        "card.fields.required-present",
        "card.discovery.served-at-well-known-path",
    ] {
        assert_eq!(
            places(&report, id),
            vec![
                (None, None, Status::Pass),
                (None, Some(ProtocolVersion::V1_0), Status::Pass),
            ],
            "{id}: {why}"
        );
    }
    // The agent declares 0.3 where it answers 0.3 (in its 0.3 card): no URL of the cards is
    // 1.0 alone, so the probe has nothing to judge: once, N/A, and no FAIL.
    assert_eq!(
        places(&report, "versioning.card-declares-every-version"),
        vec![(None, None, Status::NotApplicable)],
        "{why}"
    );
    assert_eq!(
        report.verdict,
        a2a_tck::reporting::report::Verdict::Conformant,
        "{why}"
    );
}

#[tokio::test]
async fn a_refused_or_identical_1_0_card_changes_nothing() {
    for versioned in [Versioned::Refused, Versioned::Same] {
        let report = run(versioned, SELECT).await;
        let why = explain(&report);
        assert_eq!(report.target.versioned_card, None, "{versioned:?}");
        assert!(
            !a2a_tck::reporting::output::summary(&report).contains("cards:"),
            "{versioned:?}"
        );
        let declared: Vec<_> = (report.interfaces.iter())
            .map(|d| (d.binding, d.version, d.card_a2a_version))
            .collect();
        assert_eq!(
            declared,
            vec![(Some(Binding::Jsonrpc), Some(ProtocolVersion::V0_3), None)],
            "{versioned:?}"
        );
        assert_eq!(
            places(&report, "card.fields.required-present"),
            vec![(None, None, Status::Pass)],
            "{versioned:?}: {why}"
        );
        assert_eq!(
            places(&report, "tasks.get.unknown-id-returns-task-not-found"),
            vec![(
                Some(Binding::Jsonrpc),
                Some(ProtocolVersion::V0_3),
                Status::Pass
            )],
            "{versioned:?}: {why}"
        );
    }
}

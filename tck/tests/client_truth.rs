//! Client mode judges only what the client did: each false verdict four real clients met,
//! reproduced by a small client (`clients/mini_client.py`, JSON-RPC over the standard library)
//! or the reference client under a fault, with the verdict it gets now. A step with no
//! recorded request is never FAIL or PASS; a call the client's API lacks is N/A unless a
//! sentence requires it of a client (0.3 §11.2.2: message/send and tasks/get); a request at
//! the interface URL plus a slash is read; a 0.3 SHOULD warns; a refused card is told why.

use std::time::Duration;

use a2a_tck::client::adapter::Client;
use a2a_tck::client::client_runner::{run, ClientOptions};
use a2a_tck::client::reference_client::ClientFault;
use a2a_tck::facts::model::{Binding, ProtocolVersion};
use a2a_tck::reporting::report::{CheckResult, Report};
use a2a_tck::suite::check::Status;
use a2a_tck::suite::filter::Filter;

const MINI: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/clients/mini_client.py");

fn mini(flags: &str) -> Client {
    Client::Command(format!("python3 {MINI} {flags}"))
}

async fn judged(client: Client, select: &[&str]) -> Report {
    run(&ClientOptions {
        client,
        scenario_timeout: Duration::from_secs(30),
        filter: Filter {
            select: select.iter().map(|s| s.to_string()).collect(),
            ..Filter::default()
        },
    })
    .await
}

fn at<'r>(
    report: &'r Report,
    id: &str,
    binding: Binding,
    version: ProtocolVersion,
) -> &'r CheckResult {
    (report.results.iter())
        .find(|r| r.id == id && r.binding == Some(binding) && r.version == Some(version))
        .unwrap_or_else(|| {
            panic!(
                "no result of {id} on {binding:?} {version:?}: {:#?}",
                report.results
            )
        })
}

fn all(report: &Report) -> String {
    (report.results.iter())
        .map(|r| {
            format!(
                "{} {:?} {:?}: {:?} {}",
                r.id, r.binding, r.version, r.status, r.message
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

const RPC: Binding = Binding::Jsonrpc;
const V10: ProtocolVersion = ProtocolVersion::V1_0;
const V03: ProtocolVersion = ProtocolVersion::V0_3;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_get_or_cancel_is_not_failed_for_them_but_on_0_3_for_get() {
    let report = judged(mini("--ops send"), &["client.read.*"]).await;
    let results = at(&report, "client.read.results", RPC, V10);
    assert_eq!(results.status, Status::Pass, "{}", all(&report));
    assert!(results.message.contains("not asked"), "{}", results.message);
    let errors = at(&report, "client.read.errors", RPC, V10);
    assert_eq!(errors.status, Status::NotApplicable, "{}", errors.message);
    // 0.3 §11.2.2 makes tasks/get a client MUST: judged, citing the sentence.
    for id in ["client.read.results", "client.read.errors"] {
        let result = at(&report, id, RPC, V03);
        assert_eq!(result.status, Status::Fail, "{}", result.message);
        assert!(
            result.message.contains("V03-11.2.2-01"),
            "{}",
            result.message
        );
        assert!(
            result.statements.iter().any(|s| s == "V03-11.2.2-01"),
            "{id}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_that_sends_no_version_and_reports_the_error_exactly_reads_right() {
    let report = judged(
        mini("--versions 1.0 --no-version-header"),
        &["client.read.*", "client.requests.version-header"],
    )
    .await;
    for id in ["client.read.results", "client.read.errors"] {
        let result = at(&report, id, RPC, V10);
        assert_eq!(result.status, Status::Pass, "{id}: {}", all(&report));
    }
    let header = at(&report, "client.requests.version-header", RPC, V10);
    assert_eq!(header.status, Status::Fail, "{}", header.message);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_at_the_interface_url_plus_a_slash_is_read_and_judged() {
    let report = judged(mini("--trailing-slash"), &[]).await;
    let unread: Vec<&CheckResult> = (report.results.iter())
        .filter(|r| r.message.contains("no A2A request"))
        .collect();
    assert!(unread.is_empty(), "{}", all(&report));
    for version in [V10, V03] {
        for id in [
            "client.requests.binding-form",
            "client.read.results",
            "client.read.errors",
        ] {
            let result = at(&report, id, RPC, version);
            assert_eq!(
                result.status,
                Status::Pass,
                "{id} {version:?}: {}",
                result.message
            );
        }
        // Read, the requests are judged: their URL is not the one the card gives.
        let url = at(&report, "client.interface.first-supported", RPC, version);
        assert_eq!(url.status, Status::Fail, "{}", url.message);
        assert!(
            url.message.contains("a URL the card does not give"),
            "{}",
            url.message
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_error_line_for_a_request_never_sent_is_not_judged() {
    // An HTTP+JSON 0.3 client whose adapter prints errors without sending anything: 0.3
    // leaves that binding's error kinds unspecified, where any error used to count.
    let report = judged(
        mini("--bindings HTTP+JSON --versions 0.3 --lacks send,get,cancel"),
        &["client.read.errors", "client.read.results"],
    )
    .await;
    for id in ["client.read.errors", "client.read.results"] {
        let result = at(&report, id, Binding::Rest, V03);
        assert_eq!(
            result.status,
            Status::Untestable,
            "{id}: {}",
            result.message
        );
        assert!(
            result.message.contains("made no request"),
            "{}",
            result.message
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_second_interface_of_a_0_3_card_warns_and_of_a_1_0_card_fails() {
    let report = judged(
        Client::Reference(vec![ClientFault::LastInterface]),
        &["client.interface.first-supported"],
    )
    .await;
    for binding in [Binding::Jsonrpc, Binding::Rest, Binding::Grpc] {
        let v03 = at(&report, "client.interface.first-supported", binding, V03);
        assert_eq!(v03.status, Status::Warn, "{}", v03.message);
        assert!(v03.message.contains("V03-5.6.3-02"), "{}", v03.message);
        let v10 = at(&report, "client.interface.first-supported", binding, V10);
        assert_eq!(v10.status, Status::Fail, "{}", v10.message);
    }
    let reading = (report.readings.iter())
        .find(|r| r.section == "5.2")
        .expect("the §5.2 against §8.3.2 reading is listed");
    assert_eq!(reading.checks, vec!["client.interface.first-supported"]);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fallback_results_cite_their_own_version() {
    let report = judged(
        Client::Reference(Vec::new()),
        &["client.interface.fallback"],
    )
    .await;
    let v10 = at(&report, "client.interface.fallback", RPC, V10);
    assert_eq!(v10.statements, vec!["V10-5.2-03"]);
    assert_eq!(
        (v10.spec_version.as_str(), v10.section.as_str()),
        ("1.0", "5.2")
    );
    let v03 = at(&report, "client.interface.fallback", RPC, V03);
    assert!(
        v03.statements.iter().all(|s| s.starts_with("V03-")),
        "{:?}",
        v03.statements
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_refused_card_is_told_its_exact_reason() {
    let report = judged(
        mini("--versions 1.0 --reject-modeless"),
        &["client.card.tolerates-unknown-fields"],
    )
    .await;
    let result = at(&report, "client.card.tolerates-unknown-fields", RPC, V10);
    assert_eq!(result.status, Status::Fail, "{}", result.message);
    assert!(
        result
            .message
            .contains("have no inputModes or outputModes, which both versions make optional"),
        "{}",
        result.message
    );
    let report = judged(
        mini("--versions 1.0 --legacy-card"),
        &["client.card.tolerates-unknown-fields"],
    )
    .await;
    let result = at(&report, "client.card.tolerates-unknown-fields", RPC, V10);
    assert_eq!(result.status, Status::Fail, "{}", result.message);
    assert!(
        result.message.contains("/.well-known/agent.json")
            && !result.message.contains("fields no version defines"),
        "{}",
        result.message
    );
}

/// A framework's client that builds the card URL from an agent id (a 404 at every try), and
/// a pre-0.3 client that makes up a card when it finds none, were told they refused or
/// misread the card served: they never received it. A check of how a client treats a card is
/// UNTESTABLE when the client never received the play's card (a 200 or 304 answer to a fetch
/// of it), except that looking only where cards were before 0.3 fails the checks that read
/// cards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_the_client_never_received_is_not_judged() {
    const CARD_CHECKS: [&str; 5] = [
        "client.card.tolerates-unknown-fields",
        "client.card.mixed-versions",
        "client.card.invalid-refused",
        "client.signatures.valid-accepted",
        "client.signatures.invalid-refused",
    ];
    for flags in ["--own-card-path", "--own-card-path --made-up-card"] {
        let report = judged(
            mini(&format!("--versions 1.0 --features signatures {flags}")),
            &CARD_CHECKS,
        )
        .await;
        for id in CARD_CHECKS {
            let result = at(&report, id, RPC, V10);
            assert_eq!(
                result.status,
                Status::Untestable,
                "{flags}: {}",
                all(&report)
            );
            assert!(
                result.message.contains("never received the play's card")
                    && result.message.contains("/.well-known/mini/agent-card.json"),
                "{flags}: {id}: {}",
                result.message
            );
        }
    }
    // Looking only where cards were before 0.3 fails the checks that read cards, whatever
    // the client then says; the signature checks cannot see what it does with a signature.
    let report = judged(
        mini("--versions 1.0 --features signatures --legacy-card --made-up-card"),
        &CARD_CHECKS,
    )
    .await;
    for id in CARD_CHECKS {
        let result = at(&report, id, RPC, V10);
        let expected = match id {
            "client.card.tolerates-unknown-fields"
            | "client.card.mixed-versions"
            | "client.signatures.valid-accepted" => Status::Fail,
            _ => Status::Untestable,
        };
        assert_eq!(result.status, expected, "{id}: {}", result.message);
    }
}

/// The fallback play's failing first interface is of another binding the client declares (the
/// sentences speak of alternative protocols): a client of one binding, which a real framework's
/// client is, got a WARN for not trying a second URL of the binding that failed; now N/A.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn fallback_is_asked_only_between_protocols() {
    let report = judged(mini("--versions 1.0"), &["client.interface.fallback"]).await;
    let result = at(&report, "client.interface.fallback", RPC, V10);
    assert_eq!(result.status, Status::NotApplicable, "{}", result.message);
    assert!(
        result.message.contains("declares one binding"),
        "{}",
        result.message
    );
    let report = judged(
        mini("--versions 1.0 --bindings JSONRPC,HTTP+JSON"),
        &["client.interface.fallback"],
    )
    .await;
    // The mini client speaks JSON-RPC only, whatever it declares: it skips the failing
    // HTTP+JSON interface and goes straight to the JSON-RPC one, so no fallback is seen.
    let result = at(&report, "client.interface.fallback", RPC, V10);
    assert_eq!(result.status, Status::Untestable, "{}", result.message);
    for fault in [Vec::new(), vec![ClientFault::NoFallback]] {
        let report = judged(
            Client::Reference(fault.clone()),
            &["client.interface.fallback"],
        )
        .await;
        let result = at(&report, "client.interface.fallback", Binding::Rest, V10);
        let expected = if fault.is_empty() {
            Status::Pass
        } else {
            Status::Warn
        };
        assert_eq!(result.status, expected, "{fault:?}: {}", all(&report));
        let first: &str = if fault.is_empty() {
            "after the first interface failed"
        } else {
            "the first interface (JSON-RPC) answered 503"
        };
        assert!(result.message.contains(first), "{}", result.message);
    }
}

/// A framework's client (google-adk's RemoteA2aAgent) refuses a whole card whose first
/// interface is a gRPC address (host:port, the form the proto gives) and names that address as
/// the reason; it never used the JSON-RPC interface listed next. That was UNTESTABLE ("no A2A
/// request"); the client's own words tie the refusal to the first interface: a FAIL. A refusal
/// that names no address stays unjudged.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_card_refused_over_its_unspoken_first_interface_fails() {
    let report = judged(
        mini("--versions 1.0 --bindings JSONRPC,HTTP+JSON --refuse-non-http"),
        &["client.interface.unspoken-first-skipped"],
    )
    .await;
    let result = at(&report, "client.interface.unspoken-first-skipped", RPC, V10);
    assert_eq!(result.status, Status::Fail, "{}", result.message);
    assert!(
        result
            .message
            .contains("refused it over its first interface, GRPC"),
        "{}",
        result.message
    );
    let report = judged(
        mini("--versions 1.0 --bindings JSONRPC,HTTP+JSON --refuse-non-http --quiet-refusal"),
        &["client.interface.unspoken-first-skipped"],
    )
    .await;
    let result = at(&report, "client.interface.unspoken-first-skipped", RPC, V10);
    assert_eq!(result.status, Status::Untestable, "{}", result.message);
}

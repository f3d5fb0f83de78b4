//! Every check is shown to fail: each check id is paired with a named fault of the reference
//! agent that breaks its sentence, and the check must then FAIL (MUST) or WARN (SHOULD/MAY).
//! The trial `every-check-has-a-negative-case` lists checks without one; that list is empty.

mod support;

use std::collections::BTreeSet;
use std::sync::Arc;

use a2a_reference_agent::Fault;
use a2a_tck::check::{Binding, Level, ProtocolVersion, Status};
use libtest_mimic::{Arguments, Failed, Trial};

/// How a check is broken.
struct Case {
    check: &'static str,
    fault: &'static str,
    /// The card URL path to use instead of the well-known one (for card faults).
    card_path: Option<&'static str>,
    /// The status to see instead of FAIL/WARN (for faults that must not count as failures).
    expect: Option<Status>,
    /// The bindings whose results are judged, for faults of some bindings; empty = every
    /// result.
    bindings: &'static [Binding],
    /// The protocol versions whose results are judged; empty = every result.
    versions: &'static [ProtocolVersion],
}

const fn case(check: &'static str, fault: &'static str) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: None,
        bindings: &[],
        versions: &[],
    }
}

/// A case judged on some bindings' results only.
const fn on(bindings: &'static [Binding], check: &'static str, fault: &'static str) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: None,
        bindings,
        versions: &[],
    }
}

/// A case judged on some bindings of some versions only.
const fn on_v(
    bindings: &'static [Binding],
    versions: &'static [ProtocolVersion],
    check: &'static str,
    fault: &'static str,
) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: None,
        bindings,
        versions,
    }
}

/// 1.0 only: 0.3 specifies neither REST error bodies nor gRPC statuses, nor a result wrapper.
const V1_0: &[ProtocolVersion] = &[ProtocolVersion::V1_0];

/// A case judged on the results of one protocol version only.
const fn in_version(
    version: &'static [ProtocolVersion],
    check: &'static str,
    fault: &'static str,
) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: None,
        bindings: &[],
        versions: version,
    }
}

/// The bindings that carry JSON (a fault of the JSON encoding cannot show on gRPC).
const JSON: &[Binding] = &[Binding::Jsonrpc, Binding::Rest];

const CASES: &[Case] = &[
    Case {
        check: "card.discovery.served-at-well-known-path",
        fault: "card-well-known-serves-html",
        card_path: Some("/.well-known/agent.json"),
        expect: None,
        bindings: &[],
        versions: &[],
    },
    // A card published only by direct configuration: nothing at the well-known URI is N/A.
    Case {
        check: "card.discovery.served-at-well-known-path",
        fault: "card-only-at-legacy-path",
        card_path: Some("/.well-known/agent.json"),
        expect: Some(Status::NotApplicable),
        bindings: &[],
        versions: &[],
    },
    case(
        "card.fields.required-present",
        "card-missing-required-field",
    ),
    case(
        "card.interfaces.declare-binding-url-version",
        "card-bad-interface",
    ),
    case(
        "card.interfaces.version-is-major-minor",
        "card-patch-version",
    ),
    case(
        "card.caching.cache-control-max-age",
        "card-no-cache-headers",
    ),
    case("card.caching.etag", "card-no-cache-headers"),
    in_version(
        V1_0,
        "send.returns-task-or-message",
        "send-result-unwrapped",
    ),
    case(
        "send.blocking-waits-for-terminal-or-interrupted",
        "blocking-returns-working",
    ),
    case(
        "send.blocking-returns-artifacts",
        "blocking-omits-artifacts",
    ),
    case("send.task-ids-server-generated-unique", "reuse-task-id"),
    case(
        "send.context-id-generated-when-absent",
        "message-omits-context-id",
    ),
    case("send.task-carries-context-id", "omit-context-id"),
    case(
        "send.client-context-id-kept-or-rejected",
        "replace-context-id",
    ),
    case(
        "send.unknown-task-id-returns-task-not-found",
        "unknown-task-id-creates-task",
    ),
    case(
        "send.terminal-task-rejects-message",
        "terminal-task-accepts-message",
    ),
    case(
        "send.follow-up-continues-interrupted-task",
        "follow-up-starts-new-task",
    ),
    case("send.history-length-caps-messages", "ignore-history-length"),
    case(
        "context.task-id-only-infers-context-id",
        "follow-up-new-context-id",
    ),
    case(
        "context.mismatched-context-id-rejected",
        "accept-mismatched-context-id",
    ),
    case(
        "context.mismatched-context-id-rejected",
        "mismatched-context-internal-error",
    ),
    case("tasks.get.returns-current-task", "get-stale-state"),
    case(
        "tasks.get.unknown-id-returns-task-not-found",
        "get-unknown-returns-null",
    ),
    case(
        "tasks.get.history-length-zero-omits-history",
        "ignore-history-length",
    ),
    case(
        "tasks.get.history-length-caps-messages",
        "ignore-history-length",
    ),
    case(
        "tasks.get.history-length-caps-messages",
        "history-oldest-first",
    ),
    case(
        "tasks.cancel.open-task-becomes-canceled",
        "cancel-returns-previous-state",
    ),
    case(
        "tasks.cancel.canceled-task-stays-canceled",
        "cancel-not-persisted",
    ),
    case(
        "tasks.cancel.terminal-task-not-cancelable",
        "cancel-completed-task-succeeds",
    ),
    in_version(
        V1_0,
        "tasks.cancel.unknown-id-returns-task-not-found",
        "cancel-unknown-returns-not-cancelable",
    ),
    case(
        "tasks.list.next-page-token-always-present",
        "list-omits-next-page-token",
    ),
    case(
        "tasks.list.artifacts-omitted-by-default",
        "list-includes-artifacts",
    ),
    case("tasks.list.sorted-by-update-time-desc", "list-ascending"),
    case(
        "tasks.list.filters-by-context-id",
        "list-ignores-context-filter",
    ),
    case("tasks.list.page-size-and-cursor", "list-ignores-page-size"),
    on(
        JSON,
        "tasks.list.response-required-fields",
        "list-omits-total-size",
    ),
    case("data-model.task.required-fields", "omit-status-state"),
    case(
        "data-model.message.required-fields",
        "message-missing-message-id",
    ),
    case(
        "data-model.message.required-fields",
        "nested-message-missing-role",
    ),
    case("data-model.artifact.required-fields", "artifact-missing-id"),
    case(
        "data-model.json.camel-case-field-names",
        "snake-case-fields",
    ),
    case("data-model.enums.protojson-names", "lowercase-task-state"),
    case("data-model.timestamps.utc-z", "timestamp-with-offset"),
    case("data-model.no-kind-discriminator", "emit-kind-field"),
    case(
        "jsonrpc.envelope.response-is-jsonrpc-2",
        "omit-jsonrpc-member",
    ),
    case("jsonrpc.envelope.id-echoed", "wrong-response-id"),
    case(
        "jsonrpc.envelope.content-type-json",
        "text-plain-content-type",
    ),
    case(
        "jsonrpc.errors.parse-error",
        "parse-error-as-invalid-request",
    ),
    case("jsonrpc.errors.invalid-request", "ignore-jsonrpc-version"),
    case(
        "jsonrpc.errors.method-not-found",
        "unknown-method-invalid-request",
    ),
    case(
        "jsonrpc.errors.invalid-params",
        "missing-message-internal-error",
    ),
    case(
        "jsonrpc.errors.error-object-structure",
        "error-data-not-array",
    ),
    case("jsonrpc.errors.error-info-in-data", "omit-error-info"),
    case(
        "versioning.unsupported-version-rejected",
        "ignore-version-header",
    ),
    // On 0.3 REST a 404 is also what TaskNotFound looks like; the 0.3 gRPC service has no header.
    on(
        &[Binding::Jsonrpc],
        "versioning.missing-version-means-0-3",
        "missing-version-as-1-0",
    ),
    case("versioning.patch-version-ignored", "reject-patch-version"),
    // The card denies streaming while the agent streams anyway.
    case(
        "capabilities.streaming-absent-rejects-streaming",
        "streaming-undeclared",
    ),
    case(
        "capabilities.push-absent-rejects-push-config",
        "push-unsupported-wrong-error",
    ),
    case(
        "capabilities.extended-card-absent-rejected",
        "extended-card-unsupported-wrong-error",
    ),
    case(
        "send.unsupported-media-type-rejected",
        "accept-unsupported-media-type",
    ),
    // Processing a message that misses a REQUIRED field is tolerated (§5.7 SHOULD against
    // §3.3.2 MUST): WARN on this MUST check. Its FAIL (another error than InvalidParams) is
    // shown in tests/real_answers.rs.
    Case {
        check: "send.invalid-message-rejected",
        fault: "accept-invalid-message",
        card_path: None,
        expect: Some(Status::Warn),
        bindings: &[],
        versions: &[],
    },
    case("send.unknown-fields-ignored", "reject-unknown-fields"),
    case(
        "tasks.list.status-timestamp-after-filter",
        "list-ignores-timestamp-filter",
    ),
    // Cancellation is not guaranteed (§3.1.5): declining it makes the check UNTESTABLE.
    Case {
        check: "tasks.cancel.open-task-becomes-canceled",
        fault: "cancel-open-task-not-cancelable",
        card_path: None,
        expect: Some(Status::Untestable),
        bindings: &[],
        versions: &[],
    },
    // JSON-RPC batches.
    case(
        "jsonrpc.batch.empty-array-invalid-request",
        "empty-batch-returns-array",
    ),
    case("jsonrpc.batch.answers-each-request", "batch-rejected"),
    // Protocol 0.3 beside 1.0.
    on(
        &[Binding::Jsonrpc],
        "v03.states-spelled-for-0-3",
        "v03-state-spelled-1-0",
    ),
    on(
        &[Binding::Jsonrpc],
        "v03.states-spelled-for-0-3",
        "v03-canceled-spelled-cancelled",
    ),
    on(
        &[Binding::Rest],
        "v03.states-spelled-for-0-3",
        "v03-proto-state-cancelled-one-l",
    ),
    case(
        "v03.jsonrpc.bare-results-with-kind",
        "v03-answers-1-0-shapes",
    ),
    case("v03.jsonrpc.bare-results-with-kind", "v03-no-kind"),
    case("v03.stream.status-updates-carry-final", "v03-no-final"),
    case(
        "versioning.0-3-method-under-1-0-not-found",
        "v03-method-under-1-0",
    ),
    case(
        "versioning.1-0-method-under-0-3-not-found",
        "v10-method-under-0-3",
    ),
    case("versioning.card-declares-every-version", "card-omits-0-3"),
    case("versioning.query-parameter-version", "ignore-version-query"),
    case(
        "versioning.task-same-in-both-versions",
        "cross-version-isolated",
    ),
    in_version(
        &[ProtocolVersion::V0_3],
        "send.follow-up-with-data-part-continues-task",
        "v03-data-part-refused",
    ),
    case(
        "send.message-id-kept-in-history",
        "history-replaces-message-id",
    ),
    // Streams.
    case(
        "streaming.task-stream-starts-with-task",
        "stream-first-event-status-update",
    ),
    case(
        "streaming.message-stream-is-one-message",
        "stream-message-then-more",
    ),
    case("streaming.states-in-order", "stream-status-out-of-order"),
    case(
        "streaming.closes-after-terminal-state",
        "stream-open-after-terminal",
    ),
    case(
        "streaming.artifact-chunks-append-in-order",
        "stream-chunk-no-last-chunk",
    ),
    case(
        "streaming.artifact-chunks-append-in-order",
        "stream-chunk-append-wrong",
    ),
    case(
        "streaming.final-state-matches-get-task",
        "stream-state-not-stored",
    ),
    case(
        "subscribe.first-event-is-current-task",
        "subscribe-first-event-not-task",
    ),
    case("subscribe.receives-later-updates", "subscribe-no-updates"),
    case(
        "subscribe.closes-at-terminal-state",
        "subscribe-open-after-terminal",
    ),
    case(
        "subscribe.terminal-task-unsupported",
        "subscribe-terminal-allowed",
    ),
    case(
        "subscribe.unknown-task-not-found",
        "subscribe-unknown-wrong-error",
    ),
    case(
        "subscribe.subscribers-see-same-events",
        "subscribe-first-only",
    ),
    case("streaming.sse-content-type", "sse-wrong-content-type"),
    case(
        "jsonrpc.stream.events-are-responses",
        "sse-events-unwrapped",
    ),
    case("jsonrpc.stream.events-are-responses", "sse-wrong-id"),
    // The HTTP+JSON binding.
    case("rest.content-type-a2a-json", "rest-plain-json-content-type"),
    case("rest.content-type-json", "rest-text-content-type"),
    case("rest.success-status-200", "rest-success-201"),
    case("rest.errors.google-rpc-status", "rest-error-problem-json"),
    case("rest.errors.google-rpc-status", "rest-error-no-error-info"),
    on_v(
        &[Binding::Rest],
        V1_0,
        "tasks.get.unknown-id-returns-task-not-found",
        "rest-wrong-status",
    ),
    on_v(
        &[Binding::Rest],
        V1_0,
        "tasks.get.unknown-id-returns-task-not-found",
        "rest-error-200",
    ),
    // The gRPC binding.
    case("grpc.errors.status-and-error-info", "grpc-wrong-status"),
    case("grpc.errors.status-and-error-info", "grpc-no-error-info"),
    on_v(
        &[Binding::Grpc],
        V1_0,
        "tasks.get.unknown-id-returns-task-not-found",
        "grpc-wrong-status",
    ),
    // Every binding serves the same tasks.
    case(
        "bindings.task-readable-on-every-binding",
        "cross-binding-isolated",
    ),
];

fn main() -> std::process::ExitCode {
    let args = Arguments::from_args();
    let runtime = Arc::new(tokio::runtime::Runtime::new().expect("a tokio runtime"));
    let catalog = a2a_tck::checks::all();
    let mut trials = vec![Trial::test("every-check-has-a-negative-case", || {
        let covered: BTreeSet<&str> = CASES.iter().map(|c| c.check).collect();
        let catalog = a2a_tck::checks::all();
        let missing: Vec<&str> = catalog
            .iter()
            .map(|c| c.id)
            .filter(|id| !covered.contains(id))
            .collect();
        let unknown: Vec<&str> = covered
            .iter()
            .copied()
            .filter(|id| !catalog.iter().any(|c| c.id == *id))
            .collect();
        if missing.is_empty() && unknown.is_empty() {
            Ok(())
        } else {
            Err(format!("checks without a negative case: {missing:?}; cases for unknown checks: {unknown:?}").into())
        }
    })];
    for case in CASES {
        let Some(check) = catalog.iter().find(|c| c.id == case.check) else {
            continue;
        };
        let expected = case.expect.unwrap_or(match check.level {
            Level::Must => Status::Fail,
            Level::Should | Level::May => Status::Warn,
        });
        let runtime = runtime.clone();
        trials.push(
            Trial::test(format!("{} under {}", case.check, case.fault), move || {
                let fault: Fault = case
                    .fault
                    .parse()
                    .map_err(|e| Failed::from(format!("{e}")))?;
                runtime.block_on(async {
                    let agent = a2a_tck::builtin::start(&[fault])
                        .await
                        .map_err(|e| Failed::from(format!("agent did not start: {e}")))?;
                    let card_url = match case.card_path {
                        Some(path) => format!("{}{path}", agent.base_url()),
                        None => agent.card_url(),
                    };
                    let report = support::run(&agent.base_url(), &card_url, case.check).await;
                    agent.shutdown().await;
                    let mut results = support::results_of(&report, case.check);
                    if !case.versions.is_empty() {
                        results.retain(|r| r.version.is_some_and(|v| case.versions.contains(&v)));
                    }
                    if !case.bindings.is_empty() {
                        results.retain(|r| r.binding.is_some_and(|b| case.bindings.contains(&b)));
                    }
                    if support::all_have(&results, expected) {
                        Ok(())
                    } else {
                        Err(Failed::from(format!(
                            "expected {expected} under fault {}:\n{}",
                            case.fault,
                            support::explain(&results)
                        )))
                    }
                })
            })
            .with_kind(check.level.as_str()),
        );
    }
    libtest_mimic::run(&args, trials).exit_code()
}

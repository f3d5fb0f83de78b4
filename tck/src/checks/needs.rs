//! What each check needs of the agent and how long it runs: the scenarios it may send (so
//! that `--contract none` leaves out the checks that need one, and the runner can hold every
//! check to its declaration), and its estimated chain of sequential exchanges (so that the
//! runner starts the longest chains first).

use crate::check::Check;
use crate::contract::{is_kit_only, Contract, Scenarios};

/// The scenarios (prefixes beyond the plain message) each check may send: what it needs the
/// agent to play. A check not listed needs none: it sends plain messages, which any agent
/// answers its own way, or none at all. The runner holds every check to this table (a check
/// that sends an unlisted scenario is an ERROR of the kit), and with `--contract none` the
/// listed checks are not run. Kit-only scenarios (`tck-long-running`, `tck-fail-task`, `tck-auth-required`) are
/// listed where a check uses them when honoured, beside the official fallback.
const SCENARIOS: &[(&str, &[&str])] = &[
    (
        "auth.in-task-auth-required-explained",
        &["tck-auth-required"],
    ),
    (
        "bindings.task-readable-on-every-binding",
        &["tck-artifact-text"],
    ),
    (
        "capabilities.push-absent-rejects-push-config",
        &["tck-input-required"],
    ),
    (
        "capabilities.streaming-absent-rejects-streaming",
        &["tck-input-required"],
    ),
    (
        "context.mismatched-context-id-rejected",
        &["tck-input-required"],
    ),
    (
        "context.task-id-only-infers-context-id",
        &["tck-input-required"],
    ),
    (
        "data-model.artifact.required-fields",
        &[
            "tck-artifact-text",
            "tck-artifact-data",
            "tck-artifact-file",
            "tck-artifact-file-url",
        ],
    ),
    ("data-model.enums.protojson-names", &["tck-artifact-text"]),
    (
        "data-model.json.camel-case-field-names",
        &["tck-artifact-text"],
    ),
    (
        "data-model.message.required-fields",
        &[
            "tck-artifact-text",
            "tck-message-response",
            "tck-input-required",
            "tck-fail-task",
        ],
    ),
    ("data-model.no-kind-discriminator", &["tck-artifact-text"]),
    ("data-model.task.required-fields", &["tck-artifact-text"]),
    ("data-model.timestamps.utc-z", &["tck-artifact-text"]),
    ("jsonrpc.stream.events-are-responses", &["tck-stream-001"]),
    ("v03.stream.sse-content-type", &["tck-stream-001"]),
    (
        "streaming.delivers-intermediate-updates",
        &["tck-stream-001"],
    ),
    ("send.blocking-returns-artifacts", &["tck-artifact-text"]),
    (
        "send.context-id-generated-when-absent",
        &["tck-message-response"],
    ),
    (
        "send.auth-required-follow-up-continues-task",
        &["tck-auth-required"],
    ),
    (
        "send.follow-up-continues-interrupted-task",
        &["tck-input-required"],
    ),
    (
        "send.follow-up-with-data-part-continues-task",
        &["tck-input-required"],
    ),
    ("send.history-length-caps-messages", &["tck-input-required"]),
    (
        "send.terminal-task-rejects-message",
        &["tck-input-required", "tck-reject-task", "tck-fail-task"],
    ),
    (
        "streaming.artifact-chunks-append-in-order",
        &["tck-stream-artifact-chunked"],
    ),
    ("streaming.closes-after-terminal-state", &["tck-stream-003"]),
    (
        "streaming.failed-task-ends-stream-failed",
        &["tck-fail-task"],
    ),
    (
        "streaming.final-state-matches-get-task",
        &["tck-stream-001"],
    ),
    (
        "streaming.message-stream-is-one-message",
        &["tck-message-response"],
    ),
    ("streaming.sse-content-type", &["tck-stream-001"]),
    ("streaming.states-in-order", &["tck-stream-ordering-001"]),
    (
        "streaming.task-stream-starts-with-task",
        &["tck-stream-001"],
    ),
    (
        "streaming.follow-up-stream-starts-with-task",
        &["tck-input-required"],
    ),
    (
        "subscribe.closes-at-terminal-state",
        &["tck-input-required", "tck-long-running"],
    ),
    (
        "subscribe.first-event-is-current-task",
        &["tck-input-required", "tck-long-running"],
    ),
    (
        "subscribe.receives-later-updates",
        &["tck-input-required", "tck-long-running"],
    ),
    (
        "subscribe.subscribers-see-same-events",
        &["tck-input-required", "tck-long-running"],
    ),
    (
        "subscribe.closing-one-keeps-others",
        &["tck-input-required", "tck-long-running"],
    ),
    (
        "tasks.cancel.canceled-task-stays-canceled",
        &["tck-input-required"],
    ),
    (
        "tasks.cancel.open-task-becomes-canceled",
        &["tck-input-required"],
    ),
    (
        "tasks.cancel.terminal-task-not-cancelable",
        &["tck-input-required", "tck-reject-task", "tck-fail-task"],
    ),
    (
        "tasks.get.history-length-caps-messages",
        &["tck-input-required"],
    ),
    (
        "tasks.get.history-length-zero-omits-history",
        &["tck-input-required"],
    ),
    (
        "tasks.list.artifacts-omitted-by-default",
        &["tck-artifact-text"],
    ),
    (
        "tasks.list.sorted-by-update-time-desc",
        &["tck-input-required"],
    ),
    (
        "v03.jsonrpc.bare-results-with-kind",
        &["tck-message-response"],
    ),
    ("v03.states-spelled-for-0-3", &["tck-input-required"]),
    ("v03.stream.status-updates-carry-final", &["tck-stream-001"]),
    // --- push ---
    ("push.config-create-returns-config", &["tck-input-required"]),
    ("push.config-get-returns-config", &["tck-input-required"]),
    ("push.config-list-returns-all", &["tck-input-required"]),
    ("push.config-list-pages", &["tck-input-required"]),
    ("push.config-delete-removes", &["tck-input-required"]),
    (
        "push.config-get-unknown-config-fails",
        &["tck-input-required"],
    ),
    // The task is completed only for the loopback probe (agents given another webhook host).
    (
        "push.config-private-webhook-refused",
        &["tck-input-required", "tck-artifact-text"],
    ),
    (
        "push.delivery-authentication",
        &["tck-input-required", "tck-artifact-text"],
    ),
    (
        "push.delivery-every-update-in-order",
        &["tck-input-required", "tck-artifact-text"],
    ),
    (
        "push.delivery-payload-shape",
        &["tck-input-required", "tck-artifact-text"],
    ),
    // Run alone (nothing else to judge), the check makes its own delivered task.
    (
        "push.delivery-order-every-webhook",
        &["tck-input-required", "tck-artifact-text"],
    ),
    (
        "push.delivery-stops-after-delete",
        &["tck-input-required", "tck-artifact-text"],
    ),
    (
        "push.delivery-token",
        &["tck-input-required", "tck-artifact-text"],
    ),
    (
        "push.inline-config-delivers",
        &["tck-input-required", "tck-artifact-text"],
    ),
    // --- planned10 ---
    ("send.non-blocking-returns-open-task", &["tck-long-running"]),
    (
        "send.accepted-output-modes-honoured",
        &["tck-artifact-text"],
    ),
];

/// The estimated number of sequential exchanges of each check, measured on a run against the
/// reference agent (the count of requests it records; checks not listed make one). The runner
/// starts the longest chains first.
const WEIGHTS: &[(&str, u32)] = &[
    ("versioning.task-same-in-both-versions", 12),
    ("send.terminal-task-rejects-message", 9),
    ("tasks.cancel.terminal-task-not-cancelable", 9),
    ("bindings.task-readable-on-every-binding", 8),
    ("data-model.message.required-fields", 7),
    ("tasks.list.sorted-by-update-time-desc", 6),
    ("capabilities.push-absent-rejects-push-config", 5),
    ("subscribe.subscribers-see-same-events", 5),
    ("subscribe.closing-one-keeps-others", 6),
    ("v03.card.declared-transports-answer", 3),
    ("rest.query-parameters-camel-case", 3),
    ("tasks.get.history-length-caps-messages", 5),
    ("tasks.list.page-size-and-cursor", 5),
    ("v03.states-spelled-for-0-3", 5),
    ("context.mismatched-context-id-rejected", 4),
    ("subscribe.closes-at-terminal-state", 4),
    ("subscribe.first-event-is-current-task", 4),
    ("subscribe.receives-later-updates", 4),
    ("tasks.get.history-length-zero-omits-history", 4),
    ("tasks.list.status-timestamp-after-filter", 4),
    ("send.history-length-caps-messages", 3),
    ("context.task-id-only-infers-context-id", 3),
    ("send.invalid-message-rejected", 3),
    ("tasks.cancel.canceled-task-stays-canceled", 3),
    ("tasks.list.filters-by-context-id", 3),
    ("tasks.list.next-page-token-always-present", 3),
    ("auth.limited-principal-refused", 2),
    ("extended-card.limited-principal-refused", 2),
    ("data-model.enums.protojson-names", 2),
    ("data-model.json.camel-case-field-names", 2),
    ("data-model.no-kind-discriminator", 2),
    ("data-model.task.required-fields", 2),
    ("data-model.timestamps.utc-z", 2),
    ("jsonrpc.envelope.id-echoed", 2),
    ("jsonrpc.envelope.response-is-jsonrpc-2", 2),
    ("rest.content-type-a2a-json", 2),
    ("rest.content-type-json", 2),
    ("send.blocking-returns-artifacts", 2),
    ("send.auth-required-follow-up-continues-task", 2),
    ("send.follow-up-continues-interrupted-task", 2),
    ("send.follow-up-with-data-part-continues-task", 2),
    ("send.message-id-kept-in-history", 2),
    ("send.task-ids-server-generated-unique", 2),
    ("streaming.failed-task-ends-stream-failed", 2),
    ("streaming.final-state-matches-get-task", 2),
    ("streaming.follow-up-stream-starts-with-task", 3),
    ("subscribe.terminal-task-unsupported", 2),
    ("tasks.cancel.open-task-becomes-canceled", 2),
    ("tasks.get.returns-current-task", 2),
    ("tasks.list.artifacts-omitted-by-default", 2),
    ("tasks.list.response-required-fields", 2),
    ("v03.jsonrpc.bare-results-with-kind", 2),
    // --- push ---
    ("push.config-delete-removes", 7),
    ("push.config-list-pages", 6),
    ("push.config-list-returns-all", 5),
    ("push.delivery-stops-after-delete", 9),
    ("push.inline-config-delivers", 5),
    ("push.delivery-every-update-in-order", 5),
    ("push.delivery-order-every-webhook", 6),
    ("push.delivery-authentication", 4),
    ("push.delivery-payload-shape", 4),
    ("push.delivery-token", 4),
    ("push.config-get-returns-config", 3),
    ("push.config-unknown-task-not-found", 3),
    ("push.config-create-returns-config", 2),
    ("push.config-get-unknown-config-fails", 2),
    ("v03.jsonrpc.envelope", 2),
    ("v03.jsonrpc.malformed-requests", 2),
    ("v03.rest.content-type-json", 2),
    ("rest.service-parameters-as-headers", 2),
    ("rest.query-values-percent-decoded", 2),
    ("grpc.service-parameters-in-metadata", 2),
    // --- planned10 ---
    ("tasks.list.page-size-bounds", 12),
    ("send.non-blocking-returns-open-task", 2),
    ("send.accepted-output-modes-honoured", 2),
];

/// Scenarios a check sends only when the contract gives them, beside plain messages it
/// judges anyway: declared (the runner holds the check to them), but never a reason not to
/// run it.
const OPTIONAL: &[(&str, &[&str])] = &[(
    "streaming.nothing-after-stream-end",
    &["tck-stream-artifact-chunked"],
)];

/// The scenario prefixes `id` may send (empty: none).
pub fn scenarios_of(id: &str) -> &'static [&'static str] {
    SCENARIOS
        .iter()
        .find(|(i, _)| *i == id)
        .map_or(&[], |(_, prefixes)| *prefixes)
}

/// Why `check` is not run under this contract: it needs a scenario and the contract is
/// `none`; or it exists for kit-only scenarios only and the contract does not give them; or
/// a drive file names none of the states it needs (a product agent is never sent a
/// scenario's label in the hope that it plays it).
pub fn not_run(check: &Check, scenarios: &Scenarios) -> Option<String> {
    let needs = scenarios_of(check.id);
    let undriven = scenarios.used() == Contract::Drive
        && !needs.is_empty()
        && needs.iter().all(|p| !scenarios.honours(p));
    if undriven || (scenarios.used() != Contract::None && needs.iter().all(|p| is_kit_only(p))) {
        return needs
            .iter()
            .find_map(|p| scenarios.refusal(p))
            .map(|why| format!("not run: {why}"));
    }
    (scenarios.used() == Contract::None && !needs.is_empty()).then(|| {
        format!(
            "not run: it needs the agent to play the scenario(s) {}, and the contract is `none`",
            needs
                .iter()
                .map(|p| format!("`{p}`"))
                .collect::<Vec<_>>()
                .join(", ")
        )
    })
}

/// An internal error when a check sent a scenario its declaration omits (a bug of the kit).
pub fn held_to_declaration(
    id: &str,
    sent: &std::collections::BTreeSet<&'static str>,
) -> Result<(), crate::check::HarnessError> {
    let declared = scenarios_of(id);
    let optional = OPTIONAL
        .iter()
        .find(|(i, _)| *i == id)
        .map_or(&[][..], |(_, prefixes)| *prefixes);
    let undeclared: Vec<&str> = sent
        .iter()
        .copied()
        .filter(|p| !declared.contains(p) && !optional.contains(p))
        .collect();
    if undeclared.is_empty() {
        Ok(())
    } else {
        Err(crate::check::HarnessError::Internal(format!(
            "the check sent scenario(s) {undeclared:?} that checks::needs does not declare for it"
        )))
    }
}

/// The estimated length of `id`'s chain of sequential exchanges.
pub fn weight(id: &str) -> u32 {
    WEIGHTS
        .iter()
        .find(|(i, _)| *i == id)
        .map_or(1, |(_, weight)| *weight)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::contract::is_scenario;

    #[test]
    fn tables_name_known_checks_and_scenarios() {
        let catalog = crate::checks::all();
        let known = |id: &str| catalog.iter().any(|c| c.id == id);
        for (id, prefixes) in SCENARIOS.iter().chain(OPTIONAL) {
            assert!(known(id), "SCENARIOS names unknown check {id}");
            assert!(!prefixes.is_empty(), "{id} lists no scenario");
            for p in *prefixes {
                assert!(is_scenario(p), "{id}: {p} is not a scenario prefix");
            }
        }
        for (id, weight) in WEIGHTS {
            assert!(known(id), "WEIGHTS names unknown check {id}");
            assert!(*weight >= 2, "{id}: weights of 1 are the default");
        }
    }
}

//! The negative cases: each check paired with the fault of the reference agent that breaks
//! its sentence, and the faults whose case is still pending on the kit side.

use a2a_reference_agent::Fault;
use a2a_tck::check::{Binding, ProtocolVersion, Status};

/// How a check is broken.
pub struct Case {
    pub check: &'static str,
    pub fault: Fault,
    /// The card URL path to use instead of the well-known one (for card faults).
    pub card_path: Option<&'static str>,
    /// The status to see instead of FAIL/WARN (for faults that must not count as failures).
    pub expect: Option<Status>,
    /// The bindings whose results are judged, for faults of some bindings; empty = every
    /// result.
    pub bindings: &'static [Binding],
    /// The protocol versions whose results are judged; empty = every result.
    pub versions: &'static [ProtocolVersion],
}

pub const fn case(check: &'static str, fault: Fault) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: None,
        bindings: &[],
        versions: &[],
    }
}

/// A case whose fault is a conformant (or tolerated) alternative: every result must have
/// `status` (PASS, or WARN for a tolerated answer), never FAIL.
pub const fn expecting(check: &'static str, fault: Fault, status: Status) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: Some(status),
        bindings: &[],
        versions: &[],
    }
}

/// A case judged on some bindings' results only.
pub const fn on(bindings: &'static [Binding], check: &'static str, fault: Fault) -> Case {
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
pub const fn on_v(
    bindings: &'static [Binding],
    versions: &'static [ProtocolVersion],
    check: &'static str,
    fault: Fault,
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
pub const V1_0: &[ProtocolVersion] = &[ProtocolVersion::V1_0];

/// A case judged on the results of one protocol version only.
pub const fn in_version(
    version: &'static [ProtocolVersion],
    check: &'static str,
    fault: Fault,
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
pub const JSON: &[Binding] = &[Binding::Jsonrpc, Binding::Rest];

/// A case whose fault is a defensible alternative on some bindings of 1.0 only: those results
/// must have `status` (PASS, or WARN for a tolerated answer).
pub const fn alternative(
    bindings: &'static [Binding],
    check: &'static str,
    fault: Fault,
    status: Status,
) -> Case {
    Case {
        check,
        fault,
        card_path: None,
        expect: Some(status),
        bindings,
        versions: V1_0,
    }
}

pub const CASES: &[Case] = &[
    Case {
        check: "card.discovery.served-at-well-known-path",
        fault: Fault::CardWellKnownServesHtml,
        card_path: Some("/.well-known/agent.json"),
        expect: None,
        bindings: &[],
        versions: &[],
    },
    // A card published only by direct configuration: nothing at the well-known URI is N/A.
    Case {
        check: "card.discovery.served-at-well-known-path",
        fault: Fault::CardOnlyAtLegacyPath,
        card_path: Some("/.well-known/agent.json"),
        expect: Some(Status::NotApplicable),
        bindings: &[],
        versions: &[],
    },
    case(
        "card.fields.required-present",
        Fault::CardMissingRequiredField,
    ),
    case(
        "card.interfaces.declare-binding-url-version",
        Fault::CardBadInterface,
    ),
    case(
        "card.interfaces.version-is-major-minor",
        Fault::CardPatchVersion,
    ),
    case(
        "card.interfaces.version-is-known",
        Fault::CardInterfaceUnknownVersion,
    ),
    case("card.media-type-json", Fault::CardServedAsHtml),
    case(
        "card.caching.cache-control-max-age",
        Fault::CardNoCacheHeaders,
    ),
    case("card.caching.etag", Fault::CardNoCacheHeaders),
    case("card.signature.verifies", Fault::CardSignatureBad),
    case(
        "card.signature.header-alg-typ-kid",
        Fault::CardSignatureNoKid,
    ),
    case("card.signature.typ-jose", Fault::CardSignatureTypJwt),
    case(
        "card.signature.jku-holds-key",
        Fault::CardSignatureUnknownKey,
    ),
    in_version(
        V1_0,
        "send.returns-task-or-message",
        Fault::SendResultUnwrapped,
    ),
    case(
        "send.blocking-waits-for-terminal-or-interrupted",
        Fault::BlockingReturnsWorking,
    ),
    case(
        "send.blocking-returns-artifacts",
        Fault::BlockingOmitsArtifacts,
    ),
    case("send.task-ids-server-generated-unique", Fault::ReuseTaskId),
    case(
        "send.context-id-generated-when-absent",
        Fault::MessageOmitsContextId,
    ),
    case("send.task-carries-context-id", Fault::OmitContextId),
    case(
        "send.client-context-id-kept-or-rejected",
        Fault::ReplaceContextId,
    ),
    case(
        "send.unknown-task-id-returns-task-not-found",
        Fault::UnknownTaskIdCreatesTask,
    ),
    case(
        "send.terminal-task-rejects-message",
        Fault::TerminalTaskAcceptsMessage,
    ),
    case(
        "send.follow-up-continues-interrupted-task",
        Fault::FollowUpStartsNewTask,
    ),
    case(
        "send.auth-required-follow-up-continues-task",
        Fault::FollowUpStartsNewTask,
    ),
    case(
        "send.history-length-caps-messages",
        Fault::IgnoreHistoryLength,
    ),
    case(
        "context.task-id-only-infers-context-id",
        Fault::FollowUpNewContextId,
    ),
    case(
        "context.task-id-only-infers-context-id",
        Fault::FollowUpStoredWithFreshContext,
    ),
    case(
        "context.mismatched-context-id-rejected",
        Fault::AcceptMismatchedContextId,
    ),
    case(
        "context.mismatched-context-id-rejected",
        Fault::MismatchedContextInternalError,
    ),
    case("tasks.get.returns-current-task", Fault::GetStaleState),
    case(
        "tasks.get.unknown-id-returns-task-not-found",
        Fault::GetUnknownReturnsNull,
    ),
    case(
        "tasks.get.history-length-zero-omits-history",
        Fault::IgnoreHistoryLength,
    ),
    case(
        "tasks.get.history-length-caps-messages",
        Fault::IgnoreHistoryLength,
    ),
    case(
        "tasks.get.history-length-caps-messages",
        Fault::HistoryOldestFirst,
    ),
    case(
        "tasks.cancel.open-task-becomes-canceled",
        Fault::CancelReturnsPreviousState,
    ),
    case(
        "tasks.cancel.canceled-task-stays-canceled",
        Fault::CancelNotPersisted,
    ),
    case(
        "tasks.cancel.terminal-task-not-cancelable",
        Fault::CancelCompletedTaskSucceeds,
    ),
    // A second cancel of a canceled task: the task still canceled (idempotent, §3.3.1) and
    // TaskNotFoundError (purged) are conformant alternatives.
    expecting(
        "tasks.cancel.terminal-task-not-cancelable",
        Fault::CancelCanceledReturnsTask,
        Status::Pass,
    ),
    expecting(
        "tasks.cancel.terminal-task-not-cancelable",
        Fault::CancelCanceledNotFound,
        Status::Pass,
    ),
    in_version(
        V1_0,
        "tasks.cancel.unknown-id-returns-task-not-found",
        Fault::CancelUnknownReturnsNotCancelable,
    ),
    case(
        "tasks.list.next-page-token-always-present",
        Fault::ListOmitsNextPageToken,
    ),
    case(
        "tasks.list.artifacts-omitted-by-default",
        Fault::ListIncludesArtifacts,
    ),
    case(
        "tasks.list.sorted-by-update-time-desc",
        Fault::ListAscending,
    ),
    case(
        "tasks.list.filters-by-context-id",
        Fault::ListIgnoresContextFilter,
    ),
    case(
        "tasks.list.page-size-and-cursor",
        Fault::ListIgnoresPageSize,
    ),
    on(
        JSON,
        "tasks.list.response-required-fields",
        Fault::ListOmitsTotalSize,
    ),
    case("data-model.task.required-fields", Fault::OmitStatusState),
    case(
        "data-model.message.required-fields",
        Fault::MessageMissingMessageId,
    ),
    case(
        "data-model.message.required-fields",
        Fault::NestedMessageMissingRole,
    ),
    case(
        "data-model.message.required-fields",
        Fault::HistoryAgentMessageEmptyParts,
    ),
    case(
        "data-model.artifact.required-fields",
        Fault::ArtifactMissingId,
    ),
    case(
        "data-model.json.camel-case-field-names",
        Fault::SnakeCaseFields,
    ),
    case(
        "data-model.enums.protojson-names",
        Fault::LowercaseTaskState,
    ),
    case("data-model.timestamps.utc-z", Fault::TimestampWithOffset),
    case("data-model.no-kind-discriminator", Fault::EmitKindField),
    case(
        "jsonrpc.envelope.response-is-jsonrpc-2",
        Fault::OmitJsonrpcMember,
    ),
    case("jsonrpc.envelope.id-echoed", Fault::WrongResponseId),
    case(
        "jsonrpc.envelope.content-type-json",
        Fault::TextPlainContentType,
    ),
    case(
        "jsonrpc.errors.parse-error",
        Fault::ParseErrorAsInvalidRequest,
    ),
    case(
        "jsonrpc.errors.invalid-request",
        Fault::IgnoreJsonrpcVersion,
    ),
    case(
        "jsonrpc.errors.method-not-found",
        Fault::UnknownMethodInvalidRequest,
    ),
    case(
        "jsonrpc.errors.invalid-params",
        Fault::MissingMessageInternalError,
    ),
    case(
        "jsonrpc.errors.error-object-structure",
        Fault::ErrorDataNotArray,
    ),
    case("jsonrpc.errors.error-info-in-data", Fault::OmitErrorInfo),
    case(
        "versioning.unsupported-version-rejected",
        Fault::IgnoreVersionHeader,
    ),
    // On 0.3 REST a 404 is also what TaskNotFound looks like; the 0.3 gRPC service has no header.
    on(
        &[Binding::Jsonrpc],
        "versioning.missing-version-means-0-3",
        Fault::MissingVersionAs10,
    ),
    case(
        "versioning.patch-version-ignored",
        Fault::RejectPatchVersion,
    ),
    // The card denies streaming while the agent streams anyway.
    case(
        "capabilities.streaming-absent-rejects-streaming",
        Fault::StreamingUndeclared,
    ),
    case(
        "capabilities.push-absent-rejects-push-config",
        Fault::PushUnsupportedWrongError,
    ),
    case(
        "capabilities.extended-card-absent-rejected",
        Fault::ExtendedCardUnsupportedWrongError,
    ),
    case(
        "send.unsupported-media-type-rejected",
        Fault::AcceptUnsupportedMediaType,
    ),
    // Processing a message that misses a REQUIRED field is tolerated (§5.7 SHOULD against
    // §3.3.2 MUST): WARN on this MUST check. Its FAIL (an error other than InvalidParams) is
    // shown in tests/real_answers.rs.
    expecting(
        "send.invalid-message-rejected",
        Fault::AcceptInvalidMessage,
        Status::Warn,
    ),
    case("send.unknown-fields-ignored", Fault::RejectUnknownFields),
    case(
        "tasks.list.status-timestamp-after-filter",
        Fault::ListIgnoresTimestampFilter,
    ),
    // Cancellation is not guaranteed (§3.1.5): declining it makes the check UNTESTABLE.
    Case {
        check: "tasks.cancel.open-task-becomes-canceled",
        fault: Fault::CancelOpenTaskNotCancelable,
        card_path: None,
        expect: Some(Status::Untestable),
        bindings: &[],
        versions: &[],
    },
    // JSON-RPC batches.
    case(
        "jsonrpc.batch.empty-array-invalid-request",
        Fault::EmptyBatchReturnsArray,
    ),
    case("jsonrpc.batch.answers-each-request", Fault::BatchRejected),
];

/// Faults that no case exercises yet because the kit cannot observe them today ("kit side
/// pending"): each gets its case, and leaves this list, with the kit change it needs.
pub const KIT_SIDE_PENDING: &[Fault] = &[
    // No check waits for a stream that reached INPUT_REQUIRED/AUTH_REQUIRED to close.
    Fault::StreamOpenAfterInterrupted,
    // The agent's card declares no tenant, so no check sends a REST request under /{tenant}.
    Fault::RestIgnoresTenant,
];

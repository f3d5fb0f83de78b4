//! The negative cases of protocol 0.3, streams and subscriptions, the per-binding rules, and
//! the faults that are defensible alternatives the kit must accept (the rest are in `cases`).

use a2a_reference_agent::Fault;
use a2a_tck::check::{Binding, ProtocolVersion, Status};

use crate::cases::{alternative, case, expecting, in_version, on, on_v, Case, V1_0};

pub const MORE_CASES: &[Case] = &[
    // Protocol 0.3 beside 1.0.
    on(
        &[Binding::Jsonrpc],
        "v03.states-spelled-for-0-3",
        Fault::V03StateSpelled10,
    ),
    on(
        &[Binding::Jsonrpc],
        "v03.states-spelled-for-0-3",
        Fault::V03CanceledSpelledCancelled,
    ),
    on(
        &[Binding::Rest],
        "v03.states-spelled-for-0-3",
        Fault::V03ProtoStateCancelledOneL,
    ),
    case(
        "v03.jsonrpc.bare-results-with-kind",
        Fault::V03Answers10Shapes,
    ),
    case("v03.jsonrpc.bare-results-with-kind", Fault::V03NoKind),
    case("v03.stream.status-updates-carry-final", Fault::V03NoFinal),
    case(
        "versioning.0-3-method-under-1-0-not-found",
        Fault::V03MethodUnder10,
    ),
    case(
        "versioning.1-0-method-under-0-3-not-found",
        Fault::V10MethodUnder03,
    ),
    // §8.3.1's SHOULD (every supported combination): an undeclared version is a WARN.
    Case {
        expect: Some(Status::Warn),
        ..case("versioning.card-declares-every-version", Fault::CardOmits03)
    },
    case(
        "versioning.query-parameter-version",
        Fault::IgnoreVersionQuery,
    ),
    case(
        "versioning.task-same-in-both-versions",
        Fault::CrossVersionIsolated,
    ),
    in_version(
        &[ProtocolVersion::V0_3],
        "send.follow-up-with-data-part-continues-task",
        Fault::V03DataPartRefused,
    ),
    case(
        "send.message-id-kept-in-history",
        Fault::HistoryReplacesMessageId,
    ),
    // Streams.
    case(
        "streaming.task-stream-starts-with-task",
        Fault::StreamFirstEventStatusUpdate,
    ),
    case(
        "streaming.follow-up-stream-starts-with-task",
        Fault::StreamFollowUpStartsWithStatus,
    ),
    case(
        "streaming.message-stream-is-one-message",
        Fault::StreamMessageThenMore,
    ),
    case("streaming.states-in-order", Fault::StreamStatusOutOfOrder),
    case(
        "streaming.closes-after-terminal-state",
        Fault::StreamOpenAfterTerminal,
    ),
    case(
        "streaming.artifact-chunks-append-in-order",
        Fault::StreamChunkNoLastChunk,
    ),
    case(
        "streaming.artifact-chunks-append-in-order",
        Fault::StreamChunkAppendWrong,
    ),
    case(
        "streaming.final-state-matches-get-task",
        Fault::StreamStateNotStored,
    ),
    case(
        "streaming.failed-task-ends-stream-failed",
        Fault::StreamFailedStatusDropped,
    ),
    case(
        "subscribe.first-event-is-current-task",
        Fault::SubscribeFirstEventNotTask,
    ),
    case(
        "subscribe.receives-later-updates",
        Fault::SubscribeNoUpdates,
    ),
    case(
        "subscribe.closes-at-terminal-state",
        Fault::SubscribeOpenAfterTerminal,
    ),
    case(
        "subscribe.terminal-task-unsupported",
        Fault::SubscribeTerminalAllowed,
    ),
    case(
        "subscribe.unknown-task-not-found",
        Fault::SubscribeUnknownWrongError,
    ),
    case(
        "subscribe.subscribers-see-same-events",
        Fault::SubscribeFirstOnly,
    ),
    // An agent that honours only the official prefixes (no `tck-long-running`): the
    // subscription checks fall back to an input-required task and still judge.
    expecting(
        "subscribe.first-event-is-current-task",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    expecting(
        "subscribe.receives-later-updates",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    expecting(
        "subscribe.closes-at-terminal-state",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    expecting(
        "subscribe.subscribers-see-same-events",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    expecting(
        "send.terminal-task-rejects-message",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    expecting(
        "tasks.cancel.terminal-task-not-cancelable",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    // An agent that plays only the ACTS contract (the prefix in the first text part,
    // plain-text follow-ups): the kit drives it, so the checks that need held, interrupted
    // and failed tasks judge it as they judge the full agent.
    expecting(
        "subscribe.receives-later-updates",
        Fault::ActsContractOnly,
        Status::Pass,
    ),
    expecting(
        "subscribe.closes-at-terminal-state",
        Fault::ActsContractOnly,
        Status::Pass,
    ),
    expecting(
        "send.follow-up-continues-interrupted-task",
        Fault::ActsContractOnly,
        Status::Pass,
    ),
    expecting(
        "streaming.failed-task-ends-stream-failed",
        Fault::ActsContractOnly,
        Status::Pass,
    ),
    // An agent that plays no contract and waits for an approval the kit cannot give without
    // a drive file: what needs the interrupted task is UNTESTABLE, never FAIL.
    expecting(
        "subscribe.receives-later-updates",
        Fault::PlaysNoContract,
        Status::Untestable,
    ),
    expecting(
        "send.follow-up-continues-interrupted-task",
        Fault::PlaysNoContract,
        Status::Untestable,
    ),
    case("streaming.sse-content-type", Fault::SseWrongContentType),
    case(
        "jsonrpc.stream.events-are-responses",
        Fault::SseEventsUnwrapped,
    ),
    case("jsonrpc.stream.events-are-responses", Fault::SseWrongId),
    // The HTTP+JSON binding.
    case(
        "rest.content-type-a2a-json",
        Fault::RestPlainJsonContentType,
    ),
    case("rest.content-type-json", Fault::RestTextContentType),
    case("rest.success-status-200", Fault::RestSuccess201),
    case("rest.errors.google-rpc-status", Fault::RestErrorProblemJson),
    case(
        "rest.errors.content-type-json",
        Fault::RestErrorStatusAsProblemJson,
    ),
    case("rest.errors.google-rpc-status", Fault::RestErrorNoErrorInfo),
    on_v(
        &[Binding::Rest],
        V1_0,
        "tasks.get.unknown-id-returns-task-not-found",
        Fault::RestWrongStatus,
    ),
    on_v(
        &[Binding::Rest],
        V1_0,
        "tasks.get.unknown-id-returns-task-not-found",
        Fault::RestError200,
    ),
    // The gRPC binding.
    case("grpc.errors.status-and-error-info", Fault::GrpcWrongStatus),
    case("grpc.errors.status-and-error-info", Fault::GrpcNoErrorInfo),
    on_v(
        &[Binding::Grpc],
        V1_0,
        "tasks.get.unknown-id-returns-task-not-found",
        Fault::GrpcWrongStatus,
    ),
    // Every binding serves the same tasks.
    case(
        "bindings.task-readable-on-every-binding",
        Fault::CrossBindingIsolated,
    ),
    // Streaming off, refused with method-not-found instead of UnsupportedOperationError.
    case(
        "capabilities.streaming-absent-rejects-streaming",
        Fault::StreamingUnsupportedWrongError,
    ),
    // The superseded 1.0.0 error table (HTTP 409/415/502, gRPC UNIMPLEMENTED): tolerated,
    // naming the 1.0.1 entry, never failed (spec §3.6, §5.4).
    alternative(
        &[Binding::Rest],
        "tasks.cancel.terminal-task-not-cancelable",
        Fault::Errors100Table,
        Status::Warn,
    ),
    alternative(
        &[Binding::Grpc],
        "versioning.unsupported-version-rejected",
        Fault::Errors100Table,
        Status::Warn,
    ),
    alternative(
        &[Binding::Grpc],
        "subscribe.terminal-task-unsupported",
        Fault::Errors100Table,
        Status::Warn,
    ),
    // A gRPC stream refused with headers and then the status of an empty stream (as grpc-js
    // does) is the same refusal as a trailers-only status.
    alternative(
        &[Binding::Grpc],
        "subscribe.terminal-task-unsupported",
        Fault::GrpcStreamErrorInStream,
        Status::Pass,
    ),
    alternative(
        &[Binding::Grpc],
        "subscribe.unknown-task-not-found",
        Fault::GrpcStreamErrorInStream,
        Status::Pass,
    ),
    alternative(
        &[Binding::Grpc],
        "subscribe.first-event-is-current-task",
        Fault::GrpcStreamErrorInStream,
        Status::Pass,
    ),
];

//! The negative cases of the `jsonrpc.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;

use a2a_tck::suite::check::Binding;

use crate::cases::{case, on_v, Case, V0_3};

pub const CASES: &[Case] = &[
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
    // JSON-RPC batches.
    case(
        "jsonrpc.batch.empty-array-invalid-request",
        Fault::EmptyBatchReturnsArray,
    ),
    case("jsonrpc.batch.answers-each-request", Fault::BatchRejected),
    case(
        "jsonrpc.stream.events-are-responses",
        Fault::SseEventsUnwrapped,
    ),
    case("jsonrpc.stream.events-are-responses", Fault::SseWrongId),
    // 0.3: a record-separator byte before each event's JSON-RPC response.
    on_v(
        &[Binding::Jsonrpc],
        V0_3,
        "jsonrpc.stream.events-are-responses",
        Fault::V03SseRecordSeparator,
    ),
    case("jsonrpc.errors.extra-data-typed", Fault::ErrorDetailUntyped),
];

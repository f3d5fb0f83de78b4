//! The negative cases of the `v03.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::{Binding, Status};

use crate::cases::{case, expecting, on, Case};

pub const CASES: &[Case] = &[
    case(
        "v03.send.unknown-task-id-refused",
        Fault::UnknownTaskIdCreatesTask,
    ),
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
    // 0.3 JSON-RPC envelope and malformed requests.
    case("v03.jsonrpc.envelope", Fault::WrongResponseId),
    case("v03.jsonrpc.envelope", Fault::OmitJsonrpcMember),
    case("v03.jsonrpc.envelope", Fault::TextPlainContentType),
    case(
        "v03.jsonrpc.malformed-requests",
        Fault::ParseErrorAsInvalidRequest,
    ),
    case(
        "v03.jsonrpc.malformed-requests",
        Fault::IgnoreJsonrpcVersion,
    ),
    // 0.3 HTTP+JSON and streams.
    case("v03.rest.content-type-json", Fault::RestTextContentType),
    case("v03.rest.error-status-4xx", Fault::RestError200),
    case("v03.stream.sse-content-type", Fault::SseWrongContentType),
    // The 0.3 card's transport declarations.
    case(
        "v03.card.declared-transports-answer",
        Fault::V03CardUrlTransportMismatch,
    ),
    case(
        "v03.card.additional-interfaces-complete",
        Fault::V03CardUrlTransportMismatch,
    ),
    case(
        "v03.stream.resubscribe-finished-task",
        Fault::V03ResubscribeFinishedWrongTask,
    ),
    // Defensible alternatives the check must accept.
    expecting(
        "v03.stream.resubscribe-finished-task",
        Fault::V03ResubscribeFinishedRefused,
        Status::Pass,
    ),
    expecting(
        "v03.stream.resubscribe-finished-task",
        Fault::V03ResubscribeFinishedEmpty,
        Status::Pass,
    ),
];

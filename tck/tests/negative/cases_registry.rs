//! The negative cases of the registry work: the 0.3 wire and card checks, the HTTP+JSON and
//! gRPC binding rules (service parameters, query parameters) and stream progress.

use a2a_reference_agent::Fault;

use crate::cases::{case, Case};

pub const REGISTRY_CASES: &[Case] = &[
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
    // 1.0 binding rules.
    case(
        "rest.service-parameters-as-headers",
        Fault::RestIgnoresVersionHeader,
    ),
    case(
        "rest.query-parameters-camel-case",
        Fault::RestQuerySnakeCase,
    ),
    case(
        "rest.query-values-percent-decoded",
        Fault::RestQueryNotDecoded,
    ),
    case(
        "grpc.service-parameters-in-metadata",
        Fault::GrpcIgnoresVersionMetadata,
    ),
    case(
        "streaming.delivers-intermediate-updates",
        Fault::StreamOnlyFinal,
    ),
    case(
        "subscribe.closing-one-keeps-others",
        Fault::SubscribeCloseEndsOthers,
    ),
];

/// The optional (MAY) and SHOULD checks: their faults make them WARN.
pub const REGISTRY_MAY_CASES: &[Case] = &[
    case(
        "card.caching.last-modified",
        Fault::CardLastModifiedMalformed,
    ),
    case("jsonrpc.errors.extra-data-typed", Fault::ErrorDetailUntyped),
    case("rest.errors.extra-details-typed", Fault::ErrorDetailUntyped),
    case(
        "rest.errors.bad-request-field-violations",
        Fault::ErrorsWithoutBadRequest,
    ),
];

//! The negative cases of the `rest.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::Status;

use crate::cases::{case, expecting, Case};

pub const CASES: &[Case] = &[
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
    case("rest.errors.extra-details-typed", Fault::ErrorDetailUntyped),
    case(
        "rest.errors.bad-request-field-violations",
        Fault::ErrorsWithoutBadRequest,
    ),
    // A task without a contextId leaves no context to list by: not judged, never a FAIL of the
    // query rules (the missing contextId is send.context-id-generated-when-absent's FAIL).
    expecting(
        "rest.query-parameters-camel-case",
        Fault::OmitContextId,
        Status::Untestable,
    ),
    expecting(
        "rest.query-values-percent-decoded",
        Fault::OmitContextId,
        Status::Untestable,
    ),
];

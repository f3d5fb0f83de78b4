//! The negative cases of the `grpc.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;

use crate::cases::{case, Case};

pub const CASES: &[Case] = &[
    // The gRPC binding.
    case("grpc.errors.status-and-error-info", Fault::GrpcWrongStatus),
    case("grpc.errors.status-and-error-info", Fault::GrpcNoErrorInfo),
    case(
        "grpc.service-parameters-in-metadata",
        Fault::GrpcIgnoresVersionMetadata,
    ),
];

//! The negative cases of the `versioning.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::{Binding, Status};

use crate::cases::{alternative, case, on, Case};

pub const CASES: &[Case] = &[
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
    alternative(
        &[Binding::Grpc],
        "versioning.unsupported-version-rejected",
        Fault::Errors100Table,
        Status::Warn,
    ),
    on(
        &[Binding::Grpc],
        "versioning.unsupported-version-rejected",
        Fault::GrpcIgnoresVersionMetadata,
    ),
];

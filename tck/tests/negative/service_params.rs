//! The negative cases of the `service-params.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::Binding;

use crate::cases::{case, on, Case};

pub const CASES: &[Case] = &[
    on(
        &[Binding::Grpc],
        "service-params.extensions-read-from-binding",
        Fault::GrpcMetadataExtensionsIgnored,
    ),
    case(
        "service-params.extensions-comma-separated",
        Fault::ExtensionsFirstValueOnly,
    ),
];

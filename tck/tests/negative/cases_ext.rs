//! The negative cases of extensions, service parameters and transport security.

use a2a_reference_agent::Fault;
use a2a_tck::check::Binding;

use crate::cases::{case, on, Case};

pub const EXT_CASES: &[Case] = &[
    case(
        "extensions.required-not-activated-rejected",
        Fault::ExtensionRequiredNotEnforced,
    ),
    case(
        "extensions.required-version-not-downgraded",
        Fault::ExtensionVersionDowngrade,
    ),
    case(
        "extensions.unknown-extension-ignored",
        Fault::ExtensionUnknownRejected,
    ),
    case("extensions.activated-echoed", Fault::ExtensionNotEchoed),
    on(
        &[Binding::Grpc],
        "service-params.extensions-read-from-binding",
        Fault::GrpcMetadataExtensionsIgnored,
    ),
    case(
        "service-params.extensions-comma-separated",
        Fault::ExtensionsFirstValueOnly,
    ),
    on(
        &[Binding::Grpc],
        "versioning.unsupported-version-rejected",
        Fault::GrpcMetadataVersionIgnored,
    ),
];

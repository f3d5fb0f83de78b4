//! The negative cases of extensions, service parameters and transport security (the
//! harness starts the agent under TLS for the `tls.*` checks).

use a2a_reference_agent::Fault;
use a2a_tck::check::{Binding, Status};

use crate::cases::{case, expecting, on, Case};

pub const EXT_CASES: &[Case] = &[
    case(
        "extensions.required-not-activated-rejected",
        Fault::ExtensionRequiredNotEnforced,
    ),
    case(
        "extensions.required-version-not-downgraded",
        Fault::ExtensionVersionDowngrade,
    ),
    // An agent that enforces nothing shows no fall-back: untestable, not a second failure.
    expecting(
        "extensions.required-version-not-downgraded",
        Fault::ExtensionRequiredNotEnforced,
        Status::Untestable,
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
        Fault::GrpcIgnoresVersionMetadata,
    ),
    // Transport security: the harness serves the agent over TLS for the tls.* checks.
    case("tls.tls-1-3-offered", Fault::TlsNo13),
    case("tls.legacy-versions-refused", Fault::TlsLegacyAccepted),
    case("tls.hsts-on-http-bindings", Fault::TlsNoHsts),
    case("tls.interfaces-https", Fault::TlsHttpInterface),
];

//! The negative cases of authentication and the extended card. They run against the
//! reference agent in authenticated mode (two generated bearer tokens and a limited one, the
//! kit holding all three),
//! as the built-in run does; every other case runs against the open agent.

use a2a_reference_agent::Fault;

use a2a_tck::check::{Binding, ProtocolVersion, Status};

use crate::cases::{case, expecting, on, Case};

pub const AUTH_CASES: &[Case] = &[
    case("auth.missing-credentials-rejected", Fault::AuthNotEnforced),
    case(
        "auth.invalid-credentials-rejected",
        Fault::AuthWrongTokenAccepted,
    ),
    case("auth.rejection-form", Fault::AuthWrongStatus),
    case("auth.challenge", Fault::AuthNoChallenge),
    case("auth.principals-isolated", Fault::AuthPrincipalsShareTasks),
    case(
        "auth.foreign-task-indistinguishable",
        Fault::AuthPrincipalsShareTasks,
    ),
    case(
        "extended-card.requires-auth",
        Fault::ExtendedCardWithoutAuth,
    ),
    case(
        "extended-card.with-credentials",
        Fault::ExtendedCardNotACard,
    ),
    case(
        "extended-card.cache-headers",
        Fault::ExtendedCardNoCacheHeaders,
    ),
    // A MUST of 1.0 (FAIL), a SHOULD of 0.3 (WARN).
    Case {
        versions: &[ProtocolVersion::V1_0],
        ..case(
            "auth.in-task-auth-required-explained",
            Fault::AuthRequiredNoStatusMessage,
        )
    },
    Case {
        versions: &[ProtocolVersion::V0_3],
        ..expecting(
            "auth.in-task-auth-required-explained",
            Fault::AuthRequiredNoStatusMessage,
            Status::Warn,
        )
    },
    // 0.3 leaves REST and gRPC errors unspecified beyond their class: judged on 1.0.
    Case {
        versions: &[ProtocolVersion::V1_0],
        ..case(
            "extended-card.with-credentials",
            Fault::ExtendedCardNotConfiguredWrongError,
        )
    },
    case(
        "auth.limited-principal-refused",
        Fault::LimitedPrincipalAllowed,
    ),
    // 401 for a valid credential: a FAIL on REST and gRPC, a WARN on JSON-RPC (no fixed
    // HTTP status).
    on(
        &[Binding::Rest, Binding::Grpc],
        "auth.limited-principal-refused",
        Fault::LimitedPrincipal401,
    ),
    Case {
        bindings: &[Binding::Jsonrpc],
        ..expecting(
            "auth.limited-principal-refused",
            Fault::LimitedPrincipal401,
            Status::Warn,
        )
    },
    case(
        "extended-card.limited-principal-refused",
        Fault::LimitedPrincipalAllowed,
    ),
    case(
        "extended-card.limited-principal-refused",
        Fault::LimitedExtendedCardServed,
    ),
    case("auth.card-oauth-urls", Fault::AuthCardOauthUrlNotUrl),
    // Defensible alternatives the kit must accept.
    expecting(
        "auth.card-oauth-urls",
        Fault::AuthCardOauthScheme,
        Status::Pass,
    ),
    expecting(
        "auth.missing-credentials-rejected",
        Fault::AuthCardOauthScheme,
        Status::Pass,
    ),
    expecting(
        "extended-card.with-credentials",
        Fault::ExtendedCardNotConfigured,
        Status::Pass,
    ),
    expecting(
        "extended-card.cache-headers",
        Fault::ExtendedCardNotConfigured,
        Status::NotApplicable,
    ),
    expecting(
        "auth.rejection-form",
        Fault::AuthRefusesForbidden,
        Status::Pass,
    ),
    expecting("auth.challenge", Fault::AuthRefusesForbidden, Status::Pass),
    expecting(
        "auth.missing-credentials-rejected",
        Fault::AuthRefusesForbidden,
        Status::Pass,
    ),
    Case {
        bindings: &[Binding::Jsonrpc],
        ..expecting(
            "auth.rejection-form",
            Fault::AuthJsonRpcErrorIn200,
            Status::Pass,
        )
    },
    expecting(
        "extended-card.requires-auth",
        Fault::AuthJsonRpcErrorIn200,
        Status::Pass,
    ),
    Case {
        bindings: &[Binding::Jsonrpc],
        ..expecting(
            "auth.limited-principal-refused",
            Fault::AuthJsonRpcErrorIn200,
            Status::Pass,
        )
    },
    // A card tailored to the limited principal (nothing beyond the public card) is allowed;
    // its other requests are still refused.
    expecting(
        "extended-card.limited-principal-refused",
        Fault::LimitedExtendedCardTailored,
        Status::Pass,
    ),
    expecting(
        "auth.limited-principal-refused",
        Fault::LimitedExtendedCardTailored,
        Status::Pass,
    ),
    // Given the full card, the limited principal is still refused everything else.
    expecting(
        "auth.limited-principal-refused",
        Fault::LimitedExtendedCardServed,
        Status::Pass,
    ),
];

//! The negative cases of the `auth.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::{Binding, ProtocolVersion, Status};

use crate::cases::{case, expecting, on, Case};

pub const CASES: &[Case] = &[
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
    Case {
        bindings: &[Binding::Jsonrpc],
        ..expecting(
            "auth.limited-principal-refused",
            Fault::AuthJsonRpcErrorIn200,
            Status::Pass,
        )
    },
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
    case("auth.card-oauth-urls", Fault::OauthAuthCodePlainHttp),
];

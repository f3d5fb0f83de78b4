//! The negative cases of the `extended-card.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::{ProtocolVersion, Status};

use crate::cases::{case, expecting, Case};

pub const CASES: &[Case] = &[
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
    // 0.3 leaves REST and gRPC errors unspecified beyond their class: judged on 1.0.
    Case {
        versions: &[ProtocolVersion::V1_0],
        ..case(
            "extended-card.with-credentials",
            Fault::ExtendedCardNotConfiguredWrongError,
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
        "extended-card.requires-auth",
        Fault::AuthJsonRpcErrorIn200,
        Status::Pass,
    ),
    // A card tailored to the limited principal (nothing beyond the public card) is allowed;
    // its other requests are still refused.
    expecting(
        "extended-card.limited-principal-refused",
        Fault::LimitedExtendedCardTailored,
        Status::Pass,
    ),
    case(
        "extended-card.refusal-challenge",
        Fault::V03ExtendedCardNoChallenge,
    ),
    // A 403 is a refusal for lack of permission: §7.10 asks the header of the 401 only.
    expecting(
        "extended-card.refusal-challenge",
        Fault::AuthRefusesForbidden,
        Status::Pass,
    ),
];

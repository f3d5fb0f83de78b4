//! The negative cases of the checks that cover the last planned entries of the 0.3 registry:
//! the extended card's challenge, the TLS of OAuth authorization-code URLs, resubscribing to
//! a finished task, and extensions on 0.3 interfaces.

use a2a_reference_agent::Fault;

use a2a_tck::check::Status;

use crate::cases::{case, expecting, Case};

pub const PLANNED03_CASES: &[Case] = &[
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
    case("auth.card-oauth-urls", Fault::OauthAuthCodePlainHttp),
    case(
        "v03.stream.resubscribe-finished-task",
        Fault::V03ResubscribeFinishedWrongTask,
    ),
    // Defensible alternatives the check must accept.
    expecting(
        "v03.stream.resubscribe-finished-task",
        Fault::V03ResubscribeFinishedRefused,
        Status::Pass,
    ),
    expecting(
        "v03.stream.resubscribe-finished-task",
        Fault::V03ResubscribeFinishedEmpty,
        Status::Pass,
    ),
    case(
        "extensions.v03-activated-by-header",
        Fault::V03ExtensionsHeaderIgnored,
    ),
    case(
        "extensions.v03-required-not-activated-refused",
        Fault::ExtensionRequiredNotEnforced,
    ),
    case(
        "extensions.v03-version-not-downgraded",
        Fault::ExtensionVersionDowngrade,
    ),
    case(
        "extensions.v03-unsupported-activation-ignored",
        Fault::ExtensionUnknownRejected,
    ),
    case(
        "extensions.v03-unsupported-activation-ignored",
        Fault::ExtensionsFirstValueOnly,
    ),
    case(
        "extensions.v03-activated-echoed",
        Fault::V03ExtensionNotEchoed,
    ),
    case("extensions.v03-activated-echoed", Fault::ExtensionNotEchoed),
];

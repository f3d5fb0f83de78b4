//! The negative cases of the `extensions.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::Status;

use crate::cases::{case, expecting, Case};

pub const CASES: &[Case] = &[
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

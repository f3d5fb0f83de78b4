//! The negative cases of the `card.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::Status;

use crate::cases::{case, Case};

pub const CASES: &[Case] = &[
    Case {
        check: "card.discovery.served-at-well-known-path",
        fault: Fault::CardWellKnownServesHtml,
        card_path: Some("/.well-known/agent.json"),
        expect: None,
        bindings: &[],
        versions: &[],
    },
    // A card published only by direct configuration: nothing at the well-known URI is N/A.
    Case {
        check: "card.discovery.served-at-well-known-path",
        fault: Fault::CardOnlyAtLegacyPath,
        card_path: Some("/.well-known/agent.json"),
        expect: Some(Status::NotApplicable),
        bindings: &[],
        versions: &[],
    },
    case(
        "card.fields.required-present",
        Fault::CardMissingRequiredField,
    ),
    case(
        "card.interfaces.declare-binding-url-version",
        Fault::CardBadInterface,
    ),
    case(
        "card.interfaces.version-is-major-minor",
        Fault::CardPatchVersion,
    ),
    case(
        "card.interfaces.version-is-known",
        Fault::CardInterfaceUnknownVersion,
    ),
    case("card.media-type-json", Fault::CardServedAsHtml),
    case(
        "card.caching.cache-control-max-age",
        Fault::CardNoCacheHeaders,
    ),
    case("card.caching.etag", Fault::CardNoCacheHeaders),
    case(
        "card.caching.last-modified",
        Fault::CardLastModifiedMalformed,
    ),
];

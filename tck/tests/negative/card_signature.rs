//! The negative cases of the `card.signature.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;

use crate::cases::{case, Case};

pub const CASES: &[Case] = &[
    case("card.signature.verifies", Fault::CardSignatureBad),
    case(
        "card.signature.header-alg-typ-kid",
        Fault::CardSignatureNoKid,
    ),
    case("card.signature.typ-jose", Fault::CardSignatureTypJwt),
    case(
        "card.signature.jku-holds-key",
        Fault::CardSignatureUnknownKey,
    ),
    case("card.signature.jku-over-https", Fault::JkuPlainHttp),
];

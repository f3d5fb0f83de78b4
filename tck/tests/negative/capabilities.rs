//! The negative cases of the `capabilities.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;

use crate::cases::{case, Case};

pub const CASES: &[Case] = &[
    // The card denies streaming while the agent streams anyway.
    case(
        "capabilities.streaming-absent-rejects-streaming",
        Fault::StreamingUndeclared,
    ),
    case(
        "capabilities.push-absent-rejects-push-config",
        Fault::PushUnsupportedWrongError,
    ),
    case(
        "capabilities.extended-card-absent-rejected",
        Fault::ExtendedCardUnsupportedWrongError,
    ),
    // Streaming off, refused with method-not-found instead of UnsupportedOperationError.
    case(
        "capabilities.streaming-absent-rejects-streaming",
        Fault::StreamingUnsupportedWrongError,
    ),
];

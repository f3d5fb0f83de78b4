//! The negative cases of the `context.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;

use crate::cases::{case, Case};

pub const CASES: &[Case] = &[
    case(
        "context.task-id-only-infers-context-id",
        Fault::FollowUpNewContextId,
    ),
    case(
        "context.task-id-only-infers-context-id",
        Fault::FollowUpStoredWithFreshContext,
    ),
    case(
        "context.mismatched-context-id-rejected",
        Fault::AcceptMismatchedContextId,
    ),
    case(
        "context.mismatched-context-id-rejected",
        Fault::MismatchedContextInternalError,
    ),
];

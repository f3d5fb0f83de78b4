//! The negative cases of the `bindings.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;

use crate::cases::{case, Case};

pub const CASES: &[Case] = &[
    // Every binding serves the same tasks.
    case(
        "bindings.task-readable-on-every-binding",
        Fault::CrossBindingIsolated,
    ),
];

//! The negative cases of the `tasks.get.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::Binding;

use crate::cases::{case, on_v, Case, V1_0};

pub const CASES: &[Case] = &[
    case("tasks.get.returns-current-task", Fault::GetStaleState),
    case(
        "tasks.get.unknown-id-returns-task-not-found",
        Fault::GetUnknownReturnsNull,
    ),
    case(
        "tasks.get.history-length-zero-omits-history",
        Fault::IgnoreHistoryLength,
    ),
    case(
        "tasks.get.history-length-caps-messages",
        Fault::IgnoreHistoryLength,
    ),
    case(
        "tasks.get.history-length-caps-messages",
        Fault::HistoryOldestFirst,
    ),
    on_v(
        &[Binding::Rest],
        V1_0,
        "tasks.get.unknown-id-returns-task-not-found",
        Fault::RestWrongStatus,
    ),
    on_v(
        &[Binding::Rest],
        V1_0,
        "tasks.get.unknown-id-returns-task-not-found",
        Fault::RestError200,
    ),
    on_v(
        &[Binding::Grpc],
        V1_0,
        "tasks.get.unknown-id-returns-task-not-found",
        Fault::GrpcWrongStatus,
    ),
];

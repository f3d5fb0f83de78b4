//! The negative cases of the `tasks.list.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::Status;

use crate::cases::{case, expecting, on, Case, JSON};

pub const CASES: &[Case] = &[
    case(
        "tasks.list.next-page-token-always-present",
        Fault::ListOmitsNextPageToken,
    ),
    case(
        "tasks.list.artifacts-omitted-by-default",
        Fault::ListIncludesArtifacts,
    ),
    case(
        "tasks.list.sorted-by-update-time-desc",
        Fault::ListAscending,
    ),
    case(
        "tasks.list.filters-by-context-id",
        Fault::ListIgnoresContextFilter,
    ),
    case(
        "tasks.list.page-size-and-cursor",
        Fault::ListIgnoresPageSize,
    ),
    on(
        JSON,
        "tasks.list.response-required-fields",
        Fault::ListOmitsTotalSize,
    ),
    case(
        "tasks.list.status-timestamp-after-filter",
        Fault::ListIgnoresTimestampFilter,
    ),
    case(
        "tasks.list.filters-by-status",
        Fault::ListIgnoresStatusFilter,
    ),
    case("tasks.list.page-size-bounds", Fault::ListIgnoresPageSizeMax),
    case(
        "tasks.list.page-size-bounds",
        Fault::ListDefaultPageSizeUnbounded,
    ),
    // ListTasks refused outright: no keyworded sentence obliges a 1.0 agent to offer it, so
    // a check of its answers that stopped at the refusal judged nothing (the refusal is the
    // one cause the report names).
    expecting(
        "tasks.list.response-required-fields",
        Fault::ListRefused,
        Status::Untestable,
    ),
];

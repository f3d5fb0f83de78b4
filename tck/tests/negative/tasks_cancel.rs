//! The negative cases of the `tasks.cancel.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::{Binding, Status};

use crate::cases::{alternative, case, expecting, in_version, Case, V1_0};

pub const CASES: &[Case] = &[
    case(
        "tasks.cancel.open-task-becomes-canceled",
        Fault::CancelReturnsPreviousState,
    ),
    case(
        "tasks.cancel.canceled-task-stays-canceled",
        Fault::CancelNotPersisted,
    ),
    case(
        "tasks.cancel.terminal-task-not-cancelable",
        Fault::CancelCompletedTaskSucceeds,
    ),
    // A second cancel of a canceled task: the task still canceled (idempotent, §3.3.1) and
    // TaskNotFoundError (purged) are conformant alternatives.
    expecting(
        "tasks.cancel.terminal-task-not-cancelable",
        Fault::CancelCanceledReturnsTask,
        Status::Pass,
    ),
    expecting(
        "tasks.cancel.terminal-task-not-cancelable",
        Fault::CancelCanceledNotFound,
        Status::Pass,
    ),
    in_version(
        V1_0,
        "tasks.cancel.unknown-id-returns-task-not-found",
        Fault::CancelUnknownReturnsNotCancelable,
    ),
    // Cancellation is not guaranteed (§3.1.5): declining it makes the check UNTESTABLE.
    Case {
        check: "tasks.cancel.open-task-becomes-canceled",
        fault: Fault::CancelOpenTaskNotCancelable,
        card_path: None,
        expect: Some(Status::Untestable),
        bindings: &[],
        versions: &[],
    },
    expecting(
        "tasks.cancel.terminal-task-not-cancelable",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    // The superseded 1.0.0 error table (HTTP 409/415/502, gRPC UNIMPLEMENTED): tolerated,
    // naming the 1.0.1 entry, never failed (spec §3.6, §5.4).
    alternative(
        &[Binding::Rest],
        "tasks.cancel.terminal-task-not-cancelable",
        Fault::Errors100Table,
        Status::Warn,
    ),
];

//! The negative cases of the `lifecycle.*` checks, the whole-run invariants judged on the
//! run's history of every task: each names a check and a fault of the reference agent under
//! which it must WARN (they are SHOULDs).

use a2a_reference_agent::Fault;

use crate::cases::{case, Case};

pub const CASES: &[Case] = &[
    case(
        "lifecycle.terminal-state-is-final",
        Fault::CancelThenCompletes,
    ),
    case(
        "lifecycle.terminal-state-is-final",
        Fault::TerminalTaskRestarts,
    ),
    case(
        "lifecycle.terminal-state-is-final",
        Fault::CancelCompletedTaskSucceeds,
    ),
    case("lifecycle.cancel-takes-effect", Fault::CancelIgnored),
    case(
        "lifecycle.reads-keep-what-they-showed",
        Fault::GetHistoryLengthTrimsStore,
    ),
    case(
        "lifecycle.history-holds-each-message-once",
        Fault::FirstMessageStoredTwice,
    ),
];

//! The negative cases of the `durability.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;

use crate::cases::{case, Case};

pub const CASES: &[Case] = &[
    case("durability.task-survives-restart", Fault::DurableLosesTasks),
    case(
        "durability.list-tasks-after-restart",
        Fault::DurableLosesTasks,
    ),
    case(
        "durability.history-survives-restart",
        Fault::DurableForgetsHistory,
    ),
    case(
        "durability.artifacts-survive-restart",
        Fault::DurableForgetsArtifacts,
    ),
    case(
        "durability.context-continues-after-restart",
        Fault::DurableForgetsContexts,
    ),
    case(
        "durability.push-config-survives-restart",
        Fault::DurableForgetsPushConfigs,
    ),
    case(
        "durability.input-required-resumes-after-restart",
        Fault::DurableFailsOpenTasks,
    ),
    case(
        "durability.input-required-resumes-after-restart",
        Fault::DurableLosesTasks,
    ),
];

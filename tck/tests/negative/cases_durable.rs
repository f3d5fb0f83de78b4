//! The negative cases of the durability area: each `durability.*` check WARNs (they are all
//! SHOULD) when the built-in agent's SQLite store drops one kind of data across the restart.
//! The harness runs these cases with the in-process restart (`support::run_durable`).

use a2a_reference_agent::Fault;

use crate::cases::{case, Case};

pub const DURABLE_CASES: &[Case] = &[
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

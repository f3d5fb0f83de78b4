//! The negative cases of the `subscribe.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::{Binding, Status};

use crate::cases::{alternative, case, expecting, Case};

pub const CASES: &[Case] = &[
    case(
        "subscribe.first-event-is-current-task",
        Fault::SubscribeFirstEventNotTask,
    ),
    case(
        "subscribe.receives-later-updates",
        Fault::SubscribeNoUpdates,
    ),
    case(
        "subscribe.closes-at-terminal-state",
        Fault::SubscribeOpenAfterTerminal,
    ),
    case(
        "subscribe.terminal-task-unsupported",
        Fault::SubscribeTerminalAllowed,
    ),
    case(
        "subscribe.unknown-task-not-found",
        Fault::SubscribeUnknownWrongError,
    ),
    case(
        "subscribe.subscribers-see-same-events",
        Fault::SubscribeFirstOnly,
    ),
    // An agent that honours only the official prefixes (no `tck-long-running`): the
    // subscription checks fall back to an input-required task and still judge.
    expecting(
        "subscribe.first-event-is-current-task",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    expecting(
        "subscribe.receives-later-updates",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    expecting(
        "subscribe.closes-at-terminal-state",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    expecting(
        "subscribe.subscribers-see-same-events",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    // An agent that plays only the ACTS contract (the prefix in the first text part,
    // plain-text follow-ups): the kit drives it, so the checks that need held, interrupted
    // and failed tasks judge it as they judge the full agent.
    expecting(
        "subscribe.receives-later-updates",
        Fault::ActsContractOnly,
        Status::Pass,
    ),
    expecting(
        "subscribe.closes-at-terminal-state",
        Fault::ActsContractOnly,
        Status::Pass,
    ),
    // An agent that plays no contract and waits for an approval the kit cannot give without
    // a drive file: what needs the interrupted task is UNTESTABLE, never FAIL.
    expecting(
        "subscribe.receives-later-updates",
        Fault::PlaysNoContract,
        Status::Untestable,
    ),
    alternative(
        &[Binding::Grpc],
        "subscribe.terminal-task-unsupported",
        Fault::Errors100Table,
        Status::Warn,
    ),
    // A gRPC stream refused with headers and then the status of an empty stream (as grpc-js
    // does) is the same refusal as a trailers-only status.
    alternative(
        &[Binding::Grpc],
        "subscribe.terminal-task-unsupported",
        Fault::GrpcStreamErrorInStream,
        Status::Pass,
    ),
    alternative(
        &[Binding::Grpc],
        "subscribe.unknown-task-not-found",
        Fault::GrpcStreamErrorInStream,
        Status::Pass,
    ),
    alternative(
        &[Binding::Grpc],
        "subscribe.first-event-is-current-task",
        Fault::GrpcStreamErrorInStream,
        Status::Pass,
    ),
    case(
        "subscribe.closing-one-keeps-others",
        Fault::SubscribeCloseEndsOthers,
    ),
];

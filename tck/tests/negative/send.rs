//! The negative cases of the `send.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::{Binding, ProtocolVersion, Status};

use crate::cases::{case, expecting, in_version, on, Case, V1_0};

pub const CASES: &[Case] = &[
    case(
        "send.blocking-waits-for-terminal-or-interrupted",
        Fault::FailedWorkStaysWorking,
    ),
    in_version(
        V1_0,
        "send.returns-task-or-message",
        Fault::SendResultUnwrapped,
    ),
    case(
        "send.blocking-waits-for-terminal-or-interrupted",
        Fault::BlockingReturnsWorking,
    ),
    case(
        "send.blocking-returns-artifacts",
        Fault::BlockingOmitsArtifacts,
    ),
    case("send.task-ids-server-generated-unique", Fault::ReuseTaskId),
    case(
        "send.context-id-generated-when-absent",
        Fault::MessageOmitsContextId,
    ),
    case("send.task-carries-context-id", Fault::OmitContextId),
    case(
        "send.client-context-id-kept-or-rejected",
        Fault::ReplaceContextId,
    ),
    case(
        "send.unknown-task-id-returns-task-not-found",
        Fault::UnknownTaskIdCreatesTask,
    ),
    case(
        "send.terminal-task-rejects-message",
        Fault::TerminalTaskAcceptsMessage,
    ),
    case(
        "send.follow-up-continues-interrupted-task",
        Fault::FollowUpStartsNewTask,
    ),
    case(
        "send.auth-required-follow-up-continues-task",
        Fault::FollowUpStartsNewTask,
    ),
    case(
        "send.history-length-caps-messages",
        Fault::IgnoreHistoryLength,
    ),
    case(
        "send.unsupported-media-type-rejected",
        Fault::AcceptUnsupportedMediaType,
    ),
    // Processing a message that misses a REQUIRED field is tolerated (§5.7 SHOULD against
    // §3.3.2 MUST): WARN on this MUST check. Its FAIL (an error other than InvalidParams) is
    // shown in tests/real_answers.rs.
    expecting(
        "send.invalid-message-rejected",
        Fault::AcceptInvalidMessage,
        Status::Warn,
    ),
    case("send.unknown-fields-ignored", Fault::RejectUnknownFields),
    in_version(
        &[ProtocolVersion::V0_3],
        "send.follow-up-with-data-part-continues-task",
        Fault::V03DataPartRefused,
    ),
    case(
        "send.message-id-kept-in-history",
        Fault::HistoryReplacesMessageId,
    ),
    expecting(
        "send.terminal-task-rejects-message",
        Fault::OfficialContractOnly,
        Status::Pass,
    ),
    expecting(
        "send.follow-up-continues-interrupted-task",
        Fault::ActsContractOnly,
        Status::Pass,
    ),
    expecting(
        "send.follow-up-continues-interrupted-task",
        Fault::PlaysNoContract,
        Status::Untestable,
    ),
    // An agent that takes JSON only and plays no contract: the kit's own text would be
    // refused; the data part its card's input modes call for is answered, and judged.
    expecting(
        "send.returns-task-or-message",
        Fault::AcceptsOnlyData,
        Status::Pass,
    ),
    // The fault bends the HTTP+JSON binding only (the contract probe, on JSON-RPC, still sees
    // `tck-long-running` held WORKING).
    on(
        &[Binding::Rest],
        "send.non-blocking-returns-open-task",
        Fault::NonBlockingWaitsForCompletion,
    ),
    case(
        "send.accepted-output-modes-honoured",
        Fault::IgnoresAcceptedOutputModes,
    ),
];

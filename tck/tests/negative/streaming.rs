//! The negative cases of the `streaming.*` checks: each names a check and a fault of the
//! reference agent under which it must FAIL (MUST) or WARN (SHOULD, MAY), unless it says otherwise.

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::Status;

use crate::cases::{case, expecting, in_version, Case, V0_3};

pub const CASES: &[Case] = &[
    // Streams.
    case(
        "streaming.task-stream-starts-with-task",
        Fault::StreamFirstEventStatusUpdate,
    ),
    case(
        "streaming.follow-up-stream-starts-with-task",
        Fault::StreamFollowUpStartsWithStatus,
    ),
    case(
        "streaming.message-stream-is-one-message",
        Fault::StreamMessageThenMore,
    ),
    case("streaming.states-in-order", Fault::StreamStatusOutOfOrder),
    case(
        "streaming.closes-after-terminal-state",
        Fault::StreamOpenAfterTerminal,
    ),
    case(
        "streaming.artifact-chunks-append-in-order",
        Fault::StreamChunkNoLastChunk,
    ),
    case(
        "streaming.artifact-chunks-append-in-order",
        Fault::StreamChunkAppendWrong,
    ),
    // A chunked artifact sent whole again with append false: a replacement, read as the flags
    // say.
    expecting(
        "streaming.artifact-chunks-append-in-order",
        Fault::StreamChunkReplacedAtEnd,
        Status::Pass,
    ),
    case(
        "streaming.final-state-matches-get-task",
        Fault::StreamStateNotStored,
    ),
    case(
        "streaming.failed-task-ends-stream-failed",
        Fault::StreamFailedStatusDropped,
    ),
    expecting(
        "streaming.failed-task-ends-stream-failed",
        Fault::ActsContractOnly,
        Status::Pass,
    ),
    case("streaming.sse-content-type", Fault::SseWrongContentType),
    case(
        "streaming.delivers-intermediate-updates",
        Fault::StreamOnlyFinal,
    ),
    case(
        "streaming.nothing-after-stream-end",
        Fault::StreamChunkAfterTerminal,
    ),
    in_version(
        V0_3,
        "streaming.nothing-after-stream-end",
        Fault::StreamChunkAfterTerminal,
    ),
];

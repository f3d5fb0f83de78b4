//! The negative cases of the checks that closed the last planned 1.0 entries: non-blocking
//! SendMessage, accepted output modes, the scheme of a signature's `jku` (the harness serves
//! the agent over TLS for it), UTF-8 JSON text and the ListTasks page-size bounds.

use a2a_reference_agent::Fault;
use a2a_tck::check::Binding;

use crate::cases::{case, on, Case};

pub const PLANNED10_CASES: &[Case] = &[
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
    case("card.signature.jku-over-https", Fault::JkuPlainHttp),
    case("data-model.json-utf-8", Fault::JsonLatin1Charset),
    case("tasks.list.page-size-bounds", Fault::ListIgnoresPageSizeMax),
    case(
        "tasks.list.page-size-bounds",
        Fault::ListDefaultPageSizeUnbounded,
    ),
];

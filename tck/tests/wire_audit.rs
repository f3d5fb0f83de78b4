//! The wire-shape audit and the checks that send invalid input on purpose.

use crate::support;

use a2a_reference_agent::Fault;
use a2a_tck::suite::check::Status;

/// An agent that processes a message missing a REQUIRED field (tolerated: §5.7 SHOULD against
/// §3.3.2 MUST) echoes that message in the task's history. The echo is judged by
/// `send.invalid-message-rejected` alone (a WARN), never as a wire-shape failure.
#[tokio::test(flavor = "multi_thread")]
async fn the_echo_of_a_deliberately_invalid_message_is_not_a_wire_shape_failure() {
    let mut config = a2a_tck::run::builtin::profile();
    config.faults.insert(Fault::AcceptInvalidMessage);
    let agent = a2a_tck::run::builtin::start_with(config)
        .await
        .expect("the agent starts");
    let report = support::run_as(
        &agent.base_url(),
        &agent.card_url(),
        "{send.invalid-message-rejected,data-model.wire-shape-1-0}",
        None,
        None,
    )
    .await;
    agent.shutdown().await;
    let invalid = support::results_of(&report, "send.invalid-message-rejected");
    assert!(
        support::all_have(&invalid, Status::Warn),
        "{}",
        support::explain(&invalid)
    );
    let shape = support::results_of(&report, "data-model.wire-shape-1-0");
    assert!(
        support::all_have(&shape, Status::Pass),
        "{}",
        support::explain(&shape)
    );
}

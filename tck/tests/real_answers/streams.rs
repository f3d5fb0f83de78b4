//! Streams of agents that play no test contract.

use a2a_reference_agent::Fault;
use a2a_tck::run::runner::{self, Filter, RunOptions};
use a2a_tck::suite::check::{Binding, ProtocolVersion, Status};
use a2a_tck::suite::contract::Contract;

/// A JavaScript agent framework's own A2A server (measured) writes a record separator (0x1E)
/// before each SSE event's JSON-RPC response, and plays no test contract. The envelope check
/// streamed only `tck-stream-001`, a scenario `--contract none` does not give, so it was not
/// run and the events that are no JSON text were judged by no check: any stream shows the
/// envelope, so it streams the plain message instead.
#[tokio::test]
async fn stream_events_that_are_no_json_fail_an_agent_that_plays_no_contract() {
    let agent = a2a_tck::run::builtin::start(&[Fault::V03SseRecordSeparator])
        .await
        .expect("agent starts");
    let mut options = RunOptions::new(&agent.base_url(), &agent.card_url());
    options.contract = Some(Contract::None);
    options.filter = Filter {
        select: vec!["jsonrpc.stream.events-are-responses".into()],
        ..Filter::default()
    };
    let report = runner::run(&a2a_tck::suite::checks::all(), &options)
        .await
        .expect("run");
    agent.shutdown().await;
    let statuses: Vec<(Binding, Option<ProtocolVersion>, Status)> = (report.results.iter())
        .map(|r| (r.binding.expect("a binding"), r.version, r.status))
        .collect();
    assert!(
        report
            .not_run
            .iter()
            .all(|n| n.id != "jsonrpc.stream.events-are-responses"),
        "{:?}",
        report.not_run
    );
    assert_eq!(
        statuses,
        vec![
            (Binding::Jsonrpc, Some(ProtocolVersion::V1_0), Status::Pass),
            (Binding::Jsonrpc, Some(ProtocolVersion::V0_3), Status::Fail),
        ],
        "{:#?}",
        report.results
    );
}

//! Bounded cost against any target: a stream that floods (SSE events as fast as the socket
//! takes them, endless) must end within its deadlines with capped evidence that says what it
//! dropped, and a summary of bounded size; a target that accepts calls and never answers must
//! cost about one request deadline (the probe's), its checks ERROR at once with its reason.

use crate::hostile;
use crate::support;

use std::time::{Duration, Instant};

use a2a_tck::exchange::evidence::{
    EVIDENCE_EVENT_LIMIT, EVIDENCE_REPORT_BYTES, EVIDENCE_RESULT_BYTES, EVIDENCE_STREAM_BYTES,
};
use a2a_tck::reporting::output::{summary, SUMMARY_LIMIT};
use a2a_tck::run::runner::{self, RunOptions};
use a2a_tck::suite::check::Status;
use hostile::*;

#[tokio::test]
async fn a_flooding_stream_ends_with_capped_evidence_saying_what_it_dropped() {
    let server = hostile(
        Wire::Jsonrpc,
        vec![
            raw(SSE_CHUNKED),
            Step::Flood(status_event("TASK_STATE_WORKING")),
        ],
    )
    .await;
    let started = Instant::now();
    let mut report = tokio::time::timeout(
        RUN_LIMIT,
        support::run(&server.card_url, &server.card_url, "streaming.*"),
    )
    .await
    .expect("a flood ends within its deadlines");
    report.cap_evidence();
    let took = started.elapsed();
    eprintln!("flood: {} results in {took:?}", report.results.len());
    let streams: Vec<_> = report
        .results
        .iter()
        .flat_map(|r| &r.evidence)
        .filter(|e| e.events.len() + e.dropped.map_or(0, |d| d.events as usize) > 0)
        .collect();
    assert!(!streams.is_empty(), "the flood was read");
    for exchange in &streams {
        assert!(exchange.events.len() <= EVIDENCE_EVENT_LIMIT);
        let kept: usize = exchange.events.iter().map(|e| e.data.kept_bytes()).sum();
        assert!(kept <= EVIDENCE_STREAM_BYTES, "{kept} bytes of events kept");
    }
    assert!(
        streams
            .iter()
            .any(|e| e.dropped.is_some_and(|d| d.events > 0 && d.bytes > 0)),
        "the evidence says what it dropped"
    );
    for result in &report.results {
        let kept: usize = result.evidence.iter().map(|e| e.kept_bytes()).sum();
        assert!(kept <= EVIDENCE_RESULT_BYTES, "{}: {kept} bytes", result.id);
    }
    assert_ne!(
        report.verdict,
        a2a_tck::reporting::report::Verdict::Conformant
    );
    let json = report.to_json();
    assert!(
        json.len() < 2 * EVIDENCE_REPORT_BYTES,
        "report of {} bytes",
        json.len()
    );
    let text = summary(&report);
    assert!(
        text.len() < SUMMARY_LIMIT + 4096,
        "summary of {} bytes",
        text.len()
    );
}

#[tokio::test]
async fn a_target_that_never_answers_costs_one_deadline() {
    let server = never_answering().await;
    let timeout = Duration::from_secs(1);
    let mut options = RunOptions::new(&server.card_url, &server.card_url);
    options.limits.request_timeout = timeout;
    let started = Instant::now();
    let report = tokio::time::timeout(
        RUN_LIMIT,
        runner::run(&a2a_tck::suite::checks::all(), &options),
    )
    .await
    .expect("the run ends")
    .expect("the run starts");
    let took = started.elapsed();
    eprintln!(
        "never answering: {} results in {took:?}",
        report.results.len()
    );
    // One deadline for the probe; generous for a loaded machine, far below one per attempt
    // or per check.
    assert!(took < 3 * timeout, "took {took:?}");
    let interface = report
        .interfaces
        .iter()
        .find(|i| i.tested)
        .expect("the interface");
    let problem = interface
        .problem
        .as_deref()
        .expect("the interface is unusable");
    assert!(problem.contains("did not answer"), "{problem}");
    let on_interface: Vec<_> = report
        .results
        .iter()
        .filter(|r| r.binding.is_some() && r.status == Status::Error)
        .collect();
    assert!(!on_interface.is_empty());
    assert!(on_interface.iter().all(|r| r.message.contains(problem)));
}

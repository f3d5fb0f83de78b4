//! Exploration (`a2a-tck explore`) against the reference agent: clean, it breaks no invariant;
//! under each lifecycle fault, the default budget finds the invariant it breaks and shrinks the
//! sequence to a few operations; a seed means the same sequences; a case replays.

use crate::support;

use a2a_reference_agent::Fault;
use a2a_tck::run::explore::{self, Case, CaseFile, Exploration, ExploreOptions, Op};
use a2a_tck::run::runner::RunOptions;
use support::{stderr, stdout, temp_path};

/// The seed of these tests.
const SEED: u64 = 1;

/// Explores (or, with `cases`, replays) the built-in profile of the reference agent under
/// `faults` with the default options and `SEED`, `adjust`ed.
async fn explore_agent(
    faults: &[Fault],
    cases: Option<&[Case]>,
    adjust: impl FnOnce(&mut ExploreOptions),
) -> Exploration {
    let agent = a2a_tck::run::builtin::start_with(a2a_tck::run::builtin::full_profile(faults))
        .await
        .expect("the reference agent starts");
    let run = RunOptions::new(&agent.base_url(), &agent.card_url());
    let mut options = ExploreOptions::new(run, SEED);
    adjust(&mut options);
    let explored = match cases {
        Some(cases) => explore::replay(&options, cases).await,
        None => explore::explore(&options).await,
    };
    agent.shutdown().await;
    explored.expect("the exploration runs")
}

#[tokio::test(flavor = "multi_thread")]
async fn the_clean_agent_breaks_no_invariant() {
    let explored = explore_agent(&[], None, |_| {}).await;
    assert!(!explored.broke(), "{}", explore::summary(&explored));
    assert_eq!(
        explored.sequences.len(),
        20,
        "{}",
        explore::summary(&explored)
    );
    assert_eq!(explored.stopped, None);
    assert_eq!(explored.failed_exchanges, 0, "{:?}", explored.failures);
    // Every binding and version of the card was explored, with the whole budget of steps.
    assert_eq!(explored.interfaces.len(), 6, "{:?}", explored.interfaces);
    assert!(explored.requests >= 20 * 12, "{}", explored.requests);
}

/// Each lifecycle fault is found within the default budget, as the invariant of the check
/// that judges it in a run, and shrunk to a fixed point of a few operations.
async fn found_and_shrunk(fault: Fault, invariant: &str, at_most: usize) -> Case {
    let explored = explore_agent(&[fault], None, |_| {}).await;
    let summary = explore::summary(&explored);
    assert_eq!(explored.violations.len(), 1, "{summary}");
    let case = explored.violations[0].clone();
    assert_eq!(case.invariant, invariant, "{summary}");
    assert!(case.shrunk, "{summary}");
    assert!(
        case.ops.len() <= at_most && case.ops.len() < case.original_length,
        "{summary}"
    );
    assert!(matches!(case.ops[0], Op::Send { task: 0, .. }), "{summary}");
    assert!(explored.requests <= 400, "{summary}");
    // The summary prints the case, the shrunk operations one per line.
    assert!(
        summary.contains(&format!("violation 1: {invariant} (seed {SEED}")),
        "{summary}"
    );
    for op in &case.ops {
        assert!(summary.contains(&op.to_string()), "{summary}");
    }
    case
}

#[tokio::test(flavor = "multi_thread")]
async fn a_cancel_answered_canceled_that_completes_is_found() {
    let case = found_and_shrunk(
        Fault::CancelThenCompletes,
        "lifecycle.terminal-state-is-final",
        3,
    )
    .await;
    assert!(
        case.ops.iter().any(|op| matches!(op, Op::Cancel { .. })),
        "{case:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn an_ignored_cancel_is_found() {
    let case = found_and_shrunk(Fault::CancelIgnored, "lifecycle.cancel-takes-effect", 3).await;
    assert!(
        case.ops.iter().any(|op| matches!(op, Op::Cancel { .. })),
        "{case:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_read_that_trims_the_store_is_found() {
    let case = found_and_shrunk(
        Fault::GetHistoryLengthTrimsStore,
        "lifecycle.reads-keep-what-they-showed",
        4,
    )
    .await;
    assert!(
        (case.ops.iter()).any(|op| matches!(
            op,
            Op::Get {
                history_length: Some(_),
                ..
            }
        )),
        "{case:?}"
    );
}

#[tokio::test(flavor = "multi_thread")]
async fn a_first_message_stored_twice_is_found_in_one_send() {
    found_and_shrunk(
        Fault::FirstMessageStoredTwice,
        "lifecycle.history-holds-each-message-once",
        1,
    )
    .await;
}

#[tokio::test(flavor = "multi_thread")]
async fn a_terminal_task_that_restarts_is_found() {
    let case = found_and_shrunk(
        Fault::TerminalTaskRestarts,
        "lifecycle.terminal-state-is-final",
        4,
    )
    .await;
    assert!(
        case.ops.iter().any(|op| matches!(op, Op::FollowUp { .. })),
        "{case:?}"
    );
}

/// The same seed on the same agent sends the same sequences, shrinks to the same case, and
/// sees the same thing; a case replays on a fresh agent with the fault, and not on one
/// without it.
#[tokio::test(flavor = "multi_thread")]
async fn a_seed_repeats_and_a_case_replays() {
    let first = explore_agent(&[Fault::CancelIgnored], None, |_| {}).await;
    let again = explore_agent(&[Fault::CancelIgnored], None, |_| {}).await;
    assert_eq!(first.sequences, again.sequences);
    let ops = |e: &Exploration| {
        e.violations
            .iter()
            .map(|c| c.ops.clone())
            .collect::<Vec<_>>()
    };
    assert_eq!(ops(&first), ops(&again));

    // The case as the report holds it, read back as --replay reads it.
    let text = serde_json::to_string(&first).expect("JSON");
    let cases = CaseFile::read(&text).expect("the report's cases");
    let replayed = explore_agent(&[Fault::CancelIgnored], Some(&cases), |_| {}).await;
    assert!(replayed.replay);
    assert_eq!(
        replayed.violations.len(),
        1,
        "{}",
        explore::summary(&replayed)
    );
    assert_eq!(replayed.violations[0].ops, first.violations[0].ops);
    assert_eq!(
        replayed.violations[0].invariant,
        "lifecycle.cancel-takes-effect"
    );
    let clean = explore_agent(&[], Some(&cases), |_| {}).await;
    assert!(!clean.broke(), "{}", explore::summary(&clean));
    assert!(explore::summary(&clean).contains("no case broke its invariant again"));
}

/// The request budget stops the exploration, which says so.
#[tokio::test(flavor = "multi_thread")]
async fn a_spent_budget_stops_and_says_so() {
    let explored = explore_agent(&[], None, |options| options.max_requests = 30).await;
    let why = explored.stopped.as_deref().unwrap_or_default();
    assert!(
        why.contains("--max-requests 30"),
        "{}",
        explore::summary(&explored)
    );
    assert!(explored.sequences.len() < 20);
    assert!(explored.requests <= 31, "{}", explored.requests);
    assert!(explore::summary(&explored).contains("stopped early: the request budget"));
}

/// The command: exit 1 and the case printed when an invariant broke, the report written, its
/// replay exit 1 again; exit 2 for a flag of a run and for a case file that is not one.
#[tokio::test(flavor = "multi_thread")]
async fn the_command_reports_and_replays() {
    let report = temp_path("explore", "cancel-ignored.json");
    let report_text = report.to_str().expect("utf8").to_string();
    let kit = crate::support::kit;
    let args = |list: &[&str]| list.iter().map(|a| a.to_string()).collect::<Vec<_>>();
    let output = kit(args(&[
        "explore",
        "--fault",
        "cancel-ignored",
        "--seed",
        "1",
        "--report",
        &report_text,
    ]))
    .await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    let shown = stdout(&output);
    assert!(
        shown.contains("violation 1: lifecycle.cancel-takes-effect (seed 1"),
        "{shown}"
    );
    let written: Exploration =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("the report"))
            .expect("an exploration's report");
    assert_eq!(written.seed, 1);
    assert_eq!(written.violations.len(), 1);

    let output = kit(args(&[
        "explore",
        "--fault",
        "cancel-ignored",
        "--replay",
        &report_text,
    ]))
    .await;
    assert_eq!(output.status.code(), Some(1), "{}", stderr(&output));
    assert!(
        stdout(&output).contains("replayed 1 case(s)"),
        "{}",
        stdout(&output)
    );
    let output = kit(args(&["explore", "--replay", &report_text])).await;
    assert_eq!(output.status.code(), Some(0), "{}", stdout(&output));

    let output = kit(args(&["explore", "--junit", &report_text])).await;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--junit applies to a run of the checks"));
    let not_a_case = temp_path("explore", "not-a-case.json");
    std::fs::write(&not_a_case, "{\"verdict\": \"conformant\"}").expect("written");
    let output = kit(args(&[
        "explore",
        "--replay",
        not_a_case.to_str().expect("utf8"),
    ]))
    .await;
    assert_eq!(output.status.code(), Some(2));
    assert!(stderr(&output).contains("--replay"), "{}", stderr(&output));
}

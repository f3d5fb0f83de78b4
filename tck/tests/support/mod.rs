//! Shared by the test harnesses: run selected checks against a target through the public API.

#![allow(dead_code)]

use a2a_tck::check::Status;
use a2a_tck::report::{CheckResult, Report};
use a2a_tck::runner::{self, Filter, RunOptions};

/// Runs the checks whose id matches `select` (a glob; an exact id selects one check).
pub async fn run(target: &str, card_url: &str, select: &str) -> Report {
    run_with(target, card_url, select, None).await
}

/// [`run`] with the credentials of the built-in agent in authenticated mode.
pub async fn run_with(
    target: &str,
    card_url: &str,
    select: &str,
    credentials: Option<a2a_tck::builtin::Credentials>,
) -> Report {
    let mut options = RunOptions::new(target, card_url);
    if let Some(credentials) = credentials {
        credentials.apply(&mut options);
    }
    // A stream that should have closed is judged after this wait: keep negative runs short.
    options.limits.stream_wait = std::time::Duration::from_millis(1500);
    options.filter = Filter {
        select: vec![select.to_string()],
        ..Filter::default()
    };
    match runner::run(&a2a_tck::checks::all(), &options).await {
        Ok(report) => report,
        Err(e) => panic!("the run did not start: {e}"),
    }
}

/// A readable account of results, with their evidence, for failure messages.
pub fn explain(results: &[&CheckResult]) -> String {
    results
        .iter()
        .map(|r| {
            format!(
                "{} {} [{}]: {}\n  evidence: {}",
                r.status,
                r.id,
                r.binding.map_or("card".to_string(), |b| b.to_string()),
                r.message,
                serde_json::to_string(&r.evidence).unwrap_or_default()
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// The results of one check id.
pub fn results_of<'a>(report: &'a Report, id: &str) -> Vec<&'a CheckResult> {
    report.results.iter().filter(|r| r.id == id).collect()
}

pub fn all_have(results: &[&CheckResult], status: Status) -> bool {
    !results.is_empty() && results.iter().all(|r| r.status == status)
}

//! The report of a run that could not start because the agent card is unusable (dead target,
//! no answer in time, not JSON, too large): verdict `error`, no results, and the card exchange
//! as evidence, so every such exit still leaves the reports a CI step uploads.

use std::time::SystemTime;

use crate::exchange::evidence::Exchange;
use crate::reporting::report::{Report, RunFailure, Selection, Target, Verdict};
use crate::run::runner::RunOptions;
use crate::suite::check::Check;

/// The report of a run of `catalog` with `options` whose card could not be used: `message`
/// says why, `evidence` is the card exchange. `started_at` is when the run began.
pub fn card_unusable(
    catalog: &[Check],
    options: &RunOptions,
    started_at: SystemTime,
    message: String,
    evidence: Vec<Exchange>,
) -> Report {
    let checks_selected = options.filter.apply(catalog).map_or(0, |kept| kept.len());
    let target = Target {
        url: options.target.clone(),
        card_url: options.card_url.clone(),
        // No usable card was read, so there is nothing to fingerprint.
        card_sha256: String::new(),
        agent_name: None,
        agent_version: None,
        builtin: options.builtin,
        versioned_card: None,
    };
    Report {
        verdict: Verdict::Error,
        verdict_reason: "the agent card is unusable, so no check ran".into(),
        failure: Some(RunFailure { message, evidence }),
        ..Report::begun(
            target,
            Selection::of(&options.filter, checks_selected),
            started_at,
        )
    }
}

/// The report of a run of `catalog` with `options` stopped (SIGINT, SIGTERM) before its first
/// check: verdict `interrupted`, no results. `started_at` is when the run began.
pub fn interrupted(catalog: &[Check], options: &RunOptions, started_at: SystemTime) -> Report {
    let message = "interrupted before any check ran".to_string();
    let mut report = card_unusable(catalog, options, started_at, message, Vec::new());
    report.verdict_reason = String::new();
    report.mark_interrupted_by(options.stop.why());
    report
}

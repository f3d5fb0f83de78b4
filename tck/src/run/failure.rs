//! The report of a run that could not start because the agent card is unusable (dead target,
//! no answer in time, not JSON, too large): verdict `error`, no results, and the card exchange
//! as evidence, so every such exit still leaves the reports a CI step uploads.

use std::collections::BTreeMap;
use std::time::SystemTime;

use crate::check::{Check, Level};
use crate::evidence::Exchange;
use crate::report::{self, Counts, Report, RunFailure, Selection, Target, Tool, Verdict};
use crate::runner::RunOptions;

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
    let finished_at = SystemTime::now();
    let totals: BTreeMap<Level, Counts> = Level::ALL
        .iter()
        .map(|level| (*level, Counts::default()))
        .collect();
    Report {
        format_version: report::FORMAT_VERSION,
        tool: Tool {
            name: "a2a-tck".into(),
            version: env!("CARGO_PKG_VERSION").into(),
        },
        spec_versions: Vec::new(),
        target: Target {
            url: options.target.clone(),
            card_url: options.card_url.clone(),
            // No usable card was read, so there is nothing to fingerprint.
            card_sha256: String::new(),
            agent_name: None,
            agent_version: None,
            builtin: options.builtin,
            versioned_card: None,
        },
        selection: Selection {
            level: options.filter.level,
            select: options.filter.select.clone(),
            bindings: options.filter.bindings.clone(),
            versions: options.filter.versions.clone(),
            checks_selected,
        },
        started_at: humantime::format_rfc3339_millis(started_at).to_string(),
        finished_at: humantime::format_rfc3339_millis(finished_at).to_string(),
        duration_ms: finished_at
            .duration_since(started_at)
            .map_or(0, |d| d.as_millis() as u64),
        interfaces: Vec::new(),
        results: Vec::new(),
        totals,
        verdict: Verdict::Error,
        verdict_reason: "the agent card is unusable, so no check ran".into(),
        partial: None,
        compatibility: None,
        latency: Vec::new(),
        contract: None,
        not_run: Vec::new(),
        untested_declarations: Vec::new(),
        floor: None,
        baseline: None,
        failure: Some(RunFailure { message, evidence }),
        durability: None,
        interrupted: false,
        complete: true,
    }
}

/// The report of a run of `catalog` with `options` stopped (SIGINT, SIGTERM) before its first
/// check: verdict `error`, no results, `interrupted`. `started_at` is when the run began.
pub fn interrupted(catalog: &[Check], options: &RunOptions, started_at: SystemTime) -> Report {
    let message = "interrupted before any check ran".to_string();
    let mut report = card_unusable(catalog, options, started_at, message, Vec::new());
    report.verdict_reason = "interrupted before any check ran".into();
    report.interrupted = true;
    report
}

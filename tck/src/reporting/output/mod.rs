//! Other views of a report: the summary people read, JUnit XML for CI dashboards (failures
//! carry their evidence), and a Markdown summary. The HTML page is in `html`.

use std::fmt::Write as _;

use crate::reporting::evidence_text::{self as evidence, Caps};
use crate::reporting::report::{CheckResult, Report};
use crate::suite::check::{Level, Status};

mod junit;
mod markdown;
mod summary;

pub use junit::{junit, junit_name};
pub use markdown::markdown;
pub use summary::summary_with;

/// How much of one result's message the summary prints.
pub const SUMMARY_MESSAGE_LIMIT: usize = 1000;

/// How much the summary prints in all; the reports (--report, --html...) keep everything.
pub const SUMMARY_LIMIT: usize = 64 * 1024;

/// `text` cut to `max` bytes, saying so.
fn capped(text: &str, max: usize) -> String {
    match evidence::cut(text, max) {
        (shown, true) => format!(
            "{shown}... [cut: {} bytes in all; the reports keep it whole]",
            text.len()
        ),
        (shown, false) => shown.to_string(),
    }
}

/// When the agent serves different cards per version (`target.versioned_card`), the line
/// that says so.
pub fn cards_line(report: &Report) -> Option<String> {
    let card = report.target.versioned_card.as_ref()?;
    Some(format!(
        "cards: the agent serves a different card with A2A-Version: {v} ({}) than without \
         the header ({}); the interfaces of both are tested, and the card checks of the {v} \
         card are listed as `card {v}`",
        card.card_sha256,
        report.target.card_sha256,
        v = card.a2a_version
    ))
}

use crate::reporting::report::place;

/// How the summary is printed.
#[derive(Debug, Clone, Copy, Default)]
pub struct SummaryOptions {
    /// List N/A, PASS and not-run results one group per line, and whole messages (each still
    /// cut at [`SUMMARY_MESSAGE_LIMIT`]); by default they are counted.
    pub verbose: bool,
}

/// How much of a message a line of the summary shows, unless `--verbose`.
pub const SUMMARY_LINE_LIMIT: usize = 240;

/// A JSON text in a message longer than this is cut, with an ellipsis, in the summary.
pub const SUMMARY_JSON_LIMIT: usize = 80;

/// The summary without colour: see [`summary_with`].
pub fn summary(report: &Report) -> String {
    plain(&summary_with(report, SummaryOptions::default()))
}

/// `text` without its ANSI styles.
pub fn plain(text: &str) -> String {
    anstream::adapter::strip_str(text).to_string()
}

/// Styles of the summary: the terminal strips them when it shows no colour (`NO_COLOR`, not
/// a terminal); see `anstream`.
mod style {
    use anstyle::{AnsiColor, Style};

    use crate::reporting::report::Verdict;
    use crate::suite::check::Status;

    pub const BOLD: Style = Style::new().bold();

    pub fn status(status: Status) -> Style {
        match status {
            Status::Pass => AnsiColor::Green.on_default(),
            Status::Fail => AnsiColor::Red.on_default().bold(),
            Status::Warn => AnsiColor::Yellow.on_default(),
            Status::Untestable | Status::Error => AnsiColor::Magenta.on_default().bold(),
            Status::NotApplicable => Style::new().dimmed(),
        }
    }

    pub fn verdict(verdict: Verdict) -> Style {
        match verdict {
            Verdict::Conformant => AnsiColor::Green.on_default().bold(),
            Verdict::NonConformant | Verdict::Error => AnsiColor::Red.on_default().bold(),
            Verdict::Inconclusive | Verdict::Interrupted => AnsiColor::Yellow.on_default().bold(),
        }
    }

    /// `text` in `style`.
    pub fn paint(style: Style, text: &str) -> String {
        format!("{style}{text}{style:#}")
    }
}

/// A message on one line: its first line, every JSON text in it over
/// [`SUMMARY_JSON_LIMIT`] cut with an ellipsis, and the whole cut at `max` bytes (with an
/// ellipsis; the reports keep it whole).
pub fn one_line(message: &str, max: usize) -> String {
    let first = message.lines().next().unwrap_or("");
    let more_lines = message.lines().nth(1).is_some();
    let mut out = String::new();
    let mut rest = first;
    while let Some(open) = rest.find(['{', '[']) {
        out.push_str(&rest[..open]);
        let span = json_span(&rest[open..]);
        if span.len() > SUMMARY_JSON_LIMIT {
            let (shown, _) = evidence::cut(span, SUMMARY_JSON_LIMIT);
            out.push_str(shown);
            out.push('…');
        } else {
            out.push_str(span);
        }
        rest = &rest[open + span.len()..];
    }
    out.push_str(rest);
    let (shown, cut) = evidence::cut(&out, max);
    if cut || more_lines {
        format!("{shown}…")
    } else {
        out
    }
}

/// The JSON text at the start of `text` (from its `{` or `[` to the bracket that closes it,
/// strings read as strings), or all of `text` when it never closes.
fn json_span(text: &str) -> &str {
    let mut depth = 0usize;
    let (mut in_string, mut escaped) = (false, false);
    for (i, c) in text.char_indices() {
        if in_string {
            match (escaped, c) {
                (true, _) => escaped = false,
                (false, '\\') => escaped = true,
                (false, '"') => in_string = false,
                _ => {}
            }
            continue;
        }
        match c {
            '"' => in_string = true,
            '{' | '[' => depth += 1,
            '}' | ']' => {
                depth = depth.saturating_sub(1);
                if depth == 0 {
                    return &text[..i + c.len_utf8()];
                }
            }
            _ => {}
        }
    }
    text
}

/// Results of one check with one status, across the places it ran on; the summary shows the
/// first one's message (the reports keep each).
struct Group<'a> {
    first: &'a CheckResult,
    places: Vec<String>,
}

/// `results` grouped by check and status, in their order.
fn groups<'a>(results: &[&'a CheckResult]) -> Vec<Group<'a>> {
    let mut out: Vec<Group> = Vec::new();
    for r in results {
        match out
            .iter_mut()
            .find(|g| g.first.id == r.id && g.first.status == r.status)
        {
            Some(g) => g.places.push(place(r)),
            None => out.push(Group {
                first: r,
                places: vec![place(r)],
            }),
        }
    }
    out
}

/// The order the summary lists statuses in: what to fix first.
const ATTENTION: [Status; 4] = [
    Status::Fail,
    Status::Error,
    Status::Untestable,
    Status::Warn,
];

/// Where the reports were written (`JSON report.json, JUnit report.xml`), for the end of the
/// summary; None when none was asked for.
pub fn written_line(written: &[(&str, &std::path::Path)]) -> Option<String> {
    let shown: Vec<String> = (written.iter())
        .map(|(kind, path)| format!("{kind} {}", path.display()))
        .collect();
    (!shown.is_empty()).then(|| format!("reports written: {}", shown.join(", ")))
}

/// "kit (detected by the probe; kit scenarios used: ...)".
pub fn contract_words(c: &crate::suite::contract::ContractReport) -> String {
    let how = match (c.requested, c.detected) {
        _ if c.sut_behaviors.is_some() => {
            let file = c.sut_behaviors.as_ref().map(|b| b.file.as_str());
            format!(
                "declared by the behaviour file {}",
                file.unwrap_or_default()
            )
        }
        (Some(crate::suite::contract::Contract::Drive), _) => "given with --drive".to_string(),
        (Some(_), _) => "given with --contract".to_string(),
        (None, Some(crate::suite::contract::Contract::None))
            if c.used != crate::suite::contract::Contract::None =>
        {
            "the probe saw no scenario played, so the official table stays in use".to_string()
        }
        (None, _) => "detected by the probe".to_string(),
    };
    let kit = if c.kit_scenarios.is_empty() {
        "no kit-only scenario used".to_string()
    } else {
        format!("kit-only scenarios used: {}", c.kit_scenarios.join(", "))
    };
    // `none` sends no scenario, so nothing carries one.
    let carried = match c.used {
        crate::suite::contract::Contract::None => "no scenario sent".to_string(),
        _ => format!("scenarios carried in the {}", c.carrier.as_str()),
    };
    let card = match &c.card_driven {
        Some(card) => format!("; {}", card.words()),
        None => String::new(),
    };
    format!("{} ({how}; {carried}; {kit}{card})", c.used.as_str())
}

/// Why the checks not run were not run, for the Markdown and HTML reports: the scenarios the
/// contract (or the drive file) does not give, the stop of an interrupted run, or both.
pub fn not_run_hint(report: &Report) -> String {
    let stopped = report.not_run_by_interruption();
    let by_scenario = report.not_run.len() - stopped;
    let source = match report.contract.as_ref().map(|c| c.used) {
        Some(crate::suite::contract::Contract::Drive) => "the drive file",
        _ => "the contract",
    };
    let counted = "they were not run, and count neither for nor against the verdict.";
    match (by_scenario > 0, stopped > 0) {
        (_, false) => format!("These checks need the agent to play a test scenario; {counted}"),
        (false, true) => format!("The run was interrupted before these checks ran; {counted}"),
        (true, true) => format!(
            "Those whose reason is \"interrupted\" were left out when the run was stopped; the \
             others need the agent to play a test scenario {source} does not give; {counted}"
        ),
    }
}

/// The checks not run, one entry per check with the places it was planned on.
pub fn not_run_groups(report: &Report) -> Vec<(String, Level, String, String)> {
    let mut groups: Vec<(String, Level, Vec<String>, String)> = Vec::new();
    for n in &report.not_run {
        let place = match (n.binding, n.version) {
            (Some(b), Some(v)) => format!("{b} {v}"),
            (None, Some(v)) => format!("card {v}"),
            _ => "card".to_string(),
        };
        match groups.iter_mut().find(|g| g.0 == n.id) {
            Some(group) => group.2.push(place),
            None => groups.push((n.id.clone(), n.level, vec![place], n.reason.clone())),
        }
    }
    groups
        .into_iter()
        .map(|(id, level, places, reason)| (id, level, places.join(", "), reason))
        .collect()
}

fn totals_line(report: &Report) -> String {
    let mut parts = Vec::new();
    for level in Level::ALL {
        let Some(counts) = report.totals.get(&level) else {
            continue;
        };
        let shown: Vec<String> = Status::ALL
            .iter()
            .filter(|s| counts.get(**s) > 0)
            .map(|s| format!("{} {}", counts.get(*s), s.as_str()))
            .collect();
        if !shown.is_empty() {
            parts.push(format!("{level}: {}", shown.join(", ")));
        }
    }
    if parts.is_empty() {
        return "totals: no results".to_string();
    }
    format!("totals (results): {}", parts.join("; "))
}

/// The report's durability section in one line: how the target was restarted, what came of
/// it, and the `durability.*` results by status; `None` when the area did not run.
pub fn durability_line(report: &crate::reporting::report::Report) -> Option<String> {
    let area = report.durability.as_ref()?;
    let mut counts: std::collections::BTreeMap<crate::suite::check::Status, usize> =
        std::collections::BTreeMap::new();
    for result in report
        .results
        .iter()
        .filter(|r| r.id.starts_with("durability."))
    {
        *counts.entry(result.status).or_default() += 1;
    }
    let counts: Vec<String> = counts
        .iter()
        .map(|(status, n)| format!("{n} {status}"))
        .collect();
    Some(format!(
        "durability: {} ({}); results: {}",
        area.restart,
        area.message,
        if counts.is_empty() {
            "none".to_string()
        } else {
            counts.join(", ")
        }
    ))
}

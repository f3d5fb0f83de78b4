//! Other views of a report: the summary people read, JUnit XML for CI dashboards (failures
//! carry their evidence), and a Markdown summary. The HTML page is in `html`.

use std::fmt::Write as _;

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use crate::check::{Level, Status};
use crate::evidence_text::{self as evidence, Caps};
use crate::report::{CheckResult, Report};

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

pub use crate::report::place;

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

    use crate::check::Status;
    use crate::report::Verdict;

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
            Verdict::Inconclusive => AnsiColor::Yellow.on_default().bold(),
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

/// What to fix first: the failures, grouped by check across interfaces (one line per check
/// with its binding/version list), then ERROR, UNTESTABLE and WARN likewise; N/A and PASS
/// counted (listed with `verbose`); the contract, the totals and the verdict; a closing
/// recap of the failures, one line each; every count names its unit (results: check x
/// interface; checks). Each line is one line: a message is cut at its first line and at
/// [`SUMMARY_LINE_LIMIT`] (with `verbose`, [`SUMMARY_MESSAGE_LIMIT`]), every JSON text in it
/// at [`SUMMARY_JSON_LIMIT`], the lines before the totals at [`SUMMARY_LIMIT`], so a hostile
/// target cannot flood stdout. The text carries ANSI styles: print it through `anstream`
/// (which drops them when the output is not a terminal or `NO_COLOR` is set), or take
/// [`summary`].
pub fn summary_with(report: &Report, options: SummaryOptions) -> String {
    use style::paint;
    let limit = if options.verbose {
        SUMMARY_MESSAGE_LIMIT
    } else {
        SUMMARY_LINE_LIMIT
    };
    let mut out = String::new();
    let _ = writeln!(
        out,
        "{}",
        paint(
            style::BOLD,
            &format!(
                "a2a-tck {} against {} ({})",
                report.tool.version,
                report.target.url,
                report
                    .target
                    .agent_name
                    .as_deref()
                    .unwrap_or("unnamed agent")
            )
        )
    );
    if let Some(failure) = &report.failure {
        let _ = writeln!(
            out,
            "  the run could not start: {}",
            capped(&failure.message, SUMMARY_MESSAGE_LIMIT)
        );
        let caps = Caps {
            body: 512,
            total: 4 * 1024,
        };
        for line in evidence::text(&failure.evidence, caps).lines() {
            let _ = writeln!(out, "    {}", one_line(line, limit));
        }
    }
    for interface in &report.interfaces {
        let state = if let Some(problem) = &interface.problem {
            paint(
                style::status(Status::Error),
                &format!("UNUSABLE: {}", one_line(problem, SUMMARY_MESSAGE_LIMIT)),
            )
        } else if interface.tested {
            "tested".to_string()
        } else {
            format!(
                "not tested: {}",
                interface.reason.as_deref().unwrap_or("unknown")
            )
        };
        let _ = writeln!(
            out,
            "  interface {} {} at {} ({state})",
            interface.protocol_binding, interface.protocol_version, interface.url
        );
    }
    // A gRPC `host:port` is compared by host and port (its scheme is the card's own).
    let host_port = |url: &str| {
        let full = if url.contains("://") {
            url.to_string()
        } else {
            format!("http://{url}")
        };
        reqwest::Url::parse(&full)
            .ok()
            .map(|u| (u.host_str().map(str::to_string), u.port_or_known_default()))
    };
    let mut noted = Vec::new();
    for interface in report.interfaces.iter().filter(|i| i.tested) {
        if host_port(&interface.url) != host_port(&report.target.url)
            && !noted.contains(&interface.url)
        {
            noted.push(interface.url.clone());
            let _ = writeln!(
                out,
                "  note: the card sends the kit to {}, which is not on the target's origin",
                interface.url
            );
        }
    }
    // Results that only repeat their interface's problem are counted, not listed one by one.
    let problem_of = |r: &CheckResult| {
        report
            .interfaces
            .iter()
            .filter(|i| i.tested && i.binding == r.binding && i.version == r.version)
            .find_map(|i| i.problem.as_deref())
            .filter(|p| r.status == Status::Error && r.message.contains(p))
    };
    let status_word =
        |status: Status| paint(style::status(status), &format!("{:<10}", status.as_str()));
    // One line per check: its status, level, id, the interfaces, what happened.
    let group_line = |status: Status, g: &Group| {
        format!(
            "{} [{}] {} ({}): {}",
            status_word(status),
            g.first.level,
            g.first.id,
            g.places.join(", "),
            one_line(&g.first.message, limit)
        )
    };
    let mut lines: Vec<String> = Vec::new();
    for status in ATTENTION {
        let of_status: Vec<&CheckResult> = report
            .results
            .iter()
            .filter(|r| r.status == status && problem_of(r).is_none())
            .collect();
        let mut grouped = groups(&of_status);
        // MUST before SHOULD before MAY; the catalogue's order within a level.
        grouped.sort_by_key(|g| g.first.level);
        lines.extend(grouped.iter().map(|g| group_line(status, g)));
        if status == Status::Error {
            for interface in report.interfaces.iter().filter(|i| i.problem.is_some()) {
                let repeated: Vec<&CheckResult> = report
                    .results
                    .iter()
                    .filter(|r| r.binding == interface.binding && r.version == interface.version)
                    .filter(|r| problem_of(r).is_some())
                    .collect();
                if repeated.is_empty() {
                    continue;
                }
                let checks = groups(&repeated).len();
                lines.push(format!(
                    "{} {} ({}) on {} {}: the interface is unusable (see above)",
                    status_word(Status::Error),
                    crate::report::plural(repeated.len(), "result", "results"),
                    crate::report::plural(checks, "check", "checks"),
                    interface.protocol_binding,
                    interface.protocol_version
                ));
            }
        }
    }
    for status in [Status::NotApplicable, Status::Pass] {
        let of_status: Vec<&CheckResult> = (report.results.iter())
            .filter(|r| r.status == status)
            .collect();
        if of_status.is_empty() {
            continue;
        }
        let grouped = groups(&of_status);
        if options.verbose {
            lines.extend(grouped.iter().map(|g| group_line(status, g)));
        } else {
            lines.push(format!(
                "{} {} of {} (--verbose lists them)",
                status_word(status),
                crate::report::plural(of_status.len(), "result", "results"),
                crate::report::plural(grouped.len(), "check", "checks"),
            ));
        }
    }
    for (i, line) in lines.iter().enumerate() {
        if out.len() + line.len() > SUMMARY_LIMIT {
            let _ = writeln!(
                out,
                "... [{} more line(s) cut; the reports keep them]",
                lines.len() - i
            );
            break;
        }
        let _ = writeln!(out, "{line}");
    }
    out.push_str(&contract_lines(report, options.verbose));
    if let Some(line) = cards_line(report) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(line) = durability_line(report) {
        let _ = writeln!(out, "{line}");
    }
    for line in crate::declarations::grouped_lines(&report.untested_declarations) {
        let _ = writeln!(out, "NOT TESTED {line}");
    }
    let _ = writeln!(out, "{}", totals_line(report));
    if let Some(compat) = &report.compatibility {
        let _ = writeln!(out, "compatibility: {}", compat.line);
    }
    out.push_str(&latency_lines(report, options.verbose));
    out.push_str(&recap(report, &|r: &CheckResult| problem_of(r).is_some()));
    let _ = writeln!(
        out,
        "verdict: {} ({}); {} in {} ms",
        paint(style::verdict(report.verdict), &report.verdict_words()),
        report.verdict_reason,
        crate::report::plural(report.results.len(), "result", "results"),
        report.duration_ms
    );
    if let Some(floor) = &report.floor {
        let _ = writeln!(
            out,
            "floor: {} ({})",
            if floor.passed {
                paint(style::status(Status::Pass), "PASS")
            } else {
                paint(style::status(Status::Fail), "FAIL")
            },
            floor.reason
        );
    }
    if let Some(gate) = &report.baseline {
        out.push_str(&crate::baseline::summary(gate));
    }
    out
}

/// The closing recap: the failures that gate the run (FAIL, ERROR, UNTESTABLE), one line per
/// check with its binding/version list and the first line of what happened; a check whose
/// results all repeat an unusable interface's problem is left to that interface's line.
fn recap(report: &Report, repeats_problem: &dyn Fn(&CheckResult) -> bool) -> String {
    let mut out = String::new();
    for status in [Status::Fail, Status::Error, Status::Untestable] {
        let of_status: Vec<&CheckResult> = (report.results.iter())
            .filter(|r| r.status == status && !repeats_problem(r))
            .collect();
        let mut grouped = groups(&of_status);
        if grouped.is_empty() {
            continue;
        }
        grouped.sort_by_key(|g| g.first.level);
        let _ = writeln!(
            out,
            "{} ({}, {}):",
            style::paint(
                style::status(status),
                match status {
                    Status::Fail => "failed",
                    Status::Error => "errors",
                    _ => "untestable",
                }
            ),
            crate::report::plural(grouped.len(), "check", "checks"),
            crate::report::plural(of_status.len(), "result", "results"),
        );
        for g in grouped {
            let _ = writeln!(
                out,
                "  {} [{}] ({}): {}",
                g.first.id,
                g.first.level,
                g.places.join(", "),
                one_line(&g.first.message, 160)
            );
        }
    }
    out
}

/// Where the reports were written (`JSON report.json, JUnit report.xml`), for the end of the
/// summary; None when none was asked for.
pub fn written_line(written: &[(&str, &std::path::Path)]) -> Option<String> {
    let shown: Vec<String> = (written.iter())
        .map(|(kind, path)| format!("{kind} {}", path.display()))
        .collect();
    (!shown.is_empty()).then(|| format!("reports written: {}", shown.join(", ")))
}

/// The scenario contract, and the checks not run for want of one: grouped by check with
/// `verbose`, else counted.
fn contract_lines(report: &Report, verbose: bool) -> String {
    let mut out = String::new();
    if let Some(c) = &report.contract {
        let _ = writeln!(out, "contract: {}", contract_words(c));
    }
    let groups = not_run_groups(report);
    if verbose {
        for (id, level, places, reason) in groups {
            let _ = writeln!(out, "NOT RUN    [{level}] {id} ({places}): {reason}");
        }
    } else if !groups.is_empty() {
        let _ = writeln!(
            out,
            "NOT RUN    {} ({}): they need the agent to play a test scenario the contract \
             does not give (--verbose lists them)",
            crate::report::plural(groups.len(), "check", "checks"),
            crate::report::plural(report.not_run.len(), "planned result", "planned results"),
        );
    }
    out
}

/// "kit (detected by the probe; kit scenarios used: ...)".
pub fn contract_words(c: &crate::contract::ContractReport) -> String {
    let how = match (c.requested, c.detected) {
        (Some(crate::contract::Contract::Drive), _) => "given with --drive".to_string(),
        (Some(_), _) => "given with --contract".to_string(),
        (None, Some(crate::contract::Contract::None))
            if c.used != crate::contract::Contract::None =>
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
    format!(
        "{} ({how}; scenarios carried in the {}; {kit})",
        c.used.as_str(),
        c.carrier.as_str()
    )
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

/// A result's JUnit test-case name: its check id and where it ran, e.g.
/// `send.returns-task-or-message [jsonrpc 1.0]`, so the cases of one check on several
/// interfaces read apart in a CI reporter, which lists cases by name.
pub fn junit_name(result: &CheckResult) -> String {
    format!("{} [{}]", result.id, place(result))
}

/// JUnit XML: one suite per place (card, binding x version), one case per result, named by
/// [`junit_name`] (unique in the file; its class is `a2a-tck <place>`). FAIL is a failure;
/// ERROR and UNTESTABLE are errors (never skipped); N/A is skipped; WARN passes (a SHOULD is
/// not a gate) but says so where CI reporters look: a `status` property of `WARN`, and the
/// warning with its evidence in `system-err`, which Jenkins shows on a passing case. GitLab
/// shows system output of failed cases only, so there a WARN reads as a pass (the SARIF log
/// and the Markdown carry it as a warning). Every case carries `status`, `level`, `section`, and `binding`
/// and `version` when it ran on an interface. A failure, error or warning carries its
/// recorded exchanges, cut to [`Caps::COMPACT`]. A run that could not start is one error
/// case, `agent-card`.
pub fn junit(report: &Report) -> Result<String, quick_junit::SerializeError> {
    let mut junit = quick_junit::Report::new("a2a-tck");
    let mut suites: Vec<(String, TestSuite)> = Vec::new();
    if let Some(failure) = &report.failure {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_message(failure.message.clone());
        status.set_type("ERROR");
        status.set_description(evidence::text(&failure.evidence, Caps::COMPACT));
        let mut case = TestCase::new("agent-card", status);
        case.set_classname("a2a-tck card");
        case.add_property(Property::new("status", "ERROR"));
        let mut suite = TestSuite::new("a2a-tck card");
        suite.add_test_case(case);
        suites.push(("card".to_string(), suite));
    }
    let mut names: Vec<String> = Vec::new();
    for result in &report.results {
        let place = place(result);
        let index = match suites.iter().position(|(name, _)| *name == place) {
            Some(index) => index,
            None => {
                suites.push((place.clone(), TestSuite::new(format!("a2a-tck {place}"))));
                suites.len() - 1
            }
        };
        let evidence =
            (!result.evidence.is_empty()).then(|| evidence::text(&result.evidence, Caps::COMPACT));
        let status = match result.status {
            Status::Pass | Status::Warn => TestCaseStatus::success(),
            Status::Fail => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(result.message.clone());
                s.set_type("FAIL");
                if let Some(evidence) = &evidence {
                    s.set_description(evidence.as_str());
                }
                s
            }
            Status::Error | Status::Untestable => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                s.set_message(result.message.clone());
                s.set_type(result.status.as_str());
                if let Some(evidence) = &evidence {
                    s.set_description(evidence.as_str());
                }
                s
            }
            Status::NotApplicable => {
                let mut s = TestCaseStatus::skipped();
                s.set_message(result.message.clone());
                s
            }
        };
        // Unique in the file, whatever the report holds (a hand-made report may repeat one).
        let mut name = junit_name(result);
        let repeats = names.iter().filter(|n| n.as_str() == name).count();
        names.push(name.clone());
        if repeats > 0 {
            name = format!("{name} #{}", repeats + 1);
        }
        let mut case = TestCase::new(name, status);
        case.set_classname(format!("a2a-tck {place}"));
        case.set_time(std::time::Duration::from_millis(result.duration_ms));
        case.add_property(Property::new("status", result.status.as_str()));
        case.add_property(Property::new("level", result.level.as_str()));
        case.add_property(Property::new(
            "section",
            format!("{} §{}", result.spec_version, result.section),
        ));
        if let Some(binding) = result.binding {
            case.add_property(Property::new("binding", binding.as_str()));
        }
        if let Some(version) = result.version {
            case.add_property(Property::new("version", version.as_str()));
        }
        if result.status == Status::Warn {
            let mut text = format!("WARN [{}] {}: {}", result.level, result.id, result.message);
            if let Some(evidence) = &evidence {
                text.push_str("\n\n");
                text.push_str(evidence);
            }
            case.set_system_err(text);
        }
        suites[index].1.add_test_case(case);
    }
    junit.add_test_suites(suites.into_iter().map(|(_, suite)| suite));
    junit.to_string()
}

/// How many of the slowest operations the summary names without `verbose`.
const SLOWEST_SHOWN: usize = 3;

/// The agent's latency in the summary: the operations with the slowest p95 (unary answer or
/// first stream event, whichever is slower), `SLOWEST_SHOWN` of them, or with `verbose` every
/// timed operation on a line of its own; empty when nothing was timed.
fn latency_lines(report: &Report, verbose: bool) -> String {
    let mut out = String::new();
    if report.latency.is_empty() {
        return out;
    }
    fn figures(
        l: &crate::latency::OperationLatency,
    ) -> Vec<(&'static str, &crate::latency::Figures)> {
        [("answer", &l.answer), ("first event", &l.first_event)]
            .into_iter()
            .filter_map(|(what, f)| f.as_ref().map(|f| (what, f)))
            .collect()
    }
    // The slower of an operation's figures: (what, p95).
    let worst = |l: &crate::latency::OperationLatency| {
        (figures(l).into_iter())
            .map(|(what, f)| (what, f.p95_ms))
            .max_by_key(|(_, p95)| *p95)
            .unwrap_or(("answer", 0))
    };
    let mut ordered: Vec<&crate::latency::OperationLatency> = report.latency.iter().collect();
    ordered.sort_by_key(|l| std::cmp::Reverse(worst(l).1));
    let described = |l: &crate::latency::OperationLatency| {
        let parts: Vec<String> = (figures(l).iter())
            .map(|(what, f)| {
                format!(
                    "{what} median {} ms, p95 {} ms over {}",
                    f.median_ms,
                    f.p95_ms,
                    crate::report::plural(f.count, "call", "calls")
                )
            })
            .collect();
        format!(
            "{} ({} {}): {}",
            l.operation,
            l.binding,
            l.version,
            parts.join("; ")
        )
    };
    if verbose {
        let _ = writeln!(
            out,
            "latency of the agent's successful answers, slowest first ({}):",
            crate::report::plural(ordered.len(), "operation", "operations")
        );
        for l in &ordered {
            let _ = writeln!(out, "  {}", described(l));
        }
        return out;
    }
    let shown: Vec<String> = (ordered.iter().take(SLOWEST_SHOWN))
        .map(|l| {
            let (what, p95) = worst(l);
            let what = if what == "answer" { "" } else { "first event " };
            format!(
                "{} ({} {}) {what}p95 {p95} ms",
                l.operation, l.binding, l.version
            )
        })
        .collect();
    let _ = writeln!(
        out,
        "latency: slowest {}; {} timed (--verbose lists them; the Markdown and HTML reports \
         tabulate them)",
        shown.join(", "),
        crate::report::plural(ordered.len(), "operation", "operations")
    );
    out
}

/// The latency table of the Markdown summary (empty when nothing was timed).
fn latency_markdown(report: &Report) -> String {
    let mut out = String::new();
    if report.latency.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\n## Latency\n\nThe agent's successful answers during the run, in ms: unary calls to \
         the whole answer, streams to their first event.\n\n\
         | binding | version | operation | answers | median | p95 | streams | first event median | first event p95 |\n\
         |---|---|---|---:|---:|---:|---:|---:|---:|"
    );
    for l in &report.latency {
        let three = |f: &Option<crate::latency::Figures>| match f {
            Some(f) => format!("{} | {} | {}", f.count, f.median_ms, f.p95_ms),
            None => " | | ".to_string(),
        };
        let _ = writeln!(
            out,
            "| {} | {} | `{}` | {} | {} |",
            l.binding,
            l.version,
            cell(&l.operation),
            three(&l.answer),
            three(&l.first_event)
        );
    }
    out
}

/// Escapes a table cell.
fn cell(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

/// A Markdown summary: verdict, totals, interfaces, every result that is not PASS, then all
/// results folded. Fit for a CI step summary.
pub fn markdown(report: &Report) -> String {
    let mut out = String::new();
    let agent = report
        .target
        .agent_name
        .as_deref()
        .unwrap_or("unnamed agent");
    let _ = writeln!(
        out,
        "# A2A conformance of {}: {}\n",
        cell(agent),
        report.verdict_words()
    );
    let _ = writeln!(
        out,
        "{} ({}). Target `{}`, card `{}` ({}), a2a-tck {}, {} to {}.\n",
        report.verdict_reason,
        report.verdict.as_str(),
        report.target.url,
        report.target.card_url,
        report.target.card_sha256,
        report.tool.version,
        report.started_at,
        report.finished_at
    );
    if let Some(compat) = &report.compatibility {
        let _ = writeln!(out, "Compatibility: {}.\n", cell(&compat.line));
    }
    if let Some(floor) = &report.floor {
        let _ = writeln!(
            out,
            "Floor: {} ({}).\n",
            if floor.passed { "PASS" } else { "FAIL" },
            cell(&floor.reason)
        );
    }
    if let Some(failure) = &report.failure {
        let _ = writeln!(
            out,
            "## The run could not start\n\n{}\n\n```text\n{}```\n",
            failure.message,
            evidence::text(&failure.evidence, Caps::COMPACT).replace("```", "` ` `")
        );
    }
    let _ = writeln!(
        out,
        "| status | MUST | SHOULD | MAY |\n|---|---:|---:|---:|"
    );
    for status in Status::ALL {
        let count = |level| report.totals.get(&level).map_or(0, |c| c.get(status));
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            status.as_str(),
            count(Level::Must),
            count(Level::Should),
            count(Level::May)
        );
    }
    if let Some(gate) = &report.baseline {
        out.push_str(&crate::baseline::markdown(gate));
    }
    if let Some(c) = &report.contract {
        let _ = writeln!(out, "\nScenario contract: {}.", cell(&contract_words(c)));
    }
    if let Some(line) = cards_line(report) {
        let _ = writeln!(out, "\n{}.", cell(&line));
    }
    if let Some(line) = durability_line(report) {
        let _ = writeln!(out, "\n{}.", cell(&line));
    }
    let groups = not_run_groups(report);
    if !groups.is_empty() {
        let _ = writeln!(
            out,
            "\n## Not run ({} checks)\n\nThese checks need the agent to play a test scenario; \
             they were not run, and count neither for nor against the verdict.\n\n\
             | level | check | where | why |\n|---|---|---|---|",
            groups.len()
        );
        for (id, level, places, reason) in groups {
            let _ = writeln!(
                out,
                "| {level} | `{id}` | {} | {} |",
                cell(&places),
                cell(&reason)
            );
        }
    }
    if !report.untested_declarations.is_empty() {
        let _ = writeln!(
            out,
            "\n## Declared, not tested\n\n| the card declares | why no check tested it |\n|---|---|"
        );
        for untested in &report.untested_declarations {
            let _ = writeln!(out, "| `{}` | {} |", untested.what, cell(&untested.why));
        }
    }
    let _ = writeln!(
        out,
        "\n## Interfaces\n\n| binding | version | url | tested |\n|---|---|---|---|"
    );
    for i in &report.interfaces {
        let tested = if i.tested {
            "yes".to_string()
        } else {
            format!("no: {}", i.reason.as_deref().unwrap_or(""))
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} |",
            cell(&i.protocol_binding),
            cell(&i.protocol_version),
            cell(&i.url),
            cell(&tested)
        );
    }
    out.push_str(&latency_markdown(report));
    let attention: Vec<&CheckResult> = report
        .results
        .iter()
        .filter(|r| r.status != Status::Pass)
        .collect();
    let _ = writeln!(out, "\n## Results other than PASS ({})\n", attention.len());
    if !attention.is_empty() {
        let _ = writeln!(
            out,
            "| status | level | check | where | § | what happened |\n|---|---|---|---|---|---|"
        );
        for r in attention {
            let _ = writeln!(
                out,
                "| {} | {} | `{}` | {} | {} | {} |",
                r.status.as_str(),
                r.level,
                r.id,
                place(r),
                r.section,
                cell(&r.message)
            );
        }
    }
    let _ = writeln!(
        out,
        "\n<details><summary>All {} results</summary>\n\n| status | level | check | where | requirement |\n|---|---|---|---|---|",
        report.results.len()
    );
    for r in &report.results {
        let _ = writeln!(
            out,
            "| {} | {} | `{}` | {} | {} |",
            r.status.as_str(),
            r.level,
            r.id,
            place(r),
            cell(&r.requirement)
        );
    }
    let _ = writeln!(out, "\n</details>");
    out
}

/// The report's durability section in one line: how the target was restarted, what came of
/// it, and the `durability.*` results by status; `None` when the area did not run.
pub fn durability_line(report: &crate::report::Report) -> Option<String> {
    let area = report.durability.as_ref()?;
    let mut counts: std::collections::BTreeMap<crate::check::Status, usize> =
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

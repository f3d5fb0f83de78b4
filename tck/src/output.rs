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

/// Where a result ran: `card`, `card 1.0` (the card served with `A2A-Version: 1.0`, when it
/// differs), or `jsonrpc 1.0`.
pub fn place(result: &CheckResult) -> String {
    match (result.binding, result.version) {
        (Some(b), Some(v)) => format!("{b} {v}"),
        // A card check of the card a client of that version reads.
        (None, Some(v)) => format!("card {v}"),
        _ => "card".to_string(),
    }
}

/// One line per result that is not PASS, then the interfaces, totals and verdict; each
/// message is cut at [`SUMMARY_MESSAGE_LIMIT`], the lines before the totals at
/// [`SUMMARY_LIMIT`], so a hostile target cannot flood stdout.
pub fn summary(report: &Report) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "a2a-tck {} against {} ({})",
        report.tool.version,
        report.target.url,
        report
            .target
            .agent_name
            .as_deref()
            .unwrap_or("unnamed agent")
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
            let _ = writeln!(out, "    {line}");
        }
    }
    for interface in &report.interfaces {
        let state = if let Some(problem) = &interface.problem {
            format!("UNUSABLE: {}", capped(problem, SUMMARY_MESSAGE_LIMIT))
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
    for interface in report.interfaces.iter().filter(|i| i.problem.is_some()) {
        let repeated = report
            .results
            .iter()
            .filter(|r| r.binding == interface.binding && r.version == interface.version)
            .filter(|r| problem_of(r).is_some())
            .count();
        if repeated == 0 {
            continue;
        }
        let _ = writeln!(
            out,
            "{:<10} {repeated} checks on {} {}: the interface is unusable (see above)",
            Status::Error.as_str(),
            interface.protocol_binding,
            interface.protocol_version
        );
    }
    // One line per problem; N/A results of one check with one reason share a line.
    let listed: Vec<&CheckResult> = report
        .results
        .iter()
        .filter(|r| r.status != Status::Pass && problem_of(r).is_none())
        .collect();
    for (i, result) in listed.iter().enumerate() {
        let same = |r: &&&CheckResult| {
            r.status == Status::NotApplicable
                && result.status == Status::NotApplicable
                && r.id == result.id
                && r.message == result.message
        };
        if listed[..i].iter().any(|r| same(&r)) {
            continue;
        }
        let places: Vec<String> = listed[i..]
            .iter()
            .filter(|r| std::ptr::eq(**r, *result) || same(r))
            .map(|r| place(r))
            .collect();
        let line = format!(
            "{:<10} [{}] {} ({}): {}",
            result.status.as_str(),
            result.level,
            result.id,
            places.join(", "),
            capped(&result.message, SUMMARY_MESSAGE_LIMIT)
        );
        if out.len() + line.len() > SUMMARY_LIMIT {
            let _ = writeln!(
                out,
                "... [{} more result line(s) cut; the reports keep them]",
                listed.len() - i
            );
            break;
        }
        let _ = writeln!(out, "{line}");
    }
    out.push_str(&contract_lines(report));
    if let Some(line) = cards_line(report) {
        let _ = writeln!(out, "{line}");
    }
    if let Some(line) = crate::durability::summary_line(report) {
        let _ = writeln!(out, "{line}");
    }
    for untested in &report.untested_declarations {
        let _ = writeln!(out, "NOT TESTED {}", untested.line());
    }
    let _ = writeln!(out, "{}", totals_line(report));
    if let Some(compat) = &report.compatibility {
        let _ = writeln!(out, "compatibility: {}", compat.line);
    }
    let _ = writeln!(
        out,
        "verdict: {} ({}); {} results in {} ms",
        report.verdict.as_str(),
        report.verdict_reason,
        report.results.len(),
        report.duration_ms
    );
    if let Some(gate) = &report.baseline {
        out.push_str(&crate::baseline::summary(gate));
    }
    out
}

/// The scenario contract, and the checks not run for want of one, grouped by check.
fn contract_lines(report: &Report) -> String {
    let mut out = String::new();
    if let Some(c) = &report.contract {
        let _ = writeln!(out, "contract: {}", contract_words(c));
    }
    for (id, level, places, reason) in not_run_groups(report) {
        let _ = writeln!(out, "NOT RUN    [{level}] {id} ({places}): {reason}");
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
    format!("totals: {}", parts.join("; "))
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
        report.verdict.as_str()
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
    if let Some(line) = crate::durability::summary_line(report) {
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

//! The summary people read: failures first, grouped across interfaces; N/A and PASS counted;
//! the contract, latency and a recap.

use super::*;

/// What to fix first: the failures, grouped by check across interfaces (one line per check
/// with its binding/version list), then ERROR, UNTESTABLE and WARN likewise; N/A and PASS
/// counted (listed with `verbose`); the contract, the totals and the verdict; a closing
/// recap of the failures, one line each; every count names its unit (results: check x
/// interface; checks). Each line is one line: a message is cut at its first line and at
/// [`SUMMARY_LINE_LIMIT`] (with `verbose`, [`SUMMARY_MESSAGE_LIMIT`]), every JSON text in it
/// at [`SUMMARY_JSON_LIMIT`], the lines before the totals at [`SUMMARY_LIMIT`], so a hostile
/// target cannot flood stdout. The text carries ANSI styles: print it through `anstream`
/// (which drops them when the output is not a terminal or `NO_COLOR` is set), or take
/// `output::summary` (plain text).
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
                    crate::reporting::report::plural(repeated.len(), "result", "results"),
                    crate::reporting::report::plural(checks, "check", "checks"),
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
                crate::reporting::report::plural(of_status.len(), "result", "results"),
                crate::reporting::report::plural(grouped.len(), "check", "checks"),
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
    for line in crate::reporting::declarations::grouped_lines(&report.untested_declarations) {
        let _ = writeln!(out, "NOT TESTED {line}");
    }
    for line in crate::reporting::refusals::grouped_lines(&report.refused_operations) {
        let _ = writeln!(
            out,
            "{} {line}",
            paint(style::status(Status::Untestable), "REFUSED   ")
        );
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
        crate::reporting::report::plural(report.results.len(), "result", "results"),
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
        out.push_str(&crate::reporting::baseline::summary(gate));
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
            crate::reporting::report::plural(grouped.len(), "check", "checks"),
            crate::reporting::report::plural(of_status.len(), "result", "results"),
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
        return out;
    }
    // Counted by why: the contract's (or the drive file's) scenarios, and the stop.
    let stopped = |reason: &str| reason == crate::facts::stop::INTERRUPTED;
    let by_contract: Vec<_> = groups.iter().filter(|g| !stopped(&g.3)).collect();
    if !by_contract.is_empty() {
        let planned = (report.not_run.iter())
            .filter(|n| !stopped(&n.reason))
            .count();
        let gives = match report.contract.as_ref().map(|c| c.used) {
            Some(crate::suite::contract::Contract::Drive) => "the drive file does not give",
            _ => "the contract does not give",
        };
        let _ = writeln!(
            out,
            "NOT RUN    {} ({}): they need the agent to play a test scenario {gives} \
             (--verbose lists them)",
            crate::reporting::report::plural(by_contract.len(), "check", "checks"),
            crate::reporting::report::plural(planned, "planned result", "planned results"),
        );
    }
    let by_stop = report.not_run_by_interruption();
    if by_stop > 0 {
        let checks = groups.iter().filter(|g| stopped(&g.3)).count();
        let _ = writeln!(
            out,
            "NOT RUN    {} ({}): the run was interrupted before they ran (--verbose lists them)",
            crate::reporting::report::plural(checks, "check", "checks"),
            crate::reporting::report::plural(by_stop, "planned result", "planned results"),
        );
    }
    out
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
        l: &crate::exchange::latency::OperationLatency,
    ) -> Vec<(&'static str, &crate::exchange::latency::Figures)> {
        [("answer", &l.answer), ("first event", &l.first_event)]
            .into_iter()
            .filter_map(|(what, f)| f.as_ref().map(|f| (what, f)))
            .collect()
    }
    // The slower of an operation's figures: (what, p95).
    let worst = |l: &crate::exchange::latency::OperationLatency| {
        (figures(l).into_iter())
            .map(|(what, f)| (what, f.p95_ms))
            .max_by_key(|(_, p95)| *p95)
            .unwrap_or(("answer", 0))
    };
    let mut ordered: Vec<&crate::exchange::latency::OperationLatency> =
        report.latency.iter().collect();
    ordered.sort_by_key(|l| std::cmp::Reverse(worst(l).1));
    let described = |l: &crate::exchange::latency::OperationLatency| {
        let parts: Vec<String> = (figures(l).iter())
            .map(|(what, f)| {
                format!(
                    "{what} median {} ms, p95 {} ms over {}",
                    f.median_ms,
                    f.p95_ms,
                    crate::reporting::report::plural(f.count, "call", "calls")
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
            crate::reporting::report::plural(ordered.len(), "operation", "operations")
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
        crate::reporting::report::plural(ordered.len(), "operation", "operations")
    );
    out
}

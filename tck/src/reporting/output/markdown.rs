//! The Markdown summary, fit for a CI step summary.

use super::*;

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
        let three = |f: &Option<crate::exchange::latency::Figures>| match f {
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

/// Bytes of exchanges the Markdown of a client run shows in all; the JSON and HTML reports
/// keep the rest.
const PLAYS_MARKDOWN_LIMIT: usize = 256 * 1024;

/// A client run's exchanges, one folded block per play run (the results of one play carry the
/// same exchanges): what the adapter was given and printed, and every request the client made
/// with the answer it got. Empty for a run on an agent.
fn plays_markdown(report: &Report) -> String {
    let mut out = String::new();
    if report.client.is_none() {
        return out;
    }
    let mut groups: Vec<(Vec<&CheckResult>, &[crate::exchange::evidence::Exchange])> = Vec::new();
    for r in report.results.iter().filter(|r| !r.evidence.is_empty()) {
        match groups.last_mut() {
            Some((results, evidence))
                if *evidence == r.evidence.as_slice() && place(results[0]) == place(r) =>
            {
                results.push(r);
            }
            _ => groups.push((vec![r], r.evidence.as_slice())),
        }
    }
    if groups.is_empty() {
        return out;
    }
    let _ = writeln!(
        out,
        "\n## Exchanges of each play ({})\n\nWhat the adapter was given and printed, then every \
         request the client made with the answer it got (credentials redacted).\n",
        groups.len()
    );
    let mut shown = 0;
    for (index, (results, evidence)) in groups.iter().enumerate() {
        if shown >= PLAYS_MARKDOWN_LIMIT {
            let _ = writeln!(
                out,
                "{} more plays' exchanges are not shown here; the JSON and HTML reports keep them.",
                groups.len() - index
            );
            break;
        }
        let ids: Vec<String> = results
            .iter()
            .map(|r| format!("`{}` {}", r.id, r.status.as_str()))
            .collect();
        let text = evidence::text(evidence, Caps::COMPACT).replace("```", "` ` `");
        shown += text.len();
        let _ = writeln!(
            out,
            "<details><summary>{}: {} ({} exchange(s))</summary>\n\n```text\n{}```\n\n</details>\n",
            place(results[0]),
            cell(&ids.join(", ")),
            evidence.len(),
            text
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
    let judged = match &report.client {
        // A client run: the client and the command that ran its adapter.
        Some(client) => format!(
            "Client {} {} (bindings {}; versions {}), run by `{}`",
            cell(&client.name),
            cell(&client.version),
            (client.bindings.iter().map(|b| b.title()))
                .collect::<Vec<_>>()
                .join(", "),
            (client.versions.iter().map(|v| v.as_str()))
                .collect::<Vec<_>>()
                .join(", "),
            client.command
        ),
        None => format!(
            "Target `{}`, card `{}` ({})",
            report.target.url, report.target.card_url, report.target.card_sha256
        ),
    };
    let _ = writeln!(
        out,
        "{} ({}). {judged}, a2a-tck {}, {} to {}.\n",
        report.verdict_reason,
        report.verdict.as_str(),
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
        out.push_str(&crate::reporting::baseline::markdown(gate));
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
            "\n## Not run ({} checks)\n\n{}\n\n\
             | level | check | where | why |\n|---|---|---|---|",
            groups.len(),
            not_run_hint(report)
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
    if !report.refused_operations.is_empty() {
        let _ = writeln!(
            out,
            "\n## Refused operations\n\nOperations the agent refused wherever the kit called \
             them: one cause of the results listed.\n\n| operation | interface | answer | \
             obliged by | checks that met it |\n|---|---|---|---|---|"
        );
        for r in &report.refused_operations {
            let checks: Vec<String> = r.results.iter().map(|id| format!("`{id}`")).collect();
            let _ = writeln!(
                out,
                "| `{}` | {} {} | {} | {} | {} |",
                r.operation,
                r.binding,
                r.version,
                cell(&r.answer),
                r.required_by.as_deref().map_or(
                    "no keyworded sentence: results UNTESTABLE".to_string(),
                    |id| { format!("{id}: results keep their FAIL") }
                ),
                cell(&checks.join(", "))
            );
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
    out.push_str(&plays_markdown(report));
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

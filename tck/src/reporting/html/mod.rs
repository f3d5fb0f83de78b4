//! The HTML report: one self-contained page (inline CSS and a small inline script, nothing
//! fetched), rendered on the server side so it reads without a script too. Verdict and totals
//! first, then filters (status, binding, version, level), then every result with its
//! requirement, level, reading, spec reference and wire evidence. Its size is bounded: see
//! `evidence::Budget`.

mod evidence;

use maud::{html, Markup, PreEscaped, DOCTYPE};

use crate::reporting::report::place;
use crate::reporting::report::{CheckResult, Report};
use crate::suite::check::{Level, Status};

const STYLE: &str = include_str!("report.css");
const SCRIPT: &str = include_str!("report.js");

/// The filter value that keeps every status but PASS.
pub const NOT_PASS: &str = "!PASS";

/// Where a result ran, as the `binding` and `version` filters name it (`card` for the card).
fn binding_key(result: &CheckResult) -> &'static str {
    result.binding.map_or("card", |b| b.as_str())
}

fn version_key(result: &CheckResult) -> &'static str {
    result.version.map_or("card", |v| v.as_str())
}

/// The published specification of a protocol version. Sections are named, not linked by
/// anchor: the page's anchors are derived from heading text the kit does not keep.
fn spec_url(version: &str) -> &'static str {
    if version.starts_with("0.3") {
        "https://a2a-protocol.org/v0.3.0/specification/"
    } else {
        "https://a2a-protocol.org/latest/specification/"
    }
}

fn status_class(status: Status) -> &'static str {
    match status {
        Status::Pass => "s-pass",
        Status::Fail => "s-fail",
        Status::Warn => "s-warn",
        Status::NotApplicable => "s-na",
        Status::Untestable => "s-untestable",
        Status::Error => "s-error",
    }
}

fn header(report: &Report) -> Markup {
    let agent = report
        .target
        .agent_name
        .as_deref()
        .unwrap_or("unnamed agent");
    html! {
        header {
            h1 {
                "A2A conformance of " (agent) ": "
                span.verdict.(format!("v-{}", report.verdict.as_str())) { (report.verdict_words()) }
            }
            p.reason { (report.verdict_reason) }
            table.totals {
                thead { tr { th { "status" } @for level in Level::ALL { th { (level.as_str()) } } } }
                tbody {
                    @for status in Status::ALL {
                        tr {
                            td { span.status.(status_class(status)) { (status.as_str()) } }
                            @for level in Level::ALL {
                                td.num { (report.totals.get(&level).map_or(0, |c| c.get(status))) }
                            }
                        }
                    }
                }
            }
            dl.meta {
                @if let Some(client) = &report.client {
                    dt { "client" } dd { (client.name) " " (client.version) @if report.target.builtin { " (the kit's reference client)" } }
                    dt { "adapter" } dd { (client.command) }
                } @else {
                    dt { "target" } dd { (report.target.url) @if report.target.builtin { " (built-in reference agent)" } }
                    dt { "card" } dd { (report.target.card_url) " " span.hash { (report.target.card_sha256) } }
                }
                @if let Some(version) = &report.target.agent_version { dt { "agent version" } dd { (version) } }
                dt { "kit" } dd { (report.tool.name) " " (report.tool.version) }
                dt { "run" } dd { (report.started_at) " to " (report.finished_at) " (" (report.duration_ms) " ms)" }
                dt { "selection" } dd {
                    "level " (report.selection.level.as_str()) ", "
                    (report.selection.checks_selected) " check(s) selected"
                    @if !report.selection.select.is_empty() { ", --select " (report.selection.select.join(" ")) }
                }
                @if let Some(compat) = &report.compatibility { dt { "compatibility" } dd #compatibility { (compat.line) } }
                @if let Some(c) = &report.contract { dt { "contract" } dd #contract { (crate::reporting::output::contract_words(c)) } }
                @if let Some(line) = crate::reporting::output::cards_line(report) { dt { "cards" } dd { (line) } }
                @if let Some(line) = crate::reporting::output::durability_line(report) { dt { "durability" } dd { (line) } }
            }
        }
    }
}

fn interfaces(report: &Report) -> Markup {
    html! {
        @if !report.interfaces.is_empty() {
            section #interfaces {
                h2 { "Interfaces" }
                table {
                    thead { tr { th { "binding" } th { "version" } th { "url" } th { "tested" } } }
                    tbody {
                        @for i in &report.interfaces {
                            tr {
                                td { (i.protocol_binding) } td { (i.protocol_version) } td { (i.url) }
                                td {
                                    @if let Some(problem) = &i.problem { span.status.s-error { "UNUSABLE" } " " (problem) }
                                    @else if i.tested { "yes" }
                                    @else { "no: " (i.reason.as_deref().unwrap_or("")) }
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// The checks not run, the card's untested declarations and the baseline's gate: what the
/// Markdown says beside the results.
fn outcomes(report: &Report) -> Markup {
    let not_run = crate::reporting::output::not_run_groups(report);
    let place = |binding: Option<crate::suite::check::Binding>,
                 version: Option<crate::suite::check::ProtocolVersion>| {
        match (binding, version) {
            (Some(b), Some(v)) => format!("{b} {v}"),
            (None, Some(v)) => format!("card {v}"),
            (Some(b), None) => b.to_string(),
            (None, None) => "card".to_string(),
        }
    };
    html! {
        @if let Some(gate) = &report.baseline {
            section #baseline {
                h2 {
                    "Baseline " code { (gate.file) } ": gate "
                    @if gate.passed { span.status.s-pass { "PASS" } } @else { span.status.s-fail { "FAIL" } }
                }
                p.reason { (gate.reason) }
                @if !gate.expected.is_empty() {
                    table {
                        thead { tr { th { "expected" } th { "check" } th { "where" } th { "reason" } } }
                        tbody {
                            @for e in &gate.expected {
                                tr {
                                    td { span.status.(status_class(e.status)) { (e.status.as_str()) } }
                                    td { code { (e.id) } } td { (place(e.binding, e.version)) } td { (e.reason) }
                                }
                            }
                        }
                    }
                }
                @if !gate.stale.is_empty() {
                    table.stale {
                        thead { tr { th { "stale entry" } th { "why" } } }
                        tbody {
                            @for s in &gate.stale {
                                tr {
                                    td {
                                        code { (s.entry.check) } " " (s.entry.status.as_str())
                                        @if let Some(b) = &s.entry.binding { " binding " (b) }
                                        @if let Some(v) = &s.entry.version { " version " (v) }
                                    }
                                    td { (s.why) }
                                }
                            }
                        }
                    }
                }
            }
        }
        @if !not_run.is_empty() {
            details #not-run {
                summary { h2 { "Not run (" (not_run.len()) " checks)" } }
                p.hint { (crate::reporting::output::not_run_hint(report)) }
                table {
                    thead { tr { th { "level" } th { "check" } th { "where" } th { "why" } } }
                    tbody {
                        @for (id, level, places, reason) in &not_run {
                            tr { td { (level.as_str()) } td { code { (id) } } td { (places) } td { (reason) } }
                        }
                    }
                }
            }
        }
        @if !report.untested_declarations.is_empty() {
            section #untested {
                h2 { "Declared, not tested (" (report.untested_declarations.len()) ")" }
                table {
                    thead { tr { th { "the card declares" } th { "why no check tested it" } } }
                    tbody {
                        @for u in &report.untested_declarations {
                            tr { td { code { (u.what) } } td { (u.why) } }
                        }
                    }
                }
            }
        }
        @if !report.refused_operations.is_empty() {
            section #refused {
                h2 { "Refused operations (" (report.refused_operations.len()) ")" }
                table {
                    thead { tr { th { "operation" } th { "interface" } th { "answer" } th { "obliged by" } th { "checks that met it" } } }
                    tbody {
                        @for r in &report.refused_operations {
                            tr {
                                td { code { (r.operation) } }
                                td { (r.binding) " " (r.version) }
                                td { (r.answer) }
                                td { (r.required_by.as_deref().unwrap_or("no keyworded sentence: results UNTESTABLE")) }
                                td { (r.results.join(", ")) }
                            }
                        }
                    }
                }
            }
        }
        @if !report.latency.is_empty() {
            details #latency {
                summary { h2 { "Latency (" (report.latency.len()) " operations)" } }
                p.hint {
                    "The agent's answers that succeeded during this run, per operation: unary calls \
                     to the whole answer, streams to their first event (milliseconds; median, 95th \
                     percentile, slowest). The kit's own checks load the agent, so read these as a \
                     profile, not a benchmark."
                }
                table {
                    thead { tr {
                        th { "binding" } th { "version" } th { "operation" }
                        th { "answers" } th { "median" } th { "p95" } th { "max" }
                        th { "streams" } th { "first event median" } th { "first event p95" }
                    } }
                    tbody {
                        @for l in &report.latency {
                            tr {
                                td { (l.binding.as_str()) } td { (l.version.as_str()) } td { code { (l.operation) } }
                                @if let Some(a) = &l.answer {
                                    td.num { (a.count) } td.num { (a.median_ms) } td.num { (a.p95_ms) } td.num { (a.max_ms) }
                                } @else { td {} td {} td {} td {} }
                                @if let Some(f) = &l.first_event {
                                    td.num { (f.count) } td.num { (f.median_ms) } td.num { (f.p95_ms) }
                                } @else { td {} td {} td {} }
                            }
                        }
                    }
                }
            }
        }
    }
}

fn select(name: &str, label: &str, options: &[(&str, String)]) -> Markup {
    html! {
        label {
            (label) " "
            select name=(name) {
                option value="" { "any" }
                @for (value, text) in options { option value=(value) { (text) } }
            }
        }
    }
}

fn filters(report: &Report) -> Markup {
    let mut statuses = vec![(NOT_PASS, "all but PASS".to_string())];
    statuses.extend(
        Status::ALL
            .iter()
            .map(|s| (s.as_str(), s.as_str().to_string())),
    );
    let mut bindings: Vec<(&str, String)> = Vec::new();
    let mut versions: Vec<(&str, String)> = Vec::new();
    for result in &report.results {
        let (b, v) = (binding_key(result), version_key(result));
        if !bindings.iter().any(|(k, _)| *k == b) {
            bindings.push((b, b.to_string()));
        }
        if !versions.iter().any(|(k, _)| *k == v) {
            versions.push((v, v.to_string()));
        }
    }
    let levels: Vec<(&str, String)> = Level::ALL
        .iter()
        .map(|l| (l.as_str(), l.as_str().to_string()))
        .collect();
    html! {
        form #filters {
            (select("status", "status", &statuses))
            (select("binding", "binding", &bindings))
            (select("version", "version", &versions))
            (select("level", "level", &levels))
            label {
                "check id starts with " input type="text" name="check" size="16" placeholder="push., auth.";
            }
            span #shown-count { (report.results.len()) " of " (report.results.len()) }
        }
    }
}

fn result(index: usize, r: &CheckResult, budget: &mut evidence::Budget) -> Markup {
    let evidence = evidence::exchanges(budget, &r.evidence);
    html! {
        details.result id=(format!("r{index}")) data-id=(r.id) data-status=(r.status.as_str())
            data-binding=(binding_key(r)) data-version=(version_key(r)) data-level=(r.level.as_str())
            open[r.status != Status::Pass && r.status != Status::NotApplicable] {
            summary {
                span.status.(status_class(r.status)) { (r.status.as_str()) }
                " " code.id { (r.id) } " "
                span.place { (place(r)) } " "
                span.level { (r.level.as_str()) }
                @if r.status != Status::Pass {
                    " " span.short { (crate::reporting::evidence_text::cut(&r.message, 160).0) }
                }
            }
            dl {
                dt { "requirement" } dd.requirement { (r.requirement) }
                dt { "level" } dd { (r.level.as_str()) }
                dt { "spec" } dd {
                    a href=(spec_url(&r.spec_version)) rel="noreferrer" { "A2A " (r.spec_version) " §" (r.section) }
                    @if !r.statements.is_empty() { " (" (r.statements.join(", ")) ")" }
                }
                dt { "what happened" } dd.message { (r.message) }
                @if let Some(reading) = &r.reading { dt { "reading" } dd.reading { (reading) } }
                @if !r.maps_to.is_empty() { dt { "official TCK" } dd { (r.maps_to.join(", ")) } }
                @if !r.acts.is_empty() { dt { "ACTS" } dd { (r.acts.join(", ")) } }
                dt { "took" } dd { (r.duration_ms) " ms" }
            }
            @if !r.evidence.is_empty() {
                h3 { "Evidence (" (r.evidence.len()) " exchange(s))" }
                (evidence)
            }
        }
    }
}

/// The whole page.
pub fn page(report: &Report) -> String {
    let mut budget = evidence::Budget::default();
    let failure = report.failure.as_ref().map(|failure| {
        html! {
            section #failure {
                h2 { "The run could not start" }
                p.message { (failure.message) }
                (evidence::exchanges(&mut budget, &failure.evidence))
            }
        }
    });
    let results: Vec<Markup> = report
        .results
        .iter()
        .enumerate()
        .map(|(index, r)| result(index, r, &mut budget))
        .collect();
    let agent = report
        .target
        .agent_name
        .as_deref()
        .unwrap_or("unnamed agent");
    html! {
        (DOCTYPE)
        html lang="en" {
            head {
                meta charset="utf-8";
                meta name="viewport" content="width=device-width, initial-scale=1";
                title { "A2A conformance of " (agent) ": " (report.verdict_words()) }
                style { (PreEscaped(STYLE)) }
            }
            body {
                (header(report))
                @if budget.cuts > 0 {
                    p #cut-notice.cut {
                        "Some evidence was cut to keep this page small (" (budget.cuts)
                        " cut(s), marked where they happen). The JSON report (--report) keeps every exchange."
                    }
                }
                @if let Some(failure) = failure { (failure) }
                (interfaces(report))
                (outcomes(report))
                section #results {
                    h2 { "Results (" (report.results.len()) ")" }
                    @if report.results.is_empty() {
                        p { "No check ran." }
                    } @else {
                        (filters(report))
                        p.hint { "Evidence is kept for every result that is not PASS." }
                        @for part in results { (part) }
                    }
                }
                footer { "Written by " (report.tool.name) " " (report.tool.version) "." }
                script { (PreEscaped(SCRIPT)) }
            }
        }
    }
    .into_string()
}

//! SARIF 2.1.0 (`--sarif PATH`), for code-scanning views: one result per FAIL, WARN, ERROR
//! and UNTESTABLE, its `ruleId` the check id, its level `error` (FAIL), `warning` (WARN) or
//! `note` (not judged: ERROR, UNTESTABLE). Each result is located in the card (its file, as
//! given, or its URL); with `--expect`, in the baseline file, at the line of the entry that
//! names the check when there is one, and results the baseline expects carry an external
//! suppression with the entry's reason. Stale baseline entries are results of the rule
//! `a2a-tck.baseline.stale`, and a card the kit could not use one of `a2a-tck.card.unusable`,
//! located in the card. The rules carry the requirement, the level and the spec section.

use serde_json::{json, Map, Value};

use crate::reporting::report::place;
use crate::reporting::report::{CheckResult, Report};
use crate::suite::check::{Level, Status};

/// The SARIF version written, and the schema it names.
pub const VERSION: &str = "2.1.0";
pub const SCHEMA: &str = "https://json.schemastore.org/sarif-2.1.0.json";

/// The rule id of a card the kit could not use (the run could not start).
pub const UNUSABLE_RULE: &str = "a2a-tck.card.unusable";

/// The rule id of a stale baseline entry.
pub const STALE_RULE: &str = "a2a-tck.baseline.stale";

/// The published specification of a protocol version.
fn spec_url(version: &str) -> &'static str {
    if version.starts_with("0.3") {
        "https://a2a-protocol.org/v0.3.0/specification/"
    } else {
        "https://a2a-protocol.org/latest/specification/"
    }
}

fn level_of(status: Status) -> Option<&'static str> {
    match status {
        Status::Fail => Some("error"),
        Status::Warn => Some("warning"),
        Status::Error | Status::Untestable => Some("note"),
        Status::Pass | Status::NotApplicable => None,
    }
}

fn default_level(level: Level) -> &'static str {
    match level {
        Level::Must => "error",
        Level::Should => "warning",
        Level::May => "note",
    }
}

/// The artifact a location names: a URL as is; a path relative to the checkout
/// (`%SRCROOT%`) when relative, else as a `file://` URI.
fn artifact(location: &str) -> Value {
    if location.contains("://") {
        return json!({ "uri": location });
    }
    let path = location.replace('\\', "/");
    if path.starts_with('/') {
        json!({ "uri": format!("file://{path}") })
    } else {
        json!({ "uri": path.trim_start_matches("./"), "uriBaseId": "%SRCROOT%" })
    }
}

/// The 1-based line of `text` where `needle` first appears, if it does.
fn line_of(text: &str, needle: &str) -> Option<usize> {
    text.lines().position(|l| l.contains(needle)).map(|i| i + 1)
}

fn location(uri: &Value, line: Option<usize>, place: &str) -> Value {
    json!({
        "physicalLocation": {
            "artifactLocation": uri,
            "region": { "startLine": line.unwrap_or(1) }
        },
        "message": { "text": place }
    })
}

/// A rule's friendly name, PascalCase: `card.fields.required-present` is
/// `CardFieldsRequiredPresent`.
fn friendly_name(id: &str) -> String {
    id.split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|word| !word.is_empty())
        .map(|word| {
            let mut chars = word.chars();
            chars.next().map_or_else(String::new, |first| {
                first.to_ascii_uppercase().to_string() + chars.as_str()
            })
        })
        .collect()
}

fn rule(r: &CheckResult) -> Value {
    let mut text = format!(
        "{} ({} {}, A2A {} §{})",
        r.requirement, r.level, r.id, r.spec_version, r.section
    );
    if let Some(reading) = &r.reading {
        text.push_str(&format!(". The kit's reading: {reading}"));
    }
    json!({
        "id": r.id,
        "name": friendly_name(&r.id),
        "shortDescription": { "text": r.requirement },
        "fullDescription": { "text": text },
        "help": { "text": format!("A2A {} §{}: {}", r.spec_version, r.section, r.requirement) },
        "helpUri": spec_url(&r.spec_version),
        "defaultConfiguration": { "level": default_level(r.level) },
        "properties": {
            "level": r.level.as_str(),
            "spec": format!("A2A {} §{}", r.spec_version, r.section),
            "statements": r.statements,
            "tags": ["a2a", "conformance", r.level.as_str()],
        }
    })
}

/// The SARIF log of `report`. `baseline_text` is the text of the baseline file the report's
/// gate names, when it could be read: results are then placed at the lines naming them.
pub fn sarif(report: &Report, baseline_text: Option<&str>) -> String {
    let (uri, lines) = match &report.baseline {
        Some(gate) => (artifact(&gate.file), baseline_text),
        None => (artifact(&report.target.card_url), None),
    };
    let mut rules: Vec<Value> = Vec::new();
    let mut rule_ids: Vec<&str> = Vec::new();
    let mut results: Vec<Value> = Vec::new();
    for r in &report.results {
        let Some(level) = level_of(r.status) else {
            continue;
        };
        let index = match rule_ids.iter().position(|id| *id == r.id) {
            Some(index) => index,
            None => {
                rule_ids.push(&r.id);
                rules.push(rule(r));
                rules.len() - 1
            }
        };
        let place = place(r);
        let line = lines.and_then(|text| line_of(text, &format!("\"{}\"", r.id)));
        let mut result = json!({
            "ruleId": r.id,
            "ruleIndex": index,
            "level": level,
            "kind": if level == "note" { "review" } else { "fail" },
            "message": { "text": format!("{} [{place}] {}: {}", r.status.as_str(), r.id, r.message) },
            "locations": [location(&uri, line, &place)],
            "partialFingerprints": { "a2aCheckPlace/v1": format!("{} {place}", r.id) },
            "properties": {
                "status": r.status.as_str(),
                "level": r.level.as_str(),
                "place": place,
            }
        });
        let expected = report.baseline.as_ref().and_then(|gate| {
            gate.expected.iter().find(|e| {
                e.id == r.id
                    && e.binding == r.binding
                    && e.version == r.version
                    && e.status == r.status
            })
        });
        if let (Some(expected), Some(fields)) = (expected, result.as_object_mut()) {
            fields.insert(
                "suppressions".into(),
                json!([{ "kind": "external", "status": "accepted", "justification": expected.reason }]),
            );
        }
        results.push(result);
    }
    // A card that could not be used is itself a finding, on the card.
    if let Some(failure) = &report.failure {
        rules.push(json!({
            "id": UNUSABLE_RULE,
            "name": friendly_name(UNUSABLE_RULE),
            "shortDescription": { "text": "The agent card can be read and is a JSON object" },
            "fullDescription": { "text": "The kit could not use the agent card (it could not be fetched or read, it is not JSON, or not an object), so no check ran." },
            "help": { "text": "Serve (or write) the agent card as one JSON object: the run's failure message says what was tried and what came back." },
            "helpUri": spec_url("1.0"),
            "defaultConfiguration": { "level": "error" },
        }));
        results.push(json!({
            "ruleId": UNUSABLE_RULE,
            "ruleIndex": rules.len() - 1,
            "level": "error",
            "kind": "fail",
            "message": { "text": failure.message },
            "locations": [location(&artifact(&report.target.card_url), None, "card")],
        }));
    }
    if let Some(gate) = &report.baseline {
        if !gate.stale.is_empty() {
            rules.push(json!({
                "id": STALE_RULE,
                "name": friendly_name(STALE_RULE),
                "shortDescription": { "text": "A baseline entry no longer describes the run" },
                "fullDescription": { "text": "An entry of the --expect baseline matches no result, or its results no longer have its status: it fails the gate until it is removed or updated." },
                "help": { "text": "Remove the entry, or update its status to what the run now gives, with a reviewed reason." },
                "defaultConfiguration": { "level": "error" },
            }));
            let index = rules.len() - 1;
            for stale in &gate.stale {
                let line =
                    lines.and_then(|text| line_of(text, &format!("\"{}\"", stale.entry.check)));
                results.push(json!({
                    "ruleId": STALE_RULE,
                    "ruleIndex": index,
                    "level": "error",
                    "kind": "fail",
                    "message": { "text": format!("stale baseline entry for {} ({}): {}", stale.entry.check, stale.entry.status.as_str(), stale.why) },
                    "locations": [location(&uri, line, "baseline")],
                }));
            }
        }
    }
    let mut invocation = Map::new();
    invocation.insert(
        "executionSuccessful".into(),
        Value::Bool(report.failure.is_none()),
    );
    invocation.insert("startTimeUtc".into(), json!(report.started_at));
    invocation.insert("endTimeUtc".into(), json!(report.finished_at));
    if let Some(failure) = &report.failure {
        invocation.insert(
            "toolExecutionNotifications".into(),
            json!([{ "level": "error", "message": { "text": failure.message } }]),
        );
    }
    let log = json!({
        "$schema": SCHEMA,
        "version": VERSION,
        "runs": [{
            "tool": { "driver": {
                "name": report.tool.name,
                "version": report.tool.version,
                "semanticVersion": report.tool.version,
                "informationUri": "https://a2a-protocol.org/latest/specification/",
                "rules": rules,
            }},
            "automationDetails": { "id": "a2a-tck/" },
            "invocations": [Value::Object(invocation)],
            "results": results,
            "properties": {
                "verdict": report.verdict.as_str(),
                "verdictReason": report.verdict_reason,
                "target": report.target.url,
                "card": report.target.card_url,
            }
        }]
    });
    serde_json::to_string_pretty(&log).unwrap_or_default() + "\n"
}

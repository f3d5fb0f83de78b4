//! Compares two reports result by result (keyed by check x binding x version): regressions,
//! fixes, other changes, and results only one of them has. `a2a-tck diff` prints it and exits
//! 1 on a regression.

use std::fmt::Write as _;

use serde::Serialize;

use crate::reporting::report::{CheckResult, Report};
use crate::suite::check::{Binding, Level, ProtocolVersion, Status};

/// How bad a status is for the agent: a move up this scale is a regression.
fn severity(status: Status) -> u8 {
    match status {
        Status::Pass | Status::NotApplicable => 0,
        Status::Warn => 1,
        Status::Untestable | Status::Error => 2,
        Status::Fail => 3,
    }
}

/// One result whose status moved between the reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Change {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<ProtocolVersion>,
    pub level: Level,
    pub old: Status,
    pub new: Status,
    /// The newer report's message.
    pub message: String,
}

/// A result only one report has.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Only {
    pub id: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<ProtocolVersion>,
    pub level: Level,
    pub status: Status,
    pub message: String,
}

/// The comparison of two reports.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Diff {
    pub old_verdict: String,
    pub new_verdict: String,
    /// Results whose status got worse (PASS -> FAIL, PASS -> ERROR, WARN -> FAIL, ...).
    pub regressions: Vec<Change>,
    /// Results whose status got better.
    pub fixes: Vec<Change>,
    /// Results whose status changed without getting better or worse (PASS <-> N/A,
    /// ERROR <-> UNTESTABLE).
    pub changed: Vec<Change>,
    /// Results only the newer report has.
    pub new: Vec<Only>,
    /// Results only the older report has.
    pub removed: Vec<Only>,
    pub unchanged: usize,
    /// What makes the two reports hard to compare: different agents (card name), targets,
    /// kit versions, spec versions or selections. Each note is one sentence; empty when
    /// the two runs are alike.
    pub differences: Vec<String>,
}

/// What differs between the two runs themselves, beyond their results.
fn differences(old: &Report, new: &Report) -> Vec<String> {
    let mut out = Vec::new();
    let name = |r: &Report| {
        r.target
            .agent_name
            .clone()
            .unwrap_or_else(|| "an unnamed agent".into())
    };
    if old.target.agent_name != new.target.agent_name {
        out.push(format!(
            "the reports are of different agents: {:?} in the old, {:?} in the new",
            name(old),
            name(new)
        ));
    }
    // The built-in agent listens on another port each run: its address says nothing.
    if old.target.url != new.target.url && !(old.target.builtin && new.target.builtin) {
        out.push(format!(
            "the reports are of different targets: {} in the old, {} in the new",
            old.target.url, new.target.url
        ));
    }
    if old.tool.version != new.tool.version {
        out.push(format!(
            "the reports were written by different kit versions: {} in the old, {} in the new \
             (checks may have been added, removed or changed)",
            old.tool.version, new.tool.version
        ));
    }
    if old.spec_versions != new.spec_versions {
        out.push(format!(
            "the reports test different spec versions: {} in the old, {} in the new",
            old.spec_versions.join(", "),
            new.spec_versions.join(", ")
        ));
    }
    let selection = |r: &Report| {
        let mut parts = vec![format!("level {}", r.selection.level)];
        parts.extend(r.selection.select.iter().map(|s| format!("select {s}")));
        parts.extend((r.selection.bindings.iter()).map(|b| format!("binding {b}")));
        parts.extend((r.selection.versions.iter()).map(|v| format!("version {v}")));
        parts.join(", ")
    };
    if selection(old) != selection(new) {
        out.push(format!(
            "the reports select different checks: {} in the old; {} in the new",
            selection(old),
            selection(new)
        ));
    }
    out
}

fn key(r: &CheckResult) -> (&str, Option<Binding>, Option<ProtocolVersion>) {
    (r.id.as_str(), r.binding, r.version)
}

fn only(r: &CheckResult) -> Only {
    Only {
        id: r.id.clone(),
        binding: r.binding,
        version: r.version,
        level: r.level,
        status: r.status,
        message: r.message.clone(),
    }
}

/// Compares `old` with `new`; entries come in the newer report's order (removed ones in the
/// older's).
pub fn diff(old: &Report, new: &Report) -> Diff {
    let mut out = Diff {
        old_verdict: old.verdict.as_str().to_string(),
        new_verdict: new.verdict.as_str().to_string(),
        regressions: Vec::new(),
        fixes: Vec::new(),
        changed: Vec::new(),
        new: Vec::new(),
        removed: Vec::new(),
        unchanged: 0,
        differences: differences(old, new),
    };
    for n in &new.results {
        let Some(o) = old.results.iter().find(|o| key(o) == key(n)) else {
            out.new.push(only(n));
            continue;
        };
        if o.status == n.status {
            out.unchanged += 1;
            continue;
        }
        let change = Change {
            id: n.id.clone(),
            binding: n.binding,
            version: n.version,
            level: n.level,
            old: o.status,
            new: n.status,
            message: n.message.clone(),
        };
        match severity(n.status).cmp(&severity(o.status)) {
            std::cmp::Ordering::Greater => out.regressions.push(change),
            std::cmp::Ordering::Less => out.fixes.push(change),
            std::cmp::Ordering::Equal => out.changed.push(change),
        }
    }
    for o in &old.results {
        if !new.results.iter().any(|n| key(n) == key(o)) {
            out.removed.push(only(o));
        }
    }
    out
}

/// Where a result ran, in words: `rest 1.0`, `card 1.0`, `card`.
pub fn place(binding: Option<Binding>, version: Option<ProtocolVersion>) -> String {
    match (binding, version) {
        (Some(b), Some(v)) => format!("{b} {v}"),
        // A card check of the card a client of that version reads.
        (None, Some(v)) => format!("card {v}"),
        _ => "card".to_string(),
    }
}

impl Diff {
    /// The comparison for people.
    pub fn text(&self) -> String {
        let mut out = String::new();
        for note in &self.differences {
            let _ = writeln!(out, "note: {note}");
        }
        let changes = |out: &mut String, title: &str, list: &[Change]| {
            if list.is_empty() {
                return;
            }
            let _ = writeln!(out, "{title} ({}):", list.len());
            for c in list {
                let _ = writeln!(
                    out,
                    "  {:<10} -> {:<10} [{}] {} ({}): {}",
                    c.old.as_str(),
                    c.new.as_str(),
                    c.level,
                    c.id,
                    place(c.binding, c.version),
                    c.message
                );
            }
        };
        changes(&mut out, "regressions", &self.regressions);
        changes(&mut out, "fixes", &self.fixes);
        changes(&mut out, "changed", &self.changed);
        for (title, list) in [("new", &self.new), ("removed", &self.removed)] {
            if list.is_empty() {
                continue;
            }
            let _ = writeln!(out, "{title} ({}):", list.len());
            for r in list {
                let _ = writeln!(
                    out,
                    "  {:<10} [{}] {} ({}): {}",
                    r.status.as_str(),
                    r.level,
                    r.id,
                    place(r.binding, r.version),
                    r.message
                );
            }
        }
        let _ = writeln!(
            out,
            "{} regression(s), {} fix(es), {} other change(s), {} new, {} removed, {} unchanged; verdict {} -> {}",
            self.regressions.len(),
            self.fixes.len(),
            self.changed.len(),
            self.new.len(),
            self.removed.len(),
            self.unchanged,
            self.old_verdict,
            self.new_verdict
        );
        out
    }

    /// The comparison for machines.
    pub fn json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }
}

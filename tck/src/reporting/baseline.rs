//! A reviewed baseline of expected results (`--expect FILE`, TOML or YAML): known failures and
//! accepted untestables that do not fail the gate, each with its reason. An entry that no
//! longer describes the run (it matches no result, or its results no longer have its status)
//! is stale and fails the gate, so the baseline cannot quietly outlive the problems it excuses.

use std::fmt::Write as _;
use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use serde::{Deserialize, Serialize};

use crate::reporting::report::{CheckResult, Report, Verdict};
use crate::reporting::report::{Day, Entry, Expected, Gate, Stale};
use crate::suite::check::{Binding, ProtocolVersion, Status};

/// The reason `a2a-tck baseline` writes into every entry it makes.
pub const TODO_REASON: &str = "TODO: review";

/// A baseline file: a list of expectations.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    #[serde(default)]
    pub expect: Vec<Entry>,
}

/// Whether the gate judges results of this status: FAIL, ERROR and UNTESTABLE. WARN and N/A
/// never fail it, so an entry of theirs can only go stale.
pub fn gates(status: Status) -> bool {
    matches!(status, Status::Fail | Status::Error | Status::Untestable)
}

fn glob(pattern: &str, field: &str, index: usize) -> Result<GlobMatcher, String> {
    GlobBuilder::new(pattern)
        .case_insensitive(true)
        .build()
        .map(|g| g.compile_matcher())
        .map_err(|e| format!("entry {}: bad {field} glob {pattern:?}: {e}", index + 1))
}

/// An entry with its globs compiled.
struct Matcher<'a> {
    entry: &'a Entry,
    check: GlobMatcher,
    binding: Option<GlobMatcher>,
    version: Option<GlobMatcher>,
}

impl Matcher<'_> {
    /// Whether the entry is about this result (check x binding x version), whatever its status.
    fn keys_on(&self, result: &CheckResult) -> bool {
        let binding = result.binding.map_or("card", Binding::as_str);
        let version = result.version.map_or("card", ProtocolVersion::as_str);
        self.check.is_match(&result.id)
            && self.binding.as_ref().is_none_or(|g| g.is_match(binding))
            && self.version.as_ref().is_none_or(|g| g.is_match(version))
    }
}

impl Baseline {
    /// Reads a baseline: YAML for `.yaml`/`.yml`, TOML for `.toml`; checks every entry.
    pub fn load(path: &Path) -> Result<Baseline, String> {
        let shown = path.display();
        let text =
            std::fs::read_to_string(path).map_err(|e| format!("failed to read {shown}: {e}"))?;
        let extension = path
            .extension()
            .and_then(|e| e.to_str())
            .map(str::to_ascii_lowercase);
        let baseline: Baseline = match extension.as_deref() {
            Some("toml") => toml::from_str(&text).map_err(|e| format!("{shown}: {e}"))?,
            Some("yaml" | "yml") => {
                serde_yaml_ng::from_str(&text).map_err(|e| format!("{shown}: {e}"))?
            }
            _ => {
                return Err(format!(
                    "{shown}: a baseline is .toml, .yaml or .yml (by its extension)"
                ))
            }
        };
        baseline.matchers().map_err(|e| format!("{shown}: {e}"))?;
        Ok(baseline)
    }

    fn matchers(&self) -> Result<Vec<Matcher<'_>>, String> {
        self.expect
            .iter()
            .enumerate()
            .map(|(i, entry)| {
                if entry.reason.trim().is_empty() {
                    return Err(format!(
                        "entry {} ({}): the reason is empty",
                        i + 1,
                        entry.check
                    ));
                }
                if entry.status == Status::Pass {
                    return Err(format!(
                        "entry {} ({}): PASS is not a status to excuse; remove the entry",
                        i + 1,
                        entry.check
                    ));
                }
                Ok(Matcher {
                    entry,
                    check: glob(&entry.check, "check", i)?,
                    binding: entry
                        .binding
                        .as_deref()
                        .map(|p| glob(p, "binding", i))
                        .transpose()?,
                    version: entry
                        .version
                        .as_deref()
                        .map(|p| glob(p, "version", i))
                        .transpose()?,
                })
            })
            .collect()
    }

    /// How many entries still carry the reason `a2a-tck baseline` wrote.
    pub fn unreviewed(&self) -> usize {
        self.expect
            .iter()
            .filter(|e| e.reason.trim().starts_with("TODO"))
            .count()
    }

    /// Checks the entries against the kit's catalogue: an entry whose check glob names no
    /// check of this kit is an error (a typo, or a check renamed), not a stale entry; so is an
    /// entry whose reason is still a TODO, unless `allow_unreviewed` (while a team reviews).
    pub fn validate(&self, known: &[&str], allow_unreviewed: bool) -> Result<(), String> {
        let matchers = self.matchers()?;
        let mut problems = Vec::new();
        for (i, m) in matchers.iter().enumerate() {
            if !known.iter().any(|id| m.check.is_match(id)) {
                problems.push(format!(
                    "entry {} ({}): no check of this kit has that id (see `a2a-tck list`)",
                    i + 1,
                    m.entry.check
                ));
            }
            if !allow_unreviewed && m.entry.reason.trim().starts_with("TODO") {
                problems.push(format!(
                    "entry {} ({}): the reason is still {:?}; give the reason the result is \
                     accepted, or pass --allow-unreviewed while the team reviews",
                    i + 1,
                    m.entry.check,
                    m.entry.reason.trim()
                ));
            }
        }
        if problems.is_empty() {
            Ok(())
        } else {
            Err(problems.join("\n"))
        }
    }

    /// Judges a report against this baseline, today.
    pub fn gate(&self, report: &Report, file: &str) -> Result<Gate, String> {
        self.gate_on(report, file, &Day::today())
    }

    /// Judges a report against this baseline on `today`: an entry that expired before it
    /// excuses nothing and fails the gate.
    pub fn gate_on(&self, report: &Report, file: &str, today: &Day) -> Result<Gate, String> {
        let all = self.matchers()?;
        let expired = |m: &Matcher| m.entry.expires.as_ref().is_some_and(|d| d < today);
        let matchers: Vec<&Matcher> = all.iter().filter(|m| !expired(m)).collect();
        let mut expected = Vec::new();
        let mut unexpected = Vec::new();
        for result in &report.results {
            let by = matchers
                .iter()
                .find(|m| m.entry.status == result.status && m.keys_on(result));
            match by {
                Some(m) => expected.push(Expected {
                    id: result.id.clone(),
                    binding: result.binding,
                    version: result.version,
                    status: result.status,
                    reason: m.entry.reason.clone(),
                }),
                None => unexpected.push(result.clone()),
            }
        }
        let stale: Vec<Stale> = matchers
            .iter()
            .filter_map(|m| {
                let keyed: Vec<&CheckResult> =
                    report.results.iter().filter(|r| m.keys_on(r)).collect();
                let why = if keyed.is_empty() {
                    "it matches no result of this run".to_string()
                } else if keyed.iter().any(|r| r.status == m.entry.status) {
                    return None;
                } else if keyed.iter().all(|r| r.status == Status::Pass) {
                    "its results now pass".to_string()
                } else {
                    let mut now: Vec<&str> = keyed.iter().map(|r| r.status.as_str()).collect();
                    now.sort_unstable();
                    now.dedup();
                    format!(
                        "its results are now {}, none {}",
                        now.join(", "),
                        m.entry.status
                    )
                };
                Some(Stale {
                    entry: m.entry.clone(),
                    why,
                    gates: gates(m.entry.status),
                })
            })
            .chain(all.iter().filter(|m| expired(m)).map(|m| Stale {
                entry: m.entry.clone(),
                why: format!(
                    "it expired after {}: the results it excused gate again",
                    m.entry.expires.as_ref().map_or("", Day::as_str)
                ),
                gates: true,
            }))
            .collect();
        let tested = report.interfaces.iter().filter(|i| i.tested).count();
        let scope = crate::reporting::report::VerdictScope {
            interfaces_tested: tested,
            needs_credentials: (report.interfaces.iter())
                .filter(|i| i.tested && i.needs_credentials)
                .map(|i| format!("{} {}", i.protocol_binding, i.protocol_version))
                .collect(),
            must_selected: (report.results.iter().map(|r| r.level))
                .chain(report.not_run.iter().map(|n| n.level))
                .any(|l| l == crate::suite::check::Level::Must),
        };
        let (mut verdict, mut verdict_reason) = Verdict::of(&unexpected, &scope);
        // Setting the expected results aside can leave no MUST pass (every MUST result was
        // an expected failure): the run still judged MUST checks, and nothing unexpected is
        // wrong or unjudged, so the gate holds. A run that judged no MUST check stays
        // inconclusive.
        let unjudged = unexpected
            .iter()
            .any(|r| matches!(r.status, Status::Error | Status::Untestable));
        let judged_must = report.results.iter().any(|r| {
            r.level == crate::suite::check::Level::Must
                && matches!(r.status, Status::Pass | Status::Fail)
        });
        if verdict == Verdict::Inconclusive && !unjudged && tested > 0 && judged_must {
            verdict = Verdict::Conformant;
            verdict_reason = "no MUST check failed that the baseline does not expect".to_string();
        }
        let gating = stale.iter().filter(|s| s.gates).count();
        let passed = verdict == Verdict::Conformant && gating == 0;
        let mut reason = format!(
            "over the results the baseline does not expect: {verdict_reason}; {} expected",
            crate::reporting::report::plural(expected.len(), "result", "results")
        );
        if gating > 0 {
            let _ = write!(
                reason,
                "; {} stale or expired",
                crate::reporting::report::plural(gating, "baseline entry", "baseline entries")
            );
        }
        if stale.len() > gating {
            let _ =
                write!(
                reason,
                "; {} of a status the gate does not judge (WARN, N/A) no longer {} (informational)",
                crate::reporting::report::plural(stale.len() - gating, "entry", "entries"),
                if stale.len() - gating == 1 { "matches" } else { "match" }
            );
        }
        Ok(Gate {
            file: file.to_string(),
            passed,
            verdict,
            reason,
            expected,
            stale,
        })
    }

    /// A starting baseline: every result the gate judges against the agent (FAIL, ERROR,
    /// UNTESTABLE), reason to be reviewed. WARN is left out: it never fails the gate, so
    /// its entry could only go stale.
    pub fn from_report(report: &Report) -> Baseline {
        let expect = report
            .results
            .iter()
            .filter(|r| gates(r.status))
            .map(|r| Entry {
                check: r.id.clone(),
                binding: r.binding.map(|b| b.as_str().to_string()),
                version: r.version.map(|v| v.as_str().to_string()),
                status: r.status,
                reason: TODO_REASON.to_string(),
                expires: None,
            })
            .collect();
        Baseline { expect }
    }

    /// The baseline as TOML.
    pub fn to_toml(&self) -> Result<String, String> {
        toml::to_string(self).map_err(|e| e.to_string())
    }

    /// The baseline as YAML.
    pub fn to_yaml(&self) -> Result<String, String> {
        serde_yaml_ng::to_string(self).map_err(|e| e.to_string())
    }
}

fn place(binding: Option<Binding>, version: Option<ProtocolVersion>) -> String {
    match (binding, version) {
        (Some(b), Some(v)) => format!("{b} {v}"),
        // A card check of the card a client of that version reads.
        (None, Some(v)) => format!("card {v}"),
        _ => "card".to_string(),
    }
}

fn entry_text(entry: &Entry) -> String {
    format!(
        "{} on {} {} expected {}",
        entry.check,
        entry.binding.as_deref().unwrap_or("*"),
        entry.version.as_deref().unwrap_or("*"),
        entry.status
    )
}

/// The gate in the text summary: expected results, stale entries, the gate line.
pub fn summary(gate: &Gate) -> String {
    let mut out = String::new();
    for e in &gate.expected {
        let _ = writeln!(
            out,
            "expected   {} {} ({}): {}",
            e.status,
            e.id,
            place(e.binding, e.version),
            e.reason
        );
    }
    for s in &gate.stale {
        let word = if s.gates {
            "STALE     "
        } else {
            "stale (informational, WARN and N/A do not gate)"
        };
        let _ = writeln!(out, "{word} {}: {}", entry_text(&s.entry), s.why);
    }
    let _ = writeln!(
        out,
        "gate: {} with baseline {} ({})",
        if gate.passed { "PASS" } else { "FAIL" },
        gate.file,
        gate.reason
    );
    out
}

/// The gate in the Markdown summary.
pub fn markdown(gate: &Gate) -> String {
    let cell = |text: &str| text.replace('|', "\\|").replace('\n', " ");
    let mut out = String::new();
    let _ = writeln!(
        out,
        "\n## Baseline `{}`: gate {}\n\n{}.\n",
        gate.file,
        if gate.passed { "PASS" } else { "FAIL" },
        cell(&gate.reason)
    );
    if !gate.expected.is_empty() {
        let _ = writeln!(
            out,
            "| expected | check | where | reason |\n|---|---|---|---|"
        );
        for e in &gate.expected {
            let _ = writeln!(
                out,
                "| {} | `{}` | {} | {} |",
                e.status,
                e.id,
                place(e.binding, e.version),
                cell(&e.reason)
            );
        }
    }
    if !gate.stale.is_empty() {
        let _ = writeln!(out, "\n| stale entry | why |\n|---|---|");
        for s in &gate.stale {
            let _ = writeln!(
                out,
                "| {} | {} |",
                cell(&entry_text(&s.entry)),
                cell(&if s.gates {
                    s.why.clone()
                } else {
                    format!("{} (informational: WARN and N/A do not gate)", s.why)
                })
            );
        }
    }
    out
}

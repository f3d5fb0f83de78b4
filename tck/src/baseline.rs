//! A reviewed baseline of expected results (`--expect FILE`, TOML or YAML): known failures and
//! accepted untestables that do not fail the gate, each with its reason. An entry that no
//! longer describes the run (it matches no result, or its results no longer have its status)
//! is stale and fails the gate, so the baseline cannot quietly outlive the problems it excuses.

use std::fmt::Write as _;
use std::path::Path;

use globset::{GlobBuilder, GlobMatcher};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::check::{Binding, ProtocolVersion, Status};
use crate::report::{CheckResult, Report, Verdict};

/// The reason `a2a-tck baseline` writes into every entry it makes.
pub const TODO_REASON: &str = "TODO: review";

/// A baseline file: a list of expectations.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Baseline {
    #[serde(default)]
    pub expect: Vec<Entry>,
}

/// One reviewed expectation: results of checks matching `check` (a glob over check ids), on
/// bindings matching `binding` and versions matching `version` (globs; absent means any; card
/// checks are matched as binding and version `card`), are expected to have `status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    pub check: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    pub status: Status,
    /// Why this result is accepted: required.
    pub reason: String,
}

/// What a baseline made of a run: in the report as `baseline`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Gate {
    /// The baseline file, as given.
    pub file: String,
    /// Whether the gate passes: the verdict over the results the baseline does not expect is
    /// conformant, and no entry is stale. The exit status follows it.
    pub passed: bool,
    /// The verdict over the results the baseline does not expect.
    pub verdict: Verdict,
    /// Why the gate passes or fails, in one sentence.
    pub reason: String,
    /// Results the baseline expects, with the reason it gives.
    pub expected: Vec<Expected>,
    /// Entries that no longer describe the run.
    pub stale: Vec<Stale>,
}

/// A result that a baseline entry expects.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Expected {
    pub id: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<ProtocolVersion>,
    pub status: Status,
    pub reason: String,
}

/// A baseline entry that no longer describes the run, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stale {
    pub entry: Entry,
    pub why: String,
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

    /// Judges a report against this baseline.
    pub fn gate(&self, report: &Report, file: &str) -> Result<Gate, String> {
        let matchers = self.matchers()?;
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
                })
            })
            .collect();
        let tested = report.interfaces.iter().filter(|i| i.tested).count();
        let scope = crate::report::VerdictScope {
            interfaces_tested: tested,
            needs_credentials: (report.interfaces.iter())
                .filter(|i| i.tested && i.needs_credentials)
                .map(|i| format!("{} {}", i.protocol_binding, i.protocol_version))
                .collect(),
            must_selected: (report.results.iter().map(|r| r.level))
                .chain(report.not_run.iter().map(|n| n.level))
                .any(|l| l == crate::check::Level::Must),
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
            r.level == crate::check::Level::Must && matches!(r.status, Status::Pass | Status::Fail)
        });
        if verdict == Verdict::Inconclusive && !unjudged && tested > 0 && judged_must {
            verdict = Verdict::Conformant;
            verdict_reason = "no MUST check failed that the baseline does not expect".to_string();
        }
        let passed = verdict == Verdict::Conformant && stale.is_empty();
        let mut reason = format!(
            "over the results the baseline does not expect: {verdict_reason}; {} result(s) expected",
            expected.len()
        );
        if !stale.is_empty() {
            let _ = write!(reason, "; {} stale baseline entry(ies)", stale.len());
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

    /// A starting baseline: every result that is neither PASS nor N/A, reason to be reviewed.
    pub fn from_report(report: &Report) -> Baseline {
        let expect = report
            .results
            .iter()
            .filter(|r| !matches!(r.status, Status::Pass | Status::NotApplicable))
            .map(|r| Entry {
                check: r.id.clone(),
                binding: r.binding.map(|b| b.as_str().to_string()),
                version: r.version.map(|v| v.as_str().to_string()),
                status: r.status,
                reason: TODO_REASON.to_string(),
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
        let _ = writeln!(out, "STALE      {}: {}", entry_text(&s.entry), s.why);
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
                cell(&s.why)
            );
        }
    }
    out
}

//! The document the ACTS runner writes, one per binding (its JSON, as
//! `schemas/acts-report.schema.json` describes it), and where the documents are written
//! (`--acts-report`: a directory, or one file for a run of one binding).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Serialize;
use serde_json::Value;

use super::Sdk;
use crate::suite::check::{Binding, ProtocolVersion, Status};

/// One ACTS report: the document of one binding.
#[derive(Debug, Clone, Serialize)]
pub struct ActsReport {
    pub acts_version: String,
    pub spec_version: String,
    pub generated_at: String,
    pub sdk: Sdk,
    pub transport: String,
    pub environment: BTreeMap<String, Value>,
    pub summary: Summary,
    pub suites: Vec<Suite>,
    /// How the kit judged it: added by this writer, beside the format's own fields.
    pub runner: Runner,
}

/// The runner that wrote the document, and the kit's verdict on the whole run.
#[derive(Debug, Clone, Serialize)]
pub struct Runner {
    pub name: String,
    pub version: String,
    /// The kit's verdict on the run (every binding and version), by the kit's own rules.
    pub kit_verdict: String,
}

/// The counts of a document.
#[derive(Debug, Clone, Default, Serialize)]
pub struct Summary {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub errors: usize,
    pub duration_ms: u64,
    pub by_level: ByLevel,
}

/// The counts by ACTS level.
#[derive(Debug, Clone, Default, Serialize)]
pub struct ByLevel {
    pub must: LevelCounts,
    pub should: LevelCounts,
    pub may: LevelCounts,
}

/// The counts of one level.
#[derive(Debug, Clone, Default, Serialize)]
pub struct LevelCounts {
    pub total: usize,
    pub passed: usize,
    pub failed: usize,
    pub skipped: usize,
    pub errors: usize,
}

impl LevelCounts {
    pub(super) fn add(&mut self, result: Outcome) {
        self.total += 1;
        match result {
            Outcome::Pass => self.passed += 1,
            Outcome::Fail => self.failed += 1,
            Outcome::Skip => self.skipped += 1,
            Outcome::Error => self.errors += 1,
        }
    }
}

/// One ACTS test file's tests.
#[derive(Debug, Clone, Serialize)]
pub struct Suite {
    pub id: String,
    pub name: String,
    pub tests: Vec<Test>,
}

/// An ACTS test's result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Outcome {
    Pass,
    Fail,
    Skip,
    Error,
}

/// One ACTS test, as the kit judged it.
#[derive(Debug, Clone, Serialize)]
pub struct Test {
    pub id: String,
    pub name: String,
    pub level: String,
    pub result: Outcome,
    pub duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skip_reason: Option<String>,
    pub configuration: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub failure: Option<Failure>,
    pub steps: Vec<Step>,
    /// How the kit covers the test: covered, stricter, read-differently, partly,
    /// not-covered or client-only (`fixtures/acts-tests.json`).
    pub kit_coverage: String,
    /// The kit's checks that cover it.
    pub kit_checks: Vec<String>,
    /// Where the kit's reading or coverage differs from the test's, in words.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kit_note: Option<String>,
    /// Whether the kit's expectation is the test's own at another level (`differs: level` in
    /// `fixtures/acts-tests.json`): its pass and failure are then the test's.
    #[serde(skip)]
    pub level_only: bool,
    /// The kit's own status behind the result, where it tells more than the result does
    /// (`WARN`, `UNTESTABLE`, `N/A`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kit_status: Option<Status>,
}

/// Why a test failed or errored.
#[derive(Debug, Clone, Serialize)]
pub struct Failure {
    pub message: String,
    /// The kit's result that failed: `check id (binding version)`.
    pub step_id: String,
    /// The rule the check tests.
    pub expected: String,
    /// What the kit saw.
    pub actual: String,
    /// The check that judged it, and where.
    pub assertion_path: String,
}

/// One kit result behind a test.
#[derive(Debug, Clone, Serialize)]
pub struct Step {
    pub id: String,
    pub check: String,
    pub result: Outcome,
    pub status: Status,
    pub duration_ms: u64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub version: Option<ProtocolVersion>,
    pub message: String,
}

impl ActsReport {
    /// The document as JSON.
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Its file name: `acts-report-{sdk}-{transport}-{timestamp}.json`.
    pub fn file_name(&self) -> String {
        let sdk: String = (self.sdk.name.chars())
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect();
        let sdk = sdk.trim_matches('-');
        let stamp: String = (self
            .generated_at
            .split('.')
            .next()
            .unwrap_or_default()
            .chars())
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
        let stamp = if stamp.ends_with('Z') {
            stamp
        } else {
            stamp + "Z"
        };
        format!(
            "acts-report-{}-{}-{stamp}.json",
            if sdk.is_empty() { "unknown" } else { sdk },
            self.transport
        )
    }

    /// The console line of the ACTS runner, per level: `MUST 45/47 passed (2 skipped)`.
    pub fn console_lines(&self) -> Vec<String> {
        let levels = &self.summary.by_level;
        [
            ("MUST", &levels.must),
            ("SHOULD", &levels.should),
            ("MAY", &levels.may),
        ]
        .into_iter()
        .filter(|(name, c)| c.total > 0 || *name == "MUST")
        .map(|(name, c)| {
            let mut also = Vec::new();
            for (n, word) in [
                (c.failed, "failed"),
                (c.errors, "errors"),
                (c.skipped, "skipped"),
            ] {
                if n > 0 {
                    also.push(format!("{n} {word}"));
                }
            }
            let also = if also.is_empty() {
                String::new()
            } else {
                format!(" ({})", also.join(", "))
            };
            format!(
                "ACTS {}: {name} {}/{} passed{also}",
                self.transport, c.passed, c.total
            )
        })
        .collect()
    }
}

/// Where the ACTS documents go: a directory (one file per binding, named by
/// [`ActsReport::file_name`]) or one file (a path ending in `.json`, for a run of one binding).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ActsDestination {
    Directory(PathBuf),
    File(PathBuf),
}

impl ActsDestination {
    /// A path ending in `.json` that is not a directory is a file; anything else a directory.
    pub fn parse(path: &Path) -> ActsDestination {
        let json = path
            .extension()
            .is_some_and(|e| e.eq_ignore_ascii_case("json"));
        if json && !path.is_dir() {
            ActsDestination::File(path.to_path_buf())
        } else {
            ActsDestination::Directory(path.to_path_buf())
        }
    }

    /// Whether the documents can be written there, before the run (a missing directory is
    /// made).
    pub fn check(&self) -> Result<(), String> {
        let probe = match self {
            ActsDestination::Directory(dir) => {
                std::fs::create_dir_all(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
                dir.join("acts-report.json")
            }
            ActsDestination::File(path) => path.clone(),
        };
        crate::facts::destination::Destination::Path(probe.clone())
            .check()
            .map_err(|e| format!("{}: cannot be written: {e}", probe.display()))
    }

    /// Writes `documents`; returns the paths written, or why not.
    pub fn write(&self, documents: &[ActsReport]) -> Result<Vec<PathBuf>, String> {
        let paths: Vec<PathBuf> = match self {
            ActsDestination::Directory(dir) => {
                documents.iter().map(|d| dir.join(d.file_name())).collect()
            }
            ActsDestination::File(path) if documents.len() == 1 => vec![path.clone()],
            ActsDestination::File(path) => {
                return Err(format!(
                    "{} names one file, and the run has {} bindings to report: give a \
                     directory",
                    path.display(),
                    documents.len()
                ))
            }
        };
        for (path, document) in paths.iter().zip(documents) {
            crate::facts::destination::Destination::Path(path.clone())
                .write(document.to_json().as_bytes())
                .map_err(|e| format!("{}: {e}", path.display()))?;
        }
        Ok(paths)
    }
}

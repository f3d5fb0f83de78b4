//! The CI gate of a finished run, the one every entrance uses (the agent run, `a2a-tck card`,
//! `a2a-tck client`, the library's `api::run`): the reviewed baseline (`--expect`) loaded and
//! checked against the kit's catalogue, applied to the report; the floor (`--min-judged`)
//! applied; and the exit status.
//!
//! ```text
//! let gate = Gate::load(expect, min_judged, allow_unreviewed, &known_ids)?; // before the run
//! gate.apply(&mut report);                                                  // after it
//! let status = gate.exit_status(&report);
//! ```
//!
//! A run the kit could not make (verdict `error`: the card unusable, the agent down) or that
//! was stopped (verdict `interrupted`) judged nothing, or not all it planned: the baseline is
//! left unapplied and the report's reason says so, never "stale entries" that would blame the
//! baseline for an outage or a stop.

use std::path::Path;

use crate::reporting::baseline::Baseline;
use crate::reporting::floor::MinJudged;
use crate::reporting::report::{Report, Verdict};

/// The exit status of a run that passed (every gate held).
pub const EXIT_PASS: u8 = 0;
/// The exit status of a run that failed a gate: the verdict, the floor or the baseline.
pub const EXIT_FAIL: u8 = 1;
/// The exit status of a run the kit could not make (and of a usage error).
pub const EXIT_KIT: u8 = 2;
/// The exit status of an interrupted run when the signal is not known (SIGINT's, 128 + 2);
/// the command exits with the status of the signal it received (143 for SIGTERM).
pub const EXIT_INTERRUPTED: u8 = 130;

/// A baseline as the gate holds it: the entries, the name reports give it (its path), and its
/// text (SARIF locates the results it expects in it).
#[derive(Debug, Clone)]
struct Named {
    baseline: Baseline,
    name: String,
    text: Option<String>,
}

/// What a run is gated on: a checked baseline, a floor, both or neither.
#[derive(Debug, Clone, Default)]
pub struct Gate {
    baseline: Option<Named>,
    floor: Option<MinJudged>,
    notes: Vec<String>,
}

impl Gate {
    /// Reads the baseline at `expect` (if given) and checks it against `known_ids`, the ids of
    /// the checks the run can give (see [`Gate::new`]). The error is a usage error, naming the
    /// file.
    pub fn load(
        expect: Option<&Path>,
        floor: Option<MinJudged>,
        allow_unreviewed: bool,
        known_ids: &[&str],
    ) -> Result<Gate, String> {
        let Some(path) = expect else {
            return Gate::new(None, floor, allow_unreviewed, known_ids);
        };
        let baseline = Baseline::load(path)?;
        let name = path.display().to_string();
        let mut gate = Gate::new(Some((baseline, name)), floor, allow_unreviewed, known_ids)?;
        if let Some(named) = &mut gate.baseline {
            named.text = std::fs::read_to_string(path).ok();
        }
        Ok(gate)
    }

    /// The gate on a baseline already read (`name` is how reports name it) and a floor. An
    /// entry whose check glob names no id of `known_ids` is an error (a typo, or a check
    /// renamed), and so is one whose reason is still a TODO unless `allow_unreviewed`, when
    /// [`Gate::notes`] counts them instead.
    pub fn new(
        baseline: Option<(Baseline, String)>,
        floor: Option<MinJudged>,
        allow_unreviewed: bool,
        known_ids: &[&str],
    ) -> Result<Gate, String> {
        let mut notes = Vec::new();
        if let Some((baseline, name)) = &baseline {
            (baseline.validate(known_ids, allow_unreviewed))
                .map_err(|e| format!("{name}:\n{e}"))?;
            let unreviewed = baseline.unreviewed();
            if unreviewed > 0 {
                notes.push(format!(
                    "{} still {} a TODO as {} reason (allowed by --allow-unreviewed)",
                    crate::reporting::report::plural(
                        unreviewed,
                        "baseline entry",
                        "baseline entries"
                    ),
                    if unreviewed == 1 { "gives" } else { "give" },
                    if unreviewed == 1 { "its" } else { "their" },
                ));
            }
        }
        Ok(Gate {
            baseline: baseline.map(|(baseline, name)| Named {
                baseline,
                name,
                text: None,
            }),
            floor,
            notes,
        })
    }

    /// What to tell the user before the run (entries still under review).
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The baseline file's text, when the gate read one: SARIF locates the results it
    /// expects in it.
    pub fn baseline_text(&self) -> Option<&str> {
        self.baseline.as_ref().and_then(|b| b.text.as_deref())
    }

    /// Applies the gate to a finished report: the floor's outcome into `report.floor`, the
    /// baseline's into `report.baseline`. A report of a run the kit could not make (verdict
    /// `error`) or that was stopped (`interrupted`) is not judged against the baseline: its
    /// reason says the baseline was not applied, and so does the note returned, for the
    /// user's terminal.
    pub fn apply(&self, report: &mut Report) -> Vec<String> {
        if report.interrupted && report.verdict != Verdict::Interrupted {
            report.mark_interrupted();
        }
        let mut notes = Vec::new();
        if let Some(floor) = self.floor {
            report.floor = Some(floor.judge(report));
        }
        let Some(named) = &self.baseline else {
            return notes;
        };
        // A configuration of the agent that could not be tested left unjudged what it was
        // there to judge: the baseline, made over every configuration, cannot pass that.
        let untested: Vec<&str> = (report.configurations.iter())
            .filter(|c| c.failure.is_some())
            .map(|c| c.name.as_str())
            .collect();
        let why = match report.verdict {
            Verdict::Error => Some("the kit could not run".to_string()),
            Verdict::Interrupted => Some("the run was interrupted".to_string()),
            _ if !untested.is_empty() => Some(format!(
                "the agent's configuration {} could not be tested",
                untested.join(", ")
            )),
            _ => None,
        };
        let outcome = match why {
            Some(why) => Err(why),
            None => named.baseline.gate(report, &named.name),
        };
        match outcome {
            Ok(gate) => report.baseline = Some(gate),
            Err(why) => {
                let note = format!("the baseline {} was not applied: {why}", named.name);
                report.verdict_reason.push_str(&format!("; {note}"));
                notes.push(note);
            }
        }
        notes
    }

    /// The exit status of a report this gate was applied to: [`EXIT_INTERRUPTED`] for a run
    /// that was stopped, [`EXIT_KIT`] for one the kit could not make, [`EXIT_FAIL`] when the
    /// floor is not met, else the baseline's gate when one was applied, else the verdict's
    /// (`conformant` passes; `non-conformant` and `inconclusive` fail).
    pub fn exit_status(&self, report: &Report) -> u8 {
        if report.interrupted || report.verdict == Verdict::Interrupted {
            return EXIT_INTERRUPTED;
        }
        if report.verdict == Verdict::Error {
            return EXIT_KIT;
        }
        if report.floor.as_ref().is_some_and(|f| !f.passed) {
            return EXIT_FAIL;
        }
        if let Some(gate) = &report.baseline {
            return if gate.passed { EXIT_PASS } else { EXIT_FAIL };
        }
        match report.verdict {
            Verdict::Conformant => EXIT_PASS,
            Verdict::NonConformant | Verdict::Inconclusive => EXIT_FAIL,
            Verdict::Error => EXIT_KIT,
            Verdict::Interrupted => EXIT_INTERRUPTED,
        }
    }
}

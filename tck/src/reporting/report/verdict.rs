//! The verdict of a run (the gate a report gives: conformant, non-conformant, inconclusive,
//! error, interrupted) judged from its results and what it was judged over, and what a run
//! left out, which the verdict names.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::{plural, CheckResult};
use crate::suite::check::{Level, Status};

/// The gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// Every MUST check passed; nothing failed to run.
    Conformant,
    /// At least one MUST check failed.
    NonConformant,
    /// No MUST check failed, but some check could not be judged (ERROR or UNTESTABLE), or
    /// nothing was testable: compliance is not shown.
    Inconclusive,
    /// The run could not start (the agent card is unusable): see `failure`.
    Error,
    /// The run was stopped (SIGINT, SIGTERM) before it ended: what it judged is reported, but
    /// no verdict on the agent is given (`interrupted` is set, and `not_run` names what it left
    /// out).
    Interrupted,
}

impl Verdict {
    pub fn as_str(self) -> &'static str {
        match self {
            Verdict::Conformant => "conformant",
            Verdict::NonConformant => "non-conformant",
            Verdict::Inconclusive => "inconclusive",
            Verdict::Error => "error",
            Verdict::Interrupted => "interrupted",
        }
    }

    /// The verdict over a set of results, and the reason for it, with what the run could
    /// not judge: interfaces the agent refused for want of credentials make it
    /// `inconclusive`, never `non-conformant` (the kit's requests were refused, not judged).
    /// Counts name their unit: results (check x interface) or checks.
    pub fn of(results: &[CheckResult], scope: &VerdictScope) -> (Verdict, String) {
        let count =
            |pred: &dyn Fn(&CheckResult) -> bool| results.iter().filter(|r| pred(r)).count();
        let checks = |pred: &dyn Fn(&CheckResult) -> bool| {
            let mut ids: Vec<&str> = results
                .iter()
                .filter(|r| pred(r))
                .map(|r| r.id.as_str())
                .collect();
            ids.sort_unstable();
            ids.dedup();
            ids.len()
        };
        let failed = |r: &CheckResult| r.level == Level::Must && r.status == Status::Fail;
        let unjudged_of = |r: &CheckResult| matches!(r.status, Status::Error | Status::Untestable);
        let must_fail = count(&failed);
        let unjudged = count(&unjudged_of);
        let judged = count(&|r| matches!(r.status, Status::Pass | Status::Warn | Status::Fail));
        let failed_words = || {
            format!(
                "{} failed ({})",
                plural(checks(&failed), "MUST check", "MUST checks"),
                plural(must_fail, "result", "results")
            )
        };
        if !scope.needs_credentials.is_empty() {
            let mut reason = format!(
                "the agent refused the kit for want of credentials on {} ({}), so {} could not \
                 be judged: give them with --bearer TOKEN, --bearer-env VAR or --header \
                 'NAME: VALUE'",
                plural(scope.needs_credentials.len(), "interface", "interfaces"),
                scope.needs_credentials.join(", "),
                plural(unjudged, "result", "results"),
            );
            if must_fail > 0 {
                reason.push_str(&format!("; besides, {}", failed_words()));
            }
            (Verdict::Inconclusive, reason)
        } else if must_fail > 0 {
            (Verdict::NonConformant, failed_words())
        } else if scope.interfaces_tested == 0 {
            (
                Verdict::Inconclusive,
                "the card declares no interface this kit can test".to_string(),
            )
        } else if unjudged > 0 {
            (
                Verdict::Inconclusive,
                format!(
                    "no MUST check failed, but {} of {} could not be judged (ERROR or UNTESTABLE)",
                    plural(unjudged, "result", "results"),
                    plural(checks(&unjudged_of), "check", "checks"),
                ),
            )
        } else if results.is_empty() {
            (
                Verdict::Inconclusive,
                "the selection ran no check".to_string(),
            )
        } else if scope.must_selected
            && !results
                .iter()
                .any(|r| r.level == Level::Must && r.status == Status::Pass)
        {
            (
                Verdict::Inconclusive,
                "no MUST check applied (all N/A), so compliance is not shown".to_string(),
            )
        } else if judged == 0 {
            (
                Verdict::Inconclusive,
                "no check applied (every result is N/A), so nothing was judged".to_string(),
            )
        } else if !scope.must_selected {
            (
                Verdict::Conformant,
                format!(
                    "the selection holds no MUST check, and none of its {} failed",
                    plural(judged, "judged result", "judged results")
                ),
            )
        } else {
            (
                Verdict::Conformant,
                "every selected MUST check passed".to_string(),
            )
        }
    }
}

/// What the verdict is judged over, besides the results.
#[derive(Debug, Clone, Default)]
pub struct VerdictScope {
    /// How many interfaces the run tests.
    pub interfaces_tested: usize,
    /// The tested interfaces the agent refused for want of credentials (`jsonrpc 1.0`, ...).
    pub needs_credentials: Vec<String>,
    /// Whether the checks selected hold a MUST check (run or not): a selection of SHOULD
    /// checks only is judged on what it holds.
    pub must_selected: bool,
}

/// What a run left out: checks the selection did not keep, checks not run for want of a
/// scenario contract, interfaces the selection did not keep. A run that left something out
/// says so in its verdict (`conformant (partial: 61 checks not run)`) and still exits 0 when
/// everything it ran passed; `--min-judged` puts a floor under it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Partial {
    /// Checks of the catalogue the selection (`--select`, `--level`) left out (the
    /// durability area counts only when asked for with `--restart-cmd` or `--durability`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub checks_not_selected: usize,
    /// Checks not run because they need a scenario the contract does not give (`not_run`).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub checks_not_run: usize,
    /// Declared interfaces the selection (`--binding`, `--version`) left out.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub interfaces_not_selected: usize,
}

fn is_zero(n: &usize) -> bool {
    *n == 0
}

impl Partial {
    /// None when the run left nothing out.
    pub fn if_any(self) -> Option<Partial> {
        (self != Partial::default()).then_some(self)
    }

    /// `61 checks not run (no scenario contract), 12 checks not selected`.
    pub fn words(&self) -> String {
        self.words_for(None)
    }

    /// [`Partial::words`], naming what left the checks not run: the drive file of a run
    /// driven by one (`61 checks not run (not in the drive file)`), else the contract.
    pub fn words_for(&self, contract: Option<&crate::suite::contract::ContractReport>) -> String {
        let mut parts = Vec::new();
        if self.checks_not_run > 0 {
            let why = match contract.map(|c| c.used) {
                Some(crate::suite::contract::Contract::Drive) => "not in the drive file",
                _ => "no scenario contract",
            };
            parts.push(format!(
                "{} not run ({why})",
                plural(self.checks_not_run, "check", "checks")
            ));
        }
        if self.checks_not_selected > 0 {
            parts.push(format!(
                "{} not selected",
                plural(self.checks_not_selected, "check", "checks")
            ));
        }
        if self.interfaces_not_selected > 0 {
            parts.push(format!(
                "{} not selected",
                plural(self.interfaces_not_selected, "interface", "interfaces")
            ));
        }
        parts.join(", ")
    }
}

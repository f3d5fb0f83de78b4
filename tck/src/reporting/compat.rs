//! The compatibility summary people can quote: per level, how many of the requirements a run
//! tested (the registry sentences its checks cite) the agent satisfied everywhere they applied,
//! how many it broke, and how many could not be judged. Counted from the results alone.

use std::collections::BTreeMap;

use crate::reporting::report::{CheckResult, Compatibility, LevelCount};
use crate::suite::check::{Level, Status};

impl LevelCount {
    /// Requirements that applied: satisfied + violated + unjudged.
    pub fn applicable(&self) -> usize {
        self.satisfied + self.violated + self.unjudged
    }
}

/// What became of one requirement over all its results.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Outcome {
    NotApplicable,
    Satisfied,
    Unjudged,
    Violated,
}

fn outcome(status: Status) -> Outcome {
    match status {
        Status::Pass => Outcome::Satisfied,
        Status::NotApplicable => Outcome::NotApplicable,
        Status::Error | Status::Untestable => Outcome::Unjudged,
        Status::Fail | Status::Warn => Outcome::Violated,
    }
}

/// Counts the requirements cited by `results`. A requirement takes the strongest level of
/// the checks citing it, and its worst outcome over all its results.
pub fn of(results: &[CheckResult]) -> Compatibility {
    let mut requirements: BTreeMap<&str, (Level, Outcome)> = BTreeMap::new();
    let mut tested_on: Vec<String> = Vec::new();
    for result in results {
        let place = crate::reporting::report::place(result);
        if !tested_on.contains(&place) {
            tested_on.push(place);
        }
        let found = outcome(result.status);
        for statement in &result.statements {
            let entry = requirements
                .entry(statement.as_str())
                .or_insert((result.level, found));
            entry.0 = entry.0.min(result.level);
            entry.1 = entry.1.max(found);
        }
    }
    let mut levels: BTreeMap<Level, LevelCount> = Level::ALL
        .iter()
        .map(|level| (*level, LevelCount::default()))
        .collect();
    for (level, found) in requirements.values() {
        let count = levels.entry(*level).or_default();
        match found {
            Outcome::Satisfied => count.satisfied += 1,
            Outcome::Violated => count.violated += 1,
            Outcome::Unjudged => count.unjudged += 1,
            Outcome::NotApplicable => count.not_applicable += 1,
        }
    }
    let satisfied: usize = levels.values().map(|c| c.satisfied).sum();
    let applicable: usize = levels.values().map(LevelCount::applicable).sum();
    let percent =
        (applicable > 0).then(|| (satisfied as f64 * 1000.0 / applicable as f64).round() / 10.0);
    let line = line(&levels, percent, &tested_on);
    Compatibility {
        levels,
        percent,
        tested_on,
        line,
    }
}

/// As [`of`], with the places the run tested given rather than read from the results: a client
/// run lists the binding x version pairs its client declares, not every pair a result names
/// (its N/A results name the pairs the client does not speak).
pub fn on(results: &[CheckResult], tested_on: Vec<String>) -> Compatibility {
    let mut compatibility = of(results);
    compatibility.line = line(&compatibility.levels, compatibility.percent, &tested_on);
    compatibility.tested_on = tested_on;
    compatibility
}

fn line(levels: &BTreeMap<Level, LevelCount>, percent: Option<f64>, on: &[String]) -> String {
    let Some(percent) = percent else {
        return "no requirement applied, so no compatibility figure".to_string();
    };
    let per_level: Vec<String> = levels
        .iter()
        .filter(|(_, c)| c.applicable() > 0)
        .map(|(level, c)| format!("{}/{} {level}", c.satisfied, c.applicable()))
        .collect();
    let unjudged: usize = levels.values().map(|c| c.unjudged).sum();
    let not_applicable: usize = levels.values().map(|c| c.not_applicable).sum();
    let mut text = format!(
        "{percent:.1}% of the requirements tested are satisfied ({})",
        per_level.join(", ")
    );
    if unjudged > 0 {
        text.push_str(&format!("; {unjudged} could not be judged"));
    }
    if not_applicable > 0 {
        text.push_str(&format!("; {not_applicable} not applicable"));
    }
    text.push_str(&format!("; on {}", on.join(", ")));
    text
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::suite::check::{Binding, ProtocolVersion};

    fn result(id: &str, level: Level, statements: &[&str], status: Status) -> CheckResult {
        CheckResult {
            id: id.into(),
            level,
            spec_version: "1.0".into(),
            section: "1".into(),
            statements: statements.iter().map(|s| s.to_string()).collect(),
            requirement: String::new(),
            binding: Some(Binding::Jsonrpc),
            version: Some(ProtocolVersion::V1_0),
            status,
            message: String::new(),
            reading: None,
            maps_to: Vec::new(),
            acts: Vec::new(),
            duration_ms: 0,
            evidence: Vec::new(),
            configuration: None,
        }
    }

    #[test]
    fn a_requirement_is_satisfied_only_where_every_result_passes() {
        let mut on_rest = result("a", Level::Must, &["R1"], Status::Fail);
        on_rest.binding = Some(Binding::Rest);
        let results = vec![
            result("a", Level::Must, &["R1"], Status::Pass),
            on_rest,
            result("b", Level::Must, &["R2", "R3"], Status::Pass),
            result("c", Level::Should, &["R3"], Status::Pass),
            result("d", Level::Should, &["R4"], Status::Untestable),
            result("e", Level::May, &["R5"], Status::NotApplicable),
            result("f", Level::Should, &["R6"], Status::Warn),
        ];
        let compat = of(&results);
        let must = &compat.levels[&Level::Must];
        // R1 failed on rest; R3 takes the stronger level of the checks citing it.
        assert_eq!((must.satisfied, must.violated), (2, 1));
        let should = &compat.levels[&Level::Should];
        assert_eq!(
            (should.satisfied, should.violated, should.unjudged),
            (0, 1, 1)
        );
        assert_eq!(compat.levels[&Level::May].not_applicable, 1);
        assert_eq!(compat.percent, Some(40.0));
        assert_eq!(
            compat.line,
            "40.0% of the requirements tested are satisfied (2/3 MUST, 0/2 SHOULD); \
             1 could not be judged; 1 not applicable; on jsonrpc 1.0, rest 1.0"
        );
    }

    #[test]
    fn nothing_applicable_gives_no_figure() {
        let compat = of(&[result("e", Level::May, &["R5"], Status::NotApplicable)]);
        assert_eq!(compat.percent, None);
    }
}

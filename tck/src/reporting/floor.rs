//! A floor under what a run judged (`--min-judged N` or `--min-judged P%`): a run that left
//! out or could not apply most of the suite still passes on what it ran (its verdict says
//! `partial`), unless the gate asks for at least this much, the way CI users of other suites
//! guard against a pass in which everything was skipped.

use crate::reporting::report::{plural, Floor, Report};

/// What `--min-judged` asks for.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MinJudged {
    /// At least this many results judged (PASS, WARN or FAIL).
    Results(usize),
    /// At least this percentage of the results planned (those run, and those not run for
    /// want of a scenario contract) judged.
    Percent(f64),
}

impl std::str::FromStr for MinJudged {
    type Err = String;

    fn from_str(text: &str) -> Result<MinJudged, String> {
        let text = text.trim();
        if let Some(percent) = text.strip_suffix('%') {
            return match percent.trim().parse::<f64>() {
                Ok(p) if (0.0..=100.0).contains(&p) => Ok(MinJudged::Percent(p)),
                _ => Err(format!(
                    "{text:?} is not a percentage from 0% to 100% (or a count of results)"
                )),
            };
        }
        text.parse::<usize>().map(MinJudged::Results).map_err(|_| {
            format!("{text:?} is neither a count of results (120) nor a percentage (80%)")
        })
    }
}

impl std::fmt::Display for MinJudged {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MinJudged::Results(n) => write!(f, "{n}"),
            MinJudged::Percent(p) => write!(f, "{p}%"),
        }
    }
}

impl MinJudged {
    /// The floor's outcome over `report`.
    pub fn judge(self, report: &Report) -> Floor {
        let (judged, planned) = (report.judged(), report.planned());
        let passed = match self {
            MinJudged::Results(n) => judged >= n,
            MinJudged::Percent(p) => judged as f64 * 100.0 >= p * planned as f64,
        };
        let share = if planned == 0 {
            String::new()
        } else {
            format!(
                " ({:.1}% of {})",
                judged as f64 * 100.0 / planned as f64,
                plural(planned, "planned result", "planned results")
            )
        };
        let reason = format!(
            "{} judged{share}; --min-judged {self} {}",
            plural(judged, "result", "results"),
            if passed { "is met" } else { "is not met" }
        );
        Floor {
            min_judged: self.to_string(),
            judged,
            planned,
            passed,
            reason,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_and_percentages_parse_and_nonsense_does_not() {
        assert_eq!("120".parse(), Ok(MinJudged::Results(120)));
        assert_eq!("80%".parse(), Ok(MinJudged::Percent(80.0)));
        assert_eq!(" 12.5 %".parse(), Ok(MinJudged::Percent(12.5)));
        for bad in ["", "-1", "101%", "lots", "1e3"] {
            assert!(bad.parse::<MinJudged>().is_err(), "{bad:?}");
        }
    }
}

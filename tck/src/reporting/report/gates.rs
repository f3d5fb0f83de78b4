//! What the gates made of a run: the baseline's (`--expect`) and the floor's (`--min-judged`).

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::Verdict;
use crate::facts::model::{Binding, ProtocolVersion};
use crate::suite::check::Status;

/// One reviewed expectation: results of checks matching `check` (a glob over check ids), on
/// bindings matching `binding` and versions matching `version` (globs; absent means any; card
/// checks are matched as binding and version `card`), are expected to have `status`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The check's id (exact, or a glob).
    pub check: String,
    /// A glob of bindings it covers (`card` for card checks); absent means any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<String>,
    /// A glob of protocol versions it covers; absent means any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<String>,
    /// The status expected: FAIL, ERROR or UNTESTABLE.
    pub status: Status,
    /// Why this result is accepted: required.
    pub reason: String,
    /// The last day (UTC, `YYYY-MM-DD`) the entry holds: from the next day on it excuses
    /// nothing and fails the gate, so a known failure is looked at again.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<Day>,
}

/// A calendar day, `YYYY-MM-DD`: a TOML date (`expires = 2027-01-31`) or a string.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, JsonSchema)]
#[schemars(with = "String")]
pub struct Day(String);

impl Day {
    /// Parses `YYYY-MM-DD`.
    pub fn parse(text: &str) -> Result<Day, String> {
        let bad = || format!("{text:?} is not a date (YYYY-MM-DD)");
        let parts: Vec<&str> = text.split('-').collect();
        let [y, m, d] = parts.as_slice() else {
            return Err(bad());
        };
        let digits = |t: &str, n: usize| t.len() == n && t.bytes().all(|b| b.is_ascii_digit());
        if !(digits(y, 4) && digits(m, 2) && digits(d, 2)) {
            return Err(bad());
        }
        let (m, d): (u32, u32) = (m.parse().map_err(|_| bad())?, d.parse().map_err(|_| bad())?);
        if !(1..=12).contains(&m) || !(1..=31).contains(&d) {
            return Err(bad());
        }
        Ok(Day(text.to_string()))
    }

    /// Today, in UTC.
    pub fn today() -> Day {
        let now = humantime::format_rfc3339(std::time::SystemTime::now()).to_string();
        Day(now[..10].to_string())
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl Serialize for Day {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(&self.0)
    }
}

impl<'de> Deserialize<'de> for Day {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Day, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = Day;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a date, YYYY-MM-DD")
            }
            fn visit_str<E: serde::de::Error>(self, text: &str) -> Result<Day, E> {
                Day::parse(text).map_err(E::custom)
            }
            // A TOML date comes as a one-entry map holding its text.
            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<Day, A::Error> {
                let (_, text): (String, String) = map
                    .next_entry()?
                    .ok_or_else(|| serde::de::Error::custom("an empty date"))?;
                Day::parse(&text).map_err(serde::de::Error::custom)
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

fn gates_by_default() -> bool {
    true
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
    /// The check's id.
    pub id: String,
    /// The result's binding; absent for a card check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    /// The result's protocol version.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<ProtocolVersion>,
    /// The status the baseline expects, which the run gave.
    pub status: Status,
    /// The reason the baseline entry gives.
    pub reason: String,
}

/// A baseline entry that no longer describes the run (or has expired), and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Stale {
    /// The entry, as the baseline file gives it.
    pub entry: Entry,
    /// Why it no longer holds (no such result, another status, an unknown check, expired).
    pub why: String,
    /// Whether it fails the gate: false for an entry of a status the gate does not judge
    /// (WARN, N/A), which is only informational.
    #[serde(default = "gates_by_default")]
    pub gates: bool,
}

/// What the floor made of a run: in the report as `floor`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Floor {
    /// As given with `--min-judged`: a count of results (`120`) or a percentage of the
    /// results planned (`80%`).
    pub min_judged: String,
    /// Results judged: PASS, WARN or FAIL (not N/A, ERROR or UNTESTABLE).
    pub judged: usize,
    /// Results planned: those run, and those not run for want of a scenario contract.
    pub planned: usize,
    /// Whether the run judged at least that much; when not, the run exits 1.
    pub passed: bool,
    /// The floor's line, for people.
    pub reason: String,
}

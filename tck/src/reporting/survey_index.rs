//! The index of a survey (`a2a-tck survey`, `DIR/index.json`): one entry per agent, the
//! summary of its report (verdict, compatibility figure, counts by level x status, exit
//! status, kit version, spec revision, times) with the report's path and digest, or why there
//! is none. Its schema is `schemas/survey-index.schema.json`, generated from these types.
//!
//! Also what shards and merges need: the stable shard of an agent ([`shard_of`]: the SHA-256
//! of its name, never its position) and the merge of shard indexes ([`merge`]).

use std::collections::BTreeMap;
use std::time::SystemTime;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::reporting::report::{Counts, Report, Tool, Verdict};
use crate::suite::check::Level;

/// The version of the index's format.
pub const FORMAT_VERSION: u32 = 2;

/// The index of a survey, or of one shard of it, or of shards merged.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SurveyIndex {
    /// Version of this index format.
    pub format_version: u32,
    /// The kit that wrote the index.
    pub tool: Tool,
    /// The survey file the agents were read from.
    pub survey: SurveySource,
    /// The shards this index holds (`--shard I/N`), in order; a survey run whole is shard 0/1.
    pub shards: Vec<Shard>,
    /// The agents those shards planned, by name: every agent of the survey file once the
    /// shards cover it.
    pub planned: Vec<String>,
    /// Whether every agent planned has an entry and the survey ran to its end: false for the
    /// index of a survey stopped by a signal, which `a2a-tck merge` refuses.
    pub complete: bool,
    /// RFC 3339 UTC: when the survey (the earliest shard merged) began.
    pub started_at: String,
    /// RFC 3339 UTC: when the index was written.
    pub finished_at: String,
    /// The survey's exit status: 0 when every agent passed its gate, 1 otherwise; 130
    /// (SIGINT) or 143 (SIGTERM) when the survey was stopped before its end (then `complete`
    /// is false).
    pub exit_status: u8,
    /// How many agents had each outcome.
    pub outcomes: BTreeMap<Outcome, usize>,
    /// One entry per agent, by name.
    pub agents: Vec<Entry>,
}

/// The survey file an index was made from.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SurveySource {
    /// The file's name, as given on the command line.
    pub file: String,
    /// SHA-256 of the file, `sha256:<hex>`: shards of one survey share it.
    pub sha256: String,
}

/// One slice of a survey: the agents whose [`shard_of`] is `index`.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(deny_unknown_fields)]
pub struct Shard {
    /// This shard's number, from 0.
    pub index: u32,
    /// How many shards the survey is split into.
    pub count: u32,
}

/// What became of one agent.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Outcome {
    /// It passed its gate (exit status 0).
    Pass,
    /// It did not comply: the verdict, the floor or the baseline failed (exit status 1).
    Fail,
    /// It could not be tested: its card unusable, the agent down, its credentials missing
    /// (exit status 2).
    Error,
    /// Its deadline ran out before its run ended: the report is that of an interrupted run
    /// (exit status 130).
    OverBudget,
}

impl Outcome {
    /// The outcome of an agent whose run exits with `status` (see the gate).
    pub fn of_exit_status(status: u8) -> Outcome {
        match status {
            crate::reporting::gate::EXIT_PASS => Outcome::Pass,
            crate::reporting::gate::EXIT_FAIL => Outcome::Fail,
            crate::reporting::gate::EXIT_INTERRUPTED => Outcome::OverBudget,
            _ => Outcome::Error,
        }
    }
}

/// What an entry of the index is about.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize, JsonSchema,
)]
#[serde(rename_all = "kebab-case")]
pub enum Kind {
    /// An agent, judged as `a2a-tck` judges one (`[[agent]]` in the survey file).
    #[default]
    Agent,
    /// A client, run through its adapter as `a2a-tck client` runs it (`[[client]]`).
    Client,
}

impl Kind {
    fn is_agent(&self) -> bool {
        *self == Kind::Agent
    }
}

/// One agent (or client) of the survey.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Entry {
    /// The agent's (or client's) name in the survey file (unique there, among agents and
    /// clients).
    pub name: String,
    /// Whether it is an agent or a client; absent for an agent (as in indexes written before
    /// surveys held clients).
    #[serde(default, skip_serializing_if = "Kind::is_agent")]
    pub kind: Kind,
    /// The agent as the survey file gives it: its `target` URL, else its `card_url`
    /// (`builtin` for the kit's reference agent); a client's adapter command (`builtin` for
    /// the kit's reference client).
    pub target: String,
    /// SHA-256 of what the agent's verdict rests on: its entry in the survey file, the bytes
    /// of the files the entry names (`drive`, `sut_behaviors`, `expect`) and the kit's
    /// version. When any of them changed, the agent is run again when the survey resumes.
    pub agent_sha256: String,
    /// What became of it.
    pub outcome: Outcome,
    /// The exit status `a2a-tck` gives this agent's run alone (0, 1, 2 or 130).
    pub exit_status: u8,
    /// The report's verdict; absent when there is no report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Why the verdict is what it is; absent when there is no report.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verdict_reason: Option<String>,
    /// The compatibility figure: satisfied requirements over applicable ones, in percent;
    /// absent when none applied or the run did not end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<f64>,
    /// The report's counts by level x status (empty when there is no report).
    pub totals: BTreeMap<Level, Counts>,
    /// The version of the kit that judged it.
    pub kit_version: String,
    /// The revision of A2A 1.0 its 1.0 results were judged by; absent with no 1.0 result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_revision: Option<String>,
    /// RFC 3339 UTC: when its run began.
    pub started_at: String,
    /// RFC 3339 UTC: when its run ended.
    pub finished_at: String,
    /// Wall time of its run, in milliseconds.
    pub duration_ms: u64,
    /// Its JSON report, relative to the index's directory (the Markdown, HTML and JUnit
    /// reports are beside it); absent when none was written.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report: Option<String>,
    /// SHA-256 of the JSON report, `sha256:<hex>`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub report_sha256: Option<String>,
    /// Why the agent could not be tested, or why its run did not end (the card unusable,
    /// the agent down, its deadline, a credential missing); absent when it was judged. An
    /// HTTP request that broke is named by the request and its root cause only (`error
    /// sending request for url (URL): Connection reset by peer (os error 104)`): the HTTP
    /// client's layers between them differ by where the break was seen (at connect, at the
    /// first send), which is timing; the report keeps the whole chain.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

impl Entry {
    /// The entry of an agent judged in `report` (the gate applied), whose run exits with
    /// `exit_status`; its JSON report is at `report_path` (relative to the index) with the
    /// text `report_json`.
    pub fn of(
        agent: Agent<'_>,
        report: &Report,
        exit_status: u8,
        report_path: String,
        report_json: &str,
    ) -> Entry {
        let outcome = Outcome::of_exit_status(exit_status);
        let error = match (outcome, &report.failure) {
            (Outcome::Pass | Outcome::Fail, _) => None,
            (_, Some(failure)) if report.verdict == Verdict::Error => {
                Some(steady_error(&failure.message))
            }
            _ => Some(report.verdict_reason.clone()),
        };
        Entry {
            name: agent.name.to_string(),
            kind: Kind::Agent,
            target: agent.target.to_string(),
            agent_sha256: agent.sha256.to_string(),
            outcome,
            exit_status,
            verdict: Some(report.verdict),
            verdict_reason: Some(report.verdict_reason.clone()),
            compatibility: report.compatibility.as_ref().and_then(|c| c.percent),
            totals: report.totals.clone(),
            kit_version: report.tool.version.clone(),
            spec_revision: (report.spec_revision.as_ref()).map(|s| s.revision.clone()),
            started_at: report.started_at.clone(),
            finished_at: report.finished_at.clone(),
            duration_ms: report.duration_ms,
            report: Some(report_path),
            report_sha256: Some(digest(report_json.as_bytes())),
            error,
        }
    }

    /// The entry of an agent no report was made for, and why (exit status 2).
    pub fn failed(
        agent: Agent<'_>,
        error: String,
        started_at: SystemTime,
        finished_at: SystemTime,
    ) -> Entry {
        Entry {
            name: agent.name.to_string(),
            kind: Kind::Agent,
            target: agent.target.to_string(),
            agent_sha256: agent.sha256.to_string(),
            outcome: Outcome::Error,
            exit_status: crate::reporting::gate::EXIT_KIT,
            verdict: None,
            verdict_reason: None,
            compatibility: None,
            totals: BTreeMap::new(),
            kit_version: env!("CARGO_PKG_VERSION").to_string(),
            spec_revision: None,
            started_at: time(started_at),
            finished_at: time(finished_at),
            duration_ms: (finished_at.duration_since(started_at))
                .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX)),
            report: None,
            report_sha256: None,
            error: Some(error),
        }
    }
}

/// What the HTTP client's chain of errors leaves steady from run to run: the failed request
/// (`error sending request for url (URL)`) and the root cause, the last link; the links
/// between name the layer that saw the break (`client error (Connect): tcp connect error`,
/// `client error (SendRequest): connection error`), which varies with timing. Text before the
/// request is kept; a message without such a chain is returned as it is.
pub fn steady_error(message: &str) -> String {
    const REQUEST: &str = "error sending request for url (";
    let Some(start) = message.find(REQUEST) else {
        return message.to_string();
    };
    let after = start + REQUEST.len();
    let Some(close) = message[after..].find(')') else {
        return message.to_string();
    };
    let head = &message[..after + close + 1];
    let chain = &message[after + close + 1..];
    match chain.rsplit_once(": ") {
        Some((_, root)) if chain.starts_with(": ") => format!("{head}: {root}"),
        _ => message.to_string(),
    }
}

/// Who an entry is about: the agent's name, its target as the survey file gives it, and the
/// digest of its inputs (see [`Entry::agent_sha256`]).
#[derive(Debug, Clone, Copy)]
pub struct Agent<'a> {
    /// The agent's name.
    pub name: &'a str,
    /// Its target, card URL or `builtin`.
    pub target: &'a str,
    /// SHA-256 of its entry in the survey file, the files it names and the kit's version.
    pub sha256: &'a str,
}

impl SurveyIndex {
    /// The index of `agents` (sorted here by name), from a survey of `survey` begun at
    /// `started_at`, holding `shards`, which planned the agents named `planned`; `stopped`
    /// is the exit status of a survey a signal stopped (130 or 143).
    pub fn new(
        survey: SurveySource,
        shards: Vec<Shard>,
        mut planned: Vec<String>,
        started_at: String,
        mut agents: Vec<Entry>,
        stopped: Option<u8>,
    ) -> SurveyIndex {
        agents.sort_by(|a, b| a.name.cmp(&b.name));
        planned.sort();
        planned.dedup();
        let mut outcomes = BTreeMap::new();
        for entry in &agents {
            *outcomes.entry(entry.outcome).or_insert(0) += 1;
        }
        let every = (planned.iter()).all(|name| agents.iter().any(|e| &e.name == name));
        let complete = stopped.is_none() && every;
        let exit_status = match stopped {
            Some(code) => code,
            None if !every => crate::reporting::gate::EXIT_KIT,
            None if agents.iter().all(|e| e.outcome == Outcome::Pass) => {
                crate::reporting::gate::EXIT_PASS
            }
            None => crate::reporting::gate::EXIT_FAIL,
        };
        SurveyIndex {
            format_version: FORMAT_VERSION,
            tool: Tool {
                name: "a2a-tck".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            survey,
            shards,
            planned,
            complete,
            started_at,
            finished_at: time(SystemTime::now()),
            exit_status,
            outcomes,
            agents,
        }
    }

    /// The index as JSON (pretty, one trailing newline).
    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Reads an index file.
    pub fn read(path: &std::path::Path) -> Result<SurveyIndex, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let index: SurveyIndex =
            serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        if index.format_version != FORMAT_VERSION {
            return Err(format!(
                "{}: index format {} (this kit reads {FORMAT_VERSION})",
                path.display(),
                index.format_version
            ));
        }
        Ok(index)
    }

    /// The index's JSON Schema (`schemas/survey-index.schema.json`).
    pub fn schema() -> String {
        let schema = schemars::schema_for!(SurveyIndex);
        serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
    }
}

/// The shard (`0..count`) an agent named `name` belongs to: the first eight bytes of the
/// SHA-256 of its name, as a big-endian number, modulo `count`. The same name is in the same
/// shard whatever the order of the file or the other agents in it.
pub fn shard_of(name: &str, count: u32) -> u32 {
    let hash = Sha256::digest(name.as_bytes());
    let mut first = [0u8; 8];
    first.copy_from_slice(&hash[..8]);
    let wide = u64::from_be_bytes(first) % u64::from(count.max(1));
    u32::try_from(wide).unwrap_or(0)
}

/// The folder name of an agent: its name, lower case, with every character but letters,
/// digits, `.`, `_` and `-` made `-`.
pub fn folder_of(name: &str) -> String {
    name.chars()
        .map(|c| match c.to_ascii_lowercase() {
            c @ ('a'..='z' | '0'..='9' | '.' | '_' | '-') => c,
            _ => '-',
        })
        .collect()
}

/// `sha256:<hex>` of `bytes`.
pub fn digest(bytes: &[u8]) -> String {
    let hash = Sha256::digest(bytes);
    let hex: String = hash.iter().map(|b| format!("{b:02x}")).collect();
    format!("sha256:{hex}")
}

/// RFC 3339 UTC, to the millisecond, as reports write times.
pub fn time(at: SystemTime) -> String {
    humantime::format_rfc3339_millis(at).to_string()
}

/// What [`merge`] made of the indexes it was given.
#[derive(Debug)]
pub struct Merged {
    /// The merged index.
    pub index: SurveyIndex,
    /// For each agent found in more than one index with differing reports: which was kept.
    pub notes: Vec<String>,
    /// For each agent kept, the position (in the list given) of the index it came from.
    pub from: BTreeMap<String, usize>,
}

/// Joins the indexes of shards of one survey. They must come from the same survey file (the
/// same digest): merging two surveys is refused. Each must be complete (a survey stopped by a
/// signal is refused), and together they must be the whole survey: shards `0..N` of one `N`,
/// and an entry for every agent they planned; anything less is refused, naming what is
/// missing. An agent found in several indexes is kept once: when its reports differ, the one
/// that finished last is kept, and a note says so.
pub fn merge(indexes: &[SurveyIndex]) -> Result<Merged, String> {
    let Some(first) = indexes.first() else {
        return Err("nothing to merge".into());
    };
    if let Some(other) = indexes
        .iter()
        .find(|i| i.survey.sha256 != first.survey.sha256)
    {
        return Err(format!(
            "the indexes come from different survey files ({} {} and {} {}): merge the \
             shards of one survey",
            first.survey.file, first.survey.sha256, other.survey.file, other.survey.sha256
        ));
    }
    if let Some(stopped) = indexes.iter().find(|i| !i.complete) {
        return Err(format!(
            "the index of shard(s) {} is incomplete (exit status {}: its survey was stopped \
             before its end): start that survey again over its folder to finish it",
            shard_names(&stopped.shards),
            stopped.exit_status
        ));
    }
    let mut shards: Vec<Shard> = indexes.iter().flat_map(|i| i.shards.clone()).collect();
    shards.sort();
    shards.dedup();
    let Some(count) = shards.first().map(|s| s.count) else {
        return Err("the indexes name no shard".into());
    };
    if let Some(other) = shards.iter().find(|s| s.count != count) {
        return Err(format!(
            "shards of surveys split differently ({}/{count} and {}/{}): merge the shards of \
             one split",
            shards[0].index, other.index, other.count
        ));
    }
    let missing: Vec<Shard> = (0..count)
        .map(|index| Shard { index, count })
        .filter(|s| !shards.contains(s))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "shard(s) {} missing: merge the folders of every shard of the survey",
            shard_names(&missing)
        ));
    }
    let mut kept: BTreeMap<String, (usize, Entry)> = BTreeMap::new();
    let mut notes = Vec::new();
    for (at, index) in indexes.iter().enumerate() {
        for entry in &index.agents {
            match kept.get(&entry.name) {
                None => {
                    kept.insert(entry.name.clone(), (at, entry.clone()));
                }
                Some((_, earlier)) if earlier.report_sha256 == entry.report_sha256 => {}
                Some((_, earlier)) => {
                    let newer = entry.finished_at > earlier.finished_at;
                    notes.push(format!(
                        "{}: two different reports; kept the one finished at {}",
                        entry.name,
                        if newer {
                            &entry.finished_at
                        } else {
                            &earlier.finished_at
                        }
                    ));
                    if newer {
                        kept.insert(entry.name.clone(), (at, entry.clone()));
                    }
                }
            }
        }
    }
    let mut planned: Vec<String> = indexes.iter().flat_map(|i| i.planned.clone()).collect();
    planned.sort();
    planned.dedup();
    let absent: Vec<&str> = (planned.iter())
        .filter(|name| !kept.contains_key(*name))
        .map(String::as_str)
        .collect();
    if !absent.is_empty() {
        return Err(format!(
            "no entry for the agent(s) {} that the shards planned",
            absent.join(", ")
        ));
    }
    let started_at = (indexes.iter().map(|i| i.started_at.clone()))
        .min()
        .unwrap_or_default();
    let from = kept
        .iter()
        .map(|(name, (at, _))| (name.clone(), *at))
        .collect();
    let agents = kept.into_values().map(|(_, entry)| entry).collect();
    Ok(Merged {
        index: SurveyIndex::new(
            first.survey.clone(),
            shards,
            planned,
            started_at,
            agents,
            None,
        ),
        notes,
        from,
    })
}

/// Shards as `I/N, I/N`.
fn shard_names(shards: &[Shard]) -> String {
    let names: Vec<String> = (shards.iter())
        .map(|s| format!("{}/{}", s.index, s.count))
        .collect();
    names.join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_broken_request_is_named_by_its_root_cause_wherever_it_was_seen() {
        let url = "http://127.0.0.1:9/.well-known/agent-card.json";
        let at = |layers: &str| {
            format!(
                "could not fetch the agent card from {url}: error sending request for url \
                 ({url}): {layers}: Connection reset by peer (os error 104)"
            )
        };
        let connect = steady_error(&at("client error (Connect): tcp connect error"));
        let send = steady_error(&at("client error (SendRequest): connection error"));
        assert_eq!(connect, send);
        assert_eq!(
            connect,
            format!(
                "could not fetch the agent card from {url}: error sending request for url \
                 ({url}): Connection reset by peer (os error 104)"
            )
        );
        for kept in [
            "the agent's deadline (30 s) ran out",
            "error sending request for url (x",
        ] {
            assert_eq!(steady_error(kept), kept);
        }
    }

    #[test]
    fn a_name_is_in_the_same_shard_whatever_else_is_surveyed() {
        let names = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta"];
        for name in names {
            let shard = shard_of(name, 4);
            assert!(shard < 4);
            assert_eq!(shard, shard_of(name, 4));
        }
        // Not every name in one shard.
        let first = shard_of(names[0], 4);
        assert!(names.iter().any(|n| shard_of(n, 4) != first));
        assert_eq!(shard_of("anything", 1), 0);
    }
}

//! The compatibility report: a versioned contract. Its JSON Schema is generated from these
//! types (`a2a-tck schema`) into `schemas/report.schema.json`; a test fails when it drifts.

mod gates;
mod readings;
mod sections;
mod verdict;

pub use gates::{Day, Entry, Expected, Floor, Gate, Stale};
pub use readings::{AppliedReading, SignatureForms, SpecRevisionJudged};
pub use sections::{
    ClientUnderTest, Compatibility, ConfigurationRun, DurabilityReport, LevelCount, Mode,
    RefusedOperation, UntestedDeclaration,
};
pub use verdict::{Partial, Verdict, VerdictScope};

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::exchange::card::DeclaredInterface;
use crate::exchange::evidence::Exchange;
use crate::suite::check::{Binding, Level, ProtocolVersion, Status};

/// Bumped on any change a reader must know about.
pub const FORMAT_VERSION: u32 = 1;

/// A run of the kit against one target.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Report {
    /// Version of this report format.
    pub format_version: u32,
    /// The kit that wrote the report.
    pub tool: Tool,
    /// `client` for a report of `a2a-tck client`; absent for a report on an agent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mode: Option<Mode>,
    /// The client judged (client mode only).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub client: Option<ClientUnderTest>,
    /// Protocol versions whose checks this run contains.
    pub spec_versions: Vec<String>,
    /// The agent tested: where it is, its card and the card's digest.
    pub target: Target,
    /// What the run was asked to check.
    pub selection: Selection,
    /// RFC 3339 UTC.
    pub started_at: String,
    /// RFC 3339 UTC.
    pub finished_at: String,
    /// Wall time of the run, in milliseconds.
    pub duration_ms: u64,
    /// Every interface the card declares, and whether this run tests it.
    pub interfaces: Vec<DeclaredInterface>,
    /// One result per check x binding x version, in catalogue order.
    pub results: Vec<CheckResult>,
    /// Counts by level x status.
    pub totals: BTreeMap<Level, Counts>,
    /// The run's verdict: `conformant`, `non-conformant`, `inconclusive`, `error` or
    /// `interrupted`.
    pub verdict: Verdict,
    /// Why the verdict is what it is, in one sentence.
    pub verdict_reason: String,
    /// What the run left out (checks not selected, not run, interfaces not selected); absent
    /// when it ran everything. The verdict then reads `conformant (partial: ...)`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub partial: Option<Partial>,
    /// The requirements the run tested, by level and outcome, and the line to quote.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub compatibility: Option<Compatibility>,
    /// The agent's latency per operation, binding and version, from the exchanges the run
    /// made (successful answers only; unary calls to the whole answer, streams to their first
    /// event). Varies from run to run.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub latency: Vec<crate::exchange::latency::OperationLatency>,
    /// How many checks the run had in flight at once: its ceiling (`--jobs`), where it started,
    /// the highest it rose to while the agent's latency stayed flat, where it ended, the most
    /// checks and batched requests in flight at once, and why it fell, if it did. Absent from
    /// runs that made no exchange (the card alone, a run that could not start).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<crate::exchange::pace::Concurrency>,
    /// Which scenario contract the agent honours (`--contract`, or what the probe found).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub contract: Option<crate::suite::contract::ContractReport>,
    /// Checks not run because they need the agent to play a scenario the contract does not
    /// give (any scenario under `none`; a kit-only one the agent does not honour); not
    /// results, so they count neither for nor against the verdict.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub not_run: Vec<NotRun>,
    /// What the card declares (capabilities, security, signatures, extensions) that no result
    /// of this run tested, each with why; a declaration is never passed over in silence.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub untested_declarations: Vec<UntestedDeclaration>,
    /// Operations the agent refused on an interface wherever the kit called them, each once,
    /// with the results it stopped (see `RefusedOperation`).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused_operations: Vec<RefusedOperation>,
    /// What the floor under the results judged (`--min-judged`) made of the run; a floor not
    /// met fails the run (exit 1).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub floor: Option<Floor>,
    /// What the reviewed baseline (`--expect`) made of the run; the exit status follows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub baseline: Option<Gate>,
    /// Why the run could not start (verdict `error`): the agent card is unusable.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub failure: Option<RunFailure>,
    /// The durability area (`--restart-cmd`, `--durability`): how the target was restarted in
    /// the middle of the run. Its results are the `durability.*` ones; absent otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub durability: Option<DurabilityReport>,
    /// The agent's other configurations the run also tested (`--configuration NAME=URL`,
    /// `--plan`): the same agent started otherwise (capabilities switched off, security
    /// declared), where the results N/A or UNTESTABLE in the default configuration were run
    /// again; a result judged there is taken into `results` with its `configuration`. Absent
    /// when the run tested one configuration.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub configurations: Vec<ConfigurationRun>,
    /// The revision of A2A 1.0 the 1.0 results were judged by (`--spec-revision`), and whether
    /// another revision's answer was tolerated; absent from a run with no 1.0 result.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub spec_revision: Option<SpecRevisionJudged>,
    /// Each contested sentence the run's checks met (one the revisions of 1.0 word
    /// differently, or one that contradicts itself), with the reading applied and the checks
    /// that met it.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub readings: Vec<AppliedReading>,
    /// The card's signatures that verified, each with the canonical forms of the card it
    /// verified over.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub card_signatures: Vec<SignatureForms>,
    /// The run was stopped (SIGINT, SIGTERM) before it ended: the checks it did not judge are
    /// in `not_run` with the reason "interrupted". Absent when the run ended on its own.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub interrupted: bool,
    /// Written last: a report without it is truncated and must be rejected.
    pub complete: bool,
}

/// The kit that wrote a report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Tool {
    /// The kit's name, `a2a-tck`.
    pub name: String,
    /// The kit's version (its crates' `version`).
    pub version: String,
}

/// The agent a report is about.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Target {
    /// The URL given with `--target`, or the address of the built-in reference agent.
    pub url: String,
    /// The URL the card was read from (`--card-url`, or the well-known path on the target's origin).
    pub card_url: String,
    /// SHA-256 of the card body as served, `sha256:<hex>`; empty when no usable card was read
    /// (verdict `error`).
    pub card_sha256: String,
    /// The card's own `name` and `version`, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<String>,
    /// The card's own `version`, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_version: Option<String>,
    /// True when the target is the kit's built-in reference agent.
    pub builtin: bool,
    /// Present when the agent serves different cards per protocol version: the card above
    /// was read without `A2A-Version` (as a 0.3 client reads it), and asked with
    /// `A2A-Version: 1.0` the same URL served this other card. The interfaces of both are
    /// tested (those only this card declares say so in `card_a2a_version`), and its card
    /// checks are results with `version` `1.0` and no `binding`. Absent when the agent
    /// serves one card, or the read with the header failed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub versioned_card: Option<VersionedCard>,
}

/// The card an agent serves to a client of one protocol version, when it is not the card it
/// serves without `A2A-Version`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct VersionedCard {
    /// The `A2A-Version` the card was asked for with.
    pub a2a_version: ProtocolVersion,
    /// SHA-256 of the card body as served, `sha256:<hex>`.
    pub card_sha256: String,
    /// The card's own `name` and `version`, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<String>,
    /// The card's own `version`, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_version: Option<String>,
}

/// What was asked for.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Selection {
    /// The weakest level run (`MUST` runs only MUST checks, `MAY` runs all).
    pub level: Level,
    /// Id globs given with `--select`; empty means all.
    pub select: Vec<String>,
    /// Bindings given with `--binding`; empty means every binding the card declares.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub bindings: Vec<Binding>,
    /// Versions given with `--protocol-version`; empty means every version the card declares.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub versions: Vec<ProtocolVersion>,
    /// Number of checks in the catalogue that the selection kept.
    pub checks_selected: usize,
}

impl Selection {
    /// The selection `filter` makes, of which `checks_selected` checks.
    pub fn of(filter: &crate::suite::filter::Filter, checks_selected: usize) -> Selection {
        Selection {
            level: filter.level,
            select: filter.select.clone(),
            bindings: filter.bindings.clone(),
            versions: filter.versions.clone(),
            checks_selected,
        }
    }
}

/// The result of one check on one binding x version (or on the card).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CheckResult {
    /// The check's stable id (`send.context-id-generated-when-absent`).
    pub id: String,
    /// The strength of the sentence tested: MUST, SHOULD or MAY.
    pub level: Level,
    /// Spec version and section of the sentence tested.
    pub spec_version: String,
    /// The section of the spec that holds the sentence.
    pub section: String,
    /// Ids of the sentence in the kit's catalogue of normative statements.
    pub statements: Vec<String>,
    /// The rule tested, in one sentence.
    pub requirement: String,
    /// Absent for checks of the agent card itself.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    /// The protocol version of the interface; for a card check, the version of the card read with `A2A-Version`, else absent.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<ProtocolVersion>,
    /// PASS, FAIL, WARN, N/A, UNTESTABLE or ERROR.
    pub status: Status,
    /// What happened, for people: the expectation and what came back, or why not judged.
    pub message: String,
    /// The reading the check takes where the spec is ambiguous.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reading: Option<String>,
    /// Official A2A TCK requirement ids this corresponds to.
    pub maps_to: Vec<String>,
    /// ACTS (A2A Conformance Test Specification) test ids this check covers, wholly or partly.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub acts: Vec<String>,
    /// How long the check ran on this interface, in milliseconds.
    pub duration_ms: u64,
    /// The exchanges the check made; kept for every result that is not PASS.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Exchange>,
    /// The configuration of the agent the result was judged in (a name of `configurations`),
    /// when it is not the default one: the result was N/A or UNTESTABLE in the default
    /// configuration and judged in this one. Absent for a result of the default configuration.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub configuration: Option<String>,
}

impl CheckResult {
    /// The result of `check` with `status` and `message`, on no interface, taking no time,
    /// with no evidence (the runner sets those it has).
    pub fn of<Run>(
        check: &crate::suite::check::Check<Run>,
        status: Status,
        message: String,
    ) -> CheckResult {
        CheckResult {
            id: check.id.to_string(),
            level: check.level,
            spec_version: check.spec.version.to_string(),
            section: check.spec.section.to_string(),
            statements: check
                .spec
                .statements
                .iter()
                .map(|s| s.to_string())
                .collect(),
            requirement: check.requirement.to_string(),
            binding: None,
            version: None,
            status,
            message,
            reading: check.reading.map(str::to_string),
            maps_to: check.maps_to.iter().map(|s| s.to_string()).collect(),
            acts: check.acts.iter().map(|s| s.to_string()).collect(),
            duration_ms: 0,
            evidence: Vec::new(),
            configuration: None,
        }
    }
}

/// A planned check that was not run, and why.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct NotRun {
    /// The check's id.
    pub id: String,
    /// The check's level.
    pub level: Level,
    /// The binding it would have run on; absent for a card check.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    /// The protocol version it would have run on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<ProtocolVersion>,
    /// Why it was not run.
    pub reason: String,
}

/// Why a run could not test anything, with the exchange that shows it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct RunFailure {
    /// What went wrong, for people.
    pub message: String,
    /// The exchanges that show it: the card request, and what came back or why nothing did.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub evidence: Vec<Exchange>,
}

/// Counts of each status.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Counts {
    /// Results that passed.
    pub pass: usize,
    /// Results that failed.
    pub fail: usize,
    /// Results that warned (a SHOULD or MAY not met).
    pub warn: usize,
    /// Results whose rule does not apply to this agent.
    pub not_applicable: usize,
    /// Results the kit could not bring the agent into the state for.
    pub untestable: usize,
    /// Results the kit could not judge (the agent or the kit broke off).
    pub error: usize,
}

impl Counts {
    pub fn add(&mut self, status: Status) {
        match status {
            Status::Pass => self.pass += 1,
            Status::Fail => self.fail += 1,
            Status::Warn => self.warn += 1,
            Status::NotApplicable => self.not_applicable += 1,
            Status::Untestable => self.untestable += 1,
            Status::Error => self.error += 1,
        }
    }

    pub fn get(&self, status: Status) -> usize {
        match status {
            Status::Pass => self.pass,
            Status::Fail => self.fail,
            Status::Warn => self.warn,
            Status::NotApplicable => self.not_applicable,
            Status::Untestable => self.untestable,
            Status::Error => self.error,
        }
    }
}

/// `1 check`, `2 checks`.
pub fn plural(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// Errors reading a report back.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    #[error("failed to read {path}: {source}")]
    Io {
        path: String,
        source: std::io::Error,
    },
    #[error("{path} is not a valid report: {source}")]
    Parse {
        path: String,
        source: serde_json::Error,
    },
    #[error("{path} is truncated: it lacks the completion marker")]
    Incomplete { path: String },
    #[error("{path} has format_version {found}; this kit reads {FORMAT_VERSION}")]
    Version { path: String, found: u32 },
}

impl Report {
    /// The one constructor of a report's header: the kit, the target, the selection and the
    /// run's times (from `started_at` until now), with nothing run yet: no interface, no
    /// result, every total zero, verdict `error` until the caller says otherwise.
    pub fn begun(
        target: Target,
        selection: Selection,
        started_at: std::time::SystemTime,
    ) -> Report {
        let finished_at = std::time::SystemTime::now();
        Report {
            format_version: FORMAT_VERSION,
            tool: Tool {
                name: "a2a-tck".into(),
                version: env!("CARGO_PKG_VERSION").into(),
            },
            mode: None,
            client: None,
            spec_versions: Vec::new(),
            target,
            selection,
            started_at: humantime::format_rfc3339_millis(started_at).to_string(),
            finished_at: humantime::format_rfc3339_millis(finished_at).to_string(),
            duration_ms: (finished_at.duration_since(started_at))
                .map_or(0, |d| d.as_millis() as u64),
            interfaces: Vec::new(),
            results: Vec::new(),
            totals: Level::ALL
                .iter()
                .map(|level| (*level, Counts::default()))
                .collect(),
            verdict: Verdict::Error,
            verdict_reason: String::new(),
            partial: None,
            compatibility: None,
            latency: Vec::new(),
            concurrency: None,
            contract: None,
            not_run: Vec::new(),
            untested_declarations: Vec::new(),
            refused_operations: Vec::new(),
            floor: None,
            baseline: None,
            failure: None,
            durability: None,
            configurations: Vec::new(),
            spec_revision: None,
            readings: Vec::new(),
            card_signatures: Vec::new(),
            interrupted: false,
            complete: true,
        }
    }

    /// The verdict as people read it: the word, and what the run left out, e.g.
    /// `conformant (partial: 61 checks not run (no scenario contract))`, or
    /// `interrupted (488 planned results not run)`.
    pub fn verdict_words(&self) -> String {
        let partial = self
            .partial
            .as_ref()
            .map(|p| p.words_for(self.contract.as_ref()));
        if self.verdict == Verdict::Interrupted {
            let mut words = vec![format!(
                "{} not run",
                plural(
                    self.not_run_by_interruption(),
                    "planned result",
                    "planned results"
                )
            )];
            words.extend(partial);
            return format!("interrupted ({})", words.join(", "));
        }
        match (partial, self.verdict) {
            (Some(partial), v) if v != Verdict::Error => {
                format!("{} (partial: {partial})", v.as_str())
            }
            _ => self.verdict.as_str().to_string(),
        }
    }

    /// How many planned results a stop left out (`not_run` with the reason "interrupted").
    pub fn not_run_by_interruption(&self) -> usize {
        (self.not_run.iter())
            .filter(|n| n.reason == crate::facts::stop::INTERRUPTED)
            .count()
    }

    /// Marks the report as that of a run stopped before it ended (SIGINT, SIGTERM): verdict
    /// `interrupted`, whatever the results it holds would have made it (a run cut after its
    /// first checks passed is not conformant), its reason saying so before what it judged,
    /// and no compatibility figure (the requirements it did not reach would count for
    /// nothing). Marking it twice changes nothing.
    pub fn mark_interrupted(&mut self) {
        self.mark_interrupted_by(crate::facts::stop::SIGNALS);
    }

    /// [`Report::mark_interrupted`], naming what stopped the run (`SIGINT or SIGTERM`, a
    /// deadline).
    pub fn mark_interrupted_by(&mut self, why: &str) {
        self.interrupted = true;
        if self.verdict == Verdict::Interrupted {
            return;
        }
        let before = std::mem::take(&mut self.verdict_reason);
        let judged = self.judged();
        self.verdict_reason = format!(
            "the run was interrupted ({why}) before it ended, so it gives no verdict \
             on the agent: {} not run, {} judged before the stop",
            plural(
                self.not_run_by_interruption(),
                "planned result",
                "planned results"
            ),
            plural(judged, "result", "results"),
        );
        if !before.is_empty() {
            self.verdict_reason
                .push_str(&format!("; over what it judged: {before}"));
        }
        self.verdict = Verdict::Interrupted;
        if let Some(compat) = &mut self.compatibility {
            compat.percent = None;
            compat.line = format!(
                "no compatibility figure: the run was interrupted after {}",
                plural(judged, "judged result", "judged results")
            );
        }
    }

    /// Results the run judged (PASS, WARN or FAIL): not N/A, and not ERROR or UNTESTABLE.
    pub fn judged(&self) -> usize {
        (self.results.iter())
            .filter(|r| matches!(r.status, Status::Pass | Status::Warn | Status::Fail))
            .count()
    }

    /// Results the run planned: those it has, and those not run for want of a contract.
    pub fn planned(&self) -> usize {
        self.results.len() + self.not_run.len()
    }

    /// Holds the evidence of the whole report to [`crate::exchange::evidence::EVIDENCE_REPORT_BYTES`]
    /// (results in order; what is left out is counted in each exchange's `dropped`).
    pub fn cap_evidence(&mut self) {
        crate::exchange::evidence::cap_report(self.results.iter_mut().map(|r| &mut r.evidence));
    }

    pub fn to_json(&self) -> String {
        serde_json::to_string_pretty(self).unwrap_or_default() + "\n"
    }

    /// Writes the report (see [`write_atomic`]), so a reader never sees half.
    pub fn write(&self, path: &Path) -> std::io::Result<()> {
        write_atomic(path, self.to_json().as_bytes())
    }

    /// Reads a report, rejecting truncated ones and other format versions.
    pub fn read(path: &Path) -> Result<Report, ReportError> {
        let shown = path.display().to_string();
        let text = std::fs::read_to_string(path).map_err(|source| ReportError::Io {
            path: shown.clone(),
            source,
        })?;
        let value: serde_json::Value =
            serde_json::from_str(&text).map_err(|source| ReportError::Parse {
                path: shown.clone(),
                source,
            })?;
        if value.get("complete") != Some(&serde_json::Value::Bool(true)) {
            return Err(ReportError::Incomplete { path: shown });
        }
        let found = value
            .get("format_version")
            .and_then(serde_json::Value::as_u64)
            .unwrap_or(0) as u32;
        if found != FORMAT_VERSION {
            return Err(ReportError::Version { path: shown, found });
        }
        serde_json::from_value(value).map_err(|source| ReportError::Parse {
            path: shown,
            source,
        })
    }

    /// The JSON Schema of the report format.
    pub fn schema() -> String {
        let schema = schemars::schema_for!(Report);
        serde_json::to_string_pretty(&schema).unwrap_or_default() + "\n"
    }
}

/// Where a result ran: `card`, `card 1.0` (the card served with `A2A-Version: 1.0`, when it
/// differs), or `jsonrpc 1.0`.
pub fn place(result: &CheckResult) -> String {
    match (result.binding, result.version) {
        (Some(b), Some(v)) => format!("{b} {v}"),
        // A card check of the card a client of that version reads.
        (None, Some(v)) => format!("card {v}"),
        _ => "card".to_string(),
    }
}

/// Writes a report to `path` the way [`crate::facts::destination::Destination`] does: a regular file
/// whole or not at all (a temporary file of a unique name beside it, then renamed), its directory
/// made if missing; a symlink, device or FIFO written through, never replaced.
pub fn write_atomic(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    crate::facts::destination::Destination::Path(path.to_path_buf()).write(bytes)
}

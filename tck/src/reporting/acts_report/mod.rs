//! The ACTS report (`--acts-report`): a finished run told in the JSON document the ACTS runner
//! writes (one per binding: `acts_version`, `spec_version`, `generated_at`, `sdk`,
//! `transport`, `environment`, `summary` and `suites[].tests[]`), so that dashboards that
//! read ACTS reports read the kit's. Its schema is `schemas/acts-report.schema.json`.
//!
//! Each ACTS test takes its result from the kit's results that cover it (the checks whose
//! `acts` field names it, `fixtures/acts-tests.json`), on the binding of the document and
//! protocol version 1.0 (card checks included), combined without ever claiming more than the
//! kit saw: any FAIL makes the test `fail`; else any ERROR `error`; a WARN on a test the kit
//! reads at a lower level (or a tolerated answer) `skip`, with why, and on an ACTS `should`
//! or `may` test `fail`; else any UNTESTABLE `skip`; else a PASS `pass` (the rest N/A); all
//! N/A `skip`. A test the kit does not cover, and a client test, is `skip` with the reason
//! "not covered by a2a-tck: ...". Where the kit's case or reading is not the test's, what
//! the kit saw is no verdict on the test: a test the kit covers only partly (a part of it,
//! or a neighbouring case) or reads differently is `skip` where its results would make it
//! `pass` or `fail`, and one whose expectation the kit makes stricter is `skip` where they
//! would make it `fail`, the reason telling the kit's result; where only the level differs
//! (`differs: level` in the fixture), the kit's pass and failure are the test's. A `pass` whose test has a
//! check the run left out (not run, not selected) is `skip`, naming it. A test of another
//! binding is left out of the document.
//! Every test says how the kit covers it (`kit_coverage`, `kit_checks`): fields the format
//! allows besides its own.

use std::collections::BTreeMap;

use serde::Serialize;
use serde_json::Value;

use crate::reporting::report::{CheckResult, NotRun, Report};
use crate::suite::check::{Binding, Level, ProtocolVersion, Status};

mod document;
pub use document::{
    ActsDestination, ActsReport, ByLevel, Failure, LevelCounts, Outcome, Runner, Step, Suite,
    Summary, Test,
};

/// The ACTS corpus whose tests the kit maps (draft 0.1.0, `fixtures/acts-tests.json`).
pub const ACTS_VERSION: &str = "0.1.0";
/// The A2A version ACTS tests.
pub const SPEC_VERSION: &str = "1.0";
/// The configuration of a result that names none.
pub const DEFAULT_CONFIGURATION: &str = "default";

/// The SDK a report is about (`--sdk-name`, `--sdk-version`, `--sdk-language`,
/// `--sdk-repository`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Sdk {
    pub name: String,
    pub version: String,
    pub language: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub repository: Option<String>,
}

impl Sdk {
    /// The SDK as given, each field left out taken from the card (its `name` and `version`),
    /// else `unknown`.
    pub fn of(
        report: &Report,
        name: Option<&str>,
        version: Option<&str>,
        language: Option<&str>,
        repository: Option<&str>,
    ) -> Sdk {
        let or_unknown = |given: Option<&str>, card: Option<&String>| {
            (given.map(str::to_string))
                .or_else(|| card.cloned())
                .filter(|s| !s.trim().is_empty())
                .unwrap_or_else(|| "unknown".to_string())
        };
        Sdk {
            name: or_unknown(name, report.target.agent_name.as_ref()),
            version: or_unknown(version, report.target.agent_version.as_ref()),
            language: or_unknown(language, None),
            repository: repository.map(str::to_string),
        }
    }
}

/// Reads the configuration a result was judged under (an agent started another way, for
/// instance with fewer capabilities); `None` is [`DEFAULT_CONFIGURATION`].
pub type ConfigurationOf<'a> = &'a dyn Fn(&CheckResult) -> Option<String>;

/// The configuration the result itself names (`--configuration`, `--plan`); none is the
/// default one.
pub fn own_configuration(result: &CheckResult) -> Option<String> {
    result.configuration.clone()
}

/// One ACTS test as `fixtures/acts-tests.json` lists it.
#[derive(Debug, Clone)]
struct Known {
    id: String,
    file: String,
    level: String,
    summary: String,
    status: String,
    note: Option<String>,
    /// The kit's expectation is the test's own, only its level differs (`differs: level`).
    level_only: bool,
}

fn known() -> Vec<Known> {
    let fixture: Value = serde_json::from_str(include_str!("../../../../fixtures/acts-tests.json"))
        .unwrap_or_default();
    let text = |t: &Value, key: &str| t.get(key).and_then(Value::as_str).map(str::to_string);
    (fixture
        .get("tests")
        .and_then(Value::as_array)
        .into_iter()
        .flatten())
    .filter_map(|t| {
        Some(Known {
            id: text(t, "id")?,
            file: text(t, "file")?,
            level: text(t, "level")?,
            summary: text(t, "summary")?,
            status: text(t, "status")?,
            note: text(t, "note"),
            level_only: text(t, "differs").as_deref() == Some("level"),
        })
    })
    .collect()
}

/// Whether the ACTS test `id` is one of `binding`'s: the binding-specific tests are named
/// by their binding (`JSONRPC-`, `REST-`, `GRPC-`), and the SSE tests are the HTTP
/// bindings'.
pub fn applies_to(id: &str, binding: Binding) -> bool {
    let only = |b: &[Binding]| b.contains(&binding);
    match id.split('-').next().unwrap_or_default() {
        "JSONRPC" => only(&[Binding::Jsonrpc]),
        "REST" => only(&[Binding::Rest]),
        "GRPC" => only(&[Binding::Grpc]),
        "STREAM" if id.starts_with("STREAM-SSE-") => only(&[Binding::Jsonrpc, Binding::Rest]),
        _ => true,
    }
}

/// Whether a result or a not-run entry is of `binding` as ACTS sees it: that binding at 1.0,
/// or a card check (on the plain card, or the card asked for 1.0).
fn of_binding(on: Option<Binding>, version: Option<ProtocolVersion>, binding: Binding) -> bool {
    match on {
        Some(b) => b == binding && version == Some(ProtocolVersion::V1_0),
        None => version.is_none_or(|v| v == ProtocolVersion::V1_0),
    }
}

/// The bindings with a tested 1.0 interface, each one document.
pub fn bindings(report: &Report) -> Vec<Binding> {
    let mut bindings: Vec<Binding> = (report.interfaces.iter())
        .filter(|i| i.tested && i.version == Some(ProtocolVersion::V1_0))
        .filter_map(|i| i.binding)
        .collect();
    bindings.sort_unstable();
    bindings.dedup();
    bindings
}

/// The ACTS documents of `report`: one per binding with a tested 1.0 interface.
pub fn documents(report: &Report, sdk: &Sdk, configuration_of: ConfigurationOf) -> Vec<ActsReport> {
    let known = known();
    let checks_of = checks_by_test();
    bindings(report)
        .into_iter()
        .map(|binding| document(report, sdk, binding, &known, &checks_of, configuration_of))
        .collect()
}

/// The kit's checks that cover each ACTS test, in catalogue order.
fn checks_by_test() -> BTreeMap<String, Vec<String>> {
    let mut map: BTreeMap<String, Vec<String>> = BTreeMap::new();
    for check in crate::suite::checks::all() {
        for id in check.acts {
            map.entry(id.to_string())
                .or_default()
                .push(check.id.to_string());
        }
    }
    map
}

fn document(
    report: &Report,
    sdk: &Sdk,
    binding: Binding,
    known: &[Known],
    checks_of: &BTreeMap<String, Vec<String>>,
    configuration_of: ConfigurationOf,
) -> ActsReport {
    let mut suites: Vec<Suite> = Vec::new();
    let mut summary = Summary {
        duration_ms: report.duration_ms,
        ..Summary::default()
    };
    for test in known.iter().filter(|t| applies_to(&t.id, binding)) {
        let checks = checks_of.get(&test.id).cloned().unwrap_or_default();
        for entry in judge(report, binding, test, checks, configuration_of) {
            summary.total += 1;
            match entry.result {
                Outcome::Pass => summary.passed += 1,
                Outcome::Fail => summary.failed += 1,
                Outcome::Skip => summary.skipped += 1,
                Outcome::Error => summary.errors += 1,
            }
            match test.level.as_str() {
                "must" => summary.by_level.must.add(entry.result),
                "should" => summary.by_level.should.add(entry.result),
                _ => summary.by_level.may.add(entry.result),
            }
            let suite_id = test.file.trim_end_matches(".acts.yaml").to_string();
            match suites.iter_mut().find(|s| s.id == suite_id) {
                Some(suite) => suite.tests.push(entry),
                None => suites.push(Suite {
                    name: test.file.clone(),
                    id: suite_id,
                    tests: vec![entry],
                }),
            }
        }
    }
    let mut environment = BTreeMap::new();
    environment.insert("target".into(), Value::from(report.target.url.clone()));
    environment.insert(
        "card_url".into(),
        Value::from(report.target.card_url.clone()),
    );
    environment.insert(
        "card_sha256".into(),
        Value::from(report.target.card_sha256.clone()),
    );
    environment.insert("os".into(), Value::from(std::env::consts::OS));
    environment.insert("arch".into(), Value::from(std::env::consts::ARCH));
    if let Some(contract) = &report.contract {
        environment.insert("contract".into(), Value::from(contract.used.as_str()));
        if let Some(file) = &contract.sut_behaviors {
            environment.insert(
                "sut_behaviors".into(),
                serde_json::json!({"file": file.file, "sha256": file.sha256}),
            );
        }
    }
    ActsReport {
        acts_version: ACTS_VERSION.to_string(),
        spec_version: SPEC_VERSION.to_string(),
        generated_at: report.finished_at.clone(),
        sdk: sdk.clone(),
        transport: binding.as_str().to_string(),
        environment,
        summary,
        suites,
        runner: Runner {
            name: report.tool.name.clone(),
            version: report.tool.version.clone(),
            kit_verdict: report.verdict_words(),
        },
    }
}

/// The entries of one ACTS test on one binding: one per configuration its results name.
fn judge(
    report: &Report,
    binding: Binding,
    test: &Known,
    checks: Vec<String>,
    configuration_of: ConfigurationOf,
) -> Vec<Test> {
    let entry = |configuration: String| Test {
        id: test.id.clone(),
        name: test.summary.clone(),
        level: test.level.clone(),
        result: Outcome::Skip,
        duration_ms: 0,
        skip_reason: None,
        configuration,
        failure: None,
        steps: Vec::new(),
        kit_coverage: test.status.clone(),
        kit_checks: checks.clone(),
        kit_note: test.note.clone(),
        level_only: test.level_only,
        kit_status: None,
    };
    if matches!(test.status.as_str(), "not-covered" | "client-only") {
        let why = match test.status.as_str() {
            "client-only" => {
                "a test of a client, and this run judged an agent (`a2a-tck client` judges \
                 clients)"
                    .to_string()
            }
            _ => test
                .note
                .clone()
                .unwrap_or_else(|| "no check tests it".into()),
        };
        let mut skipped = entry(DEFAULT_CONFIGURATION.into());
        skipped.skip_reason = Some(format!("not covered by a2a-tck: {why}"));
        return vec![skipped];
    }
    let mut by_configuration: BTreeMap<String, Vec<&CheckResult>> = BTreeMap::new();
    for result in (report.results.iter())
        .filter(|r| r.acts.contains(&test.id))
        .filter(|r| of_binding(r.binding, r.version, binding))
    {
        let configuration =
            configuration_of(result).unwrap_or_else(|| DEFAULT_CONFIGURATION.to_string());
        by_configuration
            .entry(configuration)
            .or_default()
            .push(result);
    }
    if by_configuration.is_empty() {
        let not_run: Vec<&NotRun> = (report.not_run.iter())
            .filter(|n| checks.contains(&n.id))
            .filter(|n| of_binding(n.binding, n.version, binding))
            .collect();
        let mut skipped = entry(DEFAULT_CONFIGURATION.into());
        skipped.skip_reason = Some(match not_run.first() {
            Some(n) => format!("not run by a2a-tck: {} {}", n.id, n.reason),
            None => format!(
                "a2a-tck made no result of {} on this binding (not selected, or not run on it)",
                checks.join(", ")
            ),
        });
        return vec![skipped];
    }
    // A check of the test the run left out (not run on this binding, not selected, stopped):
    // the rest passing is no pass of the test.
    let missing: Vec<String> = (checks.iter())
        .filter(|id| {
            let not_run = (report.not_run.iter())
                .any(|n| n.id == **id && of_binding(n.binding, n.version, binding));
            let anywhere = report.results.iter().any(|r| r.id == **id);
            not_run || !anywhere
        })
        .cloned()
        .collect();
    by_configuration
        .into_iter()
        .map(|(configuration, results)| {
            let mut entry = entry(configuration);
            combine(&mut entry, &results);
            if entry.result == Outcome::Pass && !missing.is_empty() {
                entry.result = Outcome::Skip;
                entry.skip_reason = Some(format!(
                    "a2a-tck passed what it ran of this test, but did not run {}",
                    missing.join(", ")
                ));
            }
            entry
        })
        .collect()
}

/// The kit's results of one test, combined into its result (see the module's words).
fn combine(entry: &mut Test, results: &[&CheckResult]) {
    let first = |status: Status| results.iter().find(|r| r.status == status).copied();
    let place = |r: &CheckResult| match (r.binding, r.version) {
        (Some(b), Some(v)) => format!("{} ({b} {v})", r.id),
        (None, Some(v)) => format!("{} (card, A2A-Version {v})", r.id),
        _ => format!("{} (card)", r.id),
    };
    entry.duration_ms = results.iter().map(|r| r.duration_ms).sum();
    let failure = |r: &CheckResult| Failure {
        message: r.message.clone(),
        step_id: place(r),
        expected: r.requirement.clone(),
        actual: r.message.clone(),
        assertion_path: format!("a2a-tck {} §{} {}", r.spec_version, r.section, r.id),
    };
    let must = entry.level == "must";
    if let Some(r) = first(Status::Fail) {
        entry.result = Outcome::Fail;
        entry.failure = Some(failure(r));
    } else if let Some(r) = first(Status::Error) {
        entry.result = Outcome::Error;
        entry.failure = Some(failure(r));
    } else if let Some(r) = first(Status::Warn) {
        entry.kit_status = Some(Status::Warn);
        // A WARN is never a MUST failure: the kit reads the rule at a lower level, or takes
        // the answer as defensible.
        if must || r.level == Level::Must {
            entry.result = Outcome::Skip;
            let why = if r.level == Level::Must {
                "a2a-tck takes the agent's answer as defensible (a WARN, not a failure)".to_string()
            } else {
                format!(
                    "a2a-tck reads this rule as {} where ACTS says {}, and the agent does not \
                     follow it (a WARN, not a failure)",
                    r.level, entry.level
                )
            };
            entry.skip_reason = Some(format!("{why}: {}: {}", place(r), r.message));
        } else {
            entry.result = Outcome::Fail;
            entry.failure = Some(failure(r));
        }
    } else if let Some(r) = first(Status::Untestable) {
        entry.result = Outcome::Skip;
        entry.kit_status = Some(Status::Untestable);
        entry.skip_reason = Some(format!(
            "a2a-tck could not bring the agent into the state the test needs: {}: {}",
            place(r),
            r.message
        ));
    } else if first(Status::Pass).is_some() {
        entry.result = Outcome::Pass;
    } else if let Some(r) = first(Status::NotApplicable) {
        entry.result = Outcome::Skip;
        entry.kit_status = Some(Status::NotApplicable);
        entry.skip_reason = Some(format!("not applicable: {}: {}", place(r), r.message));
    }
    // Where the kit's case or reading is not the test's, what the kit saw is no verdict on
    // the test itself: it is told, and the test is skipped. A part or a neighbouring case
    // (`partly`) and a contested reading (`read-differently`) decide neither way; a
    // stricter expectation decides a pass (the test's own is then met) but not a failure.
    let undecided = !entry.level_only
        && matches!(
            (entry.kit_coverage.as_str(), entry.result),
            ("partly" | "read-differently", Outcome::Pass | Outcome::Fail)
                | ("stricter", Outcome::Fail)
        );
    if undecided {
        let shown = match entry.failure.take() {
            Some(f) => format!("failed: {}: {}", f.step_id, f.message),
            None => "passed".to_string(),
        };
        entry.kit_status = Some(match entry.result {
            Outcome::Fail => Status::Fail,
            _ => Status::Pass,
        });
        let how = match entry.kit_coverage.as_str() {
            "partly" => "a2a-tck covers only part of this test",
            "read-differently" => "a2a-tck reads this rule differently from this test",
            _ => "a2a-tck expects more than this test does",
        };
        entry.result = Outcome::Skip;
        entry.skip_reason = Some(format!(
            "{how}{}, and its result {shown}",
            (entry.kit_note.as_ref())
                .map(|n| format!(" ({n})"))
                .unwrap_or_default()
        ));
    }
    entry.steps = results
        .iter()
        .map(|r| Step {
            id: place(r),
            check: r.id.clone(),
            result: match r.status {
                Status::Pass => Outcome::Pass,
                Status::Fail => Outcome::Fail,
                Status::Error => Outcome::Error,
                Status::Warn if must || r.level == Level::Must => Outcome::Skip,
                Status::Warn => Outcome::Fail,
                Status::NotApplicable | Status::Untestable => Outcome::Skip,
            },
            status: r.status,
            duration_ms: r.duration_ms,
            binding: r.binding,
            version: r.version,
            message: r.message.clone(),
        })
        .collect();
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binding_tests_belong_to_their_binding() {
        assert!(applies_to("JSONRPC-ERR-001", Binding::Jsonrpc));
        assert!(!applies_to("JSONRPC-ERR-001", Binding::Grpc));
        assert!(applies_to("GRPC-STATUS-001", Binding::Grpc));
        assert!(!applies_to("STREAM-SSE-001", Binding::Grpc));
        assert!(applies_to("STREAM-SSE-001", Binding::Rest));
        assert!(applies_to("CORE-SEND-001", Binding::Grpc));
    }

    /// A test entry as `judge` starts it, with the kit's coverage `coverage`.
    fn entry(coverage: &str) -> Test {
        Test {
            id: "CORE-CANCEL-001".into(),
            name: "cancel".into(),
            level: "must".into(),
            result: Outcome::Skip,
            duration_ms: 0,
            skip_reason: None,
            configuration: DEFAULT_CONFIGURATION.into(),
            failure: None,
            steps: Vec::new(),
            kit_coverage: coverage.into(),
            kit_checks: Vec::new(),
            kit_note: Some("the kit cancels a task waiting for input".into()),
            kit_status: None,
            level_only: false,
        }
    }

    #[test]
    fn a_pass_of_part_of_a_test_is_no_pass_of_the_test() {
        let check = crate::suite::checks::all()
            .into_iter()
            .next()
            .expect("a check");
        let mut passed = CheckResult::of(&check, Status::Pass, "satisfied".into());
        passed.level = Level::Must;
        let mut covered = entry("covered");
        combine(&mut covered, &[&passed]);
        assert_eq!(covered.result, Outcome::Pass);
        let mut partly = entry("partly");
        combine(&mut partly, &[&passed]);
        assert_eq!(partly.result, Outcome::Skip);
        assert!(
            (partly.skip_reason.as_deref()).is_some_and(|r| r.contains("only part")),
            "{:?}",
            partly.skip_reason
        );
        // A violation of the kit's part is told, but it is no failure of the whole test
        // (ACTS may accept what the kit's neighbouring case refuses); the kit's own report
        // holds the FAIL.
        let failed = CheckResult::of(&check, Status::Fail, "violated".into());
        let mut partly = entry("partly");
        combine(&mut partly, &[&passed, &failed]);
        assert_eq!(partly.result, Outcome::Skip);
        assert_eq!(partly.kit_status, Some(Status::Fail));
        assert!(
            (partly.skip_reason.as_deref()).is_some_and(|r| r.contains("failed: ")),
            "{:?}",
            partly.skip_reason
        );
        let mut covered = entry("covered");
        combine(&mut covered, &[&passed, &failed]);
        assert_eq!(covered.result, Outcome::Fail);
        // A contested reading decides neither way; a stricter expectation decides a pass only.
        for (coverage, results, expected) in [
            ("read-differently", vec![&passed], Outcome::Skip),
            ("read-differently", vec![&passed, &failed], Outcome::Skip),
            ("stricter", vec![&passed], Outcome::Pass),
            ("stricter", vec![&passed, &failed], Outcome::Skip),
        ] {
            let mut test = entry(coverage);
            combine(&mut test, &results);
            assert_eq!(test.result, expected, "{coverage} {results:?}");
        }
        // Where only the level differs, the kit's pass and failure are the test's own.
        for (coverage, results, expected) in [
            ("stricter", vec![&passed, &failed], Outcome::Fail),
            ("read-differently", vec![&passed], Outcome::Pass),
        ] {
            let mut test = Test {
                level_only: true,
                ..entry(coverage)
            };
            combine(&mut test, &results);
            assert_eq!(test.result, expected, "{coverage} level only");
        }
    }

    #[test]
    fn every_known_test_is_read() {
        assert_eq!(known().len(), 111);
    }
}

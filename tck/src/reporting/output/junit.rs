//! JUnit XML for CI dashboards: one test case per check x binding x version; failures carry
//! their evidence.

use quick_junit::{NonSuccessKind, Property, TestCase, TestCaseStatus, TestSuite};

use super::*;

/// A result's JUnit test-case name: its check id and where it ran, e.g.
/// `send.returns-task-or-message [jsonrpc 1.0]`, so the cases of one check on several
/// interfaces read apart in a CI reporter, which lists cases by name.
pub fn junit_name(result: &CheckResult) -> String {
    format!("{} [{}]", result.id, place(result))
}

/// JUnit XML: one suite per place (card, binding x version), one case per result, named by
/// [`junit_name`] (unique in the file; its class is `a2a-tck <place>`). FAIL is a failure;
/// ERROR and UNTESTABLE are errors (never skipped); N/A is skipped; WARN passes (a SHOULD is
/// not a gate) but says so where CI reporters look: a `status` property of `WARN`, and the
/// warning with its evidence in `system-err`, which Jenkins shows on a passing case. GitLab
/// shows system output of failed cases only, so there a WARN reads as a pass (the SARIF log
/// and the Markdown carry it as a warning). Every case carries `status`, `level`, `section`, and `binding`
/// and `version` when it ran on an interface. A failure, error or warning carries its
/// recorded exchanges, cut to [`Caps::COMPACT`]. A run that could not start is one error
/// case, `agent-card`.
///
/// A run gated on a baseline (`--expect`) follows its gate: a result the baseline expects is
/// skipped, its message naming the baseline and the entry's reason (a `baseline` property of
/// `expected`), so a CI reporter that fails on errors agrees with the exit status; a stale or
/// expired entry that gates is a failure of its own (`a2a-tck baseline`), and a result the
/// baseline does not expect fails as it would without one.
pub fn junit(report: &Report) -> Result<String, quick_junit::SerializeError> {
    let mut junit = quick_junit::Report::new("a2a-tck");
    let mut suites: Vec<(String, TestSuite)> = Vec::new();
    if let Some(failure) = &report.failure {
        let mut status = TestCaseStatus::non_success(NonSuccessKind::Error);
        status.set_message(failure.message.clone());
        status.set_type("ERROR");
        status.set_description(evidence::text(&failure.evidence, Caps::COMPACT));
        let mut case = TestCase::new("agent-card", status);
        case.set_classname("a2a-tck card");
        case.add_property(Property::new("status", "ERROR"));
        let mut suite = TestSuite::new("a2a-tck card");
        suite.add_test_case(case);
        suites.push(("card".to_string(), suite));
    }
    let mut names: Vec<String> = Vec::new();
    for result in &report.results {
        let place = place(result);
        let index = match suites.iter().position(|(name, _)| *name == place) {
            Some(index) => index,
            None => {
                suites.push((place.clone(), TestSuite::new(format!("a2a-tck {place}"))));
                suites.len() - 1
            }
        };
        let evidence =
            (!result.evidence.is_empty()).then(|| evidence::text(&result.evidence, Caps::COMPACT));
        let expected = report.baseline.as_ref().and_then(|gate| {
            (gate.expected.iter())
                .find(|e| {
                    e.id == result.id
                        && e.binding == result.binding
                        && e.version == result.version
                        && e.status == result.status
                })
                .map(|e| (gate, e))
        });
        let status = match (expected, result.status) {
            (Some((gate, e)), status) if crate::reporting::baseline::gates(status) => {
                let mut s = TestCaseStatus::skipped();
                s.set_message(format!(
                    "{status} expected by the baseline {}: {}",
                    gate.file, e.reason
                ));
                s.set_type(format!("expected {status}"));
                if let Some(evidence) = &evidence {
                    s.set_description(evidence.as_str());
                }
                s
            }
            (_, Status::Pass | Status::Warn) => TestCaseStatus::success(),
            (_, Status::Fail) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Failure);
                s.set_message(result.message.clone());
                s.set_type("FAIL");
                if let Some(evidence) = &evidence {
                    s.set_description(evidence.as_str());
                }
                s
            }
            (_, Status::Error | Status::Untestable) => {
                let mut s = TestCaseStatus::non_success(NonSuccessKind::Error);
                s.set_message(result.message.clone());
                s.set_type(result.status.as_str());
                if let Some(evidence) = &evidence {
                    s.set_description(evidence.as_str());
                }
                s
            }
            (_, Status::NotApplicable) => {
                let mut s = TestCaseStatus::skipped();
                s.set_message(result.message.clone());
                s
            }
        };
        // Unique in the file, whatever the report holds (a hand-made report may repeat one).
        let mut name = junit_name(result);
        let repeats = names.iter().filter(|n| n.as_str() == name).count();
        names.push(name.clone());
        if repeats > 0 {
            name = format!("{name} #{}", repeats + 1);
        }
        let mut case = TestCase::new(name, status);
        case.set_classname(format!("a2a-tck {place}"));
        case.set_time(std::time::Duration::from_millis(result.duration_ms));
        case.add_property(Property::new("status", result.status.as_str()));
        if expected.is_some() {
            case.add_property(Property::new("baseline", "expected"));
        }
        case.add_property(Property::new("level", result.level.as_str()));
        case.add_property(Property::new(
            "section",
            format!("{} §{}", result.spec_version, result.section),
        ));
        if let Some(binding) = result.binding {
            case.add_property(Property::new("binding", binding.as_str()));
        }
        if let Some(version) = result.version {
            case.add_property(Property::new("version", version.as_str()));
        }
        if result.status == Status::Warn {
            let mut text = format!("WARN [{}] {}: {}", result.level, result.id, result.message);
            if let Some(evidence) = &evidence {
                text.push_str("\n\n");
                text.push_str(evidence);
            }
            case.set_system_err(text);
        }
        suites[index].1.add_test_case(case);
    }
    // The baseline's stale and expired entries that gate: each fails the gate, so each fails.
    if let Some(gate) = &report.baseline {
        let mut suite = TestSuite::new("a2a-tck baseline");
        for (i, stale) in gate.stale.iter().filter(|s| s.gates).enumerate() {
            let entry = &stale.entry;
            let mut status = TestCaseStatus::non_success(NonSuccessKind::Failure);
            status.set_message(format!(
                "stale baseline entry of {}: {}",
                gate.file, stale.why
            ));
            status.set_type("STALE");
            let name = format!(
                "baseline entry {} [{} {}] expected {} #{}",
                entry.check,
                entry.binding.as_deref().unwrap_or("*"),
                entry.version.as_deref().unwrap_or("*"),
                entry.status,
                i + 1
            );
            let mut case = TestCase::new(name, status);
            case.set_classname("a2a-tck baseline");
            case.add_property(Property::new("status", "STALE"));
            suite.add_test_case(case);
        }
        if !suite.test_cases.is_empty() {
            suites.push(("baseline".to_string(), suite));
        }
    }
    junit.add_test_suites(suites.into_iter().map(|(_, suite)| suite));
    junit.to_string()
}

//! The repository's GitHub Action (`action.yml`) as far as it runs here: its inputs are
//! declared and used consistently, and its script (`scripts/action.sh run`, what the Action's
//! run step calls) writes the reports, appends the Markdown to the step summary and exits with
//! the kit's status. GitHub itself is not reachable from the test machine.

use crate::support;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("..")
}

#[test]
fn the_action_declares_every_input_it_uses_and_runs_its_script() {
    let text = std::fs::read_to_string(root().join("action.yml")).expect("action.yml");
    let action: serde_json::Value = serde_yaml_ng::from_str(&text).expect("action.yml is YAML");
    let declared: BTreeSet<&str> = action["inputs"]
        .as_object()
        .expect("inputs")
        .keys()
        .map(String::as_str)
        .collect();
    for needed in ["version", "target", "card-url", "expect", "reports", "args"] {
        assert!(declared.contains(needed), "input {needed} is not declared");
    }
    assert_eq!(
        action["inputs"]["version"]["required"], true,
        "pin a version"
    );
    let used: BTreeSet<&str> = text
        .split("inputs.")
        .skip(1)
        .filter_map(|rest| rest.split([' ', '}', '\'']).next())
        .collect();
    for input in &used {
        assert!(
            declared.contains(input),
            "inputs.{input} is used but not declared"
        );
    }
    assert_eq!(action["runs"]["using"], "composite");
    let steps = action["runs"]["steps"].as_array().expect("steps");
    let scripts: Vec<&str> = steps.iter().filter_map(|s| s["run"].as_str()).collect();
    assert!(scripts
        .iter()
        .any(|s| s.contains("scripts/action.sh\" install")));
    assert!(scripts
        .iter()
        .any(|s| s.contains("scripts/action.sh\" run")));
    let upload = steps
        .iter()
        .find(|s| {
            s["uses"]
                .as_str()
                .is_some_and(|u| u.starts_with("actions/upload-artifact"))
        })
        .expect("an upload step");
    assert_eq!(
        upload["if"], "always()",
        "reports are kept when the gate fails"
    );
    assert!(root().join("scripts/action.sh").is_file());
    let workflow = root().join(".github/workflows/conformance.yml");
    let workflow = std::fs::read_to_string(workflow).expect("the workflow that uses the Action");
    assert!(
        workflow.contains("uses: ./"),
        "the workflow runs the repository's Action"
    );
}

fn action_run(dir: &Path, args: &str) -> (std::process::Output, PathBuf, PathBuf) {
    let reports = dir.join("reports");
    let summary = dir.join("step-summary.md");
    std::fs::write(&summary, "earlier step\n").expect("summary file");
    let output = Command::new("bash")
        .arg(root().join("scripts/action.sh"))
        .arg("run")
        .env("A2A_TCK_BIN", support::BIN)
        .env("A2A_TCK_TARGET", "builtin")
        .env("A2A_TCK_REPORTS", &reports)
        .env("A2A_TCK_ARGS", args)
        .env("GITHUB_STEP_SUMMARY", &summary)
        .env("NO_COLOR", "1")
        .output()
        .expect("bash runs");
    (output, reports, summary)
}

#[test]
fn the_action_script_writes_the_reports_and_the_step_summary() {
    let dir = tempfile::tempdir().expect("temp dir");
    let (output, reports, summary) = action_run(dir.path(), "--select 'card.*' --level must");
    assert_eq!(
        output.status.code(),
        Some(0),
        "{}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
    for name in [
        "report.json",
        "report.junit.xml",
        "report.html",
        "report.md",
    ] {
        assert!(reports.join(name).is_file(), "{name} is written");
    }
    let summary = std::fs::read_to_string(summary).expect("summary");
    let markdown = std::fs::read_to_string(reports.join("report.md")).expect("markdown");
    assert!(
        summary.starts_with("earlier step\n"),
        "appended, not replaced"
    );
    assert!(
        summary.ends_with(&markdown),
        "the Markdown report is on the summary page"
    );
    // The kit's own status comes through: a usage error is 2, and nothing is appended.
    let dir = tempfile::tempdir().expect("temp dir");
    let (output, _, summary) = action_run(dir.path(), "--jobs 0");
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(
        std::fs::read_to_string(summary).expect("summary"),
        "earlier step\n"
    );
}

#[test]
fn the_baseline_file_has_one_name_throughout() {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let names: BTreeSet<&str> = readme
        .split(|c: char| c.is_whitespace() || "`\"'(),:".contains(c))
        .filter(|w| w.ends_with("baseline.toml") || w.ends_with("baseline.yaml"))
        .collect();
    assert_eq!(
        names.into_iter().collect::<Vec<_>>(),
        ["a2a-tck-baseline.toml"],
        "one baseline file name in the README"
    );
}

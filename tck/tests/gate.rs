//! The binary's gate on a reviewed baseline (`--expect`), the starting baseline it writes
//! (`baseline`), the comparison of two reports (`diff`) and the compatibility summary, end to
//! end against the built-in reference agent with a named fault.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use a2a_tck::reporting::report::{Report, Verdict};
use a2a_tck::suite::check::{Binding, Status};

const BIN: &str = env!("CARGO_BIN_EXE_a2a-tck");
/// One check, and the fault that breaks it on every interface (1.0 and 0.3).
const CHECK: &str = "send.context-id-generated-when-absent";
const FAULT: &str = "omit-context-id";

fn kit(args: &[&str]) -> Output {
    Command::new(BIN).args(args).output().expect("the kit runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("a2a-tck-gate-{}", std::process::id()));
    std::fs::create_dir_all(&dir).expect("temp dir");
    dir.join(name)
}

fn path(p: &Path) -> &str {
    p.to_str().expect("utf8")
}

/// Runs the one check (under the fault when `faulty`) with `extra` arguments; returns the
/// output and the report.
fn run(name: &str, faulty: bool, extra: &[&str]) -> (Output, Report) {
    let report = temp(&format!("{name}.json"));
    let mut args = vec!["--select", CHECK, "--report", path(&report)];
    if faulty {
        args.extend(["--fault", FAULT]);
    }
    args.extend(extra);
    let output = kit(&args);
    let read = Report::read(&report)
        .unwrap_or_else(|e| panic!("a complete report: {e}; stderr: {}", text(&output.stderr)));
    (output, read)
}

fn write(name: &str, body: &str) -> PathBuf {
    let file = temp(name);
    std::fs::write(&file, body).expect("write baseline");
    file
}

const ACCEPT_TOML: &str = r#"
[[expect]]
check = "send.context-id-*"
status = "FAIL"
reason = "the agent answers with a bare Message; tracked upstream"
"#;

#[test]
fn a_baseline_accepting_the_failure_exits_0() {
    let baseline = write("accept.toml", ACCEPT_TOML);
    let markdown = temp("accept.md");
    let (output, report) = run(
        "accept",
        true,
        &["--expect", path(&baseline), "--markdown", path(&markdown)],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    // The verdict on the agent stays what it is; the gate passes.
    assert_eq!(report.verdict, Verdict::NonConformant);
    let gate = report.baseline.expect("the report carries the gate");
    assert!(gate.passed && gate.stale.is_empty(), "{gate:?}");
    assert_eq!(gate.verdict, Verdict::Conformant);
    assert_eq!(gate.expected.len(), report.results.len());
    assert!(gate
        .expected
        .iter()
        .all(|e| e.reason.contains("tracked upstream")));
    let stdout = text(&output.stdout);
    assert!(stdout.contains("expected   FAIL send.context-id-generated-when-absent"));
    assert!(stdout.contains("gate: PASS"), "{stdout}");
    let markdown = std::fs::read_to_string(&markdown).expect("markdown");
    assert!(markdown.contains("gate PASS") && markdown.contains("tracked upstream"));
}

#[test]
fn a_yaml_baseline_narrowed_by_binding_and_version_gates_the_rest() {
    let baseline = write(
        "narrow.yaml",
        "expect:\n  - check: send.context-id-generated-when-absent\n    binding: '{jsonrpc,rest}'\n    \
         version: '1.0'\n    status: FAIL\n    reason: fixed in the next release\n",
    );
    let (output, report) = run("narrow", true, &["--expect", path(&baseline)]);
    assert_eq!(output.status.code(), Some(1));
    let gate = report.baseline.expect("gate");
    assert!(!gate.passed);
    assert_eq!(gate.verdict, Verdict::NonConformant);
    assert_eq!(gate.expected.len(), 2);
    assert!(gate
        .expected
        .iter()
        .all(|e| e.binding != Some(Binding::Grpc)));
}

#[test]
fn an_entry_matching_nothing_is_stale_and_exits_1() {
    // A check of the kit that this selection does not run.
    let baseline = write(
        "nothing.toml",
        &format!(
            "{ACCEPT_TOML}\n[[expect]]\ncheck = \"auth.challenge\"\nstatus = \"UNTESTABLE\"\nreason = \"gone\"\n"
        ),
    );
    let (output, report) = run("nothing", true, &["--expect", path(&baseline)]);
    assert_eq!(output.status.code(), Some(1));
    let gate = report.baseline.expect("gate");
    assert!(!gate.passed);
    assert_eq!(gate.stale.len(), 1);
    assert_eq!(gate.stale[0].entry.check, "auth.challenge");
    assert!(gate.stale[0].why.contains("matches no result"));
    assert!(text(&output.stdout).contains("STALE"));
}

#[test]
fn an_entry_naming_no_check_of_the_kit_is_an_error_not_stale() {
    let baseline = write(
        "unknown.toml",
        &format!(
            "{ACCEPT_TOML}\n[[expect]]\ncheck = \"tasks.no-such-check\"\nstatus = \"UNTESTABLE\"\nreason = \"gone\"\n"
        ),
    );
    let output = kit(&["--select", CHECK, "--expect", path(&baseline)]);
    assert_eq!(output.status.code(), Some(2), "{}", text(&output.stdout));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("tasks.no-such-check") && stderr.contains("no check of this kit"),
        "{stderr}"
    );
    // A glob that matches some check is not unknown.
    let globbed = write(
        "globbed.toml",
        "[[expect]]\ncheck = \"send.context-id-*\"\nstatus = \"FAIL\"\nreason = \"known\"\n",
    );
    let baseline = a2a_tck::reporting::baseline::Baseline::load(&globbed).expect("loads");
    assert!(baseline
        .validate(&a2a_tck::suite::checks::ids(), false)
        .is_ok());
}

#[test]
fn unreviewed_reasons_are_errors_unless_allowed() {
    let baseline = write(
        "todo.toml",
        "[[expect]]\ncheck = \"send.context-id-*\"\nstatus = \"FAIL\"\nreason = \"TODO: review\"\n",
    );
    let refused = kit(&[
        "--select",
        CHECK,
        "--fault",
        FAULT,
        "--expect",
        path(&baseline),
    ]);
    assert_eq!(refused.status.code(), Some(2), "{}", text(&refused.stdout));
    assert!(
        text(&refused.stderr).contains("--allow-unreviewed"),
        "{}",
        text(&refused.stderr)
    );
    let (allowed, report) = run(
        "todo",
        true,
        &["--expect", path(&baseline), "--allow-unreviewed"],
    );
    assert_eq!(allowed.status.code(), Some(0), "{}", text(&allowed.stdout));
    assert!(report.baseline.expect("gate").passed);
    assert!(text(&allowed.stderr).contains("TODO"));
}

#[test]
fn an_expired_entry_excuses_nothing_and_fails_the_gate() {
    let expired = write(
        "expired.toml",
        &format!("{}expires = 2020-01-31\n", ACCEPT_TOML.trim_start()),
    );
    let (output, report) = run("expired", true, &["--expect", path(&expired)]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stdout));
    let gate = report.baseline.expect("gate");
    assert!(!gate.passed && gate.expected.is_empty(), "{gate:?}");
    assert_eq!(gate.verdict, Verdict::NonConformant);
    assert!(
        gate.stale[0].why.contains("expired after 2020-01-31"),
        "{}",
        gate.stale[0].why
    );
    // Until its day it holds, in TOML and in YAML.
    let holding = write(
        "holding.toml",
        &format!("{}expires = 2999-12-31\n", ACCEPT_TOML.trim_start()),
    );
    let (output, _) = run("holding", true, &["--expect", path(&holding)]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let yaml = write(
        "holding.yaml",
        "expect:\n  - {check: 'send.context-id-*', status: FAIL, reason: known, expires: 2999-12-31}\n",
    );
    let (output, _) = run("holding-yaml", true, &["--expect", path(&yaml)]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let bad = write(
        "bad-date.toml",
        &format!("{}expires = \"next year\"\n", ACCEPT_TOML.trim_start()),
    );
    assert_eq!(
        kit(&["--select", CHECK, "--expect", path(&bad)])
            .status
            .code(),
        Some(2)
    );
}

#[test]
fn a_warn_entry_never_gates_even_when_it_no_longer_matches() {
    // The check passes; an entry expecting WARN on it is informational, not a stale failure.
    let baseline = write("warn.toml", &ACCEPT_TOML.replace("\"FAIL\"", "\"WARN\""));
    let (output, report) = run("warn", false, &["--expect", path(&baseline)]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
    let gate = report.baseline.expect("gate");
    assert!(gate.passed, "{gate:?}");
    assert_eq!(gate.stale.len(), 1);
    assert!(!gate.stale[0].gates);
    assert!(text(&output.stdout).contains("informational"));
}

#[test]
fn an_entry_whose_results_now_pass_is_stale_and_exits_1() {
    let baseline = write("fixed.toml", ACCEPT_TOML);
    let (output, report) = run("fixed", false, &["--expect", path(&baseline), "--quiet"]);
    assert_eq!(output.status.code(), Some(1), "{}", text(&output.stdout));
    assert_eq!(report.verdict, Verdict::Conformant);
    let gate = report.baseline.expect("gate");
    assert_eq!(gate.stale.len(), 1);
    assert!(gate.stale[0].why.contains("now pass"));
    assert!(text(&output.stdout).contains("gate: FAIL"));
}

#[test]
fn bad_baselines_are_usage_errors() {
    let cases = [
        (
            "noreason.toml",
            "[[expect]]\ncheck = \"x\"\nstatus = \"FAIL\"\n",
        ),
        (
            "blank.toml",
            "[[expect]]\ncheck = \"x\"\nstatus = \"FAIL\"\nreason = \" \"\n",
        ),
        (
            "pass.toml",
            "[[expect]]\ncheck = \"x\"\nstatus = \"PASS\"\nreason = \"r\"\n",
        ),
        (
            "typo.toml",
            "[[expect]]\ncheck = \"x\"\nstatus = \"FAIL\"\nreason = \"r\"\nbindng = \"rest\"\n",
        ),
        (
            "glob.yaml",
            "expect:\n  - {check: 'a[', status: FAIL, reason: r}\n",
        ),
        ("format.json", "{}"),
    ];
    for (name, body) in cases {
        let baseline = write(name, body);
        let output = kit(&["--select", CHECK, "--expect", path(&baseline)]);
        assert_eq!(
            output.status.code(),
            Some(2),
            "{name}: {}",
            text(&output.stderr)
        );
    }
}

#[test]
fn the_written_baseline_gates_the_run_it_came_from() {
    let (_, report) = run("source", true, &[]);
    let source = temp("source.json");
    for name in ["start.toml", "start.yaml"] {
        let baseline = temp(name);
        let output = kit(&["baseline", path(&source), "-o", path(&baseline)]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let written = a2a_tck::reporting::baseline::Baseline::load(&baseline).expect("it loads");
        assert_eq!(written.expect.len(), report.results.len());
        assert!(written
            .expect
            .iter()
            .all(|e| e.status == Status::Fail
                && e.reason == a2a_tck::reporting::baseline::TODO_REASON));
        let (output, gated) = run(
            "regated",
            true,
            &["--expect", path(&baseline), "--allow-unreviewed"],
        );
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stdout));
        assert!(text(&output.stderr).contains("TODO"));
        assert!(gated.baseline.expect("gate").passed);
    }
    let stdout = kit(&["baseline", path(&source)]);
    assert!(text(&stdout.stdout).contains("[[expect]]"));
}

#[test]
fn diff_exits_1_on_a_regression_and_0_on_a_fix() {
    run("good", false, &[]);
    run("bad", true, &[]);
    let (good, bad) = (temp("good.json"), temp("bad.json"));
    let worse = kit(&["diff", path(&good), path(&bad)]);
    assert_eq!(worse.status.code(), Some(1));
    let shown = text(&worse.stdout);
    assert!(
        shown.contains("regressions (3)") && shown.contains(CHECK),
        "{shown}"
    );
    let better = kit(&["diff", path(&bad), path(&good), "--json"]);
    assert_eq!(better.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&better.stdout).expect("json");
    assert_eq!(json["fixes"].as_array().map(Vec::len), Some(3));
    assert_eq!(json["regressions"].as_array().map(Vec::len), Some(0));
    assert_eq!(json["fixes"][0]["old"], "FAIL");
    // Another selection: results only one report has are new or removed, not regressions.
    let (_, _) = run_other("other");
    let other = temp("other.json");
    let moved = kit(&["diff", path(&good), path(&other), "--json"]);
    assert_eq!(moved.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_slice(&moved.stdout).expect("json");
    assert_eq!(json["removed"].as_array().map(Vec::len), Some(3));
    assert!(!json["new"].as_array().expect("new").is_empty());
    assert_eq!(
        kit(&["diff", path(&good), "/nonexistent.json"])
            .status
            .code(),
        Some(2)
    );
}

fn run_other(name: &str) -> (Output, Report) {
    let report = temp(&format!("{name}.json"));
    let output = kit(&["--select", "card.*", "--report", path(&report)]);
    let read = Report::read(&report).expect("report");
    (output, read)
}

#[test]
fn the_compatibility_summary_counts_requirements() {
    let (output, report) = run("compat", true, &[]);
    let compat = report.compatibility.expect("the report has the summary");
    let must = &compat.levels[&a2a_tck::suite::check::Level::Must];
    assert_eq!(must.satisfied, 0);
    assert!(must.violated > 0);
    assert_eq!(compat.percent, Some(0.0));
    assert!(text(&output.stdout).contains("compatibility: 0.0% of the requirements tested"));
    // Not a terminal: no progress bar on stderr.
    assert!(!text(&output.stderr).contains("checks"));
}

#[test]
fn an_entry_expecting_another_status_is_stale_and_the_result_still_gates() {
    let baseline = write(
        "other-status.toml",
        &ACCEPT_TOML.replace("\"FAIL\"", "\"UNTESTABLE\""),
    );
    let (output, report) = run("other-status", true, &["--expect", path(&baseline)]);
    assert_eq!(output.status.code(), Some(1));
    let gate = report.baseline.expect("gate");
    assert!(gate.expected.is_empty());
    assert_eq!(gate.verdict, Verdict::NonConformant);
    assert_eq!(
        gate.stale[0].why,
        "its results are now FAIL, none UNTESTABLE"
    );
}

/// The report `name` (written by an earlier run) with `edit` applied, written to `into`.
fn edited(name: &str, into: &str, edit: impl Fn(&mut serde_json::Value)) -> PathBuf {
    let text = std::fs::read_to_string(temp(&format!("{name}.json"))).expect("report");
    let mut json: serde_json::Value = serde_json::from_str(&text).expect("json");
    edit(&mut json);
    let file = temp(into);
    std::fs::write(&file, serde_json::to_string(&json).expect("json")).expect("write");
    file
}

#[test]
fn the_written_baseline_leaves_out_what_the_gate_does_not_judge() {
    run("warned", true, &[]);
    // One result a WARN, one N/A: neither gates, so neither is written.
    let report = edited("warned", "warned-edited.json", |json| {
        json["results"][0]["status"] = "WARN".into();
        json["results"][1]["status"] = "N/A".into();
    });
    let output = kit(&["baseline", path(&report)]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    let written: a2a_tck::reporting::baseline::Baseline =
        toml::from_str(&text(&output.stdout)).expect("toml");
    assert!(
        written.expect.iter().all(|e| e.status == Status::Fail),
        "{written:?}"
    );
    assert_eq!(written.expect.len(), 1);
}

#[test]
fn diff_says_when_the_reports_are_of_different_agents_kits_or_versions() {
    run("first", true, &[]);
    let same = kit(&["diff", path(&temp("first.json")), path(&temp("first.json"))]);
    assert!(
        !text(&same.stdout).contains("note:"),
        "{}",
        text(&same.stdout)
    );
    let other = edited("first", "elsewhere.json", |json| {
        json["target"]["agent_name"] = "another agent".into();
        json["target"]["url"] = "http://agent.example:9999".into();
        json["target"]["builtin"] = false.into();
        json["tool"]["version"] = "9.9.9".into();
        json["spec_versions"] = serde_json::json!(["9.9"]);
    });
    let output = kit(&["diff", path(&temp("first.json")), path(&other)]);
    let shown = text(&output.stdout);
    for note in [
        "different agents",
        "different targets",
        "different kit versions",
        "different spec versions",
    ] {
        assert!(shown.contains(note), "no {note:?}: {shown}");
    }
    let json = kit(&["diff", path(&temp("first.json")), path(&other), "--json"]);
    let json: serde_json::Value = serde_json::from_slice(&json.stdout).expect("json");
    assert_eq!(json["differences"].as_array().map(Vec::len), Some(4));
}

/// With `--expect`, the JUnit file agrees with the gate: the results the baseline expects are
/// skipped (naming the baseline and the entry's reason), never failures or errors, so a CI
/// reporter that fails on errors passes the run the gate passed; a stale entry still fails.
#[test]
fn junit_honours_the_baseline() {
    let baseline = write("junit-accept.toml", ACCEPT_TOML);
    let junit = temp("junit-accept.xml");
    let (output, report) = run(
        "junit-accept",
        true,
        &["--expect", path(&baseline), "--junit", path(&junit)],
    );
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert!(report.baseline.as_ref().is_some_and(|g| g.passed));
    let xml = std::fs::read_to_string(&junit).expect("junit");
    assert!(
        !xml.contains("<failure") && !xml.contains("<error"),
        "{xml}"
    );
    assert!(
        xml.contains("<skipped") && xml.contains("expected by the baseline"),
        "{xml}"
    );
    assert!(xml.contains("tracked upstream"), "{xml}");
    // A stale entry (its results now pass) fails the gate, and the JUnit file with it.
    let (output, report) = run(
        "junit-stale",
        false,
        &["--expect", path(&baseline), "--junit", path(&junit)],
    );
    assert_eq!(output.status.code(), Some(1));
    assert!(report.baseline.as_ref().is_some_and(|g| !g.passed));
    let xml = std::fs::read_to_string(&junit).expect("junit");
    assert!(xml.contains("<failure") && xml.contains("STALE"), "{xml}");
}

/// The kit could not run (a closed port): the agent run and `a2a-tck card` leave the baseline
/// unapplied alike, say so, blame no stale entry, and exit 2.
#[test]
fn a_closed_port_leaves_the_baseline_unapplied_for_every_entrance() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let dead = format!("http://127.0.0.1:{port}");
    let baseline = write("closed.toml", ACCEPT_TOML);
    let runs: [(&str, Vec<&str>); 2] = [
        ("agent run", vec!["--target", &dead]),
        ("card", vec!["card", &dead]),
    ];
    for (name, args) in runs {
        let report_path = temp(&format!("closed-{}.json", name.replace(' ', "-")));
        let mut args = args.clone();
        args.extend(["--expect", path(&baseline), "--report", path(&report_path)]);
        let output = kit(&args);
        let (out, err) = (text(&output.stdout), text(&output.stderr));
        assert_eq!(output.status.code(), Some(2), "{name}: {out}{err}");
        assert!(
            err.contains("was not applied: the kit could not run"),
            "{name}: {err}"
        );
        assert!(
            !out.contains("STALE") && !err.contains("stale"),
            "{name}: {out}{err}"
        );
        let report = Report::read(&report_path).expect("a report");
        assert_eq!(report.verdict, Verdict::Error, "{name}");
        assert!(report.baseline.is_none(), "{name}: {:?}", report.baseline);
        assert!(report.verdict_reason.contains("was not applied"), "{name}");
    }
}

/// A configuration of the agent that could not be tested (its port closed) leaves unjudged
/// what it was there to judge: with a baseline the gate is not applied and the run fails, as
/// it does without one (its verdict is then inconclusive), never a pass.
#[test]
fn an_untested_configuration_leaves_the_baseline_unapplied() {
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .expect("a free port")
        .port();
    let reduced = format!("reduced=http://127.0.0.1:{port}");
    let select = ["--select", "capabilities.*", "--binding", "jsonrpc"];
    // A reviewed baseline of this run's own results, without the configuration.
    let first = temp("configuration-first.json");
    let mut args = select.to_vec();
    args.extend(["--report", path(&first)]);
    let output = kit(&args);
    assert!(output.status.code().is_some(), "{}", text(&output.stderr));
    let baseline = temp("configuration-baseline.toml");
    let made = kit(&["baseline", path(&first), "-o", path(&baseline)]);
    assert_eq!(made.status.code(), Some(0), "{}", text(&made.stderr));
    let reviewed = std::fs::read_to_string(&baseline)
        .expect("the baseline")
        .replace("TODO: review", "reviewed");
    std::fs::write(&baseline, reviewed).expect("the reviewed baseline");
    for expect in [false, true] {
        let report_path = temp(&format!("configuration-{expect}.json"));
        let mut args = select.to_vec();
        args.extend(["--configuration", &reduced, "--report", path(&report_path)]);
        if expect {
            args.extend(["--expect", path(&baseline)]);
        }
        let output = kit(&args);
        let err = text(&output.stderr);
        assert_eq!(output.status.code(), Some(1), "--expect {expect}: {err}");
        let report = Report::read(&report_path).expect("a report");
        assert!(report.configurations.iter().any(|c| c.failure.is_some()));
        if expect {
            assert!(report.baseline.is_none(), "{:?}", report.baseline);
            assert!(err.contains("could not be tested"), "--expect: {err}");
        }
    }
}

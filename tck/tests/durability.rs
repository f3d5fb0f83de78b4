//! The durability area end to end, through the `a2a-tck` command: `--durability` against the
//! built-in agent, and `--restart-cmd` against the real `a2a-reference-agent` binary started
//! with `--store sqlite:PATH` (and with `--store memory`, which forgets, and with restarts
//! that fail or never bring the agent back, which are ERRORs). Every process a test starts
//! is stopped by a guard, even when the test fails.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support;
use support::{agent_binary, free_port, listening};

const BIN: &str = env!("CARGO_BIN_EXE_a2a-tck");

/// A temporary directory with the agent's files; stops the agent whose pid is in `pid` and
/// removes the directory when dropped.
struct Workdir(PathBuf);

impl Workdir {
    fn new(name: &str) -> Workdir {
        let dir = std::env::temp_dir().join(format!(
            "a2a-tck-test-{name}-{}-{}",
            std::process::id(),
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map(|d| d.subsec_nanos())
                .unwrap_or_default()
        ));
        std::fs::create_dir_all(&dir).expect("a temporary directory");
        Workdir(dir)
    }

    fn path(&self, name: &str) -> PathBuf {
        self.0.join(name)
    }
}

impl Drop for Workdir {
    fn drop(&mut self) {
        if let Ok(pid) = std::fs::read_to_string(self.path("pid")) {
            let _ = Command::new("kill").arg(pid.trim()).status();
        }
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Writes `restart.sh`: stops the agent in `pid` (waiting, bounded, for it to exit) and starts
/// it again with `store` on `port`, in the background, its output in `agent.log`.
fn restart_script(dir: &Workdir, port: u16, store: &str) -> PathBuf {
    let script = dir.path("restart.sh");
    let text = format!(
        r#"#!/bin/sh
dir='{dir}'
if [ -f "$dir/pid" ]; then
  pid=$(cat "$dir/pid")
  kill "$pid" 2>/dev/null
  n=0
  while kill -0 "$pid" 2>/dev/null && [ $n -lt 200 ]; do sleep 0.05; n=$((n+1)); done
fi
'{bin}' --port {port} --store '{store}' --push >>"$dir/agent.log" 2>&1 &
echo $! > "$dir/pid"
"#,
        dir = dir.0.display(),
        bin = agent_binary().display(),
    );
    std::fs::write(&script, text).expect("the script is written");
    script
}

/// Runs the kit and returns its JSON report.
fn run_kit(dir: &Workdir, args: &[&str]) -> Value {
    let report = dir.path("report.json");
    let output = Command::new(BIN)
        .args(args)
        .args(["--select", "durability.*", "--quiet", "--report"])
        .arg(&report)
        .output()
        .expect("the kit runs");
    let text = std::fs::read_to_string(&report).unwrap_or_else(|_| {
        panic!(
            "no report; stdout: {}\nstderr: {}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        )
    });
    serde_json::from_str(&text).expect("a JSON report")
}

/// Status -> count over the durability results.
fn statuses(report: &Value) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for result in report["results"].as_array().expect("results") {
        assert!(result["id"]
            .as_str()
            .is_some_and(|id| id.starts_with("durability.")));
        *counts
            .entry(result["status"].as_str().unwrap_or("?").to_string())
            .or_default() += 1;
    }
    counts
}

fn only(report: &Value, status: &str) {
    let counts = statuses(report);
    assert!(
        counts.len() == 1 && counts.contains_key(status),
        "expected only {status}: {counts:?}\n{}",
        serde_json::to_string_pretty(&report["results"]).unwrap_or_default()
    );
}

/// An agent started by `restart.sh` with `store`, and the kit run against it with `restart`.
fn against_binary(name: &str, store: &str, restart: Option<&str>, ready: &str) -> Value {
    let dir = Workdir::new(name);
    let port = free_port();
    let store = store.replace("DIR", &dir.0.display().to_string());
    let script = restart_script(&dir, port, &store);
    let started = Command::new("sh").arg(&script).status().expect("sh runs");
    assert!(started.success());
    listening(port);
    let command = restart.map_or_else(
        || format!("sh '{}'", script.display()),
        |given| given.replace("DIR", &dir.0.display().to_string()),
    );
    let target = format!("http://127.0.0.1:{port}");
    let started = Instant::now();
    let report = run_kit(
        &dir,
        &[
            "--target",
            &target,
            "--restart-cmd",
            &command,
            "--ready-timeout",
            ready,
        ],
    );
    // Every wait of the area has a deadline: the run never hangs on a dead target.
    assert!(
        started.elapsed() < Duration::from_secs(30),
        "the run took {:?}",
        started.elapsed()
    );
    report
}

#[test]
fn restart_cmd_against_the_binary_on_sqlite_passes() {
    let report = against_binary("sqlite", "sqlite:DIR/tasks.db", None, "20");
    only(&report, "PASS");
    assert_eq!(report["durability"]["restarted"], true, "{report}");
    // 6 checks on 6 interfaces, ListTasks on the three of 1.0 only.
    assert_eq!(report["results"].as_array().map(Vec::len), Some(36));
    // The README's recipe passes the gate: a selection of SHOULD checks that all pass is
    // conformant (partial: the rest of the catalogue was not selected), hence exit 0.
    assert_eq!(
        report["verdict"], "conformant",
        "{}",
        report["verdict_reason"]
    );
    assert!(report["partial"]["checks_not_selected"].as_u64() > Some(0));
}

#[test]
fn restart_cmd_against_the_binary_in_memory_warns() {
    let report = against_binary("memory", "memory", None, "20");
    assert_eq!(report["durability"]["restarted"], true, "{report}");
    let counts = statuses(&report);
    // Everything made before the restart is gone (tasks, push configs); the contexts are
    // accepted anew.
    assert_eq!(counts.get("FAIL"), None, "{counts:?}");
    assert_eq!(counts.get("WARN"), Some(&30), "{counts:?}");
}

#[test]
fn a_failing_restart_is_an_error() {
    let report = against_binary("false", "memory", Some("exit 3"), "5");
    only(&report, "ERROR");
    assert_eq!(report["durability"]["restarted"], false);
    let message = report["results"][0]["message"].as_str().unwrap_or_default();
    assert!(message.contains("restart command failed"), "{message}");
}

#[test]
fn an_agent_that_does_not_come_back_is_an_error_within_the_ready_timeout() {
    // The command stops the agent and starts nothing.
    let report = against_binary("gone", "memory", Some("kill $(cat 'DIR/pid')"), "1");
    only(&report, "ERROR");
    let message = report["results"][0]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("did not come back within the ready timeout"),
        "{message}"
    );
}

#[test]
fn durability_against_the_builtin_agent_passes() {
    let dir = Workdir::new("builtin");
    let report = run_kit(&dir, &["--durability"]);
    only(&report, "PASS");
    assert_eq!(report["durability"]["restarted"], true);
    assert_eq!(report["results"].as_array().map(Vec::len), Some(36));
}

#[test]
fn durability_over_tls_serves_the_restarted_agent_with_the_same_ca() {
    let dir = Workdir::new("builtin-tls");
    let report = run_kit(&dir, &["--tls", "--durability", "--select", "tls.*"]);
    let results = report["results"].as_array().expect("results");
    assert!(
        results.iter().all(|r| r["status"] == "PASS"),
        "{}",
        serde_json::to_string_pretty(results).unwrap_or_default()
    );
    assert_eq!(report["durability"]["restarted"], true);
    assert!(
        report["target"]["url"]
            .as_str()
            .is_some_and(|url| url.starts_with("https://")),
        "{}",
        report["target"]
    );
    let count = |prefix: &str| {
        report["results"].as_array().map_or(0, |results| {
            results
                .iter()
                .filter(|r| r["id"].as_str().is_some_and(|id| id.starts_with(prefix)))
                .count()
        })
    };
    assert_eq!(count("tls."), 4);
    assert_eq!(count("durability."), 36);
}

#[test]
fn the_library_runs_the_area_over_tls() {
    use a2a_tck::api::{self, Options, Status};
    let mut config = a2a_tck::run::builtin::profile();
    config.tls = true;
    let options = Options::builtin_with(config)
        .durability()
        .select("durability.task-survives-restart")
        .select("tls.interfaces-https");
    let report = api::run_blocking(&options).expect("the run starts");
    assert!(report.durability.as_ref().is_some_and(|d| d.restarted));
    assert!(
        report.results.iter().any(|r| r.id.starts_with("tls."))
            && report
                .results
                .iter()
                .any(|r| r.id.starts_with("durability."))
            && report.results.iter().all(|r| r.status == Status::Pass),
        "{}",
        api::summary(&report)
    );
}

#[test]
fn durability_checks_are_not_run_without_a_restart() {
    let output = Command::new(BIN)
        .args(["--select", "durability.*", "--quiet"])
        .output()
        .expect("the kit runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("--restart-cmd"), "{stderr}");
    // A selection wider than the area runs without it, and without its results.
    let dir = Workdir::new("default");
    let report = dir.path("report.json");
    let status = Command::new(BIN)
        .args(["--select", "tasks.get.*", "--select", "durability.*", "-q"])
        .arg("--report")
        .arg(&report)
        .status()
        .expect("the kit runs");
    assert_ne!(status.code(), Some(2));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(&report).expect("a report")).expect("JSON");
    assert!(report.get("durability").is_none());
    assert!(report["results"]
        .as_array()
        .expect("results")
        .iter()
        .all(|r| !r["id"].as_str().unwrap_or("").starts_with("durability.")));
}

#[test]
fn the_library_runs_the_area_against_the_builtin_agent() {
    use a2a_tck::api::{self, AgentConfig, Fault, Options, Status};
    let options = Options::builtin_with(AgentConfig::with_faults([Fault::DurableForgetsHistory]))
        .durability()
        .select("durability.history-survives-restart");
    let report = api::run_blocking(&options).expect("the run starts");
    assert!(report.durability.as_ref().is_some_and(|d| d.restarted));
    assert!(
        !report.results.is_empty() && report.results.iter().all(|r| r.status == Status::Warn),
        "{}",
        api::summary(&report)
    );
    let wrong = Options::url("http://127.0.0.1:9").durability();
    assert!(matches!(
        api::run_blocking(&wrong),
        Err(api::Error::Usage(_))
    ));
}

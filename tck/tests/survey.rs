//! `a2a-tck survey` and `a2a-tck merge`, run as a user runs them: the index's schema is
//! current; three shards run as separate processes and merged give the index one process
//! gives; an interrupted survey resumes without running its finished agents again; a dead
//! agent is an entry with an error, a slow one costs its deadline and no more.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use a2a_tck::reporting::survey_index::{Entry, Outcome, SurveyIndex};

use crate::support::{self, BIN};

fn schema_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../schemas/survey-index.schema.json")
}

#[test]
fn committed_index_schema_matches_the_types() {
    let generated = SurveyIndex::schema();
    let path = schema_path();
    if std::env::var_os("UPDATE_SCHEMAS").is_some() {
        std::fs::write(&path, &generated).expect("write schema");
    }
    let committed = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "schemas/survey-index.schema.json is out of date with the index types; \
         regenerate it with `UPDATE_SCHEMAS=1 cargo test -p a2a-tck --test suite survey::`"
    );
    // Every field says what it holds.
    let schema: serde_json::Value = serde_json::from_str(&generated).expect("JSON");
    let mut missing = Vec::new();
    for (name, def) in schema["$defs"].as_object().expect("$defs") {
        for (field, property) in def["properties"].as_object().into_iter().flatten() {
            let by_level = ["MUST", "SHOULD", "MAY"].contains(&field.as_str());
            if !by_level && property.get("description").is_none() {
                missing.push(format!("{name}.{field}"));
            }
        }
    }
    for (field, property) in schema["properties"].as_object().expect("properties") {
        if property.get("description").is_none() {
            missing.push(field.clone());
        }
    }
    assert!(missing.is_empty(), "undocumented: {missing:?}");
}

/// A fresh folder for one test.
fn folder(name: &str) -> PathBuf {
    let dir = support::temp_path("survey", name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a folder");
    dir
}

fn survey(file: &Path, out: &Path, more: &[&str]) -> std::process::Output {
    let mut command = Command::new(BIN);
    command
        .arg("survey")
        .arg(file)
        .arg("--out")
        .arg(out)
        .args(more);
    command.output().expect("the kit runs")
}

fn index(out: &Path) -> SurveyIndex {
    SurveyIndex::read(&out.join("index.json")).expect("an index")
}

/// A port nothing listens on.
fn dead_port() -> u16 {
    support::free_port()
}

/// A reference agent process on a loopback port, stopped when dropped.
struct AgentProcess(Child, u16);

impl AgentProcess {
    fn start() -> AgentProcess {
        let port = support::free_port();
        let child = Command::new(support::agent_binary())
            .args(["--port", &port.to_string()])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("the reference agent starts");
        let agent = AgentProcess(child, port);
        support::listening(port);
        agent
    }
}

impl Drop for AgentProcess {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

/// What of an entry two surveys of the same agents must agree on: everything but when it ran,
/// how long it took, and the report's digest (a report holds its times and ports).
fn comparable(entry: &Entry) -> serde_json::Value {
    let mut value = serde_json::to_value(entry).expect("JSON");
    let object = value.as_object_mut().expect("an object");
    for key in ["started_at", "finished_at", "duration_ms", "report_sha256"] {
        object.remove(key);
    }
    value
}

#[test]
fn three_shards_merged_give_the_index_of_one_survey() {
    let dir = folder("shards");
    let agent = AgentProcess::start();
    let file = dir.join("agents.toml");
    let text = format!(
        r#"
[defaults]
select = ["card.*"]
deadline = 30

[[agent]]
name = "reference"
target = "builtin"

[[agent]]
name = "no-description"
target = "builtin"
faults = ["card-missing-required-field"]

[[agent]]
name = "patch-version"
target = "builtin"
faults = ["card-patch-version"]

[[agent]]
name = "served-as-html"
target = "builtin"
faults = ["card-served-as-html"]

[[agent]]
name = "standalone"
target = "http://127.0.0.1:{}"

[[agent]]
name = "dead"
target = "http://127.0.0.1:{}"
"#,
        agent.1,
        dead_port()
    );
    std::fs::write(&file, text).expect("the survey file");
    let names = [
        "reference",
        "no-description",
        "patch-version",
        "served-as-html",
        "standalone",
        "dead",
    ];
    let shards: std::collections::BTreeSet<u32> = (names.iter())
        .map(|n| a2a_tck::reporting::survey_index::shard_of(n, 3))
        .collect();
    assert!(shards.len() > 1, "the agents fall into more than one shard");

    let whole = dir.join("whole");
    let one = survey(&file, &whole, &[]);
    assert_eq!(one.status.code(), Some(1), "{}", support::stderr(&one));
    // The shards as three processes at once, as a job engine runs them.
    let children: Vec<(PathBuf, Child)> = (0..3)
        .map(|i| {
            let out = dir.join(format!("shard-{i}"));
            let child = Command::new(BIN)
                .arg("survey")
                .arg(&file)
                .arg("--out")
                .arg(&out)
                .args(["--shard", &format!("{i}/3")])
                .stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .expect("a shard starts");
            (out, child)
        })
        .collect();
    let mut outs = Vec::new();
    for (out, child) in children {
        let output = child.wait_with_output().expect("the shard ends");
        assert!(
            matches!(output.status.code(), Some(0 | 1)),
            "{}",
            support::stderr(&output)
        );
        outs.push(out);
    }
    let merged = dir.join("merged");
    let merge = Command::new(BIN)
        .arg("merge")
        .args(&outs)
        .arg("--out")
        .arg(&merged)
        .output()
        .expect("merge runs");
    assert_eq!(merge.status.code(), Some(1), "{}", support::stderr(&merge));

    let (whole, merged_index) = (index(&whole), index(&merged));
    assert_eq!(whole.agents.len(), 6);
    assert_eq!(merged_index.exit_status, whole.exit_status);
    assert_eq!(merged_index.outcomes, whole.outcomes);
    assert_eq!(merged_index.survey, whole.survey);
    assert_eq!(merged_index.shards.len(), 3);
    let entries = |index: &SurveyIndex| -> Vec<serde_json::Value> {
        index.agents.iter().map(comparable).collect()
    };
    assert_eq!(entries(&merged_index), entries(&whole));
    // Each merged entry's report is there, the one its digest names.
    for entry in &merged_index.agents {
        let report = merged.join(entry.report.as_deref().expect("a report"));
        let bytes = std::fs::read(&report).expect("the report was copied");
        assert_eq!(
            Some(a2a_tck::reporting::survey_index::digest(&bytes)),
            entry.report_sha256
        );
    }
    let outcome = |name: &str| {
        (whole.agents.iter())
            .find(|e| e.name == name)
            .map(|e| e.outcome)
    };
    assert_eq!(outcome("reference"), Some(Outcome::Pass));
    assert_eq!(outcome("standalone"), Some(Outcome::Pass));
    assert_eq!(outcome("no-description"), Some(Outcome::Fail));
    assert_eq!(outcome("dead"), Some(Outcome::Error));
}

/// Waits for `child` to end, 20 s at most.
fn ended(child: &mut Child) -> std::process::ExitStatus {
    let deadline = Instant::now() + Duration::from_secs(20);
    loop {
        if let Some(status) = child.try_wait().expect("wait") {
            return status;
        }
        assert!(
            Instant::now() < deadline,
            "the survey did not end within 20 s"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[cfg(unix)]
#[test]
fn an_interrupted_survey_resumes_without_running_the_finished_agents_again() {
    let dir = folder("resume");
    // An agent that accepts connections and never answers: the survey is stopped while it
    // waits on it.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let silent_port = silent.local_addr().expect("its address").port();
    let file = dir.join("agents.yaml");
    let text = format!(
        "defaults:\n  select: [\"card.*\"]\n  deadline: 60\nagents:\n  \
         - name: first\n    target: builtin\n  \
         - name: second\n    target: builtin\n    faults: [card-patch-version]\n  \
         - name: silent\n    target: \"http://127.0.0.1:{silent_port}\"\n"
    );
    std::fs::write(&file, text).expect("the survey file");
    let out = dir.join("out");
    let mut child = Command::new(BIN)
        .arg("survey")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .args(["--agents", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("the survey starts");
    // One agent at a time, in the file's order: once the silent agent's folder exists, the
    // first two are done.
    let deadline = Instant::now() + Duration::from_secs(20);
    while !out.join("silent").exists() {
        assert!(
            Instant::now() < deadline,
            "the survey never reached the third agent"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    let kill = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status()
        .expect("kill runs");
    assert!(kill.success());
    assert_eq!(ended(&mut child).code(), Some(143));
    let stopped = index(&out);
    let names: Vec<&str> = stopped.agents.iter().map(|e| e.name.as_str()).collect();
    assert_eq!(names, ["first", "second"]);
    assert!(!out.join("silent/entry.json").exists());
    // The index says the survey was stopped, and merge does not make it a whole survey.
    assert_eq!((stopped.exit_status, stopped.complete), (143, false));
    assert_eq!(stopped.planned, ["first", "second", "silent"]);
    let merged = merge(&[&out], &dir.join("merged"));
    let stderr = support::stderr(&merged);
    assert_eq!(merged.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("stopped"), "{stderr}");
    assert!(!dir.join("merged/index.json").exists());

    // Started again (the silent agent is gone now): only the third runs.
    drop(silent);
    let again = survey(&file, &out, &["--agents", "1"]);
    let stderr = support::stderr(&again);
    assert_eq!(again.status.code(), Some(1), "{stderr}");
    assert_eq!(
        stderr.matches("kept from an earlier survey").count(),
        2,
        "{stderr}"
    );
    let resumed = index(&out);
    assert_eq!(resumed.agents.len(), 3);
    assert!(resumed.complete);
    for before in &stopped.agents {
        let after = (resumed.agents.iter())
            .find(|e| e.name == before.name)
            .expect("still there");
        assert_eq!(after, before, "{} was run again", before.name);
    }
    let silent = (resumed.agents.iter())
        .find(|e| e.name == "silent")
        .expect("the third agent");
    assert_eq!(silent.outcome, Outcome::Error);

    // --fresh runs them all again.
    let fresh = survey(&file, &out, &["--fresh"]);
    assert!(!support::stderr(&fresh).contains("kept from an earlier survey"));
}

#[test]
fn a_dead_agent_is_an_entry_with_an_error_and_a_slow_one_costs_its_deadline() {
    let dir = folder("dead");
    let silent = std::net::TcpListener::bind("127.0.0.1:0").expect("a port");
    let silent_port = silent.local_addr().expect("its address").port();
    let file = dir.join("agents.toml");
    let text = format!(
        r#"
[defaults]
select = ["card.*"]

[[agent]]
name = "reference"
target = "builtin"

[[agent]]
name = "dead"
target = "http://127.0.0.1:{}"

[[agent]]
name = "slow"
target = "http://127.0.0.1:{silent_port}"
deadline = 2

[[agent]]
name = "no-token"
target = "builtin"
bearer_env = "A2A_TCK_SURVEY_TEST_UNSET"
"#,
        dead_port()
    );
    std::fs::write(&file, text).expect("the survey file");
    let out = dir.join("out");
    let started = Instant::now();
    let output = survey(&file, &out, &[]);
    let took = started.elapsed();
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        support::stderr(&output)
    );
    // The slow agent's budget (2 s), the stop's grace (2 s), and no more than a little over.
    assert!(took < Duration::from_secs(12), "the survey took {took:?}");
    let index = index(&out);
    let entry = |name: &str| {
        (index.agents.iter())
            .find(|e| e.name == name)
            .cloned()
            .expect("an entry")
    };
    assert_eq!(entry("reference").outcome, Outcome::Pass);
    let dead = entry("dead");
    assert_eq!((dead.outcome, dead.exit_status), (Outcome::Error, 2));
    assert!(dead
        .error
        .as_deref()
        .is_some_and(|e| e.contains("agent card")));
    let report =
        a2a_tck::reporting::report::Report::read(&out.join(dead.report.expect("a report")))
            .expect("the dead agent's report");
    assert_eq!(report.verdict, a2a_tck::reporting::report::Verdict::Error);
    let slow = entry("slow");
    assert_eq!((slow.outcome, slow.exit_status), (Outcome::OverBudget, 130));
    assert!(
        slow.error
            .as_deref()
            .is_some_and(|e| e.contains("deadline of 2s")),
        "{:?}",
        slow.error
    );
    let no_token = entry("no-token");
    assert_eq!(no_token.outcome, Outcome::Error);
    assert!(no_token.report.is_none());
    assert!(no_token
        .error
        .as_deref()
        .is_some_and(|e| e.contains("A2A_TCK_SURVEY_TEST_UNSET")));

    // The passing agent alone: exit 0. A bad file: exit 2, nothing run.
    std::fs::write(
        &file,
        "[[agent]]\nname = \"reference\"\ntarget = \"builtin\"\nselect = [\"card.*\"]\n",
    )
    .expect("the survey file");
    assert_eq!(survey(&file, &dir.join("pass"), &[]).status.code(), Some(0));
    std::fs::write(
        &file,
        "[[agent]]\nname = \"x\"\ntarget = \"builtin\"\nfaults = [\"no-such-fault\"]\n",
    )
    .expect("the survey file");
    let bad = survey(&file, &dir.join("bad"), &[]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(!dir.join("bad/index.json").exists());
}

/// The index as JSON, whatever fields this kit's index has.
fn index_json(out: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(out.join("index.json")).expect("an index");
    serde_json::from_str(&text).expect("JSON")
}

fn merge(dirs: &[&Path], out: &Path) -> std::process::Output {
    Command::new(BIN)
        .arg("merge")
        .args(dirs)
        .arg("--out")
        .arg(out)
        .output()
        .expect("merge runs")
}

/// Four built-in agents, their card checks only.
const FOUR: &str = r#"
[defaults]
select = ["card.*"]
deadline = 30

[[agent]]
name = "reference"
target = "builtin"

[[agent]]
name = "no-description"
target = "builtin"
faults = ["card-missing-required-field"]

[[agent]]
name = "patch-version"
target = "builtin"
faults = ["card-patch-version"]

[[agent]]
name = "served-as-html"
target = "builtin"
faults = ["card-served-as-html"]
"#;

#[test]
fn merge_refuses_shards_that_do_not_cover_the_survey() {
    let dir = folder("cover");
    let file = dir.join("agents.toml");
    std::fs::write(&file, FOUR).expect("the survey file");
    let names = [
        "reference",
        "no-description",
        "patch-version",
        "served-as-html",
    ];
    let mut in_first: Vec<&str> = (names.iter().copied())
        .filter(|n| a2a_tck::reporting::survey_index::shard_of(n, 2) == 0)
        .collect();
    in_first.sort_unstable();
    assert!(
        !in_first.is_empty() && in_first.len() < names.len(),
        "both shards hold an agent"
    );
    let (s0, s1) = (dir.join("s0"), dir.join("s1"));
    let first = survey(&file, &s0, &["--shard", "0/2"]);
    assert!(
        matches!(first.status.code(), Some(0 | 1)),
        "{}",
        support::stderr(&first)
    );
    // The index says what its shard planned, and that it holds all of it.
    let shard = index_json(&s0);
    assert_eq!(shard["planned"], serde_json::json!(in_first));
    assert_eq!(shard["complete"], serde_json::json!(true));

    // One shard of two is not the survey.
    let alone = merge(&[&s0], &dir.join("m0"));
    let stderr = support::stderr(&alone);
    assert_eq!(alone.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("1/2"), "{stderr}");
    assert!(!dir.join("m0/index.json").exists());

    // Both shards are; a shard's index that lost an entry is not.
    let second = survey(&file, &s1, &["--shard", "1/2"]);
    assert!(matches!(second.status.code(), Some(0 | 1)));
    let both = merge(&[&s0, &s1], &dir.join("m"));
    assert_eq!(both.status.code(), Some(1), "{}", support::stderr(&both));
    let merged = index_json(&dir.join("m"));
    assert_eq!(merged["complete"], serde_json::json!(true));
    assert_eq!(merged["planned"].as_array().map(Vec::len), Some(4));
    let mut edited = index_json(&s1);
    let lost = edited["agents"][0]["name"]
        .as_str()
        .expect("a name")
        .to_string();
    edited["agents"].as_array_mut().expect("agents").remove(0);
    std::fs::write(s1.join("index.json"), edited.to_string()).expect("the edited index");
    let short = merge(&[&s0, &s1], &dir.join("m1"));
    let stderr = support::stderr(&short);
    assert_eq!(short.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains(&lost), "{stderr}");

    // A survey run whole is shard 0/1: merged alone it is complete.
    let whole = dir.join("whole");
    assert_eq!(survey(&file, &whole, &[]).status.code(), Some(1));
    assert_eq!(
        index_json(&whole)["shards"],
        serde_json::json!([{"index": 0, "count": 1}])
    );
    let again = merge(&[&whole], &dir.join("m2"));
    assert_eq!(again.status.code(), Some(1), "{}", support::stderr(&again));
}

#[test]
fn an_agent_whose_reports_cannot_be_written_is_an_error_entry() {
    let dir = folder("unwritable");
    let file = dir.join("agents.toml");
    std::fs::write(
        &file,
        "[defaults]\nselect = [\"card.*\"]\n\n[[agent]]\nname = \"reference\"\ntarget = \
         \"builtin\"\n\n[[agent]]\nname = \"blocked\"\ntarget = \"builtin\"\n",
    )
    .expect("the survey file");
    let out = dir.join("out");
    // A folder where its JSON report goes: the report cannot be written there.
    std::fs::create_dir_all(out.join("blocked/report.json/in-the-way")).expect("a folder");
    let output = survey(&file, &out, &[]);
    let stderr = support::stderr(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    let index = index(&out);
    let blocked = (index.agents.iter())
        .find(|e| e.name == "blocked")
        .expect("the agent whose reports could not be written has an entry");
    assert_eq!((blocked.outcome, blocked.exit_status), (Outcome::Error, 2));
    assert!(blocked.report.is_none());
    assert!(
        blocked
            .error
            .as_deref()
            .is_some_and(|e| e.contains("report.json")),
        "{:?}",
        blocked.error
    );
    assert_eq!(index.agents.len(), 2);
    assert_eq!(index.exit_status, 1);
}

#[test]
fn a_resumed_survey_runs_again_an_agent_whose_baseline_changed() {
    let dir = folder("baseline");
    let file = dir.join("agents.toml");
    std::fs::write(
        &file,
        "[[agent]]\nname = \"reference\"\ntarget = \"builtin\"\nselect = [\"card.*\"]\n\
         expect = \"baseline.toml\"\n",
    )
    .expect("the survey file");
    std::fs::write(dir.join("baseline.toml"), "").expect("the baseline");
    let out = dir.join("out");
    let first = survey(&file, &out, &[]);
    assert_eq!(first.status.code(), Some(0), "{}", support::stderr(&first));
    let kept = survey(&file, &out, &[]);
    assert!(support::stderr(&kept).contains("kept from an earlier survey"));
    // The baseline edited, not the survey file: the agent's verdict is judged again.
    std::fs::write(dir.join("baseline.toml"), "# reviewed again\n").expect("the baseline");
    let again = survey(&file, &out, &[]);
    let stderr = support::stderr(&again);
    assert_eq!(again.status.code(), Some(0), "{stderr}");
    assert!(!stderr.contains("kept from an earlier survey"), "{stderr}");
}

#[test]
fn merge_refuses_a_report_path_outside_its_agent_folder() {
    let dir = folder("escape");
    let file = dir.join("agents.toml");
    std::fs::write(
        &file,
        "[[agent]]\nname = \"reference\"\ntarget = \"builtin\"\nselect = [\"card.*\"]\n",
    )
    .expect("the survey file");
    let shard = dir.join("shard");
    assert_eq!(survey(&file, &shard, &[]).status.code(), Some(0));
    // The report, and its index entry pointing at it, moved out of the shard's folder.
    std::fs::create_dir_all(dir.join("x")).expect("a folder");
    std::fs::copy(
        shard.join("reference/report.json"),
        dir.join("x/report.json"),
    )
    .expect("the report copied");
    let original = index_json(&shard);
    let absolute = dir.join("x/report.json").display().to_string();
    for path in ["../x/report.json", absolute.as_str()] {
        let mut edited = original.clone();
        edited["agents"][0]["report"] = serde_json::json!(path);
        std::fs::write(shard.join("index.json"), edited.to_string()).expect("the edited index");
        let out = dir.join("deep/merged");
        let output = merge(&[&shard], &out);
        let stderr = support::stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{path}: {stderr}");
        assert!(stderr.contains("report"), "{stderr}");
        assert!(!dir.join("deep/x").exists(), "{path}: copied outside --out");
        assert!(!out.join("index.json").exists());
    }
}

#[test]
fn an_agent_with_sut_behaviors_and_a_contract_or_drive_is_refused() {
    let dir = folder("behaviors");
    let fixtures = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../fixtures");
    std::fs::copy(
        fixtures.join("sut-behaviors-reference.yaml"),
        dir.join("behaviors.yaml"),
    )
    .expect("the behaviour file");
    std::fs::copy(
        fixtures.join("drive-reference.toml"),
        dir.join("drive.toml"),
    )
    .expect("the drive file");
    let file = dir.join("agents.toml");
    for other in ["contract = \"none\"", "drive = \"drive.toml\""] {
        std::fs::write(
            &file,
            format!(
                "[[agent]]\nname = \"reference\"\ntarget = \"builtin\"\nselect = [\"card.*\"]\n\
                 sut_behaviors = \"behaviors.yaml\"\n{other}\n"
            ),
        )
        .expect("the survey file");
        let out = dir.join("out");
        let output = survey(&file, &out, &[]);
        let stderr = support::stderr(&output);
        assert_eq!(output.status.code(), Some(2), "{other}: {stderr}");
        assert!(stderr.contains("sut_behaviors"), "{stderr}");
        assert!(!out.join("index.json").exists());
    }
}

#[test]
fn header_env_values_are_trimmed_as_tokens_are() {
    let dir = folder("header");
    let file = dir.join("agents.toml");
    std::fs::write(
        &file,
        "[[agent]]\nname = \"reference\"\ntarget = \"builtin\"\nselect = [\"card.*\"]\n\
         header_env = { \"X-Survey-Key\" = \"A2A_TCK_SURVEY_TEST_KEY\" }\n",
    )
    .expect("the survey file");
    let out = dir.join("out");
    // As a secret read from a file often ends: with a newline.
    let output = Command::new(BIN)
        .arg("survey")
        .arg(&file)
        .arg("--out")
        .arg(&out)
        .env("A2A_TCK_SURVEY_TEST_KEY", " key-value\n")
        .output()
        .expect("the kit runs");
    let stderr = support::stderr(&output);
    assert_eq!(output.status.code(), Some(0), "{stderr}");
    assert_eq!(index(&out).agents[0].outcome, Outcome::Pass);
}

/// A survey of one agent and two clients (the kit's reference client, and the same client
/// with a fault): each client is an entry of kind `client` with its verdict and its reports
/// in its folder, kept when the survey is run again, and sharded by the same rule as agents:
/// the merged shards give the index of the whole survey.
#[test]
fn clients_in_a_survey_are_entries_of_kind_client_resumed_and_sharded() {
    use a2a_tck::reporting::survey_index::Kind;
    let dir = folder("clients");
    let file = dir.join("survey.toml");
    let text = r#"
[defaults]
select = ["card.*"]
deadline = 60
bindings = ["jsonrpc"]
versions = ["1.0"]

[[agent]]
name = "reference"
target = "builtin"

[[client]]
name = "reference-client"
cmd = "builtin"
select = ["client.requests.*"]

[[client]]
name = "no-version-header"
cmd = "builtin"
faults = ["no-version-header"]
select = ["client.requests.*"]
scenario_timeout = 20
"#;
    std::fs::write(&file, text).expect("the survey file");
    let whole = dir.join("whole");
    let run = survey(&file, &whole, &[]);
    assert_eq!(run.status.code(), Some(1), "{}", support::stderr(&run));
    let first = index(&whole);
    assert!(first.complete);
    assert_eq!(first.agents.len(), 3);
    let entry = |index: &SurveyIndex, name: &str| -> Entry {
        (index.agents.iter())
            .find(|e| e.name == name)
            .cloned()
            .expect("an entry")
    };
    let agent = entry(&first, "reference");
    assert_eq!((agent.kind, agent.outcome), (Kind::Agent, Outcome::Pass));
    let good = entry(&first, "reference-client");
    assert_eq!(
        (good.kind, good.outcome),
        (Kind::Client, Outcome::Pass),
        "{good:?}"
    );
    assert_eq!(good.target, "builtin");
    let bad = entry(&first, "no-version-header");
    assert_eq!(
        (bad.kind, bad.outcome),
        (Kind::Client, Outcome::Fail),
        "{bad:?}"
    );
    // The client's reports are a2a-tck client's, in its own folder.
    for client in [&good, &bad] {
        let path = whole.join(client.report.as_deref().expect("a report"));
        assert!(
            path.starts_with(whole.join(a2a_tck::reporting::survey_index::folder_of(&client.name)))
        );
        let report: serde_json::Value =
            serde_json::from_slice(&std::fs::read(&path).expect("the report")).expect("JSON");
        assert_eq!(report["mode"], "client", "{}", path.display());
        for file in ["report.html", "report.md", "junit.xml", "entry.json"] {
            assert!(path.with_file_name(file).is_file(), "{file}");
        }
    }
    let report: serde_json::Value = serde_json::from_slice(
        &std::fs::read(whole.join("no-version-header/report.json")).expect("the report"),
    )
    .expect("JSON");
    let failed: Vec<&str> = (report["results"].as_array().expect("results").iter())
        .filter(|r| r["status"] == "FAIL")
        .filter_map(|r| r["id"].as_str())
        .collect();
    assert!(
        !failed.is_empty()
            && failed
                .iter()
                .all(|id| *id == "client.requests.version-header"),
        "{failed:?}"
    );
    // An index written with clients reads back; "kind" is written for clients only.
    let json = index_json(&whole);
    let kinds: Vec<Option<&str>> = (json["agents"].as_array().expect("entries").iter())
        .map(|e| e["kind"].as_str())
        .collect();
    assert_eq!(kinds, [Some("client"), None, Some("client")]);

    // Run again: every entry is kept, clients as agents are.
    let again = survey(&file, &whole, &[]);
    assert_eq!(again.status.code(), Some(1), "{}", support::stderr(&again));
    let stderr = support::stderr(&again);
    assert_eq!(
        stderr.matches("(kept from an earlier survey)").count(),
        3,
        "{stderr}"
    );
    assert_eq!(entry(&index(&whole), "no-version-header"), bad);
    // --max-age 0s runs them again.
    let fresh = survey(&file, &whole, &["--max-age", "0s"]);
    assert_eq!(fresh.status.code(), Some(1), "{}", support::stderr(&fresh));
    assert!(!support::stderr(&fresh).contains("(kept from an earlier survey)"));

    // Two shards, merged: the index of the whole survey.
    let outs: Vec<PathBuf> = (0..2)
        .map(|i| {
            let out = dir.join(format!("shard-{i}"));
            let run = survey(&file, &out, &["--shard", &format!("{i}/2")]);
            assert!(
                matches!(run.status.code(), Some(0 | 1)),
                "{}",
                support::stderr(&run)
            );
            out
        })
        .collect();
    let merged = dir.join("merged");
    let refs: Vec<&Path> = outs.iter().map(PathBuf::as_path).collect();
    let output = merge(&refs, &merged);
    assert_eq!(
        output.status.code(),
        Some(1),
        "{}",
        support::stderr(&output)
    );
    let (whole, merged) = (index(&whole), index(&merged));
    let entries = |index: &SurveyIndex| -> Vec<serde_json::Value> {
        index.agents.iter().map(comparable).collect()
    };
    assert_eq!(entries(&merged), entries(&whole));
}

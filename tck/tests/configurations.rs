//! Several configurations of one agent, one verdict: the reference agent started as it is,
//! with `ITK_ACTS_REDUCED_CAPABILITIES` and with `ITK_ACTS_AUTH` (as the official SDKs' ACTS
//! runner starts its test agents), and the kit run once over the three
//! (`--configuration NAME=URL`).

use std::process::{Child, Command, Stdio};

use a2a_tck::reporting::report::{Report, Verdict};
use a2a_tck::suite::check::Status;

use crate::support::{agent_binary, free_port, listening, temp_path, BIN};

/// A reference agent started from its binary; killed when dropped.
struct Agent {
    child: Child,
    url: String,
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// Starts the reference agent with `env` set and `args`, and waits until it listens.
fn agent(env: &[(&str, &str)], args: &[&str]) -> Agent {
    let port = free_port();
    let mut command = Command::new(agent_binary());
    command
        .args(["--port", &port.to_string()])
        .args(args)
        .env_remove("ITK_ACTS_REDUCED_CAPABILITIES")
        .env_remove("ITK_ACTS_AUTH")
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    for (name, value) in env {
        command.env(name, value);
    }
    let child = command.spawn().expect("the reference agent starts");
    let agent = Agent {
        child,
        url: format!("http://127.0.0.1:{port}"),
    };
    listening(port);
    agent
}

/// Runs the kit with `args` and a JSON report; its exit status and the report.
fn kit(name: &str, args: &[String]) -> (Option<i32>, Report) {
    let path = temp_path("configurations", &format!("{name}.json"));
    let output = Command::new(BIN)
        .args(args)
        .args(["--quiet", "--stream-wait", "1.5", "--report"])
        .arg(&path)
        .output()
        .expect("the kit runs");
    let report = Report::read(&path).unwrap_or_else(|e| {
        panic!(
            "{e}\n{}",
            String::from_utf8_lossy(&output.stderr) + String::from_utf8_lossy(&output.stdout)
        )
    });
    (output.status.code(), report)
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|a| a.to_string()).collect()
}

#[test]
fn the_reduced_and_auth_configurations_judge_what_the_default_leaves_unjudged() {
    let default = agent(&[], &[]);
    let reduced = agent(&[("ITK_ACTS_REDUCED_CAPABILITIES", "1")], &[]);
    let auth = agent(&[("ITK_ACTS_AUTH", "1")], &[]);
    let (code, report) = kit(
        "three",
        &strings(&[
            "--target",
            &default.url,
            "--configuration",
            &format!("reduced={}", reduced.url),
            "--configuration",
            &format!("auth={}", auth.url),
            "--configuration-bearer",
            "auth=itk-valid-token",
            "--configuration-limited-bearer",
            "auth=itk-insufficient-token",
            "--select",
            "capabilities.*",
            "--select",
            "auth.missing-credentials-rejected",
            "--select",
            "auth.limited-principal-refused",
        ]),
    );
    let of = |id: &str| -> Vec<_> { report.results.iter().filter(|r| r.id == id).collect() };
    // N/A in the default configuration, which declares streaming; judged where it does not.
    let streaming = of("capabilities.streaming-absent-rejects-streaming");
    assert!(!streaming.is_empty());
    for result in &streaming {
        assert_eq!(result.status, Status::Pass, "{}", result.message);
        assert_eq!(result.configuration.as_deref(), Some("reduced"));
    }
    // N/A in the default configuration, which declares no security; judged in `auth`.
    for id in [
        "auth.missing-credentials-rejected",
        "auth.limited-principal-refused",
    ] {
        let results = of(id);
        assert!(!results.is_empty(), "{id}");
        for result in results {
            assert_eq!(result.status, Status::Pass, "{id}: {}", result.message);
            assert_eq!(result.configuration.as_deref(), Some("auth"), "{id}");
        }
    }
    // Judged in the default configuration (no push declared there): stays the default's.
    let push = of("capabilities.push-absent-rejects-push-config");
    assert!(push
        .iter()
        .all(|r| r.status == Status::Pass && r.configuration.is_none()));
    let names: Vec<&str> = (report.configurations.iter())
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["reduced", "auth"]);
    assert_eq!(report.configurations[1].target, auth.url);
    assert!(report.configurations[1]
        .declares
        .contains(&"security:bearer".to_string()));
    assert!(!report.configurations[0]
        .declares
        .contains(&"streaming".to_string()));
    assert_eq!(
        report.verdict,
        Verdict::Conformant,
        "{}",
        report.verdict_reason
    );
    assert_eq!(code, Some(0));
}

#[test]
fn a_fault_of_the_reduced_agent_fails_the_one_run_tagged_reduced() {
    let default = agent(&[], &[]);
    let reduced = agent(
        &[("ITK_ACTS_REDUCED_CAPABILITIES", "1")],
        &["--fault", "streaming-unsupported-wrong-error"],
    );
    let plan = temp_path("configurations", "plan.toml");
    std::fs::write(
        &plan,
        format!(
            "[[configuration]]\nname = \"reduced\"\ntarget = \"{}\"\n",
            reduced.url
        ),
    )
    .expect("the plan is written");
    let (code, report) = kit(
        "fault",
        &strings(&[
            "--target",
            &default.url,
            "--plan",
            &plan.display().to_string(),
            "--select",
            "capabilities.streaming-absent-rejects-streaming",
        ]),
    );
    let failed: Vec<_> = (report.results.iter())
        .filter(|r| r.status == Status::Fail)
        .collect();
    assert!(!failed.is_empty(), "{}", report.verdict_reason);
    for result in failed {
        assert_eq!(result.id, "capabilities.streaming-absent-rejects-streaming");
        assert_eq!(result.configuration.as_deref(), Some("reduced"));
    }
    assert_eq!(report.verdict, Verdict::NonConformant);
    assert!(report.verdict_reason.contains("in reduced"));
    assert_eq!(code, Some(1));
}

#[test]
fn a_configuration_flag_must_name_a_configuration() {
    let output = Command::new(BIN)
        .args([
            "--target",
            "http://127.0.0.1:9",
            "--configuration",
            "auth=http://127.0.0.1:9",
            "--configuration-bearer",
            "reduced=token",
        ])
        .output()
        .expect("the kit runs");
    assert_eq!(output.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(stderr.contains("no configuration reduced"), "{stderr}");
}

//! The README's commands, as a user would type them. Every command of its shell blocks is
//! listed here: either it is run, as written but for its placeholders (`URL`, the ports, the
//! step summary, the editor), with the exit status the README promises, or it carries the
//! reason it cannot run in a test (a build CI already does, a host of another network). A
//! command added to the README, or changed in it, fails `every_readme_command_is_known` until
//! it is listed. The binaries are the ones this test was built with, put first on `PATH`
//! under their installed names; each recipe runs in a temporary directory of its own.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};

use crate::support;
use support::{agent_binary, free_port, listening, BIN};

/// What the test does with one README command.
enum Use {
    /// Run by a recipe test below (its name).
    Run(&'static str),
    /// Not run here, and why.
    Skip(&'static str),
}

/// Every command of the README's `sh` blocks (comments dropped, spaces collapsed, lines
/// continued by `\` joined, a here-document kept with its command), and what the test does
/// with it.
const COMMANDS: &[(&str, Use)] = &[
    ("cargo run --release -p a2a-tck -- --report reports/builtin.json", Use::Skip("CI runs it as its own step (.ci/run)")),
    ("cargo test --workspace", Use::Skip("the command that runs this test")),
    ("cargo run --release -p a2a-tck -- --target https://agent.example.com --report out.json --junit out.xml", Use::Skip("an agent on another host")),
    ("cargo install --locked --path tck", Use::Skip("a second release build of what CI builds; the binaries it installs are the ones run here")),
    ("a2a-tck -V", Use::Run("the_version")),
    ("bash scripts/wheel.sh", Use::Skip("CI runs it as its own step (.ci/run)")),
    ("pip install target/wheels/a2a_tck-*.whl", Use::Skip("scripts/wheel.sh installs and runs the wheel in a fresh venv")),
    ("bash scripts/package.sh", Use::Skip("packs a release build; action.rs runs it on a stand-in binary and installs what it packs")),
    ("cargo binstall a2a-tck", Use::Skip("downloads a release from GitHub; action.rs checks that the binstall metadata names what scripts/package.sh packs")),
    ("a2a-tck --target URL --report first.json", Use::Run("the_baseline_recipe")),
    ("a2a-tck baseline first.json -o a2a-tck-baseline.toml", Use::Run("the_baseline_recipe")),
    ("$EDITOR a2a-tck-baseline.toml", Use::Run("the_baseline_recipe")),
    ("a2a-tck --target URL --expect a2a-tck-baseline.toml --report run.json --markdown \"$GITHUB_STEP_SUMMARY\"", Use::Run("the_baseline_recipe")),
    ("a2a-tck diff first.json run.json", Use::Run("the_baseline_recipe")),
    ("a2a-tck --target URL --sut-behaviors acts/sut-behaviors.yaml --report first.json", Use::Run("the_acts_recipe")),
    ("a2a-tck --target URL --expect a2a-tck-baseline.toml --sut-behaviors acts/sut-behaviors.yaml --acts-report reports/", Use::Run("the_acts_recipe")),
    ("a2a-tck card agent-card.json --sarif card.sarif --markdown \"$GITHUB_STEP_SUMMARY\"", Use::Run("the_card_recipe")),
    ("a2a-tck --target http://localhost:9999 --webhook-url http://host.docker.internal:8099/hooks", Use::Skip("an agent in a container, reaching the host by its Docker name")),
    ("a2a-tck --target https://agent.example.com --webhook-url http://kit.example.com/hooks --webhook-listen 0.0.0.0:8099", Use::Skip("an agent on another host, and a listener on every address")),
    ("a2a-reference-agent --tls --tls-ca-out ca.pem --port 8443 &", Use::Run("the_tls_recipe")),
    ("a2a-tck --target https://127.0.0.1:8443 --ca-cert ca.pem", Use::Run("the_tls_recipe")),
    ("cargo run --release -p a2a-tck -- --fault plays-no-contract --drive fixtures/drive-reference.toml", Use::Run("the_drive_recipe")),
    ("a2a-reference-agent --port 8101 &", Use::Run("the_configurations_recipe")),
    ("ITK_ACTS_REDUCED_CAPABILITIES=1 a2a-reference-agent --port 8102 &", Use::Run("the_configurations_recipe")),
    ("ITK_ACTS_AUTH=1 a2a-reference-agent --port 8103 &", Use::Run("the_configurations_recipe")),
    ("a2a-tck --target http://127.0.0.1:8101 --configuration reduced=http://127.0.0.1:8102 --configuration auth=http://127.0.0.1:8103 --configuration-bearer auth=itk-valid-token --configuration-limited-bearer auth=itk-insufficient-token --report configurations.json", Use::Run("the_configurations_recipe")),
    ("cat > plan.toml <<'TOML'", Use::Run("the_configurations_recipe")),
    ("cat > acts-plan.toml <<'TOML'", Use::Run("the_acts_workflow")),
    ("export ITK_VALID_TOKEN=itk-valid-token ITK_INSUFFICIENT_TOKEN=itk-insufficient-token", Use::Run("the_acts_workflow")),
    ("a2a-tck --target http://127.0.0.1:8101 --plan acts-plan.toml --sut-behaviors fixtures/sut-behaviors-reference.yaml --report first.json", Use::Run("the_acts_workflow")),
    ("a2a-tck baseline first.json -o a2a-tck-baseline.toml", Use::Run("the_acts_workflow")),
    ("a2a-tck --target http://127.0.0.1:8101 --plan acts-plan.toml --sut-behaviors fixtures/sut-behaviors-reference.yaml --expect a2a-tck-baseline.toml --acts-report reports/ --junit reports/a2a-tck.xml", Use::Run("the_acts_workflow")),
    ("ITK_TOKEN=itk-valid-token ITK_LIMITED_TOKEN=itk-insufficient-token a2a-tck --target http://127.0.0.1:8101 --plan plan.toml --report configurations.json", Use::Run("the_configurations_recipe")),
    ("a2a-tck --durability", Use::Run("the_durability_recipes")),
    ("a2a-tck --durability --select 'durability.*'", Use::Run("the_durability_recipes")),
    ("cat > restart-agent.sh <<'SH'", Use::Run("the_restart_recipe")),
    ("sh restart-agent.sh", Use::Run("the_restart_recipe")),
    ("a2a-tck --target http://127.0.0.1:8080 --restart-cmd 'sh restart-agent.sh' --ready-timeout 30 --select 'durability.*'", Use::Run("the_restart_recipe")),
    ("kill \"$(cat agent.pid)\"", Use::Run("the_restart_recipe")),
    ("cargo run -p a2a-reference-agent -- --port 8080", Use::Run("the_reference_agent_commands")),
    ("cargo run -p a2a-reference-agent -- --list-faults", Use::Run("the_reference_agent_commands")),
    ("cargo run -p a2a-reference-agent -- --fault omit-context-id", Use::Run("the_reference_agent_commands")),
    ("cargo run -p a2a-reference-agent -- --no-streaming", Use::Run("the_reference_agent_commands")),
    ("cargo run -p a2a-reference-agent -- --delay-ms 200", Use::Run("the_reference_agent_commands")),
    ("cargo run -p a2a-reference-agent -- --push", Use::Run("the_reference_agent_commands")),
    ("cargo run -p a2a-reference-agent -- --bearer-token T1 --bearer-token T2", Use::Run("the_reference_agent_commands")),
    ("cargo run -p a2a-reference-agent -- --bearer-token T1 --limited-token L", Use::Run("the_reference_agent_commands")),
    ("cargo run -p a2a-reference-agent -- --required-extension", Use::Run("the_reference_agent_commands")),
    ("cargo run -p a2a-reference-agent -- --tls --tls-ca-out ca.pem", Use::Run("the_reference_agent_commands")),
    ("cargo run -p a2a-reference-agent -- --store sqlite:tasks.db", Use::Run("the_reference_agent_commands")),
    ("cat > agents.toml <<'TOML'", Use::Run("the_survey_recipe")),
    ("a2a-tck survey agents.toml --out out/", Use::Run("the_survey_recipe")),
    ("a2a-tck survey agents.toml --out out/ --max-age 24h", Use::Run("the_survey_recipe")),
    ("for i in 0 1 2 3; do a2a-tck survey agents.toml --shard $i/4 --out shard-$i/; done", Use::Run("the_survey_recipe")),
    ("a2a-tck merge shard-0 shard-1 shard-2 shard-3 --out merged/", Use::Run("the_survey_recipe")),
    ("a2a-tck survey agents.toml --out runs/day-2/", Use::Run("the_survey_recipe")),
    ("a2a-tck site out/ runs/day-2/ --out site/ --base-url https://example.org/a2a/", Use::Run("the_survey_recipe")),
    ("python3 scripts/site_bench.py [--agents 1000] [--loads 5]", Use::Skip("a benchmark, run by hand: its figures are read, not asserted")),
    ("python3 scripts/survey_bench.py [--agents 300] [--sizes 50,150,300,500] [--deadline 30] [--at-once 8]", Use::Skip("a benchmark, run by hand: its figures are read, not asserted (a run takes minutes)")),
    ("a2a-tck client", Use::Run("the_client_recipe")),
    ("a2a-tck client --client-fault last-interface", Use::Run("the_client_recipe")),
    ("a2a-tck client --list-client-faults", Use::Run("the_client_recipe")),
    ("pip install -r adapters/python/requirements.txt", Use::Skip("installs a2a-sdk from PyPI: scripts/clients.sh installs it into a scratch venv in CI")),
    ("a2a-tck client --cmd 'python3 adapters/python/adapter.py' --report client.json", Use::Skip("needs a2a-sdk from PyPI: scripts/clients.sh installs it and runs this adapter in CI")),
    ("python3 scripts/client_bench.py [--startup 2] [--one-shot] [--python PATH]", Use::Skip("a benchmark, run by hand: its figures are read, not asserted (it installs a2a-sdk from PyPI)")),
    ("a2a-tck explore --target URL --seed 42 --report explore.json", Use::Run("the_explore_recipe")),
    ("a2a-tck explore --target URL --replay explore.json", Use::Run("the_explore_recipe")),
    ("a2a-tck explore --fault cancel-ignored --seed 1", Use::Run("the_explore_recipe")),
    ("python3 scripts/bench.py [--runs 20] [--baseline reports/bench/old.json]", Use::Skip("a benchmark, run by hand: its figures are read, not asserted")),
    ("python3 scripts/determinism.py [--runs 100] [-- extra a2a-tck arguments]", Use::Skip("CI runs it as its own step (.ci/run)")),
    ("python3 scripts/agent_speed.py [--only slow-3s,slow-300,endless,fast] [--statuses-at 16]", Use::Skip("a benchmark, run by hand: its figures are read, not asserted (a run takes minutes)")),
];

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The commands of the README's shell blocks, normalised as `COMMANDS` lists them.
fn readme_commands() -> Vec<String> {
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let mut commands = Vec::new();
    let mut in_shell = false;
    let mut heredoc: Option<String> = None;
    let mut pending = String::new();
    for line in readme.lines() {
        if let Some(end) = &heredoc {
            if line.trim() == end {
                heredoc = None;
            }
            continue;
        }
        if line.starts_with("```") {
            in_shell = matches!(line.trim_start_matches('`'), "sh" | "bash" | "shell");
            continue;
        }
        if !in_shell || line.trim_start().starts_with('#') {
            continue;
        }
        // A comment starts at a `#` after two spaces (none of the commands has one).
        let code = line.split("  #").next().unwrap_or(line).trim_end();
        let (code, continued) = match code.strip_suffix('\\') {
            Some(head) => (head, true),
            None => (code, false),
        };
        pending.push(' ');
        pending.push_str(code);
        if continued {
            continue;
        }
        let command = pending.split_whitespace().collect::<Vec<_>>().join(" ");
        pending.clear();
        if command.is_empty() {
            continue;
        }
        if let Some((_, tag)) = command.split_once("<<'") {
            heredoc = Some(tag.trim_end_matches('\'').to_string());
        }
        commands.push(command);
    }
    commands
}

#[test]
fn every_readme_command_is_known() {
    let found: BTreeSet<String> = readme_commands().into_iter().collect();
    let known: BTreeSet<String> = COMMANDS.iter().map(|(c, _)| c.to_string()).collect();
    let unknown: Vec<&String> = found.difference(&known).collect();
    let gone: Vec<&String> = known.difference(&found).collect();
    assert!(
        unknown.is_empty() && gone.is_empty(),
        "README commands this test does not list: {unknown:#?}\nlisted but no longer in the README: {gone:#?}"
    );
    // Every command to run names a test of this file that exists.
    let tests = include_str!("readme.rs");
    for (command, use_) in COMMANDS {
        match use_ {
            Use::Run(test) => assert!(
                tests.contains(&format!("fn {test}()")),
                "{command}: no test {test}"
            ),
            Use::Skip(why) => assert!(!why.trim().is_empty(), "{command}: no reason"),
        }
    }
}

/// A temporary directory with the two binaries first on `PATH` under their installed names;
/// removed when dropped, after the processes started in it are stopped.
struct Shell {
    dir: PathBuf,
    path: String,
    children: Vec<Child>,
}

impl Shell {
    fn new(name: &str) -> Shell {
        let dir =
            std::env::temp_dir().join(format!("a2a-tck-readme-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let bin = dir.join("bin");
        std::fs::create_dir_all(&bin).expect("a temporary directory");
        std::os::unix::fs::symlink(BIN, bin.join("a2a-tck")).expect("a link to the kit");
        std::os::unix::fs::symlink(agent_binary(), bin.join("a2a-reference-agent"))
            .expect("a link to the agent");
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        Shell {
            dir,
            path,
            children: Vec::new(),
        }
    }

    fn command(&self, script: &str) -> Command {
        let mut command = Command::new("sh");
        command
            .arg("-c")
            .arg(script)
            .current_dir(&self.dir)
            .env("PATH", &self.path)
            .env("GITHUB_STEP_SUMMARY", self.dir.join("step-summary.md"))
            .env("NO_COLOR", "1");
        command
    }

    /// Runs `script` to its end.
    fn run(&self, script: &str) -> Output {
        self.command(script).output().expect("sh runs")
    }

    /// Runs `script` and requires `code`.
    fn expect(&self, script: &str, code: i32) -> Output {
        let output = self.run(script);
        assert_eq!(
            output.status.code(),
            Some(code),
            "{script}\n--- stdout\n{}\n--- stderr\n{}",
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
        output
    }

    /// Starts `script` (a server, in the foreground of its shell), stopped when the shell is
    /// dropped.
    fn spawn(&mut self, script: &str) {
        let child = (self.command(&format!("exec {script}")))
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("sh runs");
        self.children.push(child);
    }

    fn file(&self, name: &str) -> PathBuf {
        self.dir.join(name)
    }
}

impl Drop for Shell {
    fn drop(&mut self) {
        for child in &mut self.children {
            let _ = child.kill();
            let _ = child.wait();
        }
        if let Ok(pid) = std::fs::read_to_string(self.dir.join("agent.pid")) {
            let _ = Command::new("kill").arg(pid.trim()).status();
        }
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The README's `cargo run -p PACKAGE --` spelled as the installed binary.
fn installed(command: &str) -> String {
    command
        .replace("cargo run --release -p a2a-tck --", "a2a-tck")
        .replace("cargo run -p a2a-reference-agent --", "a2a-reference-agent")
}

fn report(shell: &Shell, name: &str) -> serde_json::Value {
    let text = std::fs::read_to_string(shell.file(name)).expect("the report");
    serde_json::from_str(&text).expect("JSON")
}

#[test]
fn the_version() {
    let shell = Shell::new("version");
    let output = shell.expect("a2a-tck -V", 0);
    let shown = String::from_utf8_lossy(&output.stdout);
    assert!(shown.contains(env!("CARGO_PKG_VERSION")), "{shown}");
}

#[test]
fn the_baseline_recipe() {
    let mut shell = Shell::new("baseline");
    let port = free_port();
    // An agent with a known failure: the baseline is what the team writes down about it.
    shell.spawn(&format!(
        "a2a-reference-agent --port {port} --fault omit-context-id"
    ));
    listening(port);
    let url = format!("http://127.0.0.1:{port}");
    let step = |command: &str| command.replace("URL", &url);
    shell.expect(&step("a2a-tck --target URL --report first.json"), 1);
    shell.expect("a2a-tck baseline first.json -o a2a-tck-baseline.toml", 0);
    // Before the review the gate refuses the baseline: its reasons are still "TODO: review".
    shell.expect(
        &step("a2a-tck --target URL --expect a2a-tck-baseline.toml --report run.json"),
        2,
    );
    // The review: a reason for each entry, by an editor that replaces the placeholder.
    let editor = shell.file("review.sh");
    std::fs::write(
        &editor,
        "#!/bin/sh\nsed -i 's/TODO: review/known: the context id is left out/' \"$1\"\n",
    )
    .expect("the editor script");
    let reviewed = (shell.command("$EDITOR a2a-tck-baseline.toml"))
        .env("EDITOR", format!("sh {}", editor.display()))
        .output()
        .expect("sh runs");
    assert!(reviewed.status.success());
    shell.expect(
        &step("a2a-tck --target URL --expect a2a-tck-baseline.toml --report run.json --markdown \"$GITHUB_STEP_SUMMARY\""),
        0,
    );
    let summary = std::fs::read_to_string(shell.file("step-summary.md")).expect("the summary");
    assert!(
        summary.contains("send.context-id-generated-when-absent"),
        "{summary}"
    );
    assert_eq!(report(&shell, "run.json")["baseline"]["passed"], true);
    shell.expect("a2a-tck diff first.json run.json", 0);
}

#[test]
fn the_card_recipe() {
    let shell = Shell::new("card");
    // A card under review before it is deployed.
    let card = std::fs::read_to_string(root().join("tck/tests/cards/valid-1.0.json"))
        .expect("a card fixture");
    std::fs::write(shell.file("agent-card.json"), card).expect("the card");
    shell.expect(
        "a2a-tck card agent-card.json --sarif card.sarif --markdown \"$GITHUB_STEP_SUMMARY\"",
        0,
    );
    let sarif = std::fs::read_to_string(shell.file("card.sarif")).expect("the SARIF file");
    assert!(sarif.contains("\"version\": \"2.1.0\""), "{sarif}");
    assert!(shell.file("step-summary.md").exists());
}

#[test]
fn the_tls_recipe() {
    let mut shell = Shell::new("tls");
    let port = free_port();
    let own_port = |command: &str| command.replace("8443", &port.to_string());
    // The README runs the agent in the background of the same shell.
    shell.spawn(
        own_port("a2a-reference-agent --tls --tls-ca-out ca.pem --port 8443 &")
            .trim_end_matches('&')
            .trim(),
    );
    listening(port);
    shell.expect(
        &own_port("a2a-tck --target https://127.0.0.1:8443 --ca-cert ca.pem --report out.json"),
        0,
    );
    assert_eq!(report(&shell, "out.json")["verdict"], "conformant");
}

#[test]
fn the_acts_recipe() {
    let mut shell = Shell::new("acts");
    let port = free_port();
    // An SDK's test agent: the reference agent playing ACTS alone, with its behaviour file.
    shell.spawn(&format!(
        "a2a-reference-agent --port {port} --fault acts-contract-only"
    ));
    listening(port);
    std::fs::create_dir_all(shell.file("acts")).expect("acts/");
    std::fs::copy(
        root().join("tck/tests/acts/sut-behaviors-partial.yaml"),
        shell.file("acts/sut-behaviors.yaml"),
    )
    .expect("a behaviour file");
    let url = format!("http://127.0.0.1:{port}");
    let step = |command: &str| command.replace("URL", &url);
    // The file declares part of the contract: the checks that need the rest are UNTESTABLE.
    shell.expect(
        &step("a2a-tck --target URL --sut-behaviors acts/sut-behaviors.yaml --report first.json"),
        1,
    );
    shell.expect("a2a-tck baseline first.json -o a2a-tck-baseline.toml", 0);
    let baseline = shell.file("a2a-tck-baseline.toml");
    let text = std::fs::read_to_string(&baseline).expect("the baseline");
    std::fs::write(
        &baseline,
        text.replace("TODO: review", "the test agent does not play it yet"),
    )
    .expect("the reviewed baseline");
    let output = shell.expect(
        &step("a2a-tck --target URL --expect a2a-tck-baseline.toml --sut-behaviors acts/sut-behaviors.yaml --acts-report reports/"),
        0,
    );
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(stdout.contains("ACTS jsonrpc: MUST "), "{stdout}");
    let written = std::fs::read_dir(shell.file("reports"))
        .expect("reports/")
        .count();
    assert_eq!(written, 3, "one ACTS report per binding");
}

/// The README's whole ACTS workflow as written: three configurations of the reference agent,
/// its behaviour file, one ACTS document per binding, and a baseline that blocks: the same
/// command exits 1 once one configuration breaks a rule the baseline does not expect.
#[test]
fn the_acts_workflow() {
    let mut shell = Shell::new("acts-workflow");
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let fixtures = format!("{}/fixtures/", root().display());
    let own = |text: &str| {
        (ports.iter().zip(["8101", "8102", "8103"])).fold(
            text.replace("fixtures/", &fixtures),
            |text, (port, readme)| text.replace(readme, &port.to_string()),
        )
    };
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let section = &readme[readme
        .find("### The whole ACTS workflow")
        .expect("the section")..];
    let start = section.find("```sh\n").expect("its block") + 6;
    let block = &section[start..start + section[start..].find("```").expect("its end")];
    let (agents, steps): (Vec<&str>, Vec<&str>) =
        block.lines().partition(|line| line.ends_with(" &"));
    assert_eq!(agents.len(), 3, "{block}");
    for agent in &agents {
        shell.spawn(&format!("env {}", own(agent.trim_end_matches('&').trim())));
    }
    for port in &ports {
        listening(*port);
    }
    let script = format!("set -e\n{}", own(&steps.join("\n")));
    let output = shell.expect(&script, 0);
    let stdout = String::from_utf8_lossy(&output.stdout);
    for binding in ["jsonrpc", "rest", "grpc"] {
        assert!(
            stdout.contains(&format!("ACTS {binding}: MUST ")),
            "{stdout}"
        );
    }
    assert!(
        stdout.contains("declared by the behaviour file"),
        "{stdout}"
    );
    let documents: Vec<serde_json::Value> = std::fs::read_dir(shell.file("reports"))
        .expect("reports/")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "json"))
        .map(|p| {
            serde_json::from_str(&std::fs::read_to_string(p).expect("a document")).expect("JSON")
        })
        .collect();
    assert_eq!(documents.len(), 3, "one ACTS document per binding");
    let configurations: BTreeSet<&str> = (documents.iter())
        .flat_map(|d| d["suites"].as_array().into_iter().flatten())
        .flat_map(|s| s["tests"].as_array().into_iter().flatten())
        .filter_map(|t| t["configuration"].as_str())
        .collect();
    assert_eq!(
        configurations,
        BTreeSet::from(["auth", "default", "reduced"]),
        "each ACTS test names the configuration its results came from"
    );
    // The gate blocks: the reduced agent breaks a rule, and the same last command fails.
    let reduced = &mut shell.children[1];
    let _ = reduced.kill();
    let _ = reduced.wait();
    shell.spawn(&own(
        "env ITK_ACTS_REDUCED_CAPABILITIES=1 a2a-reference-agent --port 8102 --fault streaming-unsupported-wrong-error",
    ));
    listening(ports[1]);
    let last = steps.last().expect("the gated command");
    let exports = steps
        .iter()
        .find(|s| s.starts_with("export "))
        .expect("the tokens");
    shell.expect(&own(&format!("{exports}\n{last}")), 1);
}

#[test]
fn the_drive_recipe() {
    let shell = Shell::new("drive");
    let command = installed(
        "cargo run --release -p a2a-tck -- --fault plays-no-contract --drive fixtures/drive-reference.toml",
    )
    .replace("fixtures/", &format!("{}/fixtures/", root().display()));
    shell.expect(&format!("{command} --report out.json"), 0);
    let report = report(&shell, "out.json");
    assert_eq!(
        report["contract"]["used"], "drive",
        "{}",
        report["contract"]
    );
}

#[test]
fn the_configurations_recipe() {
    let mut shell = Shell::new("configurations");
    let ports: Vec<u16> = (0..3).map(|_| free_port()).collect();
    let own_ports = |text: &str| {
        (ports.iter().zip(["8101", "8102", "8103"]))
            .fold(text.to_string(), |text, (port, readme)| {
                text.replace(readme, &port.to_string())
            })
    };
    // The README starts the agents in the background of the same shell; `env` keeps the
    // variable of each and `exec` the process to stop.
    for agent in [
        "a2a-reference-agent --port 8101 &",
        "ITK_ACTS_REDUCED_CAPABILITIES=1 a2a-reference-agent --port 8102 &",
        "ITK_ACTS_AUTH=1 a2a-reference-agent --port 8103 &",
    ] {
        shell.spawn(&format!(
            "env {}",
            own_ports(agent.trim_end_matches('&').trim())
        ));
    }
    for port in &ports {
        listening(*port);
    }
    let check = |shell: &Shell| {
        let report = report(shell, "configurations.json");
        assert_eq!(
            report["verdict"], "conformant",
            "{}",
            report["verdict_reason"]
        );
        let names: Vec<&str> = (report["configurations"].as_array().expect("configurations"))
            .iter()
            .filter_map(|c| c["name"].as_str())
            .collect();
        assert_eq!(names, ["reduced", "auth"]);
        let results = report["results"].as_array().expect("results");
        for name in ["reduced", "auth"] {
            assert!(results.iter().any(|r| r["configuration"] == name), "{name}");
        }
    };
    shell.expect(
        &own_ports(
            "a2a-tck --target http://127.0.0.1:8101 --configuration reduced=http://127.0.0.1:8102 \
             --configuration auth=http://127.0.0.1:8103 --configuration-bearer auth=itk-valid-token \
             --configuration-limited-bearer auth=itk-insufficient-token --report configurations.json",
        ),
        0,
    );
    check(&shell);
    std::fs::remove_file(shell.file("configurations.json")).expect("the first report");
    // The plan exactly as the README writes it, on this test's ports.
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let start = readme.find("cat > plan.toml <<'TOML'").expect("the plan");
    let end = start + readme[start..].find("\nTOML\n").expect("its end") + 6;
    shell.expect(&own_ports(&readme[start..end]), 0);
    shell.expect(
        &own_ports(
            "ITK_TOKEN=itk-valid-token ITK_LIMITED_TOKEN=itk-insufficient-token a2a-tck \
             --target http://127.0.0.1:8101 --plan plan.toml --report configurations.json",
        ),
        0,
    );
    check(&shell);
}

#[test]
fn the_durability_recipes() {
    let shell = Shell::new("durability");
    shell.expect("a2a-tck --durability --report all.json", 0);
    assert_eq!(report(&shell, "all.json")["durability"]["restarted"], true);
    shell.expect(
        "a2a-tck --durability --select 'durability.*' --report area.json",
        0,
    );
    let area = report(&shell, "area.json");
    assert_eq!(area["verdict"], "conformant", "{}", area["verdict_reason"]);
}

#[test]
fn the_restart_recipe() {
    let shell = Shell::new("restart");
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    // The script exactly as the README writes it, on a port of this test's.
    let start = readme
        .find("cat > restart-agent.sh <<'SH'")
        .expect("the recipe");
    let end = start + readme[start..].find("\nSH\n").expect("its end") + 4;
    let port = free_port().to_string();
    let own_port = |text: &str| text.replace("8080", &port);
    shell.expect(&own_port(&readme[start..end]), 0);
    shell.expect("sh restart-agent.sh", 0);
    listening(port.parse().expect("a port"));
    shell.expect(
        &own_port("a2a-tck --target http://127.0.0.1:8080 --restart-cmd 'sh restart-agent.sh' --ready-timeout 30 --select 'durability.*' --report out.json"),
        0,
    );
    let out = report(&shell, "out.json");
    assert_eq!(
        out["durability"]["restarted"], true,
        "{}",
        out["verdict_reason"]
    );
    shell.expect("kill \"$(cat agent.pid)\"", 0);
}

#[test]
fn the_client_recipe() {
    let shell = Shell::new("client");
    shell.expect("a2a-tck client --quiet --report client.json", 0);
    assert_eq!(report(&shell, "client.json")["mode"], "client");
    shell.expect("a2a-tck client --client-fault last-interface --quiet", 1);
    let listed = shell.run("a2a-tck client --list-client-faults");
    assert!(String::from_utf8_lossy(&listed.stdout).contains("last-interface"));
}

#[test]
fn the_explore_recipe() {
    let mut shell = Shell::new("explore");
    let port = free_port();
    // An agent whose cancel does nothing: the exploration finds it, and the case replays.
    shell.spawn(&format!(
        "a2a-reference-agent --port {port} --fault cancel-ignored"
    ));
    listening(port);
    let url = format!("http://127.0.0.1:{port}");
    let step = |command: &str| command.replace("URL", &url);
    let found = shell.expect(
        &step("a2a-tck explore --target URL --seed 42 --report explore.json"),
        1,
    );
    let shown = String::from_utf8_lossy(&found.stdout);
    assert!(shown.contains("lifecycle.cancel-takes-effect"), "{shown}");
    let written = report(&shell, "explore.json");
    assert_eq!(written["seed"], 42);
    assert_eq!(
        written["violations"][0]["invariant"],
        "lifecycle.cancel-takes-effect"
    );
    shell.expect(
        &step("a2a-tck explore --target URL --replay explore.json"),
        1,
    );
    let builtin = shell.expect("a2a-tck explore --fault cancel-ignored --seed 1", 1);
    let shown = String::from_utf8_lossy(&builtin.stdout);
    assert!(
        shown.contains("violation 1: lifecycle.cancel-takes-effect (seed 1"),
        "{shown}"
    );
}

#[test]
fn the_reference_agent_commands() {
    let shell = Shell::new("agent");
    let listed = shell.expect(
        &installed("cargo run -p a2a-reference-agent -- --list-faults"),
        0,
    );
    assert!(String::from_utf8_lossy(&listed.stdout).contains("omit-context-id"));
    for command in [
        "cargo run -p a2a-reference-agent -- --port 8080",
        "cargo run -p a2a-reference-agent -- --fault omit-context-id",
        "cargo run -p a2a-reference-agent -- --no-streaming",
        "cargo run -p a2a-reference-agent -- --delay-ms 200",
        "cargo run -p a2a-reference-agent -- --push",
        "cargo run -p a2a-reference-agent -- --bearer-token T1 --bearer-token T2",
        "cargo run -p a2a-reference-agent -- --bearer-token T1 --limited-token L",
        "cargo run -p a2a-reference-agent -- --required-extension",
        "cargo run -p a2a-reference-agent -- --tls --tls-ca-out ca.pem",
        "cargo run -p a2a-reference-agent -- --store sqlite:tasks.db",
    ] {
        // Each serves its card on its port (8080 unless the README names one).
        let mut each = Shell::new("agent-each");
        let port = free_port();
        let mut line = installed(command).replace(" --port 8080", "");
        line.push_str(&format!(" --port {port}"));
        each.spawn(&line);
        listening(port);
        drop(each);
    }
}

#[test]
fn the_survey_recipe() {
    let mut shell = Shell::new("survey");
    let port = free_port();
    shell.spawn(&format!("a2a-reference-agent --port {port}"));
    listening(port);
    let own_port = |text: &str| text.replace("8101", &port.to_string());
    let readme = std::fs::read_to_string(root().join("README.md")).expect("README.md");
    let start = readme
        .find("cat > agents.toml <<'TOML'")
        .expect("the survey file");
    let end = start + readme[start..].find("\nTOML\n").expect("its end") + 6;
    shell.expect(&own_port(&readme[start..end]), 0);
    shell.expect("a2a-tck survey agents.toml --out out/", 1);
    let index = |dir: &str| -> serde_json::Value {
        let text = std::fs::read_to_string(shell.file(dir).join("index.json")).expect("an index");
        serde_json::from_str(&text).expect("JSON")
    };
    let outcomes = |index: &serde_json::Value| -> Vec<(String, String)> {
        (index["agents"].as_array().expect("agents").iter())
            .map(|a| {
                let field = |k: &str| a[k].as_str().unwrap_or_default().to_string();
                (field("name"), field("outcome"))
            })
            .collect()
    };
    let whole = index("out");
    let expected = [
        ("local", "pass"),
        ("no-description", "fail"),
        ("reference", "pass"),
        ("reference-client", "pass"),
    ];
    let expected: Vec<(String, String)> = (expected.iter())
        .map(|(n, o)| (n.to_string(), o.to_string()))
        .collect();
    assert_eq!(outcomes(&whole), expected);
    let again = shell.expect("a2a-tck survey agents.toml --out out/ --max-age 24h", 1);
    let stderr = String::from_utf8_lossy(&again.stderr);
    assert_eq!(
        stderr.matches("kept from an earlier survey").count(),
        4,
        "{stderr}"
    );
    // The loop's status is its last shard's; the merge's is the survey's.
    shell.run("for i in 0 1 2 3; do a2a-tck survey agents.toml --shard $i/4 --out shard-$i/; done");
    shell.expect(
        "a2a-tck merge shard-0 shard-1 shard-2 shard-3 --out merged/",
        1,
    );
    assert_eq!(outcomes(&index("merged")), expected);
    // A second run, and the site of both.
    shell.expect("a2a-tck survey agents.toml --out runs/day-2/", 1);
    shell.expect(
        "a2a-tck site out/ runs/day-2/ --out site/ --base-url https://example.org/a2a/",
        0,
    );
    let site = shell.file("site");
    assert!(site.join("index.html").is_file());
    let badge = std::fs::read_to_string(site.join("badges/no-description.svg")).expect("a badge");
    assert!(
        badge.contains(r#"href="https://example.org/a2a/agents/no-description/index.html""#),
        "{badge}"
    );
    // The first run's report of `local`, stored once under its digest, where its page links it.
    let first = index("out");
    let local = (first["agents"].as_array().expect("agents").iter())
        .find(|a| a["name"] == "local")
        .expect("local");
    let digest = local["report_sha256"].as_str().expect("a digest");
    let hex = digest.strip_prefix("sha256:").expect("sha256:");
    assert!(site.join(format!("reports/{hex}/report.json")).is_file());
    let page = std::fs::read_to_string(site.join("agents/local/index.html")).expect("a page");
    assert!(
        page.contains(&format!("../../reports/{hex}/report.html")),
        "{page}"
    );
}

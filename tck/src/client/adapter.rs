//! The client under test, behind the adapter protocol (`adapters/PROTOCOL.md`): a command run
//! once per play with a scenario file, printing JSON lines; or the kit's own reference client,
//! run in-process through the same lines. The first run asks what the client supports.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::model::{Binding, ProtocolVersion};
use crate::report::ClientUnderTest;

use super::plays::OPERATIONS;
use super::reference_client::{self, ClientFault};

/// What one run of the adapter gave.
#[derive(Debug, Clone, Default)]
pub struct Outcome {
    /// The JSON lines, in order.
    pub lines: Vec<Value>,
    /// Standard output that was not a JSON object line, and standard error (the tail).
    pub noise: String,
    /// Why the run did not finish as it should (a deadline, a spawn failure).
    pub failure: Option<String>,
}

impl Outcome {
    /// The line of step `i` (lines are printed one per step, in order).
    pub fn step(&self, i: usize) -> Option<&Value> {
        self.lines.get(i)
    }
}

/// The client under test.
#[derive(Debug, Clone)]
pub enum Client {
    /// An adapter command (`{card_url}` and `{scenario}` are replaced).
    Command(String),
    /// The kit's reference client, with faults.
    Reference(Vec<ClientFault>),
}

const NOISE_KEEP: usize = 4096;


impl Client {
    /// The describe run: who the client is and what it supports.
    pub async fn describe(&self, deadline: Duration) -> Result<ClientUnderTest, String> {
        let outcome = self.run(&json!({"protocol": 1, "describe": true}), "", deadline).await;
        if let Some(failure) = outcome.failure {
            return Err(failure);
        }
        let line = (outcome.lines.iter())
            .find(|l| l.get("event").and_then(Value::as_str) == Some("client"))
            .ok_or_else(|| {
                format!(
                    "the adapter printed no {{\"event\": \"client\"}} line on the describe run{}",
                    noise_tail(&outcome.noise)
                )
            })?;
        let texts = |key: &str| -> Vec<String> {
            (line.get(key).and_then(Value::as_array))
                .map(|a| a.iter().filter_map(Value::as_str).map(str::to_owned).collect())
                .unwrap_or_default()
        };
        let text = |key: &str| line.get(key).and_then(Value::as_str).unwrap_or("").to_owned();
        let mut bindings = Vec::new();
        for name in texts("bindings") {
            let binding = Binding::from_card(&name)
                .ok_or_else(|| format!("the describe line names an unknown binding {name:?}"))?;
            bindings.push(binding);
        }
        let mut versions = Vec::new();
        for name in texts("versions") {
            let version = ProtocolVersion::from_declared(&name)
                .ok_or_else(|| format!("the describe line names an unknown version {name:?}"))?;
            versions.push(version);
        }
        let operations = match line.get("operations") {
            None | Some(Value::Null) => None,
            Some(Value::Array(_)) => {
                let named = texts("operations");
                if let Some(unknown) = named.iter().find(|op| !OPERATIONS.contains(&op.as_str())) {
                    return Err(format!(
                        "the describe line names an unknown operation {unknown:?} (known: {})",
                        OPERATIONS.join(", ")
                    ));
                }
                Some(named)
            }
            Some(other) => {
                return Err(format!("the describe line's operations is not a list: {other}"))
            }
        };
        Ok(ClientUnderTest {
            name: text("name"),
            version: text("version"),
            command: match self {
                Client::Command(command) => command.clone(),
                Client::Reference(_) => "builtin".into(),
            },
            bindings,
            versions,
            features: texts("features"),
            operations,
        })
    }

    /// Runs one scenario (`card_url` is also in the file) under `deadline`.
    pub async fn run(&self, scenario: &Value, card_url: &str, deadline: Duration) -> Outcome {
        match self {
            Client::Reference(faults) => {
                match tokio::time::timeout(deadline, reference_client::run(scenario, faults)).await {
                    Ok(lines) => Outcome {
                        lines,
                        ..Outcome::default()
                    },
                    Err(_) => Outcome {
                        failure: Some(format!("the reference client did not finish within {deadline:?}")),
                        ..Outcome::default()
                    },
                }
            }
            Client::Command(template) => run_command(template, scenario, card_url, deadline).await,
        }
    }
}

fn noise_tail(noise: &str) -> String {
    if noise.trim().is_empty() {
        String::new()
    } else {
        format!("; it printed: {}", noise.trim())
    }
}

/// Single quotes for `sh`.
fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

async fn run_command(template: &str, scenario: &Value, card_url: &str, deadline: Duration) -> Outcome {
    let dir = match tempfile::tempdir() {
        Ok(dir) => dir,
        Err(e) => return failed(format!("no scratch folder for the scenario file: {e}")),
    };
    let file = dir.path().join("scenario.json");
    if let Err(e) = std::fs::write(&file, scenario.to_string()) {
        return failed(format!("the scenario file could not be written: {e}"));
    }
    let command = template
        .replace("{card_url}", &quoted(card_url))
        .replace("{scenario}", &quoted(&file.to_string_lossy()));
    spawn(&command, &file, card_url, deadline).await
}

fn failed(why: String) -> Outcome {
    Outcome {
        failure: Some(why),
        ..Outcome::default()
    }
}

async fn spawn(command: &str, file: &Path, card_url: &str, deadline: Duration) -> Outcome {
    use tokio::io::AsyncReadExt as _;
    let mut builder = tokio::process::Command::new("sh");
    builder
        .arg("-c")
        .arg(command)
        .env("A2A_TCK_SCENARIO", file)
        .env("A2A_TCK_CARD_URL", card_url)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .kill_on_drop(true);
    #[cfg(unix)]
    builder.process_group(0);
    let mut child = match builder.spawn() {
        Ok(child) => child,
        Err(e) => return failed(format!("the adapter command could not be started: {e}")),
    };
    let mut stdout = child.stdout.take();
    let mut stderr = child.stderr.take();
    let read_out = tokio::spawn(async move {
        let mut bytes = Vec::new();
        if let Some(out) = stdout.as_mut() {
            let _ = out.read_to_end(&mut bytes).await;
        }
        bytes
    });
    let read_err = tokio::spawn(async move {
        let mut bytes = Vec::new();
        if let Some(err) = stderr.as_mut() {
            let _ = err.read_to_end(&mut bytes).await;
        }
        bytes
    });
    let mut failure = None;
    if tokio::time::timeout(deadline, child.wait()).await.is_err() {
        failure = Some(format!(
            "the adapter did not finish within the scenario timeout of {deadline:?} (it was killed)"
        ));
        kill_group(&child);
        let _ = child.kill().await;
    }
    // Grandchildren that keep the pipes open were killed with the group; still, a bound.
    let grace = Duration::from_secs(2);
    let out = tokio::time::timeout(grace, read_out).await.ok().and_then(Result::ok);
    let err = tokio::time::timeout(grace, read_err).await.ok().and_then(Result::ok);
    let out = String::from_utf8_lossy(&out.unwrap_or_default()).into_owned();
    let err = String::from_utf8_lossy(&err.unwrap_or_default()).into_owned();
    let mut lines = Vec::new();
    let mut noise = String::new();
    for line in out.lines() {
        match serde_json::from_str::<Value>(line.trim()) {
            Ok(value) if value.is_object() => lines.push(value),
            _ if line.trim().is_empty() => {}
            _ => {
                noise.push_str(line);
                noise.push('\n');
            }
        }
    }
    if !err.trim().is_empty() {
        noise.push_str("stderr: ");
        noise.push_str(&err);
    }
    if noise.len() > NOISE_KEEP {
        let mut start = noise.len() - NOISE_KEEP;
        while !noise.is_char_boundary(start) {
            start += 1;
        }
        noise = format!("...{}", &noise[start..]);
    }
    Outcome {
        lines,
        noise,
        failure,
    }
}

#[cfg(unix)]
fn kill_group(child: &tokio::process::Child) {
    if let Some(pid) = child.id().and_then(|id| rustix::process::Pid::from_raw(id as i32)) {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

#[cfg(not(unix))]
fn kill_group(_child: &tokio::process::Child) {}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_command_prints_lines_and_noise() {
        let client = Client::Command(
            "echo 'not json'; echo '{\"op\": \"card\", \"name\": \"x\"}'; echo oops >&2".into(),
        );
        let outcome = client.run(&json!({}), "http://127.0.0.1:1/c", Duration::from_secs(10)).await;
        assert_eq!(outcome.lines, vec![json!({"op": "card", "name": "x"})]);
        assert!(outcome.noise.contains("not json") && outcome.noise.contains("oops"));
        assert!(outcome.failure.is_none());
    }

    #[tokio::test]
    async fn a_command_past_its_deadline_is_killed() {
        let client = Client::Command("echo '{\"op\": \"card\"}'; sleep 30".into());
        let started = std::time::Instant::now();
        let outcome = client.run(&json!({}), "", Duration::from_millis(300)).await;
        assert!(started.elapsed() < Duration::from_secs(10));
        assert!(outcome.failure.unwrap().contains("killed"));
        assert_eq!(outcome.lines.len(), 1);
    }

    #[tokio::test]
    async fn the_scenario_reaches_the_command() {
        let client = Client::Command("cat \"$A2A_TCK_SCENARIO\"; echo; cat {scenario}".into());
        let outcome = client.run(&json!({"play": "p"}), "", Duration::from_secs(10)).await;
        assert_eq!(outcome.lines, vec![json!({"play": "p"}), json!({"play": "p"})]);
    }
}

//! The client under test, behind the adapter protocol (`adapters/PROTOCOL.md`): a command run
//! once per play with a scenario file, printing JSON lines; or, when its describe line says it
//! stays up (`"persistent": true`), one process that reads scenario after scenario on its
//! standard input and ends each one's lines with `{"event": "end"}`; or the kit's own reference
//! client, run in-process through the same lines. The first run asks what the client supports.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::facts::model::{Binding, ProtocolVersion};
use crate::reporting::report::ClientUnderTest;

use super::plays::OPERATIONS;
pub use super::process::Outcome;
use super::process::{
    command_for, failed, keep_tail, kill_group, noise_tail, quoted, read_chunks, read_lines,
    run_command, Printed,
};
use super::reference_client::{self, ClientFault};

/// The client under test.
#[derive(Debug, Clone)]
pub enum Client {
    /// An adapter command (`{card_url}` and `{scenario}` are replaced).
    Command(String),
    /// The kit's reference client, with faults.
    Reference(Vec<ClientFault>),
}

impl Client {
    /// The describe run: who the client is and what it supports (the adapter is run once, as
    /// a version-1 adapter is, and not kept).
    pub async fn describe(&self, deadline: Duration) -> Result<ClientUnderTest, String> {
        let outcome = self.run(&describe_file(), "", deadline).await;
        self.identity(&outcome)
    }

    /// Opens the client for a run: its describe run, as a version-1 adapter's (standard input
    /// empty); when the describe line says it stays up, the first scenario starts it again with
    /// its standard input open, and every scenario goes to that process.
    pub async fn open(&self, deadline: Duration) -> Result<(Adapter, ClientUnderTest), String> {
        let outcome = self.run(&describe_file(), "", deadline).await;
        let identity = self.identity(&outcome)?;
        let persistent = matches!(self, Client::Command(_))
            && (outcome.lines.iter()).any(|l| {
                l.get("event").and_then(Value::as_str) == Some("client")
                    && l.get("persistent") == Some(&Value::Bool(true))
            });
        let adapter = Adapter {
            client: self.clone(),
            persistent,
            session: None,
        };
        Ok((adapter, identity))
    }

    /// The client's identity, from the lines of its describe run.
    fn identity(&self, outcome: &Outcome) -> Result<ClientUnderTest, String> {
        if let Some(failure) = &outcome.failure {
            return Err(failure.clone());
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
                .map(|a| {
                    a.iter()
                        .filter_map(Value::as_str)
                        .map(str::to_owned)
                        .collect()
                })
                .unwrap_or_default()
        };
        let text = |key: &str| {
            line.get(key)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_owned()
        };
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
                return Err(format!(
                    "the describe line's operations is not a list: {other}"
                ))
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
                match tokio::time::timeout(deadline, reference_client::run(scenario, faults)).await
                {
                    Ok(lines) => Outcome {
                        lines,
                        ..Outcome::default()
                    },
                    Err(_) => Outcome {
                        failure: Some(format!(
                            "the reference client did not finish within {deadline:?}"
                        )),
                        ..Outcome::default()
                    },
                }
            }
            Client::Command(template) => run_command(template, scenario, card_url, deadline).await,
        }
    }
}

/// The scenario of the describe run.
fn describe_file() -> Value {
    json!({"protocol": 1, "describe": true})
}

/// The client under test, opened for a run ([`Client::open`]): a version-1 adapter runs once
/// per scenario; one that stays up is started for the first scenario and gets every scenario
/// on its standard input, and is started again after a scenario that killed it or that it
/// left by exiting.
#[derive(Debug)]
pub struct Adapter {
    client: Client,
    /// Whether the adapter said it stays up.
    persistent: bool,
    session: Option<Session>,
}

impl Adapter {
    /// Whether every scenario goes to one process that stays up.
    pub fn persistent(&self) -> bool {
        self.persistent
    }

    /// Runs one scenario (`card_url` is also in it) under `deadline`.
    pub async fn run(&mut self, scenario: &Value, card_url: &str, deadline: Duration) -> Outcome {
        let Client::Command(template) = &self.client else {
            return self.client.run(scenario, card_url, deadline).await;
        };
        if !self.persistent {
            return self.client.run(scenario, card_url, deadline).await;
        }
        let mut started = String::new();
        // One that left after its last end line has not seen this scenario: started again.
        if (self.session.as_mut()).is_some_and(|s| !matches!(s.child.try_wait(), Ok(None))) {
            self.session = None;
        }
        if self.session.is_none() {
            let (outcome, session) = Session::start(template, deadline).await;
            match session {
                Some(session) => {
                    self.session = Some(session);
                    if !outcome.noise.is_empty() {
                        started = format!("(as it started) {}", outcome.noise);
                    }
                }
                None => {
                    let why = outcome.failure.unwrap_or_else(|| {
                        "it no longer says it stays up on its describe line".into()
                    });
                    return Outcome {
                        noise: outcome.noise,
                        failure: Some(format!(
                            "the adapter, which says it stays up, could not be started: {why}"
                        )),
                        ..Outcome::default()
                    };
                }
            }
        }
        let Some(session) = self.session.as_mut() else {
            return failed("the adapter is not running".into());
        };
        let mut outcome = session.scenario(scenario, deadline).await;
        if !session.alive {
            self.session = None;
        }
        if !started.is_empty() {
            outcome.noise = keep_tail(format!("{started}{}", outcome.noise));
        }
        outcome
    }
}

/// How long the kit waits, after a scenario's end line, for the standard error the adapter
/// wrote before it (another pipe, read by another task) to come in; each chunk that comes in
/// waits again, up to [`STDERR_SETTLE_MAX`] in all.
const STDERR_SETTLE: Duration = Duration::from_millis(20);
const STDERR_SETTLE_MAX: Duration = Duration::from_millis(250);

/// An adapter that stays up: its process, its standard input, and what it prints.
#[derive(Debug)]
struct Session {
    child: tokio::process::Child,
    stdin: Option<tokio::process::ChildStdin>,
    /// Lines of standard output; closed when the adapter closes it.
    out: tokio::sync::mpsc::Receiver<String>,
    /// Chunks of standard error; closed when the adapter closes it.
    err: tokio::sync::mpsc::Receiver<Vec<u8>>,
    /// Whether it may take another scenario (it was neither killed nor did it leave).
    alive: bool,
    /// The describe file, read by the adapter when it starts.
    _dir: tempfile::TempDir,
}

impl Session {
    /// Starts the adapter on the describe file with its standard input open, and reads its
    /// describe line. The session is kept when the line says `"persistent": true`; otherwise
    /// (an adapter that no longer says so) standard input is closed at once and the run is
    /// read to its end, as a describe run is.
    async fn start(template: &str, deadline: Duration) -> (Outcome, Option<Session>) {
        let dir = match tempfile::tempdir() {
            Ok(dir) => dir,
            Err(e) => {
                return (
                    failed(format!("no scratch folder for the scenario file: {e}")),
                    None,
                )
            }
        };
        let file = dir.path().join("describe.json");
        if let Err(e) = std::fs::write(&file, describe_file().to_string()) {
            return (
                failed(format!("the scenario file could not be written: {e}")),
                None,
            );
        }
        let command = template
            .replace("{card_url}", &quoted(""))
            .replace("{scenario}", &quoted(&file.to_string_lossy()));
        let mut builder = command_for(&command, &file, "");
        builder.stdin(std::process::Stdio::piped());
        let mut child = match builder.spawn() {
            Ok(child) => child,
            Err(e) => {
                return (
                    failed(format!("the adapter command could not be started: {e}")),
                    None,
                )
            }
        };
        let stdin = child.stdin.take();
        let out = read_lines(child.stdout.take());
        let err = read_chunks(child.stderr.take());
        let mut session = Session {
            child,
            stdin,
            out,
            err,
            alive: true,
            _dir: dir,
        };
        let until = Instant::now() + deadline;
        let mut printed = Printed::default();
        let mut persistent = false;
        loop {
            match session.next(until, &mut printed).await {
                Next::Line(line) => {
                    printed.line(&line);
                    let described = printed
                        .lines
                        .last()
                        .filter(|l| l.get("event").and_then(Value::as_str) == Some("client"));
                    if let Some(line) = described {
                        persistent = line.get("persistent") == Some(&Value::Bool(true));
                        break;
                    }
                }
                Next::Closed => break,
                Next::Late => {
                    session.kill().await;
                    session.settle(&mut printed, Duration::from_secs(2)).await;
                    let failure = format!(
                        "the adapter did not finish within the scenario timeout of {deadline:?} (it was killed)"
                    );
                    return (printed.outcome(Some(failure)), None);
                }
            }
        }
        if persistent {
            session.settle(&mut printed, STDERR_SETTLE).await;
            return (printed.outcome(None), Some(session));
        }
        // A version-1 adapter: standard input ends now, and the run is read to its end.
        session.stdin = None;
        let mut failure = None;
        loop {
            match session.next(until, &mut printed).await {
                Next::Line(line) => printed.line(&line),
                Next::Closed => break,
                Next::Late => {
                    session.kill().await;
                    failure = Some(format!(
                        "the adapter did not finish within the scenario timeout of {deadline:?} (it was killed)"
                    ));
                    break;
                }
            }
        }
        session.settle(&mut printed, Duration::from_secs(2)).await;
        (printed.outcome(failure), None)
    }

    /// Sends one scenario and reads its lines up to its end line, under `deadline`. A scenario
    /// past its deadline kills the adapter (and is a failure, as a run of a version-1 adapter
    /// past its deadline is); an adapter that closes its output before the end line has left
    /// (it is started again for the next scenario) and is judged on what it printed.
    async fn scenario(&mut self, scenario: &Value, deadline: Duration) -> Outcome {
        let until = Instant::now() + deadline;
        let mut printed = Printed::default();
        // What came after the previous scenario's end line belongs to no step.
        while let Ok(line) = self.out.try_recv() {
            printed
                .other
                .push_str(&format!("(before the scenario) {line}\n"));
        }
        while let Ok(chunk) = self.err.try_recv() {
            printed.err.extend_from_slice(&chunk);
        }
        let sent = match self.stdin.as_mut() {
            Some(stdin) => {
                use tokio::io::AsyncWriteExt as _;
                let line = format!("{scenario}\n");
                let write = async {
                    stdin.write_all(line.as_bytes()).await?;
                    stdin.flush().await
                };
                tokio::time::timeout(deadline, write).await
            }
            None => Ok(Err(std::io::Error::other("standard input is closed"))),
        };
        match sent {
            Ok(Ok(())) => {}
            Ok(Err(e)) => {
                // It left (or closed its input): what it still prints is read below.
                printed
                    .other
                    .push_str(&format!("(the scenario could not be sent: {e})\n"));
            }
            Err(_) => {
                self.kill().await;
                self.settle(&mut printed, Duration::from_secs(2)).await;
                return printed.outcome(Some(format!(
                    "the adapter did not read its scenario within the scenario timeout of {deadline:?} (it was killed)"
                )));
            }
        }
        loop {
            match self.next(until, &mut printed).await {
                Next::Line(line) => {
                    let value = serde_json::from_str::<Value>(line.trim()).ok();
                    if value
                        .as_ref()
                        .and_then(|v| v.get("event"))
                        .and_then(Value::as_str)
                        == Some("end")
                    {
                        self.settle(&mut printed, STDERR_SETTLE).await;
                        return printed.outcome(None);
                    }
                    printed.line(&line);
                }
                Next::Closed => {
                    self.alive = false;
                    self.stdin = None;
                    let _ = tokio::time::timeout(Duration::from_secs(2), self.child.wait()).await;
                    self.kill().await;
                    self.settle(&mut printed, Duration::from_secs(2)).await;
                    printed
                        .other
                        .push_str("(the adapter exited before its end line)\n");
                    return printed.outcome(None);
                }
                Next::Late => {
                    self.kill().await;
                    self.settle(&mut printed, Duration::from_secs(2)).await;
                    return printed.outcome(Some(format!(
                        "the adapter did not finish within the scenario timeout of {deadline:?} (it was killed)"
                    )));
                }
            }
        }
    }

    /// The next line of standard output before `until` (standard error read meanwhile).
    async fn next(&mut self, until: Instant, printed: &mut Printed) -> Next {
        let deadline = tokio::time::Instant::from_std(until);
        loop {
            tokio::select! {
                line = self.out.recv() => return match line {
                    Some(line) => Next::Line(line),
                    None => Next::Closed,
                },
                Some(chunk) = self.err.recv() => printed.err.extend_from_slice(&chunk),
                () = tokio::time::sleep_until(deadline) => return Next::Late,
            }
        }
    }

    /// Reads the standard error that comes in within `quiet` of the last chunk (at most
    /// [`STDERR_SETTLE_MAX`] in all, or `quiet` when it is longer: the pipes of a killed
    /// adapter close).
    async fn settle(&mut self, printed: &mut Printed, quiet: Duration) {
        let until = tokio::time::Instant::now() + quiet.max(STDERR_SETTLE_MAX);
        loop {
            let wait = quiet.min(until.saturating_duration_since(tokio::time::Instant::now()));
            match tokio::time::timeout(wait, self.err.recv()).await {
                Ok(Some(chunk)) => printed.err.extend_from_slice(&chunk),
                _ => break,
            }
        }
        if !self.alive {
            while let Ok(line) = self.out.try_recv() {
                printed.line(&line);
            }
        }
    }

    /// Kills the adapter's process group.
    async fn kill(&mut self) {
        self.alive = false;
        self.stdin = None;
        kill_group(&self.child);
        let _ = self.child.kill().await;
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        self.stdin = None;
        kill_group(&self.child);
    }
}

enum Next {
    Line(String),
    Closed,
    Late,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn a_command_prints_lines_and_noise() {
        let client = Client::Command(
            "echo 'not json'; echo '{\"op\": \"card\", \"name\": \"x\"}'; echo oops >&2".into(),
        );
        let outcome = client
            .run(&json!({}), "http://127.0.0.1:1/c", Duration::from_secs(10))
            .await;
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
        let outcome = client
            .run(&json!({"play": "p"}), "", Duration::from_secs(10))
            .await;
        assert_eq!(
            outcome.lines,
            vec![json!({"play": "p"}), json!({"play": "p"})]
        );
    }

    const DESCRIBE: &str = r#"{"event":"client","name":"t","version":"0","bindings":["JSONRPC"],"versions":["1.0"],"features":[]"#;

    #[tokio::test]
    async fn an_adapter_that_does_not_stay_up_runs_once_per_scenario() {
        let client = Client::Command(format!(
            "if grep -q describe \"$A2A_TCK_SCENARIO\"; then echo '{DESCRIBE}}}'; else cat {{scenario}}; fi"
        ));
        let (mut adapter, identity) = client.open(Duration::from_secs(10)).await.unwrap();
        assert_eq!(identity.name, "t");
        assert!(!adapter.persistent());
        let outcome = adapter
            .run(&json!({"play": "p"}), "", Duration::from_secs(10))
            .await;
        assert_eq!(outcome.lines, vec![json!({"play": "p"})]);
    }

    #[tokio::test]
    async fn an_adapter_that_stays_up_takes_scenarios_on_its_input() {
        let client = Client::Command(format!(
            "echo '{DESCRIBE},\"persistent\":true}}'; while read -r line; do \
             echo \"$line\"; echo \"seen $line\" >&2; echo '{{\"event\":\"end\"}}'; done"
        ));
        let (mut adapter, _) = client.open(Duration::from_secs(10)).await.unwrap();
        assert!(adapter.persistent());
        for play in ["a", "b"] {
            let outcome = adapter
                .run(&json!({"play": play}), "", Duration::from_secs(10))
                .await;
            assert_eq!(outcome.lines, vec![json!({"play": play})]);
            assert!(outcome.failure.is_none());
            assert!(
                outcome.noise.contains(&format!("\"{play}\"")),
                "{}",
                outcome.noise
            );
            let other = if play == "a" { "\"b\"" } else { "\"a\"" };
            assert!(!outcome.noise.contains(other), "{}", outcome.noise);
        }
    }

    #[tokio::test]
    async fn an_adapter_that_stays_up_past_a_deadline_is_killed_and_started_again() {
        let client = Client::Command(format!(
            "echo '{DESCRIBE},\"persistent\":true}}'; echo started >&2; \
             while read -r line; do echo '{{\"op\":\"card\"}}'; sleep 30; done"
        ));
        let (mut adapter, _) = client.open(Duration::from_secs(10)).await.unwrap();
        for _ in 0..2 {
            let started = std::time::Instant::now();
            let outcome = adapter
                .run(&json!({}), "", Duration::from_millis(500))
                .await;
            assert!(started.elapsed() < Duration::from_secs(10));
            assert!(outcome.failure.unwrap().contains("killed"));
            assert_eq!(outcome.lines, vec![json!({"op": "card"})]);
        }
    }
}

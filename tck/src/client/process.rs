//! An adapter's process: its command run under `sh -c` in a process group of its own, with the
//! scenario file and card URL in its environment, its standard output read as JSON lines and the
//! rest kept as noise (the tail of it), killed with its group past its deadline. [`Outcome`] is
//! what one run gave; the adapter that stays up (`super::adapter`) reads its pipes through
//! `read_lines` and `read_chunks`.

use std::path::Path;
use std::time::Duration;

use serde_json::Value;

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

const NOISE_KEEP: usize = 4096;

/// What was printed while the kit waited for a scenario's lines.
#[derive(Default)]
pub(super) struct Printed {
    pub(super) lines: Vec<Value>,
    pub(super) other: String,
    pub(super) err: Vec<u8>,
}

impl Printed {
    pub(super) fn line(&mut self, line: &str) {
        match serde_json::from_str::<Value>(line.trim()) {
            Ok(value) if value.is_object() => self.lines.push(value),
            _ if line.trim().is_empty() => {}
            _ => {
                self.other.push_str(line);
                self.other.push('\n');
            }
        }
    }

    pub(super) fn outcome(self, failure: Option<String>) -> Outcome {
        Outcome {
            lines: self.lines,
            noise: noise_of(self.other, &String::from_utf8_lossy(&self.err)),
            failure,
        }
    }
}

/// The lines of a pipe, each sent on as it comes (a line over [`LINE_KEEP`] bytes is cut).
pub(super) fn read_lines(
    pipe: Option<tokio::process::ChildStdout>,
) -> tokio::sync::mpsc::Receiver<String> {
    use tokio::io::AsyncBufReadExt as _;
    let (send, receive) = tokio::sync::mpsc::channel(256);
    if let Some(pipe) = pipe {
        tokio::spawn(async move {
            let mut reader = tokio::io::BufReader::new(pipe);
            let mut line = Vec::new();
            loop {
                line.clear();
                match reader.read_until(b'\n', &mut line).await {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        line.truncate(LINE_KEEP);
                        let text = String::from_utf8_lossy(&line)
                            .trim_end_matches(['\n', '\r'])
                            .to_owned();
                        if send.send(text).await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
    }
    receive
}

/// The chunks of a pipe, each sent on as it comes.
pub(super) fn read_chunks(
    pipe: Option<tokio::process::ChildStderr>,
) -> tokio::sync::mpsc::Receiver<Vec<u8>> {
    use tokio::io::AsyncReadExt as _;
    let (send, receive) = tokio::sync::mpsc::channel(64);
    if let Some(mut pipe) = pipe {
        tokio::spawn(async move {
            let mut buffer = vec![0u8; 8192];
            loop {
                match pipe.read(&mut buffer).await {
                    Ok(0) | Err(_) => break,
                    Ok(n) => {
                        if send.send(buffer[..n].to_vec()).await.is_err() {
                            break;
                        }
                    }
                }
            }
        });
    }
    receive
}

/// The most of one line of standard output the kit reads (the rest of it is dropped).
const LINE_KEEP: usize = 4 * 1024 * 1024;

pub(super) fn noise_tail(noise: &str) -> String {
    if noise.trim().is_empty() {
        String::new()
    } else {
        format!("; it printed: {}", noise.trim())
    }
}

/// Single quotes for `sh`.
pub(super) fn quoted(text: &str) -> String {
    format!("'{}'", text.replace('\'', "'\\''"))
}

pub(super) async fn run_command(
    template: &str,
    scenario: &Value,
    card_url: &str,
    deadline: Duration,
) -> Outcome {
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

pub(super) fn failed(why: String) -> Outcome {
    Outcome {
        failure: Some(why),
        ..Outcome::default()
    }
}

/// The adapter command under `sh -c`, in its own process group, its output piped and its
/// standard input empty.
pub(super) fn command_for(command: &str, file: &Path, card_url: &str) -> tokio::process::Command {
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
    builder
}

/// The noise of a run: its standard output that was no JSON line, then its standard error,
/// the tail of it.
pub(super) fn noise_of(mut noise: String, err: &str) -> String {
    if !err.trim().is_empty() {
        noise.push_str("stderr: ");
        noise.push_str(err);
    }
    keep_tail(noise)
}

/// The last [`NOISE_KEEP`] bytes of `noise`.
pub(super) fn keep_tail(noise: String) -> String {
    if noise.len() <= NOISE_KEEP {
        return noise;
    }
    let mut start = noise.len() - NOISE_KEEP;
    while !noise.is_char_boundary(start) {
        start += 1;
    }
    format!("...{}", &noise[start..])
}

async fn spawn(command: &str, file: &Path, card_url: &str, deadline: Duration) -> Outcome {
    use tokio::io::AsyncReadExt as _;
    let mut child = match command_for(command, file, card_url).spawn() {
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
    let out = tokio::time::timeout(grace, read_out)
        .await
        .ok()
        .and_then(Result::ok);
    let err = tokio::time::timeout(grace, read_err)
        .await
        .ok()
        .and_then(Result::ok);
    let out = String::from_utf8_lossy(&out.unwrap_or_default()).into_owned();
    let err = String::from_utf8_lossy(&err.unwrap_or_default()).into_owned();
    let mut printed = Printed::default();
    for line in out.lines() {
        printed.line(line);
    }
    Outcome {
        lines: printed.lines,
        noise: noise_of(printed.other, &err),
        failure,
    }
}

#[cfg(unix)]
pub(super) fn kill_group(child: &tokio::process::Child) {
    if let Some(pid) = child
        .id()
        .and_then(|id| rustix::process::Pid::from_raw(id as i32))
    {
        let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
    }
}

#[cfg(not(unix))]
pub(super) fn kill_group(_child: &tokio::process::Child) {}

//! The durability phase of a run (`--restart-cmd`, `--durability`): phase 1 makes fixtures on
//! every selected interface ([`crate::suite::checks::durability::prepare`]), then the target is
//! restarted and the kit waits for its card to answer again (polled with backoff under the
//! `--ready-timeout` deadline), then phase 2 runs the `durability.*` checks against what phase
//! 1 recorded. A restart that fails, or an agent that does not come back in time, makes every
//! durability result an ERROR that says so; nothing here waits without a deadline.
//!
//! Against the built-in agent no command is needed: [`BuiltinDurable`] runs it on a SQLite
//! file in a temporary directory and restarts it in-process (stop, start again on the same
//! port and file).

use std::fmt;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::{Duration, Instant};

use a2a_reference_agent::{AgentConfig, RunningAgent, StoreKind};
use futures::future::BoxFuture;
use tokio::sync::Mutex;

use crate::suite::check::HarnessError;

/// Restarts the target; says what it did, or why it failed.
pub type RestartFn = Arc<dyn Fn() -> BoxFuture<'static, Result<String, String>> + Send + Sync>;

/// How a run restarts its target, and how long it waits for it to come back.
#[derive(Clone)]
pub struct Durability {
    /// What the report names as the restart.
    pub describe: String,
    pub restart: RestartFn,
    /// How long the restart and the card answering again may take, together.
    pub ready_timeout: Duration,
}

impl fmt::Debug for Durability {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Durability")
            .field("describe", &self.describe)
            .field("ready_timeout", &self.ready_timeout)
            .finish_non_exhaustive()
    }
}

/// The default of `--ready-timeout`.
pub const READY_TIMEOUT: Duration = Duration::from_secs(30);

impl Durability {
    /// Restarts by running `command` with `sh -c` (it must exit 0 once the old process is
    /// stopped; it may return before the new one answers). Its stdout is discarded, its
    /// stderr goes to the kit's.
    pub fn command(command: &str, ready_timeout: Duration) -> Durability {
        let shell = command.to_string();
        let restart: RestartFn = Arc::new(move || {
            let shell = shell.clone();
            Box::pin(async move { run_command(&shell, ready_timeout).await })
        });
        Durability {
            describe: format!("--restart-cmd {command:?}"),
            restart,
            ready_timeout,
        }
    }
}

/// The restart command's process group, killed when this is dropped: a restart cut short (its
/// deadline, a stopped run) leaves nothing it started behind.
struct Group(Option<u32>);

impl Drop for Group {
    fn drop(&mut self) {
        #[cfg(unix)]
        if let Some(pid) = self
            .0
            .and_then(|id| rustix::process::Pid::from_raw(id as i32))
        {
            let _ = rustix::process::kill_process_group(pid, rustix::process::Signal::KILL);
        }
    }
}

async fn run_command(command: &str, deadline: Duration) -> Result<String, String> {
    let mut shell = tokio::process::Command::new("sh");
    shell
        .arg("-c")
        .arg(command)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::null())
        .kill_on_drop(true);
    #[cfg(unix)]
    shell.process_group(0);
    let mut child = shell
        .spawn()
        .map_err(|e| format!("the restart command could not be started: {e}"))?;
    let mut group = Group(child.id());
    let waited = tokio::time::timeout(deadline, child.wait()).await;
    if matches!(waited, Ok(Ok(_))) {
        // Exited by itself: what it left running (the restarted agent) is the user's.
        group.0 = None;
    }
    match waited {
        Ok(Ok(status)) if status.success() => Ok("the restart command exited 0".into()),
        Ok(Ok(status)) => Err(format!("the restart command failed ({status})")),
        Ok(Err(e)) => Err(format!("the restart command could not be waited for: {e}")),
        Err(_) => {
            let _ = child.kill().await;
            Err(format!(
                "the restart command did not finish within the ready timeout of {deadline:?} \
                 (it was killed)"
            ))
        }
    }
}

/// Why `--durability` / `--restart-cmd` do not fit the target, if they do not.
pub fn misused(
    builtin: bool,
    durability: bool,
    restart_cmd: &Option<String>,
) -> Option<&'static str> {
    match (builtin, durability, restart_cmd) {
        (false, true, _) => Some(
            "--durability restarts the built-in agent; against --target URL give --restart-cmd",
        ),
        (true, _, Some(_)) => Some(
            "--restart-cmd restarts an agent you run (--target URL); the built-in agent is \
             restarted in-process with --durability",
        ),
        _ => None,
    }
}

/// Restarts, then polls `card_url` until it answers 200; both within `durability`'s
/// deadline. Returns how long it took, or why the target is not back.
pub async fn restart_and_wait(
    durability: &Durability,
    card_url: &str,
    headers: &[(String, String)],
    ca_certs: &[Vec<u8>],
) -> Result<Duration, HarnessError> {
    let started = Instant::now();
    let deadline = durability.ready_timeout;
    let restarted = tokio::time::timeout(deadline, (durability.restart)()).await;
    match restarted {
        Ok(Ok(_)) => {}
        Ok(Err(why)) => return Err(HarnessError::Transport(format!("restart failed: {why}"))),
        Err(_) => {
            return Err(HarnessError::Deadline(format!(
                "the restart did not finish within the ready timeout of {deadline:?}"
            )))
        }
    }
    let client = crate::exchange::wire::client_trusting(ca_certs)?;
    let mut pause = Duration::from_millis(20);
    let mut last = String::from("no answer yet");
    loop {
        let left = deadline.saturating_sub(started.elapsed());
        if left.is_zero() {
            return Err(HarnessError::Deadline(format!(
                "the agent did not come back within the ready timeout of {deadline:?} after \
                 the restart: its card at {card_url} gave {last}"
            )));
        }
        let mut request = client
            .get(card_url)
            .timeout(left.min(Duration::from_secs(2)));
        for (name, value) in headers {
            request = request.header(name.as_str(), value.as_str());
        }
        let attempt = request.send().await;
        match attempt {
            Ok(answer) if answer.status().is_success() => return Ok(started.elapsed()),
            Ok(answer) => last = format!("HTTP {}", answer.status()),
            Err(e) => last = format!("an error ({e})"),
        }
        let left = deadline.saturating_sub(started.elapsed());
        tokio::time::sleep(pause.min(left)).await;
        pause = (pause * 2).min(Duration::from_millis(250));
    }
}

/// The built-in agent on a SQLite file in a temporary directory of its own, restartable
/// in-process on the same port and file. The directory is removed when this is dropped.
pub struct BuiltinDurable {
    agent: Arc<Mutex<Option<RunningAgent>>>,
    config: AgentConfig,
    addr: SocketAddr,
    base_url: String,
    served_card_url: String,
    card_url: String,
    /// Under `tls`: the PEM of the agent's CA (kept across restarts).
    ca_pem: Option<String>,
    dir: PathBuf,
}

impl fmt::Debug for BuiltinDurable {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("BuiltinDurable")
            .field("addr", &self.addr)
            .field("dir", &self.dir)
            .finish_non_exhaustive()
    }
}

impl BuiltinDurable {
    /// Starts the built-in agent with `config` on 127.0.0.1 (ephemeral port), its store a
    /// SQLite file in a new temporary directory.
    pub async fn start(mut config: AgentConfig) -> std::io::Result<BuiltinDurable> {
        let dir = std::env::temp_dir().join(format!(
            "a2a-tck-durable-{}-{}",
            std::process::id(),
            unique()
        ));
        std::fs::create_dir_all(&dir)?;
        config.store = StoreKind::Sqlite(dir.join("tasks.db"));
        let agent = match crate::run::builtin::start_with(config.clone()).await {
            Ok(agent) => agent,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&dir);
                return Err(e);
            }
        };
        Ok(BuiltinDurable {
            addr: agent.local_addr(),
            base_url: agent.base_url(),
            served_card_url: agent.served_card_url(),
            card_url: agent.card_url(),
            ca_pem: agent.ca_pem().map(str::to_string),
            agent: Arc::new(Mutex::new(Some(agent))),
            config,
            dir,
        })
    }

    pub fn base_url(&self) -> String {
        self.base_url.clone()
    }

    /// Where the card is served (a fault may move it off the well-known path).
    pub fn served_card_url(&self) -> String {
        self.served_card_url.clone()
    }

    /// The well-known card URL.
    pub fn card_url(&self) -> String {
        self.card_url.clone()
    }

    /// Under `tls`: the PEM of the private CA that signed the agent's certificate, for the
    /// kit to trust; a restarted agent serves the same CA and certificate.
    pub fn ca_pem(&self) -> Option<&str> {
        self.ca_pem.as_deref()
    }

    /// The in-process restart: stop the agent, start it again on the same port and file
    /// (and, under `tls`, with the same CA and certificate).
    pub fn durability(&self, ready_timeout: Duration) -> Durability {
        let (agent, config, addr) = (self.agent.clone(), self.config.clone(), self.addr);
        let restart: RestartFn = Arc::new(move || {
            let (agent, config) = (agent.clone(), config.clone());
            Box::pin(async move {
                let mut slot = agent.lock().await;
                let mut identity = None;
                if let Some(running) = slot.take() {
                    identity = running.tls_identity();
                    running.shutdown().await;
                }
                let started = a2a_reference_agent::start_with_identity(addr, config, identity)
                    .await
                    .map_err(|e| {
                        format!("the built-in agent did not start again on {addr}: {e}")
                    })?;
                *slot = Some(started);
                Ok("the built-in agent was stopped and started again".to_string())
            })
        });
        Durability {
            describe: "the built-in agent, on a SQLite file, restarted in-process".into(),
            restart,
            ready_timeout,
        }
    }

    /// Stops the agent and removes its directory.
    pub async fn shutdown(self) {
        if let Some(agent) = self.agent.lock().await.take() {
            agent.shutdown().await;
        }
    }
}

impl Drop for BuiltinDurable {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// A number that differs between calls in one process.
fn unique() -> u64 {
    use std::sync::atomic::{AtomicU64, Ordering};
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.subsec_nanos())
        .unwrap_or_default();
    u64::from(nanos) << 16 | NEXT.fetch_add(1, Ordering::Relaxed)
}

//! SIGINT and SIGTERM, as the run and the survey listen for them.

/// SIGINT and SIGTERM, listened for from the moment this is made (inside the runtime).
#[cfg(unix)]
pub struct Signals {
    interrupt: Option<tokio::signal::unix::Signal>,
    terminate: Option<tokio::signal::unix::Signal>,
}

#[cfg(unix)]
impl Signals {
    pub fn listen() -> Signals {
        use tokio::signal::unix::{signal, SignalKind};
        Signals {
            interrupt: signal(SignalKind::interrupt()).ok(),
            terminate: signal(SignalKind::terminate()).ok(),
        }
    }

    /// The next signal's name and exit status; `None` when neither can be listened for.
    pub async fn next(&mut self) -> Option<(&'static str, u8)> {
        async fn recv(signal: &mut Option<tokio::signal::unix::Signal>) -> Option<()> {
            match signal {
                Some(signal) => signal.recv().await,
                None => std::future::pending().await,
            }
        }
        if self.interrupt.is_none() && self.terminate.is_none() {
            return None;
        }
        tokio::select! {
            Some(()) = recv(&mut self.interrupt) => Some(("SIGINT", 130)),
            Some(()) = recv(&mut self.terminate) => Some(("SIGTERM", 143)),
            else => None,
        }
    }
}

#[cfg(not(unix))]
pub struct Signals;

#[cfg(not(unix))]
impl Signals {
    pub fn listen() -> Signals {
        Signals
    }

    pub async fn next(&mut self) -> Option<(&'static str, u8)> {
        tokio::signal::ctrl_c().await.ok()?;
        Some(("interrupt", 130))
    }
}

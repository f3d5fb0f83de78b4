//! Stopping a run early (SIGINT, SIGTERM, a caller's own reason): no new check starts, the
//! checks in flight get a short grace to finish, and the others are reported as not run
//! ("interrupted"), so the reports of an interrupted run still say what was judged.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::watch;

/// How long the checks in flight may still take once a run is stopped.
pub const GRACE: Duration = Duration::from_secs(2);

/// The reason recorded for every planned result a stopped run did not judge.
pub const INTERRUPTED: &str = "interrupted";

/// A switch shared by a run and whoever may stop it; cloning shares it.
#[derive(Debug, Clone)]
pub struct Stop {
    sender: Arc<watch::Sender<bool>>,
    grace: Duration,
    /// Why the run was stopped, when whoever stopped it said ([`Stop::stop_because`]).
    why: Arc<std::sync::OnceLock<String>>,
}

/// Why a run was stopped when no reason was given: the command's signals.
pub const SIGNALS: &str = "SIGINT or SIGTERM";

impl Default for Stop {
    fn default() -> Self {
        Stop::new(GRACE)
    }
}

impl Stop {
    /// A switch not yet thrown; the checks in flight when it is get `grace` to finish.
    pub fn new(grace: Duration) -> Stop {
        Stop {
            sender: Arc::new(watch::channel(false).0),
            grace,
            why: Arc::default(),
        }
    }

    /// Stops the run: no check starts from now on.
    pub fn stop(&self) {
        self.sender.send_replace(true);
    }

    /// Stops the run and says why (e.g. "its deadline of 60 s ran out"): the report's reason
    /// names it. The first reason given stands.
    pub fn stop_because(&self, why: impl Into<String>) {
        let _ = self.why.set(why.into());
        self.stop();
    }

    /// Why the run was stopped: the reason given to [`Stop::stop_because`], else
    /// [`SIGNALS`].
    pub fn why(&self) -> &str {
        self.why.get().map_or(SIGNALS, String::as_str)
    }

    pub fn is_stopped(&self) -> bool {
        *self.sender.borrow()
    }

    /// Resolves once the run is stopped.
    pub async fn stopped(&self) {
        let mut receiver = self.sender.subscribe();
        // The sender lives in `self`, so the channel cannot close while this waits.
        let _ = receiver.wait_for(|stopped| *stopped).await;
    }

    /// `work`'s output, or `None` when the run is stopped and `work` has not ended within
    /// the grace.
    pub async fn within_grace<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        let cut = async {
            self.stopped().await;
            tokio::time::sleep(self.grace).await;
        };
        tokio::select! {
            output = work => Some(output),
            () = cut => None,
        }
    }

    /// `work`'s output, or `None` as soon as the run is stopped (for the run's setup, which
    /// judges nothing).
    pub async fn unless_stopped<T>(&self, work: impl Future<Output = T>) -> Option<T> {
        if self.is_stopped() {
            return None;
        }
        tokio::select! {
            output = work => Some(output),
            () = self.stopped() => None,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn work_in_flight_gets_the_grace_and_no_more() {
        let stop = Stop::new(Duration::from_millis(50));
        let quick = stop.within_grace(tokio::time::sleep(Duration::from_millis(10)));
        let slow = stop.within_grace(tokio::time::sleep(Duration::from_secs(60)));
        stop.stop();
        let (quick, slow) =
            tokio::time::timeout(Duration::from_secs(10), async { tokio::join!(quick, slow) })
                .await
                .unwrap();
        assert!(quick.is_some());
        assert!(slow.is_none());
        assert!(stop.unless_stopped(std::future::ready(())).await.is_none());
    }
}

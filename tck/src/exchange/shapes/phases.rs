//! The two phases of a run: the checks that judge the traffic of the whole run (wire shapes)
//! start only once every other check has finished, in the same stream of planned checks.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use futures::stream::{self, Stream, StreamExt};
use tokio::sync::Notify;

/// Items with their index in the plan.
pub type Indexed<T> = Vec<(usize, T)>;

/// Counts the first phase down; the second starts at zero.
#[derive(Debug)]
pub struct Phases {
    first: BTreeSet<usize>,
    pending: AtomicUsize,
    done: Notify,
}

impl Phases {
    /// Splits `(index, item)` pairs into the first phase and the `last` one, order kept.
    pub fn split<T>(
        items: Indexed<T>,
        last: impl Fn(&T) -> bool,
    ) -> (Arc<Phases>, Indexed<T>, Indexed<T>) {
        let (second, first): (Vec<_>, Vec<_>) = items.into_iter().partition(|(_, t)| last(t));
        let phases = Phases {
            first: first.iter().map(|(i, _)| *i).collect(),
            pending: AtomicUsize::new(first.len()),
            done: Notify::new(),
        };
        (Arc::new(phases), first, second)
    }

    /// The first phase's items, then, once each of them is [`Phases::finished`], the second's.
    pub fn stream<T>(self: &Arc<Phases>, first: Vec<T>, second: Vec<T>) -> impl Stream<Item = T> {
        let phases = self.clone();
        let second = stream::once(async move {
            phases.wait().await;
            stream::iter(second)
        });
        stream::iter(first).chain(second.flatten())
    }

    /// The item `index` has finished.
    pub fn finished(&self, index: usize) {
        if self.first.contains(&index) && self.pending.fetch_sub(1, Ordering::AcqRel) == 1 {
            // A stored permit: the waiter may not be waiting yet.
            self.done.notify_one();
        }
    }

    async fn wait(&self) {
        while self.pending.load(Ordering::Acquire) > 0 {
            self.done.notified().await;
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[tokio::test]
    async fn the_second_phase_starts_after_the_first() {
        let items: Vec<(usize, bool)> = vec![(0, false), (1, true), (2, false)];
        let (phases, first, last) = Phases::split(items, |last| *last);
        let log = Arc::new(std::sync::Mutex::new(Vec::new()));
        let run = phases
            .stream(first, last)
            .map(|(index, _)| {
                let (phases, log) = (phases.clone(), log.clone());
                async move {
                    log.lock().unwrap().push(format!("start {index}"));
                    tokio::task::yield_now().await;
                    log.lock().unwrap().push(format!("end {index}"));
                    phases.finished(index);
                }
            })
            .buffer_unordered(8)
            .collect::<Vec<()>>();
        run.await;
        let log = log.lock().unwrap().clone();
        let start_last = log.iter().position(|l| l == "start 1").unwrap();
        assert!(
            log.iter().position(|l| l == "end 0").unwrap() < start_last,
            "{log:?}"
        );
        assert!(
            log.iter().position(|l| l == "end 2").unwrap() < start_last,
            "{log:?}"
        );
    }
}

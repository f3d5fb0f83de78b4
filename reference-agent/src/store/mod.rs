//! The in-memory task store: the tasks, their records and the lock every operation runs
//! under. The operations are split by concern: [`lifecycle`] (SendMessage, CancelTask,
//! SubscribeToTask: the task state machine), [`playback`] (running a scripted scenario as
//! events) and [`list`] (ListTasks filters and paging). What the store does where the spec
//! leaves a choice, or where a fault breaks a rule, it reads from its [`Policy`].
//!
//! Every operation runs to completion under one lock: scenarios are scripted
//! and synchronous, so there is no background work. Each change to a task is
//! an [`Event`]; events reach a task's live feed (a broadcast channel created
//! by its first listener) under the same lock that applies them.

pub mod durable;
mod lifecycle;
mod list;
mod playback;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use tokio::sync::broadcast;

use crate::clock::{Clock, Ids, Timestamp};
use crate::model::{Event, Message, Task};
use crate::policy::Policy;
use crate::scenario::{Scenarios, TaskOutcome};
use crate::version::Version;

pub use list::ListQuery;

/// What SendMessage produced.
#[derive(Debug, Clone, PartialEq)]
pub enum SendReply {
    Task(Task),
    Message(Message),
}

/// The events a stream starts with and, while the task is still open, its
/// live feed (subscribed atomically with the snapshot, so nothing is lost or
/// repeated between the two).
#[derive(Debug)]
pub struct Feed {
    pub events: Vec<Event>,
    pub live: Option<broadcast::Receiver<Event>>,
    /// The task's feed itself (subscriptions only): how many of its events some receiver has
    /// yet to take.
    pub sender: Option<broadcast::Sender<Event>>,
}

/// Told of every status and artifact update of every task, as it is applied (under the
/// store's lock, so in order): push delivery.
pub type UpdateHook = Arc<dyn Fn(&Task, &Event) + Send + Sync>;

/// Called with a task's id before its scenario runs (an inline push config).
pub type OnStart = Box<dyn FnOnce(&str) + Send>;

/// Events a slow subscriber may fall behind by before its stream fails.
const FEED_CAPACITY: usize = 256;

/// Sort key: last status update, then creation order.
pub(super) type Key = (Timestamp, u64);

pub(super) struct Record {
    task: Task,
    /// The task as it was when created (before its scenario ran).
    initial: Task,
    created: u64,
    /// For a held task: what the next follow-up message does.
    release: Option<TaskOutcome>,
    /// The live feed of the task's events, created by the first listener.
    feed: Option<broadcast::Sender<Event>>,
    /// How many SubscribeToTask calls the task has had.
    subscribers: usize,
    /// The protocol version of the request that made the task.
    origin: Version,
}

impl Record {
    fn key(&self) -> Key {
        (self.task.status.timestamp, self.created)
    }

    fn listen(&mut self) -> broadcast::Receiver<Event> {
        self.feed
            .get_or_insert_with(|| broadcast::channel(FEED_CAPACITY).0)
            .subscribe()
    }
}

pub(super) struct State {
    clock: Clock,
    ids: Ids,
    tasks: HashMap<String, Record>,
    /// Issued ListTasks page tokens and the key of the last task on their page.
    page_tokens: HashMap<String, Key>,
    /// The contexts the agent made or accepted (only a fault consults them).
    contexts: durable::Contexts,
    /// For the SendMessage being processed: what to call once its task exists.
    on_start: Option<OnStart>,
}

/// Thread-safe task store.
pub struct Store {
    policy: Policy,
    scenarios: Scenarios,
    state: Mutex<State>,
    /// Where every change is written through (`--store sqlite:PATH`); `None`: memory only.
    durable: Option<Arc<durable::Durable>>,
    /// A fault: refuse a contextId the agent does not know.
    strict_contexts: bool,
    hook: Option<UpdateHook>,
    /// Held tasks released by a timer (ACTS `tck-long-running`): when, and which task.
    timers: Mutex<Vec<(tokio::time::Instant, String)>>,
    /// Ticks when a timer is set.
    timer_set: Arc<tokio::sync::Notify>,
}

impl Store {
    /// An empty store that behaves as `policy` says and plays `scenarios`.
    pub fn new(policy: Policy, scenarios: Scenarios) -> Self {
        Store {
            policy,
            scenarios,
            state: Mutex::new(State {
                clock: Clock::system(),
                ids: Ids::default(),
                tasks: HashMap::new(),
                page_tokens: HashMap::new(),
                contexts: durable::Contexts::new(),
                on_start: None,
            }),
            durable: None,
            strict_contexts: false,
            hook: None,
            timers: Mutex::default(),
            timer_set: Arc::default(),
        }
    }

    /// A store kept in `durable` as well, with everything saved there loaded back.
    pub fn open(
        policy: Policy,
        scenarios: Scenarios,
        durable: durable::Durable,
        forget: durable::Forget,
    ) -> Result<Self, String> {
        let mut store = Store::new(policy, scenarios);
        durable.load_into(&mut store.lock())?;
        store.durable = Some(Arc::new(durable));
        store.strict_contexts = forget.strict_contexts();
        Ok(store)
    }

    /// The durable store, for other per-agent data (`kind, key -> JSON`).
    pub fn durable(&self) -> Option<Arc<durable::Durable>> {
        self.durable.clone()
    }

    /// Writes the task `id` through to the durable store, if there is one. A write that fails
    /// is reported on stderr: the answer already reflects the change.
    fn persist(&self, state: &State, id: &str) {
        let (Some(durable), Some(record)) = (&self.durable, state.tasks.get(id)) else {
            return;
        };
        if let Err(e) = durable.save_record(state, record) {
            eprintln!("a2a-reference-agent: {e}");
        }
    }

    /// Records a context the agent made or accepted.
    fn know_context(&self, state: &mut State, context_id: &str) {
        if context_id.is_empty() || !state.contexts.insert(context_id.to_owned()) {
            return;
        }
        if let Some(durable) = &self.durable {
            if let Err(e) = durable.save_context(state, context_id) {
                eprintln!("a2a-reference-agent: {e}");
            }
        }
    }

    /// With `hook` told of every update (push delivery).
    pub fn with_hook(mut self, hook: UpdateHook) -> Self {
        self.hook = Some(hook);
        self
    }

    /// Releases the held task `id` when `after` has passed, as a follow-up would.
    fn release_after(&self, id: &str, after: std::time::Duration) {
        let at = tokio::time::Instant::now() + after;
        (self.timers.lock().unwrap_or_else(PoisonError::into_inner)).push((at, id.to_owned()));
        self.timer_set.notify_one();
    }

    /// When the next timer is due (`None`: none is set), and what ticks when one is set.
    pub fn next_timer(&self) -> (Option<tokio::time::Instant>, Arc<tokio::sync::Notify>) {
        let timers = self.timers.lock().unwrap_or_else(PoisonError::into_inner);
        let next = timers.iter().map(|(at, _)| *at).min();
        (next, self.timer_set.clone())
    }

    /// Releases the held tasks whose timers are due: each runs its release outcome (its
    /// events go to its subscribers and webhooks), unless a follow-up or a cancel came first.
    pub fn release_due(&self) {
        let now = tokio::time::Instant::now();
        let due: Vec<String> = {
            let mut timers = self.timers.lock().unwrap_or_else(PoisonError::into_inner);
            let (due, later) = timers.drain(..).partition(|(at, _)| *at <= now);
            *timers = later;
            due.into_iter().map(|(_, id)| id).collect()
        };
        let mut state = self.lock();
        for id in due {
            let Some(record) = state.tasks.get_mut(&id) else {
                continue;
            };
            let Some(outcome) = record.release.take() else {
                continue;
            };
            let mut task = record.task.clone();
            let feed = record.feed.clone();
            let mut out = playback::Emitter::new(&mut task, feed, true).notify(self.hook.clone());
            let held = self.run(&mut state, &mut out, &outcome);
            if let Some(record) = state.tasks.get_mut(&id) {
                record.task = task;
                record.release = held;
            }
            self.persist(&state, &id);
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// GetTask: the stored task, if any.
    pub fn get(&self, id: &str) -> Option<Task> {
        let state = self.lock();
        let record = state.tasks.get(id)?;
        if self.policy.tasks.get_returns_initial {
            return Some(record.initial.clone());
        }
        Some(record.task.clone())
    }

    /// Deletes all but the last `keep` messages of the task's stored history (a fault).
    pub fn keep_last_messages(&self, id: &str, keep: usize) {
        let mut state = self.lock();
        if let Some(record) = state.tasks.get_mut(id) {
            let excess = record.task.history.len().saturating_sub(keep);
            record.task.history.drain(..excess);
            self.persist(&state, id);
        }
    }

    /// Records that a request of `version` made the task `id`.
    pub fn set_origin(&self, id: &str, version: Version) {
        let mut state = self.lock();
        if let Some(record) = state.tasks.get_mut(id) {
            if record.origin == version {
                return;
            }
            record.origin = version;
            self.persist(&state, id);
        }
    }

    /// The protocol version of the request that made the task `id`.
    pub fn origin(&self, id: &str) -> Option<Version> {
        self.lock().tasks.get(id).map(|record| record.origin)
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::model::{Part, Role, TaskState};

    fn store() -> Store {
        let config = crate::config::AgentConfig::default();
        let scenarios = crate::scenario::Scenarios::builtin().unwrap();
        Store::new(Policy::new(&config), scenarios)
    }

    fn acts(text: &str) -> Message {
        Message {
            message_id: "m-1".into(),
            role: Role::User,
            parts: vec![Part::text(text)],
            ..Message::default()
        }
    }

    #[test]
    fn acts_long_running_is_released_by_its_timer_and_tck_cancel_is_not() {
        let store = store();
        let timed = match store
            .send_with(acts("tck-long-running"), true, None)
            .unwrap()
        {
            SendReply::Task(task) => task,
            SendReply::Message(_) => panic!("a task"),
        };
        assert_eq!(timed.status.state, TaskState::Working);
        let (next, _) = store.next_timer();
        let after = next.unwrap() - tokio::time::Instant::now();
        assert!(after > std::time::Duration::from_millis(1000), "{after:?}");
        // Not due yet: nothing moves.
        store.release_due();
        assert_eq!(
            store.get(&timed.id).unwrap().status.state,
            TaskState::Working
        );
        // Due now (the timer's delay is the agent's own; the test does not wait for it).
        store.timers.lock().unwrap()[0].0 = tokio::time::Instant::now();
        store.release_due();
        let done = store.get(&timed.id).unwrap();
        assert_eq!(done.status.state, TaskState::Completed);
        assert!(!done.artifacts.is_empty());
        assert_eq!(store.next_timer().0, None);
        // ACTS `tck-cancel` is held with no timer.
        let held = match store.send_with(acts("tck-cancel"), true, None).unwrap() {
            SendReply::Task(task) => task,
            SendReply::Message(_) => panic!("a task"),
        };
        assert_eq!(held.status.state, TaskState::Working);
        assert_eq!(store.next_timer().0, None);
    }
}

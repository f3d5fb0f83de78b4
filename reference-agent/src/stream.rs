//! The streaming operations of the 1.0 core (`SendStreamingMessage`, `SubscribeToTask`):
//! the events a stream starts with, its live feed, and when it closes, as the
//! [`StreamPolicy`] says. Events are conformant ProtoJSON `StreamResponse`s; the adapters
//! pass each through [`crate::shape`].

use std::collections::VecDeque;

use futures::stream::{BoxStream, StreamExt};
use serde_json::Value;
use tokio::sync::broadcast::{self, error::RecvError};

use crate::clock::Timestamp;
use crate::error::RpcError;
use crate::methods::{is_streaming, streaming_refused, unknown_method};
use crate::model::{Event, StatusUpdate, Task, TaskState, TaskStatus};
use crate::params;
use crate::parts::{ClosedSubscriptions, Core};
use crate::policy::StreamPolicy;
use crate::push::ConfigVersion;
use crate::wire::{self, Artifacts, TaskView};

/// A stream of ProtoJSON `StreamResponse` objects. An `Err` item is a
/// mid-stream error and is the last item.
pub type EventStream = BoxStream<'static, Result<Value, RpcError>>;

/// Streaming operations (`SendStreamingMessage`, `SubscribeToTask`): an error
/// before the first event is `Err`; otherwise the events, ending after the
/// one that closes the stream (a Message, or a terminal or interrupted status).
pub fn stream(
    core: Core<'_>,
    method: &str,
    params: Option<Value>,
) -> Result<EventStream, RpcError> {
    let inline = params
        .as_ref()
        .and_then(|p| p.pointer("/configuration/taskPushNotificationConfig"))
        .cloned();
    stream_as(core, method, params, inline.as_ref(), ConfigVersion::V1_0)
}

/// [`stream`], with the push config sent inline (1.0 form) made through `version`.
pub(crate) fn stream_as(
    core: Core<'_>,
    method: &str,
    params: Option<Value>,
    inline: Option<&Value>,
    version: ConfigVersion,
) -> Result<EventStream, RpcError> {
    let policy = &core.policy;
    if !is_streaming(method) {
        return Err(unknown_method(&policy.service, method));
    }
    if let Some(refused) = streaming_refused(&policy.service, method) {
        return Err(refused);
    }
    let mut subscribed = None;
    let mut follow_up = false;
    let (kind, feed, history_length) = if method == "SendStreamingMessage" {
        let params = params::send_message(params, &policy.requests)?;
        follow_up = !params.message.task_id.is_empty();
        let on_start = match core.push {
            Some(push) => push.on_start(inline, version)?,
            None => None,
        };
        let feed = core.store.send_streaming(params.message, on_start)?;
        (Kind::Send, feed, params.history_length)
    } else {
        let id = params::task_id(params)?;
        let feed = core.store.subscribe(&id)?;
        subscribed = Some(id);
        (Kind::Subscribe, feed, None)
    };
    // The fault: a subscription its client closes ends the task's other subscriptions.
    let siblings = subscribed
        .filter(|_| !policy.wire_rules.close_keeps_siblings)
        .map(|id| Siblings {
            task_id: id,
            closed: core.closed_subscriptions.clone(),
            finished: false,
            feed: feed.sender.clone(),
        });
    let mut events = feed.events;
    initial_events(kind, &mut events, &policy.streams);
    if follow_up && policy.streams.follow_up_starts_with_status {
        // The fault: a stream continuing a task opens with a WORKING status, as some SDKs do.
        if let Some(Event::Task(task)) = events.first() {
            let mut status = task.status.clone();
            status.state = TaskState::Working;
            status.message = None;
            events[0] = Event::Status(StatusUpdate {
                task_id: task.id.clone(),
                context_id: task.context_id.clone(),
                status,
            });
        }
    }
    if kind == Kind::Send && !policy.wire_rules.stream_progress {
        // The fault: no progress between the Task and the terminal status.
        events.retain(|e| match e {
            Event::Status(update) => update.status.state.is_terminal(),
            Event::Artifact(_) => false,
            _ => true,
        });
    }
    let run = Run {
        queue: events.into(),
        live: feed.live,
        kind,
        view: TaskView {
            history_length,
            window: policy.service.history,
            artifacts: Artifacts::NonEmpty,
        },
        policy: policy.streams.clone(),
        hold_open: false,
        done: false,
        siblings,
    };
    let mut closing = core.closing.subscribe();
    let shutdown = async move {
        // Ends every stream when the server shuts down (or is dropped).
        let _ = closing.wait_for(|closed| *closed).await;
    };
    Ok(futures::stream::unfold(run, Run::next)
        .take_until(shutdown)
        .boxed())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Send,
    Subscribe,
}

/// The state of one stream: the events known at the start, then the live feed.
struct Run {
    queue: VecDeque<Event>,
    live: Option<broadcast::Receiver<Event>>,
    kind: Kind,
    view: TaskView,
    policy: StreamPolicy,
    /// The policy keeps the stream open after the last event sent.
    hold_open: bool,
    done: bool,
    /// Under the fault that lets one closed subscription end the others: this one's task.
    siblings: Option<Siblings>,
}

/// A subscription that, when its client closes it early, ends the task's other ones.
struct Siblings {
    task_id: String,
    closed: ClosedSubscriptions,
    /// The stream ended on its own (nothing to tell the others).
    finished: bool,
    /// The task's feed: whether every other receiver has taken an event.
    feed: Option<broadcast::Sender<Event>>,
}

/// How long a subscription under the fault waits for the task's other receivers to take an
/// event (a client that stops reading stops its stream taking any).
const SIBLINGS_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

impl Siblings {
    fn another_closed(&self) -> bool {
        (self.closed.closed.lock()).is_ok_and(|closed| closed.contains(&self.task_id))
    }

    /// Waits (at most [`SIBLINGS_WAIT`]) until every other receiver of the task's feed has
    /// taken the event this one (`live`) took last, or is gone: a subscription whose client
    /// closed it is then known to be closed, its connection having been polled for the event
    /// (an HTTP/1 connection reads its client's close before it writes; an HTTP/2 or gRPC
    /// stream reads its reset), so the fault's effect does not depend on which of the task's
    /// streams the runtime polls first.
    async fn others_took(&self, live: &broadcast::Receiver<Event>) {
        let Some(feed) = &self.feed else {
            return;
        };
        self.closed.moved.notify_waiters();
        let deadline = tokio::time::Instant::now() + SIBLINGS_WAIT;
        loop {
            let mut moved = std::pin::pin!(self.closed.moved.notified());
            moved.as_mut().enable();
            // Queued: the events some receiver has not taken; past the one this one took,
            // those are the ones it has not taken either.
            if feed.len() <= live.len() {
                return;
            }
            if tokio::time::timeout_at(deadline, moved).await.is_err() {
                return;
            }
        }
    }
}

impl Drop for Siblings {
    fn drop(&mut self) {
        if !self.finished {
            if let Ok(mut closed) = self.closed.closed.lock() {
                closed.insert(self.task_id.clone());
            }
        }
        self.closed.moved.notify_waiters();
    }
}

impl Run {
    async fn next(mut self) -> Option<(Result<Value, RpcError>, Self)> {
        let item = self.next_item().await;
        if item.is_none() {
            if let Some(siblings) = self.siblings.as_mut() {
                siblings.finished = true;
            }
        }
        item.map(|item| (item, self))
    }

    async fn next_item(&mut self) -> Option<Result<Value, RpcError>> {
        if self.done {
            return None;
        }
        match self.next_event().await {
            Some(Ok(event)) => {
                self.hold_open = self.holds_open_after(&event);
                let value = wire::event(&event, self.view);
                self.done = value.is_err();
                Some(value)
            }
            Some(Err(error)) => {
                self.done = true;
                Some(Err(error))
            }
            None => {
                if self.hold_open {
                    futures::future::pending::<()>().await;
                }
                None
            }
        }
    }

    async fn next_event(&mut self) -> Option<Result<Event, RpcError>> {
        if let Some(event) = self.queue.pop_front() {
            return Some(Ok(event));
        }
        let skip_updates = self.kind == Kind::Subscribe && !self.policy.subscribe_live_updates;
        loop {
            let received = self.live.as_mut()?.recv().await;
            match received {
                Ok(event) => {
                    if let (Some(siblings), Some(live)) = (&self.siblings, &self.live) {
                        siblings.others_took(live).await;
                        if siblings.another_closed() {
                            self.live = None;
                            return None;
                        }
                    }
                    let ends = event.ends_stream();
                    if ends {
                        self.live = None;
                    }
                    if !skip_updates {
                        return Some(Ok(event));
                    }
                }
                Err(RecvError::Lagged(missed)) => {
                    self.live = None;
                    let error =
                        RpcError::internal(format_args!("the stream fell {missed} events behind"));
                    return Some(Err(error));
                }
                Err(RecvError::Closed) => {
                    self.live = None;
                    return None;
                }
            }
        }
    }

    fn holds_open_after(&self, event: &Event) -> bool {
        let Event::Status(update) = event else {
            return false;
        };
        let state = update.status.state;
        let policy = &self.policy;
        match self.kind {
            Kind::Send => {
                (state.is_terminal() && policy.send_open_after_terminal)
                    || (state.is_interrupted() && policy.send_open_after_interrupted)
            }
            Kind::Subscribe => state.is_terminal() && policy.subscribe_open_after_terminal,
        }
    }
}

fn status_of(task: &Task) -> Event {
    Event::Status(StatusUpdate {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: task.status.clone(),
    })
}

/// The events known at the start, as the policy orders them.
fn initial_events(kind: Kind, events: &mut Vec<Event>, policy: &StreamPolicy) {
    let first_is_status = match kind {
        Kind::Send => policy.send_starts_with_status,
        Kind::Subscribe => policy.subscribe_starts_with_status,
    };
    if let (true, Some(Event::Task(task))) = (first_is_status, events.first()) {
        events[0] = status_of(task);
    }
    if kind == Kind::Subscribe {
        return;
    }
    if policy.send_drops_failed_status {
        events.retain(|e| !matches!(e, Event::Status(u) if u.status.state == TaskState::Failed));
    }
    if let (true, [Event::Message(message)]) = (policy.message_then_status, events.as_slice()) {
        let extra = StatusUpdate {
            task_id: message.task_id.clone(),
            context_id: message.context_id.clone(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: None,
                timestamp: Timestamp::wall_clock(),
            },
        };
        events.push(Event::Status(extra));
    }
    if policy.chunk_after_terminal {
        let chunks = |id: &str| {
            (events.iter())
                .filter(|e| matches!(e, Event::Artifact(a) if a.artifact.artifact_id == id))
                .count()
        };
        let last_chunk = (0..events.len()).rfind(
            |&i| matches!(&events[i], Event::Artifact(a) if chunks(&a.artifact.artifact_id) > 1),
        );
        let terminal = (0..events.len())
            .rfind(|&i| matches!(&events[i], Event::Status(u) if u.status.state.is_terminal()));
        if let (Some(chunk), Some(terminal)) = (last_chunk, terminal) {
            if chunk < terminal {
                let chunk = events.remove(chunk);
                events.insert(terminal, chunk);
            }
        }
    }
    if policy.terminal_before_working {
        let state_at = |i: usize| match &events[i] {
            Event::Status(update) => Some(update.status.state),
            _ => None,
        };
        let working = (0..events.len()).find(|&i| state_at(i) == Some(TaskState::Working));
        let terminal =
            (0..events.len()).rfind(|&i| state_at(i).is_some_and(TaskState::is_terminal));
        if let (Some(working), Some(terminal)) = (working, terminal) {
            events.swap(working, terminal);
        }
    }
}

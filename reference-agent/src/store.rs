//! The in-memory task store and the task state machine.
//!
//! Every operation runs to completion under one lock: scenarios are scripted
//! and synchronous, so there is no background work. Each change to a task is
//! an [`Event`]; events reach a task's live feed (a broadcast channel created
//! by its first listener) under the same lock that applies them.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::clock::{Clock, Ids, Timestamp};
use crate::error::RpcError;
use crate::fault::Fault;
use tokio::sync::broadcast;

use crate::model::{
    Artifact, ArtifactUpdate, Event, Message, Part, Role, StatusUpdate, Task, TaskState, TaskStatus,
};
use crate::scenario::{Scenario, Scenarios, TaskOutcome};
use crate::AgentConfig;

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
}

/// Events a slow subscriber may fall behind by before its stream fails.
const FEED_CAPACITY: usize = 256;

/// ListTasks filters and paging, already validated.
#[derive(Debug, Clone, Default)]
pub struct ListQuery {
    pub context_id: Option<String>,
    pub status: Option<TaskState>,
    pub status_timestamp_after: Option<Timestamp>,
    pub page_size: usize,
    pub page_token: Option<String>,
}

/// One page of ListTasks.
#[derive(Debug, Clone)]
pub struct ListPage {
    pub tasks: Vec<Task>,
    /// `None` on the last page.
    pub next_page_token: Option<String>,
    pub total_size: usize,
}

/// Sort key: last status update, then creation order.
type Key = (Timestamp, u64);

struct Record {
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

/// Applies events to a task as they are generated, records them, and passes
/// them to the task's live feed.
struct Emitter<'a> {
    task: &'a mut Task,
    feed: Option<broadcast::Sender<Event>>,
    events: Vec<Event>,
    store_terminal: bool,
}

impl<'a> Emitter<'a> {
    fn new(
        task: &'a mut Task,
        feed: Option<broadcast::Sender<Event>>,
        store_terminal: bool,
    ) -> Self {
        Emitter {
            task,
            feed,
            events: Vec::new(),
            store_terminal,
        }
    }

    fn status(&mut self, state: TaskState, message: Option<Message>, timestamp: Timestamp) {
        let status = TaskStatus {
            state,
            message,
            timestamp,
        };
        if self.store_terminal || !state.is_terminal() {
            self.task.history.extend(status.message.clone());
            self.task.status = status.clone();
        }
        self.emit(Event::Status(StatusUpdate {
            task_id: self.task.id.clone(),
            context_id: self.task.context_id.clone(),
            status,
        }));
    }

    /// Adds an artifact; `append` adds the parts to the artifact with the same id.
    fn artifact(&mut self, artifact: Artifact, append: bool, last_chunk: bool) {
        let artifacts = &mut self.task.artifacts;
        match artifacts
            .iter_mut()
            .find(|a| a.artifact_id == artifact.artifact_id)
        {
            Some(existing) if append => existing.parts.extend(artifact.parts.iter().cloned()),
            Some(existing) => *existing = artifact.clone(),
            None => artifacts.push(artifact.clone()),
        }
        self.emit(Event::Artifact(ArtifactUpdate {
            task_id: self.task.id.clone(),
            context_id: self.task.context_id.clone(),
            artifact,
            append,
            last_chunk,
        }));
    }

    fn emit(&mut self, event: Event) {
        if let Some(feed) = &self.feed {
            // No receivers is fine: nobody is listening right now.
            let _ = feed.send(event.clone());
        }
        self.events.push(event);
    }
}

struct State {
    clock: Clock,
    ids: Ids,
    tasks: HashMap<String, Record>,
    /// Issued ListTasks page tokens and the key of the last task on their page.
    page_tokens: HashMap<String, Key>,
}

/// Thread-safe task store.
pub struct Store {
    config: AgentConfig,
    scenarios: Scenarios,
    state: Mutex<State>,
}

impl Store {
    pub fn new(config: AgentConfig, scenarios: Scenarios) -> Self {
        Store {
            config,
            scenarios,
            state: Mutex::new(State {
                clock: Clock::system(),
                ids: Ids::default(),
                tasks: HashMap::new(),
                page_tokens: HashMap::new(),
            }),
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    fn has(&self, fault: Fault) -> bool {
        self.config.has(fault)
    }

    /// SendMessage: start a task, continue one, or answer with a Message.
    pub fn send(&self, message: Message, blocking: bool) -> Result<SendReply, RpcError> {
        let mut state = self.lock();
        let (reply, _) = self.process(&mut state, message, false)?;
        Ok(match reply {
            SendReply::Task(mut task) if blocking && self.has(Fault::BlockingReturnsWorking) => {
                task.status = TaskStatus {
                    state: TaskState::Working,
                    message: None,
                    timestamp: state.clock.now(),
                };
                SendReply::Task(task)
            }
            reply => reply,
        })
    }

    /// SendStreamingMessage: the events of the request and, when the task is
    /// still open afterwards, its live feed (subscribed under the same lock).
    pub fn send_streaming(&self, message: Message) -> Result<Feed, RpcError> {
        let mut state = self.lock();
        let (reply, events) = self.process(&mut state, message, true)?;
        let live = match (&reply, events.last()) {
            (SendReply::Task(task), Some(last)) if !last.ends_stream() => {
                state.tasks.get_mut(&task.id).map(Record::listen)
            }
            _ => None,
        };
        Ok(Feed { events, live })
    }

    /// SubscribeToTask: the current Task, then its live feed.
    pub fn subscribe(&self, id: &str) -> Result<Feed, RpcError> {
        let mut state = self.lock();
        let Some(record) = state.tasks.get_mut(id) else {
            if self.has(Fault::SubscribeUnknownWrongError) {
                return Err(RpcError::invalid_param("id", format!("no task `{id}`")));
            }
            return Err(RpcError::task_not_found(id));
        };
        let snapshot = record.task.clone();
        let state_now = snapshot.status.state;
        let events = vec![Event::Task(snapshot)];
        if state_now.is_terminal() {
            if self.has(Fault::SubscribeTerminalAllowed) {
                return Ok(Feed { events, live: None });
            }
            return Err(RpcError::unsupported_operation(format_args!(
                "task {id} is in terminal state {}",
                state_now.name()
            )));
        }
        record.subscribers += 1;
        let live = if self.has(Fault::SubscribeFirstOnly) && record.subscribers > 1 {
            None
        } else {
            Some(record.listen())
        };
        Ok(Feed { events, live })
    }

    /// The reply to a message and the events it generated, in order (for a
    /// task: its snapshot first; for a direct reply: the one Message).
    fn process(
        &self,
        state: &mut State,
        message: Message,
        streaming: bool,
    ) -> Result<(SendReply, Vec<Event>), RpcError> {
        let scenario = self
            .scenarios
            .select(&message.message_id)
            .ok_or_else(|| RpcError::internal("scenario table has no default"))?;
        if message.task_id.is_empty() {
            return Ok(self.start(state, message, scenario, streaming));
        }
        let Some(record) = state.tasks.get(&message.task_id) else {
            if self.has(Fault::UnknownTaskIdCreatesTask) {
                return Ok(self.start(state, message, scenario, streaming));
            }
            return Err(RpcError::task_not_found(&message.task_id));
        };
        let task = &record.task;
        if task.status.state.is_terminal() {
            if self.has(Fault::TerminalTaskAcceptsMessage) {
                let task = task.clone();
                return Ok((SendReply::Task(task.clone()), vec![Event::Task(task)]));
            }
            return Err(RpcError::unsupported_operation(format_args!(
                "task {} is in terminal state {}",
                task.id,
                task.status.state.name()
            )));
        }
        if !message.context_id.is_empty()
            && message.context_id != task.context_id
            && !self.has(Fault::AcceptMismatchedContextId)
        {
            let detail = format!(
                "contextId `{}` does not match the contextId of task {}",
                message.context_id, task.id
            );
            if self.has(Fault::MismatchedContextInternalError) {
                return Err(RpcError::internal(detail));
            }
            return Err(RpcError::invalid_param("message.contextId", detail));
        }
        if self.has(Fault::FollowUpStartsNewTask) {
            let mut message = message;
            message.context_id = task.context_id.clone();
            return Ok(self.start(state, message, scenario, streaming));
        }
        self.continue_task(state, message, scenario, streaming)
    }

    /// The contextId for a new task or a task-less reply.
    fn new_context_id(&self, state: &mut State, requested: &str) -> String {
        if !requested.is_empty() && !self.has(Fault::ReplaceContextId) {
            requested.to_owned()
        } else if requested.is_empty() && self.has(Fault::OmitContextId) {
            String::new()
        } else {
            state.ids.context()
        }
    }

    /// Whether a terminal status reached while streaming is stored.
    fn stores_terminal(&self, streaming: bool) -> bool {
        !(streaming && self.has(Fault::StreamStateNotStored))
    }

    fn start(
        &self,
        state: &mut State,
        mut message: Message,
        scenario: &Scenario,
        streaming: bool,
    ) -> (SendReply, Vec<Event>) {
        let context_id = self.new_context_id(state, &message.context_id);
        let Some(outcome) = &scenario.task else {
            let reply = agent_message(state, &context_id, "", scenario_text(scenario));
            return (
                SendReply::Message(reply.clone()),
                vec![Event::Message(reply)],
            );
        };
        let id = if self.has(Fault::ReuseTaskId) {
            "task-000001".to_owned()
        } else {
            state.ids.task()
        };
        message.task_id.clone_from(&id);
        message.context_id.clone_from(&context_id);
        let task = Task {
            id: id.clone(),
            context_id,
            status: TaskStatus {
                state: TaskState::Submitted,
                message: None,
                timestamp: state.clock.now(),
            },
            artifacts: Vec::new(),
            history: vec![message],
        };
        let mut events = vec![Event::Task(task.clone())];
        let mut record = Record {
            initial: task.clone(),
            task,
            created: state.ids.sequence(),
            release: None,
            feed: None,
            subscribers: 0,
        };
        let mut out = Emitter::new(&mut record.task, None, self.stores_terminal(streaming));
        record.release = self.run(state, &mut out, outcome);
        events.extend(out.events);
        let reply = SendReply::Task(record.task.clone());
        state.tasks.insert(id, record);
        (reply, events)
    }

    fn continue_task(
        &self,
        state: &mut State,
        mut message: Message,
        scenario: &Scenario,
        streaming: bool,
    ) -> Result<(SendReply, Vec<Event>), RpcError> {
        let Some(record) = state.tasks.get_mut(&message.task_id) else {
            return Err(RpcError::task_not_found(&message.task_id));
        };
        let mut task = record.task.clone();
        let feed = record.feed.clone();
        // A held task is released by any follow-up, whatever its own scenario.
        let release = record.release.take();
        if message.context_id.is_empty() && self.has(Fault::FollowUpNewContextId) {
            task.context_id = state.ids.context();
        }
        message.context_id.clone_from(&task.context_id);
        task.history.push(message);
        let (reply, events, held) = match release.as_ref().or(scenario.task.as_ref()) {
            Some(outcome) => {
                let mut events = vec![Event::Task(task.clone())];
                let mut out = Emitter::new(&mut task, feed, self.stores_terminal(streaming));
                let held = self.run(state, &mut out, outcome);
                events.extend(out.events);
                (SendReply::Task(task.clone()), events, held)
            }
            None => {
                let reply =
                    agent_message(state, &task.context_id, &task.id, scenario_text(scenario));
                task.history.push(reply.clone());
                let events = vec![Event::Message(reply.clone())];
                (SendReply::Message(reply), events, None)
            }
        };
        if let Some(record) = state.tasks.get_mut(&task.id) {
            record.task = task;
            record.release = held;
        }
        Ok((reply, events))
    }

    /// Runs a task scenario: WORKING, the artifacts, then the final status.
    /// A held scenario stops in WORKING and returns the outcome that releases it.
    fn run(
        &self,
        state: &mut State,
        out: &mut Emitter<'_>,
        outcome: &TaskOutcome,
    ) -> Option<TaskOutcome> {
        let (task_id, context_id) = (out.task.id.clone(), out.task.context_id.clone());
        let held = outcome.release.is_some();
        if out.task.status.state != TaskState::Working || held {
            let message =
                held.then(|| agent_message(state, &context_id, &task_id, &outcome.status_text));
            out.status(TaskState::Working, message, state.clock.now());
        }
        for template in &outcome.artifacts {
            let artifact = |parts: Vec<Part>| Artifact {
                artifact_id: format!("artifact-{}", out.task.artifacts.len() + 1),
                name: template.name.clone(),
                description: String::new(),
                parts,
            };
            if template.chunked {
                let first = artifact(template.parts.iter().take(1).cloned().collect());
                let last = template.parts.len().saturating_sub(1);
                for (i, part) in template.parts.iter().enumerate() {
                    let chunk = Artifact {
                        parts: vec![part.clone()],
                        ..first.clone()
                    };
                    let append = i > 0 && !(i == 1 && self.has(Fault::StreamChunkAppendWrong));
                    let last_chunk = i == last && !self.has(Fault::StreamChunkNoLastChunk);
                    out.artifact(chunk, append, last_chunk);
                }
            } else {
                let whole = artifact(template.parts.clone());
                out.artifact(whole, false, true);
            }
        }
        if let Some(release) = &outcome.release {
            return Some((**release).clone());
        }
        let message = agent_message(state, &context_id, &task_id, &outcome.status_text);
        out.status(outcome.state, Some(message), state.clock.now());
        None
    }

    /// GetTask: the stored task, if any.
    pub fn get(&self, id: &str) -> Option<Task> {
        let state = self.lock();
        let record = state.tasks.get(id)?;
        if self.has(Fault::GetStaleState) {
            return Some(record.initial.clone());
        }
        Some(record.task.clone())
    }

    /// CancelTask.
    pub fn cancel(&self, id: &str) -> Result<Task, RpcError> {
        let mut state = self.lock();
        let State { clock, tasks, .. } = &mut *state;
        let Some(record) = tasks.get_mut(id) else {
            if self.has(Fault::CancelUnknownReturnsNotCancelable) {
                return Err(RpcError::task_not_cancelable(id, "unknown"));
            }
            return Err(RpcError::task_not_found(id));
        };
        let before = record.task.clone();
        let terminal = before.status.state.is_terminal();
        if (terminal && !self.has(Fault::CancelCompletedTaskSucceeds))
            || (!terminal && self.has(Fault::CancelOpenTaskNotCancelable))
        {
            return Err(RpcError::task_not_cancelable(
                id,
                before.status.state.name(),
            ));
        }
        if self.has(Fault::CancelNotPersisted) {
            let mut canceled = before;
            canceled.status = TaskStatus {
                state: TaskState::Canceled,
                message: None,
                timestamp: clock.now(),
            };
            return Ok(canceled);
        }
        record.release = None;
        let feed = record.feed.clone();
        Emitter::new(&mut record.task, feed, true).status(TaskState::Canceled, None, clock.now());
        if self.has(Fault::CancelReturnsPreviousState) {
            return Ok(before);
        }
        Ok(record.task.clone())
    }

    /// ListTasks: filter, sort (most recently updated first) and page.
    pub fn list(&self, query: &ListQuery) -> Result<ListPage, RpcError> {
        let mut state = self.lock();
        let cursor = match query.page_token.as_deref() {
            None | Some("") => None,
            Some(token) => Some(*state.page_tokens.get(token).ok_or_else(|| {
                RpcError::invalid_param("pageToken", format!("unknown page token `{token}`"))
            })?),
        };
        let ascending = self.has(Fault::ListAscending);
        let order = |a: Key, b: Key| if ascending { a.cmp(&b) } else { b.cmp(&a) };
        let context_filter = query
            .context_id
            .as_ref()
            .filter(|_| !self.has(Fault::ListIgnoresContextFilter));
        let mut matches: Vec<&Record> = state
            .tasks
            .values()
            .filter(|r| {
                let task = &r.task;
                context_filter.is_none_or(|c| *c == task.context_id)
                    && query.status.is_none_or(|s| s == task.status.state)
                    && query
                        .status_timestamp_after
                        .filter(|_| !self.has(Fault::ListIgnoresTimestampFilter))
                        .is_none_or(|t| task.status.timestamp >= t)
            })
            .collect();
        matches.sort_by(|a, b| order(a.key(), b.key()));
        let start = cursor.map_or(0, |cursor| {
            matches
                .iter()
                .position(|r| order(r.key(), cursor) == Ordering::Greater)
                .unwrap_or(matches.len())
        });
        let page_size = if self.has(Fault::ListIgnoresPageSize) {
            usize::MAX
        } else {
            query.page_size
        };
        let page: Vec<&Record> = matches
            .iter()
            .skip(start)
            .take(page_size)
            .copied()
            .collect();
        let more = start + page.len() < matches.len();
        let last_key = page.last().map(|r| r.key());
        let total_size = matches.len();
        let tasks = page.iter().map(|r| r.task.clone()).collect();
        let next_page_token = match (more, last_key) {
            (true, Some(key)) => {
                let token = state.ids.page_token();
                state.page_tokens.insert(token.clone(), key);
                Some(token)
            }
            _ => None,
        };
        Ok(ListPage {
            tasks,
            next_page_token,
            total_size,
        })
    }
}

fn scenario_text(scenario: &Scenario) -> &str {
    scenario.message.as_ref().map_or("", |m| m.text.as_str())
}

fn agent_message(state: &mut State, context_id: &str, task_id: &str, text: &str) -> Message {
    Message {
        message_id: state.ids.message(),
        context_id: context_id.to_owned(),
        task_id: task_id.to_owned(),
        role: Role::Agent,
        parts: vec![Part::text(text)],
        ..Message::default()
    }
}

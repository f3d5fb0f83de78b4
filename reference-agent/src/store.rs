//! The in-memory task store and the task state machine.
//!
//! Every operation runs to completion under one lock: scenarios are scripted
//! and synchronous, so there is no background work.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, PoisonError};

use crate::clock::{Clock, Ids, Timestamp};
use crate::error::RpcError;
use crate::fault::Fault;
use crate::model::{Artifact, Message, Part, Role, Task, TaskState, TaskStatus};
use crate::scenario::{Scenario, Scenarios, TaskOutcome};
use crate::AgentConfig;

/// What SendMessage produced.
#[derive(Debug, Clone, PartialEq)]
pub enum SendReply {
    Task(Task),
    Message(Message),
}

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
}

impl Record {
    fn key(&self) -> Key {
        (self.task.status.timestamp, self.created)
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
        let scenario = self
            .scenarios
            .select(&message.message_id)
            .ok_or_else(|| RpcError::internal("scenario table has no default"))?;
        let mut state = self.lock();
        if message.task_id.is_empty() {
            return Ok(self.start(&mut state, message, scenario, blocking));
        }
        let Some(record) = state.tasks.get(&message.task_id) else {
            if self.has(Fault::UnknownTaskIdCreatesTask) {
                return Ok(self.start(&mut state, message, scenario, blocking));
            }
            return Err(RpcError::task_not_found(&message.task_id));
        };
        let task = &record.task;
        if task.status.state.is_terminal() {
            if self.has(Fault::TerminalTaskAcceptsMessage) {
                return Ok(SendReply::Task(task.clone()));
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
            return Ok(self.start(&mut state, message, scenario, blocking));
        }
        self.continue_task(&mut state, message, scenario, blocking)
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

    fn start(
        &self,
        state: &mut State,
        mut message: Message,
        scenario: &Scenario,
        blocking: bool,
    ) -> SendReply {
        let context_id = self.new_context_id(state, &message.context_id);
        let Some(outcome) = &scenario.task else {
            return SendReply::Message(agent_message(
                state,
                &context_id,
                "",
                scenario_text(scenario),
            ));
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
        let mut record = Record {
            initial: task.clone(),
            task,
            created: state.ids.sequence(),
        };
        let reply = self.run(state, &mut record.task, outcome, blocking);
        state.tasks.insert(id, record);
        SendReply::Task(reply)
    }

    fn continue_task(
        &self,
        state: &mut State,
        mut message: Message,
        scenario: &Scenario,
        blocking: bool,
    ) -> Result<SendReply, RpcError> {
        let Some(mut task) = state.tasks.get(&message.task_id).map(|r| r.task.clone()) else {
            return Err(RpcError::task_not_found(&message.task_id));
        };
        if message.context_id.is_empty() && self.has(Fault::FollowUpNewContextId) {
            task.context_id = state.ids.context();
        }
        message.context_id.clone_from(&task.context_id);
        task.history.push(message);
        let reply = match &scenario.task {
            Some(outcome) => SendReply::Task(self.run(state, &mut task, outcome, blocking)),
            None => {
                let reply =
                    agent_message(state, &task.context_id, &task.id, scenario_text(scenario));
                task.history.push(reply.clone());
                SendReply::Message(reply)
            }
        };
        if let Some(record) = state.tasks.get_mut(&task.id) {
            record.task = task;
        }
        Ok(reply)
    }

    /// Runs a task scenario to its end; returns the snapshot to send back.
    fn run(
        &self,
        state: &mut State,
        task: &mut Task,
        outcome: &TaskOutcome,
        blocking: bool,
    ) -> Task {
        let working = (blocking && self.has(Fault::BlockingReturnsWorking)).then(|| {
            let mut snapshot = task.clone();
            snapshot.status = TaskStatus {
                state: TaskState::Working,
                message: None,
                timestamp: state.clock.now(),
            };
            snapshot
        });
        for template in &outcome.artifacts {
            let artifact_id = format!("artifact-{}", task.artifacts.len() + 1);
            task.artifacts.push(Artifact {
                artifact_id,
                name: template.name.clone(),
                description: String::new(),
                parts: template.parts.clone(),
            });
        }
        let status_message = agent_message(state, &task.context_id, &task.id, &outcome.status_text);
        task.history.push(status_message.clone());
        task.status = TaskStatus {
            state: outcome.state,
            message: Some(status_message),
            timestamp: state.clock.now(),
        };
        working.unwrap_or_else(|| task.clone())
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
        let mut canceled = before.clone();
        canceled.status = TaskStatus {
            state: TaskState::Canceled,
            message: None,
            timestamp: clock.now(),
        };
        if self.has(Fault::CancelNotPersisted) {
            return Ok(canceled);
        }
        record.task = canceled.clone();
        if self.has(Fault::CancelReturnsPreviousState) {
            return Ok(before);
        }
        Ok(canceled)
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

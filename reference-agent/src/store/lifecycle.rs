//! The task state machine: SendMessage (start a task, continue one, or answer with a
//! Message), SubscribeToTask and CancelTask, with the choices the policy makes.

use super::playback::{agent_message, scenario_text, Emitter};
use super::{Feed, OnStart, Record, SendReply, State, Store};
use crate::error::RpcError;
use crate::model::{Event, Message, Task, TaskState, TaskStatus};
use crate::policy::{
    AbsentContext, CancelAfterwards, CancelTerminal, ClientContext, MismatchedContext,
};
use crate::scenario::Scenario;
use crate::version::Version;

impl Store {
    /// SendMessage: start a task, continue one, or answer with a Message; `on_start` is
    /// called with the task's id before its scenario runs (a push config sent inline is
    /// registered then).
    pub fn send_with(
        &self,
        message: Message,
        blocking: bool,
        on_start: Option<OnStart>,
    ) -> Result<SendReply, RpcError> {
        let mut state = self.lock();
        state.on_start = on_start;
        let processed = self.process(&mut state, message, false);
        state.on_start = None;
        let (mut reply, _) = processed?;
        if let SendReply::Task(task) = &mut reply {
            let failed = task.status.state == TaskState::Failed;
            if blocking && failed && self.policy.tasks.failed_work_stays_working {
                // The work a blocking send waited on failed and nothing records it: the task
                // stays WORKING for good.
                task.status.state = TaskState::Working;
                if let Some(record) = state.tasks.get_mut(&task.id) {
                    record.task.status.state = TaskState::Working;
                }
            }
        }
        self.persist_reply(&mut state, &reply);
        Ok(match reply {
            SendReply::Task(mut task) if blocking && self.policy.tasks.blocking_returns_working => {
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
    /// `on_start` as for [`Store::send_with`].
    pub fn send_streaming(
        &self,
        message: Message,
        on_start: Option<OnStart>,
    ) -> Result<Feed, RpcError> {
        let mut state = self.lock();
        state.on_start = on_start;
        let processed = self.process(&mut state, message, true);
        state.on_start = None;
        let (reply, events) = processed?;
        self.persist_reply(&mut state, &reply);
        let live = match (&reply, events.last()) {
            (SendReply::Task(task), Some(last)) if !last.ends_stream() => {
                state.tasks.get_mut(&task.id).map(Record::listen)
            }
            _ => None,
        };
        Ok(Feed {
            events,
            live,
            sender: None,
        })
    }

    /// SubscribeToTask: the current Task, then its live feed.
    pub fn subscribe(&self, id: &str) -> Result<Feed, RpcError> {
        let mut state = self.lock();
        let Some(record) = state.tasks.get_mut(id) else {
            if self.policy.subscribe.unknown_invalid_params {
                return Err(RpcError::invalid_param("id", format!("no task `{id}`")));
            }
            return Err(RpcError::task_not_found(id));
        };
        let snapshot = record.task.clone();
        let state_now = snapshot.status.state;
        let events = vec![Event::Task(snapshot)];
        if state_now.is_terminal() {
            if self.policy.subscribe.terminal_snapshot {
                return Ok(Feed {
                    events,
                    live: None,
                    sender: None,
                });
            }
            return Err(RpcError::unsupported_operation(format_args!(
                "task {id} is in terminal state {}",
                state_now.name()
            )));
        }
        record.subscribers += 1;
        let live = if self.policy.subscribe.first_subscriber_only && record.subscribers > 1 {
            None
        } else {
            Some(record.listen())
        };
        let sender = record.feed.clone();
        Ok(Feed {
            events,
            live,
            sender,
        })
    }

    /// Writes what a message changed through to the durable store (and notes its context).
    fn persist_reply(&self, state: &mut State, reply: &SendReply) {
        match reply {
            SendReply::Task(task) => {
                self.know_context(state, &task.context_id);
                self.persist(state, &task.id);
            }
            SendReply::Message(message) => self.know_context(state, &message.context_id),
        }
    }

    /// The reply to a message and the events it generated, in order (for a
    /// task: its snapshot first; for a direct reply: the one Message).
    fn process(
        &self,
        state: &mut State,
        message: Message,
        streaming: bool,
    ) -> Result<(SendReply, Vec<Event>), RpcError> {
        // A follow-up on a task started the ACTS way is plain text (`done` or another turn).
        let acts_task = state
            .tasks
            .get(&message.task_id)
            .and_then(|r| r.initial.history.first())
            .is_some_and(|first| self.scenarios.is_acts(first));
        let waiting = state
            .tasks
            .get(&message.task_id)
            .is_some_and(|r| r.task.status.state == crate::model::TaskState::InputRequired);
        let scenario = if self.scenarios.product && waiting {
            self.scenarios.approval_answer(&message, &message.task_id)
        } else {
            self.scenarios.select_message(&message, acts_task)
        }
        .ok_or_else(|| RpcError::internal("scenario table has no default"))?;
        let policy = &self.policy.tasks;
        if self.strict_contexts
            && message.task_id.is_empty()
            && !message.context_id.is_empty()
            && !state.contexts.contains(&message.context_id)
        {
            return Err(RpcError::invalid_param(
                "message.contextId",
                format!("unknown contextId `{}`", message.context_id),
            ));
        }
        if message.task_id.is_empty() {
            return Ok(self.start(state, message, scenario, streaming));
        }
        let Some(record) = state.tasks.get(&message.task_id) else {
            if policy.unknown_task_starts_task {
                return Ok(self.start(state, message, scenario, streaming));
            }
            return Err(RpcError::task_not_found(&message.task_id));
        };
        let task = &record.task;
        if task.status.state.is_terminal() && !policy.terminal_task_restarts {
            if policy.terminal_task_accepts_message {
                let task = task.clone();
                return Ok((SendReply::Task(task.clone()), vec![Event::Task(task)]));
            }
            return Err(RpcError::unsupported_operation(format_args!(
                "task {} is in terminal state {}",
                task.id,
                task.status.state.name()
            )));
        }
        if !message.context_id.is_empty() && message.context_id != task.context_id {
            let detail = format!(
                "contextId `{}` does not match the contextId of task {}",
                message.context_id, task.id
            );
            match policy.mismatched_context_id {
                MismatchedContext::Accept => {}
                MismatchedContext::Internal => return Err(RpcError::internal(detail)),
                MismatchedContext::InvalidParams => {
                    return Err(RpcError::invalid_param("message.contextId", detail))
                }
            }
        }
        if policy.follow_up_starts_new_task {
            let mut message = message;
            message.context_id = task.context_id.clone();
            return Ok(self.start(state, message, scenario, streaming));
        }
        self.continue_task(state, message, scenario, streaming)
    }

    /// The contextId for a new task or a task-less reply.
    fn new_context_id(&self, state: &mut State, requested: &str) -> String {
        let policy = &self.policy.tasks;
        if !requested.is_empty() && policy.client_context_id == ClientContext::Keep {
            requested.to_owned()
        } else if requested.is_empty() && policy.absent_context_id == AbsentContext::Omit {
            String::new()
        } else {
            state.ids.context()
        }
    }

    /// Whether a terminal status reached while streaming is stored.
    fn stores_terminal(&self, streaming: bool) -> bool {
        !streaming || self.policy.tasks.streamed_terminal_stored
    }

    fn start(
        &self,
        state: &mut State,
        mut message: Message,
        scenario: &Scenario,
        streaming: bool,
    ) -> (SendReply, Vec<Event>) {
        let context_id = self.new_context_id(state, &message.context_id);
        let timer = self.scenarios.release_timer(&message);
        let Some(outcome) = &scenario.task else {
            let reply = agent_message(state, &context_id, "", scenario_text(scenario));
            return (
                SendReply::Message(reply.clone()),
                vec![Event::Message(reply)],
            );
        };
        let id = if self.policy.tasks.reuse_task_id {
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
            history: if self.policy.tasks.first_message_twice {
                vec![message.clone(), message]
            } else {
                vec![message]
            },
        };
        let mut events = vec![Event::Task(task.clone())];
        let mut record = Record {
            initial: task.clone(),
            task,
            created: state.ids.sequence(),
            release: None,
            feed: None,
            subscribers: 0,
            origin: Version::V1_0,
        };
        let mut out = Emitter::new(&mut record.task, None, self.stores_terminal(streaming))
            .notify(self.hook.clone());
        if let Some(on_start) = state.on_start.take() {
            on_start(&id);
        }
        record.release = self.run(state, &mut out, outcome);
        events.extend(out.events);
        if let (Some(after), Some(_)) = (timer, &record.release) {
            self.release_after(&id, after);
        }
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
        if let Some(on_start) = state.on_start.take() {
            if state.tasks.contains_key(&message.task_id) {
                on_start(&message.task_id);
            }
        }
        let Some(record) = state.tasks.get_mut(&message.task_id) else {
            return Err(RpcError::task_not_found(&message.task_id));
        };
        let mut task = record.task.clone();
        let feed = record.feed.clone();
        // A held task is released by any follow-up, whatever its own scenario.
        let release = record.release.take();
        let named_no_context = message.context_id.is_empty();
        if named_no_context && self.policy.tasks.follow_up_fresh_context_id {
            task.context_id = state.ids.context();
        }
        message.context_id.clone_from(&task.context_id);
        if named_no_context && self.policy.tasks.follow_up_stored_fresh_context_id {
            message.context_id = state.ids.context();
        }
        task.history.push(message);
        let (reply, events, held) = match release.as_ref().or(scenario.task.as_ref()) {
            Some(outcome) => {
                let mut events = vec![Event::Task(task.clone())];
                let mut out = Emitter::new(&mut task, feed, self.stores_terminal(streaming))
                    .notify(self.hook.clone());
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

    /// CancelTask.
    pub fn cancel(&self, id: &str) -> Result<Task, RpcError> {
        let policy = &self.policy.cancel;
        let mut state = self.lock();
        let State { clock, tasks, .. } = &mut *state;
        let Some(record) = tasks.get_mut(id) else {
            if policy.unknown_not_cancelable {
                return Err(RpcError::task_not_cancelable(id, "unknown"));
            }
            return Err(RpcError::task_not_found(id));
        };
        let before = record.task.clone();
        let current = before.status.state;
        let not_cancelable = || Err(RpcError::task_not_cancelable(id, current.name()));
        let on_terminal = match current {
            TaskState::Canceled => Some(policy.canceled),
            state if state.is_terminal() => Some(policy.terminal),
            _ if policy.open_refused => return not_cancelable(),
            _ => None,
        };
        match on_terminal {
            Some(CancelTerminal::NotCancelable) => return not_cancelable(),
            Some(CancelTerminal::NotFound) => return Err(RpcError::task_not_found(id)),
            Some(CancelTerminal::ReturnTask) => return Ok(before),
            Some(CancelTerminal::Cancel) | None => {}
        }
        if policy.afterwards != CancelAfterwards::Canceled {
            record.release = None;
            let feed = record.feed.clone();
            let open = record.task.clone();
            Emitter::new(&mut record.task, feed, true)
                .notify(self.hook.clone())
                .status(TaskState::Completed, None, clock.now());
            let mut answer = open;
            if policy.afterwards == CancelAfterwards::CompletedAnsweredCanceled {
                answer.status = TaskStatus {
                    state: TaskState::Canceled,
                    message: None,
                    timestamp: clock.now(),
                };
            }
            self.persist(&state, id);
            return Ok(answer);
        }
        if !policy.stored {
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
        Emitter::new(&mut record.task, feed, true)
            .notify(self.hook.clone())
            .status(TaskState::Canceled, None, clock.now());
        let canceled = record.task.clone();
        self.persist(&state, id);
        if policy.answers_previous_state {
            return Ok(before);
        }
        Ok(canceled)
    }
}

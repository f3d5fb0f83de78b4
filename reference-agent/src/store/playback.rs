//! Scenario playback: runs a scripted task scenario (WORKING, the artifacts, possibly in
//! chunks, then the final status) as events applied to the task and sent to its live feed.

use tokio::sync::broadcast;

use super::{State, Store};
use crate::clock::Timestamp;
use crate::model::{
    Artifact, ArtifactUpdate, Event, Message, Part, Role, StatusUpdate, Task, TaskState, TaskStatus,
};
use crate::scenario::{Scenario, TaskOutcome};

/// Applies events to a task as they are generated, records them, and passes
/// them to the task's live feed.
pub(super) struct Emitter<'a> {
    pub(super) task: &'a mut Task,
    feed: Option<broadcast::Sender<Event>>,
    pub(super) events: Vec<Event>,
    store_terminal: bool,
    /// Told of every update as it is applied (push delivery).
    hook: Option<super::UpdateHook>,
}

impl<'a> Emitter<'a> {
    pub(super) fn new(
        task: &'a mut Task,
        feed: Option<broadcast::Sender<Event>>,
        store_terminal: bool,
    ) -> Self {
        Emitter {
            task,
            feed,
            events: Vec::new(),
            store_terminal,
            hook: None,
        }
    }

    /// With the hook told of every update (push delivery).
    pub(super) fn notify(mut self, hook: Option<super::UpdateHook>) -> Self {
        self.hook = hook;
        self
    }

    pub(super) fn status(
        &mut self,
        state: TaskState,
        message: Option<Message>,
        timestamp: Timestamp,
    ) {
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
        self.artifact_flagged(artifact, append, append, last_chunk);
    }

    /// Adds an artifact as `append` says, and sends it with the flag `flag`.
    fn artifact_flagged(&mut self, artifact: Artifact, append: bool, flag: bool, last_chunk: bool) {
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
            append: flag,
            last_chunk,
        }));
    }

    fn emit(&mut self, event: Event) {
        if let Some(hook) = &self.hook {
            hook(self.task, &event);
        }
        if let Some(feed) = &self.feed {
            // No receivers is fine: nobody is listening right now.
            let _ = feed.send(event.clone());
        }
        self.events.push(event);
    }
}

impl Store {
    /// Runs a task scenario: WORKING, the artifacts, then the final status.
    /// A held scenario stops in WORKING and returns the outcome that releases it.
    pub(super) fn run(
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
                let policy = &self.policy.tasks;
                for (i, part) in template.parts.iter().enumerate() {
                    let chunk = Artifact {
                        parts: vec![part.clone()],
                        ..first.clone()
                    };
                    let flag = i > 0 && (i != 1 || policy.second_chunk_appends);
                    let last_chunk =
                        i == last && policy.last_chunk_flagged && !policy.chunks_replaced_at_end;
                    out.artifact_flagged(chunk, i > 0, flag, last_chunk);
                }
                if policy.chunks_replaced_at_end {
                    let whole = Artifact {
                        parts: template.parts.clone(),
                        ..first.clone()
                    };
                    out.artifact(whole, false, true);
                }
            } else {
                let whole = artifact(template.parts.clone());
                out.artifact(whole, false, true);
            }
        }
        if let Some(release) = &outcome.release {
            return Some((**release).clone());
        }
        let mut message = agent_message(state, &context_id, &task_id, &outcome.status_text);
        if self.scenarios.product && outcome.state == TaskState::InputRequired {
            // What an approval step asks for: the id the answer must carry.
            message.parts.push(Part {
                data: Some(serde_json::json!({
                    "approvalId": crate::scenario::approval_id(&task_id),
                    "action": "the request needs an approval"
                })),
                media_type: "application/json".to_owned(),
                ..Part::default()
            });
        }
        out.status(outcome.state, Some(message), state.clock.now());
        None
    }
}

pub(super) fn scenario_text(scenario: &Scenario) -> &str {
    scenario.message.as_ref().map_or("", |m| m.text.as_str())
}

pub(super) fn agent_message(
    state: &mut State,
    context_id: &str,
    task_id: &str,
    text: &str,
) -> Message {
    Message {
        message_id: state.ids.message(),
        context_id: context_id.to_owned(),
        task_id: task_id.to_owned(),
        role: Role::Agent,
        parts: vec![Part::text(text)],
        ..Message::default()
    }
}

//! The scripted scenarios, kept as data in `fixtures/scenarios.json` and
//! selected by the longest matching prefix of `message.messageId`, or, for a messageId that
//! matches none, by the ACTS prefix that starts the first text part (the ACTS contract).

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::model::{Message, Part, TaskState};
use crate::policy::ScenarioSet;

const FIXTURE: &str = include_str!("../../fixtures/scenarios.json");

/// The messageId prefixes of the official A2A TCK's scenario table (its 1.0 SUT contract);
/// the others of `fixtures/scenarios.json` are this kit's own.
pub const OFFICIAL_PREFIXES: &[&str] = &[
    "tck-complete-task",
    "tck-input-required",
    "tck-artifact-text",
    "tck-artifact-file",
    "tck-artifact-file-url",
    "tck-artifact-data",
    "tck-message-response",
    "tck-reject-task",
    "tck-stream-001",
    "tck-stream-002",
    "tck-stream-003",
    "tck-stream-ordering-001",
    "tck-stream-artifact-text",
    "tck-stream-artifact-file",
    "tck-stream-artifact-chunked",
];

/// What the agent does for one messageId prefix.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenario {
    pub prefix: String,
    pub description: String,
    /// Run a task to this outcome (exactly one of `task` / `message`).
    #[serde(default)]
    pub task: Option<TaskOutcome>,
    /// Reply with a direct Message instead of a task.
    #[serde(default)]
    pub message: Option<MessageOutcome>,
}

/// The final state of a task scenario.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct TaskOutcome {
    pub state: TaskState,
    /// Text of the agent's status message.
    pub status_text: String,
    #[serde(default)]
    pub artifacts: Vec<ArtifactTemplate>,
    /// Only with `state` TASK_STATE_WORKING: the task is held there (no timer)
    /// until a follow-up message applies this outcome, or it is canceled.
    #[serde(default)]
    pub release: Option<Box<TaskOutcome>>,
}

/// An artifact to add; the store assigns its id.
#[derive(Debug, Clone, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ArtifactTemplate {
    pub name: String,
    pub parts: Vec<Part>,
    /// Stream each part as its own artifactUpdate chunk (append, lastChunk).
    #[serde(default)]
    pub chunked: bool,
}

/// A direct Message reply.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MessageOutcome {
    pub text: String,
}

/// The parsed and validated scenario table.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Scenarios {
    pub description: String,
    pub default_prefix: String,
    /// The ACTS vocabulary; `None` once the table is restricted to one convention.
    #[serde(default)]
    pub acts: Option<Acts>,
    /// Whether messageId prefixes are matched (off when only ACTS is played).
    #[serde(skip, default = "yes")]
    pub by_message_id: bool,
    /// No contract at all: the words of the request decide, as for a product agent.
    #[serde(skip)]
    pub product: bool,
    pub scenarios: Vec<Scenario>,
}

fn yes() -> bool {
    true
}

/// The ACTS contract's prefixes, each playing a scenario of the table.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Acts {
    pub description: String,
    /// The follow-up text that completes a task started the ACTS way.
    pub done: String,
    pub prefixes: Vec<ActsPrefix>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ActsPrefix {
    pub prefix: String,
    pub plays: String,
    /// For a held scenario: the agent releases the task itself after this many
    /// milliseconds, as a follow-up would (ACTS `tck-long-running`).
    #[serde(default)]
    pub release_after_ms: Option<u64>,
}

/// The id of the approval a product agent's task waits for.
pub fn approval_id(task_id: &str) -> String {
    format!("approval-{task_id}")
}

/// The text of a message's first part, when that part is text.
pub fn first_text(message: &Message) -> Option<&str> {
    message.parts.first().and_then(|p| p.text.as_deref())
}

impl Scenarios {
    /// The table compiled into the agent.
    pub fn builtin() -> Result<Self, String> {
        Self::parse(FIXTURE)
    }

    /// Parses and validates a scenario table.
    pub fn parse(text: &str) -> Result<Self, String> {
        let table: Scenarios =
            serde_json::from_str(text).map_err(|e| format!("scenario table: {e}"))?;
        table.validate()?;
        Ok(table)
    }

    /// The table restricted to `set`: with [`ScenarioSet::Official`] only the official
    /// prefixes remain, so any other gets the default scenario.
    pub fn only(mut self, set: ScenarioSet) -> Self {
        match set {
            ScenarioSet::All => {}
            ScenarioSet::Official => {
                self.scenarios
                    .retain(|s| OFFICIAL_PREFIXES.contains(&s.prefix.as_str()));
                self.acts = None;
            }
            ScenarioSet::Acts => self.by_message_id = false,
            ScenarioSet::Product => {
                self.by_message_id = false;
                self.acts = None;
                self.product = true;
            }
        }
        self
    }

    fn validate(&self) -> Result<(), String> {
        if self.description.trim().is_empty() {
            return Err("the table needs a description".to_owned());
        }
        let mut prefixes = BTreeSet::new();
        for scenario in &self.scenarios {
            let prefix = &scenario.prefix;
            if !prefix.starts_with("tck-") {
                return Err(format!("prefix `{prefix}` must start with `tck-`"));
            }
            if scenario.description.trim().is_empty() {
                return Err(format!("`{prefix}` needs a description"));
            }
            if !prefixes.insert(prefix.as_str()) {
                return Err(format!("prefix `{prefix}` appears twice"));
            }
            match (&scenario.task, &scenario.message) {
                (Some(task), None) => validate_outcome(prefix, task, false)?,
                (None, Some(message)) if !message.text.is_empty() => {}
                _ => {
                    return Err(format!(
                        "`{prefix}`: set exactly one of `task` or `message` (with non-empty text)"
                    ))
                }
            }
        }
        if let Some(acts) = &self.acts {
            if acts.description.trim().is_empty() || acts.done.trim().is_empty() {
                return Err("the ACTS table needs a description and a `done` text".to_owned());
            }
            for p in &acts.prefixes {
                let held = (self.named(&p.plays).and_then(|s| s.task.as_ref()))
                    .is_some_and(|t| t.release.is_some());
                if p.release_after_ms.is_some() && !held {
                    return Err(format!(
                        "ACTS prefix `{}` sets releaseAfterMs, but `{}` is not a held scenario",
                        p.prefix, p.plays
                    ));
                }
                if !p.prefix.starts_with("tck-") || !prefixes.contains(p.plays.as_str()) {
                    return Err(format!(
                        "ACTS prefix `{}` must start with `tck-` and play a scenario of the table",
                        p.prefix
                    ));
                }
            }
        }
        if !prefixes.contains(self.default_prefix.as_str()) {
            return Err(format!(
                "defaultPrefix `{}` names no scenario",
                self.default_prefix
            ));
        }
        Ok(())
    }

    /// The scenario for a messageId: the longest matching prefix, else the
    /// default (always present in a validated table).
    #[cfg(test)]
    pub fn select(&self, message_id: &str) -> Option<&Scenario> {
        self.by_id(message_id)
            .or_else(|| self.named(&self.default_prefix))
    }

    /// The scenario for a message: its messageId's prefix; else the ACTS prefix its first
    /// text part starts with; else, for a follow-up on a task whose first message was
    /// ACTS-driven (`acts_task`), `done` completes it and any other turn keeps it asking for
    /// input; else the default.
    pub fn select_message(&self, message: &Message, acts_task: bool) -> Option<&Scenario> {
        if self.product {
            let text = first_text(message).unwrap_or_default().to_ascii_lowercase();
            let words = [
                ("approve", "tck-input-required"),
                ("fail", "tck-fail-task"),
                ("wait", "tck-long-running"),
            ];
            let named = words.iter().find(|(w, _)| text.contains(w));
            return self.named(named.map_or(self.default_prefix.as_str(), |(_, s)| s));
        }
        if let Some(found) = self.by_id(&message.message_id) {
            return Some(found);
        }
        if let Some(found) = self.by_text(message) {
            return Some(found);
        }
        match &self.acts {
            Some(acts) if acts_task => {
                let done = first_text(message).is_some_and(|t| t.trim() == acts.done);
                self.named(if done {
                    &self.default_prefix
                } else {
                    "tck-input-required"
                })
            }
            _ => self.named(&self.default_prefix),
        }
    }

    /// Whether `message` starts a task the ACTS way (its first text part names an ACTS
    /// prefix, its messageId none).
    pub fn is_acts(&self, message: &Message) -> bool {
        self.by_id(&message.message_id).is_none() && self.by_text(message).is_some()
    }

    /// For a message that starts a held task the ACTS way with a timer: when the agent
    /// releases the task by itself.
    pub fn release_timer(&self, message: &Message) -> Option<std::time::Duration> {
        if self.by_id(&message.message_id).is_some() {
            return None;
        }
        let text = first_text(message)?;
        let acts = self.acts.as_ref()?;
        let best = (acts.prefixes.iter())
            .filter(|p| text.starts_with(&p.prefix))
            .max_by_key(|p| p.prefix.len())?;
        best.release_after_ms.map(std::time::Duration::from_millis)
    }

    fn by_id(&self, message_id: &str) -> Option<&Scenario> {
        if !self.by_message_id {
            return None;
        }
        self.scenarios
            .iter()
            .filter(|s| message_id.starts_with(&s.prefix))
            .max_by_key(|s| s.prefix.len())
    }

    fn by_text(&self, message: &Message) -> Option<&Scenario> {
        let text = first_text(message)?;
        let acts = self.acts.as_ref()?;
        let best = acts
            .prefixes
            .iter()
            .filter(|p| text.starts_with(&p.prefix))
            .max_by_key(|p| p.prefix.len())?;
        self.named(&best.plays)
    }

    /// A product agent's follow-up on a task waiting for approval: it resumes (completes)
    /// only with a data part carrying the task's `approvalId`; any other answer leaves it
    /// waiting.
    pub fn approval_answer(&self, message: &Message, task_id: &str) -> Option<&Scenario> {
        let id = approval_id(task_id);
        let approved = message.parts.iter().any(|p| {
            p.data
                .as_ref()
                .and_then(|d| d.get("approvalId"))
                .and_then(|v| v.as_str())
                == Some(id.as_str())
        });
        self.named(if approved {
            &self.default_prefix
        } else {
            "tck-input-required"
        })
    }

    fn named(&self, prefix: &str) -> Option<&Scenario> {
        self.scenarios.iter().find(|s| s.prefix == prefix)
    }
}

fn validate_outcome(prefix: &str, task: &TaskOutcome, nested: bool) -> Result<(), String> {
    let ends = task.state.ends_stream();
    match (&task.release, task.state) {
        (None, _) if ends => {}
        (Some(release), TaskState::Working) if !nested => validate_outcome(prefix, release, true)?,
        _ => {
            return Err(format!(
                "`{prefix}`: a scenario must end in a terminal or interrupted state, \
                 or be held in TASK_STATE_WORKING with a `release`"
            ))
        }
    }
    if task.status_text.is_empty() {
        return Err(format!("`{prefix}`: statusText is empty"));
    }
    for artifact in &task.artifacts {
        if artifact.parts.is_empty() || artifact.parts.iter().any(|p| p.content_count() != 1) {
            return Err(format!(
                "`{prefix}`: every artifact needs parts with exactly one content member"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn builtin_table_parses_and_covers_the_tck_prefixes() {
        let table = Scenarios::builtin().unwrap();
        let kit_only = ["tck-auth-required", "tck-fail-task", "tck-long-running"];
        for prefix in OFFICIAL_PREFIXES.iter().chain(&kit_only) {
            assert_eq!(
                table
                    .select(&format!("{prefix}-0a1b2c3d-jsonrpc"))
                    .unwrap()
                    .prefix,
                *prefix
            );
        }
        assert_eq!(
            table.select("anything-else").unwrap().prefix,
            "tck-complete-task"
        );
        assert_eq!(table.select("").unwrap().prefix, "tck-complete-task");
    }

    #[test]
    fn official_table_keeps_only_official_prefixes() {
        let table = Scenarios::builtin().unwrap().only(ScenarioSet::Official);
        assert_eq!(table.scenarios.len(), OFFICIAL_PREFIXES.len());
        for kit_only in [
            "tck-long-running-1",
            "tck-fail-task-1",
            "tck-auth-required-1",
        ] {
            assert_eq!(table.select(kit_only).unwrap().prefix, "tck-complete-task");
        }
        assert_eq!(
            table.select("tck-input-required-1").unwrap().prefix,
            "tck-input-required"
        );
    }

    fn message(id: &str, text: &str) -> Message {
        serde_json::from_value(serde_json::json!({
            "messageId": id, "role": "ROLE_USER", "parts": [{"text": text}]
        }))
        .unwrap()
    }

    #[test]
    fn acts_prefixes_are_read_from_the_first_text_part() {
        let table = Scenarios::builtin().unwrap();
        let pick = |id: &str, text: &str, acts_task: bool| {
            table
                .select_message(&message(id, text), acts_task)
                .unwrap()
                .prefix
                .clone()
        };
        assert_eq!(pick("m-1", "tck-cancel", false), "tck-long-running");
        assert_eq!(
            pick("m-1", "tck-multi-turn please", false),
            "tck-input-required"
        );
        assert_eq!(pick("m-1", "tck-task-failure", false), "tck-fail-task");
        assert_eq!(
            pick("m-1", "tck-stream-chunked", false),
            "tck-stream-artifact-chunked"
        );
        // The messageId wins; plain text is the default, or an ACTS turn on an ACTS task.
        assert_eq!(
            pick("tck-fail-task-1", "tck-cancel", false),
            "tck-fail-task"
        );
        assert_eq!(pick("m-1", "hello", false), "tck-complete-task");
        assert_eq!(pick("m-2", "done", true), "tck-complete-task");
        assert_eq!(
            pick("m-2", "here is more input", true),
            "tck-input-required"
        );
        assert!(table.is_acts(&message("m-1", "tck-multi-turn")));
        assert!(!table.is_acts(&message("tck-input-required-1", "tck-multi-turn")));
        // Each convention alone.
        let official = Scenarios::builtin().unwrap().only(ScenarioSet::Official);
        let got = official.select_message(&message("m-1", "tck-multi-turn"), false);
        assert_eq!(got.unwrap().prefix, "tck-complete-task");
        let acts = Scenarios::builtin().unwrap().only(ScenarioSet::Acts);
        let got = acts.select_message(&message("tck-input-required-1", "a2a-tck message"), false);
        assert_eq!(got.unwrap().prefix, "tck-complete-task");
    }

    #[test]
    fn longest_prefix_wins() {
        let table = Scenarios::builtin().unwrap();
        assert_eq!(
            table.select("tck-artifact-file-url-1").unwrap().prefix,
            "tck-artifact-file-url"
        );
        assert_eq!(
            table.select("tck-artifact-file-1").unwrap().prefix,
            "tck-artifact-file"
        );
    }

    #[test]
    fn invalid_tables_are_rejected() {
        let base = |scenarios: &str| {
            format!(r#"{{"description":"d","defaultPrefix":"tck-a","scenarios":[{scenarios}]}}"#)
        };
        let ok = r#"{"prefix":"tck-a","description":"d","message":{"text":"t"}}"#;
        assert!(Scenarios::parse(&base(ok)).is_ok());
        let held = r#"{"prefix":"tck-a","description":"d","task":{"state":"TASK_STATE_WORKING","statusText":"x",
            "release":{"state":"TASK_STATE_COMPLETED","statusText":"y"}}}"#;
        assert!(Scenarios::parse(&base(held)).is_ok());
        for bad in [
            r#"{"prefix":"tck-b","description":"d","message":{"text":"t"}}"#,
            r#"{"prefix":"tck-a","description":"d"}"#,
            r#"{"prefix":"tck-a","description":"d","task":{"state":"TASK_STATE_WORKING","statusText":"x"}}"#,
            r#"{"prefix":"tck-a","description":"d","task":{"state":"TASK_STATE_COMPLETED","statusText":"x","artifacts":[{"name":"n","parts":[{}]}]}}"#,
            r#"{"prefix":"tck-a","description":"d","message":{"text":"t"},"extra":1}"#,
            r#"{"prefix":"tck-a","description":"d","task":{"state":"TASK_STATE_COMPLETED","statusText":"x",
                "release":{"state":"TASK_STATE_COMPLETED","statusText":"y"}}}"#,
            r#"{"prefix":"tck-a","description":"d","task":{"state":"TASK_STATE_WORKING","statusText":"x",
                "release":{"state":"TASK_STATE_WORKING","statusText":"y",
                           "release":{"state":"TASK_STATE_COMPLETED","statusText":"z"}}}}"#,
            &format!("{ok},{ok}"),
        ] {
            assert!(Scenarios::parse(&base(bad)).is_err(), "{bad}");
        }
    }
}

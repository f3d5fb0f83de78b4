//! The scripted scenarios, kept as data in `fixtures/scenarios.json` and
//! selected by the longest matching prefix of `message.messageId`.

use std::collections::BTreeSet;

use serde::{Deserialize, Serialize};

use crate::model::{Part, TaskState};
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
    pub scenarios: Vec<Scenario>,
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
        if set == ScenarioSet::Official {
            self.scenarios
                .retain(|s| OFFICIAL_PREFIXES.contains(&s.prefix.as_str()));
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
    pub fn select(&self, message_id: &str) -> Option<&Scenario> {
        let best = self
            .scenarios
            .iter()
            .filter(|s| message_id.starts_with(&s.prefix))
            .max_by_key(|s| s.prefix.len());
        best.or_else(|| {
            self.scenarios
                .iter()
                .find(|s| s.prefix == self.default_prefix)
        })
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

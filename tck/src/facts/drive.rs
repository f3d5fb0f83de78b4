//! A drive file (`--drive FILE`, TOML or YAML): for an agent that plays no scenario contract,
//! which message brings it into each state the kit needs, and which follow-up moves an
//! interrupted task on. Values may be taken from the agent's own answer: anywhere in a
//! message, a table `{ pointer = "/status/message/parts/0/data/id" }` is replaced by the value
//! at that JSON pointer in the task the follow-up is for (an approval step's call id, say).
//!
//! ```toml
//! [completed]
//! text = "What is the capital of France?"
//!
//! [input-required]
//! text = "Please transfer 10 EUR, I approve."
//! [input-required.follow-up]
//! parts = [{ data = { id = { pointer = "/status/message/parts/0/data/id" }, confirmed = true } }]
//! ```
//!
//! A state the file does not name is not driven: a check that needs only states the file
//! leaves out is not run, with the reason; one that needs it beside others is UNTESTABLE
//! where it needed it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::Deserialize;
use serde_json::{json, Value};

/// The state of a drive file that stands for the kit's scenario `prefix`, if one does.
pub fn state_of(prefix: &str) -> Option<&'static str> {
    STATES
        .iter()
        .find(|(_, scenario)| *scenario == prefix)
        .map(|(state, _)| *state)
}

/// The states a drive file may name, each with the kit's scenario it stands for.
pub const STATES: &[(&str, &str)] = &[
    ("completed", "tck-complete-task"),
    ("input-required", "tck-input-required"),
    ("auth-required", "tck-auth-required"),
    ("failed", "tck-fail-task"),
    ("rejected", "tck-reject-task"),
    ("long-running", "tck-long-running"),
    ("message", "tck-message-response"),
    ("artifact-text", "tck-artifact-text"),
    ("artifact-file", "tck-artifact-file"),
    ("artifact-file-url", "tck-artifact-file-url"),
    ("artifact-data", "tck-artifact-data"),
    ("artifact-chunked", "tck-stream-artifact-chunked"),
];

/// One message to send: text, or parts given in full, and metadata.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Send {
    /// A single text part (ignored when `parts` is given).
    #[serde(default)]
    pub text: Option<String>,
    /// The message's parts as the 1.0 JSON form has them (`text`, `data`, `raw`, `url`,
    /// `mediaType`, `filename`, `metadata`).
    #[serde(default)]
    pub parts: Option<Vec<Value>>,
    #[serde(default)]
    pub metadata: Option<Value>,
}

/// A state's first message and, for an interrupted state, its follow-ups.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Step {
    #[serde(flatten)]
    pub send: Send,
    /// The follow-up that moves the task on (completes it).
    #[serde(default, rename = "follow-up")]
    pub follow_up: Option<Send>,
    /// A follow-up that keeps the task waiting (default: the first message again).
    #[serde(default)]
    pub again: Option<Send>,
}

/// A parsed drive file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Drive {
    steps: BTreeMap<String, Step>,
}

impl Drive {
    /// Reads a drive file: YAML when its name ends in `.yaml` or `.yml`, else TOML.
    pub fn read(path: &Path) -> Result<Drive, String> {
        let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let yaml = path
            .extension()
            .and_then(|e| e.to_str())
            .is_some_and(|e| e.eq_ignore_ascii_case("yaml") || e.eq_ignore_ascii_case("yml"));
        Drive::parse(&text, yaml).map_err(|e| format!("{}: {e}", path.display()))
    }

    /// Parses a drive file's text.
    pub fn parse(text: &str, yaml: bool) -> Result<Drive, String> {
        let steps: BTreeMap<String, Step> = if yaml {
            serde_yaml_ng::from_str(text).map_err(|e| e.to_string())?
        } else {
            toml::from_str(text).map_err(|e| e.to_string())?
        };
        for (name, step) in &steps {
            if !STATES.iter().any(|(s, _)| s == name) {
                return Err(format!(
                    "`{name}` is no state the kit drives; the states are {}",
                    STATES
                        .iter()
                        .map(|(s, _)| *s)
                        .collect::<Vec<_>>()
                        .join(", ")
                ));
            }
            for (what, send) in [("", Some(&step.send))].into_iter().chain([
                (".follow-up", step.follow_up.as_ref()),
                (".again", step.again.as_ref()),
            ]) {
                if let Some(send) = send {
                    if send.text.is_none() && send.parts.as_ref().is_none_or(Vec::is_empty) {
                        return Err(format!("`{name}{what}` needs `text` or `parts`"));
                    }
                    let mut pointers = Vec::new();
                    for value in (send.parts.iter().flatten()).chain(&send.metadata) {
                        pointers_in(value, &mut pointers);
                    }
                    if let Some(bad) = pointers
                        .iter()
                        .find(|p| !p.is_empty() && !p.starts_with('/'))
                    {
                        return Err(format!(
                            "`{name}{what}`: the pointer {bad:?} is no JSON pointer (RFC 6901): it \
                             must start with `/`, e.g. \"/{bad}\""
                        ));
                    }
                }
            }
        }
        Ok(Drive { steps })
    }

    /// The kit scenarios the file drives.
    pub fn scenarios(&self) -> Vec<&'static str> {
        STATES
            .iter()
            .filter(|(state, _)| self.steps.contains_key(*state))
            .map(|(_, scenario)| *scenario)
            .collect()
    }

    /// The step for the kit's scenario `name`. Stream scenarios use the file's
    /// `artifact-text` step (a task that produces an artifact), else `completed`.
    fn step(&self, name: &str) -> Option<&Step> {
        let state = STATES
            .iter()
            .find(|(_, s)| *s == name)
            .map(|(state, _)| *state);
        let state = match (state, name) {
            (Some(state), _) => state,
            (None, "tck-stream-001" | "tck-stream-003" | "tck-stream-ordering-001")
            | (None, "tck-stream-artifact-text") => {
                if self.steps.contains_key("artifact-text") {
                    "artifact-text"
                } else {
                    "completed"
                }
            }
            _ => return None,
        };
        self.steps.get(state)
    }

    /// Whether the file says how to play `name`.
    pub fn drives(&self, name: &str) -> bool {
        self.step(name).is_some()
    }

    /// The first message of scenario `name` (parts and metadata), when the file gives one.
    pub fn first(&self, name: &str) -> Option<(Value, Option<Value>)> {
        self.step(name).map(|s| render(&s.send, &Value::Null))
    }

    /// The follow-up playing `name` on `task`: completing an interrupted task takes that
    /// state's `follow-up`; keeping it waiting (`tck-input-required`) its `again` (else its
    /// first message); anything else the scenario's own first message. Pointers read `task`
    /// (one that finds nothing there gives null; [`Drive::unresolved`] names them).
    pub fn follow_up(&self, name: &str, task: &Value) -> Option<(Value, Option<Value>)> {
        self.follow_up_send(name, task)
            .map(|send| render(send, task))
    }

    /// The pointers of the follow-up playing `name` on `task` that find nothing in `task`:
    /// the follow-up then carries null where the file meant a value of the agent's, so what
    /// the agent makes of it judges the drive file, not the agent.
    pub fn unresolved(&self, name: &str, task: &Value) -> Vec<String> {
        let Some(send) = self.follow_up_send(name, task) else {
            return Vec::new();
        };
        let mut pointers = Vec::new();
        for value in (send.parts.iter().flatten()).chain(&send.metadata) {
            pointers_in(value, &mut pointers);
        }
        pointers.retain(|p| task.pointer(p).is_none());
        pointers
    }

    fn follow_up_send(&self, name: &str, task: &Value) -> Option<&Send> {
        let waiting = match crate::facts::a2a::state(task) {
            Some("TASK_STATE_INPUT_REQUIRED") => self.steps.get("input-required"),
            Some("TASK_STATE_AUTH_REQUIRED") => self.steps.get("auth-required"),
            _ => None,
        };
        let send = match (waiting, name) {
            (Some(step), "tck-input-required") => step.again.as_ref().unwrap_or(&step.send),
            (Some(step), _) => step.follow_up.as_ref()?,
            (None, _) => &self.step(name)?.send,
        };
        Some(send)
    }
}

/// The parts and metadata of `send`, with every `{ pointer = ... }` read from `task`.
fn render(send: &Send, task: &Value) -> (Value, Option<Value>) {
    let parts = match (&send.parts, &send.text) {
        (Some(parts), _) => Value::Array(parts.clone()),
        (None, text) => json!([{ "text": text.clone().unwrap_or_default() }]),
    };
    (
        fill(parts, task),
        send.metadata.clone().map(|m| fill(m, task)),
    )
}

/// Every `{ "pointer": "..." }` in `value`, in order.
fn pointers_in(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            if let (1, Some(Value::String(pointer))) = (map.len(), map.get("pointer")) {
                out.push(pointer.clone());
                return;
            }
            map.values().for_each(|v| pointers_in(v, out));
        }
        Value::Array(items) => items.iter().for_each(|v| pointers_in(v, out)),
        _ => {}
    }
}

/// Replaces each `{ "pointer": "/..." }` in `value` with what `task` holds there (null when
/// nothing: the agent then gets the gap and says what it thinks of it).
fn fill(value: Value, task: &Value) -> Value {
    match value {
        Value::Object(map) => {
            if let (1, Some(Value::String(pointer))) = (map.len(), map.get("pointer")) {
                return task.pointer(pointer).cloned().unwrap_or(Value::Null);
            }
            Value::Object(map.into_iter().map(|(k, v)| (k, fill(v, task))).collect())
        }
        Value::Array(items) => Value::Array(items.into_iter().map(|v| fill(v, task)).collect()),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A pointer without its leading `/` names no value (RFC 6901): the file is refused when
    /// read, naming the field, and a pointer that finds nothing in the task is named.
    #[test]
    fn a_pointer_without_its_slash_is_refused_and_one_finding_nothing_is_named() {
        let bad = r#"
[input-required]
text = "book it"
follow-up = { parts = [{ data = { approvalId = { pointer = "status/message/parts/0/data/approvalId" } } }] }
"#;
        let error = Drive::parse(bad, false).expect_err("refused");
        assert!(
            error.contains("`input-required.follow-up`") && error.contains("must start with `/`"),
            "{error}"
        );
        let good = bad.replace("\"status/", "\"/status/");
        let drive = Drive::parse(&good, false).expect("parses");
        let task = json!({"status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {"parts": [{"text": "?"}]}}});
        assert_eq!(
            drive.unresolved("tck-complete-task", &task),
            ["/status/message/parts/0/data/approvalId"]
        );
        let found = json!({"status": {"state": "TASK_STATE_INPUT_REQUIRED", "message": {"parts": [{"data": {"approvalId": "a1"}}]}}});
        assert!(drive.unresolved("tck-complete-task", &found).is_empty());
    }

    const TOML: &str = r#"
[completed]
text = "hello"

[input-required]
text = "please approve"
[input-required.follow-up]
parts = [{ data = { approval = { pointer = "/status/message/parts/0/data/approvalId" }, approved = true } }]
metadata = { kind = "answer" }
"#;

    #[test]
    fn a_follow_up_takes_values_from_the_task() {
        let drive = Drive::parse(TOML, false).expect("parses");
        assert_eq!(
            drive.scenarios(),
            ["tck-complete-task", "tck-input-required"]
        );
        let task = json!({"id": "t", "status": {"state": "TASK_STATE_INPUT_REQUIRED",
            "message": {"parts": [{"data": {"approvalId": "a-7"}}]}}});
        let (parts, metadata) = drive
            .follow_up("tck-complete-task", &task)
            .expect("a follow-up");
        assert_eq!(
            parts,
            json!([{"data": {"approval": "a-7", "approved": true}}])
        );
        assert_eq!(metadata, Some(json!({"kind": "answer"})));
        let (again, _) = drive.follow_up("tck-input-required", &task).expect("again");
        assert_eq!(again, json!([{"text": "please approve"}]));
        // Streams fall back to the completed step; an undriven state is not driven.
        assert!(drive.drives("tck-stream-001"));
        assert!(!drive.drives("tck-fail-task"));
        assert!(drive.follow_up("tck-fail-task", &json!({})).is_none());
    }

    #[test]
    fn yaml_and_mistakes() {
        let yaml = "completed:\n  text: hi\nfailed:\n  parts:\n    - text: break\n";
        let drive = Drive::parse(yaml, true).expect("parses");
        assert_eq!(drive.scenarios(), ["tck-complete-task", "tck-fail-task"]);
        assert!(Drive::parse("[finished]\ntext = \"x\"\n", false)
            .expect_err("an unknown state")
            .contains("no state"));
        assert!(Drive::parse("[completed]\nmetadata = { a = 1 }\n", false)
            .expect_err("no content")
            .contains("needs `text` or `parts`"));
    }
}

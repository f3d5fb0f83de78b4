//! The A2A 1.0 data model in its ProtoJSON shape (camelCase names, enum names
//! as strings, default-valued fields omitted, no `kind` discriminator).
//!
//! Deserialization also accepts the proto (snake_case) field names and integer
//! enum values, as ProtoJSON parsers do.

use serde::{Deserialize, Serialize, Serializer};
use serde_json::Value;

use crate::clock::Timestamp;

/// An enum value as it may appear in ProtoJSON input: its name or its number.
#[derive(Deserialize)]
#[serde(untagged)]
enum EnumRepr {
    Name(String),
    Number(i64),
}

macro_rules! proto_enum {
    ($(#[$meta:meta])* $name:ident { $($variant:ident = $number:literal => $wire:literal,)+ }) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Deserialize)]
        #[serde(try_from = "EnumRepr")]
        pub enum $name {
            #[default]
            $($variant,)+
        }

        impl $name {
            /// The ProtoJSON name of the value.
            pub fn name(self) -> &'static str {
                match self {
                    $($name::$variant => $wire,)+
                }
            }

            fn from_number(number: i64) -> Option<Self> {
                match number {
                    $($number => Some($name::$variant),)+
                    _ => None,
                }
            }

            fn from_name(name: &str) -> Option<Self> {
                match name {
                    $($wire => Some($name::$variant),)+
                    _ => None,
                }
            }
        }

        impl TryFrom<EnumRepr> for $name {
            type Error = String;

            fn try_from(repr: EnumRepr) -> Result<Self, String> {
                match repr {
                    EnumRepr::Name(name) => Self::from_name(&name)
                        .ok_or_else(|| format!("unknown {} value `{name}`", stringify!($name))),
                    EnumRepr::Number(number) => Self::from_number(number)
                        .ok_or_else(|| format!("unknown {} number {number}", stringify!($name))),
                }
            }
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.name())
            }
        }
    };
}

proto_enum! {
    /// `lf.a2a.v1.TaskState`.
    TaskState {
        Unspecified = 0 => "TASK_STATE_UNSPECIFIED",
        Submitted = 1 => "TASK_STATE_SUBMITTED",
        Working = 2 => "TASK_STATE_WORKING",
        Completed = 3 => "TASK_STATE_COMPLETED",
        Failed = 4 => "TASK_STATE_FAILED",
        Canceled = 5 => "TASK_STATE_CANCELED",
        InputRequired = 6 => "TASK_STATE_INPUT_REQUIRED",
        Rejected = 7 => "TASK_STATE_REJECTED",
        AuthRequired = 8 => "TASK_STATE_AUTH_REQUIRED",
    }
}

proto_enum! {
    /// `lf.a2a.v1.Role`.
    Role {
        Unspecified = 0 => "ROLE_UNSPECIFIED",
        User = 1 => "ROLE_USER",
        Agent = 2 => "ROLE_AGENT",
    }
}

impl TaskState {
    /// Completed, failed, canceled and rejected tasks accept no more work.
    pub fn is_terminal(self) -> bool {
        matches!(
            self,
            TaskState::Completed | TaskState::Failed | TaskState::Canceled | TaskState::Rejected
        )
    }

    /// Input- and auth-required tasks wait for the client.
    pub fn is_interrupted(self) -> bool {
        matches!(self, TaskState::InputRequired | TaskState::AuthRequired)
    }

    /// Terminal or interrupted: a blocking call returns and a stream closes.
    pub fn ends_stream(self) -> bool {
        self.is_terminal() || self.is_interrupted()
    }

    /// The A2A 0.3 spelling of the state (`input-required`).
    pub fn legacy_name(self) -> &'static str {
        match self {
            TaskState::Unspecified => "unknown",
            TaskState::Submitted => "submitted",
            TaskState::Working => "working",
            TaskState::Completed => "completed",
            TaskState::Failed => "failed",
            TaskState::Canceled => "canceled",
            TaskState::InputRequired => "input-required",
            TaskState::Rejected => "rejected",
            TaskState::AuthRequired => "auth-required",
        }
    }
}

/// A piece of content: exactly one of `text`, `raw`, `url` or `data` is set.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Part {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// Base64-encoded bytes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub raw: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub url: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub filename: String,
    #[serde(skip_serializing_if = "String::is_empty", alias = "media_type")]
    pub media_type: String,
}

impl Part {
    /// A plain text part.
    pub fn text(text: impl Into<String>) -> Self {
        Part {
            text: Some(text.into()),
            ..Part::default()
        }
    }

    /// How many of the mutually exclusive content members are set.
    pub fn content_count(&self) -> usize {
        [
            self.text.is_some(),
            self.raw.is_some(),
            self.url.is_some(),
            self.data.is_some(),
        ]
        .into_iter()
        .filter(|set| *set)
        .count()
    }
}

/// A message between the user and the agent.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Message {
    #[serde(alias = "message_id", skip_serializing_if = "String::is_empty")]
    pub message_id: String,
    #[serde(alias = "context_id", skip_serializing_if = "String::is_empty")]
    pub context_id: String,
    #[serde(alias = "task_id", skip_serializing_if = "String::is_empty")]
    pub task_id: String,
    pub role: Role,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub parts: Vec<Part>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub metadata: Option<Value>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub extensions: Vec<String>,
    #[serde(alias = "reference_task_ids", skip_serializing_if = "Vec::is_empty")]
    pub reference_task_ids: Vec<String>,
}

/// An output of a task.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Artifact {
    pub artifact_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub name: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub description: String,
    pub parts: Vec<Part>,
}

/// The state of a task at a point in time.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskStatus {
    pub state: TaskState,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub message: Option<Message>,
    pub timestamp: Timestamp,
}

/// A unit of work with a lifecycle.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Task {
    pub id: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub context_id: String,
    pub status: TaskStatus,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub artifacts: Vec<Artifact>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub history: Vec<Message>,
}

/// `TaskStatusUpdateEvent` (1.0 has no `final` flag and no `kind`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StatusUpdate {
    pub task_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub context_id: String,
    pub status: TaskStatus,
}

/// `TaskArtifactUpdateEvent`.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ArtifactUpdate {
    pub task_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub context_id: String,
    pub artifact: Artifact,
    pub append: bool,
    pub last_chunk: bool,
}

/// One `StreamResponse`, in generation order.
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    Task(Task),
    Message(Message),
    Status(StatusUpdate),
    Artifact(ArtifactUpdate),
}

impl Event {
    /// Whether a stream ends after this event: a Message, or a status in a
    /// terminal or interrupted state. (A Task snapshot never ends a stream.)
    pub fn ends_stream(&self) -> bool {
        match self {
            Event::Message(_) => true,
            Event::Status(update) => update.status.state.ends_stream(),
            Event::Task(_) | Event::Artifact(_) => false,
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn enums_accept_names_and_numbers() {
        let state: TaskState = serde_json::from_value(json!("TASK_STATE_INPUT_REQUIRED")).unwrap();
        assert_eq!(state, TaskState::InputRequired);
        let state: TaskState = serde_json::from_value(json!(5)).unwrap();
        assert_eq!(state, TaskState::Canceled);
        let role: Role = serde_json::from_value(json!(1)).unwrap();
        assert_eq!(role, Role::User);
        assert!(serde_json::from_value::<Role>(json!("user")).is_err());
        assert!(serde_json::from_value::<TaskState>(json!(9)).is_err());
        assert_eq!(
            serde_json::to_value(TaskState::Completed).unwrap(),
            json!("TASK_STATE_COMPLETED")
        );
    }

    #[test]
    fn message_accepts_snake_case_and_omits_defaults() {
        let message: Message = serde_json::from_value(json!({
            "message_id": "m1", "role": "ROLE_USER", "parts": [{"text": "hi", "media_type": "text/plain"}],
            "unknown": true
        }))
        .unwrap();
        assert_eq!(message.message_id, "m1");
        assert_eq!(message.parts[0].media_type, "text/plain");
        assert_eq!(
            serde_json::to_value(&message).unwrap(),
            json!({"messageId": "m1", "role": "ROLE_USER", "parts": [{"text": "hi", "mediaType": "text/plain"}]})
        );
    }
}

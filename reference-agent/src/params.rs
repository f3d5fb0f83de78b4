//! Parsing and validation of method params (InvalidParams, -32602).
//!
//! Fields are read by their ProtoJSON (camelCase) name or their proto
//! (snake_case) name; `null` counts as absent; unknown fields are ignored.

use serde::de::DeserializeOwned;
use serde::Deserialize;
use serde_json::{Map, Value};

use crate::clock::Timestamp;
use crate::error::{FieldViolation, RpcError};
use crate::model::{Message, Role, TaskState};
use crate::policy::RequestPolicy;
use crate::store::ListQuery;

const DEFAULT_PAGE_SIZE: i64 = 50;
const MAX_PAGE_SIZE: i64 = 100;

#[derive(Debug)]
pub struct SendMessageParams {
    pub message: Message,
    pub history_length: Option<usize>,
    pub return_immediately: bool,
}

#[derive(Debug)]
pub struct GetTaskParams {
    pub id: String,
    pub history_length: Option<usize>,
}

#[derive(Debug)]
pub struct ListTasksParams {
    pub query: ListQuery,
    pub history_length: Option<usize>,
    pub include_artifacts: bool,
}

/// The parts of `SendMessageConfiguration` the agent uses (`acceptedOutputModes`
/// and push configs are ignored); integers are checked by hand for better messages.
#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
struct SendConfiguration {
    #[serde(alias = "history_length")]
    history_length: Option<Value>,
    #[serde(alias = "return_immediately")]
    return_immediately: Option<bool>,
}

fn snake_case(name: &str) -> String {
    let mut out = String::with_capacity(name.len() + 4);
    for c in name.chars() {
        if c.is_ascii_uppercase() {
            out.push('_');
            out.push(c.to_ascii_lowercase());
        } else {
            out.push(c);
        }
    }
    out
}

/// The params object plus the violations found so far.
struct Fields {
    params: Map<String, Value>,
    violations: Vec<FieldViolation>,
}

impl Fields {
    fn new(params: Option<Value>) -> Result<Self, RpcError> {
        let params = match params {
            None | Some(Value::Null) => Map::new(),
            Some(Value::Object(params)) => params,
            Some(_) => return Err(RpcError::invalid_param("params", "must be an object")),
        };
        Ok(Fields {
            params,
            violations: Vec::new(),
        })
    }

    fn violate(&mut self, field: impl Into<String>, description: impl Into<String>) {
        self.violations
            .push(FieldViolation::new(field, description));
    }

    fn raw(&self, name: &str) -> Option<&Value> {
        self.params
            .get(name)
            .or_else(|| self.params.get(&snake_case(name)))
            .filter(|v| !v.is_null())
    }

    fn get<T: DeserializeOwned>(&mut self, name: &str) -> Option<T> {
        let result = T::deserialize(self.raw(name)?);
        result.map_err(|e| self.violate(name, e.to_string())).ok()
    }

    fn required_id(&mut self) -> String {
        match self.get::<String>("id") {
            Some(id) if !id.is_empty() => id,
            Some(_) => {
                self.violate("id", "must not be empty");
                String::new()
            }
            None if self.violations.is_empty() => {
                self.violate("id", "required");
                String::new()
            }
            None => String::new(),
        }
    }

    fn finish<T>(self, value: T) -> Result<T, RpcError> {
        if self.violations.is_empty() {
            Ok(value)
        } else {
            Err(RpcError::invalid_params(self.violations))
        }
    }
}

/// Reads a ProtoJSON integer (a JSON number or a decimal string) and checks its range.
fn integer(
    fields: &mut Fields,
    raw: Option<&Value>,
    field: &str,
    min: i64,
    max: i64,
) -> Option<i64> {
    let raw = raw.filter(|v| !v.is_null())?;
    let number = match raw {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    match number {
        Some(n) if (min..=max).contains(&n) => Some(n),
        _ => {
            fields.violate(field, format!("must be an integer between {min} and {max}"));
            None
        }
    }
}

fn history_length(fields: &mut Fields, raw: Option<Value>, field: &str) -> Option<usize> {
    let n = integer(fields, raw.as_ref(), field, 0, i64::from(i32::MAX))?;
    usize::try_from(n).ok()
}

fn is_base64(text: &str) -> bool {
    let body = text.trim_end_matches('=');
    let padding = text.len() - body.len();
    let alphabet = body
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'+' | b'/' | b'-' | b'_'));
    alphabet
        && padding <= 2
        && body.len() % 4 != 1
        && (padding == 0 || text.len().is_multiple_of(4))
}

fn validate_message(fields: &mut Fields, message: &Message) {
    if message.message_id.is_empty() {
        fields.violate("message.messageId", "required non-empty string");
    }
    if message.role == Role::Unspecified {
        fields.violate("message.role", "required: ROLE_USER or ROLE_AGENT");
    }
    if message.parts.is_empty() {
        fields.violate("message.parts", "must contain at least one part");
    }
    for (i, part) in message.parts.iter().enumerate() {
        if part.content_count() != 1 {
            fields.violate(
                format!("message.parts[{i}]"),
                "must set exactly one of text, raw, url, data",
            );
        }
        if part.raw.as_deref().is_some_and(|raw| !is_base64(raw)) {
            fields.violate(format!("message.parts[{i}].raw"), "must be base64");
        }
    }
}

/// The first part media type the agent does not accept (`modes`), if any. A text part that
/// names none is `text/plain`, a data part `application/json`.
fn unsupported_media_type<'a>(message: &'a Message, modes: &[&str]) -> Option<&'a str> {
    message
        .parts
        .iter()
        .map(|p| match p.media_type.as_str() {
            "" if p.text.is_some() => "text/plain",
            "" if p.data.is_some() => "application/json",
            named => named,
        })
        .find(|media_type| {
            let essence = media_type.split(';').next().unwrap_or_default().trim();
            !media_type.is_empty() && !modes.iter().any(|m| m.eq_ignore_ascii_case(essence))
        })
}

/// For the `reject-unknown-fields` fault: the first member of the message it does not know.
fn unknown_message_field(message: Option<&Value>) -> Option<String> {
    const KNOWN: &[&str] = &[
        "messageId",
        "contextId",
        "taskId",
        "role",
        "parts",
        "metadata",
        "extensions",
        "referenceTaskIds",
    ];
    message?.as_object()?.keys().find_map(|key| {
        let known = KNOWN.iter().any(|k| *k == key || snake_case(k) == *key);
        (!known).then(|| key.clone())
    })
}

pub fn send_message(
    params: Option<Value>,
    policy: &RequestPolicy,
) -> Result<SendMessageParams, RpcError> {
    let mut fields = Fields::new(params)?;
    if fields.raw("message").is_none() {
        if policy.missing_message_internal {
            return Err(RpcError::internal("message is missing"));
        }
        fields.violate("message", "required");
    }
    if policy.reject_unknown_fields {
        if let Some(unknown) = unknown_message_field(fields.raw("message")) {
            fields.violate(format!("message.{unknown}"), "unknown field");
        }
    }
    let message = fields.get::<Message>("message");
    if let Some(message) = message.as_ref().filter(|_| policy.validate_message) {
        validate_message(&mut fields, message);
    }
    let configuration = fields
        .get::<SendConfiguration>("configuration")
        .unwrap_or_default();
    let history_length = history_length(
        &mut fields,
        configuration.history_length,
        "configuration.historyLength",
    );
    let message = fields.finish(message.unwrap_or_default())?;
    if let Some(media_type) =
        (unsupported_media_type(&message, policy.input_modes)).filter(|_| policy.check_media_types)
    {
        return Err(RpcError::content_type_not_supported(media_type));
    }
    Ok(SendMessageParams {
        message,
        history_length,
        return_immediately: configuration.return_immediately.unwrap_or(false),
    })
}

pub fn get_task(params: Option<Value>) -> Result<GetTaskParams, RpcError> {
    let mut fields = Fields::new(params)?;
    let id = fields.required_id();
    let raw = fields.raw("historyLength").cloned();
    let history_length = history_length(&mut fields, raw, "historyLength");
    fields.finish(GetTaskParams { id, history_length })
}

/// CancelTask and SubscribeToTask: the task `id`.
pub fn task_id(params: Option<Value>) -> Result<String, RpcError> {
    let mut fields = Fields::new(params)?;
    let id = fields.required_id();
    fields.finish(id)
}

pub fn list_tasks(params: Option<Value>) -> Result<ListTasksParams, RpcError> {
    let mut fields = Fields::new(params)?;
    let context_id = fields.get::<String>("contextId").filter(|c| !c.is_empty());
    let status = fields
        .get::<TaskState>("status")
        .filter(|s| *s != TaskState::Unspecified);
    let raw = fields.raw("pageSize").cloned();
    let page_size = integer(&mut fields, raw.as_ref(), "pageSize", 1, MAX_PAGE_SIZE)
        .unwrap_or(DEFAULT_PAGE_SIZE);
    let page_token = fields.get::<String>("pageToken");
    let raw = fields.raw("historyLength").cloned();
    let history_length = history_length(&mut fields, raw, "historyLength");
    let status_timestamp_after = match fields.get::<String>("statusTimestampAfter") {
        Some(text) => {
            let parsed = Timestamp::parse_rfc3339(&text);
            if parsed.is_none() {
                fields.violate("statusTimestampAfter", "must be an RFC 3339 timestamp");
            }
            parsed
        }
        None => None,
    };
    let include_artifacts = fields.get::<bool>("includeArtifacts").unwrap_or(false);
    fields.finish(ListTasksParams {
        query: ListQuery {
            context_id,
            status,
            status_timestamp_after,
            page_size: usize::try_from(page_size).unwrap_or(50),
            page_token,
        },
        history_length,
        include_artifacts,
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn violations(error: RpcError) -> Vec<String> {
        assert_eq!(error.code, -32602, "{error:?}");
        error.violations.into_iter().map(|v| v.field).collect()
    }

    #[test]
    fn base64_check() {
        for good in ["", "dGNr", "dGM=", "dA==", "a-_b"] {
            assert!(is_base64(good), "{good}");
        }
        for bad in ["d", "dGNr!", "d===", "dG=r"] {
            assert!(!is_base64(bad), "{bad}");
        }
    }

    #[test]
    fn send_message_validation() {
        let config = crate::policy::Policy::new(&crate::config::AgentConfig::default()).requests;
        let ok = send_message(
            Some(json!({"message": {"messageId": "m", "role": "ROLE_USER", "parts": [{"text": "hi"}]},
                        "configuration": {"historyLength": "2", "returnImmediately": true}})),
            &config,
        )
        .unwrap();
        assert_eq!(ok.history_length, Some(2));
        assert!(ok.return_immediately);

        let err = send_message(Some(json!({})), &config).unwrap_err();
        assert_eq!(violations(err), ["message"]);
        let err = send_message(
            Some(
                json!({"message": {"role": 0, "parts": [{"text": "a", "url": "b"}]},
                        "configuration": {"historyLength": -1}}),
            ),
            &config,
        )
        .unwrap_err();
        assert_eq!(
            violations(err),
            [
                "message.messageId",
                "message.role",
                "message.parts[0]",
                "configuration.historyLength"
            ]
        );
        let err = send_message(Some(json!({"message": "hello"})), &config).unwrap_err();
        assert_eq!(violations(err), ["message"]);
        let err = send_message(Some(json!([1])), &config).unwrap_err();
        assert_eq!(violations(err), ["params"]);

        let err = send_message(
            Some(json!({"message": {"messageId": "m", "role": "ROLE_USER",
                                    "parts": [{"text": "a", "mediaType": "image/png"}]}})),
            &config,
        )
        .unwrap_err();
        assert_eq!(err.code, -32005);
    }

    #[test]
    fn list_tasks_validation() {
        let ok = list_tasks(Some(json!({"page_size": 3, "status": "TASK_STATE_WORKING",
                                       "statusTimestampAfter": "2026-01-01T00:00:00Z"})))
        .unwrap();
        assert_eq!(ok.query.page_size, 3);
        assert_eq!(ok.query.status, Some(TaskState::Working));
        assert_eq!(list_tasks(None).unwrap().query.page_size, 50);
        for (params, field) in [
            (json!({"pageSize": 0}), "pageSize"),
            (json!({"pageSize": 101}), "pageSize"),
            (json!({"pageSize": 1.5}), "pageSize"),
            (json!({"historyLength": -1}), "historyLength"),
            (json!({"status": "DONE"}), "status"),
            (
                json!({"statusTimestampAfter": "yesterday"}),
                "statusTimestampAfter",
            ),
            (json!({"includeArtifacts": "yes"}), "includeArtifacts"),
        ] {
            assert_eq!(violations(list_tasks(Some(params)).unwrap_err()), [field]);
        }
    }

    #[test]
    fn get_and_cancel_need_an_id() {
        assert_eq!(violations(get_task(None).unwrap_err()), ["id"]);
        assert_eq!(
            violations(get_task(Some(json!({"id": 5}))).unwrap_err()),
            ["id"]
        );
        assert_eq!(
            violations(task_id(Some(json!({"id": ""}))).unwrap_err()),
            ["id"]
        );
        assert_eq!(
            get_task(Some(json!({"id": "t", "history_length": 0})))
                .unwrap()
                .history_length,
            Some(0)
        );
    }
}

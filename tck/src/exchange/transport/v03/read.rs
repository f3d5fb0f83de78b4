//! Reading 0.3 answers back into 1.0 ProtoJSON, strictly: every place where an answer does
//! not have the 0.3 shape (a missing `kind`, a state spelled the other version's way, a 1.0
//! wrapper) is kept as a *problem*, and a value that is not 0.3 at all becomes
//! `UNKNOWN(<value>)`, never a silently accepted 1.0 value.

use serde_json::{json, Map, Value};

use super::Form;

/// The 0.3 state names of the JSON-RPC form, beside their 1.0 names.
const JSONRPC_STATES: &[(&str, &str)] = &[
    ("submitted", "TASK_STATE_SUBMITTED"),
    ("working", "TASK_STATE_WORKING"),
    ("input-required", "TASK_STATE_INPUT_REQUIRED"),
    ("completed", "TASK_STATE_COMPLETED"),
    ("canceled", "TASK_STATE_CANCELED"),
    ("failed", "TASK_STATE_FAILED"),
    ("rejected", "TASK_STATE_REJECTED"),
    ("auth-required", "TASK_STATE_AUTH_REQUIRED"),
    ("unknown", "TASK_STATE_UNSPECIFIED"),
];

/// The 0.3 proto enum names that differ from 1.0.
const PROTO_STATES: &[(&str, &str)] = &[("TASK_STATE_CANCELLED", "TASK_STATE_CANCELED")];

/// What was read back, and where the answer left the 0.3 shape.
#[derive(Debug, Default)]
pub struct Reading {
    /// Where the answer's shape is not 0.3 (kind, wrapper, parts, roles, final).
    pub problems: Vec<String>,
    /// Where a task state is not spelled the 0.3 way.
    pub state_problems: Vec<String>,
}

impl Reading {
    fn problem(&mut self, what: String) {
        if !self.problems.contains(&what) {
            self.problems.push(what);
        }
    }

    fn state_problem(&mut self, what: String) {
        if !self.state_problems.contains(&what) {
            self.state_problems.push(what);
        }
    }

    /// Requires `kind` on a JSON-RPC object.
    fn kind(&mut self, form: Form, value: &Value, expected: &str, what: &str) {
        if form != Form::JsonRpc {
            return;
        }
        match value.get("kind").and_then(Value::as_str) {
            Some(k) if k == expected => {}
            Some(k) => self.problem(format!("{what} has kind {k:?}, not {expected:?}")),
            None => self.problem(format!("{what} has no kind ({expected:?} in 0.3)")),
        }
    }

    /// A 0.3 result of `method` in 1.0 ProtoJSON.
    pub fn result(&mut self, form: Form, method: &str, result: &Value) -> Value {
        if let Some(read) = self.push_result(form, method, result) {
            return read;
        }
        if !result.is_object() {
            // Not a 0.3 object at all: kept as it came, for the checks to quote.
            return result.clone();
        }
        match method {
            "SendMessage" => self.send_result(form, result),
            "GetTask" | "CancelTask" => self.task(form, result),
            _ => result.clone(),
        }
    }

    /// A push-config result in the 1.0 form: the flat `TaskPushNotificationConfig`, and
    /// `{configs, nextPageToken}` for a list (0.3 JSON-RPC lists with a bare array).
    fn push_result(&mut self, form: Form, method: &str, result: &Value) -> Option<Value> {
        match method {
            "CreateTaskPushNotificationConfig" | "GetTaskPushNotificationConfig" => {
                Some(self.push_config(form, result))
            }
            "ListTaskPushNotificationConfigs" => {
                let (configs, token) = match (form, result) {
                    (Form::JsonRpc, Value::Array(configs)) => (configs.clone(), None),
                    (_, Value::Object(list)) => {
                        if form == Form::JsonRpc {
                            self.problem("the list is an object; 0.3 JSON-RPC answers a bare array of configs".into());
                        }
                        let configs = list.get("configs").and_then(Value::as_array).cloned();
                        (
                            configs.unwrap_or_default(),
                            list.get("nextPageToken").cloned(),
                        )
                    }
                    _ => return None,
                };
                let configs: Vec<Value> =
                    configs.iter().map(|c| self.push_config(form, c)).collect();
                let mut out = json!({ "configs": configs });
                if let Some(token) = token {
                    out["nextPageToken"] = token;
                }
                Some(out)
            }
            _ => None,
        }
    }

    /// A 0.3 `TaskPushNotificationConfig` (`{taskId|name, pushNotificationConfig}`) as the
    /// flat 1.0 config.
    fn push_config(&mut self, form: Form, config: &Value) -> Value {
        let Some(inner) = config
            .get("pushNotificationConfig")
            .filter(|c| c.is_object())
        else {
            if config.is_object() {
                self.problem(
                    "the config has no pushNotificationConfig member (0.3 nests the config in it)"
                        .into(),
                );
            }
            return config.clone();
        };
        let mut out = Map::new();
        let task = match form {
            Form::JsonRpc => config
                .get("taskId")
                .and_then(Value::as_str)
                .map(str::to_string),
            Form::Proto => config
                .get("name")
                .and_then(Value::as_str)
                .and_then(|n| n.strip_prefix("tasks/"))
                .and_then(|n| n.split('/').next())
                .map(str::to_string),
        };
        if let Some(task) = task {
            out.insert("taskId".into(), json!(task));
        }
        for key in ["id", "url", "token"] {
            if let Some(v) = inner.get(key) {
                out.insert(key.into(), v.clone());
            }
        }
        if form == Form::Proto && !out.contains_key("id") {
            let id = config
                .get("name")
                .and_then(Value::as_str)
                .and_then(|n| n.rsplit('/').next());
            if let Some(id) = id {
                out.insert("id".into(), json!(id));
            }
        }
        if let Some(auth) = inner.get("authentication") {
            let mut a = Map::new();
            let scheme = auth
                .get("schemes")
                .and_then(Value::as_array)
                .and_then(|s| s.first());
            if let Some(scheme) = scheme.or(auth.get("scheme")) {
                a.insert("scheme".into(), scheme.clone());
            }
            if let Some(c) = auth.get("credentials") {
                a.insert("credentials".into(), c.clone());
            }
            out.insert("authentication".into(), Value::Object(a));
        }
        Value::Object(out)
    }

    fn send_result(&mut self, form: Form, result: &Value) -> Value {
        match form {
            Form::JsonRpc => {
                if let Some(inner) = result.get("task").or_else(|| result.get("message")) {
                    if result.get("kind").is_none() && inner.is_object() {
                        self.problem("the result is a 1.0 {\"task\"|\"message\"} wrapper; 0.3 answers with the bare Task or Message".into());
                        return self.send_result(form, inner);
                    }
                }
                let is_message = match result.get("kind").and_then(Value::as_str) {
                    Some("message") => true,
                    Some("task") => false,
                    _ => result.get("role").is_some() && result.get("status").is_none(),
                };
                if is_message {
                    json!({ "message": self.message(form, result) })
                } else {
                    json!({ "task": self.task(form, result) })
                }
            }
            Form::Proto => match (result.get("task"), result.get("message")) {
                (Some(task), None) => json!({ "task": self.task(form, task) }),
                (None, Some(message)) => json!({ "message": self.message(form, message) }),
                _ => result.clone(),
            },
        }
    }

    /// A 0.3 stream event in 1.0 ProtoJSON (`{"task"|"message"|"statusUpdate"|"artifactUpdate"}`).
    pub fn event(&mut self, form: Form, event: &Value) -> Value {
        match form {
            Form::JsonRpc => match event.get("kind").and_then(Value::as_str) {
                Some("task") => json!({ "task": self.task(form, event) }),
                Some("message") => json!({ "message": self.message(form, event) }),
                Some("status-update") => json!({ "statusUpdate": self.status_update(form, event) }),
                Some("artifact-update") => {
                    json!({ "artifactUpdate": self.artifact_update(form, event) })
                }
                other => {
                    self.problem(format!(
                        "a stream event with kind {} (0.3 events carry task, message, status-update or artifact-update)",
                        other.map_or("none".to_string(), |k| format!("{k:?}"))
                    ));
                    event.clone()
                }
            },
            Form::Proto => {
                if let Some(t) = event.get("task") {
                    json!({ "task": self.task(form, t) })
                } else if let Some(m) = event.get("message") {
                    json!({ "message": self.message(form, m) })
                } else if let Some(s) = event.get("statusUpdate") {
                    json!({ "statusUpdate": self.status_update(form, s) })
                } else if let Some(a) = event.get("artifactUpdate") {
                    json!({ "artifactUpdate": self.artifact_update(form, a) })
                } else {
                    event.clone()
                }
            }
        }
    }

    fn status_update(&mut self, form: Form, update: &Value) -> Value {
        let mut out = update.as_object().cloned().unwrap_or_default();
        out.remove("kind");
        // Required in the 0.3 JSON schema; in the 0.3 proto JSON false is the default, omitted.
        let present = out.get("final").is_some_and(Value::is_boolean);
        if form == Form::JsonRpc && !present {
            self.problem("a status update has no boolean `final` (required in 0.3)".into());
        }
        out.remove("final");
        if let Some(status) = update.get("status") {
            out.insert("status".into(), self.status(form, status));
        }
        Value::Object(out)
    }

    fn artifact_update(&mut self, form: Form, update: &Value) -> Value {
        let mut out = update.as_object().cloned().unwrap_or_default();
        out.remove("kind");
        if let Some(artifact) = update.get("artifact") {
            out.insert("artifact".into(), self.artifact(form, artifact));
        }
        Value::Object(out)
    }

    /// A 0.3 Task in 1.0 ProtoJSON.
    pub fn task(&mut self, form: Form, task: &Value) -> Value {
        self.kind(form, task, "task", "a Task");
        let mut out = task.as_object().cloned().unwrap_or_default();
        out.remove("kind");
        if let Some(status) = task.get("status") {
            out.insert("status".into(), self.status(form, status));
        }
        if let Some(history) = task.get("history").and_then(Value::as_array) {
            let history: Vec<Value> = history.iter().map(|m| self.message(form, m)).collect();
            out.insert("history".into(), Value::Array(history));
        }
        if let Some(artifacts) = task.get("artifacts").and_then(Value::as_array) {
            let artifacts: Vec<Value> = artifacts.iter().map(|a| self.artifact(form, a)).collect();
            out.insert("artifacts".into(), Value::Array(artifacts));
        }
        Value::Object(out)
    }

    fn status(&mut self, form: Form, status: &Value) -> Value {
        let mut out = status.as_object().cloned().unwrap_or_default();
        if let Some(state) = status.get("state").and_then(Value::as_str) {
            out.insert("state".into(), json!(self.state(form, state)));
        }
        if let Some(message) = status.get("message") {
            out.insert("message".into(), self.message(form, message));
        }
        Value::Object(out)
    }

    /// A 0.3 state in its 1.0 name; a spelling that is not 0.3 is a problem and reads as
    /// `UNKNOWN(<spelling>)`.
    pub fn state(&mut self, form: Form, state: &str) -> String {
        match form {
            Form::JsonRpc => match JSONRPC_STATES.iter().find(|(v03, _)| *v03 == state) {
                Some((_, v10)) => v10.to_string(),
                None => {
                    self.state_problem(format!(
                        "state {state:?} is not a 0.3 state name (submitted, working, input-required, completed, canceled, failed, rejected, auth-required, unknown)"
                    ));
                    format!("UNKNOWN({state})")
                }
            },
            Form::Proto => {
                if let Some((_, v10)) = PROTO_STATES.iter().find(|(v03, _)| *v03 == state) {
                    return v10.to_string();
                }
                let known = crate::facts::a2a::TASK_STATES.contains(&state)
                    && state != "TASK_STATE_CANCELED";
                if known {
                    state.to_string()
                } else {
                    self.state_problem(format!(
                        "state {state:?} is not a state of the 0.3 proto (TASK_STATE_CANCELLED is spelled with two L)"
                    ));
                    format!("UNKNOWN({state})")
                }
            }
        }
    }

    /// A 0.3 Message in 1.0 ProtoJSON.
    pub fn message(&mut self, form: Form, message: &Value) -> Value {
        self.kind(form, message, "message", "a Message");
        let mut out = message.as_object().cloned().unwrap_or_default();
        out.remove("kind");
        let parts_key = match form {
            Form::JsonRpc => "parts",
            Form::Proto => "content",
        };
        let parts: Vec<Value> = message
            .get(parts_key)
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        if message.get(parts_key).is_none() {
            let other = if form == Form::Proto {
                "parts"
            } else {
                "content"
            };
            if message.get(other).is_some() {
                self.problem(format!(
                    "a Message carries `{other}` where 0.3 uses `{parts_key}`"
                ));
            }
        }
        out.remove("content");
        let parts: Vec<Value> = parts.iter().map(|p| self.part(form, p)).collect();
        out.insert("parts".into(), Value::Array(parts));
        if form == Form::JsonRpc {
            let role = match message.get("role").and_then(Value::as_str) {
                Some("user") => "ROLE_USER".to_string(),
                Some("agent") => "ROLE_AGENT".to_string(),
                other => {
                    self.problem(format!(
                        "role {} is not a 0.3 role (user, agent)",
                        crate::facts::a2a::shown(other)
                    ));
                    format!("UNKNOWN({})", other.unwrap_or_default())
                }
            };
            out.insert("role".into(), json!(role));
        }
        Value::Object(out)
    }

    fn artifact(&mut self, form: Form, artifact: &Value) -> Value {
        let mut out = artifact.as_object().cloned().unwrap_or_default();
        let parts: Vec<Value> = artifact
            .get("parts")
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        let parts: Vec<Value> = parts.iter().map(|p| self.part(form, p)).collect();
        out.insert("parts".into(), Value::Array(parts));
        Value::Object(out)
    }

    fn part(&mut self, form: Form, part: &Value) -> Value {
        let mut out = Map::new();
        match form {
            Form::JsonRpc => {
                let kind = part.get("kind").and_then(Value::as_str);
                match (kind, part.get("text"), part.get("file"), part.get("data")) {
                    (Some("text"), Some(text), _, _) => {
                        out.insert("text".into(), text.clone());
                    }
                    (Some("file"), _, Some(file), _) => {
                        copy(file, "bytes", &mut out, "raw");
                        copy(file, "uri", &mut out, "url");
                        copy(file, "mimeType", &mut out, "mediaType");
                        copy(file, "name", &mut out, "filename");
                    }
                    (Some("data"), _, _, Some(data)) => {
                        out.insert("data".into(), data.clone());
                    }
                    _ => {
                        self.problem(format!(
                            "a part without a matching kind (text, file or data): {}",
                            crate::facts::a2a::brief(part, 120)
                        ));
                        return part.clone();
                    }
                }
            }
            Form::Proto => {
                if let Some(text) = part.get("text") {
                    out.insert("text".into(), text.clone());
                } else if let Some(file) = part.get("file") {
                    if file.get("fileWithBytes").is_none() && file.get("fileWithUri").is_none() {
                        self.problem(format!(
                            "a file part without fileWithBytes or fileWithUri: {}",
                            crate::facts::a2a::brief(part, 120)
                        ));
                    }
                    copy(file, "fileWithBytes", &mut out, "raw");
                    copy(file, "fileWithUri", &mut out, "url");
                    copy(file, "mimeType", &mut out, "mediaType");
                    copy(file, "name", &mut out, "filename");
                } else if let Some(data) = part.get("data") {
                    match data.get("data") {
                        Some(inner) if data.as_object().is_some_and(|d| d.len() == 1) => {
                            out.insert("data".into(), inner.clone());
                        }
                        _ => {
                            self.problem(format!(
                                "a data part that is not {{\"data\": {{\"data\": ...}}}} (the 0.3 DataPart): {}",
                                crate::facts::a2a::brief(part, 120)
                            ));
                            out.insert("data".into(), data.clone());
                        }
                    }
                } else {
                    self.problem(format!(
                        "a part with none of text, file, data (the 0.3 Part): {}",
                        crate::facts::a2a::brief(part, 120)
                    ));
                    return part.clone();
                }
            }
        }
        if let Some(metadata) = part.get("metadata") {
            out.insert("metadata".into(), metadata.clone());
        }
        Value::Object(out)
    }
}

fn copy(from: &Value, key: &str, to: &mut Map<String, Value>, as_key: &str) {
    if let Some(v) = from.get(key) {
        to.insert(as_key.into(), v.clone());
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_are_read_strictly() {
        let mut r = Reading::default();
        let task =
            json!({"kind": "task", "id": "t", "contextId": "c", "status": {"state": "canceled"}});
        let read = r.result(Form::JsonRpc, "SendMessage", &task);
        assert_eq!(read["task"]["status"]["state"], "TASK_STATE_CANCELED");
        assert!(r.problems.is_empty() && r.state_problems.is_empty());
        for wrong in ["cancelled", "TASK_STATE_CANCELED"] {
            let mut r = Reading::default();
            let t = json!({"kind": "task", "id": "t", "status": {"state": wrong}});
            let read = r.task(Form::JsonRpc, &t);
            assert!(read["status"]["state"]
                .as_str()
                .is_some_and(|s| s.starts_with("UNKNOWN")));
            assert_eq!(r.state_problems.len(), 1);
        }
        let mut r = Reading::default();
        r.result(
            Form::JsonRpc,
            "SendMessage",
            &json!({"task": {"id": "t", "status": {"state": "TASK_STATE_COMPLETED"}}}),
        );
        assert_eq!(r.problems.len(), 2, "{:?}", r.problems);
        assert_eq!(r.state_problems.len(), 1, "{:?}", r.state_problems);
        let mut r = Reading::default();
        let t = r.task(
            Form::Proto,
            &json!({"id": "t", "status": {"state": "TASK_STATE_CANCELLED"}}),
        );
        assert_eq!(t["status"]["state"], "TASK_STATE_CANCELED");
        assert!(r.problems.is_empty());
        r.task(
            Form::Proto,
            &json!({"id": "t", "status": {"state": "TASK_STATE_CANCELED"}}),
        );
        assert_eq!(r.state_problems.len(), 1);
        // A 1.0 part in the 0.3 proto JSON is a problem, not silently read.
        let mut r = Reading::default();
        r.message(
            Form::Proto,
            &json!({"messageId": "m", "role": "ROLE_USER", "content": [{"raw": "dGNr"}, {"data": {"a": 1}}]}),
        );
        assert_eq!(r.problems.len(), 2, "{:?}", r.problems);
    }
}

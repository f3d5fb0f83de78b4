//! Members that belong only to the other protocol version: `kind`, `final`, `content`,
//! `file` or the nested push config in a 1.0 message; `raw`, `url`, `filename`,
//! `mediaType` or the flat push config in a 0.3 one. The schemas allow unknown members
//! (clients must tolerate them), so these are found by walking the message's known
//! structure; members that belong to neither version are not reported.

use serde_json::Value;

/// The form a message is judged in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    /// 1.0 ProtoJSON (every binding).
    V1_0,
    /// 0.3 JSON-RPC (types.ts JSON).
    JsonRpc03,
    /// 0.3 proto JSON (gRPC, REST).
    Proto03,
}

/// What the message is the result of.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Root {
    Send,
    Stream,
    Task,
    ListTasks,
    PushConfig,
    PushConfigList,
    Other,
}

/// Appends to `out` every member of `value` that only the other version has.
pub fn fields(form: Form, root: Root, value: &Value, out: &mut Vec<String>) {
    let mut walk = Walk { form, out };
    match root {
        Root::Send | Root::Stream => walk.result(value, "result"),
        Root::Task => walk.task(value, "task"),
        Root::ListTasks => {
            for (i, task) in items(value, "tasks").enumerate() {
                walk.task(task, &format!("tasks[{i}]"));
            }
        }
        Root::PushConfig => walk.push_config(value, "config"),
        Root::PushConfigList => {
            let list = value
                .as_array()
                .map(|a| a.iter().collect::<Vec<_>>())
                .unwrap_or_else(|| items(value, "configs").collect());
            for (i, config) in list.into_iter().enumerate() {
                walk.push_config(config, &format!("configs[{i}]"));
            }
        }
        Root::Other => {}
    }
}

fn items<'a>(value: &'a Value, key: &str) -> impl Iterator<Item = &'a Value> {
    value
        .get(key)
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

struct Walk<'a> {
    form: Form,
    out: &'a mut Vec<String>,
}

impl Walk<'_> {
    fn other(&self) -> &'static str {
        match self.form {
            Form::V1_0 => "a 0.3 member, not in 1.0",
            Form::JsonRpc03 | Form::Proto03 => "a 1.0 member, not in 0.3",
        }
    }

    fn flag(&mut self, value: &Value, at: &str, keys: &[&str]) {
        for key in keys {
            if value.get(key).is_some() {
                let other = self.other();
                self.out.push(format!("{at}.{key} ({other})"));
            }
        }
    }

    /// A send result or stream event: a wrapper (1.0, 0.3 proto) or a bare object with
    /// `kind` (0.3 JSON-RPC).
    fn result(&mut self, value: &Value, at: &str) {
        if self.form == Form::JsonRpc03 || value.get("kind").is_some() {
            if self.form == Form::V1_0 {
                self.flag(value, at, &["kind"]);
            }
            match value.get("kind").and_then(Value::as_str) {
                Some("task") => self.task(value, at),
                Some("message") => self.message(value, at),
                Some("status-update") => self.status_update(value, at),
                Some("artifact-update") => self.artifact_update(value, at),
                _ => {}
            }
            return;
        }
        if let Some(task) = value.get("task") {
            self.task(task, &format!("{at}.task"));
        }
        if let Some(message) = value.get("message") {
            self.message(message, &format!("{at}.message"));
        }
        if let Some(update) = value.get("statusUpdate") {
            self.status_update(update, &format!("{at}.statusUpdate"));
        }
        if let Some(update) = value.get("artifactUpdate") {
            self.artifact_update(update, &format!("{at}.artifactUpdate"));
        }
    }

    fn task(&mut self, task: &Value, at: &str) {
        if self.form == Form::V1_0 {
            self.flag(task, at, &["kind"]);
        }
        if let Some(status) = task.get("status") {
            self.status(status, &format!("{at}.status"));
        }
        for (i, message) in items(task, "history").enumerate() {
            self.message(message, &format!("{at}.history[{i}]"));
        }
        for (i, artifact) in items(task, "artifacts").enumerate() {
            self.artifact(artifact, &format!("{at}.artifacts[{i}]"));
        }
    }

    fn status(&mut self, status: &Value, at: &str) {
        if let Some(message) = status.get("message") {
            self.message(message, &format!("{at}.message"));
        }
    }

    fn message(&mut self, message: &Value, at: &str) {
        if self.form == Form::V1_0 {
            self.flag(message, at, &["kind", "content"]);
        }
        for key in ["parts", "content"] {
            for (i, part) in items(message, key).enumerate() {
                self.part(part, &format!("{at}.{key}[{i}]"));
            }
        }
    }

    fn part(&mut self, part: &Value, at: &str) {
        match self.form {
            Form::V1_0 => self.flag(part, at, &["kind", "file"]),
            Form::JsonRpc03 | Form::Proto03 => {
                self.flag(part, at, &["raw", "url", "filename", "mediaType"])
            }
        }
    }

    fn artifact(&mut self, artifact: &Value, at: &str) {
        for (i, part) in items(artifact, "parts").enumerate() {
            self.part(part, &format!("{at}.parts[{i}]"));
        }
    }

    fn status_update(&mut self, update: &Value, at: &str) {
        if self.form == Form::V1_0 {
            self.flag(update, at, &["kind", "final"]);
        }
        if let Some(status) = update.get("status") {
            self.status(status, &format!("{at}.status"));
        }
    }

    fn artifact_update(&mut self, update: &Value, at: &str) {
        if self.form == Form::V1_0 {
            self.flag(update, at, &["kind"]);
        }
        if let Some(artifact) = update.get("artifact") {
            self.artifact(artifact, &format!("{at}.artifact"));
        }
    }

    fn push_config(&mut self, config: &Value, at: &str) {
        match self.form {
            Form::V1_0 => self.flag(config, at, &["pushNotificationConfig"]),
            Form::JsonRpc03 | Form::Proto03 => {
                self.flag(config, at, &["url", "token", "authentication"]);
                let nested = config.get("pushNotificationConfig");
                if let Some(auth) = nested.and_then(|c| c.get("authentication")) {
                    self.flag(
                        auth,
                        &format!("{at}.pushNotificationConfig.authentication"),
                        &["scheme"],
                    );
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn finds_other_version_members() {
        let mut out = Vec::new();
        let event = json!({"statusUpdate": {"taskId": "t", "contextId": "c", "final": true,
            "status": {"state": "TASK_STATE_WORKING"}}});
        fields(Form::V1_0, Root::Stream, &event, &mut out);
        assert_eq!(
            out,
            vec!["result.statusUpdate.final (a 0.3 member, not in 1.0)"]
        );
        out.clear();
        let task = json!({"kind": "task", "id": "t", "status": {"state": "completed"},
            "artifacts": [{"artifactId": "a", "parts": [{"kind": "text", "text": "x", "mediaType": "m"}]}]});
        fields(Form::JsonRpc03, Root::Send, &task, &mut out);
        assert_eq!(
            out,
            vec!["result.artifacts[0].parts[0].mediaType (a 1.0 member, not in 0.3)"]
        );
    }
}

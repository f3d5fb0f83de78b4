//! Setup and reading shared by the push checks (`push.rs`, `push_delivery.rs`): an open task,
//! configs pointing at the kit's webhook receiver under keys of the check's own, driving the
//! task to its terminal state, and the notifications read back in one form for both
//! versions.

use std::time::Duration;

use serde_json::{json, Value};

use crate::exchange::judge;
use crate::exchange::transport::Reply;
use crate::exchange::webhook::Delivery;
use crate::facts::a2a::{self, ErrorKind};
use crate::facts::model::ProtocolVersion;
use crate::suite::check::HarnessError;
use crate::suite::checks::setup::{task_id, Setup};
use crate::suite::ctx::{Answer, Ctx};

/// The scenario that keeps a task open for its configs (official contract).
pub const OPEN: &str = "tck-input-required";
/// The follow-up that drives the open task to COMPLETED through an artifact.
pub const FINISH: &str = "tck-artifact-text";

/// Setup: an open (input-required) task.
pub async fn open_task(ctx: &Ctx) -> Result<Value, HarnessError> {
    ctx.create_task_in_state(OPEN, "TASK_STATE_INPUT_REQUIRED")
        .await
}

/// The label under which the receiver keeps the keys made on `ctx`'s interface: its binding,
/// version, URL and tenant.
pub fn owner(ctx: &Ctx) -> String {
    match &ctx.interface {
        Some(i) => format!(
            "{} {} {} {}",
            i.binding,
            i.version,
            i.url,
            i.tenant.as_deref().unwrap_or_default()
        ),
        None => String::new(),
    }
}

/// What a config the kit registers carries, so that the webhook calls can be checked.
#[derive(Debug, Clone)]
pub struct Hook {
    pub key: String,
    pub url: String,
    pub token: String,
    pub credentials: String,
    /// Whether the config carries `authentication`: cleared when the agent refused the
    /// config with it and took it without (see [`create`]).
    authenticated: std::sync::Arc<std::sync::atomic::AtomicBool>,
}

impl Hook {
    /// A fresh key of this check on the run's receiver, with a token and credentials,
    /// registered as made on the check's interface (see [`owner`]).
    pub fn new(ctx: &Ctx) -> Result<Hook, HarnessError> {
        let key = ctx.id("tck-push-hook");
        let webhook = ctx.webhook()?;
        webhook.register(&key, &owner(ctx));
        Ok(Hook {
            url: webhook.url_for(&key),
            key,
            token: ctx.id("tck-push-token"),
            credentials: ctx.id("tck-push-secret"),
            authenticated: std::sync::Arc::new(std::sync::atomic::AtomicBool::new(true)),
        })
    }

    /// The 1.0 `TaskPushNotificationConfig` of this hook (no task id: inline form). It names
    /// its own id, the hook's key: an agent that gives every config without an id the same
    /// default one (a2a-sdk uses the task id) would otherwise let a second config of the task
    /// replace the first.
    pub fn config(&self) -> Value {
        let mut config = json!({ "id": self.key, "url": self.url, "token": self.token });
        if self.authenticated() {
            config["authentication"] =
                json!({ "scheme": "Bearer", "credentials": self.credentials });
        }
        config
    }

    /// Whether the agent took this hook's config with its `authentication`.
    pub fn authenticated(&self) -> bool {
        self.authenticated
            .load(std::sync::atomic::Ordering::Relaxed)
    }

    /// The config for `task` (CreateTaskPushNotificationConfig params).
    pub fn for_task(&self, task: &str) -> Value {
        let mut config = self.config();
        config["taskId"] = json!(task);
        config
    }
}

/// Why the agent's refusal of the kit's webhook URL leaves a check untestable.
pub fn refused(reply: &Reply, url: &str) -> HarnessError {
    let answer = match &reply.read {
        Ok(answer) => answer.describe(),
        Err(unreadable) => unreadable.clone(),
    };
    HarnessError::Prerequisite(format!(
        "the agent refused the push config for the webhook URL {url} with InvalidParams \
         ({answer}); if it refuses loopback or private addresses (SSRF protection, spec 1.0 \
         §13.2), give it a URL it accepts with --webhook-url"
    ))
}

/// CreateTaskPushNotificationConfig of `hook` on `task`: the reply as received. A config
/// refused with its `authentication` is tried once more without it (one agent takes only
/// another form of it), so that one refusal does not hide every push check; when that is
/// taken, the hook is marked unauthenticated (the credentials check then says so) and the
/// refused exchange stays in the evidence.
pub async fn create(ctx: &Ctx, task: &str, hook: &Hook) -> Result<Reply, HarnessError> {
    let params = ctx.with_tenant(hook.for_task(task))?;
    let first = ctx.create_push_config(params).await?;
    if !hook.authenticated() || matches!(first.read, Ok(Answer::Result(_))) {
        return Ok(first);
    }
    hook.authenticated
        .store(false, std::sync::atomic::Ordering::Relaxed);
    let params = ctx.with_tenant(hook.for_task(task))?;
    let second = ctx.create_push_config(params).await?;
    if matches!(second.read, Ok(Answer::Result(_))) {
        return Ok(second);
    }
    hook.authenticated
        .store(true, std::sync::atomic::Ordering::Relaxed);
    // Refused again: the second answer speaks for the request when the first was only a
    // refusal of its shape (not in the binding's error form, or InvalidParams) and the
    // second says something else (TaskNotFoundError for a task that does not exist).
    let shape_refusal = |reply: &Reply| match &reply.read {
        Ok(Answer::Error(e)) => {
            e.shape_problem.is_some()
                || (e.code.is_none() && e.error_info.is_none() && e.status.is_none())
                || crate::suite::checks::setup::names_error(e, ErrorKind::InvalidParams)
        }
        Ok(Answer::Result(_)) => false,
        Err(_) => true,
    };
    Ok(if shape_refusal(&first) && !shape_refusal(&second) {
        second
    } else {
        first
    })
}

/// Setup: a config of `hook` on `task` that the agent accepted (its answer).
pub async fn created(ctx: &Ctx, task: &str, hook: &Hook) -> Result<Value, HarnessError> {
    let reply = create(ctx, task, hook).await?;
    if judge::is_error(&reply, ErrorKind::InvalidParams) {
        return Err(refused(&reply, &hook.url));
    }
    match reply.answer()? {
        Answer::Result(config) if config.is_object() => Ok(config),
        other => Err(HarnessError::Prerequisite(format!(
            "CreateTaskPushNotificationConfig did not answer a config: {}",
            other.describe()
        ))),
    }
}

/// SendMessage of a message playing [`OPEN`] with `hook`'s config inline
/// (`SendMessageConfiguration.taskPushNotificationConfig`): the reply as received. Refused
/// with its `authentication`, it is tried once without it, as a config is (the refusal stays
/// in the evidence).
pub async fn send_inline(ctx: &Ctx, hook: &Hook) -> Result<Reply, HarnessError> {
    let message = ctx.user_message(OPEN);
    let configuration = json!({ "taskPushNotificationConfig": hook.config() });
    let params = json!({ "message": message, "configuration": configuration });
    let reply = ctx.send(params).await?;
    if matches!(reply.read, Ok(Answer::Result(_))) {
        return Ok(reply);
    }
    let mut bare = hook.config();
    if let Some(config) = bare.as_object_mut() {
        config.remove("authentication");
    }
    let message = ctx.user_message(OPEN);
    let configuration = json!({ "taskPushNotificationConfig": bare });
    let params = json!({ "message": message, "configuration": configuration });
    let retry = ctx.send(params).await?;
    Ok(if matches!(retry.read, Ok(Answer::Result(_))) {
        retry
    } else {
        reply
    })
}

/// The id of a config the agent answered.
pub fn config_id(config: &Value) -> String {
    a2a::text(config, "id").unwrap_or_default().to_string()
}

/// Setup: the follow-up that drives `task` to its terminal state, seen to move it.
pub async fn finish(ctx: &Ctx, task: &Value) -> Result<(), HarnessError> {
    crate::suite::checks::setup::release(ctx, task, FINISH)
        .await
        .map(drop)
}

/// The config ids a list answer holds, and its nextPageToken.
pub fn listed(answer: &Answer) -> Option<(Vec<String>, String)> {
    let result = answer.result().filter(|r| r.is_object())?;
    // ProtoJSON leaves an empty list out.
    let configs = result.get("configs").and_then(Value::as_array);
    let ids = configs.into_iter().flatten().map(config_id).collect();
    let token = a2a::text(result, "nextPageToken")
        .unwrap_or_default()
        .to_string();
    Some((ids, token))
}

/// ListTaskPushNotificationConfigs of `task` with extra params.
pub async fn list(ctx: &Ctx, task: &str, extra: Value) -> Result<Answer, HarnessError> {
    let mut params = json!({ "taskId": task });
    if let (Some(p), Some(e)) = (params.as_object_mut(), extra.as_object()) {
        p.extend(e.clone());
    }
    let params = ctx.with_tenant(params)?;
    ctx.list_push_configs(params).await?.answer()
}

/// One webhook call read back: what it is, for which task, in which state.
#[derive(Debug, Clone)]
pub struct Note {
    /// `task`, `statusUpdate`, `artifactUpdate`, `message`, or `None` when it is none.
    pub kind: Option<&'static str>,
    pub task_id: Option<String>,
    /// The task state (1.0 name) of a status update or a Task.
    pub state: Option<String>,
    /// Artifact ids an artifact update or a Task carries.
    pub artifacts: Vec<String>,
    /// The body was a 0.3 Task (`kind: "task"` or the bare Task), not a `StreamResponse`.
    pub bare_task: bool,
}

/// A 0.3 or 1.0 state name in its 1.0 spelling.
fn state_1_0(state: &str) -> String {
    match state {
        "submitted" => "TASK_STATE_SUBMITTED",
        "working" => "TASK_STATE_WORKING",
        "input-required" => "TASK_STATE_INPUT_REQUIRED",
        "auth-required" => "TASK_STATE_AUTH_REQUIRED",
        "completed" => "TASK_STATE_COMPLETED",
        "canceled" | "TASK_STATE_CANCELLED" => "TASK_STATE_CANCELED",
        "failed" => "TASK_STATE_FAILED",
        "rejected" => "TASK_STATE_REJECTED",
        other => other,
    }
    .to_string()
}

fn artifact_ids(task: &Value) -> Vec<String> {
    a2a::items(task, "artifacts")
        .filter_map(|a| a2a::text(a, "artifactId").map(str::to_string))
        .collect()
}

/// Reads one call: a 1.0 `StreamResponse`, or a Task (0.3's payload).
pub fn note(delivery: &Delivery) -> Note {
    let empty = Note {
        kind: None,
        task_id: None,
        state: None,
        artifacts: Vec::new(),
        bare_task: false,
    };
    let Some(body) = delivery.json.as_ref().filter(|b| b.is_object()) else {
        return empty;
    };
    let state_of =
        |status: Option<&Value>| status.and_then(|s| a2a::text(s, "state")).map(state_1_0);
    for kind in ["task", "statusUpdate", "artifactUpdate", "message"] {
        if let Some(inner) = body.get(kind).filter(|i| i.is_object()) {
            let task_id = match kind {
                "task" => a2a::text(inner, "id"),
                _ => a2a::text(inner, "taskId"),
            };
            let artifacts = match kind {
                "task" => artifact_ids(inner),
                "artifactUpdate" => inner
                    .get("artifact")
                    .and_then(|a| a2a::text(a, "artifactId"))
                    .map(str::to_string)
                    .into_iter()
                    .collect(),
                _ => Vec::new(),
            };
            return Note {
                kind: Some(kind),
                task_id: task_id.map(str::to_string),
                state: state_of(inner.get("status")),
                artifacts,
                bare_task: false,
            };
        }
    }
    // A bare Task: `kind: "task"` (0.3 JSON) or an id with a status.
    let is_task = a2a::text(body, "kind") == Some("task")
        || (body.get("kind").is_none() && body.get("id").is_some() && body.get("status").is_some());
    if is_task {
        return Note {
            kind: Some("task"),
            task_id: a2a::text(body, "id").map(str::to_string),
            state: state_of(body.get("status")),
            artifacts: artifact_ids(body),
            bare_task: true,
        };
    }
    empty
}

/// Whether a call tells of a terminal state.
pub fn is_terminal(delivery: &Delivery) -> bool {
    note(delivery)
        .state
        .is_some_and(|s| a2a::TERMINAL_STATES.contains(&s.as_str()))
}

/// Waits until the terminal state reached `hook`; no call at all means the agent cannot
/// reach the kit or never delivers: a missing prerequisite, never a pass.
pub async fn until_terminal(ctx: &Ctx, hook: &Hook) -> Result<Vec<Delivery>, HarnessError> {
    let wait: Duration = ctx.stream_wait();
    let got = ctx
        .webhook()?
        .wait_until(&hook.key, wait, |d| d.iter().any(is_terminal))
        .await;
    if got.is_empty() {
        let stray = ctx.webhook()?.stray();
        let stray = if stray > 0 {
            format!(
                " ({stray} call(s) of this run reached the receiver on a path other than the \
                 URL given: the agent may drop or rewrite the webhook path)"
            )
        } else {
            String::new()
        };
        return Err(HarnessError::Prerequisite(format!(
            "no notification reached the kit's webhook at {} within {} s: the agent cannot \
             reach the kit at this address (give one it can reach with --webhook-url), or it \
             never delivers{stray}",
            hook.url,
            wait.as_secs_f32()
        )));
    }
    Ok(got)
}

/// Setup of the delivery checks: an open task with a config of a fresh hook, driven to its
/// terminal state; the calls that hook received (at least one).
pub async fn delivered(ctx: &Ctx) -> Result<(Value, Hook, Vec<Delivery>), HarnessError> {
    let task = open_task(ctx).await?;
    let hook = Hook::new(ctx)?;
    created(ctx, &task_id(&task), &hook).await?;
    finish(ctx, &task).await?;
    let got = until_terminal(ctx, &hook).await?;
    Ok((task, hook, got))
}

/// The calls, briefly, for evidence.
pub fn shown(got: &[Delivery]) -> String {
    let items: Vec<String> = got.iter().map(Delivery::brief).collect();
    format!("{} call(s): {}", got.len(), items.join(" | "))
}

/// What the calls were, without ids or timestamps (a pass message, stable across runs):
/// `3 call(s): statusUpdate(TASK_STATE_WORKING), artifactUpdate, ...`.
pub fn summary(got: &[Delivery]) -> String {
    let items: Vec<String> = got
        .iter()
        .map(|d| {
            let n = note(d);
            let kind = n.kind.unwrap_or("unreadable");
            match n.state {
                Some(state) => format!("{kind}({state})"),
                None => kind.to_string(),
            }
        })
        .collect();
    format!("{} call(s): {}", got.len(), items.join(", "))
}

/// The payload rule of the interface's version, for expectations.
pub fn payload_rule(version: ProtocolVersion) -> &'static str {
    match version {
        ProtocolVersion::V1_0 => "each webhook call carries a StreamResponse (task, message, statusUpdate or artifactUpdate) of the task",
        ProtocolVersion::V0_3 => "each webhook call carries the Task (0.3's example; a 1.0 StreamResponse is tolerated)",
    }
}

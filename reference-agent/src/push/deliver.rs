//! Delivery: every status and artifact update of a task is POSTed to the webhook of each of
//! its configs, off the request path (one worker per task: the calls of all its configs go
//! out one after another, in the order of the updates), each with a bounded timeout. The body
//! is the update in the form of the config's version: 1.0 a `StreamResponse`, 0.3 the Task as
//! it stands after the update. The token goes in `X-A2A-Notification-Token`, the
//! `authentication` in `Authorization: <scheme> <credentials>`.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;

use super::{ConfigVersion, PushConfig, PushPolicy, PushStore};
use crate::model::{Event, Task};
use crate::v03_codec::{self as codec, Dialect};
use crate::wire::{self, TaskView};

/// How long one webhook call may take (spec 1.0 §4.3.3 recommends 10 to 30 s).
pub const CALL_TIMEOUT: Duration = Duration::from_secs(10);

/// The header that carries a config's token.
pub const TOKEN_HEADER: &str = "X-A2A-Notification-Token";

/// One webhook call.
#[derive(Debug, Clone)]
struct Call {
    url: String,
    headers: Vec<(&'static str, String)>,
    body: Vec<u8>,
}

#[derive(Debug)]
struct Worker {
    calls: mpsc::UnboundedSender<Call>,
    /// Per config id, a call held back to go out after its next one (fault
    /// `push-out-of-order`).
    held: HashMap<String, Call>,
}

/// Sends the updates of tasks to their configs' webhooks.
#[derive(Debug)]
pub struct Dispatcher {
    configs: Arc<PushStore>,
    policy: PushPolicy,
    view: TaskView,
    /// Per task id.
    workers: Mutex<HashMap<String, Worker>>,
}

fn client() -> Option<&'static reqwest::Client> {
    static CLIENT: OnceLock<Option<reqwest::Client>> = OnceLock::new();
    CLIENT
        .get_or_init(|| {
            // reqwest is built without a bundled crypto provider; use ring (installing
            // twice is harmless).
            let _ = rustls::crypto::ring::default_provider().install_default();
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .connect_timeout(Duration::from_secs(5))
                .timeout(CALL_TIMEOUT)
                .user_agent(concat!("a2a-reference-agent/", env!("CARGO_PKG_VERSION")))
                .build()
                .ok()
        })
        .as_ref()
}

impl Dispatcher {
    pub fn new(configs: Arc<PushStore>, policy: PushPolicy, view: TaskView) -> Dispatcher {
        Dispatcher {
            configs,
            policy,
            view,
            workers: Mutex::new(HashMap::new()),
        }
    }

    /// Called with each update as the store applies it (under its lock, so in order).
    pub fn on_update(&self, task: &Task, event: &Event) {
        let (terminal, artifact) = match event {
            Event::Status(update) => (update.status.state.is_terminal(), false),
            Event::Artifact(_) => (false, true),
            Event::Task(_) | Event::Message(_) => return,
        };
        if terminal && self.policy.skips_terminal {
            return;
        }
        if self.policy.one_at_terminal && !terminal {
            return;
        }
        let targets = self.configs.targets(&task.id);
        if targets.is_empty() {
            return;
        }
        let mut workers = self.workers.lock().unwrap_or_else(PoisonError::into_inner);
        for config in targets {
            let Some(body) = self.payload(config.version, task, event) else {
                continue;
            };
            let call = self.call(&config, body);
            self.configs.mark_delivered(&config);
            let worker = match workers.get_mut(&config.task_id) {
                Some(worker) => worker,
                None => match spawn_worker() {
                    Some(worker) => workers.entry(config.task_id.clone()).or_insert(worker),
                    None => continue,
                },
            };
            let out_of_order = self.policy.out_of_order
                || (self.policy.inline_out_of_order && self.configs.is_inline(&config));
            if out_of_order && artifact && !worker.held.contains_key(&config.id) {
                worker.held.insert(config.id.clone(), call);
                continue;
            }
            let _ = worker.calls.send(call);
            if let Some(held) = worker.held.remove(&config.id) {
                let _ = worker.calls.send(held);
            }
        }
    }

    /// The body of a webhook call for a config of `version`.
    fn payload(&self, version: ConfigVersion, task: &Task, event: &Event) -> Option<Vec<u8>> {
        if self.policy.one_at_terminal && version == ConfigVersion::V1_0 {
            // The one call: the final Task, artifacts and terminal status together.
            let mut snapshot = task.clone();
            if let Event::Status(update) = event {
                snapshot.status = update.status.clone();
            }
            let value = wire::event(&Event::Task(snapshot), self.view).ok()?;
            return serde_json::to_vec(&value).ok();
        }
        let value = match (version, self.policy.payload_bare) {
            (ConfigVersion::V1_0, false) => wire::event(event, self.view).ok()?,
            (ConfigVersion::V1_0, true) => {
                let wrapped = wire::event(event, self.view).ok()?;
                wrapped.as_object()?.values().next()?.clone()
            }
            (ConfigVersion::V0_3, false) => {
                let mut snapshot = task.clone();
                if let Event::Status(update) = event {
                    snapshot.status = update.status.clone();
                }
                codec::task_out(Dialect::JsonRpc, wire::task(&snapshot, self.view).ok()?)
            }
            (ConfigVersion::V0_3, true) => {
                codec::event_out(Dialect::JsonRpc, wire::event(event, self.view).ok()?)
            }
        };
        serde_json::to_vec(&value).ok()
    }

    fn call(&self, config: &PushConfig, body: Vec<u8>) -> Call {
        let content_type = match config.version {
            ConfigVersion::V1_0 => "application/a2a+json",
            ConfigVersion::V0_3 => "application/json",
        };
        let mut headers = vec![("content-type", content_type.to_owned())];
        if !config.token.is_empty() && !self.policy.token_missing {
            headers.push((TOKEN_HEADER, config.token.clone()));
        }
        if let Some(auth) = config.authentication.as_ref() {
            if !self.policy.auth_missing {
                let value = format!("{} {}", auth.scheme, auth.credentials);
                headers.push(("authorization", value.trim_end().to_owned()));
            }
        }
        Call {
            url: config.url.clone(),
            headers,
            body,
        }
    }
}

/// A worker sending one config's calls in order, or none outside a runtime.
fn spawn_worker() -> Option<Worker> {
    let runtime = tokio::runtime::Handle::try_current().ok()?;
    let (calls, mut queue) = mpsc::unbounded_channel::<Call>();
    runtime.spawn(async move {
        while let Some(call) = queue.recv().await {
            let Some(client) = client() else { continue };
            let mut request = client.post(&call.url).body(call.body);
            for (name, value) in &call.headers {
                request = request.header(*name, value);
            }
            // At least one attempt; a failed call is not retried (retries are a MAY).
            let _ = request.send().await.map(drop);
        }
    });
    Some(Worker {
        calls,
        held: HashMap::new(),
    })
}

/// The 1.0 ProtoJSON of a config (`TaskPushNotificationConfig`).
pub fn config_json(config: &PushConfig) -> Value {
    let mut out = serde_json::Map::new();
    out.insert("id".into(), Value::from(config.id.clone()));
    out.insert("taskId".into(), Value::from(config.task_id.clone()));
    out.insert("url".into(), Value::from(config.url.clone()));
    if !config.token.is_empty() {
        out.insert("token".into(), Value::from(config.token.clone()));
    }
    if let Some(auth) = &config.authentication {
        let mut a = serde_json::Map::new();
        a.insert("scheme".into(), Value::from(auth.scheme.clone()));
        if !auth.credentials.is_empty() {
            a.insert("credentials".into(), Value::from(auth.credentials.clone()));
        }
        out.insert("authentication".into(), Value::Object(a));
    }
    Value::Object(out)
}

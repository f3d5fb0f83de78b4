//! Push notifications: the configs of each task (plain serde values keyed by task id and
//! config id, so a durable store can save and load them as they are), the four config
//! operations in 1.0 ProtoJSON ([`ops`]), their 0.3 forms ([`v03`]), and delivery to the
//! webhooks ([`deliver`]). Only loopback webhooks are accepted unless the agent is started
//! with `--push-allow-any-host`, so a test agent cannot be used to make requests elsewhere.

pub mod deliver;
pub mod ops;
pub mod v03;

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use serde::{Deserialize, Serialize};

use crate::store::durable::{self, Durable};

/// The protocol version a config was made through: it decides the payload of its webhook
/// calls (1.0: a `StreamResponse`; 0.3: the Task).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum ConfigVersion {
    #[serde(rename = "1.0")]
    V1_0,
    #[serde(rename = "0.3")]
    V0_3,
}

/// `AuthenticationInfo` of 1.0 (0.3's `schemes[]` keeps its first scheme).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Authentication {
    pub scheme: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub credentials: String,
}

/// One stored push config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct PushConfig {
    pub task_id: String,
    pub id: String,
    pub url: String,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    pub token: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub authentication: Option<Authentication>,
    pub version: ConfigVersion,
    /// Creation order (List answers in it).
    pub seq: u64,
}

pub use crate::policy::features::PushPolicy;

#[derive(Debug, Default)]
struct Configs {
    by_key: BTreeMap<(String, String), PushConfig>,
    next: u64,
    /// Deleted configs still called (faults `push-after-delete`,
    /// `push-after-delete-once-delivered` only).
    deleted: Vec<PushConfig>,
    /// The (task id, config id) of configs sent inline with SendMessage.
    inline: BTreeSet<(String, String)>,
    /// The (task id, config id) of configs at least one call was sent to.
    delivered: BTreeSet<(String, String)>,
}

/// The push configs of every task.
#[derive(Debug, Default)]
pub struct PushStore {
    configs: Mutex<Configs>,
    /// Where every change is written through (`--store sqlite:PATH`).
    durable: std::sync::OnceLock<Arc<Durable>>,
}

impl PushStore {
    fn lock(&self) -> MutexGuard<'_, Configs> {
        self.configs.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Every stored config, in creation order (to save them).
    pub fn snapshot(&self) -> Vec<PushConfig> {
        let mut all: Vec<PushConfig> = self.lock().by_key.values().cloned().collect();
        all.sort_by_key(|c| c.seq);
        all
    }

    /// Replaces the stored configs (to load saved ones).
    pub fn restore(&self, configs: Vec<PushConfig>) {
        let mut state = self.lock();
        state.next = configs.iter().map(|c| c.seq + 1).max().unwrap_or(0);
        state.by_key = configs
            .into_iter()
            .map(|c| ((c.task_id.clone(), c.id.clone()), c))
            .collect();
    }

    /// Loads the configs saved in `durable` (unless `forget`, a fault) and writes every later
    /// change through to it.
    pub fn persist_to(&self, durable: Arc<Durable>, forget: bool) -> Result<(), String> {
        if !forget {
            let saved = durable.load_all(durable::PUSH_CONFIG)?;
            let configs = saved
                .into_iter()
                .map(|(key, value)| {
                    serde_json::from_value(value)
                        .map_err(|e| format!("SQLite store: push config {key}: {e}"))
                })
                .collect::<Result<Vec<PushConfig>, String>>()?;
            self.restore(configs);
        }
        let _ = self.durable.set(durable);
        Ok(())
    }

    /// Writes `config` through (or, `removed`, its removal), when there is a durable store.
    fn write_through(&self, config: &PushConfig, removed: bool) {
        let Some(durable) = self.durable.get() else {
            return;
        };
        let key = format!("{}/{}", config.task_id, config.id);
        let written = match (removed, serde_json::to_value(config)) {
            (true, _) => durable.delete(durable::PUSH_CONFIG, &key),
            (false, Ok(value)) => durable.save(durable::PUSH_CONFIG, &key, &value),
            (false, Err(e)) => Err(e.to_string()),
        };
        if let Err(e) = written {
            eprintln!("a2a-reference-agent: {e}");
        }
    }

    /// Stores `config`; an empty id gets one. Returns the stored config.
    pub fn put(&self, mut config: PushConfig) -> PushConfig {
        let mut state = self.lock();
        state.next += 1;
        config.seq = state.next;
        if config.id.is_empty() {
            config.id = format!("push-config-{}", state.next);
        }
        let key = (config.task_id.clone(), config.id.clone());
        state.by_key.insert(key, config.clone());
        drop(state);
        self.write_through(&config, false);
        config
    }

    /// Stores `config`, sent inline with SendMessage (see [`PushStore::put`]).
    pub fn put_inline(&self, config: PushConfig) -> PushConfig {
        let stored = self.put(config);
        let key = (stored.task_id.clone(), stored.id.clone());
        self.lock().inline.insert(key);
        stored
    }

    /// Whether `config` was sent inline with SendMessage.
    pub fn is_inline(&self, config: &PushConfig) -> bool {
        let key = (config.task_id.clone(), config.id.clone());
        self.lock().inline.contains(&key)
    }

    /// Notes that a call to `config` went out.
    pub fn mark_delivered(&self, config: &PushConfig) {
        let key = (config.task_id.clone(), config.id.clone());
        self.lock().delivered.insert(key);
    }

    /// Whether a call to the config `id` of `task_id` went out.
    pub fn was_delivered(&self, task_id: &str, id: &str) -> bool {
        let key = (task_id.to_owned(), id.to_owned());
        self.lock().delivered.contains(&key)
    }

    pub fn get(&self, task_id: &str, id: &str) -> Option<PushConfig> {
        let key = (task_id.to_owned(), id.to_owned());
        self.lock().by_key.get(&key).cloned()
    }

    /// The configs of a task, in creation order.
    pub fn of_task(&self, task_id: &str) -> Vec<PushConfig> {
        let mut configs: Vec<PushConfig> = (self.lock().by_key.values())
            .filter(|c| c.task_id == task_id)
            .cloned()
            .collect();
        configs.sort_by_key(|c| c.seq);
        configs
    }

    /// Removes a config; `keep_calling` keeps delivering to it (a fault).
    pub fn remove(&self, task_id: &str, id: &str, keep_calling: bool) {
        let mut state = self.lock();
        let key = (task_id.to_owned(), id.to_owned());
        let removed = state.by_key.remove(&key);
        if let Some(config) = &removed {
            self.write_through(config, true);
        }
        match (removed, keep_calling) {
            (Some(config), true) => state.deleted.push(config),
            // Forgotten: a later config of the same id starts afresh.
            _ => {
                state.inline.remove(&key);
                state.delivered.remove(&key);
            }
        }
    }

    /// The configs whose webhooks a task's updates go to (with deleted ones under the fault).
    pub fn targets(&self, task_id: &str) -> Vec<PushConfig> {
        let mut configs = self.of_task(task_id);
        let state = self.lock();
        configs.extend(
            state
                .deleted
                .iter()
                .filter(|c| c.task_id == task_id)
                .cloned(),
        );
        configs
    }
}

/// Whether a webhook URL may be called: `http`/`https` to a loopback host (127.0.0.0/8,
/// `::1`, `localhost`), or any host when allowed. The error says why not.
pub fn check_url(url: &str, allow_any_host: bool) -> Result<(), String> {
    let parsed = reqwest::Url::parse(url).map_err(|e| format!("`{url}` is not a URL: {e}"))?;
    if !matches!(parsed.scheme(), "http" | "https") {
        return Err(format!("`{url}`: only http and https webhooks are called"));
    }
    if allow_any_host {
        return Ok(());
    }
    let host = parsed.host_str().unwrap_or_default();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let loopback = host.eq_ignore_ascii_case("localhost")
        || host
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback());
    if loopback {
        Ok(())
    } else {
        Err(format!(
            "`{url}` is not a loopback address: this test agent calls webhooks on 127.0.0.0/8, \
             ::1 and localhost only (start it with --push-allow-any-host to lift this)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_webhooks_unless_allowed() {
        for ok in [
            "http://127.0.0.1:9/x",
            "http://127.8.0.1/",
            "http://[::1]:80/",
            "http://LOCALHOST:1/a",
        ] {
            assert_eq!(check_url(ok, false), Ok(()), "{ok}");
        }
        for bad in [
            "http://10.0.0.1/",
            "http://example.com/",
            "ftp://127.0.0.1/",
            "nonsense",
            "http://169.254.169.254/",
        ] {
            assert!(check_url(bad, false).is_err(), "{bad}");
        }
        assert_eq!(check_url("https://example.com/hook", true), Ok(()));
    }

    fn config(task: &str, id: &str) -> PushConfig {
        PushConfig {
            task_id: task.into(),
            id: id.into(),
            url: "http://127.0.0.1:9/hook".into(),
            token: String::new(),
            authentication: None,
            version: ConfigVersion::V1_0,
            seq: 0,
        }
    }

    #[test]
    fn inline_and_delivered_marks_last_as_long_as_the_config() {
        let store = PushStore::default();
        let inline = store.put_inline(config("t", "a"));
        let created = store.put(config("t", "b"));
        assert!(store.is_inline(&inline) && !store.is_inline(&created));
        store.mark_delivered(&inline);
        assert!(store.was_delivered("t", "a") && !store.was_delivered("t", "b"));
        // Deleted for good: forgotten, and no longer a target.
        store.remove("t", "a", false);
        assert!(!store.was_delivered("t", "a") && !store.is_inline(&inline));
        // Deleted but still called (a fault): still a target.
        store.remove("t", "b", true);
        let targets: Vec<String> = store.targets("t").into_iter().map(|c| c.id).collect();
        assert_eq!(targets, ["b"]);
    }
}

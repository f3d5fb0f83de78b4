//! The durable store (`--store sqlite:PATH`): what a restart must keep, in one SQLite table
//! of `(kind, key) -> JSON`. The in-memory [`State`] stays the working copy; every change to
//! a task is written through before the request that made it is answered (under the store's
//! lock, so writes keep the order of the changes), and a new store loads everything back.
//!
//! Kinds: `task` (a task with what the agent needs to go on with it: its initial form, its
//! creation order, the outcome a follow-up releases, the version that made it), `context`
//! (the contexts the agent knows), `meta` (the id counters and the clock, so ids are never
//! reused after a restart). The same save/load serves other kinds of per-agent data.
//!
//! The `durable-*` faults drop one kind of data when a store is loaded back.

use std::collections::BTreeSet;
use std::path::Path;
use std::sync::{Mutex, PoisonError};

use rusqlite::{params, Connection, OptionalExtension};
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{Record, State};
use crate::clock::{Ids, Timestamp};
use crate::model::{Task, TaskState, TaskStatus};
use crate::scenario::TaskOutcome;
use crate::version::Version;

/// Kind of the saved tasks.
pub const TASK: &str = "task";
/// Kind of the known contexts.
pub const CONTEXT: &str = "context";
/// Kind of the id counters and the clock.
pub const META: &str = "meta";
/// Kind of the push-notification configs (key: task id / config id), written through by the
/// push-config store (`push::PushStore::persist_to`).
pub const PUSH_CONFIG: &str = "push-config";

pub use crate::policy::features::Forget;

/// A SQLite file of `(kind, key) -> JSON` rows.
pub struct Durable {
    connection: Mutex<Connection>,
    forget: Forget,
}

impl std::fmt::Debug for Durable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Durable").finish_non_exhaustive()
    }
}

impl Durable {
    /// Opens (or creates) the database at `path`.
    pub fn open(path: &Path, forget: Forget) -> Result<Durable, String> {
        let fail = |e: rusqlite::Error| format!("SQLite store {}: {e}", path.display());
        let connection = Connection::open(path).map_err(fail)?;
        // WAL: a committed write is in the file before the request is answered, and survives
        // the process stopping; NORMAL spares an fsync per write (power loss is not our case).
        connection
            .pragma_update(None, "journal_mode", "WAL")
            .map_err(fail)?;
        connection
            .pragma_update(None, "synchronous", "NORMAL")
            .map_err(fail)?;
        connection
            .busy_timeout(std::time::Duration::from_secs(5))
            .map_err(fail)?;
        connection
            .execute_batch(
                "CREATE TABLE IF NOT EXISTS entries (
                     kind TEXT NOT NULL, key TEXT NOT NULL, value TEXT NOT NULL,
                     PRIMARY KEY (kind, key))",
            )
            .map_err(fail)?;
        Ok(Durable {
            connection: Mutex::new(connection),
            forget,
        })
    }

    fn connection(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    /// Saves `value` under `(kind, key)`, replacing what was there.
    pub fn save(&self, kind: &str, key: &str, value: &Value) -> Result<(), String> {
        self.connection()
            .execute(
                "INSERT OR REPLACE INTO entries (kind, key, value) VALUES (?1, ?2, ?3)",
                params![kind, key, value.to_string()],
            )
            .map(|_| ())
            .map_err(|e| format!("SQLite store: saving {kind} {key}: {e}"))
    }

    /// Removes `(kind, key)`.
    pub fn delete(&self, kind: &str, key: &str) -> Result<(), String> {
        self.connection()
            .execute(
                "DELETE FROM entries WHERE kind = ?1 AND key = ?2",
                params![kind, key],
            )
            .map(|_| ())
            .map_err(|e| format!("SQLite store: deleting {kind} {key}: {e}"))
    }

    /// The value under `(kind, key)`.
    pub fn load(&self, kind: &str, key: &str) -> Result<Option<Value>, String> {
        let text: Option<String> = self
            .connection()
            .query_row(
                "SELECT value FROM entries WHERE kind = ?1 AND key = ?2",
                params![kind, key],
                |row| row.get(0),
            )
            .optional()
            .map_err(|e| format!("SQLite store: loading {kind} {key}: {e}"))?;
        text.map(|t| {
            serde_json::from_str(&t).map_err(|e| format!("SQLite store: {kind} {key}: {e}"))
        })
        .transpose()
    }

    /// Every `(key, value)` of `kind`, in key order.
    pub fn load_all(&self, kind: &str) -> Result<Vec<(String, Value)>, String> {
        let connection = self.connection();
        let mut statement = connection
            .prepare("SELECT key, value FROM entries WHERE kind = ?1 ORDER BY key")
            .map_err(|e| format!("SQLite store: {e}"))?;
        let rows = statement
            .query_map(params![kind], |row| {
                Ok((row.get::<_, String>(0)?, row.get::<_, String>(1)?))
            })
            .map_err(|e| format!("SQLite store: loading {kind}: {e}"))?;
        rows.map(|row| {
            let (key, text) = row.map_err(|e| format!("SQLite store: loading {kind}: {e}"))?;
            let value = serde_json::from_str(&text)
                .map_err(|e| format!("SQLite store: {kind} {key}: {e}"))?;
            Ok((key, value))
        })
        .collect()
    }

    /// Writes a task's record, its context and the counters.
    pub(super) fn save_record(&self, state: &State, record: &Record) -> Result<(), String> {
        let saved = Saved {
            task: record.task.clone(),
            initial: record.initial.clone(),
            created: record.created,
            release: record.release.clone(),
            origin: match record.origin {
                Version::V0_3 => "0.3".into(),
                Version::V1_0 => "1.0".into(),
            },
        };
        let value = serde_json::to_value(&saved).map_err(|e| e.to_string())?;
        self.save(TASK, &record.task.id, &value)?;
        if !record.task.context_id.is_empty() {
            self.save(CONTEXT, &record.task.context_id, &Value::Null)?;
        }
        self.save_meta(state)
    }

    /// Writes a context the agent made or accepted.
    pub(super) fn save_context(&self, state: &State, context_id: &str) -> Result<(), String> {
        self.save(CONTEXT, context_id, &Value::Null)?;
        self.save_meta(state)
    }

    fn save_meta(&self, state: &State) -> Result<(), String> {
        let meta = Meta {
            ids: state.ids.clone(),
            clock: state.clock.last(),
        };
        let value = serde_json::to_value(&meta).map_err(|e| e.to_string())?;
        self.save(META, "state", &value)
    }

    /// Loads everything back into `state` (a fresh one), dropping what the faults say.
    pub(super) fn load_into(&self, state: &mut State) -> Result<(), String> {
        if let Some(meta) = self.load(META, "state")? {
            let meta: Meta = serde_json::from_value(meta).map_err(|e| e.to_string())?;
            state.ids = meta.ids;
            state.clock.not_before(meta.clock);
        }
        if !self.forget.contexts {
            for (context, _) in self.load_all(CONTEXT)? {
                state.contexts.insert(context);
            }
        }
        if self.forget.tasks {
            return Ok(());
        }
        for (id, value) in self.load_all(TASK)? {
            let saved: Saved = serde_json::from_value(value)
                .map_err(|e| format!("SQLite store: task {id}: {e}"))?;
            let mut task = saved.task;
            if self.forget.history {
                task.history.clear();
            }
            if self.forget.artifacts {
                task.artifacts.clear();
            }
            let mut release = saved.release;
            if self.forget.fail_open && !task.status.state.is_terminal() {
                task.status = TaskStatus {
                    state: TaskState::Failed,
                    message: None,
                    timestamp: state.clock.now(),
                };
                release = None;
            }
            state.tasks.insert(
                id,
                Record {
                    task,
                    initial: saved.initial,
                    created: saved.created,
                    release,
                    feed: None,
                    subscribers: 0,
                    origin: if saved.origin == "0.3" {
                        Version::V0_3
                    } else {
                        Version::V1_0
                    },
                },
            );
        }
        Ok(())
    }
}

/// A task record as saved.
#[derive(Serialize, Deserialize)]
struct Saved {
    task: Task,
    initial: Task,
    created: u64,
    release: Option<TaskOutcome>,
    origin: String,
}

/// The counters and the clock, so that nothing is issued twice across a restart.
#[derive(Serialize, Deserialize)]
struct Meta {
    ids: Ids,
    clock: Timestamp,
}

/// The known contexts, kept for the fault that refuses unknown ones.
pub(super) type Contexts = BTreeSet<String>;

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    fn scratch(name: &str) -> std::path::PathBuf {
        let dir =
            std::env::temp_dir().join(format!("a2a-agent-durable-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir.join("store.db")
    }

    #[test]
    fn kinds_and_keys_round_trip_across_connections() {
        let path = scratch("kv");
        let store = Durable::open(&path, Forget::default()).unwrap();
        store
            .save(
                PUSH_CONFIG,
                "task-1/cfg-1",
                &json!({"url": "http://127.0.0.1:9/hook"}),
            )
            .unwrap();
        store
            .save(PUSH_CONFIG, "task-1/cfg-2", &json!({"url": "x"}))
            .unwrap();
        store.delete(PUSH_CONFIG, "task-1/cfg-2").unwrap();
        drop(store);
        let again = Durable::open(&path, Forget::default()).unwrap();
        assert_eq!(
            again.load(PUSH_CONFIG, "task-1/cfg-1").unwrap(),
            Some(json!({"url": "http://127.0.0.1:9/hook"}))
        );
        assert_eq!(again.load(PUSH_CONFIG, "task-1/cfg-2").unwrap(), None);
        assert_eq!(again.load_all(PUSH_CONFIG).unwrap().len(), 1);
        assert!(again.load_all(TASK).unwrap().is_empty());
        let _ = std::fs::remove_dir_all(path.parent().unwrap());
    }
}

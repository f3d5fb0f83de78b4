//! The run's history of every task: each time the kit is shown a task (a SendMessage or
//! CancelTask answer, a GetTask or ListTasks read, a stream or subscription event), on any
//! binding and version, what it saw is kept with when the request went out and when the answer
//! came back. Whole-run invariants are judged on it afterwards (record, then check): a
//! terminal state never changes; an answered cancel ends in CANCELED; no read removes what an
//! earlier read showed; a history holds each message once.
//!
//! Order is judged only where it is certain: an observation counts as later than another
//! only when its request went out after the other's answer came back. Two exchanges that
//! overlap in time may see the agent in either order, and judge nothing. A stream event counts
//! as seen when it arrives, and is never the later observation of a pair: a stream may deliver
//! an event the agent made before an answer the kit already holds.

use std::collections::BTreeSet;
use std::sync::Mutex;
use std::time::Instant;

use serde_json::Value;

use crate::facts::a2a;
use crate::facts::model::{Binding, ProtocolVersion};

/// How the kit saw a task.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// The answer of SendMessage.
    Sent,
    /// The answer of GetTask; `limited`: the request carried historyLength.
    Read { limited: bool },
    /// A task of a ListTasks page.
    Listed,
    /// The answer of a CancelTask that succeeded.
    Canceled,
    /// An event of a stream or a subscription.
    Event,
}

impl Seen {
    fn describe(self) -> &'static str {
        match self {
            Seen::Sent => "the SendMessage answer",
            Seen::Read { limited: false } => "GetTask",
            Seen::Read { limited: true } => "GetTask with historyLength",
            Seen::Listed => "ListTasks",
            Seen::Canceled => "the CancelTask answer",
            Seen::Event => "a stream event",
        }
    }
}

/// One sight of one task.
#[derive(Debug, Clone)]
pub struct Observation {
    pub binding: Binding,
    pub version: ProtocolVersion,
    pub seen: Seen,
    /// The check (its context's namespace) that made the exchange.
    pub by: String,
    /// Microseconds from the start of the history to the request, and to its answer (a stream
    /// event: its arrival, both).
    pub sent_us: u64,
    pub answered_us: u64,
    pub task: String,
    /// The state, in 1.0's spelling, when the sight shows one.
    pub state: Option<String>,
    /// The messageIds of the history, when the sight carries a `history` member.
    pub history: Option<Vec<String>>,
    /// The artifactIds, when the sight carries an `artifacts` member.
    pub artifacts: Option<Vec<String>>,
}

impl Observation {
    fn label(&self) -> String {
        format!(
            "{} on {} {} (by {}, at {} µs)",
            self.seen.describe(),
            self.binding,
            self.version.as_str(),
            self.by,
            self.answered_us
        )
    }

    /// Whether this sight's request went out after `earlier`'s answer came back (a stream event
    /// is never after anything: see the module's note).
    pub fn after(&self, earlier: &Observation) -> bool {
        self.seen != Seen::Event && self.sent_us > earlier.answered_us
    }
}

/// The run's history.
#[derive(Debug)]
pub struct History {
    origin: Instant,
    observations: Mutex<Vec<Observation>>,
}

impl Default for History {
    fn default() -> Self {
        History {
            origin: Instant::now(),
            observations: Mutex::default(),
        }
    }
}

fn terminal(state: &str) -> bool {
    crate::facts::a2a::TERMINAL_STATES.contains(&state)
}

/// Where a sight's request and answer sit in time.
#[derive(Debug, Clone, Copy)]
pub struct Span {
    pub sent: Instant,
    pub answered: Instant,
}

impl History {
    /// Microseconds since the history began.
    fn ms(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.origin).as_micros() as u64
    }

    /// Records the task `task` (a 1.0 ProtoJSON Task, or a status or artifact update) as seen.
    pub fn task(
        &self,
        place: (Binding, ProtocolVersion),
        seen: Seen,
        by: &str,
        span: Span,
        task: &Value,
    ) {
        let Some(id) = a2a::text(task, "id").or_else(|| a2a::text(task, "taskId")) else {
            return;
        };
        if id.is_empty() {
            return;
        }
        let ids = |member: &str, field: &str| {
            task.get(member).and_then(Value::as_array).map(|items| {
                items
                    .iter()
                    .filter_map(|item| a2a::text(item, field).map(str::to_string))
                    .collect::<Vec<_>>()
            })
        };
        // An artifact update names one artifact; only a whole Task shows them all.
        let whole = task.get("taskId").is_none();
        let observation = Observation {
            binding: place.0,
            version: place.1,
            seen,
            by: by.to_string(),
            sent_us: self.ms(span.sent),
            answered_us: self.ms(span.answered),
            task: id.to_string(),
            state: a2a::state(task).map(str::to_string),
            history: ids("history", "messageId").filter(|_| whole),
            artifacts: ids("artifacts", "artifactId").filter(|_| whole),
        };
        if let Ok(mut all) = self.observations.lock() {
            all.push(observation);
        }
    }

    /// Every observation so far, on every binding and version, in the order they were
    /// recorded.
    pub fn all(&self) -> Vec<Observation> {
        self.observations
            .lock()
            .map(|all| all.clone())
            .unwrap_or_default()
    }

    /// Every observation so far made on `place`, in the order they were recorded.
    pub fn on(&self, place: (Binding, ProtocolVersion)) -> Vec<Observation> {
        (self
            .observations
            .lock()
            .map(|all| all.clone())
            .unwrap_or_default())
        .into_iter()
        .filter(|o| (o.binding, o.version) == place)
        .collect()
    }
}

/// One broken invariant: what was seen first, and what was seen later.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    pub task: String,
    pub what: String,
}

/// The tasks of `observations`, each with its sights in order.
fn by_task(observations: &[Observation]) -> Vec<(&str, Vec<&Observation>)> {
    let mut tasks: Vec<(&str, Vec<&Observation>)> = Vec::new();
    for observation in observations {
        match tasks.iter_mut().find(|(id, _)| *id == observation.task) {
            Some((_, sights)) => sights.push(observation),
            None => tasks.push((&observation.task, vec![observation])),
        }
    }
    tasks
}

/// A terminal state never changes: every sight made after a terminal one shows the same state,
/// and a full read after a full read of the task in its terminal state shows no message or
/// artifact the earlier one did not (the task took more work after it ended).
pub fn terminal_changes(observations: &[Observation]) -> Vec<Violation> {
    let mut found = Vec::new();
    for (task, sights) in by_task(observations) {
        let full = |o: &&&Observation| o.seen == Seen::Read { limited: false };
        let grew = sights.iter().filter(full).find_map(|a| {
            let state = a.state.as_deref().filter(|s| terminal(s))?;
            sights.iter().filter(full).find_map(|b| {
                let added = |earlier: &Option<Vec<String>>, later: &Option<Vec<String>>| {
                    let (Some(earlier), Some(later)) = (earlier, later) else {
                        return Vec::new();
                    };
                    let before: BTreeSet<&String> = earlier.iter().collect();
                    (later.iter())
                        .filter(|id| !before.contains(id))
                        .cloned()
                        .collect::<Vec<_>>()
                };
                let messages = added(&a.history, &b.history);
                let artifacts = added(&a.artifacts, &b.artifacts);
                (b.after(a) && (!messages.is_empty() || !artifacts.is_empty()))
                    .then_some((a, state, b, messages, artifacts))
            })
        });
        if let Some((a, state, b, messages, artifacts)) = grew {
            found.push(Violation {
                task: task.to_string(),
                what: format!(
                    "task {task}: {state} in {}, then {} shows {} more message(s) {messages:?} \
                     and {} more artifact(s) {artifacts:?}: it took more work after it ended",
                    a.label(),
                    b.label(),
                    messages.len(),
                    artifacts.len()
                ),
            });
            continue;
        }
        let ended = sights.iter().find_map(|a| {
            let state = a.state.as_deref().filter(|s| terminal(s))?;
            let later = sights
                .iter()
                .find(|b| b.after(a) && b.state.as_deref().is_some_and(|s| s != state))?;
            Some((a, state, later))
        });
        if let Some((a, state, b)) = ended {
            found.push(Violation {
                task: task.to_string(),
                what: format!(
                    "task {task}: {state} in {}, then {} in {}",
                    a.label(),
                    b.state.as_deref().unwrap_or("?"),
                    b.label()
                ),
            });
        }
    }
    found
}

/// An answered cancel ends in CANCELED: after a CancelTask answered with a task still open,
/// no later sight shows it ended otherwise.
pub fn cancel_not_kept(observations: &[Observation]) -> Vec<Violation> {
    let mut found = Vec::new();
    for (task, sights) in by_task(observations) {
        let broken = sights.iter().find_map(|c| {
            if c.seen != Seen::Canceled || c.state.as_deref().is_some_and(terminal) {
                return None;
            }
            let later = sights.iter().find(|b| {
                b.after(c)
                    && b.state
                        .as_deref()
                        .is_some_and(|s| terminal(s) && s != "TASK_STATE_CANCELED")
            })?;
            Some((c, later))
        });
        if let Some((c, b)) = broken {
            found.push(Violation {
                task: task.to_string(),
                what: format!(
                    "task {task}: {} answered {} (the cancel accepted), then {} in {}",
                    c.label(),
                    c.state.as_deref().unwrap_or("a task without a state"),
                    b.state.as_deref().unwrap_or("?"),
                    b.label()
                ),
            });
        }
    }
    found
}

/// No read removes what an earlier read of the same kind showed: two GetTask reads without
/// historyLength, the later one made after the earlier one's answer, the later missing a
/// message or an artifact the earlier showed.
pub fn reads_remove(observations: &[Observation]) -> Vec<Violation> {
    let mut found = Vec::new();
    for (task, sights) in by_task(observations) {
        let full: Vec<&&Observation> = (sights.iter())
            .filter(|o| o.seen == Seen::Read { limited: false })
            .collect();
        let broken = full.iter().find_map(|a| {
            full.iter().find_map(|b| {
                if !b.after(a) {
                    return None;
                }
                // A read without historyLength shows the agent's default, which may be a
                // window of the latest messages (spec 1.0 §3.1.3): one that slides as the
                // history grows is no loss. A window never shrinks, so messages are lost only
                // when the later history is also shorter. A read that leaves a member out
                // shows nothing either way. Artifacts have no window.
                let lost =
                    |earlier: &Option<Vec<String>>, later: &Option<Vec<String>>, windowed| {
                        let (Some(earlier), Some(later)) = (earlier, later) else {
                            return Vec::new();
                        };
                        if windowed && later.len() >= earlier.len() {
                            return Vec::new();
                        }
                        let now: BTreeSet<&String> = later.iter().collect();
                        (earlier.iter())
                            .filter(|id| !now.contains(id))
                            .cloned()
                            .collect::<Vec<_>>()
                    };
                let messages = lost(&a.history, &b.history, true);
                let artifacts = lost(&a.artifacts, &b.artifacts, false);
                (!messages.is_empty() || !artifacts.is_empty())
                    .then_some((a, b, messages, artifacts))
            })
        });
        if let Some((a, b, messages, artifacts)) = broken {
            let mut gone = Vec::new();
            if !messages.is_empty() {
                gone.push(format!("message(s) {messages:?}"));
            }
            if !artifacts.is_empty() {
                gone.push(format!("artifact(s) {artifacts:?}"));
            }
            found.push(Violation {
                task: task.to_string(),
                what: format!(
                    "task {task}: {} shown by {} are gone from {}",
                    gone.join(" and "),
                    a.label(),
                    b.label()
                ),
            });
        }
    }
    found
}

/// A history holds each message once: no sight's history names one messageId twice.
pub fn repeated_messages(observations: &[Observation]) -> Vec<Violation> {
    let mut found = Vec::new();
    for (task, sights) in by_task(observations) {
        let repeated = sights.iter().find_map(|o| {
            let history = o.history.as_ref()?;
            let mut once = BTreeSet::new();
            let twice: Vec<&String> = history.iter().filter(|id| !once.insert(*id)).collect();
            (!twice.is_empty()).then_some((o, twice))
        });
        if let Some((o, twice)) = repeated {
            found.push(Violation {
                task: task.to_string(),
                what: format!(
                    "task {task}: {} shows messageId(s) {twice:?} more than once in its history",
                    o.label()
                ),
            });
        }
    }
    found
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn sight(seen: Seen, at: (u64, u64), state: &str, history: &[&str]) -> Observation {
        Observation {
            binding: Binding::Jsonrpc,
            version: ProtocolVersion::V1_0,
            seen,
            by: "check".into(),
            sent_us: at.0,
            answered_us: at.1,
            task: "t".into(),
            state: Some(format!("TASK_STATE_{state}")),
            history: Some(history.iter().map(|s| s.to_string()).collect()),
            artifacts: None,
        }
    }

    const READ: Seen = Seen::Read { limited: false };

    #[test]
    fn a_terminal_state_that_changes_is_found_only_in_certain_order() {
        let done = sight(READ, (0, 10), "COMPLETED", &[]);
        let grown = sight(READ, (20, 30), "COMPLETED", &["more"]);
        assert_eq!(terminal_changes(&[done.clone(), grown]).len(), 1);
        let later = sight(READ, (20, 30), "WORKING", &[]);
        let overlapping = sight(READ, (5, 30), "WORKING", &[]);
        assert_eq!(terminal_changes(&[done.clone(), later]).len(), 1);
        assert!(terminal_changes(&[done.clone(), overlapping]).is_empty());
        let event = sight(Seen::Event, (40, 40), "WORKING", &[]);
        assert!(terminal_changes(&[done, event]).is_empty());
    }

    #[test]
    fn a_cancel_answered_open_must_not_end_otherwise() {
        let cancel = sight(Seen::Canceled, (0, 10), "WORKING", &[]);
        let completed = sight(READ, (20, 30), "COMPLETED", &[]);
        let canceled = sight(READ, (20, 30), "CANCELED", &[]);
        assert_eq!(cancel_not_kept(&[cancel.clone(), completed]).len(), 1);
        assert!(cancel_not_kept(&[cancel, canceled]).is_empty());
    }

    #[test]
    fn a_read_that_loses_messages_is_found_and_a_limited_one_is_not_compared() {
        let first = sight(READ, (0, 10), "COMPLETED", &["a", "b"]);
        let limited = sight(Seen::Read { limited: true }, (20, 30), "COMPLETED", &["b"]);
        let second = sight(READ, (40, 50), "COMPLETED", &["b"]);
        assert!(reads_remove(&[first.clone(), limited]).is_empty());
        assert_eq!(reads_remove(&[first.clone(), second]).len(), 1);
        // A default window of the latest messages, sliding as the history grows: no loss.
        let slid = sight(READ, (40, 50), "COMPLETED", &["b", "c"]);
        assert!(reads_remove(&[first, slid]).is_empty());
    }

    #[test]
    fn a_message_twice_in_a_history_is_found() {
        let twice = sight(READ, (0, 10), "COMPLETED", &["a", "a", "b"]);
        assert_eq!(repeated_messages(&[twice]).len(), 1);
        let once = sight(READ, (0, 10), "COMPLETED", &["a", "b"]);
        assert!(repeated_messages(&[once]).is_empty());
    }
}

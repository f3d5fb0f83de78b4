//! The operations of an exploration and their seeded generation: a sequence is a pure
//! function of the seed, its index and what the agent offers ([`Menu`]), so the same seed on
//! the same agent sends the same operations.
//!
//! A task is named by a label its [`Op::Send`] gives it (the k-th send of a generated sequence
//! makes task k), never by the agent's id: a sequence is replayable on a fresh agent, and a
//! shorter sequence that lost a send still means the same tasks. An operation on a task whose
//! send is missing or made none is skipped.

use std::fmt;

use rand_chacha::ChaCha8Rng;
use rand_core::{RngCore, SeedableRng};
use serde::{Deserialize, Serialize};

use crate::facts::model::{Binding, ProtocolVersion};
use crate::suite::contract::PLAIN;

/// The scenario that holds a task waiting for input.
pub const INPUT_REQUIRED: &str = "tck-input-required";
/// The kit's scenario that holds a task WORKING until a follow-up or a cancel.
pub const LONG_RUNNING: &str = "tck-long-running";

/// An interface, by its binding and version; written `jsonrpc 1.0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(try_from = "String", into = "String")]
pub struct Place {
    pub binding: Binding,
    pub version: ProtocolVersion,
}

impl fmt::Display for Place {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.binding, self.version.as_str())
    }
}

impl From<Place> for String {
    fn from(place: Place) -> String {
        place.to_string()
    }
}

impl TryFrom<String> for Place {
    type Error = String;

    fn try_from(text: String) -> Result<Place, String> {
        let words: Vec<&str> = text.split_whitespace().collect();
        let quoted = |word: &str| serde_json::Value::String(word.to_string());
        match words.as_slice() {
            [binding, version] => Ok(Place {
                binding: serde_json::from_value(quoted(binding))
                    .map_err(|_| format!("`{binding}` is not a binding (jsonrpc, rest, grpc)"))?,
                version: serde_json::from_value(quoted(version))
                    .map_err(|_| format!("`{version}` is not a protocol version (1.0, 0.3)"))?,
            }),
            _ => Err(format!(
                "`{text}` is not `BINDING VERSION` (e.g. `jsonrpc 1.0`)"
            )),
        }
    }
}

/// One operation of a sequence, on one interface.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "camelCase", deny_unknown_fields)]
pub enum Op {
    /// SendMessage of a new message playing `scenario`, which makes task `task`; with
    /// `returnImmediately` when asked (the long-running scenario always is).
    Send {
        on: Place,
        task: usize,
        scenario: String,
        #[serde(default, rename = "returnImmediately")]
        return_immediately: bool,
    },
    /// SendMessage of a follow-up playing `scenario` to task `task` (its taskId and
    /// contextId).
    FollowUp {
        on: Place,
        task: usize,
        scenario: String,
    },
    /// GetTask of task `task`, with historyLength when given.
    Get {
        on: Place,
        task: usize,
        #[serde(
            default,
            rename = "historyLength",
            skip_serializing_if = "Option::is_none"
        )]
        history_length: Option<i64>,
    },
    /// ListTasks of task `task`'s contextId (1.0).
    List { on: Place, task: usize },
    /// CancelTask of task `task`.
    Cancel { on: Place, task: usize },
    /// SubscribeToTask of task `task`, its events read until it ends or a short wait passes.
    Subscribe { on: Place, task: usize },
    /// CreateTaskPushNotificationConfig on task `task`, pointing at the kit's receiver.
    PushCreate { on: Place, task: usize },
    /// GetTaskPushNotificationConfig of the config the kit made on task `task`.
    PushGet { on: Place, task: usize },
    /// ListTaskPushNotificationConfigs of task `task`.
    PushList { on: Place, task: usize },
    /// DeleteTaskPushNotificationConfig of the config the kit made on task `task`.
    PushDelete { on: Place, task: usize },
}

impl Op {
    /// The interface it is sent on.
    pub fn on(&self) -> Place {
        match self {
            Op::Send { on, .. }
            | Op::FollowUp { on, .. }
            | Op::Get { on, .. }
            | Op::List { on, .. }
            | Op::Cancel { on, .. }
            | Op::Subscribe { on, .. }
            | Op::PushCreate { on, .. }
            | Op::PushGet { on, .. }
            | Op::PushList { on, .. }
            | Op::PushDelete { on, .. } => *on,
        }
    }

    /// The task it makes or works on.
    pub fn task(&self) -> usize {
        match self {
            Op::Send { task, .. }
            | Op::FollowUp { task, .. }
            | Op::Get { task, .. }
            | Op::List { task, .. }
            | Op::Cancel { task, .. }
            | Op::Subscribe { task, .. }
            | Op::PushCreate { task, .. }
            | Op::PushGet { task, .. }
            | Op::PushList { task, .. }
            | Op::PushDelete { task, .. } => *task,
        }
    }

    fn task_mut(&mut self) -> &mut usize {
        match self {
            Op::Send { task, .. }
            | Op::FollowUp { task, .. }
            | Op::Get { task, .. }
            | Op::List { task, .. }
            | Op::Cancel { task, .. }
            | Op::Subscribe { task, .. }
            | Op::PushCreate { task, .. }
            | Op::PushGet { task, .. }
            | Op::PushList { task, .. }
            | Op::PushDelete { task, .. } => task,
        }
    }
}

impl fmt::Display for Op {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let on = self.on();
        let task = self.task();
        match self {
            Op::Send {
                scenario,
                return_immediately,
                ..
            } => {
                let immediately = if *return_immediately {
                    ", returnImmediately"
                } else {
                    ""
                };
                write!(f, "send task {task} ({scenario}{immediately}) on {on}")
            }
            Op::FollowUp { scenario, .. } => {
                write!(f, "follow-up to task {task} ({scenario}) on {on}")
            }
            Op::Get {
                history_length: Some(n),
                ..
            } => write!(f, "get task {task} (historyLength {n}) on {on}"),
            Op::Get { .. } => write!(f, "get task {task} on {on}"),
            Op::List { .. } => write!(f, "list the context of task {task} on {on}"),
            Op::Cancel { .. } => write!(f, "cancel task {task} on {on}"),
            Op::Subscribe { .. } => write!(f, "subscribe to task {task} on {on}"),
            Op::PushCreate { .. } => write!(f, "create a push config on task {task} on {on}"),
            Op::PushGet { .. } => write!(f, "get the push config of task {task} on {on}"),
            Op::PushList { .. } => write!(f, "list the push configs of task {task} on {on}"),
            Op::PushDelete { .. } => {
                write!(f, "delete the push config of task {task} on {on}")
            }
        }
    }
}

/// What the agent offers a sequence: the usable interfaces, the scenarios its contract
/// honours, and which interfaces' cards declare streaming and push notifications.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Menu {
    /// The usable interfaces, in a fixed order.
    pub places: Vec<Place>,
    /// The scenarios a new task may play: the plain message always, then those of
    /// [`INPUT_REQUIRED`] and [`LONG_RUNNING`] the contract honours.
    pub scenarios: Vec<&'static str>,
    /// The interfaces whose card declares streaming (SubscribeToTask).
    pub streaming: Vec<Place>,
    /// The interfaces whose card declares push notifications.
    pub push: Vec<Place>,
    /// How many operations a sequence has.
    pub steps: usize,
}

impl Menu {
    /// A menu of `places` with every operation and scenario offered.
    pub fn all(places: Vec<Place>, steps: usize) -> Menu {
        Menu {
            scenarios: vec![PLAIN, INPUT_REQUIRED, LONG_RUNNING],
            streaming: places.clone(),
            push: places.clone(),
            places,
            steps,
        }
    }
}

/// The kinds of operation, each with its weight: more work on existing tasks than new ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Send,
    FollowUp,
    Get,
    List,
    Cancel,
    Subscribe,
    PushCreate,
    PushGet,
    PushList,
    PushDelete,
}

const WEIGHTS: &[(Kind, u64)] = &[
    (Kind::Send, 3),
    (Kind::FollowUp, 3),
    (Kind::Get, 5),
    (Kind::List, 1),
    (Kind::Cancel, 3),
    (Kind::Subscribe, 1),
    (Kind::PushCreate, 1),
    (Kind::PushGet, 1),
    (Kind::PushList, 1),
    (Kind::PushDelete, 1),
];

/// A seeded source of choices.
struct Choices(ChaCha8Rng);

impl Choices {
    /// A number below `n` (`n` > 0). The remainder's bias is below 2^-50 for the small `n`
    /// used here, and the value depends only on ChaCha's output, fixed by its algorithm.
    fn below(&mut self, n: usize) -> usize {
        (self.0.next_u64() % n.max(1) as u64) as usize
    }

    /// One of `items` by weight.
    fn weighted<T: Copy>(&mut self, items: &[(T, u64)]) -> T {
        let total: u64 = items.iter().map(|(_, w)| w).sum();
        let mut at = self.0.next_u64() % total.max(1);
        for (item, weight) in items {
            if at < *weight {
                return *item;
            }
            at -= weight;
        }
        items[items.len() - 1].0
    }

    fn pick<T: Copy>(&mut self, items: &[T]) -> T {
        items[self.below(items.len())]
    }

    /// True once in `n`.
    fn one_in(&mut self, n: usize) -> bool {
        self.below(n) == 0
    }
}

/// The operations of sequence `index` of `seed` on what `menu` offers: ChaCha8 seeded by
/// `seed`, on the stream `index`, so each sequence is drawn apart from the others and a
/// sequence can be drawn again without the ones before it. Empty when `menu` has no
/// interface.
pub fn generate(seed: u64, index: u64, menu: &Menu) -> Vec<Op> {
    if menu.places.is_empty() || menu.scenarios.is_empty() {
        return Vec::new();
    }
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(index);
    let mut choose = Choices(rng);
    let v1_0: Vec<Place> = (menu.places.iter())
        .filter(|p| p.version == ProtocolVersion::V1_0)
        .copied()
        .collect();
    let mut ops = Vec::with_capacity(menu.steps);
    let mut tasks = 0usize;
    for _ in 0..menu.steps {
        let offered: Vec<(Kind, u64)> = (WEIGHTS.iter())
            .filter(|(kind, _)| match kind {
                Kind::Send => true,
                _ if tasks == 0 => false,
                Kind::List => !v1_0.is_empty(),
                Kind::Subscribe => !menu.streaming.is_empty(),
                Kind::PushCreate | Kind::PushGet | Kind::PushList | Kind::PushDelete => {
                    !menu.push.is_empty()
                }
                _ => true,
            })
            .copied()
            .collect();
        let kind = choose.weighted(&offered);
        let on = match kind {
            Kind::List => choose.pick(&v1_0),
            Kind::Subscribe => choose.pick(&menu.streaming),
            Kind::PushCreate | Kind::PushGet | Kind::PushList | Kind::PushDelete => {
                choose.pick(&menu.push)
            }
            _ => choose.pick(&menu.places),
        };
        // The newer tasks are worked on more than the older ones: half the time the newest.
        let task = if tasks > 0 && choose.one_in(2) {
            tasks - 1
        } else {
            choose.below(tasks)
        };
        let op = match kind {
            Kind::Send => {
                let scenarios: Vec<(&'static str, u64)> = (menu.scenarios.iter())
                    .map(|s| (*s, if *s == PLAIN { 2 } else { 1 }))
                    .collect();
                let scenario = choose.weighted(&scenarios);
                // The held WORKING task is made without waiting for it; the others, now and
                // then.
                let return_immediately = scenario == LONG_RUNNING || choose.one_in(4);
                tasks += 1;
                Op::Send {
                    on,
                    task: tasks - 1,
                    scenario: scenario.to_string(),
                    return_immediately,
                }
            }
            Kind::FollowUp => {
                let more = menu.scenarios.contains(&INPUT_REQUIRED) && choose.one_in(3);
                let scenario = if more { INPUT_REQUIRED } else { PLAIN };
                Op::FollowUp {
                    on,
                    task,
                    scenario: scenario.to_string(),
                }
            }
            Kind::Get => {
                let history_length = choose.one_in(3).then(|| choose.below(3) as i64);
                Op::Get {
                    on,
                    task,
                    history_length,
                }
            }
            Kind::List => Op::List { on, task },
            Kind::Cancel => Op::Cancel { on, task },
            Kind::Subscribe => Op::Subscribe { on, task },
            Kind::PushCreate => Op::PushCreate { on, task },
            Kind::PushGet => Op::PushGet { on, task },
            Kind::PushList => Op::PushList { on, task },
            Kind::PushDelete => Op::PushDelete { on, task },
        };
        ops.push(op);
    }
    ops
}

/// The same operations with their tasks renumbered 0, 1, ... in the order their sends come
/// (a task no send makes keeps a number past them): what a shrunk sequence is shown as.
pub fn renumbered(ops: &[Op]) -> Vec<Op> {
    let mut order: Vec<usize> = Vec::new();
    for op in ops {
        if matches!(op, Op::Send { .. }) && !order.contains(&op.task()) {
            order.push(op.task());
        }
    }
    for op in ops {
        if !order.contains(&op.task()) {
            order.push(op.task());
        }
    }
    (ops.iter())
        .map(|op| {
            let mut op = op.clone();
            let task = op.task_mut();
            *task = order.iter().position(|t| t == task).unwrap_or(*task);
            op
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn menu() -> Menu {
        let place = |binding, version| Place { binding, version };
        Menu::all(
            vec![
                place(Binding::Jsonrpc, ProtocolVersion::V1_0),
                place(Binding::Rest, ProtocolVersion::V1_0),
                place(Binding::Grpc, ProtocolVersion::V0_3),
            ],
            12,
        )
    }

    #[test]
    fn a_sequence_is_a_function_of_its_seed_and_index() {
        let menu = menu();
        assert_eq!(generate(7, 3, &menu), generate(7, 3, &menu));
        assert_ne!(generate(7, 3, &menu), generate(7, 4, &menu));
        assert_ne!(generate(7, 3, &menu), generate(8, 3, &menu));
        let ops = generate(7, 3, &menu);
        assert_eq!(ops.len(), 12);
        assert!(matches!(ops[0], Op::Send { .. }), "{ops:?}");
        // Every task worked on was made by an earlier send.
        let mut made = 0;
        for op in &ops {
            match op {
                Op::Send { task, .. } => {
                    assert_eq!(*task, made);
                    made += 1;
                }
                other => assert!(other.task() < made, "{ops:?}"),
            }
        }
        // ListTasks only on 1.0.
        assert!(ops
            .iter()
            .filter(|op| matches!(op, Op::List { .. }))
            .all(|op| op.on().version == ProtocolVersion::V1_0));
    }

    /// ChaCha8's output for a seed is fixed by its algorithm: the first sequence of seed 1 on
    /// this menu is pinned, so a change of the crate, or of how choices are drawn from it,
    /// that changes what a seed means is seen here.
    #[test]
    fn the_sequences_of_a_seed_stay_the_same() {
        let shown: Vec<String> = generate(1, 0, &menu()).iter().map(Op::to_string).collect();
        assert_eq!(
            shown,
            [
                "send task 0 (tck-input-required) on grpc 0.3",
                "follow-up to task 0 (tck-input-required) on jsonrpc 1.0",
                "send task 1 (tck-complete-task) on rest 1.0",
                "get the push config of task 1 on rest 1.0",
                "cancel task 1 on grpc 0.3",
                "follow-up to task 1 (tck-complete-task) on jsonrpc 1.0",
                "cancel task 1 on jsonrpc 1.0",
                "follow-up to task 1 (tck-input-required) on rest 1.0",
                "get task 1 on grpc 0.3",
                "delete the push config of task 1 on jsonrpc 1.0",
                "list the push configs of task 1 on grpc 0.3",
                "get task 1 (historyLength 0) on jsonrpc 1.0",
            ]
        );
    }

    #[test]
    fn an_op_reads_back_from_its_json() {
        for op in generate(11, 0, &menu()) {
            let json = serde_json::to_string(&op).unwrap();
            let back: Op = serde_json::from_str(&json).unwrap();
            assert_eq!(back, op, "{json}");
        }
        let send: Op = serde_json::from_str(
            r#"{"op":"send","on":"rest 0.3","task":2,"scenario":"tck-complete-task"}"#,
        )
        .unwrap();
        assert_eq!(
            send.to_string(),
            "send task 2 (tck-complete-task) on rest 0.3"
        );
        assert!(serde_json::from_str::<Op>(r#"{"op":"get","on":"soap 1.0","task":0}"#).is_err());
    }

    #[test]
    fn renumbering_follows_the_sends() {
        let on = menu().places[0];
        let ops = vec![
            Op::Send {
                on,
                task: 3,
                scenario: PLAIN.into(),
                return_immediately: false,
            },
            Op::Get {
                on,
                task: 3,
                history_length: None,
            },
            Op::Cancel { on, task: 1 },
        ];
        let renumbered = renumbered(&ops);
        assert_eq!(renumbered[0].task(), 0);
        assert_eq!(renumbered[1].task(), 0);
        assert_eq!(renumbered[2].task(), 1);
    }
}

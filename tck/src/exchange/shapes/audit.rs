//! The audit of a run's traffic: every exchange a check of an interface records passes here
//! (see [`crate::exchange::evidence::Recorder`]), and every JSON message the agent sent in it (a unary
//! result or error, a REST body, each SSE event or gRPC stream message, gRPC replies as the
//! ProtoJSON the kit reads them into) is validated against the wire schema of the
//! interface's version. Findings are kept per interface, with the offending exchange, for
//! the `data-model.*` checks that judge the run's traffic at its end.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use serde_json::{json, Value};

use super::foreign::{self, Form};
use super::route::{event_task, operation, same_version, stream_ending, stream_task, Ending, Op};
use super::Validators;
use crate::exchange::card::Interface;
use crate::exchange::evidence::{Exchange, Recorder};
use crate::facts::model::{Binding, ProtocolVersion};

/// Findings kept with their exchange, per rule and interface; later ones are only counted.
const KEPT_PER_RULE: usize = 5;

/// The rule a finding breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// The message does not match its version's schema.
    Shape,
    /// The message carries members only the other version has.
    OtherVersion,
    /// A stream event names another task than the stream's.
    OtherTask,
    /// A stream carries an event after its end (a terminal state, a 0.3 `final`, a
    /// message-only stream's Message) that is not a repeat of the terminal state.
    AfterEnd,
}

/// One offending message: what is wrong with it, and the exchange that carried it.
#[derive(Debug, Clone)]
pub struct Finding {
    pub problems: Vec<String>,
    pub exchange: Exchange,
}

/// What the audit saw on one interface.
#[derive(Debug, Clone, Default)]
pub struct Findings {
    /// Messages validated.
    pub messages: usize,
    /// Stream events whose task was checked against the stream's.
    pub stream_events: usize,
    /// Streams whose events were read for what follows their end.
    pub streams: usize,
    /// Per rule: how many messages broke it, and the first of them.
    pub by_rule: BTreeMap<Rule, (usize, Vec<Finding>)>,
}

impl Findings {
    /// Counts a finding; the first ones keep the exchange, with only the offending events of
    /// a stream (`events`), so what the audit holds stays small.
    fn add(
        &mut self,
        rule: Rule,
        problems: Vec<String>,
        exchange: &Exchange,
        events: &BTreeSet<usize>,
    ) {
        let (count, kept) = self.by_rule.entry(rule).or_default();
        *count += 1;
        if kept.len() < KEPT_PER_RULE {
            let exchange = Exchange {
                request: exchange.request.clone(),
                response: exchange.response.clone(),
                error: exchange.error.clone(),
                elapsed_ms: exchange.elapsed_ms,
                events: (exchange.events.iter().enumerate())
                    .filter(|(n, _)| events.contains(n))
                    .map(|(_, e)| e.clone())
                    .collect(),
                dropped: exchange.dropped,
            };
            kept.push(Finding { problems, exchange });
        }
    }

    /// How many messages broke `rule`, and the first of them.
    pub fn of(&self, rule: Rule) -> (usize, &[Finding]) {
        self.by_rule
            .get(&rule)
            .map_or((0, &[][..]), |(n, kept)| (*n, kept.as_slice()))
    }
}

/// The audit of one run: the compiled schemas of both versions, and the findings.
#[derive(Debug)]
pub struct Audit {
    v1_0: Validators,
    v0_3: Validators,
    /// Per interface (a run has a handful).
    findings: Mutex<Vec<(Interface, Findings)>>,
}

impl Audit {
    /// Compiles both schemas (once per run).
    pub fn new() -> Arc<Audit> {
        Arc::new(Audit {
            v1_0: Validators::new(ProtocolVersion::V1_0),
            v0_3: Validators::new(ProtocolVersion::V0_3),
            findings: Mutex::default(),
        })
    }

    /// A recorder whose exchanges are audited as `interface`'s (a plain one without).
    pub fn recorder(self: &Arc<Audit>, interface: Option<&Interface>) -> Recorder {
        match interface {
            Some(interface) => Recorder::default().observed_by(Arc::new(InterfaceAudit {
                audit: self.clone(),
                interface: interface.clone(),
            })),
            None => Recorder::default(),
        }
    }

    fn validators(&self, version: ProtocolVersion) -> &Validators {
        match version {
            ProtocolVersion::V1_0 => &self.v1_0,
            ProtocolVersion::V0_3 => &self.v0_3,
        }
    }
}

/// The audit of one interface, held by the recorders of its checks.
#[derive(Debug)]
pub struct InterfaceAudit {
    audit: Arc<Audit>,
    interface: Interface,
}

impl crate::exchange::evidence::Observer for InterfaceAudit {
    fn observe(&self, exchange: &Exchange) {
        self.exchange(exchange);
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}

impl InterfaceAudit {
    /// The audit of the interface `recorder` records for, if the run keeps one.
    pub fn of(recorder: &Recorder) -> Option<Arc<InterfaceAudit>> {
        recorder.observer::<InterfaceAudit>()
    }

    /// What the audit saw on this interface so far.
    pub fn findings(&self) -> Findings {
        self.audit
            .findings
            .lock()
            .ok()
            .and_then(|all| {
                all.iter()
                    .find(|(i, _)| *i == self.interface)
                    .map(|(_, f)| f.clone())
            })
            .unwrap_or_default()
    }

    /// Audits one exchange.
    pub fn exchange(&self, exchange: &Exchange) {
        let interface = &self.interface;
        if !same_version(interface, exchange) {
            return;
        }
        let Some(op) = operation(interface, exchange) else {
            return;
        };
        let mut seen = Seen::default();
        let validators = self.audit.validators(interface.version);
        let judge = Judge {
            validators,
            interface,
        };
        let ok = |status: u16| (200..300).contains(&status);
        if exchange.events.is_empty() {
            if op == Op::Stream {
                return;
            }
            let Some(response) = exchange.response.as_ref().filter(|r| ok(r.status)) else {
                return;
            };
            if interface.binding == Binding::Grpc
                && !response
                    .headers
                    .iter()
                    .any(|(k, v)| k == "grpc-status" && v.starts_with("0 "))
            {
                return;
            }
            if let Some(body) = &response.body.json {
                judge.message(op, body, "the response", &mut seen);
            }
        } else {
            let mut stream_task = stream_task(interface, exchange);
            let mut first = true;
            let mut ended: Option<(usize, Option<String>)> = None;
            for (n, event) in exchange.events.iter().enumerate() {
                let Some(data) = &event.data.json else {
                    continue;
                };
                let skip = matches!(event.event.as_deref(), Some("status" | "error"))
                    || (interface.binding != Binding::Jsonrpc && data.get("error").is_some());
                if skip {
                    continue;
                }
                let label = format!("stream event {}", n + 1);
                let before = (seen.shape.len(), seen.other_version.len());
                let payload = judge.message(Op::Stream, data, &label, &mut seen);
                if seen.shape.len() > before.0 {
                    seen.shape_events.insert(n);
                }
                if seen.other_version.len() > before.1 {
                    seen.other_version_events.insert(n);
                }
                if let Some(payload) = &payload {
                    let ending = stream_ending(interface, payload, first);
                    first = false;
                    match (&ended, ending) {
                        (None, Ending::No) => {}
                        (None, Ending::Ends) => ended = Some((n, None)),
                        (None, Ending::Terminal(state)) => ended = Some((n, Some(state))),
                        (Some((_, Some(terminal))), Ending::Terminal(state))
                            if *terminal == state => {}
                        (Some((at, _)), _) => {
                            seen.after_end.push(format!(
                                "{label} follows the end of the stream at event {}",
                                at + 1
                            ));
                            seen.after_end_events.extend([*at, n]);
                        }
                    }
                }
                if let Some(id) = payload.as_ref().and_then(|p| event_task(interface, p)) {
                    seen.events += 1;
                    match &stream_task {
                        None => stream_task = Some(id),
                        Some(task) if *task != id => {
                            seen.other_task.push(format!(
                                "{label} is about task {id:?}, the stream is about task {task:?}"
                            ));
                            seen.other_task_events.extend([0, n]);
                        }
                        Some(_) => {}
                    }
                }
            }
            seen.streams += usize::from(!first);
        }
        if let Ok(mut all) = self.audit.findings.lock() {
            let index = match all.iter().position(|(i, _)| i == interface) {
                Some(index) => index,
                None => {
                    all.push((interface.clone(), Findings::default()));
                    all.len() - 1
                }
            };
            let findings = &mut all[index].1;
            findings.messages += seen.messages;
            findings.stream_events += seen.events;
            findings.streams += seen.streams;
            for (rule, problems, events) in [
                (Rule::Shape, seen.shape, seen.shape_events),
                (
                    Rule::OtherVersion,
                    seen.other_version,
                    seen.other_version_events,
                ),
                (Rule::OtherTask, seen.other_task, seen.other_task_events),
                (Rule::AfterEnd, seen.after_end, seen.after_end_events),
            ] {
                if !problems.is_empty() {
                    findings.add(rule, problems, exchange, &events);
                }
            }
        }
    }
}

/// What one exchange showed.
#[derive(Default)]
struct Seen {
    messages: usize,
    events: usize,
    shape: Vec<String>,
    other_version: Vec<String>,
    other_task: Vec<String>,
    after_end: Vec<String>,
    /// Streams read (with at least one event judged).
    streams: usize,
    /// The stream events (by index) each rule found fault with.
    shape_events: BTreeSet<usize>,
    other_version_events: BTreeSet<usize>,
    other_task_events: BTreeSet<usize>,
    after_end_events: BTreeSet<usize>,
}

/// Validates messages of one interface.
struct Judge<'a> {
    validators: &'a Validators,
    interface: &'a Interface,
}

impl Judge<'_> {
    /// Judges one message (a body or an event); returns the payload the operation's result
    /// is (the JSON-RPC `result`, or the message itself), when there is one.
    fn message(&self, op: Op, message: &Value, label: &str, seen: &mut Seen) -> Option<Value> {
        seen.messages += 1;
        let v = self.validators;
        let payload = if self.interface.binding == Binding::Jsonrpc {
            let problems = v.problems("JsonRpcResponse", message);
            let envelope_ok = problems.is_empty();
            seen.shape
                .extend(problems.into_iter().map(|p| format!("{label}: {p}")));
            if let Some(error) = message.get("error").filter(|e| e.is_object()) {
                if envelope_ok {
                    let problems = v.problems("JsonRpcError", error);
                    seen.shape
                        .extend(problems.into_iter().map(|p| format!("{label}: error {p}")));
                }
                return None;
            }
            let mut result = message.get("result")?.clone();
            super::strip_nulls(&mut result);
            result
        } else {
            let mut body = message.clone();
            super::strip_nulls(&mut body);
            if self.interface.binding == Binding::Grpc {
                grpc_defaults(self.interface.version, op, &mut body);
            }
            body
        };
        if op == Op::Other {
            return Some(payload);
        }
        let forms = self.forms();
        let mut first: Option<(Form, Vec<String>)> = None;
        for form in &forms {
            let problems = self.against(*form, op, &payload);
            if problems.is_empty() {
                first = Some((*form, problems));
                break;
            }
            first.get_or_insert((*form, problems));
        }
        let (form, problems) = first?;
        if forms.len() > 1 && !problems.is_empty() {
            seen.shape.push(format!(
                "{label} matches neither the 0.3 proto JSON nor the 0.3 JSON-RPC form; as the proto JSON:"
            ));
        }
        seen.shape
            .extend(problems.into_iter().map(|p| format!("{label}: {p}")));
        let mut other = Vec::new();
        foreign::fields(form, op_root(op), &payload, &mut other);
        seen.other_version
            .extend(other.into_iter().map(|p| format!("{label}: {p}")));
        Some(payload)
    }

    /// The forms a message of this interface may take: 0.3 REST is the 0.3 proto's JSON in
    /// practice, the JSON-RPC form of types.ts defensibly (spec notes §2.9 #4).
    fn forms(&self) -> Vec<Form> {
        match (self.interface.version, self.interface.binding) {
            (ProtocolVersion::V1_0, _) => vec![Form::V1_0],
            (ProtocolVersion::V0_3, Binding::Jsonrpc) => vec![Form::JsonRpc03],
            (ProtocolVersion::V0_3, Binding::Grpc) => vec![Form::Proto03],
            (ProtocolVersion::V0_3, Binding::Rest) => vec![Form::Proto03, Form::JsonRpc03],
        }
    }

    fn against(&self, form: Form, op: Op, payload: &Value) -> Vec<String> {
        let v = self.validators;
        let def = match (form, op) {
            (_, Op::Other) => return Vec::new(),
            (Form::V1_0, Op::Send) => "SendMessageResponse",
            (Form::V1_0, Op::Stream) => "StreamResponse",
            (Form::V1_0, Op::Task) => "Task",
            (Form::V1_0, Op::ListTasks) => "ListTasksResponse",
            (Form::V1_0, Op::PushConfig) => "TaskPushNotificationConfig",
            (Form::V1_0, Op::PushConfigList) => "ListTaskPushNotificationConfigsResponse",
            (Form::JsonRpc03, Op::Send | Op::Stream) => {
                match payload.get("kind").and_then(Value::as_str) {
                    Some("task") => "Task",
                    Some("message") => "Message",
                    Some("status-update") if op == Op::Stream => "TaskStatusUpdateEvent",
                    Some("artifact-update") if op == Op::Stream => "TaskArtifactUpdateEvent",
                    _ if op == Op::Send => "SendMessageResult",
                    _ => "StreamResult",
                }
            }
            (Form::JsonRpc03, Op::Task) => "Task",
            (Form::JsonRpc03, Op::PushConfig) => "TaskPushNotificationConfig",
            (Form::JsonRpc03, Op::PushConfigList) => {
                // A bare array in types.ts; `{configs}` (the proto's page) is read too.
                let items = payload
                    .as_array()
                    .or_else(|| payload.get("configs").and_then(Value::as_array));
                let Some(items) = items else {
                    return vec![format!(
                        "the list of push configs is not an array: {}",
                        crate::facts::a2a::brief(payload, 200)
                    )];
                };
                return items
                    .iter()
                    .flat_map(|item| v.problems("TaskPushNotificationConfig", item))
                    .collect();
            }
            (Form::Proto03, Op::Send) => "ProtoSendMessageResponse",
            (Form::Proto03, Op::Stream) => "ProtoStreamResponse",
            (Form::Proto03, Op::Task) => "ProtoTask",
            (Form::Proto03, Op::PushConfig) => "ProtoTaskPushNotificationConfig",
            (Form::Proto03, Op::PushConfigList) => "ProtoListTaskPushNotificationConfigResponse",
            // 0.3 has no ListTasks.
            (Form::JsonRpc03 | Form::Proto03, Op::ListTasks) => return Vec::new(),
        };
        v.problems(def, payload)
    }
}

/// The root the other-version walk starts from.
fn op_root(op: Op) -> foreign::Root {
    match op {
        Op::Send => foreign::Root::Send,
        Op::Stream => foreign::Root::Stream,
        Op::Task => foreign::Root::Task,
        Op::ListTasks => foreign::Root::ListTasks,
        Op::PushConfig => foreign::Root::PushConfig,
        Op::PushConfigList => foreign::Root::PushConfigList,
        Op::Other => foreign::Root::Other,
    }
}

/// In protobuf binary a scalar at its default value is not sent, so the ProtoJSON of a gRPC
/// reply leaves it out: where the default is a legal value of a REQUIRED field (an empty
/// last page token, a zero count, an empty list of tasks) it is put back before judging.
fn grpc_defaults(version: ProtocolVersion, op: Op, body: &mut Value) {
    if version == ProtocolVersion::V1_0 && op == Op::ListTasks {
        if let Value::Object(page) = body {
            for (field, default) in [
                ("tasks", json!([])),
                ("nextPageToken", json!("")),
                ("pageSize", json!(0)),
                ("totalSize", json!(0)),
            ] {
                page.entry(field).or_insert(default);
            }
        }
    }
}

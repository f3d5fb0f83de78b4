//! Operations the agent refused outright, reported once as the cause of the results they
//! stopped. An operation is refused on an interface when the agent answered it with the
//! binding's form of "not offered" (UnsupportedOperationError, JSON-RPC method not found, an
//! HTTP+JSON route that does not exist, gRPC UNIMPLEMENTED) and never with success anywhere in
//! the run. Operations the card leaves undeclared (streaming, push notifications, the extended
//! card) are not counted: their refusal is what the spec asks of such an agent.
//!
//! Whether the stopped results keep their status depends on the spec: when a sentence with an
//! RFC 2119 keyword obliges the agent to offer the operation (SendMessage in 1.0, the three
//! core methods of 0.3, streaming and push once declared), refusing it breaks that sentence
//! and each result keeps its FAIL. When none does (ListTasks, GetTask and CancelTask in 1.0),
//! a check whose last call was the refusal judged nothing of its own rule: its FAIL or WARN
//! becomes UNTESTABLE, with the refusal named as the cause.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::exchange::evidence::Exchange;
use crate::exchange::latency;
use crate::reporting::report::{CheckResult, RefusedOperation};
use crate::suite::check::{Binding, ProtocolVersion, Status};

/// The operations, by binding and version, that the agent answered with success in the run.
pub type Succeeded = BTreeSet<(Binding, ProtocolVersion, String)>;

/// An operation on one interface: its binding, version and wire name.
type Place = (Binding, ProtocolVersion, String);

/// A refused operation as it is gathered: what it is, how it was refused, the checks that met
/// it.
struct Gathered {
    op: Op,
    answer: String,
    results: Vec<String>,
}

/// One line of the grouped refusals: the operation, its obliging sentence, its interfaces and
/// the checks that met it.
struct Group<'a> {
    operation: &'a str,
    required_by: Option<&'a str>,
    places: Vec<String>,
    checks: BTreeSet<&'a str>,
}

/// The optional capabilities the card declares (on any card the run read).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Declared {
    pub streaming: bool,
    pub push: bool,
    pub extended_card: bool,
}

impl Declared {
    /// What `card` declares (1.0 or 0.3 field names).
    pub fn of(card: &Value) -> Declared {
        let capabilities = card.get("capabilities");
        let flag = |field: &str| {
            capabilities
                .and_then(|c| c.get(field))
                .and_then(Value::as_bool)
                .unwrap_or(false)
        };
        let top = |field: &str| card.get(field).and_then(Value::as_bool).unwrap_or(false);
        Declared {
            streaming: flag("streaming"),
            push: flag("pushNotifications"),
            extended_card: flag("extendedAgentCard") || top("supportsAuthenticatedExtendedCard"),
        }
    }

    /// What either card declares.
    pub fn or(self, other: Declared) -> Declared {
        Declared {
            streaming: self.streaming || other.streaming,
            push: self.push || other.push,
            extended_card: self.extended_card || other.extended_card,
        }
    }
}

/// The A2A operations, as the kit groups the names each binding and version gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    Send,
    Stream,
    Get,
    List,
    Cancel,
    Subscribe,
    PushSet,
    PushGet,
    PushList,
    PushDelete,
    ExtendedCard,
}

impl Op {
    /// The operation a wire name is on `binding` and `version`; `None` for a name that is not
    /// one of that version's operations (a 0.3 method sent as 1.0, an unknown method).
    fn of(binding: Binding, version: ProtocolVersion, name: &str) -> Option<Op> {
        use ProtocolVersion::{V0_3, V1_0};
        Some(match (binding, version, name) {
            (Binding::Jsonrpc, V0_3, name) => match name {
                "message/send" => Op::Send,
                "message/stream" => Op::Stream,
                "tasks/get" => Op::Get,
                "tasks/cancel" => Op::Cancel,
                "tasks/resubscribe" => Op::Subscribe,
                "tasks/pushNotificationConfig/set" => Op::PushSet,
                "tasks/pushNotificationConfig/get" => Op::PushGet,
                "tasks/pushNotificationConfig/list" => Op::PushList,
                "tasks/pushNotificationConfig/delete" => Op::PushDelete,
                "agent/getAuthenticatedExtendedCard" => Op::ExtendedCard,
                _ => return None,
            },
            (Binding::Grpc, V0_3, "TaskSubscription") => Op::Subscribe,
            (Binding::Grpc, V0_3, "ListTaskPushNotificationConfig") => Op::PushList,
            (Binding::Grpc, V0_3, "GetAgentCard") => Op::ExtendedCard,
            // ListTasks is 1.0's; 0.3 has none on any binding.
            (_, V0_3, "ListTasks") => return None,
            (_, V0_3 | V1_0, name) => match name {
                "SendMessage" => Op::Send,
                "SendStreamingMessage" => Op::Stream,
                "GetTask" => Op::Get,
                "ListTasks" => Op::List,
                "CancelTask" => Op::Cancel,
                "SubscribeToTask" => Op::Subscribe,
                "CreateTaskPushNotificationConfig" => Op::PushSet,
                "GetTaskPushNotificationConfig" => Op::PushGet,
                "ListTaskPushNotificationConfigs" => Op::PushList,
                "DeleteTaskPushNotificationConfig" => Op::PushDelete,
                "GetExtendedAgentCard" => Op::ExtendedCard,
                _ => return None,
            },
        })
    }

    /// Whether the card declares the capability this operation needs (core operations need
    /// none).
    fn declared(self, declared: Declared) -> bool {
        match self {
            Op::Stream | Op::Subscribe => declared.streaming,
            Op::PushSet | Op::PushGet | Op::PushList | Op::PushDelete => declared.push,
            Op::ExtendedCard => declared.extended_card,
            Op::Send | Op::Get | Op::List | Op::Cancel => true,
        }
    }

    /// The registry sentence with an RFC 2119 keyword that obliges an agent (whose card
    /// declares what the operation needs) to offer it on `version`, if any.
    fn required_by(self, version: ProtocolVersion) -> Option<&'static str> {
        match version {
            ProtocolVersion::V1_0 => match self {
                Op::Send => Some("V10-3.1.1-02"),
                Op::Stream => Some("V10-3.1.2-02"),
                Op::Subscribe => Some("V10-3.1.6-02"),
                Op::PushSet => Some("V10-3.1.7-01"),
                Op::PushGet => Some("V10-3.1.8-01"),
                Op::PushList => Some("V10-3.1.9-01"),
                Op::PushDelete => Some("V10-3.1.10-01"),
                Op::ExtendedCard => Some("V10-3.3.4-05"),
                Op::Get | Op::List | Op::Cancel => None,
            },
            ProtocolVersion::V0_3 => match self {
                Op::Send | Op::Get | Op::Cancel => Some("V03-11.1.2-01"),
                _ => None,
            },
        }
    }
}

/// The JSON-RPC error object of an exchange: the body's, or the first event's.
fn jsonrpc_error(exchange: &Exchange) -> Option<&Value> {
    let response = exchange.response.as_ref()?;
    let body = response.body.json.as_ref().and_then(|b| b.get("error"));
    body.or_else(|| {
        (exchange.events.first())
            .and_then(|e| e.data.json.as_ref())
            .and_then(|d| d.get("error"))
    })
}

/// Whether a list of `google.rpc.Status` details carries an ErrorInfo with reason `reason`.
fn has_reason(details: Option<&Value>, reason: &str) -> bool {
    (details.and_then(Value::as_array).into_iter().flatten())
        .any(|d| d.get("reason").and_then(Value::as_str) == Some(reason))
}

/// How `exchange` refuses its operation outright, in words; `None` when it does not. An
/// HTTP+JSON 404 counts only for an operation whose route names no resource that could be
/// missing (ListTasks, the extended card): elsewhere it is TaskNotFoundError's status.
fn refusal(binding: Binding, op: Op, exchange: &Exchange) -> Option<String> {
    const UNSUPPORTED: &str = "UNSUPPORTED_OPERATION";
    let response = exchange.response.as_ref()?;
    match binding {
        Binding::Jsonrpc => {
            let code = jsonrpc_error(exchange)?
                .get("code")
                .and_then(Value::as_i64)?;
            match code {
                -32004 => Some("UnsupportedOperationError (-32004)".into()),
                -32601 => Some("method not found (-32601)".into()),
                _ => None,
            }
        }
        Binding::Rest => {
            let error = response.body.json.as_ref().and_then(|b| b.get("error"));
            let details = error.and_then(|e| e.get("details"));
            if has_reason(details, UNSUPPORTED) {
                Some(format!(
                    "UnsupportedOperationError (HTTP {})",
                    response.status
                ))
            } else if (matches!(response.status, 405 | 501)
                || (response.status == 404 && matches!(op, Op::List | Op::ExtendedCard)))
                && !(details.and_then(Value::as_array).into_iter().flatten())
                    .any(|d| d.get("reason").is_some())
            {
                Some(format!("HTTP {} (no such route)", response.status))
            } else {
                None
            }
        }
        Binding::Grpc => {
            let status = (response.headers.iter())
                .find(|(k, _)| k == "grpc-status")
                .map(|(_, v)| v.as_str())?;
            let body = response.body.json.as_ref();
            if status.starts_with("12 ") {
                Some("gRPC UNIMPLEMENTED".into())
            } else if has_reason(body.and_then(|b| b.get("details")), UNSUPPORTED) {
                let name = status.split(' ').nth(1).unwrap_or(status);
                Some(format!("UnsupportedOperationError (gRPC {name})"))
            } else {
                None
            }
        }
    }
}

/// The refused operation an exchange shows, with how it was refused: an operation of its
/// binding and version, declared by the card, never answered with success, refused here.
fn refused_in(
    exchange: &Exchange,
    succeeded: &Succeeded,
    declared: Declared,
) -> Option<(Place, Op, String)> {
    let (binding, version, name) = latency::operation(exchange)?;
    let op = Op::of(binding, version, &name)?;
    if !op.declared(declared) || succeeded.contains(&(binding, version, name.clone())) {
        return None;
    }
    let answer = refusal(binding, op, exchange)?;
    Some(((binding, version, name), op, answer))
}

/// The operations the agent refused, each with the results that met the refusal; a result
/// whose last A2A call was the refusal of an operation no keyworded sentence obliges the agent
/// to offer is made UNTESTABLE (it judged nothing of its own rule).
pub fn apply(
    results: &mut [CheckResult],
    succeeded: &Succeeded,
    declared: Declared,
) -> Vec<RefusedOperation> {
    let mut refused: BTreeMap<Place, Gathered> = BTreeMap::new();
    for result in results.iter_mut() {
        if !matches!(
            result.status,
            Status::Fail | Status::Warn | Status::Untestable | Status::Error
        ) {
            continue;
        }
        let operations: Vec<&Exchange> = (result.evidence.iter())
            .filter(|e| latency::operation(e).is_some())
            .collect();
        let mut met = None;
        for (i, exchange) in operations.iter().enumerate() {
            let Some((key, op, answer)) = refused_in(exchange, succeeded, declared) else {
                continue;
            };
            let last = i + 1 == operations.len();
            let entry = refused.entry(key.clone()).or_insert_with(|| Gathered {
                op,
                answer: answer.clone(),
                results: Vec::new(),
            });
            if !entry.results.contains(&result.id) {
                entry.results.push(result.id.clone());
            }
            if last {
                met = Some((key, op, answer));
            }
        }
        let Some(((_, version, name), op, answer)) = met else {
            continue;
        };
        if op.required_by(version).is_none() && matches!(result.status, Status::Fail | Status::Warn)
        {
            result.status = Status::Untestable;
            result.message = format!(
                "not judged: the check stopped at the refusal of {name} ({answer}), which no \
                 keyworded sentence obliges the agent to offer (see the refused operations); it \
                 said: {}",
                result.message
            );
        }
    }
    refused
        .into_iter()
        .map(|((binding, version, operation), g)| RefusedOperation {
            required_by: g.op.required_by(version).map(str::to_string),
            operation,
            binding,
            version,
            answer: g.answer,
            results: g.results,
        })
        .collect()
}

/// One line per refused operation, its interfaces grouped: what the summary, the verdict and
/// the Markdown say once.
pub fn grouped_lines(refused: &[RefusedOperation]) -> Vec<String> {
    let mut groups: Vec<Group> = Vec::new();
    for r in refused {
        let place = format!("{} {}", r.binding, r.version);
        let same = |g: &&mut Group| {
            g.operation == r.operation && g.required_by == r.required_by.as_deref()
        };
        match groups.iter_mut().find(same) {
            Some(group) => {
                group.places.push(place);
                group.checks.extend(r.results.iter().map(String::as_str));
            }
            None => groups.push(Group {
                operation: &r.operation,
                required_by: r.required_by.as_deref(),
                places: vec![place],
                checks: r.results.iter().map(String::as_str).collect(),
            }),
        }
    }
    groups
        .into_iter()
        .map(|group| {
            let Group {
                operation,
                required_by,
                places,
                checks,
            } = group;
            let consequence = match required_by {
                Some(id) => format!("a MUST of this agent ({id}), so its results keep their FAIL"),
                None => "no sentence with an RFC 2119 keyword obliges the agent to offer it, so \
                         the results that stopped at it are UNTESTABLE"
                    .to_string(),
            };
            format!(
                "{operation} ({}): refused wherever the kit called it; {}; {consequence}",
                places.join(", "),
                crate::reporting::report::plural(checks.len(), "check met it", "checks met it"),
            )
        })
        .collect()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::suite::check::Level;
    use serde_json::json;

    /// A JSON-RPC call of `method` (1.0) answered with `answer`.
    fn call(method: &str, answer: Value) -> Exchange {
        serde_json::from_value(json!({
            "request": {"method": "POST", "url": "http://h/rpc",
                "headers": [["a2a-version", "1.0"]],
                "body": {"bytes": 1, "json": {"jsonrpc": "2.0", "id": 1, "method": method}}},
            "response": {"status": 200, "headers": [], "body": {"bytes": 1, "json": answer}},
            "elapsed_ms": 1
        }))
        .unwrap()
    }

    fn refused_call(method: &str) -> Exchange {
        call(
            method,
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32004, "message": "no"}}),
        )
    }

    fn ok_call(method: &str) -> Exchange {
        call(method, json!({"jsonrpc": "2.0", "id": 1, "result": {}}))
    }

    fn result(id: &str, status: Status, evidence: Vec<Exchange>) -> CheckResult {
        CheckResult {
            id: id.into(),
            level: Level::Must,
            spec_version: "1.0".into(),
            section: "3.1.4".into(),
            statements: Vec::new(),
            requirement: String::new(),
            binding: Some(Binding::Jsonrpc),
            version: Some(ProtocolVersion::V1_0),
            status,
            message: "expected a page; got an error".into(),
            reading: None,
            maps_to: Vec::new(),
            acts: Vec::new(),
            duration_ms: 0,
            evidence,
            configuration: None,
        }
    }

    #[test]
    fn an_unbound_operation_refused_everywhere_stops_its_results() {
        let mut results = vec![
            result(
                "tasks.list.a",
                Status::Fail,
                vec![ok_call("SendMessage"), refused_call("ListTasks")],
            ),
            result(
                "tasks.list.b",
                Status::Warn,
                vec![refused_call("ListTasks")],
            ),
            // The refusal was met, but the check went on and failed on something else.
            result(
                "auth.x",
                Status::Fail,
                vec![refused_call("ListTasks"), ok_call("GetTask")],
            ),
        ];
        let refused = apply(&mut results, &Succeeded::new(), Declared::default());
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].operation, "ListTasks");
        assert_eq!(refused[0].required_by, None);
        assert_eq!(
            refused[0].results,
            ["tasks.list.a", "tasks.list.b", "auth.x"]
        );
        assert_eq!(results[0].status, Status::Untestable);
        assert!(
            results[0].message.contains("refusal of ListTasks"),
            "{}",
            results[0].message
        );
        assert_eq!(results[1].status, Status::Untestable);
        assert_eq!(results[2].status, Status::Fail);
    }

    #[test]
    fn a_bound_operation_keeps_its_fails() {
        let mut results = vec![result(
            "send.x",
            Status::Fail,
            vec![refused_call("SendMessage")],
        )];
        let refused = apply(&mut results, &Succeeded::new(), Declared::default());
        assert_eq!(refused[0].required_by.as_deref(), Some("V10-3.1.1-02"));
        assert_eq!(results[0].status, Status::Fail);
    }

    #[test]
    fn what_succeeded_elsewhere_or_is_undeclared_is_not_refused() {
        let mut results = vec![
            result(
                "tasks.list.a",
                Status::Fail,
                vec![refused_call("ListTasks")],
            ),
            result(
                "streaming.a",
                Status::Fail,
                vec![refused_call("SendStreamingMessage")],
            ),
            result(
                "x.unknown",
                Status::Fail,
                vec![refused_call("NoSuchMethod")],
            ),
            // A 0.3 method sent as 1.0 is not an operation of 1.0.
            result(
                "versioning.x",
                Status::Fail,
                vec![refused_call("message/send")],
            ),
        ];
        let succeeded: Succeeded = [(
            Binding::Jsonrpc,
            ProtocolVersion::V1_0,
            "ListTasks".to_string(),
        )]
        .into();
        let refused = apply(&mut results, &succeeded, Declared::default());
        assert!(refused.is_empty(), "{refused:?}");
        assert!(results.iter().all(|r| r.status == Status::Fail));
        // Declared, the streaming refusal counts (and 1.0 obliges it).
        let declared = Declared {
            streaming: true,
            ..Declared::default()
        };
        let refused = apply(&mut results, &succeeded, declared);
        assert_eq!(refused.len(), 1);
        assert_eq!(refused[0].required_by.as_deref(), Some("V10-3.1.2-02"));
    }

    #[test]
    fn refusal_forms_of_each_binding() {
        let rest = |status: u16, body: Value| -> Exchange {
            serde_json::from_value(json!({
                "request": {"method": "GET", "url": "http://h/tasks", "headers": []},
                "response": {"status": status, "headers": [], "body": {"bytes": 1, "json": body}},
                "elapsed_ms": 1
            }))
            .unwrap()
        };
        let unsupported = json!({"error": {"code": 400, "details": [
            {"@type": "type.googleapis.com/google.rpc.ErrorInfo", "reason": "UNSUPPORTED_OPERATION"}]}});
        assert!(refusal(Binding::Rest, Op::Get, &rest(400, unsupported)).is_some());
        assert!(refusal(Binding::Rest, Op::List, &rest(404, json!({}))).is_some());
        assert!(refusal(Binding::Rest, Op::Get, &rest(405, json!({}))).is_some());
        // A 404 of GetTask is TaskNotFoundError's status, ErrorInfo or not.
        assert!(refusal(Binding::Rest, Op::Get, &rest(404, json!({}))).is_none());
        let not_found = json!({"error": {"code": 404, "details": [{"reason": "TASK_NOT_FOUND"}]}});
        assert!(refusal(Binding::Rest, Op::List, &rest(404, not_found)).is_none());
        let grpc = |status: &str| -> Exchange {
            serde_json::from_value(json!({
                "request": {"method": "gRPC", "url": "/lf.a2a.v1.A2AService/ListTasks", "headers": []},
                "response": {"status": 200, "headers": [["grpc-status", status]],
                    "body": {"bytes": 1, "json": {"code": 12, "details": []}}},
                "elapsed_ms": 1
            }))
            .unwrap()
        };
        assert!(refusal(Binding::Grpc, Op::List, &grpc("12 UNIMPLEMENTED")).is_some());
        assert!(refusal(Binding::Grpc, Op::List, &grpc("5 NOT_FOUND")).is_none());
        let method_not_found = call(
            "ListTasks",
            json!({"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "no"}}),
        );
        assert!(refusal(Binding::Jsonrpc, Op::List, &method_not_found).is_some());
    }
}

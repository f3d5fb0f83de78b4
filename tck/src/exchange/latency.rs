//! The agent's latency per operation, from the exchanges the kit records: each exchange is
//! timed as it is recorded (a few numbers, never its body), since the evidence of passing
//! checks is discarded. Only answers that succeeded count (a 2xx, no JSON-RPC error, gRPC
//! status 0): a refusal of a malformed request says little about how fast the agent works.
//! Unary calls are timed to the whole answer, streams to their first event.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::exchange::evidence::Exchange;
use crate::facts::model::{Binding, ProtocolVersion};

/// The latency of one operation on one binding x version.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct OperationLatency {
    /// The operation as the wire names it: the JSON-RPC method (`SendMessage`,
    /// `message/send` on 0.3), the gRPC method, or the REST operation's method name.
    pub operation: String,
    /// The binding the operation was called on.
    pub binding: Binding,
    /// The protocol version it was called with.
    pub version: ProtocolVersion,
    /// Unary calls: time to the whole answer. Absent when no unary call succeeded.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<Figures>,
    /// Streams: time from the request to the first event. Absent for unary operations.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub first_event: Option<Figures>,
}

/// Figures over a set of timings, in milliseconds (nearest-rank percentiles).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct Figures {
    /// How many exchanges were timed.
    pub count: usize,
    /// The median, in milliseconds.
    pub median_ms: u64,
    /// The 95th percentile (nearest rank), in milliseconds.
    pub p95_ms: u64,
    /// The slowest, in milliseconds.
    pub max_ms: u64,
}

impl Figures {
    /// The figures of `samples`; `None` when there are none.
    pub fn of(samples: &[u64]) -> Option<Figures> {
        if samples.is_empty() {
            return None;
        }
        let mut sorted = samples.to_vec();
        sorted.sort_unstable();
        let rank = |p: f64| {
            let at = (p * sorted.len() as f64).ceil() as usize;
            sorted[at.clamp(1, sorted.len()) - 1]
        };
        Some(Figures {
            count: sorted.len(),
            median_ms: rank(0.5),
            p95_ms: rank(0.95),
            max_ms: sorted[sorted.len() - 1],
        })
    }
}

#[derive(Debug, Default)]
struct Samples {
    answer: Vec<u64>,
    first_event: Vec<u64>,
}

/// The run's timings, shared by every recorder of the run.
#[derive(Debug, Default)]
pub struct Timings(Mutex<BTreeMap<Operation, Samples>>);

impl crate::exchange::evidence::Observer for Timings {
    fn observe(&self, exchange: &Exchange) {
        self.record(exchange);
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
        self
    }
}

impl Timings {
    pub fn new() -> Arc<Timings> {
        Arc::new(Timings::default())
    }

    /// Times `exchange`, if it is a successful A2A operation.
    pub fn record(&self, exchange: &Exchange) {
        let Some(sample) = sample(exchange) else {
            return;
        };
        if let Ok(mut map) = self.0.lock() {
            let samples = map.entry(sample.key).or_default();
            if sample.streamed {
                samples.first_event.push(sample.ms);
            } else {
                samples.answer.push(sample.ms);
            }
        }
    }

    /// The operations, by binding and version, that succeeded at least once in the run.
    pub fn succeeded(&self) -> std::collections::BTreeSet<(Binding, ProtocolVersion, String)> {
        self.0
            .lock()
            .map(|map| map.keys().cloned().collect())
            .unwrap_or_default()
    }

    /// The 95th percentile (nearest rank) of every timing so far, unary answers and first
    /// events together, in milliseconds; `None` before the first.
    pub fn p95_ms(&self) -> Option<u64> {
        let map = self.0.lock().ok()?;
        let all: Vec<u64> = (map.values())
            .flat_map(|s| s.answer.iter().chain(&s.first_event))
            .copied()
            .collect();
        Figures::of(&all).map(|f| f.p95_ms)
    }

    /// The figures, by binding, version and operation.
    pub fn figures(&self) -> Vec<OperationLatency> {
        let Ok(map) = self.0.lock() else {
            return Vec::new();
        };
        map.iter()
            .filter_map(|((binding, version, operation), samples)| {
                let answer = Figures::of(&samples.answer);
                let first_event = Figures::of(&samples.first_event);
                (answer.is_some() || first_event.is_some()).then(|| OperationLatency {
                    operation: operation.clone(),
                    binding: *binding,
                    version: *version,
                    answer,
                    first_event,
                })
            })
            .collect()
    }
}

/// An operation's place: its binding, version and name.
pub type Operation = (Binding, ProtocolVersion, String);

/// One timing: of which operation, how long, and whether to the first event of a stream (else
/// to the whole answer).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    pub key: Operation,
    pub ms: u64,
    pub streamed: bool,
}

/// The timing of `exchange`, if it is a successful A2A operation (a stream: once it has
/// delivered an event).
pub fn sample(exchange: &Exchange) -> Option<Sample> {
    let (binding, version, operation) = operation(exchange)?;
    if !succeeded(binding, exchange) {
        return None;
    }
    let streamed = !exchange.events.is_empty() || is_event_stream(exchange);
    let ms = if streamed {
        exchange.events.first()?.at_ms
    } else {
        exchange.elapsed_ms
    };
    Some(Sample {
        key: (binding, version, operation),
        ms,
        streamed,
    })
}

fn header<'a>(headers: &'a [(String, String)], name: &str) -> Option<&'a str> {
    headers
        .iter()
        .find(|(k, _)| k.eq_ignore_ascii_case(name))
        .map(|(_, v)| v.as_str())
}

fn is_event_stream(exchange: &Exchange) -> bool {
    (exchange.response.as_ref())
        .and_then(|r| header(&r.headers, "content-type"))
        .is_some_and(|t| t.to_ascii_lowercase().starts_with("text/event-stream"))
}

/// The binding, version and operation of an exchange; `None` for what is not an A2A
/// operation (the card, a key set, a webhook).
pub fn operation(exchange: &Exchange) -> Option<(Binding, ProtocolVersion, String)> {
    let request = &exchange.request;
    // An absent A2A-Version means 0.3 (spec 1.0 §3.6.2).
    let version = match header(&request.headers, "a2a-version") {
        None => ProtocolVersion::V0_3,
        Some(v) => ProtocolVersion::from_declared(v)?,
    };
    if request.method == "gRPC" {
        let method = request.url.rsplit('/').next()?;
        return Some((Binding::Grpc, version, method.to_string()));
    }
    let body = request.body.as_ref().and_then(|b| b.json.as_ref());
    if let Some(method) = body
        .filter(|b| b.get("jsonrpc").is_some())
        .and_then(|b| b.get("method"))
        .and_then(Value::as_str)
    {
        return Some((Binding::Jsonrpc, version, method.to_string()));
    }
    let path = reqwest::Url::parse(&request.url).ok()?.path().to_string();
    rest_operation(&request.method, &path).map(|op| (Binding::Rest, version, op.to_string()))
}

/// The REST operation of a method and path (spec 1.0 §11.3), by its method name, as
/// [`crate::facts::operation::rest_route`] reads it.
fn rest_operation(method: &str, path: &str) -> Option<&'static str> {
    crate::facts::operation::rest_route(method, path).map(|route| route.name)
}

/// Whether `exchange`, an operation on `binding`, was answered with success (a 2xx, no
/// JSON-RPC error, gRPC status 0 or a stream opened).
pub fn succeeded(binding: Binding, exchange: &Exchange) -> bool {
    let Some(response) = &exchange.response else {
        return false;
    };
    if !(200..300).contains(&response.status) {
        return false;
    }
    match binding {
        // The kit records `0 OK`, another code and its name, or `stream` for a stream
        // opened (whose end, if an error, replaces it).
        Binding::Grpc => header(&response.headers, "grpc-status")
            .and_then(|s| s.split(' ').next())
            .is_some_and(|code| code == "0" || code == "stream"),
        Binding::Jsonrpc => {
            let error = |v: &Value| v.get("error").is_some();
            match (&response.body.json, exchange.events.first()) {
                (Some(body), _) => !error(body),
                (None, Some(first)) => !first.data.json.as_ref().is_some_and(error),
                // A body too large to parse: an answer all the same.
                (None, None) => exchange.error.is_none(),
            }
        }
        Binding::Rest => !exchange.events.is_empty() || exchange.error.is_none(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn percentiles_are_nearest_rank() {
        let samples: Vec<u64> = (1..=20).collect();
        let f = Figures::of(&samples).expect("figures");
        assert_eq!((f.count, f.median_ms, f.p95_ms, f.max_ms), (20, 10, 19, 20));
        let one = Figures::of(&[7]).expect("figures");
        assert_eq!((one.median_ms, one.p95_ms), (7, 7));
        assert!(Figures::of(&[]).is_none());
    }

    #[test]
    fn rest_paths_name_their_operations() {
        let op = |m, p| rest_operation(m, p);
        assert_eq!(op("POST", "/a2a/message:send"), Some("SendMessage"));
        assert_eq!(op("POST", "/message:stream"), Some("SendStreamingMessage"));
        assert_eq!(op("GET", "/a2a/tasks/abc"), Some("GetTask"));
        assert_eq!(op("GET", "/a2a/tasks"), Some("ListTasks"));
        assert_eq!(op("POST", "/tasks/abc:cancel"), Some("CancelTask"));
        assert_eq!(
            op("POST", "/v1/tasks/abc:subscribe"),
            Some("SubscribeToTask")
        );
        assert_eq!(
            op("GET", "/tasks/abc/pushNotificationConfigs/x"),
            Some("GetTaskPushNotificationConfig")
        );
        assert_eq!(
            op("GET", "/tasks/abc/pushNotificationConfigs"),
            Some("ListTaskPushNotificationConfigs")
        );
        assert_eq!(op("GET", "/.well-known/agent-card.json"), None);
    }

    #[test]
    fn successful_operations_are_timed_and_refusals_are_not() {
        let exchange = |method: &str, status: u16, body: Value, ms: u64| -> Exchange {
            serde_json::from_value(serde_json::json!({
                "request": {"method": "POST", "url": "http://h/rpc",
                    "headers": [["a2a-version", "1.0"]],
                    "body": {"bytes": 1, "json": {"jsonrpc": "2.0", "id": 1, "method": method}}},
                "response": {"status": status, "headers": [],
                    "body": {"bytes": 1, "json": body}},
                "elapsed_ms": ms
            }))
            .expect("an exchange")
        };
        let timings = Timings::new();
        for ms in [10, 20, 30] {
            timings.record(&exchange(
                "SendMessage",
                200,
                serde_json::json!({"result": {}}),
                ms,
            ));
        }
        timings.record(&exchange(
            "SendMessage",
            200,
            serde_json::json!({"error": {}}),
            1,
        ));
        timings.record(&exchange("GetTask", 500, serde_json::json!({}), 1));
        let figures = timings.figures();
        assert_eq!(figures.len(), 1, "{figures:?}");
        assert_eq!(figures[0].operation, "SendMessage");
        assert_eq!(figures[0].binding, Binding::Jsonrpc);
        assert_eq!(figures[0].version, ProtocolVersion::V1_0);
        let answer = figures[0].answer.as_ref().expect("timed");
        assert_eq!((answer.count, answer.median_ms, answer.p95_ms), (3, 20, 30));
    }
}

//! The evidence model: every exchange the kit makes (request, headers with secrets redacted,
//! status, body, stream events with their arrival times), as a report keeps it, and the
//! per-check [`Recorder`] that collects it. Nothing here talks to the network.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::facts::model::HarnessError;

/// Header names whose values never reach a report.
const SECRET_HEADERS: &[&str] = &[
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
    "x-api-key",
];

/// How much of a body a report keeps.
const EVIDENCE_BODY_LIMIT: usize = 64 * 1024;

/// Bytes of event data one stream's record keeps; later events are counted, not kept.
pub const EVIDENCE_STREAM_BYTES: usize = 256 * 1024;

/// Bytes of bodies and events the evidence of one result keeps; exchanges past it keep their
/// request, status and headers, and count what they drop.
pub const EVIDENCE_RESULT_BYTES: usize = 1024 * 1024;

/// Exchanges the evidence of one result keeps; later ones are seen by the observers (the
/// audits, the history) and counted in the last kept exchange's `dropped.exchanges`.
pub const EVIDENCE_RESULT_EXCHANGES: usize = 200;

/// Bytes of bodies and events the evidence of a whole report keeps (see [`cap_report`]).
pub const EVIDENCE_REPORT_BYTES: usize = 8 * 1024 * 1024;

/// One HTTP exchange, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Exchange {
    /// What the kit sent.
    pub request: RecordedRequest,
    /// Absent when no response arrived (see `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<RecordedResponse>,
    /// Why the exchange did not complete, if it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    /// Milliseconds from the request to the end of the answer (or of the stream).
    pub elapsed_ms: u64,
    /// The events of a stream (SSE events, gRPC stream messages), in arrival order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<RecordedEvent>,
    /// What the record left out to stay within the kit's evidence caps, if anything.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dropped: Option<Dropped>,
}

/// What a record left out: events not kept, and the bytes of events and bodies not kept.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Dropped {
    /// Stream events received but not kept.
    pub events: u64,
    /// Bytes received (event data, bodies) that the record does not keep.
    pub bytes: u64,
    /// Exchanges of the same result made after this one and not kept at all: past
    /// [`EVIDENCE_RESULT_EXCHANGES`] a result counts them (a check polling a task for its
    /// whole wait makes hundreds).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub exchanges: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

impl Exchange {
    /// Bytes of bodies and event data this record keeps.
    pub fn kept_bytes(&self) -> usize {
        self.request
            .body
            .as_ref()
            .map_or(0, RecordedBody::kept_bytes)
            + self.response.as_ref().map_or(0, |r| r.body.kept_bytes())
            + self
                .events
                .iter()
                .map(|e| e.data.kept_bytes())
                .sum::<usize>()
    }

    /// Leaves out the response body and the events (the request, status and headers stay),
    /// counting what was left out.
    pub fn shed(&mut self) {
        let dropped = self.dropped.get_or_insert_with(Dropped::default);
        for event in self.events.drain(..) {
            dropped.events += 1;
            dropped.bytes += event.data.bytes as u64;
        }
        if let Some(response) = self.response.as_mut() {
            if response.body.kept_bytes() > 0 {
                dropped.bytes += response.body.bytes as u64;
                response.body = RecordedBody {
                    bytes: response.body.bytes,
                    json: None,
                    text: None,
                    truncated: true,
                };
            }
        }
    }
}

/// One event of a stream, as received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordedEvent {
    /// Milliseconds from the request to this event's arrival.
    pub at_ms: u64,
    /// The SSE event type, when the event named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    /// The event's data.
    pub data: RecordedBody,
}

/// How many events of one stream a report keeps.
pub const EVIDENCE_EVENT_LIMIT: usize = 200;

/// A request as the kit sent it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordedRequest {
    /// The HTTP method, or `gRPC` for a gRPC call.
    pub method: String,
    /// The URL, or for gRPC the rpc path.
    pub url: String,
    /// The headers (gRPC metadata), credentials redacted.
    pub headers: Vec<(String, String)>,
    /// The body (gRPC: the request message as ProtoJSON), when there was one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<RecordedBody>,
}

/// A response as the agent sent it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordedResponse {
    /// The HTTP status (200 for a gRPC call; its status is the `grpc-status` header).
    pub status: u16,
    /// The headers and trailers (gRPC metadata), credentials redacted.
    pub headers: Vec<(String, String)>,
    /// The body (gRPC: the response message as ProtoJSON).
    pub body: RecordedBody,
}

/// A body as evidence: parsed JSON when it is JSON, else text; cut at 64 KiB.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordedBody {
    /// Size in bytes of what was received (or sent).
    pub bytes: usize,
    /// The body as JSON, when it parsed as JSON and is small enough to keep whole.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub json: Option<Value>,
    /// The body as text otherwise (lossy UTF-8), possibly cut.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub text: Option<String>,
    /// True when `text` holds only the start of the body.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub truncated: bool,
}

impl RecordedBody {
    /// Bytes of the body this record keeps (the parsed JSON counts as what it was parsed from).
    pub fn kept_bytes(&self) -> usize {
        if self.json.is_some() {
            self.bytes
        } else {
            self.text.as_ref().map_or(0, String::len)
        }
    }

    pub fn of(bytes: &[u8]) -> RecordedBody {
        if bytes.len() <= EVIDENCE_BODY_LIMIT {
            if let Ok(json) = serde_json::from_slice::<Value>(bytes) {
                return RecordedBody {
                    bytes: bytes.len(),
                    json: Some(json),
                    text: None,
                    truncated: false,
                };
            }
        }
        let keep = bytes.len().min(EVIDENCE_BODY_LIMIT);
        RecordedBody {
            bytes: bytes.len(),
            json: None,
            text: Some(String::from_utf8_lossy(&bytes[..keep]).into_owned()),
            truncated: keep < bytes.len(),
        }
    }
}
/// Something that sees every exchange as a recorder records it: the wire-shape audit of an
/// interface and the run's latency figures observe the recorders of the checks, which know
/// neither.
pub trait Observer: Send + Sync + std::fmt::Debug {
    /// Sees one exchange, as it is recorded (before the evidence of a passing check is
    /// discarded).
    fn observe(&self, exchange: &Exchange);

    /// This observer as `Any`, for the one that needs its own back (see
    /// [`Recorder::observer`]).
    fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync>;
}

/// Evidence collected by one check, held to [`EVIDENCE_RESULT_BYTES`].
#[derive(Debug, Clone, Default)]
pub struct Recorder(Arc<Mutex<Log>>);

#[derive(Debug, Default)]
struct Log {
    exchanges: Vec<Exchange>,
    kept: usize,
    /// Exchanges past [`EVIDENCE_RESULT_EXCHANGES`], not kept.
    omitted: u64,
    /// What sees each exchange as it is recorded.
    observers: Vec<Arc<dyn Observer>>,
}

impl Recorder {
    /// This recorder, also showing each exchange to `observer` as it is recorded.
    pub fn observed_by(self, observer: Arc<dyn Observer>) -> Recorder {
        if let Ok(mut log) = self.0.lock() {
            log.observers.push(observer);
        }
        self
    }

    /// The first observer of this recorder of type `T`, if any.
    pub fn observer<T: Observer + 'static>(&self) -> Option<Arc<T>> {
        let observers = self.0.lock().ok()?.observers.clone();
        observers
            .into_iter()
            .find_map(|o| o.into_any().downcast::<T>().ok())
    }

    /// Records `exchange`: its observers see it, and it is kept as evidence.
    pub fn push(&self, exchange: Exchange) {
        let observers = match self.0.lock() {
            Ok(log) => log.observers.clone(),
            Err(_) => return,
        };
        for observer in &observers {
            observer.observe(&exchange);
        }
        self.push_evidence(exchange);
    }

    /// Keeps `exchange` as evidence without showing it to the observers (they saw it when it
    /// was first recorded).
    pub fn push_evidence(&self, mut exchange: Exchange) {
        if let Ok(mut log) = self.0.lock() {
            if log.exchanges.len() >= EVIDENCE_RESULT_EXCHANGES {
                log.omitted += 1;
                return;
            }
            let size = exchange.kept_bytes();
            if log.kept + size > EVIDENCE_RESULT_BYTES {
                exchange.shed();
            }
            log.kept += exchange.kept_bytes();
            log.exchanges.push(exchange);
        }
    }

    pub fn take(&self) -> Vec<Exchange> {
        self.0
            .lock()
            .map(|mut log| {
                log.kept = 0;
                let omitted = std::mem::take(&mut log.omitted);
                let mut exchanges = std::mem::take(&mut log.exchanges);
                if let Some(last) = exchanges.last_mut().filter(|_| omitted > 0) {
                    last.dropped.get_or_insert_with(Dropped::default).exchanges = omitted;
                }
                exchanges
            })
            .unwrap_or_default()
    }
}

/// Holds the evidence of a whole report to [`EVIDENCE_REPORT_BYTES`]: the exchanges, in
/// order, that would pass it are shed (see [`Exchange::shed`]), each saying what it dropped.
pub fn cap_report<'a>(evidence: impl IntoIterator<Item = &'a mut Vec<Exchange>>) {
    let mut kept = 0;
    for exchanges in evidence {
        for exchange in exchanges.iter_mut() {
            let size = exchange.kept_bytes();
            if kept + size > EVIDENCE_REPORT_BYTES {
                exchange.shed();
            }
            kept += exchange.kept_bytes();
        }
    }
}
/// The evidence of one stream, pushed to the check's recorder when dropped (also when the
/// check is aborted at its deadline, so the events seen so far are never lost).
pub struct StreamLog {
    recorder: Recorder,
    started: Instant,
    max_body: usize,
    read: usize,
    /// Bytes of event data the record keeps.
    kept: usize,
    exchange: Exchange,
}

impl StreamLog {
    /// Milliseconds since the request was sent.
    pub fn elapsed_ms(&self) -> u64 {
        self.started.elapsed().as_millis() as u64
    }

    /// Counts bytes read from the stream; past the body limit the stream must stop.
    pub fn count(&mut self, bytes: usize) -> Result<(), HarnessError> {
        self.read += bytes;
        if self.read > self.max_body {
            return Err(HarnessError::Malformed(format!(
                "the stream exceeded the kit's limit of {} bytes; stopped reading",
                self.max_body
            )));
        }
        Ok(())
    }

    /// Records one event; past [`EVIDENCE_EVENT_LIMIT`] events or [`EVIDENCE_STREAM_BYTES`]
    /// bytes, only counts it.
    pub fn event(&mut self, event: Option<&str>, data: &[u8]) {
        let data_kept = data.len().min(EVIDENCE_BODY_LIMIT);
        if self.exchange.events.len() < EVIDENCE_EVENT_LIMIT
            && self.kept + data_kept <= EVIDENCE_STREAM_BYTES
        {
            let at_ms = self.elapsed_ms();
            self.kept += data_kept;
            self.exchange.events.push(RecordedEvent {
                at_ms,
                event: event.filter(|e| !e.is_empty()).map(str::to_string),
                data: RecordedBody::of(data),
            });
        } else {
            let dropped = self.exchange.dropped.get_or_insert_with(Dropped::default);
            dropped.events += 1;
            dropped.bytes += data.len() as u64;
        }
    }

    /// Records a body read whole.
    pub fn body(&mut self, body: &[u8]) {
        if let Some(response) = self.exchange.response.as_mut() {
            response.body = RecordedBody::of(body);
        }
    }

    /// Records why the stream ended abnormally (the first reason wins).
    pub fn fail(&mut self, why: String) {
        self.exchange.error.get_or_insert(why);
    }

    /// Replaces the recorded response (for transports that are not plain HTTP, e.g. gRPC).
    pub fn set_response(&mut self, response: Option<RecordedResponse>) {
        self.exchange.response = response;
    }

    /// A log of one exchange, sent at `started`, whose reads stop at `max_body` bytes.
    pub fn new(
        recorder: &Recorder,
        request: RecordedRequest,
        max_body: usize,
        started: Instant,
    ) -> StreamLog {
        StreamLog {
            recorder: recorder.clone(),
            started,
            max_body,
            read: 0,
            kept: 0,
            exchange: Exchange {
                request,
                response: None,
                error: None,
                elapsed_ms: 0,
                events: Vec::new(),
                dropped: None,
            },
        }
    }

    /// The body limit of this exchange.
    pub fn max_body(&self) -> usize {
        self.max_body
    }
}

impl Drop for StreamLog {
    fn drop(&mut self) {
        let mut exchange = std::mem::replace(
            &mut self.exchange,
            Exchange {
                request: RecordedRequest {
                    method: String::new(),
                    url: String::new(),
                    headers: Vec::new(),
                    body: None,
                },
                response: None,
                error: None,
                elapsed_ms: 0,
                events: Vec::new(),
                dropped: None,
            },
        );
        exchange.elapsed_ms = self.elapsed_ms();
        self.recorder.push(exchange);
    }
}
pub fn redact(name: &str, value: &str) -> String {
    if SECRET_HEADERS
        .iter()
        .any(|secret| name.eq_ignore_ascii_case(secret))
    {
        "[redacted]".to_string()
    } else {
        value.to_string()
    }
}

pub fn redact_all(headers: &[(String, String)]) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(k, v)| (k.clone(), redact(k, v)))
        .collect()
}
#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn secrets_are_redacted() {
        assert_eq!(redact("Authorization", "Bearer abc"), "[redacted]");
        assert_eq!(redact("x-api-key", "k"), "[redacted]");
        assert_eq!(redact("A2A-Version", "1.0"), "1.0");
    }

    #[test]
    fn a_result_keeps_its_first_exchanges_and_counts_the_rest() {
        let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        #[derive(Debug)]
        struct Counting(Arc<std::sync::atomic::AtomicUsize>);
        impl Observer for Counting {
            fn observe(&self, _: &Exchange) {
                self.0.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            }
            fn into_any(self: Arc<Self>) -> Arc<dyn std::any::Any + Send + Sync> {
                self
            }
        }
        let recorder = Recorder::default().observed_by(Arc::new(Counting(Arc::clone(&seen))));
        let poll = |n: usize| Exchange {
            request: RecordedRequest {
                method: "POST".into(),
                url: format!("http://127.0.0.1/poll/{n}"),
                headers: Vec::new(),
                body: None,
            },
            response: None,
            error: None,
            elapsed_ms: 0,
            events: Vec::new(),
            dropped: None,
        };
        let made = EVIDENCE_RESULT_EXCHANGES + 530;
        for n in 0..made {
            recorder.push(poll(n));
        }
        // The observers (the audits, the history) see every one; the evidence keeps the first
        // ones and says how many more there were.
        assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), made);
        let kept = recorder.take();
        assert_eq!(kept.len(), EVIDENCE_RESULT_EXCHANGES);
        let last = kept.last().and_then(|e| e.dropped).expect("the count");
        assert_eq!(last.exchanges, 530);
        assert!(recorder.take().is_empty());
    }

    #[test]
    fn large_bodies_are_cut_in_evidence() {
        let big = vec![b'x'; EVIDENCE_BODY_LIMIT + 10];
        let body = RecordedBody::of(&big);
        assert!(body.truncated);
        assert_eq!(body.bytes, EVIDENCE_BODY_LIMIT + 10);
        let json = RecordedBody::of(br#"{"a":1}"#);
        assert_eq!(json.json, Some(serde_json::json!({"a":1})));
    }
}

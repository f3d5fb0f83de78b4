//! The recording HTTP layer: every exchange the kit makes (request, headers with secrets
//! redacted, status, body) is kept as evidence. Bodies are read with a size cap and every
//! request has a deadline, so a hostile target cannot hang or exhaust the kit.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::check::HarnessError;

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

/// One HTTP exchange, as recorded.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct Exchange {
    pub request: RecordedRequest,
    /// Absent when no response arrived (see `error`).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub response: Option<RecordedResponse>,
    /// Why the exchange did not complete, if it did not.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    pub elapsed_ms: u64,
    /// The events of a stream (SSE events, gRPC stream messages), in arrival order.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<RecordedEvent>,
}

/// One event of a stream, as received.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordedEvent {
    /// Milliseconds from the request to this event's arrival.
    pub at_ms: u64,
    /// The SSE event type, when the event named one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub event: Option<String>,
    pub data: RecordedBody,
}

/// How many events of one stream a report keeps.
pub const EVIDENCE_EVENT_LIMIT: usize = 200;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordedRequest {
    pub method: String,
    pub url: String,
    pub headers: Vec<(String, String)>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub body: Option<RecordedBody>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct RecordedResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
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

/// An HTTP answer as the checks see it.
#[derive(Debug, Clone)]
pub struct HttpReply {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

impl HttpReply {
    /// The first value of a header (names are case-insensitive).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The media type of `Content-Type`, lowercased, without parameters.
    pub fn media_type(&self) -> Option<String> {
        self.header("content-type").map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        })
    }

    pub fn json(&self) -> Option<Value> {
        serde_json::from_slice(&self.body).ok()
    }

    /// The start of the body as text on one line, for messages.
    pub fn body_start(&self, max: usize) -> String {
        let keep = self.body.len().min(max);
        let text: String = String::from_utf8_lossy(&self.body[..keep])
            .split_whitespace()
            .collect::<Vec<_>>()
            .join(" ");
        if keep < self.body.len() {
            format!("{text}... ({} bytes in all)", self.body.len())
        } else {
            text
        }
    }
}

/// Evidence collected by one check.
#[derive(Debug, Clone, Default)]
pub struct Recorder(Arc<Mutex<Vec<Exchange>>>);

impl Recorder {
    pub fn push(&self, exchange: Exchange) {
        if let Ok(mut log) = self.0.lock() {
            log.push(exchange);
        }
    }

    pub fn take(&self) -> Vec<Exchange> {
        self.0
            .lock()
            .map(|mut log| std::mem::take(&mut *log))
            .unwrap_or_default()
    }
}

/// Limits every exchange is held to.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    pub request_timeout: Duration,
    pub max_body: usize,
    /// How long a stream may stay silent before the kit stops waiting for its next event.
    pub stream_wait: Duration,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            request_timeout: Duration::from_secs(10),
            max_body: 8 * 1024 * 1024,
            stream_wait: Duration::from_secs(5),
        }
    }
}

/// An HTTP client that records what it does.
#[derive(Debug, Clone)]
pub struct Wire {
    client: reqwest::Client,
    limits: Limits,
    recorder: Recorder,
    /// Headers the user gave (`--header`, e.g. credentials): sent on every request, their
    /// values always redacted in evidence.
    extra: Arc<Vec<(String, String)>>,
}

/// One request to make.
pub struct Request<'a> {
    pub method: reqwest::Method,
    pub url: &'a str,
    pub headers: Vec<(&'a str, String)>,
    pub body: Option<Vec<u8>>,
}

impl Wire {
    pub fn new(client: reqwest::Client, limits: Limits, recorder: Recorder) -> Wire {
        Wire {
            client,
            limits,
            recorder,
            extra: Arc::default(),
        }
    }

    /// Sends these headers too on every request.
    pub fn with_headers(mut self, extra: Arc<Vec<(String, String)>>) -> Wire {
        self.extra = extra;
        self
    }

    /// The headers the user gave (`--header`), sent on every request.
    pub fn extra_headers(&self) -> &[(String, String)] {
        &self.extra
    }

    pub fn recorder(&self) -> &Recorder {
        &self.recorder
    }

    pub fn limits(&self) -> Limits {
        self.limits
    }

    /// The request as evidence, and the request ready to send.
    fn prepare(&self, req: Request<'_>) -> (RecordedRequest, reqwest::RequestBuilder) {
        let recorded_request = RecordedRequest {
            method: req.method.to_string(),
            url: req.url.to_string(),
            headers: self
                .extra
                .iter()
                .map(|(k, _)| (k.clone(), "[redacted]".to_string()))
                .chain(
                    req.headers
                        .iter()
                        .map(|(k, v)| (k.to_string(), redact(k, v))),
                )
                .collect(),
            body: req.body.as_deref().map(RecordedBody::of),
        };
        let mut builder = self.client.request(req.method, req.url);
        for (name, value) in self.extra.iter() {
            builder = builder.header(name.as_str(), value.as_str());
        }
        for (name, value) in &req.headers {
            builder = builder.header(*name, value);
        }
        if let Some(body) = req.body {
            builder = builder.body(body);
        }
        (recorded_request, builder)
    }

    /// Sends a request whose answer is read piece by piece (a stream). The status and headers
    /// must arrive within the request deadline; the body is then read by the caller, with its
    /// own deadlines, through [`Opened`], which records what it read when dropped.
    pub async fn open(&self, req: Request<'_>) -> Result<Opened, HarnessError> {
        let started = Instant::now();
        let (request, builder) = self.prepare(req);
        let sent = tokio::time::timeout(self.limits.request_timeout, builder.send()).await;
        let response = match sent {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => Err(classify(&e)),
            Err(_) => Err(HarnessError::Deadline(format!(
                "no response headers from {} within {:?}",
                request.url, self.limits.request_timeout
            ))),
        }
        .inspect_err(|error| {
            self.recorder.push(Exchange {
                request: request.clone(),
                response: None,
                error: Some(error.to_string()),
                elapsed_ms: started.elapsed().as_millis() as u64,
                events: Vec::new(),
            });
        })?;
        let status = response.status().as_u16();
        let headers = header_list(response.headers());
        Ok(Opened {
            status,
            headers: headers.clone(),
            response: Some(response),
            log: StreamLog {
                recorder: self.recorder.clone(),
                started,
                max_body: self.limits.max_body,
                read: 0,
                exchange: Exchange {
                    request,
                    response: Some(RecordedResponse {
                        status,
                        headers: redact_all(&headers),
                        body: RecordedBody::of(b""),
                    }),
                    error: None,
                    elapsed_ms: 0,
                    events: Vec::new(),
                },
            },
        })
    }

    /// Sends one request, records it, and returns the answer with its body read in full
    /// (up to the body limit, within the request deadline).
    pub async fn send(&self, req: Request<'_>) -> Result<HttpReply, HarnessError> {
        let started = Instant::now();
        let (recorded_request, builder) = self.prepare(req);
        let outcome = tokio::time::timeout(self.limits.request_timeout, async {
            let response = builder.send().await.map_err(|e| classify(&e))?;
            let status = response.status().as_u16();
            let headers = header_list(response.headers());
            let body = read_capped(response, self.limits.max_body).await;
            Ok::<_, HarnessError>((status, headers, body))
        })
        .await
        .unwrap_or_else(|_| {
            Err(HarnessError::Deadline(format!(
                "no complete answer from {} within {:?}",
                recorded_request.url, self.limits.request_timeout
            )))
        });
        let elapsed_ms = started.elapsed().as_millis() as u64;
        match outcome {
            Ok((status, headers, Ok(body))) => {
                self.recorder.push(Exchange {
                    request: recorded_request,
                    response: Some(RecordedResponse {
                        status,
                        headers: redact_all(&headers),
                        body: RecordedBody::of(&body),
                    }),
                    error: None,
                    elapsed_ms,
                    events: Vec::new(),
                });
                Ok(HttpReply {
                    status,
                    headers,
                    body,
                })
            }
            Ok((status, headers, Err((partial, error)))) => {
                self.recorder.push(Exchange {
                    request: recorded_request,
                    response: Some(RecordedResponse {
                        status,
                        headers: redact_all(&headers),
                        body: RecordedBody::of(&partial),
                    }),
                    error: Some(error.to_string()),
                    elapsed_ms,
                    events: Vec::new(),
                });
                Err(error)
            }
            Err(error) => {
                self.recorder.push(Exchange {
                    request: recorded_request,
                    response: None,
                    error: Some(error.to_string()),
                    elapsed_ms,
                    events: Vec::new(),
                });
                Err(error)
            }
        }
    }
}

/// A response whose body is read by the caller: a stream. Its status and headers are known;
/// what it delivers is logged through [`StreamLog`] and recorded when the log is dropped.
pub struct Opened {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub response: Option<reqwest::Response>,
    pub log: StreamLog,
}

impl Opened {
    /// The status and headers as an [`HttpReply`] with the given body.
    pub fn reply(&self, body: Vec<u8>) -> HttpReply {
        HttpReply {
            status: self.status,
            headers: self.headers.clone(),
            body,
        }
    }

    /// Reads the whole body (a stream refused with an ordinary answer), within `deadline`.
    pub async fn read_all(mut self, deadline: Duration) -> Result<HttpReply, HarnessError> {
        let Some(response) = self.response.take() else {
            return Ok(self.reply(Vec::new()));
        };
        let max = self.log.max_body;
        let body = match tokio::time::timeout(deadline, read_capped(response, max)).await {
            Ok(Ok(body)) => body,
            Ok(Err((partial, error))) => {
                self.log.body(&partial);
                self.log.fail(error.to_string());
                return Err(error);
            }
            Err(_) => {
                let error = HarnessError::Deadline(format!(
                    "the response body did not end within {deadline:?}"
                ));
                self.log.fail(error.to_string());
                return Err(error);
            }
        };
        self.log.body(&body);
        Ok(self.reply(body))
    }
}

/// The evidence of one stream, pushed to the check's recorder when dropped (also when the
/// check is aborted at its deadline, so the events seen so far are never lost).
pub struct StreamLog {
    recorder: Recorder,
    started: Instant,
    max_body: usize,
    read: usize,
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

    /// Records one event.
    pub fn event(&mut self, event: Option<&str>, data: &[u8]) {
        if self.exchange.events.len() < EVIDENCE_EVENT_LIMIT {
            let at_ms = self.elapsed_ms();
            self.exchange.events.push(RecordedEvent {
                at_ms,
                event: event.filter(|e| !e.is_empty()).map(str::to_string),
                data: RecordedBody::of(data),
            });
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

    /// A log for an exchange made outside [`Wire`] (gRPC).
    pub fn detached(recorder: &Recorder, request: RecordedRequest, max_body: usize) -> StreamLog {
        StreamLog {
            recorder: recorder.clone(),
            started: Instant::now(),
            max_body,
            read: 0,
            exchange: Exchange {
                request,
                response: None,
                error: None,
                elapsed_ms: 0,
                events: Vec::new(),
            },
        }
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
            },
        );
        exchange.elapsed_ms = self.elapsed_ms();
        self.recorder.push(exchange);
    }
}

/// Builds the kit's HTTP client. Redirects are not followed (a 3xx is an answer to judge, and
/// stays in the evidence) and no retries are made.
pub fn client() -> Result<reqwest::Client, HarnessError> {
    // reqwest is built without a bundled crypto provider; use ring. Installing twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(5))
        .user_agent(concat!("a2a-tck/", env!("CARGO_PKG_VERSION")))
        .build()
        .map_err(|e| HarnessError::Internal(format!("failed to build the HTTP client: {e}")))
}

/// Reads a body up to `max` bytes. On failure returns what was read and why it stopped.
async fn read_capped(
    mut response: reqwest::Response,
    max: usize,
) -> Result<Vec<u8>, (Vec<u8>, HarnessError)> {
    let mut body = Vec::new();
    loop {
        match response.chunk().await {
            Ok(Some(chunk)) => {
                if body.len() + chunk.len() > max {
                    let room = max - body.len();
                    body.extend_from_slice(&chunk[..room]);
                    return Err((
                        body,
                        HarnessError::Malformed(format!(
                            "response body exceeds the kit's limit of {max} bytes; stopped reading"
                        )),
                    ));
                }
                body.extend_from_slice(&chunk);
            }
            Ok(None) => return Ok(body),
            Err(e) => return Err((body, classify(&e))),
        }
    }
}

fn classify(error: &reqwest::Error) -> HarnessError {
    let mut message = error.to_string();
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        message.push_str(": ");
        message.push_str(&cause.to_string());
        source = cause.source();
    }
    if error.is_timeout() {
        HarnessError::Deadline(message)
    } else {
        HarnessError::Transport(message)
    }
}

fn header_list(headers: &reqwest::header::HeaderMap) -> Vec<(String, String)> {
    headers
        .iter()
        .map(|(k, v)| {
            (
                k.as_str().to_string(),
                String::from_utf8_lossy(v.as_bytes()).into_owned(),
            )
        })
        .collect()
}

pub(crate) fn redact(name: &str, value: &str) -> String {
    if SECRET_HEADERS
        .iter()
        .any(|secret| name.eq_ignore_ascii_case(secret))
    {
        "[redacted]".to_string()
    } else {
        value.to_string()
    }
}

fn redact_all(headers: &[(String, String)]) -> Vec<(String, String)> {
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
    fn large_bodies_are_cut_in_evidence() {
        let big = vec![b'x'; EVIDENCE_BODY_LIMIT + 10];
        let body = RecordedBody::of(&big);
        assert!(body.truncated);
        assert_eq!(body.bytes, EVIDENCE_BODY_LIMIT + 10);
        let json = RecordedBody::of(br#"{"a":1}"#);
        assert_eq!(json.json, Some(serde_json::json!({"a":1})));
    }
}

//! The recording HTTP client: every request the kit makes goes through [`Wire`], which sends
//! the user's extra headers, holds each exchange to a deadline and a body limit (so a hostile
//! target cannot hang or exhaust the kit), and records it as evidence ([`crate::exchange::evidence`]).

use std::sync::Arc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::exchange::evidence::{
    redact, redact_all, Exchange, RecordedBody, RecordedRequest, RecordedResponse, Recorder,
    StreamLog,
};
use crate::facts::model::HarnessError;

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

/// What the kit sets itself on every request, so a user's header may not: the version checks
/// and the extension checks depend on the exact value sent. For a header the kit owns, the
/// option that does its work instead; `None` for any other header.
pub fn kit_owned_header(name: &str) -> Option<&'static str> {
    match name.trim().to_ascii_lowercase().as_str() {
        "a2a-version" => Some(
            "the kit sets A2A-Version itself on every request, for the protocol version under \
             test; select the versions to test with --protocol-version (0.3, 1.0)",
        ),
        "a2a-extensions" | "x-a2a-extensions" => Some(
            "the kit sets A2A-Extensions (0.3: X-A2A-Extensions) itself on every request: it \
             activates every extension the card declares with `required: true`, and the \
             extensions.* checks vary it; no option sets it",
        ),
        _ => None,
    }
}

/// A user's header (`--header`, `--other-header`, the library's `header`): a valid name and
/// value, and not a header the kit owns ([`kit_owned_header`]). The error never quotes the
/// value, which may be a credential.
pub fn user_header(name: &str, value: &str) -> Result<(), String> {
    reqwest::header::HeaderName::from_bytes(name.as_bytes())
        .map_err(|_| "not a valid header name (not shown: it may hold a secret)".to_string())?;
    if let Some(instead) = kit_owned_header(name) {
        return Err(format!("a header named {name} cannot be given: {instead}"));
    }
    reqwest::header::HeaderValue::from_str(value)
        .map_err(|e| format!("bad value for header {name}: {e}"))?;
    Ok(())
}

/// Parses `Name: value` into a user header (see [`user_header`]); the error never quotes the
/// text, which may hold a credential.
pub fn parse_user_header(text: &str) -> Result<(String, String), String> {
    let (name, value) = text
        .split_once(':')
        .ok_or_else(|| "expected 'Name: value' (no ':' in the text; its value is not shown, it may be a secret)".to_string())?;
    let (name, value) = (name.trim(), value.trim());
    user_header(name, value)?;
    Ok((name.to_string(), value.to_string()))
}

/// The kit's HTTP client: a pooled one for every request, and one that never reuses a
/// connection, for the single retry of a request that broke on a connection the agent may
/// already have closed (see [`Wire::send`]). Derefs to the pooled one.
#[derive(Debug, Clone)]
pub struct HttpClient {
    pooled: reqwest::Client,
    fresh: reqwest::Client,
}

impl std::ops::Deref for HttpClient {
    type Target = reqwest::Client;
    fn deref(&self) -> &reqwest::Client {
        &self.pooled
    }
}

/// An HTTP client that records what it does.
#[derive(Debug, Clone)]
pub struct Wire {
    client: HttpClient,
    limits: Limits,
    recorder: Recorder,
    /// Headers the user gave (`--header`, e.g. credentials): sent on every request, their
    /// values always redacted in evidence.
    extra: Arc<Vec<(String, String)>>,
    /// Extension URIs activated on every request (the card's required extensions; see
    /// [`crate::facts::service_params`]), sent as `A2A-Extensions` and its 0.3 name.
    extensions: Arc<Vec<String>>,
    /// The run's history of every task, which the checks' typed calls add to.
    history: Option<Arc<crate::exchange::history::History>>,
}

/// One request to make.
pub struct Request<'a> {
    pub method: reqwest::Method,
    pub url: &'a str,
    pub headers: Vec<(&'a str, String)>,
    pub body: Option<Vec<u8>>,
}

impl Wire {
    pub fn new(client: HttpClient, limits: Limits, recorder: Recorder) -> Wire {
        Wire {
            client,
            limits,
            recorder,
            extra: Arc::default(),
            extensions: Arc::default(),
            history: None,
        }
    }

    /// Keeps what the typed calls over this wire see of tasks in `history`.
    pub fn with_history(mut self, history: Arc<crate::exchange::history::History>) -> Wire {
        self.history = Some(history);
        self
    }

    /// The run's history of every task, if this wire keeps one.
    pub fn history(&self) -> Option<&Arc<crate::exchange::history::History>> {
        self.history.as_ref()
    }

    /// Activates these extensions on every request (replacing any list set before; empty:
    /// none).
    pub fn with_extensions(mut self, extensions: Arc<Vec<String>>) -> Wire {
        self.extensions = extensions;
        self
    }

    /// The extensions activated on every request.
    pub fn extensions(&self) -> &[String] {
        &self.extensions
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

    /// The headers (or gRPC metadata) of a request as its evidence shows them, on every
    /// binding alike: the user's own headers redacted whatever their name, and the secret ones
    /// (`Authorization`, cookies, API keys).
    pub fn evidence_headers(
        &self,
        sent: impl IntoIterator<Item = (String, String)>,
    ) -> Vec<(String, String)> {
        (sent.into_iter())
            .map(|(k, v)| {
                let user = (self.extra.iter()).any(|(name, _)| name.eq_ignore_ascii_case(&k));
                let shown = if user {
                    "[redacted]".to_string()
                } else {
                    redact(&k, &v)
                };
                (k, shown)
            })
            .collect()
    }

    /// The evidence log of one exchange the wire does not make itself (a gRPC call), kept by
    /// this wire's recorder as the wire's own are: `request` with its headers as
    /// [`Wire::evidence_headers`] shows them.
    pub fn log(&self, mut request: RecordedRequest) -> StreamLog {
        request.headers = self.evidence_headers(std::mem::take(&mut request.headers));
        StreamLog::new(
            self.recorder(),
            request,
            self.limits.max_body,
            std::time::Instant::now(),
        )
    }

    /// The request as evidence, and the request ready to send (on the pooled client; the
    /// retry's copy is made by [`sent_twice`] on the fresh one).
    fn prepare(&self, mut req: Request<'_>) -> (RecordedRequest, reqwest::RequestBuilder) {
        crate::facts::service_params::add_extension_headers(&mut req.headers, &self.extensions);
        let recorded_request = RecordedRequest {
            method: req.method.to_string(),
            url: req.url.to_string(),
            headers: self.evidence_headers(
                (self.extra.iter().cloned())
                    .chain(req.headers.iter().map(|(k, v)| (k.to_string(), v.clone()))),
            ),
            body: req.body.as_deref().map(RecordedBody::of),
        };
        let mut builder = self.client.pooled.request(req.method, req.url);
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

    /// Sends a request on the pooled client. A request that breaks before any byte of an
    /// answer (a reset, a connection closed under it; not a timeout, not a refused connection)
    /// may have gone out on a connection the agent had already closed without saying so (a
    /// server that closes after a 5xx without `Connection: close`): it is sent once more, on a
    /// new connection, and the broken attempt is recorded as an exchange of its own. The
    /// kit's connection reuse never decides a verdict; an agent that breaks the new connection
    /// too is answered with that error.
    async fn sent_twice(
        &self,
        request: &RecordedRequest,
        builder: reqwest::RequestBuilder,
        started: Instant,
    ) -> Result<reqwest::Response, HarnessError> {
        let again = builder.try_clone().and_then(|b| b.build().ok());
        let first = match builder.send().await {
            Ok(response) => return Ok(response),
            Err(e) => e,
        };
        let (Some(again), true) = (again, broke_before_answer(&first)) else {
            return Err(classify(&first));
        };
        self.recorder.push(Exchange {
            request: request.clone(),
            response: None,
            error: Some(format!("{}{RETRIED}", classify(&first))),
            elapsed_ms: started.elapsed().as_millis() as u64,
            events: Vec::new(),
            dropped: None,
        });
        self.client
            .fresh
            .execute(again)
            .await
            .map_err(|e| classify(&e))
    }

    /// Sends a request whose answer is read piece by piece (a stream). The status and headers
    /// must arrive within the request deadline; the body is then read by the caller, with its
    /// own deadlines, through [`Opened`], which records what it read when dropped.
    pub async fn open(&self, req: Request<'_>) -> Result<Opened, HarnessError> {
        let started = Instant::now();
        let (request, builder) = self.prepare(req);
        let sent = tokio::time::timeout(
            self.limits.request_timeout,
            self.sent_twice(&request, builder, started),
        )
        .await;
        let response = match sent {
            Ok(Ok(response)) => Ok(response),
            Ok(Err(e)) => Err(e),
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
                dropped: None,
            });
        })?;
        let status = response.status().as_u16();
        let headers = header_list(response.headers());
        let mut log = StreamLog::new(&self.recorder, request, self.limits.max_body, started);
        log.set_response(Some(RecordedResponse {
            status,
            headers: redact_all(&headers),
            body: RecordedBody::of(b""),
        }));
        Ok(Opened {
            status,
            headers,
            response: Some(response),
            log,
        })
    }

    /// Sends one request, records it, and returns the answer with its body read in full
    /// (up to the body limit, within the request deadline).
    pub async fn send(&self, req: Request<'_>) -> Result<HttpReply, HarnessError> {
        let started = Instant::now();
        let (recorded_request, builder) = self.prepare(req);
        // The status and headers, once they came: an answer whose body never ends is
        // recorded as an answer (an endless stream read whole), not as no answer at all.
        let mut head: Option<(u16, Vec<(String, String)>)> = None;
        let outcome = tokio::time::timeout(self.limits.request_timeout, async {
            let response = self.sent_twice(&recorded_request, builder, started).await?;
            let status = response.status().as_u16();
            let headers = header_list(response.headers());
            head = Some((status, headers.clone()));
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
                    dropped: None,
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
                    dropped: None,
                });
                Err(error)
            }
            Err(error) => {
                self.recorder.push(Exchange {
                    request: recorded_request,
                    response: head.map(|(status, headers)| RecordedResponse {
                        status,
                        headers: redact_all(&headers),
                        body: RecordedBody::of(b""),
                    }),
                    error: Some(error.to_string()),
                    elapsed_ms,
                    events: Vec::new(),
                    dropped: None,
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
        let max = self.log.max_body();
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
/// Builds the kit's HTTP client. Redirects are not followed (a 3xx is an answer to judge, and
/// stays in the evidence) and no retries are made.
/// How long an idle pooled connection is kept: well under the shortest common server
/// keep-alive (Node's 5 s).
pub const POOL_IDLE: Duration = Duration::from_secs(2);

/// What the evidence of a broken attempt says after its error: the request was sent again.
pub const RETRIED: &str =
    " (before any answer, on a connection the kit may have reused; sent once more on a new connection)";

/// A request error that came before any answer and is neither a timeout nor a refused or
/// failed connect: the connection broke under the request.
fn broke_before_answer(error: &reqwest::Error) -> bool {
    error.is_request() && !error.is_connect() && !error.is_timeout()
}

pub fn client() -> Result<HttpClient, HarnessError> {
    client_trusting(&[])
}

/// [`client`] that also trusts the CA certificates `ca_pems` (PEM; `--ca-cert`).
/// Checks that `pem` (a `--ca-cert` file) holds at least one certificate, each of which parses;
/// returns how many. A file with none (a key, a CSR, an empty or a DER file) would otherwise be
/// accepted silently and trust nothing.
pub fn ca_certificates(pem: &[u8]) -> Result<usize, String> {
    use rustls::pki_types::pem::PemObject as _;
    use rustls::pki_types::CertificateDer;
    let mut count = 0;
    for certificate in CertificateDer::pem_slice_iter(pem) {
        certificate.map_err(|e| format!("a PEM section does not parse: {e}"))?;
        count += 1;
    }
    if count == 0 {
        return Err("holds no PEM certificate (no -----BEGIN CERTIFICATE----- section)".into());
    }
    Ok(count)
}

pub fn client_trusting(ca_pems: &[Vec<u8>]) -> Result<HttpClient, HarnessError> {
    Ok(HttpClient {
        pooled: built(ca_pems, true)?,
        fresh: built(ca_pems, false)?,
    })
}

/// A reqwest client trusting `ca_pems` besides the system's; `pool`: whether connections are
/// kept for reuse.
fn built(ca_pems: &[Vec<u8>], pool: bool) -> Result<reqwest::Client, HarnessError> {
    // reqwest is built without a bundled crypto provider; use ring. Installing twice is harmless.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let mut builder = reqwest::Client::builder();
    for pem in ca_pems {
        let certificate = reqwest::Certificate::from_pem(pem).map_err(|e| {
            HarnessError::Internal(format!("a --ca-cert is not a PEM certificate: {e}"))
        })?;
        builder = builder.add_root_certificate(certificate);
    }
    builder
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(Duration::from_secs(5))
        // An idle pooled connection is dropped before a typical server closes it (Node
        // closes idle keep-alive connections after 5 s), so a request never goes out on a
        // connection the agent has already closed.
        .pool_idle_timeout(POOL_IDLE)
        .pool_max_idle_per_host(if pool { usize::MAX } else { 0 })
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

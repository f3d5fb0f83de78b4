//! The client mode's scripted agent: one loopback server, in the kit's own process, that serves
//! every play of a run. It has three doors (listeners): `main` and `alt` pass every request on to
//! the play's reference agent and record it with what came back; `dead` answers every request
//! 503 (gRPC UNAVAILABLE), for the plays whose card lists an interface that fails. The play's
//! card is served at `/p/{token}/.well-known/agent-card.json`; HTTP interfaces live under the
//! same prefix, which is taken off before the request is passed on. The second and the failing
//! door are also paths of the main listener (`/p/{token}/alt`, `/p/{token}/dead`), so a card's
//! HTTP interfaces are all on the card's own origin unless a play asks for another origin; gRPC
//! interfaces are `host:port` and can carry no path, so a gRPC door is always its own listener.
//! gRPC requests carry no prefix and belong to the play in progress (plays run one at a time).

use std::net::SocketAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::response::Response;
use axum::Router;
use bytes::Bytes;
use futures::StreamExt as _;
use http::{HeaderValue, StatusCode};
use http_body::Frame;
use http_body_util::{BodyStream, Full, StreamBody};
use hyper_util::client::legacy::connect::HttpConnector;
use hyper_util::client::legacy::Client;
use hyper_util::rt::TokioExecutor;
use serde_json::Value;
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// The most of a request or response body the stage reads or keeps.
const BODY_LIMIT: usize = 4 * 1024 * 1024;
/// The most of a streamed response the stage keeps as evidence.
const STREAM_KEEP: usize = 256 * 1024;

/// Which listener a request came in through.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Door {
    /// The interface a card lists first (or alone).
    Main,
    /// A second working interface.
    Alt,
    /// An interface that answers every request 503 (gRPC UNAVAILABLE).
    Dead,
}

/// One play in progress: its card, the reference agent behind it, and what the client sent.
#[derive(Debug)]
pub struct Play {
    /// The path prefix of the play's card and HTTP interfaces is `/p/{token}`.
    pub token: String,
    /// The card served at `/p/{token}/.well-known/agent-card.json`.
    pub card: Value,
    /// Where requests are passed on to.
    pub backend: SocketAddr,
    /// End the play's first stream after this many events (SSE events, gRPC messages); the
    /// streams after it (a resubscription) are passed on whole.
    pub cut_after: Option<usize>,
    /// Whether the first stream has been claimed for the cut.
    cut_claimed: std::sync::atomic::AtomicBool,
    /// What breaks on the wire: the first request whose body carries a marker gets its
    /// mishap instead of (or, held, before) the agent's answer ([`Play::with_mishaps`]).
    mishaps: Vec<(String, Mishap, std::sync::atomic::AtomicBool)>,
    started: Instant,
    seen: Mutex<Vec<Arc<Seen>>>,
    /// What else the play asks of the stage.
    pub options: PlayOptions,
    /// How many times the card was asked for.
    card_fetches: std::sync::atomic::AtomicUsize,
}

/// What a play may ask of the stage besides its card and its cut.
#[derive(Debug, Clone, Default)]
pub struct PlayOptions {
    /// Requests through the main door reach the agent asking for an A2A-Version it does not
    /// speak, so that it answers VersionNotSupportedError in the binding's form.
    pub refuse_version: bool,
    /// The card is served with `Cache-Control: no-cache` and an `ETag`, and answers a
    /// conditional request that names the current `ETag` with 304.
    pub cache_headers: bool,
    /// The card served from the second fetch on (a changed card, with its own `ETag`).
    pub revised_card: Option<Value>,
}

/// The ETag of the card (`first` true) or of the revised card.
pub fn card_etag(first: bool) -> &'static str {
    if first {
        "\"tck-card-1\""
    } else {
        "\"tck-card-2\""
    }
}

impl Play {
    pub fn new(token: String, card: Value, backend: SocketAddr, cut_after: Option<usize>) -> Play {
        Play {
            token,
            card,
            backend,
            cut_after,
            cut_claimed: std::sync::atomic::AtomicBool::new(false),
            mishaps: Vec::new(),
            started: Instant::now(),
            seen: Mutex::new(Vec::new()),
            options: PlayOptions::default(),
            card_fetches: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The play with `options`.
    pub fn with(mut self, options: PlayOptions) -> Play {
        self.options = options;
        self
    }

    /// The door a request on `listener`'s path `path` came through, and the prefix its path
    /// has there: a path of the main listener under `/p/{token}/alt` or `/p/{token}/dead` is the
    /// second or the failing door.
    fn door_of(&self, listener: Door, path: &str) -> (Door, String) {
        let prefix = self.prefix();
        if listener == Door::Main {
            for door in [Door::Alt, Door::Dead] {
                let own = format!("{prefix}{}", Stage::segment(door));
                let rest = path.strip_prefix(&own);
                if rest.is_some_and(|r| r.is_empty() || r.starts_with('/')) {
                    return (door, own);
                }
            }
        }
        (listener, prefix)
    }

    /// The card to serve now, and its ETag.
    fn card_now(&self) -> (&Value, &'static str) {
        let fetched = self
            .card_fetches
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        match &self.options.revised_card {
            Some(revised) if fetched > 0 => (revised, card_etag(false)),
            _ => (&self.card, card_etag(true)),
        }
    }

    /// The play with mishaps: each `(marker, mishap)` befalls the first request whose body
    /// holds `marker` (a text the play's steps send); later requests carrying it (a retry)
    /// are passed on as usual.
    pub fn with_mishaps(mut self, mishaps: impl IntoIterator<Item = (String, Mishap)>) -> Play {
        self.mishaps = (mishaps.into_iter())
            .map(|(marker, mishap)| (marker, mishap, std::sync::atomic::AtomicBool::new(false)))
            .collect();
        self
    }

    /// The mishap the request with `body` meets, claiming it; `None` for most requests.
    fn mishap_for(&self, body: &[u8]) -> Option<Mishap> {
        self.mishaps.iter().find_map(|(marker, mishap, claimed)| {
            let holds =
                !marker.is_empty() && body.windows(marker.len()).any(|w| w == marker.as_bytes());
            (holds && !claimed.swap(true, std::sync::atomic::Ordering::SeqCst)).then_some(*mishap)
        })
    }

    /// Every request the client made in this play, in arrival order.
    pub fn seen(&self) -> Vec<Arc<Seen>> {
        self.seen.lock().map(|s| s.clone()).unwrap_or_default()
    }

    /// The prefix of the play's paths.
    pub fn prefix(&self) -> String {
        format!("/p/{}", self.token)
    }
}

/// What the stage does to a request instead of passing it straight on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Mishap {
    /// Answers 503 (gRPC UNAVAILABLE) without passing the request on.
    Unavailable,
    /// Closes the connection without an answer, the request not passed on.
    Drop,
    /// Passes the request on only after this long (the play's own bound on its wait), so a
    /// client that keeps a shorter deadline gives up first.
    Hold(Duration),
}

impl Mishap {
    /// What it did to a request over gRPC (`grpc`) or plain HTTP, for a judge's message.
    pub fn describe(self, grpc: bool) -> String {
        match (self, grpc) {
            (Mishap::Unavailable, true) => "answered UNAVAILABLE".into(),
            (Mishap::Unavailable, false) => "answered 503".into(),
            (Mishap::Drop, true) => "reset the call's stream without an answer".into(),
            (Mishap::Drop, false) => "closed the connection without an answer".into(),
            (Mishap::Hold(after), _) => format!("held the answer for {} ms", after.as_millis()),
        }
    }
}

/// One request the client made, as it arrived, with what the stage answered.
#[derive(Debug)]
pub struct Seen {
    pub door: Door,
    /// The prefix of the request's path at its door (`/p/{token}`, `/p/{token}/alt`).
    pub prefix: String,
    /// Milliseconds from the play's start.
    pub at_ms: u64,
    pub method: String,
    /// The path as the client sent it (prefix included).
    pub path: String,
    pub query: Option<String>,
    /// Every header, as sent (credentials included: the judges need them; evidence redacts).
    pub headers: Vec<(String, String)>,
    pub body: Bytes,
    /// Whether the request came over HTTP/2.
    pub http2: bool,
    /// What went back, filled in as it goes.
    pub served: Mutex<Served>,
}

impl Seen {
    /// A header's value (the first of that name, any case).
    pub fn header(&self, name: &str) -> Option<&str> {
        (self.headers.iter())
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every value of a header, any case.
    pub fn headers_named(&self, name: &str) -> Vec<&str> {
        (self.headers.iter())
            .filter(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
            .collect()
    }

    /// Whether this is a gRPC call.
    pub fn is_grpc(&self) -> bool {
        self.header("content-type")
            .is_some_and(|c| c.starts_with("application/grpc"))
    }

    /// What was served, as it stands.
    pub fn served(&self) -> Served {
        self.served.lock().map(|s| s.clone()).unwrap_or_default()
    }
}

/// A response as the stage sent it.
#[derive(Debug, Clone, Default)]
pub struct Served {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    /// The body (of a stream, its first 256 KiB).
    pub body: Vec<u8>,
    /// Stream events passed to the client.
    pub events: usize,
    /// Whether the stage ended the stream early (the play's `cut_after`).
    pub cut: bool,
    /// Why the request could not be passed on, if it could not.
    pub error: Option<String>,
    /// The play's mishap this request met, if any.
    pub mishap: Option<Mishap>,
    /// When each of the first stream events passed, in milliseconds from the request (the
    /// first [`crate::exchange::evidence::EVIDENCE_EVENT_LIMIT`]).
    pub event_ms: Vec<u64>,
    /// Milliseconds from the request to the end of the answer passed on.
    pub elapsed_ms: u64,
}

type Backend = Client<HttpConnector, Full<Bytes>>;

#[derive(Debug)]
struct Shared {
    current: Mutex<Option<Arc<Play>>>,
    http1: Backend,
    http2: Backend,
}

/// The running stage. Dropping it stops its listeners.
#[derive(Debug)]
pub struct Stage {
    shared: Arc<Shared>,
    doors: [(Door, SocketAddr); 3],
    stops: Vec<oneshot::Sender<()>>,
    tasks: Vec<JoinHandle<()>>,
}

impl Stage {
    /// Binds the three doors on 127.0.0.1 (ephemeral ports) and serves them.
    pub async fn start() -> std::io::Result<Stage> {
        let http1 = Client::builder(TokioExecutor::new()).build_http();
        let http2 = Client::builder(TokioExecutor::new())
            .http2_only(true)
            .build_http();
        let shared = Arc::new(Shared {
            current: Mutex::new(None),
            http1,
            http2,
        });
        let mut doors = Vec::new();
        let mut stops = Vec::new();
        let mut tasks = Vec::new();
        for door in [Door::Main, Door::Alt, Door::Dead] {
            let listener = TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
            doors.push((door, listener.local_addr()?));
            let router = Router::new()
                .fallback(handle)
                .with_state((Arc::clone(&shared), door));
            let (stop, stopped) = oneshot::channel::<()>();
            stops.push(stop);
            tasks.push(tokio::spawn(async move {
                let _ = axum::serve(listener, router)
                    .with_graceful_shutdown(async move {
                        let _ = stopped.await;
                    })
                    .await;
            }));
        }
        let doors = [doors[0], doors[1], doors[2]];
        Ok(Stage {
            shared,
            doors,
            stops,
            tasks,
        })
    }

    /// The path segment that makes a door of the main listener (`/p/{token}{segment}`).
    pub fn segment(door: Door) -> &'static str {
        match door {
            Door::Main => "",
            Door::Alt => "/alt",
            Door::Dead => "/dead",
        }
    }

    /// The address of a door.
    pub fn addr(&self, door: Door) -> SocketAddr {
        (self.doors.iter())
            .find(|(d, _)| *d == door)
            .map_or(self.doors[0].1, |(_, a)| *a)
    }

    /// Makes `play` the one in progress (the previous one ends).
    pub fn begin(&self, play: Arc<Play>) {
        if let Ok(mut current) = self.shared.current.lock() {
            *current = Some(play);
        }
    }

    /// Ends the play in progress.
    pub fn end(&self) {
        if let Ok(mut current) = self.shared.current.lock() {
            *current = None;
        }
    }
}

impl Drop for Stage {
    fn drop(&mut self) {
        for stop in self.stops.drain(..) {
            let _ = stop.send(());
        }
        for task in &self.tasks {
            task.abort();
        }
    }
}

fn plain(status: StatusCode, text: &str) -> Response {
    let mut response = Response::new(Body::from(text.to_owned()));
    *response.status_mut() = status;
    response
}

fn header_pairs(headers: &http::HeaderMap) -> Vec<(String, String)> {
    (headers.iter())
        .map(|(n, v)| {
            let value = String::from_utf8_lossy(v.as_bytes()).into_owned();
            (n.as_str().to_owned(), value)
        })
        .collect()
}

async fn handle(State((shared, door)): State<(Arc<Shared>, Door)>, request: Request) -> Response {
    let play = shared.current.lock().ok().and_then(|c| c.clone());
    let Some(play) = play else {
        return plain(StatusCode::SERVICE_UNAVAILABLE, "no play is in progress");
    };
    let (parts, body) = request.into_parts();
    let body = match axum::body::to_bytes(body, BODY_LIMIT).await {
        Ok(body) => body,
        Err(e) => return plain(StatusCode::PAYLOAD_TOO_LARGE, &e.to_string()),
    };
    let (door, prefix) = play.door_of(door, parts.uri.path());
    let seen = Arc::new(Seen {
        door,
        prefix: prefix.clone(),
        at_ms: play.started.elapsed().as_millis() as u64,
        method: parts.method.to_string(),
        path: parts.uri.path().to_owned(),
        query: parts.uri.query().map(str::to_owned),
        headers: header_pairs(&parts.headers),
        body: body.clone(),
        http2: parts.version == http::Version::HTTP_2,
        served: Mutex::new(Served::default()),
    });
    if let Ok(mut all) = play.seen.lock() {
        all.push(Arc::clone(&seen));
    }
    let inner = seen.path.strip_prefix(&prefix).map(str::to_owned);
    let mishap = (door != Door::Dead)
        .then(|| play.mishap_for(&body))
        .flatten();
    if let Some(mishap) = mishap {
        if let Ok(mut served) = seen.served.lock() {
            served.mishap = Some(mishap);
        }
    }
    let response = if door == Door::Dead || mishap == Some(Mishap::Unavailable) {
        dead(seen.is_grpc())
    } else if mishap == Some(Mishap::Drop) {
        if let Ok(mut served) = seen.served.lock() {
            served.error = Some("the stage closed the connection without an answer".into());
        }
        return dropped();
    } else if inner.as_deref() == Some("/.well-known/agent-card.json") {
        card_response(&play, &seen)
    } else if let Some(path) = inner.or_else(|| seen.is_grpc().then(|| seen.path.clone())) {
        if let Some(Mishap::Hold(after)) = mishap {
            tokio::time::sleep(after).await;
            // A play that ended meanwhile has no agent to answer (its port may be another
            // play's by now).
            let current = shared.current.lock().ok().and_then(|c| c.clone());
            if !current.is_some_and(|c| Arc::ptr_eq(&c, &play)) {
                return plain(
                    StatusCode::SERVICE_UNAVAILABLE,
                    "the play ended while its answer was held",
                );
            }
        }
        return forward(&shared, &play, &seen, parts, &path, body).await;
    } else {
        plain(StatusCode::NOT_FOUND, "no such path in this play")
    };
    if let Ok(mut served) = seen.served.lock() {
        served.status = response.status().as_u16();
        served.headers = header_pairs(response.headers());
    }
    response
}

/// The play's card, with caching headers when the play asks for them.
fn card_response(play: &Play, seen: &Seen) -> Response {
    let (card, etag) = play.card_now();
    let cached = play.options.cache_headers;
    let revalidated = cached
        && (seen.headers_named("if-none-match").iter())
            .flat_map(|v| v.split(','))
            .any(|tag| tag.trim().trim_start_matches("W/") == etag);
    let mut response = if revalidated {
        plain(StatusCode::NOT_MODIFIED, "")
    } else {
        let text = card.to_string();
        // The card served is the exchange's evidence, as a passed-on answer's body is.
        if let Ok(mut served) = seen.served.lock() {
            served.body = text.as_bytes().to_vec();
        }
        Response::new(Body::from(text))
    };
    let headers = response.headers_mut();
    if !revalidated {
        headers.insert(
            http::header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
    }
    if cached {
        headers.insert(
            http::header::CACHE_CONTROL,
            HeaderValue::from_static("no-cache"),
        );
        headers.insert(http::header::ETAG, HeaderValue::from_static(etag));
    }
    response
}

/// A response that never comes: its body fails before its head is written, so the server
/// closes the connection (HTTP/1.1) or resets the stream (HTTP/2) with nothing sent.
fn dropped() -> Response {
    let failing = futures::stream::once(async {
        Err::<Frame<Bytes>, std::io::Error>(std::io::Error::other("dropped by the kit"))
    });
    Response::new(Body::new(StreamBody::new(failing)))
}

/// The answer of the dead door.
fn dead(grpc: bool) -> Response {
    if grpc {
        let mut trailers = http::HeaderMap::new();
        trailers.insert("grpc-status", HeaderValue::from_static("14"));
        trailers.insert(
            "grpc-message",
            HeaderValue::from_static("this interface is down"),
        );
        grpc_ending(trailers)
    } else {
        plain(StatusCode::SERVICE_UNAVAILABLE, "this interface is down")
    }
}

/// A gRPC response with no message: its status in trailers, as gRPC clients read it.
fn grpc_ending(trailers: http::HeaderMap) -> Response {
    let frames =
        futures::stream::iter([Ok::<_, std::convert::Infallible>(Frame::trailers(trailers))]);
    let mut response = Response::new(Body::new(StreamBody::new(frames)));
    response
        .headers_mut()
        .insert("content-type", HeaderValue::from_static("application/grpc"));
    response
}

/// The trailers of a gRPC stream the stage cuts.
fn cut_trailers() -> http::HeaderMap {
    let mut trailers = http::HeaderMap::new();
    trailers.insert("grpc-status", HeaderValue::from_static("14"));
    trailers.insert(
        "grpc-message",
        HeaderValue::from_static("the stream was cut by the kit"),
    );
    trailers
}

async fn forward(
    shared: &Shared,
    play: &Play,
    seen: &Arc<Seen>,
    parts: http::request::Parts,
    path: &str,
    body: Bytes,
) -> Response {
    let refuse = play.options.refuse_version && seen.door == Door::Main;
    let query = match (seen.query.as_deref(), refuse) {
        (Some(q), true) => format!("?{}", unspoken_version_in(q)),
        (Some(q), false) => format!("?{q}"),
        (None, _) => String::new(),
    };
    let uri = format!("http://{}{path}{query}", play.backend);
    let mut builder = http::Request::builder().method(parts.method).uri(uri);
    for (name, value) in &parts.headers {
        let version = name.as_str().eq_ignore_ascii_case("a2a-version");
        if name != http::header::HOST
            && name != http::header::CONTENT_LENGTH
            && !(refuse && version)
        {
            builder = builder.header(name, value);
        }
    }
    if refuse {
        builder = builder.header("a2a-version", UNSPOKEN_VERSION);
    }
    let client = if seen.http2 {
        &shared.http2
    } else {
        &shared.http1
    };
    let answer = match builder.body(Full::new(body)) {
        Ok(request) => client.request(request).await.map_err(|e| e.to_string()),
        Err(e) => Err(e.to_string()),
    };
    let answer = match answer {
        Ok(answer) => answer,
        Err(e) => {
            if let Ok(mut served) = seen.served.lock() {
                served.status = 502;
                served.error = Some(e.clone());
            }
            return plain(StatusCode::BAD_GATEWAY, &e);
        }
    };
    let (mut parts, incoming) = answer.into_parts();
    // A trailers-only gRPC answer (its status in the headers): passed on with the status in
    // trailers after the headers, which every gRPC client reads (not all read the other form
    // once the headers have gone on their own).
    let mut tail = None;
    if parts.headers.contains_key("grpc-status") {
        let mut trailers = http::HeaderMap::new();
        for name in ["grpc-status", "grpc-message", "grpc-status-details-bin"] {
            if let Some(value) = parts.headers.remove(name) {
                trailers.insert(name, value);
            }
        }
        parts.headers.remove(http::header::CONTENT_LENGTH);
        tail = Some(trailers);
    }
    let content_type = (parts.headers.get(http::header::CONTENT_TYPE))
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_owned();
    if let Ok(mut served) = seen.served.lock() {
        served.status = parts.status.as_u16();
        served.headers = header_pairs(&parts.headers);
    }
    let grpc = content_type.starts_with("application/grpc");
    let counter = if content_type.starts_with("text/event-stream") {
        Some(Counter::Sse(Vec::new()))
    } else if content_type.starts_with("application/grpc") {
        Some(Counter::Grpc(Vec::new()))
    } else {
        None
    };
    let limit = (play.cut_after).filter(|_| {
        counter.is_some()
            && !play
                .cut_claimed
                .swap(true, std::sync::atomic::Ordering::SeqCst)
    });
    let state = Relay {
        since: Instant::now(),
        frames: BodyStream::new(incoming),
        counter,
        limit,
        seen: Arc::clone(seen),
        ended: false,
        grpc,
        tail,
    };
    let frames = futures::stream::unfold(state, Relay::next).boxed();
    http::Response::from_parts(parts, Body::new(StreamBody::new(frames)))
}

/// The A2A-Version the agent is asked for where a play refuses the client's version.
const UNSPOKEN_VERSION: &str = "9.9";

/// A query string with its A2A-Version parameter (if any) asking for [`UNSPOKEN_VERSION`].
fn unspoken_version_in(query: &str) -> String {
    (query.split('&'))
        .map(|pair| match pair.split_once('=') {
            Some((name, _)) if name.eq_ignore_ascii_case("A2A-Version") => {
                format!("{name}={UNSPOKEN_VERSION}")
            }
            _ => pair.to_owned(),
        })
        .collect::<Vec<_>>()
        .join("&")
}

/// Counts the events of a stream as its bytes pass: SSE events end with a blank line; gRPC
/// messages are length-prefixed.
#[derive(Debug)]
enum Counter {
    Sse(Vec<u8>),
    Grpc(Vec<u8>),
}

impl Counter {
    /// Feeds `chunk`; returns the end offsets (within `chunk`) of the events it completes.
    fn feed(&mut self, chunk: &[u8]) -> Vec<usize> {
        let mut ends = Vec::new();
        match self {
            Counter::Sse(tail) => {
                let before = tail.len();
                tail.extend_from_slice(chunk);
                let mut start = 0;
                let mut i = 0;
                while i < tail.len() {
                    let blank = tail[i..].starts_with(b"\n\n");
                    let crlf = tail[i..].starts_with(b"\r\n\r\n");
                    if blank || crlf {
                        let end = i + if crlf { 4 } else { 2 };
                        ends.push(end.saturating_sub(before));
                        start = end;
                        i = end;
                    } else {
                        i += 1;
                    }
                }
                tail.drain(..start);
            }
            Counter::Grpc(tail) => {
                let before = tail.len();
                tail.extend_from_slice(chunk);
                let mut start = 0;
                while tail.len() >= start + 5 {
                    let len = u32::from_be_bytes([
                        tail[start + 1],
                        tail[start + 2],
                        tail[start + 3],
                        tail[start + 4],
                    ]) as usize;
                    let end = start + 5 + len;
                    if tail.len() < end {
                        break;
                    }
                    ends.push(end.saturating_sub(before));
                    start = end;
                }
                tail.drain(..start);
            }
        }
        ends
    }
}

/// The state of a response body being passed on.
struct Relay<B> {
    /// When the request was passed on.
    since: Instant,
    frames: BodyStream<B>,
    counter: Option<Counter>,
    limit: Option<usize>,
    seen: Arc<Seen>,
    ended: bool,
    /// Whether the stream is gRPC (a cut ends it with UNAVAILABLE trailers).
    grpc: bool,
    /// Trailers to send when the body ends, if it ends without its own.
    tail: Option<http::HeaderMap>,
}

type RelayItem = Result<Frame<Bytes>, Box<dyn std::error::Error + Send + Sync>>;

impl<B> Relay<B>
where
    B: http_body::Body<Data = Bytes> + Unpin,
    B::Error: std::error::Error + Send + Sync + 'static,
{
    async fn next(mut self) -> Option<(RelayItem, Relay<B>)> {
        if self.ended {
            return self.finish();
        }
        let Some(frame) = self.frames.next().await else {
            self.ended = true;
            let elapsed = self.since.elapsed().as_millis() as u64;
            self.note(|s| s.elapsed_ms = elapsed);
            return self.finish();
        };
        let frame = match frame {
            Ok(frame) => frame,
            Err(e) => {
                self.note(|s| s.error = Some(e.to_string()));
                return Some((Err(Box::new(e)), self));
            }
        };
        let frame = match frame.into_data() {
            Ok(mut data) => {
                if let Some(counter) = self.counter.as_mut() {
                    let ends = counter.feed(&data);
                    let before = self.seen.served().events;
                    let mut kept = ends.len();
                    if let Some(limit) = self.limit {
                        if before + ends.len() >= limit {
                            kept = limit.saturating_sub(before);
                            let cut_at = if kept == 0 { 0 } else { ends[kept - 1] };
                            data = data.slice(..cut_at.min(data.len()));
                            self.ended = true;
                            if self.grpc {
                                self.tail = Some(cut_trailers());
                            }
                        }
                    }
                    let cut = self.ended;
                    let at = self.since.elapsed().as_millis() as u64;
                    self.note(|s| {
                        s.events += kept;
                        s.cut = cut;
                        let room = crate::exchange::evidence::EVIDENCE_EVENT_LIMIT
                            .saturating_sub(s.event_ms.len());
                        s.event_ms.extend(std::iter::repeat_n(at, kept.min(room)));
                        if cut {
                            s.elapsed_ms = at;
                        }
                    });
                }
                let chunk = data.clone();
                self.note(|s| {
                    let room = STREAM_KEEP.saturating_sub(s.body.len());
                    s.body.extend_from_slice(&chunk[..room.min(chunk.len())]);
                });
                Frame::data(data)
            }
            Err(frame) => {
                if let Some(trailers) = frame.trailers_ref() {
                    let pairs = header_pairs(trailers);
                    self.note(|s| s.headers.extend(pairs));
                    self.tail = None;
                }
                frame
            }
        };
        Some((Ok(frame), self))
    }

    /// The trailers still owed, as the last frame.
    fn finish(mut self) -> Option<(RelayItem, Relay<B>)> {
        let trailers = self.tail.take()?;
        let pairs = header_pairs(&trailers);
        self.note(|s| s.headers.extend(pairs));
        Some((Ok(Frame::trailers(trailers)), self))
    }

    fn note(&self, change: impl FnOnce(&mut Served)) {
        if let Ok(mut served) = self.seen.served.lock() {
            change(&mut served);
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// Sends one raw HTTP/1.1 request with `body` to the play's JSON-RPC path; what came back.
    async fn raw(stage: &Stage, body: &str) -> String {
        use tokio::io::{AsyncReadExt as _, AsyncWriteExt as _};
        let mut socket = tokio::net::TcpStream::connect(stage.addr(Door::Main))
            .await
            .unwrap();
        let request = format!(
            "POST /p/t/a2a/jsonrpc HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\n\
             content-length: {}\r\nconnection: close\r\n\r\n{body}",
            body.len()
        );
        socket.write_all(request.as_bytes()).await.unwrap();
        let mut answer = Vec::new();
        let read = socket.read_to_end(&mut answer);
        let _ = tokio::time::timeout(Duration::from_secs(10), read)
            .await
            .unwrap();
        String::from_utf8_lossy(&answer).into_owned()
    }

    #[tokio::test]
    async fn a_mishap_befalls_the_first_request_with_its_marker_only() {
        let stage = Stage::start().await.unwrap();
        // Nothing listens on port 9 of loopback: a request passed on gets 502.
        let backend = SocketAddr::from(([127, 0, 0, 1], 9));
        let play = Play::new("t".into(), Value::Null, backend, None).with_mishaps([
            ("tck-wire-drop".to_owned(), Mishap::Drop),
            ("tck-wire-503".to_owned(), Mishap::Unavailable),
        ]);
        stage.begin(Arc::new(play));
        assert_eq!(
            raw(&stage, "tck-wire-drop").await,
            "",
            "nothing at all, not even a head"
        );
        assert!(raw(&stage, "tck-wire-drop")
            .await
            .starts_with("HTTP/1.1 502"));
        assert!(raw(&stage, "tck-wire-503")
            .await
            .starts_with("HTTP/1.1 503"));
        assert!(raw(&stage, "tck-wire-503")
            .await
            .starts_with("HTTP/1.1 502"));
    }

    #[test]
    fn sse_events_are_counted_across_chunks() {
        let mut counter = Counter::Sse(Vec::new());
        assert_eq!(counter.feed(b"data: 1\n"), Vec::<usize>::new());
        assert_eq!(counter.feed(b"\ndata: 2\n\ndata"), vec![1, 10]);
        assert_eq!(counter.feed(b": 3\r\n\r\n"), vec![7]);
    }

    #[test]
    fn grpc_messages_are_counted_across_chunks() {
        let mut counter = Counter::Grpc(Vec::new());
        assert_eq!(counter.feed(&[0, 0, 0, 0, 2, 7]), Vec::<usize>::new());
        assert_eq!(counter.feed(&[8, 0, 0, 0, 0, 0]), vec![1, 6]);
    }
}

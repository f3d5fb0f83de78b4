//! Streams of `StreamResponse` events: SSE on JSON-RPC (each `data:` a JSON-RPC response
//! whose `result` is the event, §9.4.2) and on HTTP+JSON (each `data:` a bare event, §11.7),
//! and gRPC server streams (§10). A stream has one meaning on every binding: an error before
//! the first event (an HTTP error, a JSON-RPC error, a gRPC status with no message before it)
//! is a refused stream, [`Start::Refused`]. Every read has a deadline; every event is
//! recorded with its arrival time, and the record survives a check aborted at its own
//! deadline.

use std::pin::Pin;
use std::time::Duration;

use eventsource_stream::Eventsource;
use futures::{Stream, StreamExt};
use serde_json::Value;

use super::answer;
use super::{Answer, ErrorReply, Reply};
use crate::exchange::evidence::StreamLog;
use crate::exchange::wire::{HttpReply, Opened};
use crate::facts::a2a;
use crate::facts::model::{Binding, HarnessError};

/// How many events of one stream the kit reads: past it the kit stops reading (an endless or
/// flooding stream ends there, judged on the events read), so a stream costs bounded memory.
pub const STREAM_EVENT_LIMIT: usize = 1000;

/// How many events a one-line description names (the first ones and the last ones).
const DESCRIBED_EVENTS: usize = 12;

/// The members of the `StreamResponse` oneof.
pub const EVENT_KINDS: &[&str] = &["task", "message", "statusUpdate", "artifactUpdate"];

/// What opening a stream gave.
pub enum Start {
    /// The server started a stream (HTTP 200 `text/event-stream`, or a gRPC stream).
    Stream(Box<EventStream>),
    /// The server answered with an error before the first event (as the HTTP answer, as the
    /// stream's first event, or as a gRPC status before any message), or with something that
    /// is not a stream at all.
    Refused(Box<Reply>),
}

/// Reads the events of a stream sent in another form back into 1.0 ProtoJSON (set by the
/// interface's codec; see `v03`).
pub trait ReadBack: Send {
    /// An event, read back; what did not have the form's shape becomes its problem.
    fn event(&self, event: Event) -> Event;
    /// The error that ended the stream, marked as the form's.
    fn error(&self, error: &mut ErrorReply);
}

/// One event as received.
#[derive(Debug, Clone, PartialEq)]
pub struct Event {
    /// The event's data: the JSON-RPC envelope on JSON-RPC, the StreamResponse elsewhere; a
    /// string when it is not JSON.
    pub raw: Value,
    /// The StreamResponse it carries, when it carries one.
    pub response: Option<Value>,
    /// Why it is not a well-formed event of the binding, if it is not.
    pub problem: Option<String>,
}

impl Event {
    /// Which member of the StreamResponse oneof is set (`task`, `statusUpdate`, ...).
    pub fn kind(&self) -> Option<&'static str> {
        let response = self.response.as_ref()?;
        let mut set = EVENT_KINDS.iter().filter(|k| response.get(**k).is_some());
        match (set.next(), set.next()) {
            (Some(kind), None) => Some(kind),
            _ => None,
        }
    }

    /// The payload of the oneof member `kind`.
    pub fn get(&self, kind: &str) -> Option<&Value> {
        self.response.as_ref()?.get(kind)
    }

    /// The task state this event reports: a Task's status, or a status update's.
    pub fn state(&self) -> Option<&str> {
        match self.kind()? {
            "task" => a2a::state(self.get("task")?),
            "statusUpdate" => a2a::state(self.get("statusUpdate")?),
            _ => None,
        }
    }

    /// A one-line description.
    pub fn brief(&self) -> String {
        match (&self.problem, self.kind(), self.state()) {
            (Some(problem), _, _) => format!("<{problem}>"),
            (None, Some(kind), Some(state)) => format!("{kind}({state})"),
            (None, Some(kind), None) => kind.to_string(),
            (None, None, _) => format!(
                "<not one StreamResponse member: {}>",
                a2a::brief(&self.raw, 120)
            ),
        }
    }
}

/// How a stream ended, or stopped being read.
#[derive(Debug, Clone, PartialEq)]
pub enum End {
    /// The server closed it normally.
    Closed,
    /// The server ended it with an error (a JSON-RPC error event, an `event: error` on
    /// HTTP+JSON, a gRPC error status).
    Error(Box<ErrorReply>),
    /// It broke: a reset, a cut connection, more than the body limit.
    Broken(String),
    /// Nothing more arrived within the wait.
    Silent(Duration),
}

impl End {
    pub fn describe(&self) -> String {
        match self {
            End::Closed => "the stream closed".into(),
            End::Error(e) => format!("the stream ended with an error: {e}"),
            End::Broken(why) => format!("the stream broke: {why}"),
            End::Silent(wait) => format!("the stream stayed open, silent for {wait:?}"),
        }
    }
}

/// The next thing a stream gave.
#[derive(Debug, Clone, PartialEq)]
pub enum Next {
    Event(Event),
    End(End),
}

impl Next {
    /// A one-line description.
    pub fn brief(&self) -> String {
        match self {
            Next::Event(event) => event.brief(),
            Next::End(end) => end.describe(),
        }
    }
}

/// Events and how the stream ended.
#[derive(Debug, Clone, PartialEq)]
pub struct Collected {
    pub events: Vec<Event>,
    pub end: End,
}

impl Collected {
    /// The events in one line: `task(TASK_STATE_SUBMITTED), statusUpdate(...), ...; closed`.
    pub fn describe(&self) -> String {
        let count = self.events.len();
        let mut events: Vec<String> = Vec::new();
        for (i, event) in self.events.iter().enumerate() {
            if count <= DESCRIBED_EVENTS || i < DESCRIBED_EVENTS - 2 || i >= count - 2 {
                events.push(event.brief());
            } else if i == DESCRIBED_EVENTS - 2 {
                events.push(format!("... {} more ...", count - DESCRIBED_EVENTS));
            }
        }
        format!(
            "{} event(s) [{}]; {}",
            self.events.len(),
            events.join(", "),
            self.end.describe()
        )
    }
}

type Frames = Pin<Box<dyn Stream<Item = Result<Frame, String>> + Send>>;

/// One unit of a stream before it is read as an event.
pub struct Frame {
    /// The SSE event type (`error` marks an error on HTTP+JSON), if any.
    pub kind: Option<String>,
    pub data: Vec<u8>,
    /// An error that ends the stream (gRPC status), already read.
    pub error: Option<ErrorReply>,
}

/// What is shown each event of a stream as the caller reads it.
pub type Watcher = Box<dyn FnMut(&Event) + Send>;

/// An open stream.
pub struct EventStream {
    binding: Binding,
    frames: Frames,
    log: StreamLog,
    /// The JSON-RPC request id every event must echo.
    request_id: Option<String>,
    /// The HTTP status and headers (not for gRPC).
    pub http: Option<HttpReply>,
    ended: Option<End>,
    /// What was read before the caller asked (the first event, read to tell a refusal).
    pending: Option<Next>,
    /// Reads events of another form back into 1.0 ProtoJSON.
    read_back: Option<Box<dyn ReadBack>>,
    /// Events read so far (at most [`STREAM_EVENT_LIMIT`]).
    read: usize,
    /// Shown each event as the caller reads it (the run's history of every task).
    watcher: Option<Watcher>,
}

impl EventStream {
    /// A stream over frames: SSE events (see [`start_sse`]) or gRPC messages.
    pub fn from_frames(binding: Binding, frames: Frames, log: StreamLog) -> EventStream {
        EventStream {
            binding,
            frames,
            log,
            request_id: None,
            http: None,
            ended: None,
            pending: None,
            read_back: None,
            read: 0,
            watcher: None,
        }
    }

    /// Shows each event, as the caller reads it, to `watcher`.
    pub fn watched(mut self, watcher: Watcher) -> EventStream {
        self.watcher = Some(watcher);
        self
    }

    /// Reads the events back with `read_back`.
    pub fn read_back(mut self, read_back: Box<dyn ReadBack>) -> EventStream {
        self.read_back = Some(read_back);
        self
    }

    /// The stream as its opener sees it: read up to the first event (waiting at most
    /// `wait`); an error before it means the stream was refused.
    pub async fn started(mut self, wait: Duration) -> Start {
        let first = self.read_next(wait).await;
        if let Next::End(End::Error(error)) = first {
            let status = self.http.as_ref().map(|h| h.status);
            let mut refusal = Reply::new(self.binding, status, Ok(Answer::Error(*error)));
            refusal.in_stream = true;
            return Start::Refused(Box::new(refusal));
        }
        self.pending = Some(first);
        Start::Stream(Box::new(self))
    }

    /// The JSON-RPC request id every event must echo (JSON-RPC streams only).
    pub fn request_id(&self) -> Option<&str> {
        self.request_id.as_deref()
    }

    /// The media type of the HTTP response, if any.
    pub fn media_type(&self) -> Option<String> {
        self.http.as_ref().and_then(HttpReply::media_type)
    }

    /// Reads the next event, waiting at most `wait`.
    pub async fn next(&mut self, wait: Duration) -> Next {
        let next = match self.pending.take() {
            Some(next) => next,
            None => self.read_next(wait).await,
        };
        let next = match &self.read_back {
            None => next,
            Some(read_back) => match next {
                Next::Event(event) => Next::Event(read_back.event(event)),
                Next::End(End::Error(mut error)) => {
                    read_back.error(&mut error);
                    Next::End(End::Error(error))
                }
                end => end,
            },
        };
        if let (Some(watcher), Next::Event(event)) = (self.watcher.as_mut(), &next) {
            watcher(event);
        }
        next
    }

    /// The next event as the binding sent it.
    async fn read_next(&mut self, wait: Duration) -> Next {
        if let Some(end) = &self.ended {
            return Next::End(end.clone());
        }
        let next = if self.read >= STREAM_EVENT_LIMIT {
            End::Broken(format!(
                "the kit stopped reading after {STREAM_EVENT_LIMIT} events (its limit per \
                 stream); the stream had not ended"
            ))
        } else {
            match tokio::time::timeout(wait, self.frames.next()).await {
                Err(_) => {
                    // Silence is not an end: the caller may wait again.
                    return Next::End(End::Silent(wait));
                }
                Ok(None) => End::Closed,
                Ok(Some(Err(why))) => End::Broken(why),
                Ok(Some(Ok(frame))) => {
                    if let Err(e) = self.log.count(frame.data.len()) {
                        End::Broken(e.to_string())
                    } else {
                        self.read += 1;
                        self.log.event(frame.kind.as_deref(), &frame.data);
                        match self.read_frame(frame) {
                            Ok(event) => return Next::Event(event),
                            Err(end) => end,
                        }
                    }
                }
            }
        };
        if !matches!(next, End::Closed) {
            self.log.fail(next.describe());
        }
        self.ended = Some(next.clone());
        Next::End(next)
    }

    /// Reads events until the stream ends or stays silent for `wait`.
    pub async fn collect(&mut self, wait: Duration) -> Collected {
        let mut events = Vec::new();
        loop {
            match self.next(wait).await {
                Next::Event(event) => events.push(event),
                Next::End(end) => return Collected { events, end },
            }
        }
    }

    fn read_frame(&self, frame: Frame) -> Result<Event, End> {
        if let Some(error) = frame.error {
            return Err(End::Error(Box::new(error)));
        }
        let Ok(json) = serde_json::from_slice::<Value>(&frame.data) else {
            let text = String::from_utf8_lossy(&frame.data).into_owned();
            return Ok(Event {
                problem: Some(format!(
                    "event data is not JSON: {}",
                    a2a::brief(&Value::String(text.clone()), 120)
                )),
                raw: Value::String(text),
                response: None,
            });
        };
        match self.binding {
            Binding::Jsonrpc => self.read_jsonrpc(json),
            _ if frame.kind.as_deref() == Some("error") || json.get("error").is_some() => {
                let http = HttpReply {
                    status: json
                        .get("error")
                        .and_then(|e| e.get("code"))
                        .and_then(Value::as_u64)
                        .and_then(|c| u16::try_from(c).ok())
                        .unwrap_or(0),
                    headers: Vec::new(),
                    body: json.to_string().into_bytes(),
                };
                match answer::read_rest(&http).read {
                    Ok(Answer::Error(e)) => Err(End::Error(Box::new(e))),
                    _ => Err(End::Broken(format!(
                        "an error event: {}",
                        a2a::brief(&json, 200)
                    ))),
                }
            }
            _ => Ok(Event {
                response: Some(json.clone()),
                raw: json,
                problem: None,
            }),
        }
    }

    fn read_jsonrpc(&self, json: Value) -> Result<Event, End> {
        let mut problems = Vec::new();
        if json.get("jsonrpc").and_then(Value::as_str) != Some("2.0") {
            problems.push("no \"jsonrpc\": \"2.0\"".to_string());
        }
        let id = json.get("id");
        if self.request_id.is_some() && id.and_then(Value::as_str) != self.request_id.as_deref() {
            problems.push(format!(
                "id {} is not the request's {}",
                a2a::shown_json(id),
                a2a::shown(self.request_id.as_deref())
            ));
        }
        match answer::read_response(&json, None) {
            Some(Answer::Error(e)) => Err(End::Error(Box::new(e))),
            Some(Answer::Result(result)) => Ok(Event {
                raw: json,
                response: Some(result),
                problem: (!problems.is_empty()).then(|| problems.join("; ")),
            }),
            None => {
                problems.push("not a JSON-RPC response (no result and no error)".into());
                Ok(Event {
                    raw: json,
                    response: None,
                    problem: Some(problems.join("; ")),
                })
            }
        }
    }
}

/// Turns an opened HTTP response into a stream (a 2xx with `text/event-stream`), or into the
/// single reply it is instead (an error before the first event, or not a stream at all).
pub async fn start_sse(
    binding: Binding,
    mut opened: Opened,
    request_id: Option<String>,
    wait: Duration,
) -> Result<Start, HarnessError> {
    let media = opened.reply(Vec::new()).media_type();
    if !(200..300).contains(&opened.status) || media.as_deref() != Some("text/event-stream") {
        let http = opened.read_all(wait).await?;
        return Ok(Start::Refused(Box::new(answer::unary_reply(
            binding, &http,
        ))));
    }
    let Some(response) = opened.response.take() else {
        return Err(HarnessError::Internal("stream opened twice".into()));
    };
    let http = Some(opened.reply(Vec::new()));
    // Bytes are counted before the SSE parser, which buffers an event until it is whole: an
    // endless event (a `data:` line that never ends) stops at the body limit too.
    let max = opened.log.max_body();
    let bytes = response.bytes_stream().scan(0usize, move |read, chunk| {
        let item = chunk.map_err(|e| e.to_string()).and_then(|chunk| {
            *read += chunk.len();
            if *read > max {
                Err(format!(
                    "the stream exceeded the kit's limit of {max} bytes; stopped reading"
                ))
            } else {
                Ok(chunk)
            }
        });
        futures::future::ready(Some(item))
    });
    let frames = bytes.eventsource().map(|item| {
        item.map(|event| Frame {
            kind: Some(event.event).filter(|e| !e.is_empty() && e != "message"),
            data: event.data.into_bytes(),
            error: None,
        })
        .map_err(|e| e.to_string())
    });
    let mut stream = EventStream::from_frames(binding, Box::pin(frames), opened.log);
    stream.request_id = request_id;
    stream.http = http;
    Ok(stream.started(wait).await)
}

//! The binding-neutral service: version negotiation, unary calls and streams
//! by 1.0 method name, with ProtoJSON in and out. JSON-RPC and REST (and a
//! gRPC adapter elsewhere) are thin adapters over these functions.

use std::collections::VecDeque;
use std::sync::Arc;

use futures::stream::{BoxStream, StreamExt};
use serde_json::{json, Map, Value};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::clock::Timestamp;
use crate::error::RpcError;
use crate::fault::Fault;
use crate::model::{Event, StatusUpdate, Task, TaskState, TaskStatus};
use crate::store::SendReply;
use crate::wire::{self, Artifacts, TaskView};
use crate::{params, AgentConfig, App};

/// A stream of ProtoJSON `StreamResponse` objects. An `Err` item is a
/// mid-stream error and is the last item.
pub type EventStream = BoxStream<'static, Result<Value, RpcError>>;

/// A protocol version the interfaces serve, picked per request by `A2A-Version`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Version {
    /// A2A 0.3 (slash methods, `kind` discriminators, `/v1` REST routes).
    V0_3,
    /// A2A 1.0.
    V1_0,
}

/// Parses `Major.Minor[.Patch]`, ignoring the patch.
fn major_minor(version: &str) -> Option<(u64, u64)> {
    let mut numbers = version.split('.').map(|n| {
        if !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()) {
            n.parse::<u64>().ok()
        } else {
            None
        }
    });
    let major = numbers.next()??;
    let minor = numbers.next()??;
    match (numbers.next(), numbers.next()) {
        (None, _) | (Some(Some(_)), None) => Some((major, minor)),
        _ => None,
    }
}

/// Version negotiation; `requested` is the A2A-Version header / gRPC metadata
/// value (or the REST query parameter), `None` when absent. An absent or empty
/// value means 0.3 (1.0 §3.6.2); `0.3[.x]` and `1.0[.x]` are served (the patch
/// is not considered, §3.6); anything else is VersionNotSupportedError.
pub fn negotiate_version(
    config: &AgentConfig,
    requested: Option<&str>,
) -> Result<Version, RpcError> {
    if config.has(Fault::IgnoreVersionHeader) {
        return Ok(Version::V1_0);
    }
    let requested = requested.map(str::trim).unwrap_or_default();
    if requested.is_empty() {
        if config.has(Fault::MissingVersionAs10) {
            return Ok(Version::V1_0);
        }
        return Ok(Version::V0_3);
    }
    let has_patch = requested.split('.').count() > 2;
    if has_patch && config.has(Fault::RejectPatchVersion) {
        return Err(RpcError::version_not_supported(requested));
    }
    match major_minor(requested) {
        Some((1, 0)) => Ok(Version::V1_0),
        Some((0, 3)) => Ok(Version::V0_3),
        _ => Err(RpcError::version_not_supported(requested)),
    }
}

/// The version check of an interface that serves only 1.0 (the `lf.a2a.v1`
/// gRPC service): a request negotiated as 0.3 gets VersionNotSupportedError.
pub fn check_version(config: &AgentConfig, requested: Option<&str>) -> Result<(), RpcError> {
    match negotiate_version(config, requested)? {
        Version::V1_0 => Ok(()),
        Version::V0_3 => {
            let requested = requested.map(str::trim).unwrap_or_default();
            Err(RpcError::version_not_supported(if requested.is_empty() {
                "0.3"
            } else {
                requested
            }))
        }
    }
}

/// Whether `method` is answered with a stream ([`stream`]) rather than [`call`].
pub fn is_streaming(method: &str) -> bool {
    matches!(method, "SendStreamingMessage" | "SubscribeToTask")
}

/// Unary operations by 1.0 method name: ProtoJSON params in, ProtoJSON result out.
pub fn call(app: &App, method: &str, params: Option<Value>) -> Result<Value, RpcError> {
    let config = &app.config;
    match method {
        "SendMessage" => send_message(app, params),
        "GetTask" => {
            let params = params::get_task(params)?;
            let view = TaskView {
                history_length: params.history_length,
                artifacts: Artifacts::NonEmpty,
            };
            match app.store.get(&params.id) {
                Some(task) => wire::task(&task, view, config),
                None if config.has(Fault::GetUnknownReturnsNull) => Ok(Value::Null),
                None => Err(RpcError::task_not_found(&params.id)),
            }
        }
        "CancelTask" => {
            let id = params::task_id(params)?;
            let view = TaskView {
                history_length: None,
                artifacts: Artifacts::NonEmpty,
            };
            wire::task(&app.store.cancel(&id)?, view, config)
        }
        "ListTasks" => list_tasks(app, params),
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig"
            if config.has(Fault::PushUnsupportedWrongError) =>
        {
            Err(RpcError::unsupported_operation(
                "push notifications are not supported",
            ))
        }
        "CreateTaskPushNotificationConfig"
        | "GetTaskPushNotificationConfig"
        | "ListTaskPushNotificationConfigs"
        | "DeleteTaskPushNotificationConfig" => Err(RpcError::push_notification_not_supported()),
        "GetExtendedAgentCard" if config.has(Fault::ExtendedCardUnsupportedWrongError) => {
            Err(RpcError::method_not_found(method))
        }
        "GetExtendedAgentCard" => Err(RpcError::unsupported_operation(
            "no extended agent card (capabilities.extendedAgentCard is false)",
        )),
        _ => Err(unknown_method(config, method)),
    }
}

pub(crate) fn unknown_method(config: &AgentConfig, method: &str) -> RpcError {
    if config.has(Fault::UnknownMethodInvalidRequest) {
        RpcError::invalid_request(format_args!("unknown method `{method}`"))
    } else {
        RpcError::method_not_found(method)
    }
}

fn send_message(app: &App, params: Option<Value>) -> Result<Value, RpcError> {
    let config = &app.config;
    let params = params::send_message(params, config)?;
    let blocking = !params.return_immediately;
    let (member, value) = match app.store.send(params.message, blocking)? {
        SendReply::Task(task) => {
            let artifacts = if blocking && config.has(Fault::BlockingOmitsArtifacts) {
                Artifacts::Omit
            } else {
                Artifacts::NonEmpty
            };
            let view = TaskView {
                history_length: params.history_length,
                artifacts,
            };
            ("task", wire::task(&task, view, config)?)
        }
        SendReply::Message(message) => ("message", wire::message(&message, config)?),
    };
    if config.has(Fault::SendResultUnwrapped) {
        return Ok(value);
    }
    Ok(json!({ member: value }))
}

fn list_tasks(app: &App, params: Option<Value>) -> Result<Value, RpcError> {
    let config = &app.config;
    let params = params::list_tasks(params)?;
    let page = app.store.list(&params.query)?;
    // Requested artifacts are listed even when empty (§3.1.4), unrequested ones omitted.
    let artifacts = if params.include_artifacts {
        Artifacts::Always
    } else if config.has(Fault::ListIncludesArtifacts) {
        Artifacts::NonEmpty
    } else {
        Artifacts::Omit
    };
    let view = TaskView {
        history_length: params.history_length,
        artifacts,
    };
    let tasks = page
        .tasks
        .iter()
        .map(|task| wire::task(task, view, config))
        .collect::<Result<Vec<_>, _>>()?;
    let mut response = Map::new();
    response.insert("tasks".to_owned(), Value::Array(tasks));
    match page.next_page_token {
        Some(token) => {
            response.insert("nextPageToken".to_owned(), Value::String(token));
        }
        None if config.has(Fault::ListOmitsNextPageToken) => {}
        None => {
            response.insert("nextPageToken".to_owned(), Value::String(String::new()));
        }
    }
    if !config.has(Fault::ListOmitsTotalSize) {
        response.insert("pageSize".to_owned(), json!(params.query.page_size));
        response.insert("totalSize".to_owned(), json!(page.total_size));
    }
    Ok(Value::Object(response))
}

/// Streaming operations (`SendStreamingMessage`, `SubscribeToTask`): an error
/// before the first event is `Err`; otherwise the events, ending after the
/// one that closes the stream (a Message, or a terminal or interrupted status).
pub fn stream(
    app: &Arc<App>,
    method: &str,
    params: Option<Value>,
) -> Result<EventStream, RpcError> {
    let config = &app.config;
    if !is_streaming(method) {
        return Err(unknown_method(config, method));
    }
    if config.has(Fault::StreamingUnsupportedWrongError) {
        return Err(RpcError::method_not_found(method));
    }
    if config.no_streaming {
        return Err(RpcError::unsupported_operation(
            "streaming is not supported (capabilities.streaming is false)",
        ));
    }
    let (kind, feed, history_length) = if method == "SendStreamingMessage" {
        let params = params::send_message(params, config)?;
        let feed = app.store.send_streaming(params.message)?;
        (Kind::Send, feed, params.history_length)
    } else {
        let id = params::task_id(params)?;
        (Kind::Subscribe, app.store.subscribe(&id)?, None)
    };
    let mut events = feed.events;
    initial_faults(kind, &mut events, config);
    let run = Run {
        queue: events.into(),
        live: feed.live,
        kind,
        view: TaskView {
            history_length,
            artifacts: Artifacts::NonEmpty,
        },
        config: config.clone(),
        hold_open: false,
        done: false,
    };
    let mut closing = app.closing.subscribe();
    let shutdown = async move {
        // Ends every stream when the server shuts down (or is dropped).
        let _ = closing.wait_for(|closed| *closed).await;
    };
    Ok(futures::stream::unfold(run, Run::next)
        .take_until(shutdown)
        .boxed())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Send,
    Subscribe,
}

/// The state of one stream: the events known at the start, then the live feed.
struct Run {
    queue: VecDeque<Event>,
    live: Option<broadcast::Receiver<Event>>,
    kind: Kind,
    view: TaskView,
    config: AgentConfig,
    /// A fault keeps the stream open after the last event sent.
    hold_open: bool,
    done: bool,
}

impl Run {
    async fn next(mut self) -> Option<(Result<Value, RpcError>, Self)> {
        if self.done {
            return None;
        }
        match self.next_event().await {
            Some(Ok(event)) => {
                self.hold_open = self.holds_open_after(&event);
                let value = wire::event(&event, self.view, &self.config);
                self.done = value.is_err();
                Some((value, self))
            }
            Some(Err(error)) => {
                self.done = true;
                Some((Err(error), self))
            }
            None => {
                if self.hold_open {
                    futures::future::pending::<()>().await;
                }
                None
            }
        }
    }

    async fn next_event(&mut self) -> Option<Result<Event, RpcError>> {
        if let Some(event) = self.queue.pop_front() {
            return Some(Ok(event));
        }
        let skip_updates =
            self.kind == Kind::Subscribe && self.config.has(Fault::SubscribeNoUpdates);
        loop {
            let received = self.live.as_mut()?.recv().await;
            match received {
                Ok(event) => {
                    let ends = event.ends_stream();
                    if ends {
                        self.live = None;
                    }
                    if !skip_updates {
                        return Some(Ok(event));
                    }
                }
                Err(RecvError::Lagged(missed)) => {
                    self.live = None;
                    let error =
                        RpcError::internal(format_args!("the stream fell {missed} events behind"));
                    return Some(Err(error));
                }
                Err(RecvError::Closed) => {
                    self.live = None;
                    return None;
                }
            }
        }
    }

    fn holds_open_after(&self, event: &Event) -> bool {
        let Event::Status(update) = event else {
            return false;
        };
        let state = update.status.state;
        let has = |fault| self.config.has(fault);
        match self.kind {
            Kind::Send => {
                (state.is_terminal() && has(Fault::StreamOpenAfterTerminal))
                    || (state.is_interrupted() && has(Fault::StreamOpenAfterInterrupted))
            }
            Kind::Subscribe => state.is_terminal() && has(Fault::SubscribeOpenAfterTerminal),
        }
    }
}

fn status_of(task: &Task) -> Event {
    Event::Status(StatusUpdate {
        task_id: task.id.clone(),
        context_id: task.context_id.clone(),
        status: task.status.clone(),
    })
}

/// The stream faults that rewrite the events known at the start.
fn initial_faults(kind: Kind, events: &mut Vec<Event>, config: &AgentConfig) {
    let first_is_status = match kind {
        Kind::Send => config.has(Fault::StreamFirstEventStatusUpdate),
        Kind::Subscribe => config.has(Fault::SubscribeFirstEventNotTask),
    };
    if let (true, Some(Event::Task(task))) = (first_is_status, events.first()) {
        events[0] = status_of(task);
    }
    if kind == Kind::Subscribe {
        return;
    }
    if let (true, [Event::Message(message)]) =
        (config.has(Fault::StreamMessageThenMore), events.as_slice())
    {
        let extra = StatusUpdate {
            task_id: message.task_id.clone(),
            context_id: message.context_id.clone(),
            status: TaskStatus {
                state: TaskState::Completed,
                message: None,
                timestamp: Timestamp::wall_clock(),
            },
        };
        events.push(Event::Status(extra));
    }
    if config.has(Fault::StreamStatusOutOfOrder) {
        let state_at = |i: usize| match &events[i] {
            Event::Status(update) => Some(update.status.state),
            _ => None,
        };
        let working = (0..events.len()).find(|&i| state_at(i) == Some(TaskState::Working));
        let terminal =
            (0..events.len()).rfind(|&i| state_at(i).is_some_and(TaskState::is_terminal));
        if let (Some(working), Some(terminal)) = (working, terminal) {
            events.swap(working, terminal);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::major_minor;

    #[test]
    fn version_parsing_ignores_patch() {
        assert_eq!(major_minor("1.0"), Some((1, 0)));
        assert_eq!(major_minor("1.0.7"), Some((1, 0)));
        assert_eq!(major_minor("99.0"), Some((99, 0)));
        for bad in [
            "", "1", "1.", "1.0.", "1.0.0.0", "v1.0", "1.x", "garbage", "1.0-rc1",
        ] {
            assert_eq!(major_minor(bad), None, "{bad}");
        }
    }
}

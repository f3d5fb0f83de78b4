//! Server-Sent Events framing shared by the JSON-RPC and REST streams.

use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::stream::{Stream, StreamExt};
use serde_json::Value;

use crate::fault::Fault;
use crate::AgentConfig;

/// A `text/event-stream` response with one `data:` event per value; the body
/// ends when `events` does.
pub fn response(
    config: &AgentConfig,
    events: impl Stream<Item = Value> + Send + 'static,
) -> Response {
    let content_type = if config.has(Fault::SseWrongContentType) {
        "application/json"
    } else {
        "text/event-stream"
    };
    let frames =
        events.map(|event| Ok::<_, std::convert::Infallible>(format!("data: {event}\n\n")));
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(frames),
    )
        .into_response()
}

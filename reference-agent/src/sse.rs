//! Server-Sent Events framing shared by the JSON-RPC and REST streams.

use axum::body::Body;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use futures::stream::{Stream, StreamExt};
use serde_json::Value;

use crate::policy::Policy;

/// A `text/event-stream` response with one `data:` event per value; the body
/// ends when `events` does.
pub fn response(policy: &Policy, events: impl Stream<Item = Value> + Send + 'static) -> Response {
    prefixed(policy, "", events)
}

/// [`response`], with `prefix` written before each event's JSON.
pub fn prefixed(
    policy: &Policy,
    prefix: &'static str,
    events: impl Stream<Item = Value> + Send + 'static,
) -> Response {
    let content_type = policy.sse_content_type;
    let frames = events
        .map(move |event| Ok::<_, std::convert::Infallible>(format!("data: {prefix}{event}\n\n")));
    (
        [
            (header::CONTENT_TYPE, content_type),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        Body::from_stream(frames),
    )
        .into_response()
}

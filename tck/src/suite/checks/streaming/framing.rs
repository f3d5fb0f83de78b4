//! The HTTP framing of streams (`streaming.sse-content-type`, spec 1.0 §9.4.2): a stream on
//! JSON-RPC or REST is served as Server-Sent Events.

use crate::suite::check::Needs;
use serde_json::json;

use super::super::JSON_1_0;
use crate::exchange::transport::stream::Start;
use crate::suite::check::{Capability, Check, Gate, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

/// The HTTP framing of streams; it comes after the HTTP+JSON and gRPC checks in the catalogue.
pub fn framing_checks() -> Vec<Check> {
    vec![
        Check {
            id: "streaming.sse-content-type",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "9.4.2", statements: &["V10-D-9.4.2-01"] },
            requirement: "Streams on JSON-RPC and REST are Server-Sent Events: HTTP 200 with Content-Type text/event-stream",
            scope: JSON_1_0,
            requires: &[Gate::Declares(Capability::Streaming)],
            maps_to: &["JSONRPC-SSE-001", "HTTP_JSON-SSE-001"],
            acts: &["JSONRPC-SSE-001"],
            reading: Some(
                "§9.4.2 and §11.7 describe the stream as Server-Sent Events (HTTP 200, \
                 text/event-stream) without an RFC 2119 keyword: another status or media type \
                 is a WARN here. A stream that is not opened at all breaks §3.1.2's MUST, judged \
                 by streaming.task-stream-starts-with-task.",
            ),
            needs: Needs::NONE.sends(&["tck-stream-001"]),
            run: |ctx| Box::pin(sse_content_type(ctx)),
        },
    ]
}

async fn sse_content_type(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let message = ctx.user_message("tck-stream-001");
    let expected = "HTTP 200 with Content-Type text/event-stream";
    let status = match ctx.send_streaming(json!({ "message": message })).await? {
        Start::Stream(mut stream) => {
            let status = stream.http.as_ref().map_or(0, |h| h.status);
            let _ = stream.collect(ctx.stream_wait()).await;
            status
        }
        // An error as the first event: the stream itself was served as one.
        Start::Refused(reply) if reply.in_stream => reply.http_status.unwrap_or(0),
        Start::Refused(reply) => {
            return Ok(Verdict::fail(
                expected,
                format!(
                    "HTTP {}: {}",
                    reply.http_status.unwrap_or(0),
                    match &reply.read {
                        Ok(answer) => answer.describe(),
                        Err(unreadable) => unreadable.clone(),
                    }
                ),
            ))
        }
    };
    Ok(if status == 200 {
        Verdict::pass()
    } else {
        Verdict::fail(expected, format!("HTTP {status} with text/event-stream"))
    })
}

//! Stream progress (`streaming.*`, spec 1.0 §3.1.2): a stream delivers the task's progress and
//! intermediate results as they happen, not only its end. The other stream checks are in
//! `streaming`.

use crate::suite::check::Needs;
use serde_json::json;

use crate::exchange::transport::stream::Event;
use crate::facts::a2a;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::checks::{EVERY_BINDING_1_0, STREAMING};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "streaming";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![Check {
        id: "streaming.delivers-intermediate-updates",
        level: Level::Must,
        spec: SpecRef { version: "1.0", section: "3.1.2", statements: &["V10-3.1.2-08"] },
        requirement: "A task stream carries the task's progress before its end: a WORKING status or an artifact update arrives before the terminal status",
        scope: EVERY_BINDING_1_0,
        requires: STREAMING,
        maps_to: &[],
        acts: &["STREAM-SSE-002", "CORE-EXEC-002"],
        reading: Some(
            "`tck-stream-001` goes through WORKING and produces a text artifact before it \
             completes. Any one of those delivered before the terminal status shows progress \
             streamed as it happens; a stream that holds everything back to its end does not.",
        ),
        needs: Needs::NONE.sends(&["tck-stream-001"]),
        run: |ctx| Box::pin(intermediate(ctx)),
    }]
}

fn is_terminal(event: &Event) -> bool {
    event
        .state()
        .is_some_and(|s| a2a::TERMINAL_STATES.contains(&s))
}

async fn intermediate(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let message = ctx.user_message("tck-stream-001");
    let mut stream = ctx.open_send_stream(json!({ "message": message })).await?;
    let collected = stream.collect(ctx.stream_wait()).await;
    let kinds: Vec<Option<&str>> = collected.events.iter().map(Event::kind).collect();
    if kinds == [Some("message")] {
        return Err(HarnessError::Prerequisite(
            "the agent answered `tck-stream-001` with a Message, not a task stream".into(),
        ));
    }
    let Some(end) = collected.events.iter().position(is_terminal) else {
        return Err(HarnessError::Prerequisite(format!(
            "the stream of `tck-stream-001` reached no terminal state: {}",
            collected.describe()
        )));
    };
    let progress = collected.events[..end].iter().any(|e| match e.kind() {
        Some("artifactUpdate") => true,
        Some("statusUpdate") => e.state() == Some("TASK_STATE_WORKING"),
        _ => false,
    });
    Ok(if progress {
        Verdict::pass_with(collected.describe())
    } else {
        Verdict::fail(
            "a WORKING statusUpdate or an artifactUpdate before the terminal status",
            collected.describe(),
        )
    })
}

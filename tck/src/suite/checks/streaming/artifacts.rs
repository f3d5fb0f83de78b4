//! `streaming.artifact-chunks-append-in-order`: the chunks of one artifact a stream sends, rebuilt by
//! their flags (`append` extends, no `append` replaces; `lastChunk` on the last chunk only),
//! and held against the artifact the task stores.

use serde_json::Value;

use super::{malformed, stream_of};
use crate::facts::a2a;
use crate::suite::check::{HarnessError, Verdict};
use crate::suite::ctx::Ctx;

pub(super) async fn artifact_chunks(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let collected = stream_of(&ctx, "tck-stream-artifact-chunked").await?;
    let expected = "chunks of one artifact whose flags rebuild it (append extends, no append \
                    replaces), lastChunk on the last chunk only";
    if let Some(v) = malformed(&collected, expected) {
        return Ok(v);
    }
    let updates: Vec<&Value> = collected
        .events
        .iter()
        .filter_map(|e| e.get("artifactUpdate"))
        .collect();
    let flag = |u: &Value, f: &str| u.get(f).and_then(Value::as_bool).unwrap_or(false);
    let id_of = |u: &Value| {
        u.get("artifact")
            .and_then(|a| a2a::text(a, "artifactId"))
            .map(str::to_string)
    };
    let Some(first_id) = updates.first().and_then(|u| id_of(u)) else {
        return Err(HarnessError::Prerequisite(format!(
            "`tck-stream-artifact-chunked` produced no artifact update: {}",
            collected.describe()
        )));
    };
    let chunks: Vec<&&Value> = updates
        .iter()
        .filter(|u| id_of(u).as_deref() == Some(first_id.as_str()))
        .collect();
    if chunks.len() < 2 {
        return Err(HarnessError::Prerequisite(format!(
            "`tck-stream-artifact-chunked` sent artifact {first_id:?} in one piece: {}",
            collected.describe()
        )));
    }
    let mut problems = Vec::new();
    // The artifact as a client following the flags holds it: `append` adds the chunk's parts,
    // a chunk without it is the artifact from then on (a first chunk, or a replacement).
    let mut rebuilt: Vec<Value> = Vec::new();
    for (i, chunk) in chunks.iter().enumerate() {
        let last = i + 1 == chunks.len();
        let parts = a2a::items(chunk.get("artifact").unwrap_or(&Value::Null), "parts").cloned();
        if flag(chunk, "append") {
            rebuilt.extend(parts);
        } else {
            rebuilt = parts.collect();
        }
        if flag(chunk, "lastChunk") != last {
            problems.push(format!(
                "chunk {} of {} has lastChunk {}",
                i + 1,
                chunks.len(),
                flag(chunk, "lastChunk")
            ));
        }
    }
    // What the agent holds after the stream: the flags must say how to get there.
    let task = collected.events.iter().find_map(|e| {
        (e.get("task").and_then(|t| a2a::text(t, "id")))
            .or_else(|| e.get("artifactUpdate").and_then(|u| a2a::text(u, "taskId")))
            .map(str::to_string)
    });
    let mut compared = "GetTask not asked (the stream named no task id)".to_string();
    if let Some(task) = task {
        let answer = ctx.get_task(&task, None).await?;
        let stored = (answer.result())
            .and_then(|t| {
                a2a::items(t, "artifacts")
                    .find(|a| a2a::text(a, "artifactId") == Some(first_id.as_str()))
            })
            .map(|a| a2a::items(a, "parts").cloned().collect::<Vec<Value>>());
        compared = match stored {
            Some(stored) if content(&stored) == content(&rebuilt) => {
                "the flags rebuild the artifact GetTask holds".to_string()
            }
            Some(stored) => {
                problems.push(format!(
                    "following the flags a client holds parts {} but GetTask holds {}",
                    a2a::brief(&Value::Array(rebuilt.clone()), 200),
                    a2a::brief(&Value::Array(stored), 200)
                ));
                String::new()
            }
            None => format!("GetTask holds no artifact {first_id:?}: the flags alone were judged"),
        };
    }
    // Nothing forbids it: the proto's "should be appended to a previously sent artifact" is
    // lowercase, and the official SUT contract sends this very sequence.
    let first_appends = flag(chunks[0], "append");
    Ok(if problems.is_empty() && first_appends {
        Verdict::tolerate(
            "the first chunk of an artifact starts it (append false or absent)",
            format!("the first chunk has append: true; {}", collected.describe()),
            "nothing to append to, but no sentence forbids it (the proto's \"should be \
             appended to a previously sent artifact\" is lowercase) and the official SUT \
             contract's `tck-stream-artifact-chunked` sends it",
        )
    } else if problems.is_empty() {
        Verdict::pass_with(format!(
            "{} chunks of artifact {first_id:?}; {compared}",
            chunks.len()
        ))
    } else {
        Verdict::fail(
            expected,
            format!("{}: {}", problems.join("; "), collected.describe()),
        )
    })
}

/// The content of a list of parts, as two readers of one artifact agree on it: the text of its
/// text parts run together (an agent may store two text chunks as one part), and its other parts
/// in order.
fn content(parts: &[Value]) -> (String, Vec<&Value>) {
    let text = (parts.iter())
        .filter_map(|p| p.get("text").and_then(Value::as_str))
        .collect();
    let other = parts.iter().filter(|p| p.get("text").is_none()).collect();
    (text, other)
}

//! The judges of what breaks on the wire in the field: a stream cut with nobody asking the
//! client to subscribe again (`recover`), a send answered 503 or dropped (`retry`), an answer
//! held past the deadline the client was given (`timeout`), and a task that stays working while
//! the client waits for it (`poll`). Each judges only what the stage recorded and what the
//! adapter printed; a client that shows nothing the rule speaks of (it never retried, it waited
//! by subscribing) is N/A.

use serde_json::Value;

use crate::facts::model::Binding;

use super::calls::Call;
use super::stage::Mishap;
use super::verdicts::{
    broken, error_of, kept, kit_error, not_applicable, short, state_name, task_line_problem,
    untestable, Judged, Observed,
};

/// The line of step `i`, or the judge returns why there is none.
macro_rules! line_of {
    ($seen:expr, $i:expr) => {
        match $seen.line($i) {
            Ok(line) => line,
            Err(judged) => return judged,
        }
    };
}

/// The terminal states of a task, in the spelling [`state_name`] gives.
fn terminal(state: &str) -> bool {
    matches!(
        state,
        "completed" | "failed" | "canceled" | "cancelled" | "rejected"
    )
}

/// The stream the stage cut, or what the judge says when there is none.
fn cut_stream<'a>(seen: &'a Observed) -> Result<&'a Call, Judged> {
    let cut =
        (seen.calls.iter()).find(|c| c.op == Some("SendStreamingMessage") && c.seen.served().cut);
    match cut {
        Some(cut) => Ok(cut),
        None if seen.of_op("SendStreamingMessage").next().is_some() => Err(untestable(
            "the stream ended before the stage could cut it after its first event".into(),
        )),
        None => Err(seen.no_request("SendStreamingMessage request")),
    }
}

/// The requests after the cut that follow the task again: a subscription to it, a read of
/// it, or a webhook registered on it.
fn follow_ups<'a>(seen: &'a Observed, cut: &Call, task_id: &str) -> Vec<&'a Call> {
    (seen.operations())
        .filter(|c| c.seen.at_ms >= cut.seen.at_ms && !std::ptr::eq(*c, cut))
        .filter(|c| {
            matches!(
                c.op,
                Some("SubscribeToTask" | "GetTask" | "CreateTaskPushNotificationConfig")
            ) && c.task_id().as_deref() == Some(task_id)
        })
        .collect()
}

pub(super) fn recovers(seen: &Observed) -> Judged {
    let cut = match cut_stream(seen) {
        Ok(cut) => cut,
        Err(judged) => return judged,
    };
    let Some(task) = seen.truth.tasks.first() else {
        return untestable("the agent made no task".into());
    };
    let task_id = task["id"].as_str().unwrap_or("");
    let followed = follow_ups(seen, cut, task_id);
    if followed.is_empty() {
        let sent: Vec<String> = (seen.operations())
            .filter(|c| c.seen.at_ms >= cut.seen.at_ms && !std::ptr::eq(*c, cut))
            .map(|c| c.brief())
            .collect();
        return broken(format!(
            "the stage cut the stream of task {task_id:?} after its first event, while the task \
             was still working, and the client did not follow the task again by itself (no \
             SubscribeToTask, GetTask or webhook on it; it sent {}){}",
            if sent.is_empty() {
                "nothing more".into()
            } else {
                sent.join(", ")
            },
            seen.said()
        ));
    }
    let briefs: Vec<String> = followed.iter().map(|c| c.brief()).collect();
    kept(format!(
        "after the cut the client followed the task again by itself: {}",
        briefs.join(", ")
    ))
}

pub(super) fn cut_reported(seen: &Observed) -> Judged {
    let cut = match cut_stream(seen) {
        Ok(cut) => cut,
        Err(judged) => return judged,
    };
    let Some(task) = seen.truth.tasks.first() else {
        return untestable("the agent made no task".into());
    };
    let task_id = task["id"].as_str().unwrap_or("");
    let followed = !follow_ups(seen, cut, task_id).is_empty();
    let line = line_of!(seen, 0);
    match line["result"].as_str() {
        None => {
            return match error_of(line) {
                Some(error) => kept(format!("the client reported the cut as an error ({error})")),
                None => broken(format!(
                    "the client reported neither a result nor an error: {}",
                    short(&line.to_string(), 200)
                )),
            }
        }
        Some("task") => {}
        Some(other) => {
            return broken(format!(
                "the agent streamed a task, and the client reported a {other}: {}",
                short(&line.to_string(), 200)
            ))
        }
    }
    let state = state_name(&line["state"]).unwrap_or_default();
    if !terminal(&state) {
        if let Some(id) = line["task_id"].as_str().filter(|id| *id != task_id) {
            return broken(format!(
                "the client reported the task {id:?}; the stream was of {task_id:?}"
            ));
        }
        return kept(format!(
            "the client reported the task as {} ({}), a state the agent served it{}",
            if state.is_empty() {
                "without a state".into()
            } else {
                state
            },
            match error_of(line) {
                Some(error) => format!("with the error {error}"),
                None => "without an error".into(),
            },
            if followed { "" } else { " before the cut" }
        ));
    }
    if !followed {
        return broken(format!(
            "the stream was cut after its first event (the task still open) and the client asked \
             nothing more about the task, yet it reported the task {state}: a state nothing \
             served it"
        ));
    }
    match task_line_problem(line, seen.truth, None) {
        None => kept(format!(
            "the client followed the task again and reported it {state}, as the agent holds it"
        )),
        Some(problem) => broken(format!("the client followed the task again, but {problem}")),
    }
}

/// The markers of the retry play's steps, by step.
fn marked_steps(seen: &Observed) -> Vec<(usize, String, Mishap)> {
    let mishaps = seen.play.mishaps();
    (seen.play.steps.iter().enumerate())
        .filter_map(|(i, step)| {
            let text = step["text"].as_str()?;
            let (marker, mishap) = mishaps.iter().find(|(m, _)| text.contains(m.as_str()))?;
            Some((i, marker.clone(), *mishap))
        })
        .collect()
}

/// The sends that carried `marker`, in arrival order.
fn sends_of<'a>(seen: &'a Observed, marker: &str) -> Vec<&'a Call> {
    (seen.calls.iter())
        .filter(|c| matches!(c.op, Some("SendMessage" | "SendStreamingMessage")))
        .filter(|c| {
            let bytes = &c.seen.body;
            let in_body = bytes.windows(marker.len()).any(|w| w == marker.as_bytes());
            in_body || c.message().is_some_and(|m| m.to_string().contains(marker))
        })
        .collect()
}

fn message_id(call: &Call) -> Option<String> {
    call.message()
        .and_then(|m| m.get("messageId").or_else(|| m.get("message_id")))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

pub(super) fn same_message_id(seen: &Observed) -> Judged {
    let grpc = seen.binding == Binding::Grpc;
    let mut retried = Vec::new();
    let mut problems = Vec::new();
    let mut any = false;
    for (i, marker, mishap) in marked_steps(seen) {
        let sends = sends_of(seen, &marker);
        let Some(first) = sends.first() else {
            continue;
        };
        any = true;
        if sends.len() < 2 {
            continue;
        }
        let id = message_id(first);
        let after = if mishap == Mishap::Drop {
            " (after a dropped connection the client cannot know whether the first attempt \
             took: the retry is safe only with an agent that deduplicates by messageId)"
        } else {
            ""
        };
        for again in &sends[1..] {
            let other = message_id(again);
            if other != id || id.is_none() {
                problems.push(format!(
                    "step {}: the stage {} on the first SendMessage (messageId {:?}); the client \
                     sent it again with the messageId {:?}, so an agent that detects duplicates \
                     by messageId (§3.3.1) takes the retry for a new message",
                    i + 1,
                    mishap.describe(grpc),
                    id.as_deref().unwrap_or(""),
                    other.as_deref().unwrap_or("")
                ));
            }
        }
        retried.push(format!(
            "step {}: {} attempts after the stage {}{after}",
            i + 1,
            sends.len(),
            mishap.describe(grpc)
        ));
    }
    if !problems.is_empty() {
        return broken(problems.join("; "));
    }
    if !any {
        return seen.no_request("SendMessage request");
    }
    if retried.is_empty() {
        return not_applicable(
            "the client did not send a failed SendMessage again (a client that does not retry \
             is not wrong), so there is no retry to judge"
                .into(),
        );
    }
    kept(format!(
        "every retry carried the messageId of its first attempt ({})",
        retried.join("; ")
    ))
}

pub(super) fn retry_reported(seen: &Observed) -> Judged {
    let grpc = seen.binding == Binding::Grpc;
    let mut problems = Vec::new();
    let mut judged = Vec::new();
    for (i, marker, mishap) in marked_steps(seen) {
        let sends = sends_of(seen, &marker);
        let Some(last) = sends.last() else {
            continue;
        };
        let line = line_of!(seen, i);
        let served = last.seen.served();
        if served.mishap.is_some() {
            // The failure was the last answer the client got for this step.
            match error_of(line) {
                Some(error) => judged.push(format!(
                    "step {}: the stage {} and the client reported an error ({error})",
                    i + 1,
                    mishap.describe(grpc)
                )),
                None => problems.push(format!(
                    "step {}: the stage {} and the client sent nothing more for it, yet it \
                     reported {}",
                    i + 1,
                    mishap.describe(grpc),
                    short(&line.to_string(), 200)
                )),
            }
            continue;
        }
        match task_line_problem(line, seen.truth, None) {
            None => judged.push(format!(
                "step {}: after the stage {}, the retry was answered and the client reported its task",
                i + 1,
                mishap.describe(grpc)
            )),
            Some(problem) => problems.push(format!(
                "step {}: the stage {} and the client's retry was answered with a task; {problem}",
                i + 1,
                mishap.describe(grpc)
            )),
        }
    }
    if !problems.is_empty() {
        return broken(problems.join("; "));
    }
    if judged.is_empty() {
        return seen.no_request("SendMessage request");
    }
    kept(judged.join("; "))
}

pub(super) fn gives_up(seen: &Observed) -> Judged {
    let grpc = seen.binding == Binding::Grpc;
    let Some((i, marker, mishap)) = marked_steps(seen).into_iter().next() else {
        return kit_error("the timeout play names no held step".into());
    };
    let sends = sends_of(seen, &marker);
    let Some(held) = sends.first() else {
        return seen.no_request("SendMessage request");
    };
    if held.seen.served().mishap.is_none() {
        return untestable(format!(
            "the stage did not hold the send ({}): its body did not carry the step's text",
            held.brief()
        ));
    }
    let deadline = seen.play.steps[i]["timeout_ms"].as_u64().unwrap_or(0);
    let line = line_of!(seen, i);
    if let Some(error) = error_of(line) {
        if line["result"].as_str().is_none() {
            return kept(format!(
                "asked to give up after {deadline} ms, the client reported an error while the \
                 stage {} ({error})",
                mishap.describe(grpc)
            ));
        }
    }
    if sends.len() > 1 && task_line_problem(line, seen.truth, None).is_none() {
        return kept(format!(
            "the client gave up on the held answer and sent the message again ({} attempts); \
             it reported the retry's answer",
            sends.len()
        ));
    }
    broken(format!(
        "asked to give up after {deadline} ms, the client waited while the stage {} and \
         reported {}",
        mishap.describe(grpc),
        short(&line.to_string(), 200)
    ))
}

/// The slack the poll judge gives a client past the bound it was asked for.
const POLL_SLACK_MS: u64 = 1000;
/// The shortest average gap between polls the poll judge accepts.
const POLL_GAP_MS: u64 = 50;

pub(super) fn polling_bounded(seen: &Observed) -> Judged {
    let Some(i) = seen.play.steps.iter().position(|s| s["op"] == "wait") else {
        return kit_error("the poll play has no wait step".into());
    };
    let bound = seen.play.steps[i]["timeout_ms"].as_u64().unwrap_or(0);
    let Some(task) = seen.truth.tasks.first() else {
        return seen.no_request("SendMessage request that made a task");
    };
    let task_id = task["id"].as_str().unwrap_or("");
    let reads = |op: &'static str| -> Vec<&Call> {
        (seen.of_op(op))
            .filter(|c| c.task_id().as_deref() == Some(task_id))
            .collect()
    };
    let polls = reads("GetTask");
    let line = line_of!(seen, i);
    if polls.is_empty() {
        return if reads("SubscribeToTask").is_empty() {
            seen.no_request("GetTask or SubscribeToTask request on the task")
        } else {
            not_applicable("the client waited by subscribing to the task, not by polling it".into())
        };
    }
    let first = polls[0].seen.at_ms;
    let last = polls[polls.len() - 1].seen.at_ms;
    let span = last.saturating_sub(first);
    let mut problems = Vec::new();
    if span > bound + POLL_SLACK_MS {
        problems.push(format!(
            "asked to wait at most {bound} ms, the client polled the task for {span} ms ({} \
             GetTask requests)",
            polls.len()
        ));
    }
    let most = span / POLL_GAP_MS + 2;
    if polls.len() as u64 > most {
        problems.push(format!(
            "the client polled {} times in {span} ms, more than once per {POLL_GAP_MS} ms on \
             average",
            polls.len()
        ));
    }
    let state = state_name(&line["state"]).unwrap_or_default();
    if terminal(&state) {
        problems.push(format!(
            "the task stays working, and the client reported it {state}"
        ));
    }
    if !problems.is_empty() {
        return broken(problems.join("; "));
    }
    kept(format!(
        "the client polled {} times over {span} ms and stopped within the {bound} ms it was \
         given; it reported the task {}{}",
        polls.len(),
        if state.is_empty() {
            "without a state".into()
        } else {
            state
        },
        error_of(line).map_or(String::new(), |e| format!(" ({e})"))
    ))
}

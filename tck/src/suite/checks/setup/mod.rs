//! Setup and judgement helpers shared by several check modules: tasks made in a given state
//! (through the scenario prefixes agents dispatch on), follow-up messages, history limits,
//! stream endings, and small verdict builders. A helper used by one module stays in it.

pub(crate) mod audit;
pub(crate) mod auth;
pub(crate) mod error_details;
pub(crate) mod extensions;
pub(crate) mod push;
pub(crate) mod rest;
use serde_json::{json, Value};

use crate::exchange::judge;
use crate::exchange::transport::stream::{Collected, End, Event, EventStream, Next};
use crate::facts::a2a::{self, ErrorKind};
use crate::suite::check::{HarnessError, Verdict};
use crate::suite::ctx::{Answer, Ctx, ErrorReply, RpcReply};

/// The kit's message playing `prefix` (as [`Ctx::user_message`] makes it: the card's parts
/// for an agent that plays no contract), written in the 0.3 `form`, for the checks that send
/// 0.3 requests by hand.
pub(crate) fn message_03(
    ctx: &Ctx,
    prefix: &str,
    form: crate::exchange::transport::v03::Form,
) -> Value {
    let params = json!({ "message": ctx.user_message(prefix) });
    let mut written = crate::exchange::transport::v03::write::request(form, "SendMessage", &params);
    written["message"].take()
}

/// Setup calls on a check's context.
pub(crate) trait Setup {
    /// Sends a message with the given scenario prefix and returns the Task it created.
    /// Anything else means the target did not produce the state the check needs.
    async fn create_task(&self, prefix: &str) -> Result<Value, HarnessError>;

    /// Like [`Setup::create_task`], with a prepared message.
    async fn create_task_with(&self, prefix: &str, message: Value) -> Result<Value, HarnessError>;

    /// Creates a task and requires it to be in `state` (e.g. an input-required task).
    async fn create_task_in_state(&self, prefix: &str, state: &str) -> Result<Value, HarnessError>;
}

impl Setup for Ctx {
    async fn create_task(&self, prefix: &str) -> Result<Value, HarnessError> {
        let message = self.user_message(prefix);
        self.create_task_with(prefix, message).await
    }

    async fn create_task_with(&self, prefix: &str, message: Value) -> Result<Value, HarnessError> {
        let answer = self.send_message(message, None).await?;
        match answer.result().and_then(|r| r.get("task")) {
            Some(task) if a2a::text(task, "id").is_some() => Ok(task.clone()),
            _ => Err(HarnessError::Prerequisite(format!(
                "SendMessage (scenario `{prefix}`) did not return a task with an id; got {}",
                answer.describe()
            ))),
        }
    }

    async fn create_task_in_state(&self, prefix: &str, state: &str) -> Result<Value, HarnessError> {
        // Decided once per run by the contract probe, so alike on every binding.
        if let Some(why) = self.scenarios().refusal(prefix) {
            return Err(HarnessError::Prerequisite(why));
        }
        let mut task = self.create_task(prefix).await?;
        // A task still on its way (SUBMITTED, WORKING) is read until it gets there: the state
        // the check needs is judged as the agent reaches it, not as one answer caught it.
        if a2a::state(&task).is_some_and(|s| s != state && rank(s) < rank(state)) {
            task = settle(self, task, state).await?;
        }
        match a2a::state(&task) {
            Some(s) if s == state => Ok(task),
            other => Err(HarnessError::Prerequisite(format!(
                "SendMessage (scenario `{prefix}`) returned a task in state {}, \
                 not {state}",
                a2a::shown(other)
            ))),
        }
    }
}

/// How long [`settle`] reads a task that is on its way, at most.
pub const SETTLE_WITHIN: std::time::Duration = std::time::Duration::from_secs(10);

/// Reads `task` with GetTask until it reaches `state` or any state of its rank or beyond (an
/// interrupted or terminal one), within [`SETTLE_WITHIN`]. Between reads it waits as long as
/// the last read took (at least 5 ms, at most 1 s), so a slow agent is read as often as it
/// can answer and a fast one is not flooded. Gives the last task read.
pub async fn settle(ctx: &Ctx, task: Value, state: &str) -> Result<Value, HarnessError> {
    let id = task_id(&task);
    let started = std::time::Instant::now();
    let mut last = task;
    loop {
        let reached = a2a::state(&last).is_some_and(|s| s == state || rank(s) >= rank(state));
        if reached || started.elapsed() >= SETTLE_WITHIN {
            return Ok(last);
        }
        let asked = std::time::Instant::now();
        let answer = ctx.get_task(&id, None).await?;
        let took = asked.elapsed();
        match answer.result() {
            Some(read) if a2a::text(read, "id") == Some(id.as_str()) => last = read.clone(),
            _ => return Ok(last),
        }
        let pause = took.clamp(
            std::time::Duration::from_millis(5),
            std::time::Duration::from_secs(1),
        );
        tokio::time::sleep(pause.min(SETTLE_WITHIN.saturating_sub(started.elapsed()))).await;
    }
}

/// A task the agent holds open, for the checks that cancel one: the kit's long-running task
/// (WORKING until canceled) when the contract or the drive file gives it, else an
/// input-required one. The task's scenario is the check's: declare `tck-input-required` as
/// needed and `tck-long-running` as optional.
pub async fn cancelable_task(ctx: &Ctx) -> Result<Value, HarnessError> {
    if ctx.scenarios().honours("tck-long-running") {
        let message = ctx.user_message("tck-long-running");
        let answer = ctx
            .send_message(
                message,
                Some(serde_json::json!({ "returnImmediately": true })),
            )
            .await?;
        if let Some(task) = sent_task(&answer).filter(|t| a2a::text(t, "id").is_some()) {
            if a2a::state(task).is_some_and(|s| rank(s) < 3) {
                return Ok(task.clone());
            }
        }
    }
    ctx.create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await
}

/// Setup: one task in each terminal state the agent can be driven into: COMPLETED
/// (`tck-complete-task`), REJECTED (`tck-reject-task`), FAILED (`tck-fail-task`, the kit's own
/// scenario, used only when the contract probe showed it honoured) and CANCELED (an
/// input-required task, canceled). COMPLETED is required; the other states are tried and left
/// out, with the reason, when the agent does not produce them.
pub async fn terminal_tasks(
    ctx: &Ctx,
) -> Result<(Vec<(&'static str, Value)>, Vec<String>), HarnessError> {
    let mut tasks = vec![(
        "TASK_STATE_COMPLETED",
        ctx.create_task_in_state("tck-complete-task", "TASK_STATE_COMPLETED")
            .await?,
    )];
    let mut skipped = Vec::new();
    for (prefix, state) in [
        ("tck-reject-task", "TASK_STATE_REJECTED"),
        ("tck-fail-task", "TASK_STATE_FAILED"),
    ] {
        match ctx.create_task_in_state(prefix, state).await {
            Ok(task) => tasks.push((state, task)),
            Err(HarnessError::Prerequisite(why)) => skipped.push(why),
            Err(other) => return Err(other),
        }
    }
    match cancelable_task(ctx).await {
        Ok(open) => {
            let canceled = ctx.cancel_task(&task_id(&open)).await?;
            match canceled.result() {
                Some(t) if a2a::state(t) == Some("TASK_STATE_CANCELED") => {
                    tasks.push(("TASK_STATE_CANCELED", t.clone()))
                }
                _ => skipped.push(format!(
                    "no canceled task: CancelTask gave {}",
                    canceled.describe()
                )),
            }
        }
        Err(HarnessError::Prerequisite(why)) => skipped.push(why),
        Err(other) => return Err(other),
    }
    Ok((tasks, skipped))
}

/// The input modes a card declares: `defaultInputModes` and each skill's `inputModes`, with
/// the field they come from, as bare lowercase media types (parameters dropped).
pub fn input_modes(card: &Value) -> Vec<(String, Vec<String>)> {
    declared_modes(card, "Input")
}

/// The output modes a card declares (`defaultOutputModes`, each skill's `outputModes`), as
/// [`input_modes`] gives the input ones.
pub fn output_modes(card: &Value) -> Vec<(String, Vec<String>)> {
    declared_modes(card, "Output")
}

/// The `default{Way}Modes` of the card and each skill's `{way}Modes`, `way` being `Input` or
/// `Output`.
fn declared_modes(card: &Value, way: &str) -> Vec<(String, Vec<String>)> {
    let modes = |object: &Value, field: &str| -> Vec<String> {
        a2a::items(object, field)
            .filter_map(Value::as_str)
            .map(|m| {
                m.split(';')
                    .next()
                    .unwrap_or("")
                    .trim()
                    .to_ascii_lowercase()
            })
            .collect()
    };
    let default = format!("default{way}Modes");
    let skill_field = format!("{}Modes", way.to_ascii_lowercase());
    let mut declared = vec![(default.clone(), modes(card, &default))];
    for (i, skill) in a2a::items(card, "skills").enumerate() {
        declared.push((
            format!("skills[{i}].{skill_field}"),
            modes(skill, &skill_field),
        ));
    }
    declared
}

/// Whether a declared input mode admits `media` (`type/subtype`): the type itself, `type/*`,
/// `*/*` or `*`.
pub fn mode_admits(mode: &str, media: &str) -> bool {
    let family = media.split('/').next().unwrap_or("");
    mode == media || mode == "*" || mode == "*/*" || mode == format!("{family}/*")
}

/// N/A when the card says the agent takes no input of type `media`: neither
/// `defaultInputModes` nor any skill's `inputModes` admits it. A card without
/// `defaultInputModes` says nothing, so the check runs.
pub fn input_mode_not_declared(card: &Value, media: &str) -> Option<Verdict> {
    card.get("defaultInputModes").and_then(Value::as_array)?;
    let declared = input_modes(card);
    let admitted = declared
        .iter()
        .any(|(_, modes)| modes.iter().any(|m| mode_admits(m, media)));
    (!admitted).then(|| Verdict::NotApplicable {
        reason: format!(
            "the card's input modes ({}) do not admit {media}, so the agent may refuse such a \
             part (§13.4: agents SHOULD reject unexpected media types)",
            declared
                .iter()
                .filter(|(_, m)| !m.is_empty())
                .map(|(f, m)| format!("{f} {m:?}"))
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

/// Whether an error names `kind` in any form the binding has: its JSON-RPC code, or its
/// ErrorInfo reason (the only name 0.3 REST and gRPC errors may carry).
pub fn names_error(error: &ErrorReply, kind: ErrorKind) -> bool {
    error.code == Some(kind.jsonrpc_code())
        || kind
            .reason()
            .is_some_and(|r| error.error_info.as_ref().is_some_and(|i| i.reason == r))
}

/// Task id of a task returned by setup (present: setup checked it).
pub fn task_id(task: &Value) -> String {
    a2a::text(task, "id").unwrap_or_default().to_string()
}

/// The verdict for "this JSON-RPC call must fail with exactly `kind`".
pub fn expect_error_reply(reply: &RpcReply, kind: ErrorKind) -> Verdict {
    judge::expect_error(&reply.reply(), kind)
}

/// The task in a SendMessage result (`{"task": {...}}`), for follow-ups.
pub fn sent_task(answer: &Answer) -> Option<&Value> {
    answer.result().and_then(|r| r.get("task"))
}

/// Satisfied when there are no problems, else violated with all of them.
pub fn verdict_from(problems: Vec<String>, expected: &str) -> Verdict {
    if problems.is_empty() {
        Verdict::pass()
    } else {
        Verdict::fail(expected, problems.join("; "))
    }
}

/// What the judged answers of one check add up to: violations, and answers tolerated because
/// they follow superseded or contested text ([`Verdict::Tolerated`]). A violation makes the
/// check fail; otherwise a tolerated answer makes it tolerated (WARN); otherwise it passes.
#[derive(Debug, Default)]
pub struct Findings {
    problems: Vec<String>,
    tolerated: Vec<String>,
    why: Option<String>,
}

impl Findings {
    /// Records the verdict on the answer labelled `label` (a method, a task state, ...).
    pub fn add(&mut self, label: &str, verdict: Verdict) {
        match verdict {
            Verdict::Violated { actual, .. } => self.problems.push(format!("{label}: {actual}")),
            Verdict::Tolerated { actual, why, .. } => {
                self.tolerated.push(format!("{label}: {actual}"));
                self.why.get_or_insert(why);
            }
            Verdict::Satisfied { .. } | Verdict::NotApplicable { .. } => {}
        }
    }

    /// Records a violation described in full.
    pub fn problem(&mut self, problem: String) {
        self.problems.push(problem);
    }

    /// The check's verdict: `clean` when nothing was found.
    pub fn verdict(self, expected: impl Into<String>, clean: Verdict) -> Verdict {
        if !self.problems.is_empty() {
            Verdict::fail(expected, self.problems.join("; "))
        } else if !self.tolerated.is_empty() {
            Verdict::tolerate(
                expected,
                self.tolerated.join("; "),
                self.why.unwrap_or_default(),
            )
        } else {
            clean
        }
    }
}

/// A follow-up message on `task` with the given scenario prefix.
pub fn follow_up(ctx: &Ctx, task: &Value, prefix: &str, context: Option<&str>) -> Value {
    let mut message = ctx.follow_up_on(task, prefix);
    message["taskId"] = json!(task_id(task));
    if let Some(context) = context {
        message["contextId"] = json!(context);
    }
    message
}

/// A follow-up on `task` that names its contextId too.
pub fn full_follow_up(ctx: &Ctx, task: &Value, prefix: &str) -> Value {
    follow_up(ctx, task, prefix, a2a::text(task, "contextId"))
}

/// Setup: moves an open task on with the follow-up playing `prefix` (or, for the kit's held
/// WORKING task under a contract whose follow-ups do not release it, with a cancel), and
/// requires the task to be seen moving: the follow-up accepted, and the task no longer in the
/// state it was made in, in the answer or in a GetTask after it. An agent that keeps the task
/// waiting (it asked for an answer the kit cannot give, such as an approval of a tool call)
/// leaves the check nothing to judge, which is UNTESTABLE, never a violation.
pub async fn release(ctx: &Ctx, task: &Value, prefix: &str) -> Result<Answer, HarnessError> {
    let id = task_id(task);
    let before = a2a::state(task).unwrap_or_default().to_string();
    let by_cancel = before == "TASK_STATE_WORKING" && !ctx.scenarios().follow_up_releases_held();
    let (answer, what) = if by_cancel {
        (ctx.cancel_task(&id).await?, "the cancel that ends the task")
    } else {
        let message = full_follow_up(ctx, task, prefix);
        (
            ctx.send_message(message, None).await?,
            "the follow-up that completes the task",
        )
    };
    if answer.result().is_none() {
        return Err(HarnessError::Prerequisite(format!(
            "{what} was refused: {}",
            answer.describe()
        )));
    }
    let now = crate::suite::detect::state_after(ctx, &id, &answer).await;
    if now == before && a2a::INTERRUPTED_STATES.contains(&now.as_str()) {
        return Err(HarnessError::Prerequisite(format!(
            "the task stayed in {now} after {what}: the agent waits for an answer the kit \
             cannot give (a drive file can say what to send)"
        )));
    }
    Ok(answer)
}

/// "tried X, Y; left out: ..." for pass details of checks over several terminal states.
pub fn tried_and_skipped(tried: &[&str], skipped: &[String]) -> String {
    if skipped.is_empty() {
        format!("tried {}", tried.join(", "))
    } else {
        format!(
            "tried {}; left out: {}",
            tried.join(", "),
            skipped.join("; ")
        )
    }
}

/// A violation when `answer` is an error that does not reject the request for a reason
/// (see [`judge::not_a_rejection`]).
pub fn broken_rejection(answer: &Answer, expected: &str) -> Option<Verdict> {
    match answer {
        Answer::Error(e) if judge::not_a_rejection(e) => Some(Verdict::fail(
            format!("{expected} (an A2A error or -32602)"),
            answer.describe(),
        )),
        _ => None,
    }
}

/// The Task a GetTask/CancelTask result must be, or a violation.
pub fn result_task<'a>(answer: &'a Answer, expected: &str) -> Result<&'a Value, Verdict> {
    match answer {
        Answer::Result(task) if task.is_object() => Ok(task),
        other => Err(Verdict::fail(expected, other.describe())),
    }
}

/// Setup: a task's whole history, as GetTask without a limit shows it.
pub async fn full_history(ctx: &Ctx, id: &str) -> Result<Vec<Value>, HarnessError> {
    let full = ctx.get_task(id, None).await?;
    Ok(full
        .result()
        .ok_or_else(|| HarnessError::Prerequisite(format!("GetTask failed: {}", full.describe())))?
        .get("history")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default())
}

pub fn history_ids(task: &Value) -> Vec<Option<&str>> {
    task.get("history")
        .and_then(Value::as_array)
        .map(|h| h.iter().map(|m| a2a::text(m, "messageId")).collect())
        .unwrap_or_default()
}

/// N/A when a task's full history is too short for a limit of 1 to show.
pub fn limit_unobservable(history: &[Value]) -> Option<Verdict> {
    (history.len() < 2).then(|| Verdict::NotApplicable {
        reason: format!(
            "the task's full history has {} message(s), so a limit of 1 is not observable",
            history.len()
        ),
    })
}

/// For historyLength 1: `got` keeps at most one message, the most recent of `history`.
pub fn judge_limit_of_one(history: &[Value], got: &Value) -> Verdict {
    let newest = history.last().and_then(|m| a2a::text(m, "messageId"));
    let kept = history_ids(got);
    if kept.len() > 1 || (kept.len() == 1 && kept[0] != newest) {
        Verdict::fail(
            format!(
                "for historyLength 1, only the most recent message ({})",
                a2a::shown(newest)
            ),
            format!("history messageIds {kept:?}"),
        )
    } else {
        Verdict::pass_with(format!(
            "{} of {} messages returned",
            kept.len(),
            history.len()
        ))
    }
}

/// GetTask of a task that does not exist: the error to inspect.
pub async fn not_found(ctx: &Ctx) -> Result<Result<ErrorReply, Verdict>, HarnessError> {
    let reply = ctx.get(json!({ "id": ctx.id("tck-no-such-task") })).await?;
    let expected = judge::expected(ErrorKind::TaskNotFound, ctx.binding(), ctx.version());
    Ok(match reply.read {
        Ok(Answer::Error(e)) => Ok(e),
        Ok(other) => Err(Verdict::fail(expected, other.describe())),
        Err(unreadable) => Err(Verdict::fail(expected, unreadable)),
    })
}

/// Where a state sits in a task's life: states never move to a lower rank.
pub fn rank(state: &str) -> u8 {
    match state {
        "TASK_STATE_SUBMITTED" => 0,
        "TASK_STATE_WORKING" => 1,
        s if a2a::INTERRUPTED_STATES.contains(&s) => 2,
        s if a2a::TERMINAL_STATES.contains(&s) => 3,
        _ => 0,
    }
}

/// Reads events after `seen` up to and including the first terminal state; a stream that ends
/// first gives back what it sent and how it ended.
pub async fn until_terminal(
    stream: &mut EventStream,
    wait: std::time::Duration,
    mut seen: Vec<Event>,
) -> Result<Vec<Event>, Collected> {
    loop {
        match stream.next(wait).await {
            Next::Event(event) => {
                let terminal = event
                    .state()
                    .is_some_and(|s| a2a::TERMINAL_STATES.contains(&s));
                seen.push(event);
                if terminal {
                    return Ok(seen);
                }
            }
            Next::End(end) => return Err(Collected { events: seen, end }),
        }
    }
}

/// Reads until a terminal state, then requires the stream to close.
pub async fn close_after_terminal(
    ctx: &Ctx,
    stream: &mut EventStream,
    seen: Vec<Event>,
) -> Result<Verdict, HarnessError> {
    let wait = ctx.stream_wait();
    let expected = "the stream closes right after the terminal state";
    let seen = match until_terminal(stream, wait, seen).await {
        Ok(seen) => seen,
        // A clean close before a terminal state: the agent did not play the scenario.
        Err(collected) if collected.end == End::Closed => {
            return Err(HarnessError::Prerequisite(format!(
                "the stream closed before any terminal state: {}",
                collected.describe()
            )));
        }
        Err(collected) => {
            return Ok(Verdict::fail(
                "the task's events up to its terminal state, then the stream closes",
                collected.describe(),
            ));
        }
    };
    // A final Task snapshot may follow the terminal status (§11.7); nothing else may.
    let rest = stream.collect(wait).await;
    let extra: Vec<&Event> = rest
        .events
        .iter()
        .filter(|e| e.kind() != Some("task"))
        .collect();
    let mut all = seen;
    all.extend(rest.events.iter().cloned());
    let collected = Collected {
        events: all,
        end: rest.end.clone(),
    };
    Ok(match (&rest.end, extra.is_empty()) {
        (End::Closed, true) => Verdict::pass_with(collected.describe()),
        _ => Verdict::fail(expected, collected.describe()),
    })
}

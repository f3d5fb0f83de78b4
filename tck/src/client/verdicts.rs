//! The client checks' judges: each reads what the client sent (the recorded [`Call`]s) and what
//! its adapter said the client's API returned (the step lines), against what the scripted agent
//! served (its card, and its tasks read back from it after the play), and gives a status with the
//! reason. A judge says UNTESTABLE when the play did not reach the state it needs, ERROR when the
//! adapter could not be run; it fails the client only on what the client was seen to do.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::facts::model::{Binding, ProtocolVersion};
use crate::suite::check::{HarnessError, Verdict};

use super::adapter::Outcome;
use super::calls::{kind_of, role, Answered, Call};
use super::plays::{skill_ids, PlaySpec};
use super::stage::Door;

pub(crate) mod field_cards;

/// What the scripted agent holds after the play: its tasks (1.0 JSON, with artifacts), its
/// extended card, and the text of its direct-message reply.
#[derive(Debug, Clone, Default)]
pub struct Truth {
    pub tasks: Vec<Value>,
    pub extended_card: Option<Value>,
    pub message_text: String,
    pub bearer: Option<String>,
}

impl Truth {
    /// The task with `id`.
    pub fn task(&self, id: &str) -> Option<&Value> {
        self.tasks.iter().find(|t| t["id"].as_str() == Some(id))
    }
}

/// Everything one play showed.
#[derive(Debug)]
pub struct Observed<'a> {
    pub play: &'a PlaySpec,
    pub binding: Binding,
    pub version: ProtocolVersion,
    pub card: &'a Value,
    pub calls: &'a [Call],
    pub outcome: &'a Outcome,
    pub truth: &'a Truth,
    /// The play's steps asked of the client (their indices), in order: one line each. A step
    /// of a call the client's API does not offer is not asked.
    pub asked: &'a [usize],
    /// The calls the client's API offers, as its adapter declares them (`None`: every call).
    pub operations: Option<&'a [String]>,
}

impl Observed<'_> {
    pub(super) fn operations(&self) -> impl Iterator<Item = &Call> {
        self.calls.iter().filter(|c| c.is_operation())
    }

    pub(super) fn of_op<'b>(&'b self, op: &'b str) -> impl Iterator<Item = &'b Call> + 'b {
        self.calls.iter().filter(move |c| c.op == Some(op))
    }

    fn sends(&self) -> impl Iterator<Item = &Call> {
        (self.calls.iter()).filter(|c| matches!(c.op, Some("SendMessage" | "SendStreamingMessage")))
    }

    /// The line of step `i` of the play, or why there is none.
    pub(super) fn line(&self, i: usize) -> Result<&Value, Judged> {
        let Some(at) = self.asked.iter().position(|asked| *asked == i) else {
            return Err(self.not_asked(i));
        };
        match self.outcome.step(at) {
            Some(line) => Ok(line),
            None => Err(self.no_line(i)),
        }
    }

    /// Why step `i` was not asked of the client: N/A, unless the version requires every
    /// client to offer its call (0.3 §11.2.2: message/send and tasks/get), which is broken.
    fn not_asked(&self, i: usize) -> Judged {
        let step = self.play.steps.get(i).cloned().unwrap_or_default();
        let calls = super::plays::step_calls(&step);
        let call = calls.join(" or ");
        let declared = self.operations.map_or(String::new(), |ops| ops.join(", "));
        let required = calls.iter().find_map(|c| {
            super::plays::required_of_clients(c, self.version).map(|sentence| (*c, sentence))
        });
        match required {
            Some((call, sentence)) => broken(format!(
                "the client's API offers no {call} call (its adapter declares the operations \
                 [{declared}]); spec 0.3 §11.2.2 ({sentence}) requires every client to make \
                 message/send and tasks/get requests"
            )),
            None => not_applicable(format!(
                "step {} ({}) was not asked: the client's API offers no {call} call (its adapter \
                 declares the operations [{declared}]), and no sentence of A2A {} requires a \
                 client to offer it",
                i + 1,
                step["op"].as_str().unwrap_or("?"),
                self.version
            )),
        }
    }

    /// The request the client made for step `i`: the last recorded call of the step's
    /// operation that carries its text (a send) or names its task (get, cancel, subscribe),
    /// one the agent answered before one the failing interface did; `None` when there is none.
    fn call_of_step(&self, i: usize) -> Option<&Call> {
        let step = self.play.steps.get(i)?;
        let op = step["op"].as_str()?;
        let named: Vec<&str> = (self.play.steps.iter())
            .filter_map(|s| s["task"].as_str())
            .filter(|t| *t != "last")
            .collect();
        let wanted: &[&str] = match op {
            "send" => &["SendMessage", "SendStreamingMessage"],
            "get" => &["GetTask"],
            "cancel" => &["CancelTask"],
            "subscribe" => &["SubscribeToTask"],
            _ => return None,
        };
        let matches = |call: &&Call| {
            let Some(name) = call.op.filter(|name| wanted.contains(name)) else {
                return false;
            };
            match (name, step["task"].as_str()) {
                ("SendMessage" | "SendStreamingMessage", _) => {
                    call.text().as_deref() == step["text"].as_str()
                }
                (_, Some(task)) if task != "last" => call.task_id().as_deref() == Some(task),
                _ => call
                    .task_id()
                    .is_none_or(|id| !named.contains(&id.as_str())),
            }
        };
        let all: Vec<&Call> = self.calls.iter().filter(matches).collect();
        (all.iter()
            .rev()
            .find(|c| c.door() != Door::Dead)
            .or(all.last()))
        .copied()
    }

    fn no_line(&self, i: usize) -> Judged {
        match &self.outcome.failure {
            Some(failure) => adapter_failed(failure),
            None => untestable(format!(
                "the adapter printed no line for step {} ({}){}",
                i + 1,
                self.play
                    .steps
                    .get(i)
                    .map_or("?".into(), |s| s["op"].to_string()),
                if self.outcome.noise.trim().is_empty() {
                    String::new()
                } else {
                    format!("; it printed: {}", short(&self.outcome.noise, 600))
                }
            )),
        }
    }

    pub(super) fn no_request(&self, what: &str) -> Judged {
        match &self.outcome.failure {
            Some(failure) => adapter_failed(failure),
            None => untestable(format!(
                "the client made no {what}, so there is nothing to judge{}",
                self.said()
            )),
        }
    }

    /// What the adapter's lines said, for a message.
    pub(super) fn said(&self) -> String {
        if self.outcome.lines.is_empty() {
            String::new()
        } else {
            let lines: Vec<String> = self
                .outcome
                .lines
                .iter()
                .map(|l| short(&l.to_string(), 300))
                .collect();
            format!("; the adapter printed {}", lines.join(" | "))
        }
    }
}

/// The line of a step, or the judge returns why there is none.
macro_rules! step_line {
    ($seen:expr, $i:expr) => {
        match $seen.line($i) {
            Ok(line) => line,
            Err(judged) => return judged,
        }
    };
}

/// A judge's finding: the outcome every check returns, which the check's level turns into a
/// status ([`crate::suite::check::Status::of`]).
pub type Judged = Result<Verdict, HarnessError>;

/// The client kept the rule.
pub(crate) fn kept(why: String) -> Judged {
    Ok(Verdict::pass_with(why))
}

/// The client broke the rule: FAIL for a MUST, WARN for a SHOULD or MAY.
pub(crate) fn broken(why: String) -> Judged {
    Ok(Verdict::broken(why))
}

/// The play did not reach the state the rule needs: UNTESTABLE.
pub(crate) fn untestable(why: String) -> Judged {
    Err(HarnessError::Prerequisite(why))
}

/// The play showed nothing the rule speaks of (a client that never retried), or the check
/// asks of the client what it does not offer, and no sentence requires it to: N/A.
pub(crate) fn not_applicable(reason: String) -> Judged {
    Ok(Verdict::NotApplicable { reason })
}

/// The client's adapter could not be run to its end (spawned, or finished in its deadline):
/// ERROR, never a verdict on the client.
pub(crate) fn adapter_failed(failure: &str) -> Judged {
    Err(HarnessError::Transport(failure.to_owned()))
}

/// The kit could not judge for a reason of its own: ERROR.
pub(crate) fn kit_error(why: String) -> Judged {
    Err(HarnessError::Internal(why))
}

/// The checks that judge every step of their play: a step not asked of the client leaves
/// them nothing to judge.
const EVERY_STEP: &[&str] = &[
    "client.follow-up.same-task",
    "client.stream.read",
    "client.stream.resubscribe",
    "client.stream.chunks-reassembled",
    "client.capabilities.streaming-off",
    "client.extended-card.authenticated",
    "client.extended-card.used",
    "client.push.config-sent",
    "client.interface.first-supported",
    "client.interface.fallback",
];

/// Why `check` has nothing to judge in the steps asked of the client, if it has not: a step
/// not asked of a check that judges every step, or no step but the card's asked at all.
pub(crate) fn unasked(id: &str, seen: &Observed) -> Option<Judged> {
    let steps = 0..seen.play.steps.len();
    let mut missing = steps.filter(|i| !seen.asked.contains(i));
    if EVERY_STEP.contains(&id) {
        if let Some(i) = missing.next() {
            return Some(seen.not_asked(i));
        }
        return None;
    }
    // The card's checks judge the card step alone, which is always asked.
    if id == "client.card.tolerates-unknown-fields" || id.starts_with("client.signatures.") {
        return None;
    }
    let calls = |i: &usize| !super::plays::step_calls(&seen.play.steps[*i]).is_empty();
    let asks_a_call = (0..seen.play.steps.len()).any(|i| calls(&i));
    let asked_a_call = seen.asked.iter().any(calls);
    if asks_a_call && !asked_a_call {
        let first = (0..seen.play.steps.len()).find(|i| calls(i)).unwrap_or(0);
        return Some(seen.not_asked(first));
    }
    None
}

/// Kept (with the words `words` gives) when nothing broke the rule, else broken, with every problem.
fn kept_unless(problems: Vec<String>, words: impl FnOnce() -> String) -> Judged {
    if problems.is_empty() {
        kept(words())
    } else {
        broken(problems.join("; "))
    }
}

pub(super) fn short(text: &str, max: usize) -> String {
    if text.len() <= max {
        return text.trim().to_owned();
    }
    let mut end = max;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}...", text[..end].trim())
}

/// A task state in one spelling: `completed`, `input-required`.
pub fn state_name(state: &Value) -> Option<String> {
    let text = state.as_str()?.trim().to_ascii_lowercase();
    let text = text.strip_prefix("task_state_").unwrap_or(&text);
    Some(text.replace('_', "-"))
}

pub(super) fn error_of(line: &Value) -> Option<String> {
    let error = line.get("error").filter(|e| !e.is_null())?;
    Some(format!(
        "{}: {}",
        error["kind"].as_str().unwrap_or("?"),
        short(error["message"].as_str().unwrap_or(""), 300)
    ))
}

fn texts(holder: &Value) -> String {
    (holder["parts"].as_array().into_iter().flatten())
        .filter_map(|p| p["text"].as_str())
        .collect()
}

/// Why a client that fetched the card at the path cards had before 0.3 got none: `None` when
/// it fetched the card where it was served.
fn legacy_card_path(seen: &Observed, error: &str) -> Option<Judged> {
    let legacy = seen.calls.iter().find(|c| c.legacy_card_fetch())?;
    if seen
        .calls
        .iter()
        .any(|c| c.card_fetch && !c.legacy_card_fetch())
    {
        return None;
    }
    Some(broken(format!(
        "the client looked for the card at {} ({}), where cards were before 0.3, instead of the \
         card URL it was given: 0.3 and 1.0 serve the card at {}, and the stage answered {} \
         ({error})",
        super::calls::LEGACY_CARD_PATH,
        legacy.brief(),
        "/.well-known/agent-card.json",
        legacy.seen.served().status
    )))
}

/// The skills of the card with no inputModes or no outputModes (both versions make them
/// optional: such a skill takes the card's defaultInputModes and defaultOutputModes).
fn modeless_skills(card: &Value) -> Vec<String> {
    (card["skills"].as_array().into_iter().flatten())
        .filter(|s| s.get("inputModes").is_none() || s.get("outputModes").is_none())
        .map(|s| s["id"].as_str().unwrap_or("?").to_owned())
        .collect()
}

/// The finding for a client that refused the card (`error`), whose oddity the play put there
/// is `oddity`: the reason as exact as the kit can tell it.
/// `Some` when the client was never given the play's card: no fetch of the card URL that the
/// stage answered with it (200, or 304 to a revalidation). What a client says of a card it was
/// never given (an error, or a card it made up) shows nothing of how it treats the card served:
/// a client that looked only where cards were before 0.3 is judged by [`legacy_card_path`]
/// where the check reads cards (`legacy_fails`); otherwise the check could not see `what`.
pub(crate) fn card_not_given(seen: &Observed, what: &str, legacy_fails: bool) -> Option<Judged> {
    let given = (seen.calls.iter()).any(|c| {
        c.card_fetch && !c.legacy_card_fetch() && matches!(c.seen.served().status, 200 | 304)
    });
    if given {
        return None;
    }
    if legacy_fails {
        let said = error_of(seen.outcome.step(0).unwrap_or(&Value::Null))
            .unwrap_or_else(|| "it went on with a card the stage never served".into());
        if let Some(judged) = legacy_card_path(seen, &said) {
            return Some(judged);
        }
    }
    let asked: Vec<String> = (seen.calls.iter())
        .filter(|c| !c.is_operation())
        .map(|c| format!("{} answered {}", c.brief(), c.seen.served().status))
        .collect();
    let asked = if asked.is_empty() {
        "it asked for no card".to_owned()
    } else {
        format!("it asked: {}", asked.join("; "))
    };
    Some(untestable(format!(
        "the client never received the play's card ({asked}), so whether it {what} could not \
         be seen{}",
        seen.said()
    )))
}

fn refused_card(seen: &Observed, error: String, oddity: &str) -> Judged {
    if let Some(judged) = legacy_card_path(seen, &error) {
        return judged;
    }
    let modeless = modeless_skills(seen.card);
    let lower = error.to_ascii_lowercase().replace('_', "");
    let names_modes = lower.contains("inputmodes") || lower.contains("outputmodes");
    let optional = "which both versions make optional (such a skill takes the card's \
                    defaultInputModes and defaultOutputModes)";
    if !modeless.is_empty() && names_modes {
        return broken(format!(
            "the client refused the card because its skills ({}) have no inputModes or \
             outputModes, {optional} ({error})",
            modeless.join(", ")
        ));
    }
    let mut oddities = vec![oddity.to_owned()];
    if !modeless.is_empty() {
        oddities.push(format!(
            "skills ({}) without inputModes or outputModes, {optional}",
            modeless.join(", ")
        ));
    }
    broken(format!(
        "the client refused a card whose only oddities are {} ({error})",
        oddities.join(", and ")
    ))
}

pub(crate) fn card_read(seen: &Observed) -> Judged {
    let line = step_line!(seen, 0);
    if let Some(judged) = card_not_given(seen, "reads a card with fields no version defines", true)
    {
        return judged;
    }
    if let Some(error) = error_of(line) {
        return refused_card(seen, error, "fields no version defines");
    }
    let name = seen.card["name"].as_str().unwrap_or("");
    if line["name"].as_str() != Some(name) {
        return broken(format!(
            "the client read the card's name as {}, the card says {name:?}",
            line["name"]
        ));
    }
    let served = skill_ids(seen.card);
    let read: Vec<String> = (line["skills"].as_array().into_iter().flatten())
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect();
    if read != served {
        return broken(format!(
            "the client read the skills {read:?}, the card lists {served:?}"
        ));
    }
    kept("the card with unknown fields was read: name and skills as served".into())
}

pub(crate) fn mixed_versions(seen: &Observed) -> Judged {
    let line = step_line!(seen, 0);
    if let Some(judged) = card_not_given(seen, "reads a card of both versions", true) {
        return judged;
    }
    if let Some(error) = error_of(line) {
        return refused_card(seen, error, "interfaces of both versions");
    }
    let operations: Vec<&Call> = seen.operations().collect();
    if operations.is_empty() {
        return seen.no_request("A2A request");
    }
    let mut wrong = Vec::new();
    for call in &operations {
        let declared = match call.door() {
            Door::Main => seen.version,
            Door::Alt => super::plays::other(seen.version),
            Door::Dead => continue,
        };
        let header = call
            .version_value()
            .and_then(|v| ProtocolVersion::from_declared(&v));
        let spoken = call.spoken.or(header);
        if spoken.is_some_and(|v| v != declared) || header.is_some_and(|v| v != declared) {
            wrong.push(format!(
                "{} went to the card's {declared} interface speaking {}{}",
                call.brief(),
                spoken.map_or("?", |v| v.as_str()),
                header.map_or(String::new(), |v| format!(" (A2A-Version {v})"))
            ));
        }
    }
    let used: BTreeSet<&str> = (operations.iter())
        .map(|c| match c.door() {
            Door::Main => seen.version.as_str(),
            _ => super::plays::other(seen.version).as_str(),
        })
        .collect();
    kept_unless(wrong, || {
        let used: Vec<&str> = used.into_iter().collect();
        format!(
            "the card of both versions was read; the client spoke to its {} interface(s) in \
             their own version",
            used.join(" and ")
        )
    })
}

pub(crate) fn signature_accepted(seen: &Observed) -> Judged {
    let line = step_line!(seen, 0);
    if let Some(judged) = card_not_given(seen, "accepts a card signed as it should be", true) {
        return judged;
    }
    if let Some(judged) = error_of(line).and_then(|error| legacy_card_path(seen, &error)) {
        return judged;
    }
    if let Some(error) = error_of(line) {
        return broken(format!(
            "the card's signature verifies with the trusted key (over {}), and the client \
             refused it ({error})",
            if seen.card["signatures"].as_array().map_or(0, Vec::len) > 1 {
                "each canonical form a reading of §8.4 gives, one signature each"
            } else {
                "the §8.4.1 canonical form"
            }
        ));
    }
    if line["verified"] != Value::Bool(true) {
        return broken(format!(
            "the client read the card without saying it verified it: {}",
            short(&line.to_string(), 200)
        ));
    }
    kept("the client verified the card's signature and accepted it".into())
}

pub(crate) fn signature_refused(seen: &Observed) -> Judged {
    let line = step_line!(seen, 0);
    if let Some(judged) = card_not_given(seen, "refuses a card changed after it was signed", false)
    {
        return judged;
    }
    match error_of(line) {
        Some(error) => kept(format!("the client refused the card ({error})")),
        None => broken(
            "a security scheme was added to the card after it was signed, and the client \
             accepted it"
                .into(),
        ),
    }
}

pub(crate) fn binding_form(seen: &Observed) -> Judged {
    let operations: Vec<&Call> = seen.operations().collect();
    let mut wrong: Vec<String> = Vec::new();
    let mut discouraged: Vec<String> = Vec::new();
    for call in seen
        .calls
        .iter()
        .filter(|c| c.binding.is_some() && !c.card_fetch)
    {
        for problem in &call.broken {
            wrong.push(format!("{}: {problem}", call.brief()));
        }
        for problem in &call.discouraged {
            discouraged.push(format!("{}: {problem}", call.brief()));
        }
        if let Some(spoken) = call.spoken.filter(|v| *v != seen.version) {
            wrong.push(format!(
                "{}: a {spoken} request on a {} interface",
                call.brief(),
                seen.version
            ));
        }
        if call.binding != Some(seen.binding) {
            wrong.push(format!(
                "{}: a {} request on the card's {} interface",
                call.brief(),
                call.binding.map_or("?", |b| b.title()),
                seen.binding.title()
            ));
        }
    }
    if !wrong.is_empty() {
        return broken(wrong.join("; "));
    }
    if operations.is_empty() {
        return seen.no_request("A2A request");
    }
    if !discouraged.is_empty() {
        // A SHOULD NOT inside a MUST check: WARN at the check's level, never FAIL.
        return Ok(Verdict::tolerate(
            "every request in the binding's form, its id neither null nor fractional",
            format!("the binding's form, but {}", discouraged.join("; ")),
            "JSON-RPC 2.0 and spec 0.3 §6.11.1 say ids SHOULD NOT be null or fractional: a \
             recommendation inside a MUST check",
        ));
    }
    kept(format!(
        "{} requests, each in the {} {} binding's form",
        operations.len(),
        seen.binding.title(),
        seen.version
    ))
}

pub(crate) fn version_header(seen: &Observed) -> Judged {
    let operations: Vec<&Call> = seen.operations().collect();
    if operations.is_empty() {
        return seen.no_request("A2A request");
    }
    let wrong: Vec<String> = (operations.iter())
        .filter_map(|call| match call.version_value() {
            Some(v) if ProtocolVersion::from_declared(&v) == Some(ProtocolVersion::V1_0) => None,
            Some(v) => Some(format!("{} carried A2A-Version {v:?}", call.brief())),
            None => Some(format!("{} carried no A2A-Version", call.brief())),
        })
        .collect();
    kept_unless(wrong, || {
        format!("all {} requests carried A2A-Version: 1.0", operations.len())
    })
}

pub(crate) fn message_valid(seen: &Observed) -> Judged {
    let sends: Vec<&Call> = seen.sends().collect();
    if sends.is_empty() {
        return seen.no_request("SendMessage request");
    }
    let mut problems = Vec::new();
    let mut ids: Vec<String> = Vec::new();
    for call in &sends {
        let Some(message) = call.message() else {
            problems.push(format!("{} carries no message", call.brief()));
            continue;
        };
        match message["messageId"].as_str().filter(|id| !id.is_empty()) {
            Some(id) if ids.iter().any(|seen| seen == id) => {
                problems.push(format!("the messageId {id:?} is used twice"));
            }
            Some(id) => ids.push(id.to_owned()),
            None => problems.push(format!("{}: the message has no messageId", call.brief())),
        }
        if role(message).as_deref() != Some("user") {
            problems.push(format!(
                "{}: the message's role is {}, not user",
                call.brief(),
                message
                    .get("role")
                    .map_or("absent".into(), Value::to_string)
            ));
        }
        // The 0.3 proto names the parts `content`.
        let parts = message.get("parts").or_else(|| message.get("content"));
        if parts.and_then(Value::as_array).is_none_or(Vec::is_empty) {
            problems.push(format!("{}: the message has no parts", call.brief()));
        }
    }
    kept_unless(problems, || {
        format!(
            "{} messages, each with its own messageId, the user role and parts",
            sends.len()
        )
    })
}

/// Compares a task line with the task the agent holds; `None` when they agree.
pub(super) fn task_line_problem(
    line: &Value,
    truth: &Truth,
    expect_state: Option<&str>,
) -> Option<String> {
    if let Some(error) = error_of(line) {
        if line["result"].as_str() != Some("task") {
            return Some(format!(
                "the client gave an error where the agent served a task ({error})"
            ));
        }
    }
    if line["result"].as_str() != Some("task") {
        return Some(format!(
            "the client gave {}, not a task",
            short(&line.to_string(), 200)
        ));
    }
    let Some(id) = line["task_id"].as_str() else {
        return Some("the client gave a task without its id".into());
    };
    let Some(task) = truth.task(id) else {
        return Some(format!(
            "the client gave the task id {id:?}, which the agent never made"
        ));
    };
    if let Some(context) = line["context_id"].as_str() {
        if task["contextId"].as_str() != Some(context) {
            return Some(format!(
                "the client gave the contextId {context:?}, the agent's task has {}",
                task["contextId"]
            ));
        }
    }
    let read = state_name(&line["state"]);
    let served = expect_state
        .map(str::to_owned)
        .or_else(|| state_name(&task["status"]["state"]));
    if read != served {
        return Some(format!(
            "the client gave the state {}, the agent served {}",
            line["state"],
            served.unwrap_or_default()
        ));
    }
    artifacts_differ(line, task, texts, "built")
}

/// The line of step `i` for a judge that judges steps one by one: the line, or what to do
/// with the step (a broken rule is a problem of the step; N/A and UNTESTABLE leave it unjudged,
/// with the reason; ERROR ends the judging).
enum StepLine<'v> {
    Line(&'v Value),
    Problem(String),
    Unjudged(String, bool),
    Error(HarnessError),
}

fn step_line_of<'v>(seen: &'v Observed, i: usize) -> StepLine<'v> {
    match seen.line(i) {
        Ok(line) => StepLine::Line(line),
        Err(Ok(Verdict::NotApplicable { reason })) => StepLine::Unjudged(reason, true),
        Err(Ok(verdict @ Verdict::Violated { .. })) => {
            StepLine::Problem(format!("step {}: {}", i + 1, verdict.message()))
        }
        Err(Ok(verdict)) => StepLine::Unjudged(verdict.message(), false),
        Err(Err(HarnessError::Prerequisite(why))) => StepLine::Unjudged(why, false),
        Err(Err(error)) => StepLine::Error(error),
    }
}

/// What a judge of steps one by one found in none: N/A when no step was asked, else
/// UNTESTABLE, with every reason.
fn nothing_judged(what: &str, unjudged: &[String], not_asked: bool, seen: &Observed) -> Judged {
    let reasons = if unjudged.is_empty() {
        String::new()
    } else {
        format!(": {}", unjudged.join("; "))
    };
    if not_asked {
        not_applicable(format!("{what}{reasons}"))
    } else {
        untestable(format!("{what}{reasons}{}", seen.said()))
    }
}

/// The text of a message, in either version's form (0.3 gRPC names the parts `content`).
fn message_text(message: &Value) -> String {
    let parts = message.get("parts").or_else(|| message.get("content"));
    (parts.and_then(Value::as_array).into_iter().flatten())
        .filter_map(|p| p["text"].as_str())
        .collect()
}

/// Compares a task line with the task the agent served in the exchange; `None` when they agree.
fn served_task_problem(line: &Value, task: &Value) -> Option<String> {
    if let Some(error) = error_of(line) {
        if line["result"].as_str() != Some("task") {
            return Some(format!(
                "the agent answered with a task; the client gave an error ({error})"
            ));
        }
    }
    if line["result"].as_str() != Some("task") {
        return Some(format!(
            "the agent answered with a task; the client gave {}",
            short(&line.to_string(), 200)
        ));
    }
    let served_id = task["id"].as_str().unwrap_or("");
    match line["task_id"].as_str() {
        Some(id) if id == served_id => {}
        Some(id) => {
            return Some(format!(
                "the client gave the task id {id:?}, the agent answered {served_id:?}"
            ))
        }
        None => return Some("the client gave a task without its id".into()),
    }
    if let Some(context) = line["context_id"].as_str() {
        if task["contextId"].as_str() != Some(context) {
            return Some(format!(
                "the client gave the contextId {context:?}, the agent answered {}",
                task["contextId"]
            ));
        }
    }
    let read = state_name(&line["state"]);
    let served = state_name(&task["status"]["state"]);
    if read != served {
        return Some(format!(
            "the client gave the state {}, the agent answered {}",
            line["state"],
            served.unwrap_or_default()
        ));
    }
    artifacts_differ(line, task, message_text, "answered")
}

/// Where the artifacts the client gives (`line`) differ from those of the agent's `task`, each
/// served artifact's text read by `text_of`; `verb` says what the agent did with them.
fn artifacts_differ(
    line: &Value,
    task: &Value,
    text_of: fn(&Value) -> String,
    verb: &str,
) -> Option<String> {
    let artifacts = line["artifacts"].as_array()?;
    for served in task["artifacts"].as_array().into_iter().flatten() {
        let text = text_of(served);
        let held = (artifacts.iter()).find(|a| a["artifact_id"] == served["artifactId"]);
        match held {
            Some(held) if held["text"].as_str().unwrap_or("") == text => {}
            Some(held) => {
                return Some(format!(
                    "the artifact {} reads {}, the agent {verb} {text:?}",
                    served["artifactId"], held["text"]
                ))
            }
            None => {
                return Some(format!(
                    "the client holds no artifact {} (the agent {verb} {text:?})",
                    served["artifactId"]
                ))
            }
        }
    }
    None
}

/// What a judge of steps one by one keeps beside what it judged: the problems found, the steps
/// left unjudged and why, and whether each of those was a step the client was not asked.
struct Tally {
    problems: Vec<String>,
    unjudged: Vec<String>,
    every_unasked: bool,
    some_unasked: bool,
}

impl Tally {
    fn new() -> Tally {
        Tally {
            problems: Vec::new(),
            unjudged: Vec::new(),
            every_unasked: true,
            some_unasked: false,
        }
    }

    /// N/A rather than UNTESTABLE: every step left unjudged was one the client was not asked
    /// (a step answered without what the check reads leaves it nothing, but no reason to call
    /// it untestable).
    fn all_unasked(&self) -> bool {
        self.every_unasked && self.some_unasked
    }
}

/// The steps of `ops` with their line and the request recorded for them; the others go into
/// `tally` (a problem of the line, or unjudged with why: `no_request` ends the reason of a step
/// the client made no request for).
fn steps_with_calls<'s>(
    seen: &'s Observed,
    ops: &[&str],
    tally: &mut Tally,
    no_request: &str,
) -> Result<Vec<(usize, &'s Value, &'s Call)>, HarnessError> {
    let mut steps = Vec::new();
    for (i, step) in seen.play.steps.iter().enumerate() {
        let op = step["op"].as_str().unwrap_or("");
        if !ops.contains(&op) {
            continue;
        }
        let line = match step_line_of(seen, i) {
            StepLine::Line(line) => line,
            StepLine::Problem(why) => {
                tally.problems.push(why);
                continue;
            }
            StepLine::Unjudged(why, not_asked) => {
                tally.every_unasked &= not_asked;
                tally.some_unasked |= not_asked;
                tally.unjudged.push(why);
                continue;
            }
            StepLine::Error(error) => return Err(error),
        };
        match seen.call_of_step(i) {
            Some(call) => steps.push((i, line, call)),
            None => {
                tally.every_unasked = false;
                tally.unjudged.push(format!(
                    "step {} ({op}): the client made no request for it{no_request}",
                    i + 1
                ));
            }
        }
    }
    Ok(steps)
}

pub(crate) fn read_results(seen: &Observed) -> Judged {
    let mut tally = Tally::new();
    let mut judged = 0;
    let steps = steps_with_calls(
        seen,
        &["send", "get"],
        &mut tally,
        ", so what it gave is not judged",
    )?;
    let Tally {
        problems,
        unjudged,
        every_unasked,
        ..
    } = &mut tally;
    for (i, line, call) in steps {
        let answered = call.answered();
        match (&answered, answered.payload()) {
            (Answered::Nothing(why) | Answered::Unreadable(why), _) => {
                *every_unasked = false;
                unjudged.push(format!("step {} ({}): {why}", i + 1, call.brief()));
            }
            (Answered::Error(e), _) => {
                judged += 1;
                if error_of(line).is_none() {
                    problems.push(format!(
                        "step {} ({}): the agent answered the error {} ({e}); the client gave {}",
                        i + 1,
                        call.brief(),
                        kind_of(e).unwrap_or_else(|| "of the binding".into()),
                        short(&line.to_string(), 200)
                    ));
                }
            }
            (_, Some(("message", message))) => {
                judged += 1;
                let text = message_text(message);
                if line["result"].as_str() != Some("message") {
                    problems.push(format!(
                        "step {} ({}): the agent answered with a message; the client gave {}",
                        i + 1,
                        call.brief(),
                        short(&line.to_string(), 200)
                    ));
                } else if line["text"].as_str() != Some(text.as_str()) {
                    problems.push(format!(
                        "step {}: the client read the agent's message as {}, the agent sent {text:?}",
                        i + 1,
                        line["text"]
                    ));
                }
            }
            // A stream's task is the task as its events left it: the agent's, at the end.
            (Answered::Stream(_), Some(_)) => {
                judged += 1;
                if let Some(problem) = task_line_problem(line, seen.truth, None) {
                    problems.push(format!("step {} ({}): {problem}", i + 1, call.brief()));
                }
            }
            (_, Some((_, task))) => {
                judged += 1;
                if let Some(problem) = served_task_problem(line, task) {
                    problems.push(format!("step {} ({}): {problem}", i + 1, call.brief()));
                }
            }
            (_, None) => {
                *every_unasked = false;
                unjudged.push(format!(
                    "step {} ({}): the agent's answer holds neither a task nor a message",
                    i + 1,
                    call.brief()
                ));
            }
        }
    }
    if !problems.is_empty() {
        return broken(problems.join("; "));
    }
    if judged == 0 {
        return nothing_judged(
            "no request of the play was answered for the client to read",
            &tally.unjudged,
            tally.all_unasked(),
            seen,
        );
    }
    let unjudged = &tally.unjudged;
    kept(format!(
        "{judged} answers (tasks: id, contextId, state, artifacts; messages: text; errors) read as \
         the agent answered them{}",
        if unjudged.is_empty() { String::new() } else { format!("; not judged: {}", unjudged.join("; ")) }
    ))
}

pub(crate) fn read_errors(seen: &Observed) -> Judged {
    let unspecified = seen.version == ProtocolVersion::V0_3 && seen.binding != Binding::Jsonrpc;
    let mut notes: Vec<String> = Vec::new();
    let mut tally = Tally::new();
    let mut judged = 0;
    let steps = steps_with_calls(seen, &["send", "get", "cancel"], &mut tally, "")?;
    let Tally {
        problems,
        unjudged,
        every_unasked,
        ..
    } = &mut tally;
    for (i, line, call) in steps {
        let error = match call.answered() {
            Answered::Error(error) => error,
            Answered::Nothing(why) | Answered::Unreadable(why) => {
                *every_unasked = false;
                unjudged.push(format!("step {} ({}): {why}", i + 1, call.brief()));
                continue;
            }
            // The agent answered no error: nothing for this check.
            Answered::Result(_) | Answered::Stream(_) => continue,
        };
        judged += 1;
        let served = kind_of(&error);
        let said = served
            .clone()
            .unwrap_or_else(|| format!("an error ({error})"));
        match (line["error"]["kind"].as_str(), served.as_deref()) {
            (Some(kind), Some(served)) if kind == served => {}
            (Some(kind), _) if unspecified => {
                notes.push(format!("step {}: {kind} for {said}", i + 1));
            }
            (Some(kind), None) => notes.push(format!("step {}: {kind} for {said}", i + 1)),
            (Some(kind), Some(_)) => problems.push(format!(
                "step {} ({}): the agent answered {said}; the client gave {kind} ({})",
                i + 1,
                call.brief(),
                short(line["error"]["message"].as_str().unwrap_or(""), 200)
            )),
            (None, _) => problems.push(format!(
                "step {} ({}): the agent answered {said}; the client gave no error: {}",
                i + 1,
                call.brief(),
                short(&line.to_string(), 200)
            )),
        }
    }
    if !problems.is_empty() {
        return broken(problems.join("; "));
    }
    if judged == 0 {
        return nothing_judged(
            "the agent answered no request of the play with an error",
            &tally.unjudged,
            tally.all_unasked(),
            seen,
        );
    }
    let unjudged = &tally.unjudged;
    let unjudged = if unjudged.is_empty() {
        String::new()
    } else {
        format!("; not judged: {}", unjudged.join("; "))
    };
    kept(if notes.is_empty() {
        format!("{judged} errors read as the agent answered them{unjudged}")
    } else if unspecified {
        format!(
            "the errors were read as errors; 0.3 defines A2A error codes for JSON-RPC only, so \
             on {} 0.3 the kinds are not judged ({}){unjudged}",
            seen.binding.title(),
            notes.join("; ")
        )
    } else {
        format!(
            "the errors were read as errors; the kit could not tell the kind of some from their \
             form ({}){unjudged}",
            notes.join("; ")
        )
    })
}

pub(crate) fn follow_up(seen: &Observed) -> Judged {
    let sends: Vec<&Call> = seen.sends().collect();
    if sends.len() < 2 {
        return seen.no_request("follow-up (a second SendMessage)");
    }
    let Some(first) = sends[0].message() else {
        return broken(format!("{} carries no message", sends[0].brief()));
    };
    // The task the first message made: the agent's task whose history holds it, else its only one.
    let first_id = first["messageId"].as_str().unwrap_or("");
    let made = (seen.truth.tasks.iter())
        .find(|t| {
            (t["history"].as_array().into_iter().flatten())
                .any(|m| m["messageId"].as_str() == Some(first_id))
        })
        .or_else(|| (seen.truth.tasks.len() == 1).then(|| &seen.truth.tasks[0]));
    let Some(task) = made else {
        return untestable(format!(
            "the kit could not find the task the first message made among the agent's {} tasks",
            seen.truth.tasks.len()
        ));
    };
    let state = state_name(&task["status"]["state"]);
    let task_id = task["id"].as_str().unwrap_or("");
    let Some(second) = sends[1].message() else {
        return broken(format!("{} carries no message", sends[1].brief()));
    };
    match second["taskId"].as_str() {
        Some(id) if id == task_id => {}
        Some(id) => {
            return broken(format!(
                "the follow-up names the task {id:?}; the task asking for input is {task_id:?}"
            ))
        }
        None => {
            return broken(format!(
                "the follow-up carries no taskId, so it starts a new task instead of answering \
                 {task_id:?}, which asked for input"
            ))
        }
    }
    if let Some(context) = second["contextId"].as_str() {
        if task["contextId"].as_str() != Some(context) {
            return broken(format!(
                "the follow-up names the context {context:?}; the task's is {}",
                task["contextId"]
            ));
        }
    }
    let line = step_line!(seen, 1);
    if state.as_deref() != Some("completed") {
        return untestable(format!(
            "the task did not complete after the follow-up (it is {})",
            state.unwrap_or_default()
        ));
    }
    if let Some(problem) = task_line_problem(line, seen.truth, Some("completed")) {
        return broken(format!("the follow-up was right, but {problem}"));
    }
    kept("the follow-up answered the task on its taskId, and its completion was read".into())
}

pub(crate) fn stream_read(seen: &Observed) -> Judged {
    if seen.of_op("SendStreamingMessage").next().is_none() {
        return seen.no_request("SendStreamingMessage request");
    }
    let line = step_line!(seen, 0);
    match task_line_problem(line, seen.truth, None) {
        None => kept("the stream was read to the task's final state and artifacts".into()),
        Some(problem) => broken(problem),
    }
}

pub(crate) fn streaming_off(seen: &Observed) -> Judged {
    if let Some(call) = seen.of_op("SendStreamingMessage").next() {
        return broken(format!(
            "the card says streaming: false, and the client called SendStreamingMessage ({})",
            call.brief()
        ));
    }
    if seen.of_op("SendMessage").next().is_none() {
        return seen.no_request("SendMessage request");
    }
    kept("the card says streaming: false; the client called SendMessage".into())
}

pub(crate) fn resubscribe(seen: &Observed) -> Judged {
    let cut =
        (seen.calls.iter()).find(|c| c.op == Some("SendStreamingMessage") && c.seen.served().cut);
    let Some(cut) = cut else {
        return match seen.of_op("SendStreamingMessage").next() {
            Some(_) => untestable(
                "the stream ended before the stage could cut it after its first event".into(),
            ),
            None => seen.no_request("SendStreamingMessage request"),
        };
    };
    let Some(task) = seen.truth.tasks.first() else {
        return untestable("the agent made no task".into());
    };
    let task_id = task["id"].as_str().unwrap_or("");
    let after: Vec<&Call> = (seen.operations())
        .filter(|c| c.seen.at_ms >= cut.seen.at_ms && !std::ptr::eq(*c, cut))
        .collect();
    let Some(subscribe) = after.iter().find(|c| c.op == Some("SubscribeToTask")) else {
        let sent: Vec<String> = after.iter().map(|c| c.brief()).collect();
        return broken(format!(
            "after the stage cut the stream, the client did not subscribe to the task again \
             (it sent: {})",
            if sent.is_empty() {
                "nothing".into()
            } else {
                sent.join(", ")
            }
        ));
    };
    if subscribe.task_id().as_deref() != Some(task_id) {
        return broken(format!(
            "the client subscribed to {:?}, not to the task of the cut stream {task_id:?}",
            subscribe.task_id()
        ));
    }
    let line = step_line!(seen, 1);
    if line["error"]["kind"].as_str() == Some("UnsupportedOperation") {
        // The agent ends the task by itself a moment after the first event; a client slower
        // than that subscribes to a finished task, which 1.0 refuses.
        return untestable(format!(
            "the client subscribed to the task again, but only after it had ended, and the \
             agent refused the subscription ({})",
            error_of(line).unwrap_or_default()
        ));
    }
    match task_line_problem(line, seen.truth, None) {
        None => kept("the client subscribed to the task again and read it to completion".into()),
        Some(problem) => broken(format!("the client subscribed again, but {problem}")),
    }
}

pub(crate) fn chunks(seen: &Observed) -> Judged {
    if seen.of_op("SendStreamingMessage").next().is_none() {
        return seen.no_request("SendStreamingMessage request");
    }
    let line = step_line!(seen, 0);
    if line["artifacts"].as_array().is_none() {
        return broken(format!(
            "the client gave no artifacts: {}",
            short(&line.to_string(), 200)
        ));
    }
    match task_line_problem(line, seen.truth, None) {
        None => kept("the chunks were put together into the artifact as built".into()),
        Some(problem) => broken(problem),
    }
}

pub(crate) fn first_supported(seen: &Observed) -> Judged {
    let Some(first) = seen.operations().next() else {
        return seen.no_request("A2A request");
    };
    // V03-5.6.3-05 and V10-8.3.2-01 (3): the URL the card gives, a MUST in both versions.
    let off: Vec<String> = seen
        .operations()
        .filter_map(|c| c.off_url.clone())
        .collect();
    if !off.is_empty() {
        return broken(format!(
            "the client sent to a URL the card does not give ({}), where 0.3 §5.6.3 and 1.0 \
             §8.3.2 ask for the URL the card declares for the interface",
            off.join("; ")
        ));
    }
    match first.door() {
        Door::Main => kept("the client used the first interface the card lists".into()),
        // 0.3 §5.6.3 rule 2 (V03-5.6.3-02): a SHOULD.
        Door::Alt if seen.version == ProtocolVersion::V0_3 => Ok(Verdict::tolerate(
            "the main url, which the 0.3 card lists first",
            format!(
                "the 0.3 card names two {} interfaces, the main url first; the client used the \
                 second ({})",
                seen.binding.title(),
                first.brief()
            ),
            "0.3 §5.6.3 rule 2 (V03-5.6.3-02) says a client that supports the preferredTransport \
             SHOULD use the main url: a recommendation inside a MUST check",
        )),
        Door::Alt => broken(format!(
            "the card lists two {} 1.0 interfaces; the client used the second ({}), where \
             §8.3.2 (V10-8.3.2-01) has it select the first supported and prefer earlier entries \
             (§5.2's choice of any protocol leaves none between two interfaces of one binding)",
            seen.binding.title(),
            first.brief()
        )),
        Door::Dead => kit_error("the dead interface is not in this play's card".into()),
    }
}

/// The binding of the card's first interface (1.0: `supportedInterfaces`; 0.3: the main
/// url's `preferredTransport`).
fn first_binding(card: &Value) -> Option<Binding> {
    let named = (card["supportedInterfaces"].get(0))
        .and_then(|i| i["protocolBinding"].as_str())
        .or_else(|| card["preferredTransport"].as_str())?;
    Binding::from_card(named)
}

pub(crate) fn fallback(seen: &Observed) -> Judged {
    if first_binding(seen.card) == Some(seen.binding) {
        return not_applicable(format!(
            "the client declares one binding ({}): the sentences on fallback (1.0 §5.2, 0.3 \
             §3.4.2 and §5.6.3) ask a client to try alternative protocols, and a second \
             interface of the binding it failed on is none",
            seen.binding.title()
        ));
    }
    let dead = seen.calls.iter().any(|c| c.door() == Door::Dead);
    let reached = seen.operations().any(|c| c.door() == Door::Main);
    match (dead, reached) {
        (true, true) => kept("after the first interface failed, the client used the second".into()),
        (true, false) => broken(format!(
            "the first interface ({}) answered 503 (gRPC UNAVAILABLE) and the client did not \
             try the second one the card declares ({}){}",
            first_binding(seen.card).map_or("?", |b| b.title()),
            seen.binding.title(),
            seen.said()
        )),
        (false, true) => untestable(
            "the client went to the second interface without trying the first, so no fallback \
             was needed (client.interface.first-supported judges the choice)"
                .into(),
        ),
        (false, false) => seen.no_request("request to either interface"),
    }
}

pub(crate) fn tenant(seen: &Observed) -> Judged {
    let expected = seen.play.card.tenant.as_deref().unwrap_or("");
    let operations: Vec<&Call> = seen.operations().collect();
    if operations.is_empty() {
        return seen.no_request("A2A request");
    }
    let wrong: Vec<String> = (operations.iter())
        .filter(|c| c.tenant() != Some(expected))
        .map(|c| format!("{} carried the tenant {:?}", c.brief(), c.tenant()))
        .collect();
    if wrong.is_empty() {
        kept(format!("every request carried the tenant {expected:?}"))
    } else {
        broken(format!(
            "the interface's tenant is {expected:?}: {}",
            wrong.join("; ")
        ))
    }
}

pub(crate) fn extended_authenticated(seen: &Observed) -> Judged {
    let asks: Vec<&Call> = seen.of_op("GetExtendedAgentCard").collect();
    if asks.is_empty() {
        return seen.no_request("GetExtendedAgentCard request");
    }
    let token = seen.truth.bearer.as_deref().unwrap_or("");
    let expected = format!("bearer {token}");
    let bare: Vec<String> = (asks.iter())
        .filter(|c| {
            !c.seen
                .headers_named("authorization")
                .iter()
                .any(|v| v.trim().eq_ignore_ascii_case(&expected))
        })
        .map(|c| c.brief())
        .collect();
    if bare.is_empty() {
        kept(
            "the extended card was asked for with the bearer token the card's scheme asks for"
                .into(),
        )
    } else {
        broken(format!(
            "the card declares a bearer scheme; the client asked for the extended card without \
             its token: {}",
            bare.join("; ")
        ))
    }
}

pub(crate) fn extended_used(seen: &Observed) -> Judged {
    let line = step_line!(seen, 1);
    let asks: Vec<&Call> = seen.of_op("GetExtendedAgentCard").collect();
    let Some(ask) = asks
        .iter()
        .rev()
        .find(|c| c.door() != Door::Dead)
        .or(asks.last())
    else {
        return seen.no_request("GetExtendedAgentCard request");
    };
    // What the agent answered the request the client made for it.
    let served = match ask.answered() {
        Answered::Result(card) => card,
        Answered::Error(e) => {
            return match error_of(line) {
                Some(_) => untestable(format!(
                    "the agent answered the client's request for the extended card with an \
                     error ({e}), which the client reported: no extended card to judge"
                )),
                None => broken(format!(
                    "the agent answered the request for the extended card with an error ({e}); \
                     the client gave a card: {}",
                    short(&line.to_string(), 200)
                )),
            };
        }
        Answered::Nothing(why) | Answered::Unreadable(why) => {
            return untestable(format!("{}: {why}", ask.brief()));
        }
        Answered::Stream(_) => {
            return untestable(format!("{}: the agent answered no card", ask.brief()))
        }
    };
    if let Some(error) = error_of(line) {
        return broken(format!(
            "the agent served its extended card ({}); the client gave no extended card ({error})",
            ask.brief()
        ));
    }
    let read: Vec<String> = (line["skills"].as_array().into_iter().flatten())
        .filter_map(|s| s.as_str().map(str::to_owned))
        .collect();
    let served = skill_ids(&served);
    if read == served {
        kept(format!(
            "the client gave the extended card the agent served (skills {served:?})"
        ))
    } else {
        broken(format!(
            "the client gave a card with the skills {read:?}; the extended card the agent served \
             has {served:?}{}",
            if read == skill_ids(seen.card) {
                " (the public card's)"
            } else {
                ""
            }
        ))
    }
}

pub(crate) fn extensions(seen: &Observed) -> Judged {
    let uri = a2a_reference_agent::extensions::REQUIRED_EXTENSION;
    let operations: Vec<&Call> = seen.operations().collect();
    if operations.is_empty() {
        return seen.no_request("A2A request");
    }
    let without: Vec<String> = (operations.iter())
        .filter(|c| {
            !(c.seen.headers_named("a2a-extensions").iter())
                .flat_map(|v| v.split(','))
                .any(|u| u.trim() == uri)
        })
        .map(|c| c.brief())
        .collect();
    if without.is_empty() {
        kept(format!("every request named {uri} in A2A-Extensions"))
    } else {
        broken(format!(
            "the card marks {uri} required; these requests did not name it in A2A-Extensions: {}",
            without.join("; ")
        ))
    }
}

/// The first string under `key` anywhere in `value`.
fn find_text<'v>(value: &'v Value, key: &str) -> Option<&'v str> {
    match value {
        Value::Object(map) => map
            .get(key)
            .and_then(Value::as_str)
            .or_else(|| map.values().find_map(|v| find_text(v, key))),
        Value::Array(items) => items.iter().find_map(|v| find_text(v, key)),
        _ => None,
    }
}

pub(crate) fn push(seen: &Observed) -> Judged {
    let creates: Vec<&Call> = seen.of_op("CreateTaskPushNotificationConfig").collect();
    if creates.is_empty() {
        return seen.no_request("CreateTaskPushNotificationConfig request");
    }
    let Some(task) = seen.truth.tasks.first() else {
        return untestable("the agent made no task".into());
    };
    let task_id = task["id"].as_str().unwrap_or("");
    let wanted: Vec<(&str, &str)> = (seen.play.steps.iter())
        .filter(|s| s["op"] == "push")
        .map(|s| {
            (
                s["url"].as_str().unwrap_or(""),
                s["token"].as_str().unwrap_or(""),
            )
        })
        .collect();
    let mut problems = Vec::new();
    for (url, token) in &wanted {
        let found = creates
            .iter()
            .find(|c| find_text(&c.params, "token") == Some(*token));
        match found {
            None => problems.push(format!("no push config carried the token {token:?}")),
            Some(call) => {
                if call.task_id().as_deref() != Some(task_id) {
                    problems.push(format!(
                        "the config with token {token:?} names the task {:?}, not {task_id:?}",
                        call.task_id()
                    ));
                }
                if find_text(&call.params, "url") != Some(*url) {
                    problems.push(format!(
                        "the config with token {token:?} carries the url {:?}, not {url:?}",
                        find_text(&call.params, "url")
                    ));
                }
            }
        }
    }
    kept_unless(problems, || {
        format!(
            "{} push configs, each with the task's id, the URL and its own token",
            wanted.len()
        )
    })
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn states_are_read_in_both_spellings() {
        assert_eq!(
            state_name(&"TASK_STATE_INPUT_REQUIRED".into()).as_deref(),
            Some("input-required")
        );
        assert_eq!(
            state_name(&"completed".into()).as_deref(),
            Some("completed")
        );
    }
}

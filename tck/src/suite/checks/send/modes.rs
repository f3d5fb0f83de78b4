//! SendMessage configuration checks (`send.*`): the non-blocking execution mode (spec 1.0
//! §3.2.2) and the output modes a client accepts (proto `SendMessageConfiguration`).

use crate::suite::check::Needs;
use serde_json::{json, Value};

use crate::facts::a2a::{self, TERMINAL_STATES};
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::checks::setup::{mode_admits, output_modes, sent_task, task_id, Findings};
use crate::suite::checks::EVERY_BINDING_1_0;
use crate::suite::ctx::{Answer, Ctx};

/// This module's checks.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "send.non-blocking-returns-open-task",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.2.2", statements: &["V10-3.2.2-03"] },
            requirement: "A non-blocking SendMessage (returnImmediately true) answers right after creating the task, while it is still open",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-EXECUTION-MODE-002"],
            acts: &["CORE-EXEC-001", "CORE-EXEC-002"],
            reading: Some(
                "Sent with the kit's `tck-long-running` scenario, run only when the contract \
                 probe showed the agent holds it WORKING until a follow-up: its task cannot end \
                 on its own, so a terminal task in the answer means the call waited for an end \
                 (FAIL). SUBMITTED or WORKING passes. A Message answer is allowed (§3.2.2: the \
                 flag does not affect Message responses) and an interrupted state is not the \
                 scenario's: both leave nothing to judge (UNTESTABLE). 0.3 states no rule for \
                 `blocking: false` (V03-T-08 is descriptive), so 1.0 interfaces only.",
            ),
            needs: Needs::NONE.sends(&["tck-long-running"]).weighs(2),
            run: |ctx| Box::pin(non_blocking_open(ctx)),
        },
        Check {
            id: "send.accepted-output-modes-honoured",
            level: Level::Should,
            spec: SpecRef {
                version: "1.0",
                section: "proto SendMessageConfiguration.accepted_output_modes",
                statements: &["V10-P-01"],
            },
            requirement: "With acceptedOutputModes [\"text/plain\"], every part of the reply and of the task's artifacts is text",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Sent with `tck-artifact-text`, a scenario that answers in text. A text part, or \
                 a file part of media type text/plain, counts as text; a data part or a file of \
                 another type does not (WARN). N/A when the card's output modes \
                 (defaultOutputModes, skills' outputModes) admit no text/plain: the agent has \
                 nothing to tailor. An error answer (e.g. ContentTypeNotSupportedError) leaves \
                 nothing to judge (UNTESTABLE).",
            ),
            needs: Needs::NONE.sends(&["tck-artifact-text"]).weighs(2),
            run: |ctx| Box::pin(output_modes_honoured(ctx)),
        },
    ]
}

async fn non_blocking_open(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Some(why) = ctx.scenarios().refusal("tck-long-running") {
        return Err(HarnessError::Prerequisite(why));
    }
    let message = ctx.user_message("tck-long-running");
    let answer = ctx
        .send_message(message, Some(json!({ "returnImmediately": true })))
        .await?;
    let expected = "a task in TASK_STATE_SUBMITTED or TASK_STATE_WORKING (the scenario is held \
                    WORKING until a follow-up)";
    let task = match &answer {
        Answer::Error(_) => return Ok(Verdict::fail(expected, answer.describe())),
        Answer::Result(result) => match (result.get("task"), result.get("message")) {
            (Some(task), _) => task.clone(),
            (None, Some(_)) => {
                return Err(HarnessError::Prerequisite(
                    "the agent answered the non-blocking request with a Message, which \
                     §3.2.2 allows (the flag has no effect on Message responses)"
                        .into(),
                ))
            }
            (None, None) => return Ok(Verdict::fail(expected, answer.describe())),
        },
    };
    let state = a2a::state(&task).map(str::to_string);
    if a2a::text(&task, "id").is_some()
        && !state
            .as_deref()
            .is_some_and(|s| TERMINAL_STATES.contains(&s))
    {
        // Leave nothing open behind.
        let _ = ctx.cancel_task(&task_id(&task)).await;
    }
    Ok(match state.as_deref() {
        Some("TASK_STATE_SUBMITTED" | "TASK_STATE_WORKING") => Verdict::pass(),
        Some(s) if TERMINAL_STATES.contains(&s) => Verdict::fail(
            expected,
            format!(
                "the answer holds the task already in {s}: the call waited for the task to end"
            ),
        ),
        Some(s) => {
            return Err(HarnessError::Prerequisite(format!(
                "the non-blocking answer holds the task in {s}, not a state of the \
                 `tck-long-running` scenario"
            )))
        }
        None => Verdict::fail(
            expected,
            format!("a task without a state: {}", a2a::brief(&task, 200)),
        ),
    })
}

/// Whether a part is text: a `text` part, or a file (or data) part of media type text/plain.
fn is_text(part: &Value) -> bool {
    if part.get("text").is_some() {
        return true;
    }
    part.get("mediaType")
        .and_then(Value::as_str)
        .is_some_and(|m| {
            m.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .eq_ignore_ascii_case("text/plain")
        })
}

/// The parts of a task (status message and artifacts) or of a message that are not text.
fn non_text_parts(value: &Value, label: &str, findings: &mut Findings) -> usize {
    let mut seen = 0;
    let mut judge_parts = |holder: &Value, place: String| {
        for (i, part) in a2a::items(holder, "parts").enumerate() {
            seen += 1;
            if !is_text(part) {
                findings.problem(format!(
                    "{label} {place}parts[{i}]: {}",
                    a2a::brief(part, 120)
                ));
            }
        }
    };
    judge_parts(value, String::new());
    if let Some(message) = value.get("status").and_then(|s| s.get("message")) {
        judge_parts(message, "status.message.".into());
    }
    for (i, artifact) in a2a::items(value, "artifacts").enumerate() {
        judge_parts(artifact, format!("artifacts[{i}]."));
    }
    seen
}

async fn output_modes_honoured(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let modes: Vec<String> = (output_modes(&ctx.card.json).into_iter())
        .flat_map(|(_, modes)| modes)
        .collect();
    // A card that declares no output modes at all says nothing against text.
    if !modes.is_empty() && !modes.iter().any(|m| mode_admits(m, "text/plain")) {
        return Ok(Verdict::NotApplicable {
            reason: format!(
                "the card's output modes {modes:?} admit no text/plain: the agent has no text \
                 output to tailor to"
            ),
        });
    }
    let message = ctx.user_message("tck-artifact-text");
    let answer = ctx
        .send_message(
            message,
            Some(json!({ "acceptedOutputModes": ["text/plain"], "returnImmediately": false })),
        )
        .await?;
    let Answer::Result(result) = &answer else {
        return Err(HarnessError::Prerequisite(format!(
            "SendMessage with acceptedOutputModes [\"text/plain\"] was refused: {}",
            answer.describe()
        )));
    };
    let mut findings = Findings::default();
    let mut seen = 0;
    if let Some(reply) = result.get("message") {
        seen += non_text_parts(reply, "the reply Message", &mut findings);
    }
    if let Some(task) = sent_task(&answer) {
        seen += non_text_parts(task, "the reply Task", &mut findings);
        if a2a::text(task, "id").is_some() {
            let now = ctx.get_task(&task_id(task), None).await?;
            if let Some(stored) = now.result() {
                let artifacts =
                    json!({ "artifacts": stored.get("artifacts").cloned().unwrap_or(Value::Null) });
                seen += non_text_parts(&artifacts, "GetTask", &mut findings);
            }
        }
    }
    if seen == 0 {
        return Err(HarnessError::Prerequisite(format!(
            "the answer holds no parts to judge: {}",
            a2a::brief(result, 200)
        )));
    }
    Ok(findings.verdict(
        "only text parts (text, or media type text/plain) for acceptedOutputModes [\"text/plain\"]",
        Verdict::pass(),
    ))
}

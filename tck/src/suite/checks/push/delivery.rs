//! Push delivery checks (`push.*`, the webhook calls): what the agent POSTs to the kit's
//! webhook receiver when a task it has configs for changes (spec 1.0 §4.3, §13.2; 0.3
//! §9.5). No call at all before the deadline makes a check UNTESTABLE (the agent cannot
//! reach the kit, or never delivers); once calls arrive, a broken rule fails.

use crate::suite::check::Needs;

use crate::exchange::judge;
use crate::exchange::webhook::Delivery;
use crate::facts::a2a::{self, ErrorKind};
use crate::facts::model::ProtocolVersion;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::checks::push::PUSH;
use crate::suite::checks::setup::push::{self as ps, Hook, Note};
use crate::suite::checks::setup::{rank, task_id, Findings};
use crate::suite::checks::EVERY_BINDING_BOTH;
use crate::suite::ctx::Ctx;

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "push.inline-config-delivers",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.7", statements: &["V10-3.1.7-01", "V10-4.3.3-06", "V03-T-18"] },
            requirement: "A push config sent inline in SendMessage's configuration gets the task's notifications",
            scope: EVERY_BINDING_BOTH,
            requires: PUSH,
            maps_to: &[],
            acts: &[],
            reading: Some(
                "The inline config (SendMessageConfiguration.taskPushNotificationConfig in 1.0, \
                 pushNotificationConfig in 0.3) comes with a message that opens an input-required \
                 task; a second config made with Create on that task shows the agent reaches the \
                 kit. When the task completes, the inline config must have had the terminal \
                 notification too.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required", "tck-artifact-text"]).weighs(5),
            run: |ctx| Box::pin(inline_delivers(ctx)),
        },
        Check {
            id: "push.delivery-payload-shape",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.7", statements: &["V10-3.1.7-01", "V03-D-02"] },
            requirement: "Each webhook call carries the update in its version's form: a StreamResponse in 1.0, the Task in 0.3",
            scope: EVERY_BINDING_BOTH,
            requires: PUSH,
            maps_to: &["PUSH-DELIVER-003"],
            acts: &["PUSH-DELIV-003"],
            reading: Some(
                "1.0 (§4.3.3): the body is a StreamResponse (exactly one of task, message, \
                 statusUpdate, artifactUpdate) of the task. 0.3 leaves the payload open and its \
                 example posts the Task; a 1.0 StreamResponse is accepted on 0.3 too (SDKs that \
                 speak both send it). On 1.0 a bare event, or a body of another task, fails; \
                 on 0.3, where the form is open and identifying the task only recommended, \
                 they are a WARN.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required", "tck-artifact-text"]).weighs(4),
            run: |ctx| Box::pin(payload_shape(ctx)),
        },
        Check {
            id: "push.delivery-token",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.1.7", statements: &["V10-3.1.7-01", "V03-D-01"] },
            requirement: "Each webhook call carries the config's token",
            scope: EVERY_BINDING_BOTH,
            requires: PUSH,
            maps_to: &[],
            acts: &[],
            reading: Some(
                "0.3 says the agent SHOULD send the token, in X-A2A-Notification-Token; 1.0 keeps \
                 the token in the config without naming a header or asking that it travel. Any \
                 header carrying the token's value is accepted; a missing token WARNs on 0.3 \
                 interfaces and is N/A on 1.0 ones.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required", "tck-artifact-text"]).weighs(4),
            run: |ctx| Box::pin(token_sent(ctx)),
        },
        Check {
            id: "push.delivery-authentication",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "4.3.3", statements: &["V10-4.3.3-01", "V10-13.2-01", "V03-D-03"] },
            requirement: "Each webhook call carries the credentials of the config's authentication (Authorization: Bearer <credentials>)",
            scope: EVERY_BINDING_BOTH,
            requires: PUSH,
            maps_to: &["PUSH-DELIVER-001"],
            acts: &["PUSH-DELIV-001", "SEC-PUSH-001"],
            reading: Some(
                "The config asks for scheme Bearer with fresh credentials; every call must carry \
                 `Authorization: Bearer <credentials>` (the scheme compared case-insensitively, \
                 RFC 9110 §11.1).",
            ),
            needs: Needs::NONE.sends(&["tck-input-required", "tck-artifact-text"]).weighs(4),
            run: |ctx| Box::pin(authentication_sent(ctx)),
        },
        Check {
            id: "push.delivery-every-update-in-order",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "4.3.3", statements: &["V10-4.3.3-06", "V10-3.1.7-02"] },
            requirement: "The webhook gets the task's updates in order up to its terminal state: its artifacts before the terminal status, states never going back, nothing after the terminal state",
            scope: crate::suite::checks::EVERY_BINDING_1_0,
            requires: PUSH,
            maps_to: &["PUSH-DELIVER-002"],
            acts: &["PUSH-DELIV-002"],
            reading: Some(
                "An open task with a config is completed by a follow-up that adds an artifact. \
                 Each artifact of the final task must have been notified before the terminal \
                 state or with it (1.0: an artifactUpdate, or a Task that carries it; 0.3: a \
                 Task snapshot that already has it), states never move back, and only a \
                 repeated terminal notification or a Task in that state may follow it. An \
                 agent that makes the artifact and the terminal state in one step has one \
                 update and may send one call, the final Task with its artifact: that passes. A missing terminal \
                 state, an artifact notified only after it, or a state going back fails. \
                 Repeats are allowed: delivery is at least once (§4.3.3).",
            ),
            needs: Needs::NONE.sends(&["tck-input-required", "tck-artifact-text"]).weighs(5),
            run: |ctx| Box::pin(every_update_in_order(ctx)),
        },
        Check {
            id: "push.delivery-stops-after-delete",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.10", statements: &["V10-3.1.10-01", "V03-7.8-01"] },
            requirement: "A deleted config's webhook gets no more calls",
            scope: EVERY_BINDING_BOTH,
            requires: PUSH,
            maps_to: &[],
            acts: &[],
            reading: Some(
                "The kit never waits for an absence. On an open task with a config, a follow-up \
                 that keeps the task input-required brings the config a first call, and the task \
                 read back is still input-required; then the config is deleted, a second one is \
                 made on the task and the task is completed. Once the second has the terminal \
                 notification, the deleted one must have had no call telling of what happened \
                 after the delete: the terminal state, or an artifact the task did not have \
                 before it. Other calls to it (a late or repeated notification of an earlier \
                 state) are not judged: delivery is at least once (§4.3.3). When no call came \
                 within --stream-wait or the follow-up moved the task on, the config of a fresh \
                 open task is deleted before any call to it, and the result says so.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required", "tck-artifact-text"]).weighs(9),
            run: |ctx| Box::pin(super::after_delete::stops_after_delete(ctx)),
        },
    ]
}

async fn inline_delivers(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Some(why) = ctx.scenarios().refusal(ps::OPEN) {
        return Err(HarnessError::Prerequisite(why));
    }
    let inline = Hook::new(&ctx)?;
    let reply = ps::send_inline(&ctx, &inline).await?;
    if judge::is_error(&reply, ErrorKind::InvalidParams) {
        return Err(ps::refused(&reply, &inline.url));
    }
    let answer = reply.answer()?;
    if let crate::suite::ctx::Answer::Error(_) = answer {
        return Ok(Verdict::fail(
            "SendMessage with an inline push config is accepted",
            answer.describe(),
        ));
    }
    let task = match answer.result().and_then(|r| r.get("task")) {
        Some(task) if a2a::state(task) == Some("TASK_STATE_INPUT_REQUIRED") => task.clone(),
        _ => {
            return Err(HarnessError::Prerequisite(format!(
                "SendMessage (scenario `{}`) with an inline push config did not open an \
                 input-required task: {}",
                ps::OPEN,
                answer.describe()
            )))
        }
    };
    let sentinel = Hook::new(&ctx)?;
    ps::created(&ctx, &task_id(&task), &sentinel).await?;
    ps::finish(&ctx, &task).await?;
    ps::until_terminal(&ctx, &sentinel).await?;
    let got = ctx
        .webhook()?
        .wait_until(&inline.key, ctx.stream_wait(), |d| {
            d.iter().any(ps::is_terminal)
        })
        .await;
    Ok(if got.iter().any(ps::is_terminal) {
        Verdict::pass_with(ps::summary(&got))
    } else {
        Verdict::fail(
            "the inline config's webhook gets the terminal notification, as the created one did",
            format!("inline config: {}", ps::shown(&got)),
        )
    })
}

async fn payload_shape(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (task, _, got) = ps::delivered(&ctx).await?;
    let id = task_id(&task);
    let version = ctx.version();
    let mut findings = Findings::default();
    for (i, delivery) in got.iter().enumerate() {
        let note = ps::note(delivery);
        let label = format!("call {}", i + 1);
        match (note.kind, version) {
            (None, _) => findings.problem(format!(
                "{label}: neither a StreamResponse nor a Task: {}",
                delivery.brief()
            )),
            (Some(_), ProtocolVersion::V1_0) if note.bare_task => findings.problem(format!(
                "{label}: a bare Task (0.3's payload), not a StreamResponse: {}",
                delivery.brief()
            )),
            _ => {}
        }
        if note.kind.is_some()
            && note.kind != Some("message")
            && note.task_id.as_deref() != Some(id.as_str())
        {
            findings.problem(format!("{label}: for task {:?}, not {id}", note.task_id));
        }
    }
    let verdict = findings.verdict(
        ps::payload_rule(version),
        Verdict::pass_with(ps::summary(&got)),
    );
    Ok(match version {
        ProtocolVersion::V0_3 => verdict.only_recommended(
            "0.3 leaves the payload's form open and only recommends that it identify the task \
             and what changed (V03-D-02)",
        ),
        ProtocolVersion::V1_0 => verdict,
    })
}

fn every_call(got: &[Delivery], rule: impl Fn(&Delivery) -> Option<String>) -> Findings {
    let mut findings = Findings::default();
    for (i, delivery) in got.iter().enumerate() {
        if let Some(problem) = rule(delivery) {
            findings.problem(format!("call {}: {problem}", i + 1));
        }
    }
    findings
}

async fn token_sent(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (_, hook, got) = ps::delivered(&ctx).await?;
    let findings = every_call(&got, |d| {
        let carried = d.headers.iter().any(|(_, v)| v.contains(&hook.token));
        (!carried).then(|| format!("no header carries the token (headers: {})", header_names(d)))
    });
    let verdict = findings.verdict(
        format!(
            "the token {} in a header (X-A2A-Notification-Token) of each call",
            hook.token
        ),
        Verdict::pass_with(format!("{} call(s) with the token", got.len())),
    );
    // Only 0.3 asks for the token on the call; 1.0 keeps it in the config and names no
    // header, so a 1.0 call without it breaks no sentence.
    Ok(match (ctx.version(), verdict) {
        (ProtocolVersion::V1_0, Verdict::Violated { actual, .. }) => Verdict::NotApplicable {
            reason: format!(
                "1.0 states no rule for sending the token on a webhook call (only 0.3 does, as a \
                 SHOULD): {actual}"
            ),
        },
        (_, verdict) => verdict,
    })
}

fn header_names(d: &Delivery) -> String {
    d.headers
        .iter()
        .map(|(n, _)| n.as_str())
        .collect::<Vec<_>>()
        .join(", ")
}

async fn authentication_sent(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (_, hook, got) = ps::delivered(&ctx).await?;
    if !hook.authenticated() {
        return Err(HarnessError::Prerequisite(
            "the agent refused the push config with `authentication` and took it without, so \
             no credentials were given to check (the refusal is in the evidence)"
                .into(),
        ));
    }
    let findings = every_call(&got, |d| {
        let value = d.header("authorization")?;
        let (scheme, credentials) = value.split_once(' ').unwrap_or((value, ""));
        (!(scheme.eq_ignore_ascii_case("bearer") && credentials.trim() == hook.credentials))
            .then(|| "an Authorization header with other credentials".to_string())
    });
    let missing = every_call(&got, |d| {
        d.header("authorization")
            .is_none()
            .then(|| format!("no Authorization header (headers: {})", header_names(d)))
    });
    let mut all = findings;
    if let Verdict::Violated { actual, .. } = missing.verdict("", Verdict::pass()) {
        all.problem(actual);
    }
    Ok(all.verdict(
        "Authorization: Bearer <the config's credentials> on each call",
        Verdict::pass_with(format!("{} call(s) authenticated", got.len())),
    ))
}

/// Problems, each with the index of the note it is about.
pub(super) type Problems = Vec<(usize, String)>;

/// The order problems of one webhook's notifications of one task, however far they got: no
/// SUBMITTED after a later state (a task may go from an interrupted state back to WORKING,
/// so that is the only way back), and after the first terminal notification only calls in
/// that same terminal state (a repeat, or a Task in it: delivery is at least once). Each
/// problem comes with the index of its note; also the index of the first terminal
/// notification.
pub(super) fn sequence_problems(notes: &[Note]) -> (Problems, Option<usize>) {
    let mut problems = Vec::new();
    let mut started = false;
    let mut terminal_at: Option<usize> = None;
    for (i, note) in notes.iter().enumerate() {
        let state = note.state.as_deref();
        let terminal = state.is_some_and(|s| a2a::TERMINAL_STATES.contains(&s));
        if let Some(t) = terminal_at {
            if state != notes[t].state.as_deref() {
                let kind = note.kind.unwrap_or("call");
                let what = state.map_or(kind.to_string(), |s| format!("{kind} in state {s}"));
                problems.push((i, format!("{what} after the terminal state")));
            }
            continue;
        }
        match state {
            Some("TASK_STATE_SUBMITTED") if started => {
                problems.push((i, "SUBMITTED after a later state".to_string()));
            }
            Some(s) if rank(s) > 0 => started = true,
            _ => {}
        }
        if terminal {
            terminal_at = Some(i);
        }
    }
    (problems, terminal_at)
}

/// The problems of a sequence of notifications, given the final task's artifacts: those of
/// [`sequence_problems`], a missing terminal notification, and an artifact not notified
/// before or in the first terminal notification (a Task that carries it).
fn order_problems(notes: &[Note], artifacts: &[String]) -> Vec<String> {
    let (sequence, terminal_at) = sequence_problems(notes);
    let mut problems: Vec<String> = (sequence.into_iter())
        .map(|(i, problem)| format!("call {}: {problem}", i + 1))
        .collect();
    let Some(t) = terminal_at else {
        problems.push("no notification of the terminal state".into());
        return problems;
    };
    // The terminal notification itself may carry an artifact (a Task with its artifacts): an
    // agent that makes the artifact and the terminal state in one step has one update to
    // tell, and tells it in one call.
    for artifact in artifacts {
        let by_then = notes[..=t].iter().any(|n| n.artifacts.contains(artifact));
        if !by_then {
            problems.push(format!(
                "artifact {artifact} was not notified before or with the terminal state"
            ));
        }
    }
    problems
}

async fn every_update_in_order(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (task, _, got) = ps::delivered(&ctx).await?;
    let final_task = ctx.get_task(&task_id(&task), None).await?;
    let artifacts: Vec<String> = final_task
        .result()
        .map(|t| {
            a2a::items(t, "artifacts")
                .filter_map(|a| a2a::text(a, "artifactId").map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let notes: Vec<Note> = got.iter().map(ps::note).collect();
    let problems = order_problems(&notes, &artifacts);
    Ok(if problems.is_empty() {
        Verdict::pass_with(ps::summary(&got))
    } else {
        Verdict::fail(
            "the task's updates in order, its artifacts before the terminal state, nothing after it",
            format!("{}; {}", problems.join("; "), ps::shown(&got)),
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn note(kind: &'static str, state: Option<&str>, artifacts: &[&str]) -> Note {
        Note {
            kind: Some(kind),
            task_id: Some("t".into()),
            state: state.map(str::to_string),
            artifacts: artifacts.iter().map(|a| a.to_string()).collect(),
            bare_task: false,
        }
    }

    #[test]
    fn order_rules() {
        let working = note("statusUpdate", Some("TASK_STATE_WORKING"), &[]);
        let artifact = note("artifactUpdate", None, &["a1"]);
        let done = note("statusUpdate", Some("TASK_STATE_COMPLETED"), &[]);
        let a = ["a1".to_string()];
        assert!(order_problems(&[working.clone(), artifact.clone(), done.clone()], &a).is_empty());
        // At least once: a repeated terminal notification is fine.
        assert!(order_problems(
            &[
                working.clone(),
                artifact.clone(),
                done.clone(),
                done.clone()
            ],
            &a
        )
        .is_empty());
        assert!(!order_problems(&[working.clone(), done.clone(), artifact.clone()], &a).is_empty());
        assert!(!order_problems(&[working.clone(), artifact.clone()], &a).is_empty());
        assert!(!order_problems(&[done.clone(), working.clone()], &[]).is_empty());
        // Interrupted, then working again, is a legal path.
        let input = note("task", Some("TASK_STATE_INPUT_REQUIRED"), &[]);
        assert!(order_problems(
            &[input, working.clone(), artifact.clone(), done.clone()],
            &a
        )
        .is_empty());
        // One step, one call: the completed Task carrying its artifact.
        let final_task = note("task", Some("TASK_STATE_COMPLETED"), &["a1"]);
        assert!(order_problems(std::slice::from_ref(&final_task), &a).is_empty());
        assert!(order_problems(&[working.clone(), final_task.clone()], &a).is_empty());
        // A terminal status without the artifact, the artifact only after it: still a fault.
        assert!(!order_problems(&[done.clone(), final_task.clone()], &a).is_empty());
        // A completed Task without the artifact, and nothing else: the artifact was never told.
        let bare_done = note("task", Some("TASK_STATE_COMPLETED"), &[]);
        assert!(!order_problems(&[bare_done], &a).is_empty());
        // A Task in the terminal state after it is a repeat; another terminal state is not.
        let final_task = note("task", Some("TASK_STATE_COMPLETED"), &["a1"]);
        assert!(order_problems(&[artifact.clone(), done.clone(), final_task], &a).is_empty());
        let failed = note("statusUpdate", Some("TASK_STATE_FAILED"), &[]);
        assert!(!order_problems(&[artifact.clone(), done.clone(), failed], &a).is_empty());
        // No terminal state at all.
        assert!(!order_problems(&[working.clone(), artifact.clone()], &a).is_empty());
        // However far they got: no terminal state is no problem of the sequence itself.
        assert!(sequence_problems(&[working.clone(), artifact.clone()])
            .0
            .is_empty());
        let submitted = note("statusUpdate", Some("TASK_STATE_SUBMITTED"), &[]);
        assert_eq!(sequence_problems(&[working, submitted]).0.len(), 1);
        let (late, terminal_at) = sequence_problems(&[done, artifact]);
        assert_eq!((late[0].0, terminal_at), (1, Some(0)));
    }
}

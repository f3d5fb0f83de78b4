//! The order of notifications on every webhook (`push.delivery-order-every-webhook`): every
//! call the kit's receiver got, during the whole run, for the configs the checks of an
//! interface registered, judged once those checks are done (the runner runs this check with
//! the wire-shape checks, after every other). Run alone, the check makes traffic of its own.

use crate::suite::check::Needs;
use std::collections::BTreeMap;

use crate::exchange::webhook::Delivery;
use crate::facts::a2a;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::checks::push::delivery::sequence_problems;
use crate::suite::checks::push::PUSH;
use crate::suite::checks::setup::push::{self as ps, Hook, Note};
use crate::suite::checks::setup::task_id;
use crate::suite::ctx::{Answer, Ctx};

/// The checks of this module: the runner runs them after every other check of the run.
/// How many offending webhooks the evidence shows.
const SHOWN: usize = 5;

/// This module's checks.
pub fn checks() -> Vec<Check> {
    vec![Check {
        id: "push.delivery-order-every-webhook",
        level: Level::Must,
        spec: SpecRef { version: "1.0", section: "3.5.2", statements: &["V10-3.5.2-01"] },
        requirement: "On every webhook the kit gave during the run, each task's notifications come in the order of its updates: no state going back, nothing but the terminal state after it",
        scope: crate::suite::checks::EVERY_BINDING_1_0,
        requires: PUSH,
        maps_to: &[],
        acts: &[],
        reading: Some(
            "Judged over every call the kit's receiver got for the configs the checks of this \
             interface made (created or sent inline), once those checks are done; run alone, the \
             check makes its own: an open task with a config sent inline and one created, \
             completed by a follow-up that adds an artifact. Per config and task: no SUBMITTED \
             after a later state (an interrupted state may go back to WORKING), and after the \
             first terminal notification only calls in that same state (a repeat, or a Task in \
             it: delivery is at least once, §4.3.3). A sequence that stops short of the \
             terminal state is judged as far as it got; calls that name no task, or that the \
             kit cannot read, are left to push.delivery-payload-shape. 0.3 states no ordering \
             rule for push notifications, so the check runs on 1.0 interfaces only.",
        ),
        needs: Needs::NONE
            .sends(&["tck-input-required", "tck-artifact-text"])
            .weighs(6)
            .after_the_rest(),
        run: |ctx| Box::pin(every_webhook(ctx)),
    }]
}

/// The problems of one webhook's calls: per task they name, those of [`sequence_problems`].
fn problems_of(got: &[Delivery]) -> Vec<String> {
    let mut by_task: BTreeMap<String, Vec<(usize, Note)>> = BTreeMap::new();
    for (i, delivery) in got.iter().enumerate() {
        let note = ps::note(delivery);
        if let (Some(_), Some(task)) = (note.kind, note.task_id.clone()) {
            by_task.entry(task).or_default().push((i, note));
        }
    }
    let mut problems = Vec::new();
    for (task, calls) in by_task {
        let notes: Vec<Note> = calls.iter().map(|(_, n)| n.clone()).collect();
        // Numbered by the webhook's calls, not the task's.
        for (i, problem) in sequence_problems(&notes).0 {
            problems.push(format!("task {task}: call {}: {problem}", calls[i].0 + 1));
        }
    }
    problems
}

/// The ids of the artifacts of `id` as GetTask reads it (none when it cannot be read).
async fn final_artifacts(ctx: &Ctx, id: &str) -> Vec<String> {
    match ctx.get_task(id, None).await {
        Ok(Answer::Result(task)) => a2a::items(&task, "artifacts")
            .filter_map(|a| a2a::text(a, "artifactId").map(str::to_string))
            .collect(),
        _ => Vec::new(),
    }
}

/// Waits, bounded by --stream-wait, until `hook` has had the terminal state and every one of
/// `artifacts`, so that a call sent after the terminal one is there to be judged. A conformant
/// agent has sent them all by its terminal notification, which ends the wait at once.
async fn settled(ctx: &Ctx, hook: &Hook, artifacts: &[String]) -> Result<(), HarnessError> {
    ctx.webhook()?
        .wait_until(&hook.key, ctx.stream_wait(), |got| {
            let notes: Vec<Note> = got.iter().map(ps::note).collect();
            got.iter().any(ps::is_terminal)
                && artifacts
                    .iter()
                    .all(|a| notes.iter().any(|n| n.artifacts.contains(a)))
        })
        .await;
    Ok(())
}

/// Traffic of the check's own: an open task with a config sent inline and one created on it,
/// completed; when the agent does not open a task with the inline config, a task with a
/// created config ([`ps::delivered`]). Waits until the configs have had the terminal state
/// and the task's artifacts.
async fn sample(ctx: &Ctx) -> Result<(), HarnessError> {
    let inline = Hook::new(ctx)?;
    let reply = ps::send_inline(ctx, &inline).await?;
    let opened = match &reply.read {
        Ok(Answer::Result(result)) => result
            .get("task")
            .filter(|t| a2a::state(t) == Some("TASK_STATE_INPUT_REQUIRED"))
            .cloned(),
        _ => None,
    };
    let Some(task) = opened else {
        let (task, hook, _) = ps::delivered(ctx).await?;
        let artifacts = final_artifacts(ctx, &task_id(&task)).await;
        return settled(ctx, &hook, &artifacts).await;
    };
    let id = task_id(&task);
    let created = Hook::new(ctx)?;
    ps::created(ctx, &id, &created).await?;
    ps::finish(ctx, &task).await?;
    ps::until_terminal(ctx, &created).await?;
    let artifacts = final_artifacts(ctx, &id).await;
    settled(ctx, &created, &artifacts).await?;
    settled(ctx, &inline, &artifacts).await
}

async fn every_webhook(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let owner = ps::owner(&ctx);
    let called = |ctx: &Ctx| -> Result<Vec<(String, Vec<Delivery>)>, HarnessError> {
        let owned = ctx.webhook()?.owned_by(&owner);
        Ok(owned
            .into_iter()
            .filter(|(_, got)| !got.is_empty())
            .collect())
    };
    let mut webhooks = called(&ctx)?;
    // The run's other push checks usually left plenty to judge; alone, the check makes its own.
    let mut own = None;
    if webhooks.is_empty() {
        own = sample(&ctx).await.err();
        webhooks = called(&ctx)?;
    }
    if webhooks.is_empty() {
        return Err(own.unwrap_or_else(|| {
            HarnessError::Prerequisite(
                "no webhook call reached the kit for a config made on this interface".into(),
            )
        }));
    }
    let broken: Vec<(String, Vec<String>, Vec<Delivery>)> = webhooks
        .into_iter()
        .filter_map(|(key, got)| {
            let problems = problems_of(&got);
            (!problems.is_empty()).then_some((key, problems, got))
        })
        .collect();
    if broken.is_empty() {
        // No count: how many calls of the run's other checks had arrived when this one ran
        // may vary, and a passing result must read the same every run.
        return Ok(Verdict::pass_with(
            "on every webhook called, each task's notifications are in order",
        ));
    }
    let count = broken.len();
    let lines: Vec<String> = (broken.iter().take(SHOWN))
        .map(|(key, problems, got)| {
            format!("webhook {key}: {}; {}", problems.join("; "), ps::shown(got))
        })
        .collect();
    let more = if count > SHOWN {
        format!(" (the first {SHOWN} shown)")
    } else {
        String::new()
    };
    Ok(Verdict::fail(
        "on every webhook, each task's notifications in order: no state going back, only the \
         terminal state after it",
        format!("{count} webhook(s) break it{more}: {}", lines.join(" | ")),
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::Value;

    fn call(body: Value) -> Delivery {
        Delivery {
            headers: Vec::new(),
            body: serde_json::to_vec(&body).unwrap_or_default(),
            json: Some(body),
        }
    }

    fn status(task: &str, state: &str) -> Delivery {
        call(serde_json::json!({
            "statusUpdate": { "taskId": task, "status": { "state": state } }
        }))
    }

    fn artifact(task: &str, id: &str) -> Delivery {
        call(serde_json::json!({
            "artifactUpdate": { "taskId": task, "artifact": { "artifactId": id } }
        }))
    }

    #[test]
    fn judged_per_task_however_far_it_got() {
        // In order, and stopped short of the terminal state: nothing wrong.
        let open = [
            status("t", "TASK_STATE_WORKING"),
            status("t", "TASK_STATE_INPUT_REQUIRED"),
            status("t", "TASK_STATE_WORKING"),
        ];
        assert!(problems_of(&open).is_empty());
        // An artifact after the terminal state, numbered by the webhook's calls.
        let late = [
            status("t", "TASK_STATE_WORKING"),
            status("t", "TASK_STATE_COMPLETED"),
            artifact("t", "a1"),
        ];
        let problems = problems_of(&late);
        assert_eq!(problems.len(), 1, "{problems:?}");
        assert!(problems[0].starts_with("task t: call 3:"), "{problems:?}");
        // Two tasks on one webhook are judged apart: one's end is not the other's.
        let two = [
            status("t", "TASK_STATE_COMPLETED"),
            status("u", "TASK_STATE_WORKING"),
            status("t", "TASK_STATE_COMPLETED"),
        ];
        assert!(problems_of(&two).is_empty());
        // A body that names no task is not judged here.
        let unreadable = [
            status("t", "TASK_STATE_COMPLETED"),
            call(serde_json::json!({})),
        ];
        assert!(problems_of(&unreadable).is_empty());
    }
}

//! `push.*` after a config is deleted: the agent stops calling the deleted config's URL (the
//! task primed to change after the delete, and what the hook hears checked against the
//! artifacts the task had before it).

use serde_json::{json, Value};

use crate::exchange::webhook::Delivery;
use crate::facts::a2a;
use crate::suite::check::{HarnessError, Verdict};
use crate::suite::checks::setup::push::{self as ps, Hook};
use crate::suite::checks::setup::task_id;
use crate::suite::ctx::Ctx;

/// An open task, a config of a fresh hook on it, and the config's id as the agent answered it.
type Deletable = (Value, Hook, String);

/// Setup: an open task with a config of a fresh hook.
async fn deletable(ctx: &Ctx) -> Result<Deletable, HarnessError> {
    let task = ps::open_task(ctx).await?;
    let hook = Hook::new(ctx)?;
    let config = ps::created(ctx, &task_id(&task), &hook).await?;
    Ok((task, hook, ps::config_id(&config)))
}

/// Setup of the delete check: an open task whose config has had a call. A follow-up that
/// keeps the task waiting brings the call; the task read back must still be input-required,
/// so that its next state comes after the delete. `Err` says why there was no such call (the
/// check then deletes a config before any call to it); a missing setup of the open task or
/// its config is the check's own error.
async fn primed(ctx: &Ctx) -> Result<Result<Deletable, String>, HarnessError> {
    let (task, hook, config) = deletable(ctx).await?;
    let id = task_id(&task);
    let message = crate::suite::checks::setup::full_follow_up(ctx, &task, ps::OPEN);
    let answer = match ctx.send_message(message, None).await {
        Ok(answer) => answer,
        Err(e) => {
            return Ok(Err(format!(
                "the follow-up that keeps the task waiting failed: {e}"
            )))
        }
    };
    let Some(result) = answer.result() else {
        return Ok(Err(format!(
            "the follow-up that keeps the task waiting was refused: {}",
            answer.describe()
        )));
    };
    let said = result.get("task").unwrap_or(result);
    if let Some(state) = a2a::state(said).filter(|s| a2a::TERMINAL_STATES.contains(s)) {
        return Ok(Err(format!("the follow-up ended the task ({state})")));
    }
    let wait = ctx.stream_wait();
    let got = ctx
        .webhook()?
        .wait_until(&hook.key, wait, |d| !d.is_empty())
        .await;
    if got.is_empty() {
        return Ok(Err(format!(
            "no call reached the config within {} s of the follow-up",
            wait.as_secs_f32()
        )));
    }
    let read = match ctx.get_task(&id, None).await {
        Ok(answer) => answer,
        Err(e) => return Ok(Err(format!("the task could not be read back: {e}"))),
    };
    match read.result() {
        Some(now) if a2a::state(now) == Some("TASK_STATE_INPUT_REQUIRED") => {
            Ok(Ok((now.clone(), hook, config)))
        }
        _ => Ok(Err(format!(
            "the follow-up moved the task out of input-required (GetTask: {})",
            read.result()
                .and_then(a2a::state)
                .map_or_else(|| read.describe(), str::to_string)
        ))),
    }
}

/// The ids of a task's artifacts.
fn artifact_ids(task: &Value) -> Vec<String> {
    a2a::items(task, "artifacts")
        .filter_map(|a| a2a::text(a, "artifactId").map(str::to_string))
        .collect()
}

/// Whether a call tells of what happened after the delete: the terminal state, or an artifact
/// the task did not have before it (`before`). Any other call may be a late or repeated
/// notification of an earlier update (delivery is at least once), and is not judged.
fn tells_after_delete(delivery: &Delivery, before: &[String]) -> bool {
    let note = ps::note(delivery);
    let terminal = (note.state.as_deref()).is_some_and(|s| a2a::TERMINAL_STATES.contains(&s));
    terminal || note.artifacts.iter().any(|a| !before.contains(a))
}

pub(super) async fn stops_after_delete(ctx: Ctx) -> Result<Verdict, HarnessError> {
    // Why the config was deleted before any call to it, when it was.
    let ((task, deleted, config_id), unprimed) = match primed(&ctx).await? {
        Ok(primed) => (primed, None),
        // A fresh open task whose config is deleted before any call to it.
        Err(why) => (deletable(&ctx).await?, Some(why)),
    };
    let id = task_id(&task);
    // What the task had before the delete is no news after it: its artifacts as answered and
    // as read back, and every call that had arrived.
    let mut before = artifact_ids(&task);
    if let Ok(answer) = ctx.get_task(&id, None).await {
        before.extend(answer.result().map(artifact_ids).unwrap_or_default());
    }
    let early = ctx.webhook()?.received(&deleted.key).len();
    let params = ctx.with_tenant(json!({ "taskId": id, "id": config_id }))?;
    let answer = ctx.delete_push_config(params).await?.answer()?;
    if answer.result().is_none()
        && !matches!(answer, crate::suite::ctx::Answer::Result(Value::Null))
    {
        return Err(HarnessError::Prerequisite(format!(
            "DeleteTaskPushNotificationConfig failed: {}",
            answer.describe()
        )));
    }
    let sentinel = Hook::new(&ctx)?;
    ps::created(&ctx, &id, &sentinel).await?;
    ps::finish(&ctx, &task).await?;
    let reached = ps::until_terminal(&ctx, &sentinel).await?;
    let got = ctx.webhook()?.received(&deleted.key);
    let after: Vec<Delivery> = (got.iter().skip(early))
        .filter(|d| tells_after_delete(d, &before))
        .cloned()
        .collect();
    let when = match &unprimed {
        None => "called before the delete".to_string(),
        Some(why) => format!("deleted before any call to it: {why}"),
    };
    Ok(if after.is_empty() {
        let caveat = if unprimed.is_some() {
            " (this does not show that a config already called is left alone once deleted)"
        } else {
            ""
        };
        Verdict::pass_with(format!(
            "the deleted config ({when}) got nothing of what happened after the delete{caveat}; \
             the second config: {}",
            ps::summary(&reached)
        ))
    } else {
        Verdict::fail(
            "no call to the deleted config's webhook telling of what happened after the delete \
             (the terminal state, the artifact that completed the task)",
            format!(
                "the deleted config ({when}) was called with {}; all its calls: {}",
                ps::shown(&after),
                ps::shown(&got)
            ),
        )
    })
}

//! Durability checks (`durability.*`): what an agent acknowledged before a restart is still
//! there after it. Never part of a default run: only with `--restart-cmd` (an agent the user
//! restarts) or `--durability` (the built-in agent on a SQLite file, restarted in-process).
//!
//! The run has two phases ([`crate::run::durability`]): [`prepare`] makes the fixtures on every
//! selected interface and records how the agent showed them ([`Saved`]); then the target is
//! restarted; then each check compares what the agent shows now with what it showed before.
//! The spec does not demand that an agent survive a restart (§3.3.1 even lets a task be
//! purged), so every check is a SHOULD: a lost task is a WARN, never a FAIL.

use crate::suite::check::{Needs, Profile};
use serde_json::{json, Value};

use super::setup::{follow_up, result_task, task_id, Setup};
use crate::facts::a2a;
use crate::suite::check::{Capability, ProtocolVersion};
use crate::suite::check::{Check, Gate, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::{Answer, Ctx, Saved};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "durability";

const SPEC_GET: SpecRef = SpecRef {
    version: "1.0",
    section: "3.1.3",
    statements: &["V10-D-3.1.3-04", "V03-7.3-01"],
};

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "durability.task-survives-restart",
            level: Level::Should,
            spec: SPEC_GET,
            requirement: "After a restart, GetTask returns a task completed before it, with its id, contextId and state",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(READING),
            needs: Needs::NONE.on(Profile::Restart),
            run: |ctx| Box::pin(task_survives(ctx)),
        },
        Check {
            id: "durability.history-survives-restart",
            level: Level::Should,
            spec: SPEC_GET,
            requirement: "After a restart, the task's history is the one GetTask showed before it",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Messages are compared by messageId, role and parts, in order. N/A when the agent \
                 kept no history before the restart (keeping history is optional, §3.7). The \
                 spec does not demand durability: a lost history is a WARN.",
            ),
            needs: Needs::NONE.on(Profile::Restart),
            run: |ctx| Box::pin(history_survives(ctx)),
        },
        Check {
            id: "durability.artifacts-survive-restart",
            level: Level::Should,
            spec: SPEC_GET,
            requirement: "After a restart, the task's artifacts are the ones GetTask showed before it",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Artifacts are compared by artifactId, name and parts, in order. N/A when the \
                 task showed no artifact before the restart. The spec does not demand \
                 durability: lost artifacts are a WARN.",
            ),
            needs: Needs::NONE.on(Profile::Restart),
            run: |ctx| Box::pin(artifacts_survive(ctx)),
        },
        Check {
            id: "durability.list-tasks-after-restart",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.1.4", statements: &["V10-D-3.1.4-03"] },
            requirement: "After a restart, ListTasks filtered by a task's contextId still lists the task",
            scope: super::EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Judged only when the same ListTasks listed the task before the restart. 0.3 has \
                 no ListTasks. The spec does not demand durability: a task missing from the \
                 list is a WARN.",
            ),
            needs: Needs::NONE.on(Profile::Restart),
            run: |ctx| Box::pin(list_after_restart(ctx)),
        },
        Check {
            id: "durability.input-required-resumes-after-restart",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.4.3", statements: &["V10-D-3.4.3-01", "V03-7.1-01"] },
            requirement: "After a restart, a task left in TASK_STATE_INPUT_REQUIRED is still waiting, and a follow-up resumes it to completion",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "GetTask must still show TASK_STATE_INPUT_REQUIRED; a follow-up naming the task \
                 must then be accepted and the same task must reach TASK_STATE_COMPLETED (the \
                 answer, or GetTask after it). An agent that gives up interrupted tasks (FAILED, \
                 or forgotten) is reported as WARN: the spec does not demand durability.",
            ),
            needs: Needs::NONE.on(Profile::Restart),
            run: |ctx| Box::pin(input_required_resumes(ctx)),
        },
        Check {
            id: "durability.context-continues-after-restart",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.4.3", statements: &["V10-D-3.4.3-02", "V03-7.1-01"] },
            requirement: "After a restart, a message in a context the agent continued before it is accepted in that context",
            scope: super::EVERY_BINDING_BOTH,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "A message naming the saved contextId and no taskId must be accepted and \
                 answered (Task or Message) in that contextId. Judged only when the agent \
                 continued the context the same way before the restart (accepting a client's \
                 contextId is a MAY, §3.4.1). A refusal after the restart is a WARN: the spec \
                 lets agents expire contexts (§3.4.1) but asks them to document it.",
            ),
            needs: Needs::NONE.on(Profile::Restart),
            run: |ctx| Box::pin(context_continues(ctx)),
        },
        push_check(),
    ]
}

/// The push-config check (on 1.0 interfaces of agents that declare push).
fn push_check() -> Check {
    Check {
        id: "durability.push-config-survives-restart",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "3.1.7",
            statements: &["V10-D-3.1.7-01"],
        },
        requirement: "After a restart, a push-notification config set on an open task is still returned with its id and url",
        scope: super::EVERY_BINDING_1_0,
        requires: &[Gate::Declares(Capability::PushNotifications)],
        maps_to: &[],
        acts: &[],
        reading: Some(
            "§3.1.7 keeps a config until the task completes or the config is deleted; a restart \
             is neither, so the kit expects the config to survive it, but reports a lost one as \
             WARN: the spec does not demand durable storage.",
        ),
        needs: Needs::NONE.on(Profile::Restart),
        run: |ctx| Box::pin(push_survives(ctx)),
    }
}

const READING: &str = "The kit restarts the agent between making the task and reading it back \
    (--restart-cmd, or --durability for the built-in agent). The spec does not demand that \
    tasks survive a restart (a task may even be purged, §3.3.1), but an agent that forgets an \
    acknowledged task breaks every client that polls it (§3.1.3 GetTask returns the task as it \
    stands): the kit reports it as WARN. The status timestamp and message may be the same or \
    not; id, contextId and state must be.";

/// The fixtures of the check's interface, or why there are none.
fn saved(ctx: &Ctx) -> Result<&Saved, HarnessError> {
    ctx.saved().ok_or_else(|| {
        HarnessError::Internal("a durability check ran outside the durability phase".into())
    })
}

fn fixture<T>(made: &Result<T, String>) -> Result<&T, HarnessError> {
    made.as_ref()
        .map_err(|why| HarnessError::Prerequisite(format!("before the restart: {why}")))
}

/// Phase 1 on one interface: makes the fixtures and records how the agent showed them.
pub async fn prepare(ctx: &Ctx) -> Saved {
    let completed = completed_task(ctx).await;
    let listed = match (&completed, ctx.version()) {
        (Ok(task), ProtocolVersion::V1_0) => listed(ctx, task).await.and_then(|found| {
            found.then_some(()).ok_or_else(|| {
                "ListTasks filtered by the task's contextId did not list it".to_string()
            })
        }),
        (Ok(_), ProtocolVersion::V0_3) => Err("0.3 has no ListTasks".into()),
        (Err(why), _) => Err(why.clone()),
    };
    let input_required = open_task(ctx).await;
    let context = continued_context(ctx).await;
    let push = match ctx.version() {
        ProtocolVersion::V1_0 if declares_push(ctx) => Some(push_config(ctx).await),
        _ => None,
    };
    Saved {
        completed,
        listed,
        input_required,
        context,
        push,
    }
}

fn declares_push(ctx: &Ctx) -> bool {
    ctx.card.json["capabilities"]["pushNotifications"] == json!(true)
}

fn shown(error: HarnessError) -> String {
    error.to_string()
}

async fn completed_task(ctx: &Ctx) -> Result<Value, String> {
    let task = ctx
        .create_task_in_state("tck-artifact-text", "TASK_STATE_COMPLETED")
        .await
        .map_err(shown)?;
    let id = task_id(&task);
    let answer = ctx.get_task(&id, None).await.map_err(shown)?;
    answer
        .result()
        .filter(|t| t.is_object())
        .cloned()
        .ok_or_else(|| format!("GetTask {id} failed: {}", answer.describe()))
}

async fn listed(ctx: &Ctx, task: &Value) -> Result<bool, String> {
    let id = task_id(task);
    let Some(context) = a2a::text(task, "contextId") else {
        return Err("the completed task has no contextId to filter by".into());
    };
    let answer = ctx
        .list_tasks(json!({ "contextId": context, "pageSize": 100 }))
        .await
        .map_err(shown)?;
    let Some(result) = answer.result() else {
        return Err(format!("ListTasks failed: {}", answer.describe()));
    };
    let found = a2a::items(result, "tasks").any(|t| a2a::text(t, "id") == Some(id.as_str()));
    Ok(found)
}

async fn open_task(ctx: &Ctx) -> Result<Value, String> {
    let task = ctx
        .create_task_in_state("tck-input-required", "TASK_STATE_INPUT_REQUIRED")
        .await
        .map_err(shown)?;
    Ok(task)
}

/// A push config on an open task of its own (the resume check completes the other one), as
/// the agent returned it. The URL is a loopback port nothing listens on: only the config's
/// survival is judged here, not delivery.
async fn push_config(ctx: &Ctx) -> Result<(String, Value), String> {
    let task = open_task(ctx).await?;
    let id = task_id(&task);
    let params = json!({
        "taskId": id,
        "url": "http://127.0.0.1:9/a2a-tck-durability",
        "token": ctx.id("tck-durability-token"),
    });
    let answer = (ctx.create_push_config(params).await)
        .and_then(|reply| reply.answer())
        .map_err(shown)?;
    match answer.result() {
        Some(config) if a2a::text(config, "id").is_some() => Ok((id, config.clone())),
        _ => Err(format!(
            "CreateTaskPushNotificationConfig did not return a config with an id: {}",
            answer.describe()
        )),
    }
}

/// A context the agent made, then continued by contextId alone (no taskId).
async fn continued_context(ctx: &Ctx) -> Result<String, String> {
    let first = ctx
        .create_task_in_state("tck-complete-task", "TASK_STATE_COMPLETED")
        .await
        .map_err(shown)?;
    let Some(context) = a2a::text(&first, "contextId").map(str::to_string) else {
        return Err("the task has no contextId".into());
    };
    let answer = send_in_context(ctx, &context).await.map_err(shown)?;
    match answered_context(&answer) {
        Some(c) if c == context => Ok(context),
        _ => Err(format!(
            "the agent did not continue a context by contextId alone even before the restart \
             (a MAY, §3.4.3): {}",
            answer.describe()
        )),
    }
}

async fn send_in_context(ctx: &Ctx, context: &str) -> Result<Answer, HarnessError> {
    let mut message = ctx.user_message("tck-complete-task");
    message["contextId"] = json!(context);
    ctx.send_message(message, None).await
}

/// The contextId of the Task or Message a SendMessage answered with.
fn answered_context(answer: &Answer) -> Option<&str> {
    answer
        .result()
        .and_then(|r| r.get("task").or_else(|| r.get("message")))
        .and_then(|o| a2a::text(o, "contextId"))
}

/// GetTask of a saved task after the restart: the task, or the verdict of its absence.
async fn read_back(ctx: &Ctx, before: &Value) -> Result<Result<Value, Verdict>, HarnessError> {
    let id = task_id(before);
    let answer = ctx.get_task(&id, None).await?;
    let expected = format!("GetTask {id:?} to return the task made before the restart");
    let read = result_task(&answer, &expected).cloned();
    Ok(read)
}

async fn task_survives(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let before = fixture(&saved(&ctx)?.completed)?;
    let after = match read_back(&ctx, before).await? {
        Ok(task) => task,
        Err(verdict) => return Ok(verdict),
    };
    let mut problems = Vec::new();
    for field in ["id", "contextId"] {
        if after.get(field) != before.get(field) {
            problems.push(format!(
                "{field} {} (before: {})",
                a2a::shown_json(after.get(field)),
                a2a::shown_json(before.get(field))
            ));
        }
    }
    if a2a::state(&after) != a2a::state(before) {
        problems.push(format!(
            "state {} (before: {})",
            a2a::shown(a2a::state(&after)),
            a2a::shown(a2a::state(before))
        ));
    }
    Ok(super::setup::verdict_from(
        problems,
        "the task as it was before the restart",
    ))
}

/// The parts of a message or artifact that must not change, for comparison.
fn essence(item: &Value, fields: &[&str]) -> Value {
    Value::Object(
        fields
            .iter()
            .filter_map(|f| item.get(*f).map(|v| ((*f).to_string(), v.clone())))
            .collect(),
    )
}

fn list_of(task: &Value, field: &str, keep: &[&str]) -> Vec<Value> {
    a2a::items(task, field).map(|i| essence(i, keep)).collect()
}

async fn compare_list(
    ctx: Ctx,
    field: &str,
    keep: &[&str],
    none: &str,
) -> Result<Verdict, HarnessError> {
    let before = fixture(&saved(&ctx)?.completed)?;
    let was = list_of(before, field, keep);
    if was.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: none.to_string(),
        });
    }
    let after = match read_back(&ctx, before).await? {
        Ok(task) => task,
        Err(verdict) => return Ok(verdict),
    };
    let now = list_of(&after, field, keep);
    if now == was {
        return Ok(Verdict::pass_with(format!(
            "{} {field} item(s), as before the restart",
            now.len()
        )));
    }
    Ok(Verdict::fail(
        format!("{field}: {}", a2a::brief(&Value::Array(was), 400)),
        format!("{field}: {}", a2a::brief(&Value::Array(now), 400)),
    ))
}

async fn history_survives(ctx: Ctx) -> Result<Verdict, HarnessError> {
    compare_list(
        ctx,
        "history",
        &["messageId", "role", "parts"],
        "the task had no history before the restart (keeping history is optional, §3.7)",
    )
    .await
}

async fn artifacts_survive(ctx: Ctx) -> Result<Verdict, HarnessError> {
    compare_list(
        ctx,
        "artifacts",
        &["artifactId", "name", "parts"],
        "the task had no artifact before the restart",
    )
    .await
}

async fn list_after_restart(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let saved = saved(&ctx)?;
    let task = fixture(&saved.completed)?;
    fixture(&saved.listed)?;
    match listed(&ctx, task).await {
        Ok(true) => Ok(Verdict::pass()),
        Ok(false) => Ok(Verdict::fail(
            format!(
                "ListTasks filtered by contextId {} to list task {:?}, as before the restart",
                a2a::shown(a2a::text(task, "contextId")),
                task_id(task)
            ),
            "the task is not listed",
        )),
        Err(why) => Ok(Verdict::fail(
            "ListTasks to answer as it did before the restart",
            why,
        )),
    }
}

async fn input_required_resumes(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let before = fixture(&saved(&ctx)?.input_required)?;
    let id = task_id(before);
    let after = match read_back(&ctx, before).await? {
        Ok(task) => task,
        Err(verdict) => return Ok(verdict),
    };
    if a2a::state(&after) != Some("TASK_STATE_INPUT_REQUIRED") {
        return Ok(Verdict::fail(
            format!("task {id:?} still in TASK_STATE_INPUT_REQUIRED after the restart"),
            format!("state {}", a2a::shown(a2a::state(&after))),
        ));
    }
    let answer = ctx
        .send_message(follow_up(&ctx, before, "tck-complete-task", None), None)
        .await?;
    let expected = format!("the follow-up to resume task {id:?} to TASK_STATE_COMPLETED");
    if answer.result().is_none() {
        return Ok(Verdict::fail(expected, answer.describe()));
    }
    let now = ctx.get_task(&id, None).await?;
    match now.result().and_then(a2a::state) {
        Some("TASK_STATE_COMPLETED") => Ok(Verdict::pass()),
        other => Ok(Verdict::fail(
            expected,
            format!(
                "GetTask after the follow-up shows state {}",
                a2a::shown(other)
            ),
        )),
    }
}

async fn context_continues(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let context = fixture(&saved(&ctx)?.context)?;
    let answer = send_in_context(&ctx, context).await?;
    let expected = format!("a message in contextId {context:?} accepted and answered in it");
    match answered_context(&answer) {
        Some(c) if c == context => Ok(Verdict::pass()),
        Some(c) => Ok(Verdict::fail(expected, format!("contextId {c:?}"))),
        None => Ok(Verdict::fail(expected, answer.describe())),
    }
}

async fn push_survives(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let Some(push) = &saved(&ctx)?.push else {
        return Ok(Verdict::NotApplicable {
            reason: "the card does not declare push notifications".into(),
        });
    };
    let (task, config) = fixture(push)?;
    let config_id = a2a::text(config, "id").unwrap_or_default();
    let answer = ctx
        .get_push_config(json!({ "taskId": task, "id": config_id }))
        .await?
        .answer()?;
    let expected = format!("push config {config_id:?} of task {task:?}, as before the restart");
    match answer.result() {
        Some(got) if got.get("url") == config.get("url") => Ok(Verdict::pass()),
        _ => Ok(Verdict::fail(expected, answer.describe())),
    }
}

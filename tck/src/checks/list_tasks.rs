//! ListTasks (spec 1.0 §3.1.4). Every check lists a context of its own holding tasks it just
//! made, so sorting, paging and artifact omission are observed on real data.

use serde_json::{json, Value};

use super::EVERY_BINDING_1_0;
use crate::a2a;
use crate::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::ctx::{task_id, Answer, Ctx};

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "tasks.list.next-page-token-always-present",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "3.1.4",
                statements: &["V10-3.1.4-02", "V10-3.1.4-03"],
            },
            requirement:
                "ListTasks always returns nextPageToken, as an empty string on the last page",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-LIST-004"],
            reading: None,
            run: |ctx| Box::pin(next_page_token(ctx)),
        },
        Check {
            id: "tasks.list.artifacts-omitted-by-default",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "3.1.4",
                statements: &["V10-3.1.4-01", "V10-P-16"],
            },
            requirement:
                "Without includeArtifacts, ListTasks omits the artifacts field from every task",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-LIST-005"],
            reading: None,
            run: |ctx| Box::pin(artifacts_omitted(ctx)),
        },
        Check {
            id: "tasks.list.sorted-by-update-time-desc",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "3.1.4",
                statements: &["V10-3.1.4-05", "V10-3.1.4-07"],
            },
            requirement: "ListTasks returns tasks most recently updated first",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-LIST-003"],
            reading: None,
            run: |ctx| Box::pin(sorted_desc(ctx)),
        },
    ]
}

/// The contextId of a task returned by setup.
fn context_of(task: &Value) -> Result<String, HarnessError> {
    a2a::text(task, "contextId")
        .map(str::to_string)
        .ok_or_else(|| {
            HarnessError::Prerequisite("the created task has no contextId to list by".into())
        })
}

/// Lists one context; a ListTasks error or non-object is a violation of the check at hand.
async fn list_context(
    ctx: &Ctx,
    context: &str,
    expected: &str,
) -> Result<Result<Value, Verdict>, HarnessError> {
    let answer = ctx.list_tasks(json!({ "contextId": context })).await?;
    Ok(match answer {
        Answer::Result(page) if page.get("tasks").is_some_and(Value::is_array) => Ok(page),
        other => Err(Verdict::fail(expected, other.describe())),
    })
}

fn listed(page: &Value) -> Vec<Value> {
    page.get("tasks")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

async fn next_page_token(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx.create_task("tck-complete-task").await?;
    let context = context_of(&task)?;
    let expected = "a page with `nextPageToken` set to \"\" (one task, one page)";
    let page = match list_context(&ctx, &context, expected).await? {
        Ok(p) => p,
        Err(v) => return Ok(v),
    };
    match page.get("nextPageToken") {
        Some(Value::String(t)) if t.is_empty() => Ok(Verdict::pass()),
        Some(other) => Ok(Verdict::fail(expected, format!("nextPageToken {other}"))),
        None => Ok(Verdict::fail(
            expected,
            format!("no nextPageToken: {}", a2a::brief(&page, 300)),
        )),
    }
}

async fn artifacts_omitted(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx.create_task("tck-artifact-text").await?;
    if task
        .get("artifacts")
        .and_then(Value::as_array)
        .is_none_or(|a| a.is_empty())
    {
        return Err(HarnessError::Prerequisite(
            "SendMessage (prefix `tck-artifact-text`) returned a task without artifacts".into(),
        ));
    }
    let context = context_of(&task)?;
    let expected = "tasks without an `artifacts` field";
    let page = match list_context(&ctx, &context, expected).await? {
        Ok(p) => p,
        Err(v) => return Ok(v),
    };
    let tasks = listed(&page);
    let id = task_id(&task);
    if !tasks
        .iter()
        .any(|t| a2a::text(t, "id") == Some(id.as_str()))
    {
        return Err(HarnessError::Prerequisite(format!(
            "ListTasks by contextId did not return the task {id:?} just created there"
        )));
    }
    match tasks.iter().find(|t| t.get("artifacts").is_some()) {
        None => Ok(Verdict::pass()),
        Some(t) => Ok(Verdict::fail(
            expected,
            format!("task {:?} lists artifacts", a2a::text(t, "id")),
        )),
    }
}

async fn sorted_desc(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let older = ctx.create_task("tck-complete-task").await?;
    let context = context_of(&older)?;
    let mut message = ctx.user_message("tck-complete-task");
    message["contextId"] = json!(context);
    let newer = ctx.create_task_with("tck-complete-task", message).await?;
    let expected = "tasks ordered by status timestamp, newest first";
    let page = match list_context(&ctx, &context, expected).await? {
        Ok(p) => p,
        Err(v) => return Ok(v),
    };
    let tasks = listed(&page);
    let ids: Vec<&str> = tasks.iter().filter_map(|t| a2a::text(t, "id")).collect();
    let (older_id, newer_id) = (task_id(&older), task_id(&newer));
    let position = |id: &str| ids.iter().position(|i| *i == id);
    let (Some(o), Some(n)) = (position(&older_id), position(&newer_id)) else {
        return Err(HarnessError::Prerequisite(format!(
            "ListTasks by contextId did not return both tasks made there ({older_id:?}, {newer_id:?}); got {ids:?}"
        )));
    };
    let stamps: Vec<Option<std::time::SystemTime>> = tasks
        .iter()
        .map(|t| {
            t.get("status")
                .and_then(|s| s.get("timestamp"))
                .and_then(Value::as_str)
                .and_then(|s| humantime::parse_rfc3339_weak(s).ok())
        })
        .collect();
    let tie = stamps[o].is_some() && stamps[o] == stamps[n];
    let rising = stamps
        .windows(2)
        .any(|w| matches!((w[0], w[1]), (Some(a), Some(b)) if a < b));
    if rising || (n > o && !tie) {
        Ok(Verdict::fail(
            format!("{expected} ({newer_id:?} before {older_id:?})"),
            format!("order {ids:?}"),
        ))
    } else {
        Ok(Verdict::pass())
    }
}

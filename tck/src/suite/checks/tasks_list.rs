//! ListTasks checks (`tasks.list.*`, spec 1.0 §3.1.4). Every check lists a context of its
//! own holding tasks it just made, so sorting, paging and artifact omission are observed on
//! real data.

pub mod bounds;
use crate::suite::check::Needs;
use serde_json::{json, Value};

use super::setup::{follow_up, task_id, Setup};
use super::EVERY_BINDING_1_0;
use crate::facts::a2a;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::{Answer, Ctx};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "tasks.list";

/// This module's checks, in spec order.
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
            scope: super::JSON_1_0,
            requires: &[],
            maps_to: &["CORE-LIST-004"],
            acts: &["CORE-LIST-003"],
            reading: None,
            needs: Needs::NONE.weighs(3),
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
            acts: &["CORE-LIST-002"],
            reading: None,
            needs: Needs::NONE.sends(&["tck-artifact-text"]).weighs(2),
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
            acts: &[],
            reading: None,
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(6),
            run: |ctx| Box::pin(sorted_desc(ctx)),
        },
        Check {
            id: "tasks.list.filters-by-context-id",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.1.4", statements: &["V10-D-3.1.4-01"] },
            requirement: "ListTasks with a contextId returns the tasks of that context and no other",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-LIST-001"],
            acts: &["CORE-LIST-001"],
            reading: Some(
                "§3.1.4 and the proto describe the contextId filter without an RFC 2119 keyword \
                 (the official TCK holds CORE-LIST-001 as a must): a listing that does not \
                 filter is a WARN, not a FAIL.",
            ),
            needs: Needs::NONE.weighs(3),
            run: |ctx| Box::pin(filters_by_context(ctx)),
        },
        Check {
            id: "tasks.list.filters-by-status",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.1.4", statements: &["V10-D-3.1.4-04"] },
            requirement: "ListTasks with a status returns the tasks in that state and no other",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "The proto states the filter (\"Filter tasks by their current status state\") \
                 without an RFC 2119 keyword; as for the contextId filter, a filter that does not \
                 filter is a WARN, not a FAIL. The states are read in the context's own \
                 listing before and after the filtered ones; when they moved meanwhile, the \
                 check is UNTESTABLE.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(6),
            run: |ctx| Box::pin(filters_by_status(ctx)),
        },
        Check {
            id: "tasks.list.status-timestamp-after-filter",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.1.4", statements: &["V10-P-15"] },
            requirement: "ListTasks with statusTimestampAfter returns only tasks whose status timestamp is at or after it",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "The proto states the filter without an RFC 2119 keyword; a filter that does not \
                 filter is a WARN, not a FAIL. Its comment says both \"a status updated \
                 after\" the timestamp and \"greater than or equal to\" it, so at the bound \
                 either reading passes, held to on the oldest and the newest task's own \
                 timestamps (the @a2a-js/sdk server lists only later tasks). Needs two tasks \
                 with different status timestamps: an agent whose clock ticks in milliseconds \
                 often gives two tasks made one after the other the same one, so the check makes \
                 up to six in its context until the last is later than the first.",
            ),
            needs: Needs::NONE.weighs(9),
            run: |ctx| Box::pin(timestamp_filter(ctx)),
        },
        Check {
            id: "tasks.list.page-size-and-cursor",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.4", statements: &["V10-3.1.4-04"] },
            requirement: "ListTasks honours pageSize and pages on with nextPageToken (cursor-based pagination)",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-LIST-002"],
            acts: &[],
            reading: None,
            needs: Needs::NONE.weighs(5),
            run: |ctx| Box::pin(page_size_and_cursor(ctx)),
        },
        Check {
            id: "tasks.list.response-required-fields",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "5.7", statements: &["V10-3.1.4-02", "V10-5.7-02", "V10-D-3.1.4-02"] },
            requirement: "A ListTasks response carries its REQUIRED tasks, nextPageToken, pageSize and totalSize",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["CORE-LIST-004"],
            acts: &["CORE-LIST-003"],
            reading: None,
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(response_required(ctx)),
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

/// Setup: the context must hold only the tasks this check made (`own`). An agent may put
/// several conversations in one context (generating a contextId is a MAY); then paging,
/// ordering and filters cannot be judged on data the check controls.
async fn require_own_context(ctx: &Ctx, context: &str, own: &[String]) -> Result<(), HarnessError> {
    let answer = ctx
        .list_tasks(json!({ "contextId": context, "pageSize": 100 }))
        .await?;
    let tasks = answer.result().map(listed).unwrap_or_default();
    let (same, other): (Vec<&Value>, Vec<&Value>) = tasks
        .iter()
        .partition(|t| a2a::text(t, "contextId") == Some(context));
    if !other.is_empty() {
        return Err(HarnessError::Prerequisite(format!(
            "ListTasks by contextId also returned {} task(s) of other contexts (the filter is \
             judged by tasks.list.filters-by-context-id), so this cannot be judged",
            other.len()
        )));
    }
    let foreign = same.iter().filter(|t| !own.contains(&task_id(t))).count();
    if foreign > 0 {
        return Err(HarnessError::Prerequisite(format!(
            "context {context:?} holds {foreign} task(s) this check did not create (another \
             conversation's, or one the agent made itself), so it cannot be judged on it"
        )));
    }
    Ok(())
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
    require_own_context(&ctx, &context, &[task_id(&task)]).await?;
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
    // A page of other contexts' tasks (an agent that does not filter, judged by
    // tasks.list.filters-by-context-id) holds this check's task or not as the other checks
    // made tasks at the same time or not: judged on none of it.
    let foreign = (tasks.iter())
        .filter(|t| a2a::text(t, "contextId").is_some_and(|c| c != context))
        .count();
    if foreign > 0 {
        return Err(HarnessError::Prerequisite(format!(
            "ListTasks by contextId also returned {foreign} task(s) of other contexts (the \
             filter is judged by tasks.list.filters-by-context-id), so this cannot be judged"
        )));
    }
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

/// Two tasks in one context: the first made without a contextId, the second in its context.
async fn two_in_one_context(
    ctx: &Ctx,
    first_prefix: &str,
) -> Result<(Value, Value, String), HarnessError> {
    let first = ctx.create_task(first_prefix).await?;
    let context = context_of(&first)?;
    let mut message = ctx.user_message("tck-complete-task");
    message["contextId"] = json!(context);
    let second = ctx.create_task_with("tck-complete-task", message).await?;
    Ok((first, second, context))
}

fn status_time(task: &Value) -> Option<std::time::SystemTime> {
    task.get("status")
        .and_then(|s| s.get("timestamp"))
        .and_then(Value::as_str)
        .and_then(|s| humantime::parse_rfc3339_weak(s.trim_end_matches('Z')).ok())
}

async fn sorted_desc(ctx: Ctx) -> Result<Verdict, HarnessError> {
    // A is made first and left waiting, B second; then A is answered, so A is the most
    // recently updated although it was created first: creation order would put B first.
    let (a, b, context) = two_in_one_context(&ctx, "tck-input-required").await?;
    if a2a::state(&a) != Some("TASK_STATE_INPUT_REQUIRED") {
        return Err(HarnessError::Prerequisite(format!(
            "the first task is not waiting for input: state {}",
            a2a::shown(a2a::state(&a))
        )));
    }
    let (a_id, b_id) = (task_id(&a), task_id(&b));
    let answer = follow_up(&ctx, &a, "tck-complete-task", Some(&context));
    let updated = ctx.send_message(answer, None).await?;
    if updated.result().is_none() {
        return Err(HarnessError::Prerequisite(format!(
            "the follow-up that updates the first task was rejected: {}",
            updated.describe()
        )));
    }
    require_own_context(&ctx, &context, &[a_id.clone(), b_id.clone()]).await?;
    let a_now = ctx.get_task(&a_id, None).await?;
    let Some(a_now) = a_now.result() else {
        return Err(HarnessError::Prerequisite(format!(
            "GetTask of the first task failed after its follow-up: {}",
            a_now.describe()
        )));
    };
    match (status_time(a_now), status_time(&b)) {
        (Some(a_time), Some(b_time)) if a_time > b_time => {}
        (Some(_), Some(_)) => {
            return Err(HarnessError::Prerequisite(
                "the follow-up did not give the first task a status timestamp after the second's \
                 (it may have gone to a new task, or the timestamps tie)"
                    .into(),
            ))
        }
        _ => {
            return Err(HarnessError::Prerequisite(
                "the tasks carry no status timestamps to order by".into(),
            ))
        }
    }
    let expected = "tasks ordered by status timestamp, most recently updated first";
    let page = match list_context(&ctx, &context, expected).await? {
        Ok(p) => p,
        Err(v) => return Ok(v),
    };
    let tasks = listed(&page);
    let ids: Vec<&str> = tasks.iter().filter_map(|t| a2a::text(t, "id")).collect();
    let position = |id: &str| ids.iter().position(|i| *i == id);
    let (Some(pa), Some(pb)) = (position(&a_id), position(&b_id)) else {
        return Err(HarnessError::Prerequisite(format!(
            "ListTasks by contextId did not return both tasks made there ({a_id:?}, {b_id:?}); got {ids:?}"
        )));
    };
    let stamps: Vec<Option<std::time::SystemTime>> = tasks.iter().map(status_time).collect();
    if stamps
        .windows(2)
        .any(|w| matches!((w[0], w[1]), (Some(x), Some(y)) if x < y))
    {
        return Ok(Verdict::fail(
            expected,
            format!("timestamps rise along the list {ids:?}"),
        ));
    }
    if stamps[pa].is_some() && stamps[pa] == stamps[pb] {
        return Err(HarnessError::Prerequisite(
            "both tasks carry the same status timestamp, so their order is not observable".into(),
        ));
    }
    if pa < pb {
        Ok(Verdict::pass())
    } else {
        Ok(Verdict::fail(
            format!("{expected}: {a_id:?} (updated last) before {b_id:?}"),
            format!("order {ids:?}"),
        ))
    }
}

async fn filters_by_context(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mine = ctx.create_task("tck-complete-task").await?;
    let other = ctx.create_task("tck-complete-task").await?;
    let context = context_of(&mine)?;
    if a2a::text(&other, "contextId") == Some(context.as_str()) {
        return Err(HarnessError::Prerequisite(
            "two messages without a contextId landed in the same context".into(),
        ));
    }
    let expected = format!(
        "only tasks of context {context:?}, including {:?}",
        task_id(&mine)
    );
    let page = match list_context(&ctx, &context, &expected).await? {
        Ok(p) => p,
        Err(v) => return Ok(v),
    };
    let tasks = listed(&page);
    let foreign: Vec<&str> = tasks
        .iter()
        .filter(|t| a2a::text(t, "contextId") != Some(context.as_str()))
        .map(|t| a2a::text(t, "id").unwrap_or("?"))
        .collect();
    let found = tasks
        .iter()
        .any(|t| a2a::text(t, "id") == Some(task_id(&mine).as_str()));
    if foreign.is_empty() && found {
        Ok(Verdict::pass())
    } else {
        Ok(Verdict::fail(
            expected,
            format!("tasks of other contexts {foreign:?}; own task listed: {found}"),
        ))
    }
}

/// The state of each of `ids` in the context's own listing, as ListTasks shows it.
async fn states_in(
    ctx: &Ctx,
    context: &str,
    ids: &[String],
) -> Result<Vec<Option<String>>, HarnessError> {
    let answer = ctx
        .list_tasks(json!({ "contextId": context, "pageSize": 100 }))
        .await?;
    let tasks = answer.result().map(listed).unwrap_or_default();
    Ok((ids.iter())
        .map(|id| {
            (tasks.iter())
                .find(|t| a2a::text(t, "id") == Some(id.as_str()))
                .and_then(|t| a2a::state(t).map(str::to_string))
        })
        .collect())
}

async fn filters_by_status(ctx: Ctx) -> Result<Verdict, HarnessError> {
    // Two tasks of one context in two states: one waiting for input, one completed.
    let (a, b, context) = two_in_one_context(&ctx, "tck-input-required").await?;
    let ids = [task_id(&a), task_id(&b)];
    require_own_context(&ctx, &context, &ids).await?;
    let before = states_in(&ctx, &context, &ids).await?;
    let (Some(a_state), Some(b_state)) = (before[0].clone(), before[1].clone()) else {
        return Err(HarnessError::Prerequisite(format!(
            "the context's listing does not show both tasks with a state: {before:?}"
        )));
    };
    if a_state == b_state {
        return Err(HarnessError::Prerequisite(format!(
            "both tasks are in {a_state}: the input-required scenario did not leave the first \
             one waiting, so a filter by state cannot be told from none"
        )));
    }
    let mut problems = Vec::new();
    for (state, own, other) in [(&a_state, &ids[0], &ids[1]), (&b_state, &ids[1], &ids[0])] {
        let answer = ctx
            .list_tasks(json!({ "contextId": context, "status": state, "pageSize": 100 }))
            .await?;
        let Answer::Result(page) = &answer else {
            problems.push(format!("status {state}: {}", answer.describe()));
            continue;
        };
        let tasks = listed(page);
        let wrong: Vec<String> = (tasks.iter())
            .filter(|t| a2a::state(t) != Some(state.as_str()))
            .map(|t| {
                format!(
                    "{} in {}",
                    a2a::text(t, "id").unwrap_or("?"),
                    a2a::shown(a2a::state(t))
                )
            })
            .collect();
        let has = |id: &String| {
            tasks
                .iter()
                .any(|t| a2a::text(t, "id") == Some(id.as_str()))
        };
        if !wrong.is_empty() || has(other) || !has(own) {
            problems.push(format!(
                "status {state}: listed {} task(s), other states {wrong:?}, the task in {state} \
                 listed: {}, the other task listed: {}",
                tasks.len(),
                has(own),
                has(other)
            ));
        }
    }
    // A task that moved while the filtered lists were read proves nothing either way.
    let after = states_in(&ctx, &context, &ids).await?;
    if after != before {
        return Err(HarnessError::Prerequisite(format!(
            "the tasks' states moved while the check listed them ({before:?}, then {after:?})"
        )));
    }
    let expected = format!(
        "each filtered page lists the task in that state ({a_state}, {b_state}) and no task in \
         another"
    );
    if problems.is_empty() {
        Ok(Verdict::pass())
    } else {
        Ok(Verdict::fail(expected, problems.join("; ")))
    }
}

async fn page_size_and_cursor(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (a, b, context) = two_in_one_context(&ctx, "tck-complete-task").await?;
    require_own_context(&ctx, &context, &[task_id(&a), task_id(&b)]).await?;
    let expected =
        "one task per page for pageSize 1, a nextPageToken leading to the other, then \"\"";
    let first = ctx
        .list_tasks(json!({ "contextId": context, "pageSize": 1 }))
        .await?;
    let Answer::Result(first) = first else {
        return Ok(Verdict::fail(expected, first.describe()));
    };
    let first_ids: Vec<String> = listed(&first).iter().map(task_id).collect();
    let token = first
        .get("nextPageToken")
        .and_then(Value::as_str)
        .unwrap_or("");
    if first_ids.len() != 1 || token.is_empty() {
        return Ok(Verdict::fail(
            expected,
            format!(
                "first page {first_ids:?} with nextPageToken {}",
                a2a::shown_json(first.get("nextPageToken"))
            ),
        ));
    }
    let second = ctx
        .list_tasks(json!({ "contextId": context, "pageSize": 1, "pageToken": token }))
        .await?;
    let Answer::Result(second) = second else {
        return Ok(Verdict::fail(
            expected,
            format!("the second page: {}", second.describe()),
        ));
    };
    let second_ids: Vec<String> = listed(&second).iter().map(task_id).collect();
    let mut seen = [first_ids.clone(), second_ids.clone()].concat();
    seen.sort();
    let mut made = vec![task_id(&a), task_id(&b)];
    made.sort();
    let last = second.get("nextPageToken").and_then(Value::as_str);
    if seen == made && last == Some("") {
        Ok(Verdict::pass())
    } else {
        Ok(Verdict::fail(
            expected,
            format!(
                "pages {first_ids:?} then {second_ids:?}, final nextPageToken {}",
                a2a::shown(last)
            ),
        ))
    }
}

async fn response_required(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx.create_task("tck-complete-task").await?;
    let context = context_of(&task)?;
    let expected = "tasks, nextPageToken, pageSize and totalSize in the response";
    let page = match list_context(&ctx, &context, expected).await? {
        Ok(p) => p,
        Err(v) => return Ok(v),
    };
    let missing: Vec<&str> = [
        ("tasks", page.get("tasks").is_some_and(Value::is_array)),
        (
            "nextPageToken",
            page.get("nextPageToken").is_some_and(Value::is_string),
        ),
        ("pageSize", page.get("pageSize").is_some_and(is_int)),
        ("totalSize", page.get("totalSize").is_some_and(is_int)),
    ]
    .into_iter()
    .filter(|(_, ok)| !ok)
    .map(|(name, _)| name)
    .collect();
    if missing.is_empty() {
        Ok(Verdict::pass())
    } else {
        Ok(Verdict::fail(
            expected,
            format!(
                "missing or mistyped {missing:?}: {}",
                a2a::brief(&page, 300)
            ),
        ))
    }
}

/// How many tasks the timestamp filter's check makes in its context, at most, to get two
/// whose status timestamps differ (an agent's clock may tick in milliseconds, and two tasks
/// made one after the other then often share one).
const TIMESTAMPED_TASKS: usize = 6;

async fn timestamp_filter(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (first, second, context) = two_in_one_context(&ctx, "tck-complete-task").await?;
    let mut tasks = vec![first, second];
    let untimed = || HarnessError::Prerequisite("the tasks carry no status timestamps".into());
    let mut times = (tasks.iter().map(status_time))
        .collect::<Option<Vec<_>>>()
        .ok_or_else(untimed)?;
    while times[times.len() - 1] <= times[0] && tasks.len() < TIMESTAMPED_TASKS {
        let mut message = ctx.user_message("tck-complete-task");
        message["contextId"] = json!(context);
        let task = ctx.create_task_with("tck-complete-task", message).await?;
        times.push(status_time(&task).ok_or_else(untimed)?);
        tasks.push(task);
    }
    if times[times.len() - 1] <= times[0] {
        return Err(HarnessError::Prerequisite(format!(
            "of {} tasks made one after the other in one context, none carries a status \
             timestamp after the first's",
            tasks.len()
        )));
    }
    let ids: Vec<String> = tasks.iter().map(task_id).collect();
    require_own_context(&ctx, &context, &ids).await?;
    let stamp_of = |task: &Value| {
        (task.get("status"))
            .and_then(|s| s.get("timestamp"))
            .and_then(Value::as_str)
            .map(str::to_string)
            .unwrap_or_default()
    };
    // The newest task's own timestamp and the oldest's as the bounds: "greater than or equal
    // to" lists the tasks at the bound, "after" does not; either reading, held to on both
    // bounds, passes.
    let (oldest, newest) = (&tasks[0], &tasks[tasks.len() - 1]);
    let mut listed_after = Vec::new();
    let (mut inclusive, mut exclusive) = (Vec::new(), Vec::new());
    for (bound, at) in [(newest, times[times.len() - 1]), (oldest, times[0])] {
        let stamp = stamp_of(bound);
        let answer = ctx
            .list_tasks(json!({ "contextId": context, "statusTimestampAfter": stamp }))
            .await?;
        let Answer::Result(page) = answer else {
            return Ok(Verdict::fail(
                format!("a page of tasks for statusTimestampAfter {stamp}"),
                answer.describe(),
            ));
        };
        let mut listed: Vec<String> = listed(&page).iter().map(task_id).collect();
        listed.sort();
        listed_after.push(listed);
        // The tasks listed for this bound under each reading.
        let of = |at_bound: bool| {
            let mut ids: Vec<String> = (tasks.iter().zip(&times))
                .filter(|(_, t)| **t > at || (at_bound && **t == at))
                .map(|(task, _)| task_id(task))
                .collect();
            ids.sort();
            ids
        };
        inclusive.push(of(true));
        exclusive.push(of(false));
    }
    if listed_after == inclusive || listed_after == exclusive {
        Ok(Verdict::pass())
    } else {
        Ok(Verdict::fail(
            format!(
                "for statusTimestampAfter {} (the newest task's), {:?} (greater than or equal) \
                 or {:?} (after), and for {} (the oldest task's), {:?} or {:?}, by the same \
                 reading",
                stamp_of(newest),
                inclusive[0],
                exclusive[0],
                stamp_of(oldest),
                inclusive[1],
                exclusive[1]
            ),
            format!("tasks {:?} and {:?}", listed_after[0], listed_after[1]),
        ))
    }
}

/// An int32 in ProtoJSON: a JSON number, or a decimal string.
fn is_int(value: &Value) -> bool {
    value.as_i64().is_some() || value.as_str().is_some_and(|s| s.parse::<i64>().is_ok())
}

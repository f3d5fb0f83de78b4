//! ListTasks page-size bounds (`tasks.list.*`, proto `ListTasksRequest.page_size`): the
//! default of at most 50 tasks and the range 1..=100, observed on a context of its own that
//! holds more tasks than either bound.

use crate::suite::check::Needs;
use futures::stream::TryStreamExt;
use serde_json::{json, Value};

use crate::exchange::judge;
use crate::facts::a2a::{self, ErrorKind};
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::checks::setup::{sent_task, task_id, Findings, Setup};
use crate::suite::ctx::{Answer, Ctx};

/// The tasks the check makes in its context: one more than the largest page allowed. All but
/// the first go as many at once as the run's pace allows (`Ctx::at_pace`): as fast as the
/// agent bears, one at a time when the check is run again alone.
const TASKS: usize = 101;

/// This module's checks.
pub fn checks() -> Vec<Check> {
    vec![Check {
        id: "tasks.list.page-size-bounds",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "proto ListTasksRequest.page_size",
            statements: &["V10-P-14"],
        },
        requirement: "ListTasks returns at most 50 tasks when pageSize is unset, and never more \
                      than 100 in one page; a pageSize outside 1..=100 is refused with \
                      InvalidParams or clamped into the range",
        // One binding: the 101 tasks cost about 0.1 s of CPU per interface, and ListTasks
        // paging is binding-neutral; JSON-RPC is the binding 1.0 agents serve most.
        scope: crate::suite::checks::EVERY_BINDING_1_0,
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some(
            "The proto comment states the default and the bounds without an RFC 2119 keyword \
             (level \"—\"); like the other proto rules of ListTasks, a page the comment rules \
             out is a WARN, not a FAIL. The comment does not say what an out-of-range \
             pageSize gets: §6.5's example and the Python SDK refuse it (InvalidParams), other \
             servers clamp it; both are accepted. pageSize 0 may also be read as unset (at most \
             50). WARN only for what no reading allows: more than 50 tasks with pageSize unset \
             or 0, more than 100 with pageSize 101, or an error other than InvalidParams. The \
             check makes 101 tasks in a context of its own on each 1.0 binding, since each \
             binding reads pageSize its own way (a query parameter on REST). A page's size \
             counts every task it lists, of any context: an agent that ignores the contextId \
             filter holds the 101 tasks all the same.",
        ),
        needs: Needs::NONE.weighs(12).batches(TASKS as u32 - 1),
        run: |ctx| Box::pin(page_size_bounds(ctx)),
    }]
}

/// Makes `TASKS` tasks in one new context; its id and the ids of the tasks.
async fn fill_context(ctx: &Ctx) -> Result<(String, Vec<String>), HarnessError> {
    let first = ctx.create_task("tck-complete-task").await?;
    let context = a2a::text(&first, "contextId")
        .map(str::to_string)
        .ok_or_else(|| {
            HarnessError::Prerequisite("the created task has no contextId to list by".into())
        })?;
    let rest: Vec<String> = ctx
        .at_pace(1..TASKS, |_| {
            let mut message = ctx.user_message("tck-complete-task");
            message["contextId"] = json!(context);
            async move {
                // No history back: a hundred tasks' worth would only swell the evidence.
                let answer = ctx
                    .send_message(message, Some(json!({ "historyLength": 0 })))
                    .await?;
                match sent_task(&answer).and_then(|t| a2a::text(t, "id")) {
                    Some(id) => Ok::<_, HarnessError>(id.to_string()),
                    None => Err(HarnessError::Prerequisite(format!(
                        "SendMessage did not return a task with an id; got {}",
                        answer.describe()
                    ))),
                }
            }
        })
        .try_collect()
        .await?;
    let mut ids = vec![task_id(&first)];
    ids.extend(rest);
    Ok((context, ids))
}

/// How many tasks a ListTasks page holds. The bounds hold for every page, so tasks of other
/// contexts (an agent that does not filter by contextId, judged by
/// tasks.list.filters-by-context-id) count as well: such an agent holds at least the check's
/// `TASKS` tasks, as many as its own context would. Counting only the check's own would make
/// the result hang on how many tasks the other checks made at the same time.
fn page_tasks(page: &Value) -> Result<usize, HarnessError> {
    let tasks = page.get("tasks").and_then(Value::as_array);
    let Some(tasks) = tasks else {
        return Err(HarnessError::Prerequisite(format!(
            "ListTasks answered without a `tasks` array (judged by \
             tasks.list.response-required-fields): {}",
            a2a::brief(page, 200)
        )));
    };
    Ok(tasks.len())
}

async fn page_size_bounds(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (context, made) = fill_context(&ctx).await?;
    let mut findings = Findings::default();

    // Unset: at most 50.
    let answer = ctx
        .list_tasks(json!({ "contextId": context, "historyLength": 0 }))
        .await?;
    let Answer::Result(page) = answer else {
        return Ok(Verdict::fail(
            "a page of at most 50 tasks for ListTasks without pageSize",
            answer.describe(),
        ));
    };
    let count = page_tasks(&page)?;
    if count == 0 {
        return Err(HarnessError::Prerequisite(format!(
            "ListTasks by contextId listed no task, though {} were just made there",
            made.len()
        )));
    }
    if count > 50 {
        findings.problem(format!(
            "pageSize unset: {count} tasks in one page (at most 50)"
        ));
    }

    // Out of range: InvalidParams, or a page inside the range.
    for (size, most) in [(0_i64, 50_usize), (101, 100)] {
        let answer = ctx
            .list_tasks(json!({ "contextId": context, "pageSize": size, "historyLength": 0 }))
            .await?;
        match answer {
            Answer::Result(page) => {
                let count = page_tasks(&page)?;
                if count > most {
                    findings.problem(format!(
                        "pageSize {size}: {count} tasks in one page (InvalidParams, or at most \
                         {most})"
                    ));
                }
            }
            Answer::Error(error) => {
                if let Err(differs) = judge::error(&error, ErrorKind::InvalidParams) {
                    findings.problem(format!(
                        "pageSize {size}: an error that is not InvalidParams ({differs}: \
                         {error})"
                    ));
                }
            }
        }
    }
    Ok(findings.verdict(
        "at most 50 tasks with pageSize unset; pageSize 0 and 101 refused with InvalidParams \
         or answered with a page inside the bounds",
        Verdict::pass(),
    ))
}

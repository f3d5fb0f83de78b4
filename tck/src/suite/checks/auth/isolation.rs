//! The checks of principal isolation: one principal's task is invisible to another.

use crate::suite::checks::setup::auth::{protocol_headers, served};
use serde_json::{json, Value};

use super::{security_required, streams};
use crate::exchange::transport::stream::{End, Next, Start};
use crate::facts::model::ProtocolVersion;
use crate::suite::check::{HarnessError, Verdict};
use crate::suite::checks::setup::{task_id, Findings, Setup};
use crate::suite::ctx::{Answer, Ctx, ErrorReply};

/// The second principal, or why the check cannot run.
fn other_principal(ctx: &Ctx) -> Result<Ctx, HarnessError> {
    if ctx.other_credentials().is_empty() {
        return Err(HarnessError::Prerequisite(
            "no second principal: give its credentials with --other-bearer, --other-bearer-env \
             or --other-header to test that one caller cannot see another's tasks"
                .into(),
        ));
    }
    let mut headers = protocol_headers(ctx);
    headers.extend(ctx.other_credentials().iter().cloned());
    Ok(ctx.as_caller(headers))
}

/// Whether a ListTasks answer lists `id`.
fn lists(answer: &Answer, id: &str) -> bool {
    answer
        .result()
        .and_then(|r| r.get("tasks"))
        .and_then(Value::as_array)
        .is_some_and(|tasks| {
            tasks
                .iter()
                .any(|t| t.get("id").and_then(Value::as_str) == Some(id))
        })
}

pub(super) async fn principals_isolated(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Err(why) = security_required(&ctx.card.json) {
        return Ok(Verdict::NotApplicable { reason: why });
    }
    let other = other_principal(&ctx)?;
    let task = ctx.create_task("tck-complete-task").await?;
    let id = task_id(&task);
    let state = crate::facts::a2a::state(&task).map(str::to_owned);
    let context = crate::facts::a2a::text(&task, "contextId").map(str::to_owned);
    let mut findings = Findings::default();
    let reply = other.get(other.with_tenant(json!({ "id": id }))?).await?;
    if let Some(what) = served(&reply) {
        findings.problem(format!("GetTask by the other principal was served: {what}"));
    }
    if ctx.version() == ProtocolVersion::V1_0 {
        let mut queries = vec![json!({})];
        queries.extend(context.iter().map(|c| json!({ "contextId": c })));
        for query in queries {
            let shown = query.to_string();
            let answer = other.list(query).await?.answer()?;
            if lists(&answer, &id) {
                findings.problem(format!(
                    "ListTasks {shown} by the other principal lists the task"
                ));
            }
        }
    }
    if streams(&ctx) {
        if let Start::Stream(mut stream) = other
            .subscribe(other.with_tenant(json!({ "id": id }))?)
            .await?
        {
            // A stream that ends (closes, errs or breaks) before any event showed nothing of
            // the task: the refusal's form is `auth.foreign-task-indistinguishable`'s to judge.
            // An event, or a subscription held open, serves the other principal.
            match stream.next(ctx.stream_wait()).await {
                Next::End(End::Closed | End::Error(_) | End::Broken(_)) => {}
                first => findings.problem(format!(
                    "SubscribeToTask by the other principal started a stream (first: {})",
                    first.brief()
                )),
            }
        }
    }
    let reply = other
        .cancel(other.with_tenant(json!({ "id": id }))?)
        .await?;
    if let Some(what) = served(&reply) {
        findings.problem(format!(
            "CancelTask by the other principal was served: {what}"
        ));
    }
    // The owner still sees the task as it was.
    let after = ctx.get(json!({ "id": id })).await?.answer()?;
    let now = after
        .result()
        .and_then(crate::facts::a2a::state)
        .map(str::to_owned);
    if now.as_deref() == Some("TASK_STATE_CANCELED")
        && state.as_deref() != Some("TASK_STATE_CANCELED")
    {
        findings.problem("the other principal's CancelTask canceled the task".into());
    }
    Ok(findings.verdict(
        "another principal's GetTask, ListTasks, SubscribeToTask and CancelTask neither show nor change the task",
        Verdict::pass(),
    ))
}

/// What identifies an error across answers: code, statuses, ErrorInfo reason.
fn identity(error: &ErrorReply) -> String {
    format!(
        "code {:?}, HTTP {:?}, status {:?}, reason {:?}",
        error.code,
        error.http_status,
        error.status,
        error.error_info.as_ref().map(|i| i.reason.as_str())
    )
}

/// Whether two errors look the same to a caller: the same code and statuses, and the same
/// ErrorInfo reason where both carry one (a detail present on one only is not taken as a
/// disclosure; messages may differ).
fn alike(a: &ErrorReply, b: &ErrorReply) -> bool {
    let reason = |e: &ErrorReply| e.error_info.as_ref().map(|i| i.reason.clone());
    let reasons_agree = match (reason(a), reason(b)) {
        (Some(x), Some(y)) => x == y,
        _ => true,
    };
    a.code == b.code && a.http_status == b.http_status && a.status == b.status && reasons_agree
}

pub(super) async fn foreign_task(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Err(why) = security_required(&ctx.card.json) {
        return Ok(Verdict::NotApplicable { reason: why });
    }
    let other = other_principal(&ctx)?;
    let id = task_id(&ctx.create_task("tck-complete-task").await?);
    let expected = "the same error as for a task that does not exist (TaskNotFoundError)";
    let foreign = other.get(other.with_tenant(json!({ "id": id }))?).await?;
    if let Some(what) = served(&foreign) {
        return Ok(Verdict::fail(
            expected,
            format!("the other principal read the task: {what}"),
        ));
    }
    let unknown_id = other.id("tck-no-such-task");
    let unknown = other
        .get(other.with_tenant(json!({ "id": unknown_id }))?)
        .await?;
    let (Ok(Answer::Error(foreign)), Ok(Answer::Error(unknown))) = (&foreign.read, &unknown.read)
    else {
        return Err(HarnessError::Malformed(format!(
            "GetTask by the other principal: the answers could not be read as errors ({:?}; {:?})",
            foreign.read.as_ref().err(),
            unknown.read.as_ref().err()
        )));
    };
    if alike(foreign, unknown) {
        return Ok(Verdict::pass());
    }
    let actual = format!(
        "another principal's task: {}; an unknown task: {}",
        identity(foreign),
        identity(unknown)
    );
    let authorization =
        foreign.http_status == Some(403) || foreign.status.as_deref() == Some("PERMISSION_DENIED");
    Ok(if authorization {
        Verdict::tolerate(expected, actual, "§3.3.2 also asks for an authorization error when the caller lacks permission (V10-3.3.2-05)")
    } else {
        Verdict::fail(expected, actual)
    })
}

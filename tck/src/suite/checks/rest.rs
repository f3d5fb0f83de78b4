//! HTTP+JSON/REST binding checks (`rest.*`, spec 1.0 §11): media types, success status, and
//! the google.rpc.Status error body.

pub mod error_details;
use super::setup::rest::raw;
use crate::suite::check::Needs;
use serde_json::{json, Value};

use super::setup::{not_found, task_id, Setup};
use super::REST_1_0;
use crate::exchange::transport::{answer, rest};
use crate::exchange::wire::{HttpReply, Request};
use crate::facts::a2a::{self, ERROR_DOMAIN, ERROR_INFO_TYPE};
use crate::facts::revision::{self, Sentence};
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::{Answer, Ctx};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "rest";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "rest.content-type-a2a-json",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "11.1", statements: &["V10-11.1-01"] },
            requirement: "REST responses use Content-Type application/a2a+json",
            scope: REST_1_0,
            requires: &[],
            maps_to: &[],
            acts: &["REST-CT-001"],
            reading: Some(
                "1.0.0 named application/json (no keyword; its own examples show \
                 application/a2a+json); 1.0.1 asks for application/a2a+json (spec notes §1.17 \
                 #4). application/json is a valid JSON answer (see rest.content-type-json) and \
                 only this SHOULD warns about it; with --spec-revision 1.0.0 both pass.",
            ),
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(content_type_a2a(ctx)),
        },
        Check {
            id: "rest.content-type-json",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "11.1", statements: &["V10-D-11.1-01"] },
            requirement: "REST responses are ProtoJSON with a JSON media type (application/a2a+json or application/json)",
            scope: REST_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "§11.1 describes the bodies as ProtoJSON without an RFC 2119 keyword and asks \
                 for application/a2a+json only with a SHOULD (judged by \
                 rest.content-type-a2a-json): a body that is not JSON, or another media type, is \
                 a WARN here.",
            ),
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(content_type_json(ctx)),
        },
        Check {
            id: "rest.success-status-200",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "11.3", statements: &["V10-D-11.3-01", "V10-11.5-04"] },
            requirement: "A successful REST call answers HTTP 200 with the response message as its body",
            scope: REST_1_0,
            requires: &[],
            maps_to: &["HTTP_JSON-STATUS-001"],
            acts: &[],
            reading: Some(
                "The HTTP+JSON routes are the proto's google.api.http annotations, whose success \
                 status is 200 with the response message as the body.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(success_200(ctx)),
        },
        Check {
            id: "rest.errors.google-rpc-status",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "11.6", statements: &["V10-11.6-01", "V10-11.6-04", "V10-5.4-01"] },
            requirement: "A REST error is a google.rpc.Status in \"error\" (code = HTTP status, status name, message, @type'd details) with ErrorInfo reason and domain",
            scope: REST_1_0,
            requires: &[],
            maps_to: &["HTTP_JSON-STATUS-001"],
            acts: &["REST-STATUS-001", "REST-PD-001"],
            reading: Some(
                "§6.4/§6.5 still show RFC 9457 problem details; §11.6 and the 1.0 change notes \
                 make google.rpc.Status the REST error format (spec notes §1.17 #2). This check \
                 follows §11.6.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(rest_error_body(ctx)),
        },
        Check {
            id: "rest.errors.content-type-json",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "11.1", statements: &["V10-11.1-01"] },
            requirement: "REST error responses carry Content-Type application/a2a+json (or application/json), not another type such as application/problem+json",
            scope: REST_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "§11.1's SHOULD names application/a2a+json for every response, errors \
                 included (the §11.6 error example carries it); 1.0.0 named application/json, \
                 which rest.content-type-a2a-json already warns about, so this check accepts \
                 both. Any other type warns: application/problem+json (RFC 9457, the type of \
                 the stale problem-details examples of §6.4/§6.5) labels the body a problem \
                 details object, while a 1.0 REST error is a google.rpc.Status. Only a SHOULD: \
                 no sentence makes an error's media type a MUST. Judged on GetTask of an \
                 unknown id.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(error_content_type(ctx)),
        },
    ]
}

/// A plain successful REST exchange: GetTask of a task just created.
async fn rest_get(ctx: &Ctx) -> Result<HttpReply, HarnessError> {
    let task = ctx.create_task("tck-complete-task").await?;
    raw(ctx, "GetTask", json!({ "id": task_id(&task) })).await
}

async fn content_type_a2a(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let http = rest_get(&ctx).await?;
    revision::note(Sentence::RestMediaType);
    // The media types the revision judged by names (1.0.0 names application/json, and its
    // own examples show application/a2a+json; 1.0.1 asks for application/a2a+json).
    let by = revision::judging().revision();
    let named = by.rest_media_types.0;
    Ok(match http.media_type().as_deref() {
        Some(media) if named.contains(&media) => Verdict::pass(),
        other => Verdict::fail(
            format!("Content-Type {}", named.join(" or ")),
            format!("Content-Type {}", a2a::shown(other)),
        ),
    })
}

async fn content_type_json(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let http = rest_get(&ctx).await?;
    let media = http.media_type();
    let json_type = matches!(
        media.as_deref(),
        Some("application/a2a+json" | "application/json")
    );
    Ok(match (json_type, http.json().is_some()) {
        (true, true) => Verdict::pass(),
        _ => Verdict::fail(
            "a JSON body with Content-Type application/a2a+json or application/json",
            format!(
                "HTTP {}, Content-Type {}: {}",
                http.status,
                a2a::shown(media.as_deref()),
                http.body_start(120)
            ),
        ),
    })
}

async fn success_200(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let message = ctx.user_message("tck-complete-task");
    let http = raw(&ctx, "SendMessage", json!({ "message": message })).await?;
    let read = answer::read_rest(&http);
    Ok(match (http.status, &read.read) {
        (200, Ok(Answer::Result(_))) => Verdict::pass(),
        _ => Verdict::fail(
            "HTTP 200 with the SendMessageResponse",
            format!("HTTP {}: {}", http.status, http.body_start(200)),
        ),
    })
}

async fn rest_error_body(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let error = match not_found(&ctx).await? {
        Ok(e) => e,
        Err(v) => return Ok(v),
    };
    let mut problems = Vec::new();
    if error.http_status != Some(404) {
        problems.push(format!(
            "HTTP {} (404 for TaskNotFoundError)",
            error.http_status.unwrap_or(0)
        ));
    }
    if let Some(problem) = &error.shape_problem {
        problems.push(problem.clone());
    }
    let body = error.raw.get("error");
    if let Some(body) = body {
        if body.get("status").and_then(Value::as_str) != Some("NOT_FOUND") {
            problems.push(format!(
                "error.status is {} (NOT_FOUND for HTTP 404)",
                a2a::shown_json(body.get("status"))
            ));
        }
        if !body.get("message").is_some_and(Value::is_string) {
            problems.push("error.message is not a string".into());
        }
    }
    match &error.error_info {
        Some(info) if info.reason == "TASK_NOT_FOUND" && info.domain == ERROR_DOMAIN => {}
        other => problems.push(format!(
            "no {ERROR_INFO_TYPE} with reason TASK_NOT_FOUND and domain {ERROR_DOMAIN} (found {other:?})"
        )),
    }
    Ok(if problems.is_empty() {
        Verdict::pass()
    } else {
        Verdict::fail(
            "{\"error\": {code: 404, status: \"NOT_FOUND\", message, details: [ErrorInfo TASK_NOT_FOUND]}}",
            format!("{}: {error}", problems.join("; ")),
        )
    })
}

async fn error_content_type(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let http = raw(&ctx, "GetTask", json!({ "id": ctx.id("tck-no-such-task") })).await?;
    if http.status < 400 {
        return Err(HarnessError::Prerequisite(format!(
            "GetTask of an unknown id was not answered with an HTTP error: HTTP {}: {}",
            http.status,
            http.body_start(200)
        )));
    }
    let media = http.media_type();
    let shown = http.header("content-type").map(str::to_string);
    Ok(match media.as_deref() {
        Some("application/a2a+json" | "application/json") => Verdict::pass_with(format!(
            "HTTP {}, Content-Type {}",
            http.status,
            a2a::shown(shown.as_deref())
        )),
        _ => Verdict::fail(
            "an error response with Content-Type application/a2a+json (or application/json)",
            format!(
                "HTTP {}, Content-Type {}: {}",
                http.status,
                a2a::shown(shown.as_deref()),
                http.body_start(120)
            ),
        ),
    })
}

/// The binding rules of §11.2 and §11.5 (service parameters, query parameters), after the
/// checks above in the catalogue.
pub fn binding_rules() -> Vec<Check> {
    vec![
        Check {
            id: "rest.service-parameters-as-headers",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "11.2", statements: &["V10-11.2-01", "V10-11.2-02"] },
            requirement: "The A2A-Version service parameter is read from the HTTP header of that name: 1.0 is served, 99.0 gets VersionNotSupportedError",
            scope: REST_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "HTTP header names are case-insensitive; the kit sends `a2a-version`. The \
                 query-parameter form (§3.6.1) is checked by versioning.query-parameter-version.",
            ),
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(version_header(ctx)),
        },
        Check {
            id: "rest.query-parameters-camel-case",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "11.5", statements: &["V10-11.5-01", "V10-11.5-02"] },
            requirement: "GET /tasks reads its parameters from the query string under their camelCase names (contextId, pageSize)",
            scope: REST_1_0,
            requires: &[],
            maps_to: &["HTTP_JSON-QP-001"],
            acts: &[],
            reading: None,
            needs: Needs::NONE.weighs(3),
            run: |ctx| Box::pin(camel_case_query(ctx)),
        },
        Check {
            id: "rest.query-values-percent-decoded",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "11.5", statements: &["V10-11.5-05"] },
            requirement: "Query values are percent-decoded (RFC 3986): statusTimestampAfter sent as 2000-01-01T00%3A00%3A00Z filters as the timestamp it encodes",
            scope: REST_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: None,
            needs: Needs::NONE.weighs(2),
            run: |ctx| Box::pin(percent_decoded(ctx)),
        },
    ]
}

async fn version_header(ctx: Ctx) -> Result<Verdict, HarnessError> {
    use crate::exchange::judge;
    use crate::exchange::transport::VersionHeader;
    // 1.0 must be served as 1.0 (not refused as a version: what GetTask of an unknown id then
    // answers is judged by tasks.get.*); 99.0 must be refused with VersionNotSupportedError.
    let mut findings = super::setup::Findings::default();
    let served = ctx
        .request_with(
            "GetTask",
            json!({ "id": ctx.id("tck-no-such-task") }),
            VersionHeader::Value("1.0"),
        )
        .await?;
    if let Ok(crate::exchange::transport::Answer::Error(e)) = &served.read {
        if judge::error(e, a2a::ErrorKind::VersionNotSupported).is_ok() {
            findings.problem(format!(
                "GetTask with A2A-Version: 1.0 was refused as a version: {e}"
            ));
        }
    }
    let refused = ctx
        .request_with(
            "GetTask",
            json!({ "id": ctx.id("tck-no-such-task") }),
            VersionHeader::Value("99.0"),
        )
        .await?;
    findings.add(
        "GetTask with A2A-Version: 99.0",
        judge::expect_error(&refused, a2a::ErrorKind::VersionNotSupported),
    );
    Ok(findings.verdict(
        "A2A-Version read from the header: 1.0 served as 1.0, 99.0 refused with VersionNotSupportedError",
        Verdict::pass(),
    ))
}

/// GET on a ListTasks URL with the interface's version header; the tasks of the answer.
async fn list_at(ctx: &Ctx, url: &str) -> Result<Result<Vec<Value>, String>, HarnessError> {
    let interface = ctx
        .interface
        .as_ref()
        .ok_or_else(|| HarnessError::Internal("no interface".into()))?;
    let http = ctx
        .wire
        .send(Request {
            method: reqwest::Method::GET,
            url,
            headers: vec![
                ("accept", rest::ACCEPT.to_string()),
                ("a2a-version", interface.version.as_str().to_string()),
            ],
            body: None,
        })
        .await?;
    Ok(match (http.status, http.json()) {
        (200, Some(body)) => Ok(a2a::items(&body, "tasks").cloned().collect()),
        _ => Err(format!(
            "GET {url}: HTTP {}: {}",
            http.status,
            http.body_start(200)
        )),
    })
}

/// Two fresh tasks (each in its own context); the ListTasks URL of `params`.
async fn two_tasks(ctx: &Ctx) -> Result<(Value, Value), HarnessError> {
    let first = ctx.create_task("tck-complete-task").await?;
    let second = ctx.create_task("tck-complete-task").await?;
    Ok((first, second))
}

fn list_url(ctx: &Ctx, params: Value) -> Result<String, HarnessError> {
    let interface = ctx
        .interface
        .as_ref()
        .ok_or_else(|| HarnessError::Internal("no interface".into()))?;
    Ok(rest::route(&interface.url, "ListTasks", &ctx.with_tenant(params)?)?.url)
}

/// The contextId of a task the check made, to list by; a task without one leaves nothing to
/// list (the missing contextId is judged by the `context.*` and `send.*` checks).
fn context_of(task: &Value) -> Result<String, HarnessError> {
    a2a::text(task, "contextId")
        .map(str::to_string)
        .ok_or_else(|| {
            HarnessError::Prerequisite(
                "the task the kit made carries no contextId, so there is no context to list by \
                 (judged by send.context-id-generated-when-absent)"
                    .into(),
            )
        })
}

fn ids(tasks: &[Value]) -> Vec<String> {
    tasks.iter().map(task_id).collect()
}

async fn camel_case_query(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (first, _second) = two_tasks(&ctx).await?;
    let context = context_of(&first)?;
    let url = list_url(&ctx, json!({ "contextId": context, "pageSize": 1 }))?;
    Ok(match list_at(&ctx, &url).await? {
        Ok(tasks) if ids(&tasks) == [task_id(&first)] => Verdict::pass(),
        Ok(tasks) => Verdict::fail(
            format!("exactly the task {} of context {context}", task_id(&first)),
            format!("GET {url}: tasks {:?}", ids(&tasks)),
        ),
        Err(problem) => Verdict::fail("HTTP 200 with the tasks of the context", problem),
    })
}

/// Percent-encodes a query value, keeping only the RFC 3986 unreserved characters.
fn encode(text: &str) -> String {
    text.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

async fn percent_decoded(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx.create_task("tck-complete-task").await?;
    let context = context_of(&task)?;
    let base = list_url(&ctx, json!({ "contextId": context }))?;
    let since = "2000-01-01T00:00:00Z";
    let url = format!("{base}&statusTimestampAfter={}", encode(since));
    let listed = list_at(&ctx, &url).await?;
    // A page of other contexts' tasks: the contextId parameter was not applied (judged by
    // rest.query-parameters-camel-case). Whether the page still reaches this check's task
    // hangs on how many tasks the other checks made meanwhile, not on the decoding.
    let foreign = |tasks: &[Value]| {
        (tasks.iter()).any(|t| a2a::text(t, "contextId").is_some_and(|c| c != context))
    };
    if let Ok(tasks) = &listed {
        if foreign(tasks) {
            return Err(HarnessError::Prerequisite(format!(
                "GET {url} listed tasks of other contexts: the contextId parameter was not \
                 applied (judged by rest.query-parameters-camel-case), so whether the \
                 statusTimestampAfter value was decoded cannot be told"
            )));
        }
    }
    Ok(match listed {
        Ok(tasks) if ids(&tasks).contains(&task_id(&task)) => Verdict::pass(),
        Ok(tasks) => Verdict::fail(
            format!("the task {} (updated after {since})", task_id(&task)),
            format!("GET {url}: tasks {:?}", ids(&tasks)),
        ),
        Err(problem) => Verdict::fail(
            format!("HTTP 200 with the tasks updated after {since}"),
            problem,
        ),
    })
}

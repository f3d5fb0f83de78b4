//! Push-config checks (`push.*`, the config operations): create, get, list (with paging),
//! delete, and their errors, on every binding of both versions, when the card declares
//! `capabilities.pushNotifications` (spec 1.0 §3.1.7–§3.1.10; 0.3 §7.5–§7.8). The delivery
//! checks are in `push_delivery.rs`. Every config points at the kit's webhook receiver.

mod after_delete;
pub mod delivery;
pub mod order;
use crate::suite::check::Needs;
use serde_json::json;

use super::setup::push::{self as ps, Hook};
use super::setup::{names_error, task_id, Findings};
use super::EVERY_BINDING_BOTH;
use crate::exchange::judge;
use crate::facts::a2a::{self, ErrorKind};
use crate::facts::model::ProtocolVersion;
use crate::suite::check::{Capability, Check, Gate, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::{Answer, Ctx};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "push";

/// The gate of every push check.
pub const PUSH: &[Gate] = &[Gate::Declares(Capability::PushNotifications)];

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "push.config-create-returns-config",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.7", statements: &["V10-3.1.7-01", "V03-7.5-01"] },
            requirement: "CreateTaskPushNotificationConfig answers the config it stored, with its id and webhook URL",
            scope: EVERY_BINDING_BOTH,
            requires: PUSH,
            maps_to: &["PUSH-CREATE-001"],
            acts: &["PUSH-CFG-001"],
            reading: Some(
                "The config is made on an open (input-required) task with the kit's webhook URL, \
                 a token and Bearer credentials. An agent that refuses the URL with InvalidParams \
                 (loopback refused against SSRF, §13.2) makes the check UNTESTABLE: give it \
                 --webhook-url. On 0.3 the config is nested in `pushNotificationConfig` and read \
                 back from there.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(2),
            run: |ctx| Box::pin(create_returns(ctx)),
        },
        Check {
            id: "push.config-get-returns-config",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.8", statements: &["V10-3.1.8-01", "V10-3.1.7-02", "V03-7.6-01"] },
            requirement: "GetTaskPushNotificationConfig returns the stored config: its id and webhook URL",
            scope: EVERY_BINDING_BOTH,
            requires: PUSH,
            maps_to: &["PUSH-GET-001", "PUSH-CREATE-002"],
            acts: &["PUSH-CFG-002"],
            reading: None,
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(3),
            run: |ctx| Box::pin(get_returns(ctx)),
        },
        Check {
            id: "push.config-list-returns-all",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.9", statements: &["V10-3.1.9-01", "V03-7.7-01"] },
            requirement: "ListTaskPushNotificationConfigs returns every active config of the task",
            scope: EVERY_BINDING_BOTH,
            requires: PUSH,
            maps_to: &["PUSH-LIST-001"],
            acts: &["PUSH-LIST-001"],
            reading: Some(
                "Two configs are made on one task; the list (following nextPageToken, when the \
                 agent pages) must hold both. 0.3 JSON-RPC answers a bare array.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(5),
            run: |ctx| Box::pin(list_returns_all(ctx)),
        },
        Check {
            id: "push.config-list-pages",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.9", statements: &["V10-3.1.9-01"] },
            requirement: "When the agent pages the config list (pageSize, nextPageToken), following the tokens gives every config exactly once",
            scope: super::EVERY_BINDING_1_0,
            requires: PUSH,
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Paging is a MAY: an agent that answers every config on one page with pageSize 1 \
                 is N/A here (it does not page). An agent that pages must not lose or repeat \
                 configs across pages (the MUST of returning all active configs). 0.3 JSON-RPC \
                 has no paging parameters (N/A).",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(6),
            run: |ctx| Box::pin(list_pages(ctx)),
        },
        Check {
            id: "push.config-delete-removes",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.10", statements: &["V10-3.1.10-01", "V10-3.1.10-02", "V03-7.8-01"] },
            requirement: "After DeleteTaskPushNotificationConfig, Get fails and List no longer holds the config; on 1.0, deleting it again has the same effect",
            scope: EVERY_BINDING_BOTH,
            requires: PUSH,
            maps_to: &["PUSH-DEL-001", "PUSH-DEL-002"],
            acts: &["PUSH-CFG-003", "PUSH-IDEM-001"],
            reading: Some(
                "The delete must succeed, and then Get must no longer answer the config and \
                 List no longer hold it (1.0 §3.1.10; 0.3 §7.8: the operation deletes the \
                 config). On 1.0 the config is deleted a second time, which may succeed or \
                 answer TaskNotFoundError, a not-found of the binding or InvalidParams (the \
                 config is gone either way: the same effect). \
                 Idempotency is a 1.0 rule: 0.3 says nothing of a second delete and names its \
                 errors only by example, so on 0.3 the second delete is not sent and only the \
                 config being gone is judged.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(7),
            run: |ctx| Box::pin(delete_removes(ctx)),
        },
        Check {
            id: "push.config-get-unknown-config-fails",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.8", statements: &["V10-3.1.8-02", "V03-7.6-01"] },
            requirement: "GetTaskPushNotificationConfig of a config that does not exist fails (1.0: with TaskNotFoundError)",
            scope: EVERY_BINDING_BOTH,
            requires: PUSH,
            maps_to: &["PUSH-GET-002"],
            acts: &["PUSH-ERR-001"],
            reading: Some(
                "1.0: §3.1.8 names TaskNotFoundError for a missing config; a plain not-found of \
                 the binding (JSON-RPC -32001, HTTP 404, gRPC NOT_FOUND) with another reason is \
                 accepted too, since the spec has no error of its own for configs, and so is \
                 InvalidParams (the params name no config): the MUST is that the operation \
                 fails, and the error list names its error without a keyword. Success, or an \
                 internal or unrelated error, fails. 0.3: §7.6 names its errors only by \
                 example (\"e.g., PushNotificationNotSupportedError, TaskNotFoundError\"), so \
                 any error refuses the request and passes; only a success (a config, or any \
                 answer that is not an error) fails there.",
            ),
            needs: Needs::NONE.sends(&["tck-input-required"]).weighs(2),
            run: |ctx| Box::pin(get_unknown_config(ctx)),
        },
        Check {
            id: "push.config-unknown-task-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.1.8", statements: &["V10-3.1.8-02"] },
            requirement: "The push-config operations on a task that does not exist fail with TaskNotFoundError",
            scope: super::EVERY_BINDING_1_0,
            requires: PUSH,
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Create, Get and List name a task id no task has. The error table of §3.1.7–3.1.9 \
                 gives TaskNotFoundError; an InvalidParams refusal of the webhook URL on Create is \
                 not judged (the agent never looked at the task).",
            ),
            needs: Needs::NONE.weighs(3),
            run: |ctx| Box::pin(unknown_task(ctx)),
        },
        Check {
            id: "push.config-private-webhook-refused",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "13.2", statements: &["V10-13.2-05", "V03-D-03"] },
            requirement: "A webhook on a link-local or loopback address (169.254.169.254, 127.0.0.1) is refused, at creation or before it is called",
            scope: EVERY_BINDING_BOTH,
            requires: PUSH,
            maps_to: &[],
            acts: &[],
            reading: Some(
                "§13.2 asks agents to validate webhook URLs against SSRF (private, loopback, \
                 link-local) but says neither when nor how: refusing the config at creation \
                 and refusing to call it later both follow it. A verdict rests on what the kit \
                 sees. It tries the link-local metadata address: any error at creation refuses \
                 it (PASS); an accepted config is deleted at once, before the agent could call \
                 it, and is no evidence, since a call there cannot be seen (UNTESTABLE). Where \
                 agents are given a webhook on another host (--webhook-url) and the kit's \
                 receiver also answers on loopback, the kit adds a config on 127.0.0.1, whose \
                 calls it does see, and completes the task: a call to it WARNs; a refusal at \
                 creation, or no call by the time the terminal notification reached the kit's \
                 other webhook, does not. Without --webhook-url the kit's own webhook is on \
                 loopback, which the agent is asked to call, so that probe is not made (an \
                 agent that refuses loopback must be given --webhook-url for the other push \
                 checks).",
            ),
            needs: Needs::NONE.sends(&["tck-input-required", "tck-artifact-text"]),
            run: |ctx| Box::pin(private_webhook_refused(ctx)),
        },
    ]
}

/// A webhook no agent should call: the link-local cloud metadata address.
const PRIVATE_WEBHOOK: &str = "http://169.254.169.254/latest/meta-data/a2a-tck";

/// What became of the loopback probe (a config on the kit's receiver at 127.0.0.1).
enum Loopback {
    /// Not made: the URL agents are given is itself on loopback, or the receiver does not
    /// answer there.
    NotProbed,
    Refused(String),
    /// Accepted, and not called by the time the task's terminal notification reached the
    /// kit's other webhook.
    NotCalled,
}

async fn private_webhook_refused(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ps::open_task(&ctx).await?;
    let id = task_id(&task);
    // The link-local address: only the answer at creation can be seen. An accepted config
    // is deleted at once, so that the agent never calls the metadata address.
    let params = ctx.with_tenant(json!({ "taskId": id, "url": PRIVATE_WEBHOOK }))?;
    let answer = ctx.create_push_config(params).await?.answer()?;
    let link_local = match answer.result().filter(|c| c.is_object()) {
        Some(config) => {
            let delete = ctx.with_tenant(json!({ "taskId": id, "id": ps::config_id(config) }))?;
            ctx.delete_push_config(delete).await?;
            None
        }
        None => Some(answer.describe()),
    };
    // A loopback webhook whose calls the kit sees: only where agents are given another host.
    let probe = Hook::new(&ctx)?;
    let loopback = match ctx.webhook()?.loopback_url_for(&probe.key) {
        None => Loopback::NotProbed,
        Some(url) => {
            let mut config = probe.for_task(&id);
            config["url"] = json!(url);
            let answer = ctx
                .create_push_config(ctx.with_tenant(config)?)
                .await?
                .answer()?;
            if answer.result().filter(|c| c.is_object()).is_none() {
                Loopback::Refused(answer.describe())
            } else {
                // Delivery time: the task ends, and its terminal notification reaches the
                // kit's own webhook; by then a call to the loopback one is what was seen.
                let sentinel = Hook::new(&ctx)?;
                ps::created(&ctx, &id, &sentinel).await?;
                ps::finish(&ctx, &task).await?;
                ps::until_terminal(&ctx, &sentinel).await?;
                let calls = ctx.webhook()?.received(&probe.key);
                if !calls.is_empty() {
                    return Ok(Verdict::fail(
                        format!(
                            "no call to the loopback webhook {url} (§13.2: reject 127.0.0.0/8 \
                             and localhost), refused at creation or before calling"
                        ),
                        format!(
                            "the agent accepted it and called it: {}",
                            ps::summary(&calls)
                        ),
                    ));
                }
                Loopback::NotCalled
            }
        }
    };
    let loopback_note = match &loopback {
        Loopback::NotProbed => "no loopback probe (the kit's webhook is itself on loopback, or \
                                 its receiver does not answer there)"
            .to_string(),
        Loopback::Refused(why) => format!("a loopback webhook refused at creation: {why}"),
        Loopback::NotCalled => "a loopback webhook accepted at creation and not called by the \
                                time the task's terminal notification reached the kit"
            .to_string(),
    };
    match link_local {
        Some(refusal) => Ok(Verdict::pass_with(format!(
            "{PRIVATE_WEBHOOK} refused at creation: {refusal}; {loopback_note}"
        ))),
        None => Err(HarnessError::Prerequisite(format!(
            "the agent accepted a push config for {PRIVATE_WEBHOOK} at creation; §13.2 asks that \
             such URLs be refused but not when, and an agent may refuse it before any call. \
             The kit cannot see a call to a link-local address (and deleted the config at \
             once, so that none is made), so an accepted config is no evidence either way; \
             {loopback_note}"
        ))),
    }
}

/// A missing-prerequisite error for an answer a step needed.
fn step(what: &str, answer: &Answer) -> HarnessError {
    HarnessError::Prerequisite(format!("{what} failed: {}", answer.describe()))
}

async fn create_returns(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = task_id(&ps::open_task(&ctx).await?);
    let hook = Hook::new(&ctx)?;
    let reply = ps::create(&ctx, &task, &hook).await?;
    if judge::is_error(&reply, ErrorKind::InvalidParams) {
        return Err(ps::refused(&reply, &hook.url));
    }
    let config = match reply.answer()? {
        Answer::Result(config) if config.is_object() => config,
        other => {
            return Ok(Verdict::fail(
                "the stored config, with its id and the webhook URL sent",
                other.describe(),
            ))
        }
    };
    let mut problems = Vec::new();
    if ps::config_id(&config).is_empty() {
        problems.push("the config has no id".to_string());
    }
    if a2a::text(&config, "url") != Some(hook.url.as_str()) {
        problems.push(format!(
            "url is {:?}, not {:?}",
            a2a::text(&config, "url"),
            hook.url
        ));
    }
    Ok(super::setup::verdict_from(
        problems
            .into_iter()
            .map(|p| format!("{p}: {}", a2a::brief(&config, 300)))
            .collect(),
        "the stored config, with its id and the webhook URL sent",
    ))
}

async fn get_returns(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = task_id(&ps::open_task(&ctx).await?);
    let hook = Hook::new(&ctx)?;
    let id = ps::config_id(&ps::created(&ctx, &task, &hook).await?);
    if id.is_empty() {
        return Err(HarnessError::Prerequisite(
            "the created config has no id to get".into(),
        ));
    }
    let params = ctx.with_tenant(json!({ "taskId": task, "id": id }))?;
    let answer = ctx.get_push_config(params).await?.answer()?;
    let expected = "the config: the same id and webhook URL";
    Ok(match answer.result() {
        Some(config)
            if ps::config_id(config) == id
                && a2a::text(config, "url") == Some(hook.url.as_str()) =>
        {
            Verdict::pass()
        }
        _ => Verdict::fail(expected, answer.describe()),
    })
}

/// Every config id a list gives, following nextPageToken (at most 20 pages).
/// The ids listed and the number of pages, or the answer that was not a list.
type Listing = Result<(Vec<String>, usize), Answer>;

async fn all_listed(
    ctx: &Ctx,
    task: &str,
    extra: serde_json::Value,
) -> Result<Listing, HarnessError> {
    let mut ids = Vec::new();
    let mut token = String::new();
    for page in 1..=20 {
        let mut params = extra.clone();
        if !token.is_empty() {
            params["pageToken"] = json!(token);
        }
        let answer = ps::list(ctx, task, params).await?;
        let Some((page_ids, next)) = ps::listed(&answer) else {
            return Ok(Err(answer));
        };
        ids.extend(page_ids);
        if next.is_empty() {
            return Ok(Ok((ids, page)));
        }
        token = next;
    }
    Ok(Ok((ids, 20)))
}

async fn two_configs(ctx: &Ctx) -> Result<(String, Vec<String>), HarnessError> {
    let task = task_id(&ps::open_task(ctx).await?);
    let mut ids = Vec::new();
    for _ in 0..2 {
        let hook = Hook::new(ctx)?;
        ids.push(ps::config_id(&ps::created(ctx, &task, &hook).await?));
    }
    Ok((task, ids))
}

async fn list_returns_all(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (task, made) = two_configs(&ctx).await?;
    let listed = match all_listed(&ctx, &task, json!({})).await? {
        Ok((listed, _)) => listed,
        Err(answer) => {
            return Ok(Verdict::fail(
                "a list of the task's configs",
                answer.describe(),
            ))
        }
    };
    let missing: Vec<&String> = made.iter().filter(|id| !listed.contains(id)).collect();
    Ok(if missing.is_empty() {
        Verdict::pass()
    } else {
        Verdict::fail(
            format!("both configs made: {made:?}"),
            format!("listed {listed:?}; missing {missing:?}"),
        )
    })
}

async fn list_pages(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if ctx.version() == crate::facts::model::ProtocolVersion::V0_3
        && ctx.binding() == crate::facts::model::Binding::Jsonrpc
    {
        return Ok(Verdict::NotApplicable {
            reason: "0.3 JSON-RPC lists configs without paging parameters".into(),
        });
    }
    let (task, made) = two_configs(&ctx).await?;
    let (listed, pages) = match all_listed(&ctx, &task, json!({ "pageSize": 1 })).await? {
        Ok(listing) => listing,
        Err(answer) => {
            return Ok(Verdict::fail(
                "a page of the task's configs",
                answer.describe(),
            ))
        }
    };
    if pages == 1 {
        return Ok(Verdict::NotApplicable {
            reason: format!(
                "the agent does not page (pageSize 1 gave one page of {} configs); paging is a MAY",
                listed.len()
            ),
        });
    }
    let mut findings = Findings::default();
    for id in &made {
        match listed.iter().filter(|l| *l == id).count() {
            1 => {}
            0 => findings.problem(format!("{id} on no page")),
            n => findings.problem(format!("{id} on {n} pages")),
        }
    }
    Ok(findings.verdict(
        format!("every config exactly once across the pages: {made:?}"),
        Verdict::pass_with(format!("{pages} pages, {} configs", listed.len())),
    ))
}

async fn delete_removes(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = task_id(&ps::open_task(&ctx).await?);
    let hook = Hook::new(&ctx)?;
    let id = ps::config_id(&ps::created(&ctx, &task, &hook).await?);
    let params = ctx.with_tenant(json!({ "taskId": task, "id": id }))?;
    let first = ctx.delete_push_config(params.clone()).await?.answer()?;
    if let Answer::Error(_) = first {
        return Ok(Verdict::fail(
            "DeleteTaskPushNotificationConfig succeeds",
            first.describe(),
        ));
    }
    let mut findings = Findings::default();
    let get = ctx.get_push_config(params.clone()).await?;
    if get.answer()?.result().is_some() {
        findings.problem(format!(
            "Get after delete still answers the config: {}",
            get.answer()?.describe()
        ));
    }
    let listed = match all_listed(&ctx, &task, json!({})).await? {
        Ok((listed, _)) => listed,
        Err(answer) => return Err(step("ListTaskPushNotificationConfigs", &answer)),
    };
    if listed.contains(&id) {
        findings.problem(format!("List after delete still holds {id}: {listed:?}"));
    }
    // Idempotency (a second delete has the same effect) is a 1.0 rule (§3.1.10); 0.3 §7.8
    // says nothing of a second delete, so it is asked on 1.0 only.
    if ctx.version() == ProtocolVersion::V0_3 {
        return Ok(findings.verdict(
            "the config gone from Get and List after the delete",
            Verdict::pass_with("the config is gone (0.3 states no rule for a second delete)"),
        ));
    }
    let again = ctx.delete_push_config(params).await?;
    match again.answer()? {
        Answer::Result(_) => {}
        Answer::Error(e) if refuses_the_id(&e) => {}
        other => findings.problem(format!("the second delete answered {}", other.describe())),
    }
    Ok(findings.verdict(
        "the config gone from Get and List; a second delete succeeds or says not found",
        Verdict::pass(),
    ))
}

/// Whether an error says "not found" in its binding's form.
fn not_found(e: &crate::suite::ctx::ErrorReply) -> bool {
    names_error(e, ErrorKind::TaskNotFound)
        || judge::is(e, ErrorKind::TaskNotFound)
        || e.http_status == Some(404)
        || e.status.as_deref() == Some("NOT_FOUND")
}

/// Whether an error refuses a config id that names nothing: not found, or InvalidParams (the
/// params name no config; a Mastra server, measured, says "Push notification config not
/// found" with -32602). §3.1.8's MUST is that the operation fails; its error list names
/// TaskNotFoundError without a keyword.
fn refuses_the_id(e: &crate::suite::ctx::ErrorReply) -> bool {
    not_found(e)
        || names_error(e, ErrorKind::InvalidParams)
        || judge::is(e, ErrorKind::InvalidParams)
}

async fn get_unknown_config(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = task_id(&ps::open_task(&ctx).await?);
    let params = ctx.with_tenant(json!({ "taskId": task, "id": ctx.id("tck-no-such-config") }))?;
    let reply = ctx.get_push_config(params).await?;
    let answer = reply.answer()?;
    if ctx.version() == ProtocolVersion::V0_3 {
        // 0.3 §7.6 names its errors only by example: any error is a refusal.
        return Ok(match answer {
            Answer::Error(_) if !not_found_of(&answer) => Verdict::pass_with(format!(
                "refused: {} (0.3 names the errors of §7.6 only by example)",
                answer.describe()
            )),
            Answer::Error(_) => Verdict::pass(),
            other => Verdict::fail(
                "an error for a config that does not exist (0.3 §7.6: any JSONRPCError)",
                other.describe(),
            ),
        });
    }
    let expected = judge::expected(ErrorKind::TaskNotFound, ctx.binding(), ctx.version());
    Ok(match answer {
        Answer::Error(e) if not_found(&e) => Verdict::pass(),
        Answer::Error(e) if refuses_the_id(&e) => Verdict::pass_with(format!(
            "refused with InvalidParams ({}): the operation fails, as §3.1.8 requires; its \
             error list names TaskNotFoundError, without a keyword",
            e
        )),
        other => Verdict::fail(expected, other.describe()),
    })
}

/// Whether an answer is an error that says "not found".
fn not_found_of(answer: &Answer) -> bool {
    matches!(answer, Answer::Error(e) if not_found(e))
}

async fn unknown_task(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let task = ctx.id("tck-no-such-task");
    let hook = Hook::new(&ctx)?;
    let mut findings = Findings::default();
    let create = ps::create(&ctx, &task, &hook).await?;
    if !judge::is_error(&create, ErrorKind::InvalidParams) {
        findings.add(
            "Create",
            judge::expect_error(&create, ErrorKind::TaskNotFound),
        );
    }
    let get = ctx
        .get_push_config(
            ctx.with_tenant(json!({ "taskId": task, "id": ctx.id("tck-no-such-config") }))?,
        )
        .await?;
    findings.add("Get", judge::expect_error(&get, ErrorKind::TaskNotFound));
    let list = ctx
        .list_push_configs(ctx.with_tenant(json!({ "taskId": task }))?)
        .await?;
    findings.add("List", judge::expect_error(&list, ErrorKind::TaskNotFound));
    Ok(findings.verdict(
        format!(
            "{} for each",
            judge::expected(ErrorKind::TaskNotFound, ctx.binding(), ctx.version())
        ),
        Verdict::pass(),
    ))
}

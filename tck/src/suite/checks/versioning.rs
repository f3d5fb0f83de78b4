//! Version negotiation checks (`versioning.*`, spec 1.0 §3.6): the A2A-Version header and
//! query parameter, methods of one version sent under the other, the versions the card
//! declares, and tasks shared by both versions.

use crate::suite::check::Needs;
use serde_json::{json, Value};

use super::setup::{task_id, Setup};
use super::{EVERY_BINDING_1_0, JSONRPC_0_3, JSONRPC_1_0, REST_1_0};
use crate::exchange::card;
use crate::exchange::judge;
use crate::exchange::transport::VersionHeader;
use crate::facts::a2a::{self, ErrorKind};
use crate::suite::check::{
    Binding, Check, HarnessError, Level, ProtocolVersion, Scope, SpecRef, Verdict,
};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "versioning";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "versioning.unsupported-version-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-02", "V10-5.4-01", "V10-10.2-05"] },
            requirement: "A request for a version the interface does not support (A2A-Version: 99.0) gets VersionNotSupportedError",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["VER-SERVER-002"],
            acts: &["VER-NEG-001"],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(unsupported_version(ctx)),
        },
        Check {
            id: "versioning.missing-version-means-0-3",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-03"] },
            requirement: "A request without A2A-Version is taken as 0.3: on an interface that serves only 1.0 it gets VersionNotSupportedError",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["VER-SERVER-003"],
            acts: &["VER-NEG-002"],
            reading: Some(
                "The spec says an empty A2A-Version means 0.3; the official ACTS draft \
                 (VER-NEG-002) instead expects a 1.0 request without the header to succeed. This \
                 check follows the spec. Where the card also declares 0.3 at the same URL, a \
                 header-less request is a 0.3 request and must get a 0.3 answer (tasks/get of an \
                 unknown id: TaskNotFoundError).",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(missing_version(ctx)),
        },
        Check {
            id: "versioning.patch-version-ignored",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6", statements: &["V10-3.6-01"] },
            requirement: "A patch number in A2A-Version (1.0.3) is not considered: the request is processed as 1.0",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["VER-CLIENT-002"],
            acts: &[],
            reading: Some(
                "§14.2.1 asks clients to send Major.Minor, and §3.6 says patch numbers must not be \
                 considered when versions are negotiated: this check follows §3.6, so a server may \
                 not refuse 1.0.3 for its patch number. Processing as 1.0 is observed through \
                 GetTask of an unknown id: the 1.0 answer is TaskNotFoundError, not \
                 VersionNotSupportedError.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(patch_version(ctx)),
        },
    ]
}

/// Checks of 0.3 beside 1.0; they come after the 0.3 shape checks in the catalogue.
pub fn across_versions() -> Vec<Check> {
    vec![
        Check {
            id: "versioning.0-3-method-under-1-0-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-01"] },
            requirement: "A 0.3 method (tasks/get) sent with A2A-Version: 1.0 gets -32601 Method not found",
            scope: JSONRPC_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Requests are processed with the semantics of the requested version (§3.6.2): \
                 1.0 has no method tasks/get. The Python SDK answers -32603 here; this check \
                 takes the spec's reading.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(method_0_3_under_1_0(ctx)),
        },
        Check {
            id: "versioning.1-0-method-under-0-3-not-found",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-01", "V10-3.6.2-03", "V03-8.1-01"] },
            requirement: "A 1.0 method (GetTask) sent without A2A-Version to a 0.3 interface gets -32601 Method not found",
            scope: JSONRPC_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "No header means 0.3 (§3.6.2), and 0.3 has no method GetTask. The Python SDK \
                 answers -32009 VersionNotSupported, which is the answer owed by an interface \
                 that does not serve 0.3; this interface does.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(method_1_0_under_0_3(ctx)),
        },
        Check {
            id: "versioning.card-declares-every-version",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "8.3.1", statements: &["V10-8.3.1-01", "V03-T-04"] },
            requirement: "The card declares every version the agent answers to: a URL that answers 0.3 requests lists 0.3",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Each JSON-RPC URL the card lists for 1.0 only is sent a 0.3 request (tasks/get \
                 of an unknown id, no header): an answer with 0.3 semantics (-32001) shows the \
                 URL serves 0.3, which the card should then declare. The binding is declared; \
                 what is missing is a (binding, version) combination, and §8.3.1 asks for every \
                 supported combination with a SHOULD, so an undeclared one is a WARN. §5.2's \
                 MUST is about the protocols (bindings) and is not what this probe sees.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(card_declares_versions(ctx)),
        },
        Check {
            id: "versioning.task-same-in-both-versions",
            level: Level::May,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-04"] },
            requirement: "A task made through one version is the same task through the other (same id, context and state) where the card declares both on one binding",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Interfaces of one transport may serve different versions (§3.6.2, CAN); the kit \
                 reads them as one agent, so a task made with 1.0 is read with 0.3 (and the other \
                 way) on each binding that declares both. No sentence says two versions share \
                 their tasks, so a task one version cannot see is a WARN (the level of the \
                 permission it rests on), not a FAIL. N/A when no binding declares both.",
            ),
            needs: Needs::NONE.weighs(12),
            run: |ctx| Box::pin(same_task_both_versions(ctx)),
        },
        Check {
            id: "versioning.query-parameter-version",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "3.6.1", statements: &["V10-D-3.6.1-01"] },
            requirement: "An HTTP+JSON request that gives A2A-Version as a query parameter (no header) is processed as that version",
            scope: REST_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Clients may send the version as a request parameter (§3.6.1); a server that \
                 ignores it reads the request as 0.3. Observed with GET /tasks/{unknown}?A2A-Version=1.0: \
                 the 1.0 answer is 404 TaskNotFoundError.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(query_parameter(ctx)),
        },
    ]
}

/// GetTask of an unknown id under the given A2A-Version must fail with `kind`.
async fn unknown_task_under(
    ctx: &Ctx,
    version: &str,
    kind: ErrorKind,
) -> Result<Verdict, HarnessError> {
    let params = json!({ "id": ctx.id("tck-no-such-task") });
    let reply = ctx
        .request_with("GetTask", params, VersionHeader::Value(version))
        .await?;
    Ok(judge::expect_error(&reply, kind))
}

async fn unsupported_version(ctx: Ctx) -> Result<Verdict, HarnessError> {
    unknown_task_under(&ctx, "99.0", ErrorKind::VersionNotSupported).await
}

async fn missing_version(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let url = ctx
        .interface
        .as_ref()
        .map(|i| i.url.clone())
        .unwrap_or_default();
    // The card declares 0.3 at this URL too (in either card shape): then a request without
    // the header must get 0.3 semantics.
    let binding = ctx.binding();
    let (_, interfaces) = crate::exchange::card::interfaces(&ctx.card.json);
    if let Some(v03) = interfaces
        .into_iter()
        .find(|i| i.binding == binding && i.version == ProtocolVersion::V0_3 && i.url == url)
    {
        let reply = ctx
            .on(v03)
            .request_with(
                "GetTask",
                json!({ "id": ctx.id("tck-no-such-task") }),
                VersionHeader::Absent,
            )
            .await?;
        return Ok(match judge::expect_error(&reply, ErrorKind::TaskNotFound) {
            Verdict::Violated { expected, actual } => Verdict::fail(
                format!("a 0.3 answer to a 0.3 request without A2A-Version: {expected}"),
                actual,
            ),
            pass => pass,
        });
    }
    let reply = ctx
        .request_with(
            "GetTask",
            json!({ "id": ctx.id("tck-no-such-task") }),
            VersionHeader::Absent,
        )
        .await?;
    Ok(judge::expect_error(&reply, ErrorKind::VersionNotSupported))
}

async fn patch_version(ctx: Ctx) -> Result<Verdict, HarnessError> {
    unknown_task_under(&ctx, "1.0.3", ErrorKind::TaskNotFound).await
}

async fn method_0_3_under_1_0(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx
        .rpc("tasks/get", json!({ "id": ctx.id("tck-no-such-task") }))
        .await?;
    Ok(judge::expect_error(
        &reply.reply(),
        ErrorKind::MethodNotFound,
    ))
}

async fn method_1_0_under_0_3(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx
        .rpc_without_version("GetTask", json!({ "id": ctx.id("tck-no-such-task") }))
        .await?;
    Ok(judge::expect_error(
        &reply.reply(),
        ErrorKind::MethodNotFound,
    ))
}

async fn card_declares_versions(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (_, interfaces) = card::interfaces(&ctx.card.json);
    let mut problems = Vec::new();
    let mut probed = 0;
    for interface in ctx
        .interfaces()
        .iter()
        .filter(|i| i.binding == Binding::Jsonrpc && i.version == ProtocolVersion::V1_0)
    {
        let declares_0_3 = interfaces
            .iter()
            .any(|i| i.version == ProtocolVersion::V0_3 && i.url == interface.url);
        if declares_0_3 {
            continue;
        }
        probed += 1;
        let reply = ctx
            .on(interface.clone())
            .rpc_without_version("tasks/get", json!({ "id": ctx.id("tck-no-such-task") }))
            .await?
            .reply();
        if judge::is_error(&reply, ErrorKind::TaskNotFound) {
            problems.push(format!(
                "{} answers a 0.3 tasks/get (-32001) but the card declares only 1.0 there",
                interface.url
            ));
        }
    }
    if probed == 0 {
        return Ok(Verdict::NotApplicable {
            reason: "the card lists no JSON-RPC URL for 1.0 alone: no URL to probe with a 0.3 \
                     request"
                .into(),
        });
    }
    Ok(if problems.is_empty() {
        Verdict::pass_with(format!(
            "{probed} 1.0-only JSON-RPC URL(s) probed with a 0.3 request"
        ))
    } else {
        Verdict::fail(
            "0.3 declared wherever 0.3 is answered (§8.3.1: every supported combination)",
            problems.join("; "),
        )
    })
}

async fn same_task_both_versions(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let interfaces = ctx.interfaces().to_vec();
    let pairs: Vec<_> = interfaces
        .iter()
        .filter(|i| i.version == ProtocolVersion::V1_0)
        .filter_map(|v10| {
            let v03 = interfaces
                .iter()
                .find(|i| i.version == ProtocolVersion::V0_3 && i.binding == v10.binding)?;
            Some((v10.clone(), v03.clone()))
        })
        .collect();
    if pairs.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: "no binding of the card declares both 0.3 and 1.0".into(),
        });
    }
    let essence = |t: &Value| json!({ "id": t.get("id"), "contextId": t.get("contextId"), "state": a2a::state(t) });
    let mut problems = Vec::new();
    for (v10, v03) in &pairs {
        for (maker, reader) in [(v10, v03), (v03, v10)] {
            let made = ctx
                .on(maker.clone())
                .create_task("tck-complete-task")
                .await?;
            let answer = ctx
                .on(reader.clone())
                .get_task(&task_id(&made), None)
                .await?;
            let label = format!(
                "{} made with {}, read with {}",
                maker.binding, maker.version, reader.version
            );
            match answer.result() {
                Some(read) if essence(read) == essence(&made) => {}
                Some(read) => problems.push(format!(
                    "{label}: {} where it was made as {}",
                    a2a::brief(&essence(read), 200),
                    a2a::brief(&essence(&made), 200)
                )),
                None => problems.push(format!("{label}: {}", answer.describe())),
            }
        }
    }
    Ok(if problems.is_empty() {
        Verdict::pass_with(format!("{} binding(s) compared both ways", pairs.len()))
    } else {
        Verdict::fail("the same task through both versions", problems.join("; "))
    })
}

async fn query_parameter(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let interface = ctx
        .interface
        .clone()
        .ok_or_else(|| HarnessError::Internal("no interface".into()))?;
    let route = crate::exchange::transport::rest::route(
        &interface.url,
        "GetTask",
        &ctx.with_tenant(json!({
            "id": ctx.id("tck-no-such-task"),
            "A2A-Version": interface.version.as_str(),
        }))?,
    )?;
    let http = ctx
        .wire
        .send(crate::exchange::wire::Request {
            method: route.method,
            url: &route.url,
            headers: vec![(
                "accept",
                crate::exchange::transport::rest::ACCEPT.to_string(),
            )],
            body: None,
        })
        .await?;
    Ok(judge::expect_error(
        &crate::exchange::transport::answer::read_rest(&http),
        ErrorKind::TaskNotFound,
    ))
}

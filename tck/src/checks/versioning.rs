//! Version negotiation (spec 1.0 §3.6).

use serde_json::json;

use super::EVERY_BINDING_1_0;
use crate::a2a::ErrorKind;
use crate::check::{Check, HarnessError, Level, ProtocolVersion, SpecRef, Verdict};
use crate::ctx::Ctx;
use crate::transport::VersionHeader;

pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "versioning.unsupported-version-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-02", "V10-5.4-01"] },
            requirement: "A request for a version the interface does not support (A2A-Version: 99.0) gets VersionNotSupportedError",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &["VER-SERVER-002"],
            reading: None,
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
            reading: Some(
                "The spec says an empty A2A-Version means 0.3; the official ACTS draft \
                 (VER-NEG-002) instead expects a 1.0 request without the header to succeed. This \
                 check follows the spec. Where the card also declares 0.3 at the same URL, a \
                 header-less request is a 0.3 request and must get a 0.3 answer (tasks/get of an \
                 unknown id: TaskNotFoundError).",
            ),
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
            reading: Some(
                "§14.2.1 asks clients to send Major.Minor, and §3.6 says patch numbers must not be \
                 considered when versions are negotiated: this check follows §3.6, so a server may \
                 not refuse 1.0.3 for its patch number. Processing as 1.0 is observed through \
                 GetTask of an unknown id: the 1.0 answer is TaskNotFoundError, not \
                 VersionNotSupportedError.",
            ),
            run: |ctx| Box::pin(patch_version(ctx)),
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
    Ok(reply.expect_error(kind))
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
    let (_, interfaces) = crate::card::interfaces(&ctx.card.json);
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
        return Ok(match reply.expect_error(ErrorKind::TaskNotFound) {
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
    Ok(reply.expect_error(ErrorKind::VersionNotSupported))
}

async fn patch_version(ctx: Ctx) -> Result<Verdict, HarnessError> {
    unknown_task_under(&ctx, "1.0.3", ErrorKind::TaskNotFound).await
}

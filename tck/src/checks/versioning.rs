//! Version negotiation (spec 1.0 §3.6).

use serde_json::json;

use super::EVERY_BINDING_1_0;
use crate::a2a::ErrorKind;
use crate::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::ctx::{expect_error, Ctx};

pub fn checks() -> Vec<Check> {
    vec![Check {
        id: "versioning.unsupported-version-rejected",
        level: Level::Must,
        spec: SpecRef { version: "1.0", section: "3.6.2", statements: &["V10-3.6.2-02", "V10-5.4-01"] },
        requirement: "A request for a version the interface does not support (A2A-Version: 99.0) gets VersionNotSupportedError",
        scope: EVERY_BINDING_1_0,
        requires: &[],
        maps_to: &["VER-SERVER-002"],
        reading: None,
        run: |ctx| Box::pin(unsupported_version(ctx)),
    }]
}

async fn unsupported_version(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx
        .rpc_with_version(
            "GetTask",
            json!({ "id": ctx.id("tck-no-such-task") }),
            Some("99.0"),
        )
        .await?;
    Ok(expect_error(
        &reply.answer()?,
        ErrorKind::VersionNotSupported,
    ))
}

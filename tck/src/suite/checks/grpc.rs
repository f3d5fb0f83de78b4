//! gRPC binding checks (`grpc.*`, spec 1.0 §10): the status and ErrorInfo of an A2A error.

use super::setup::not_found;
use super::GRPC_1_0;
use crate::exchange::judge;
use crate::facts::a2a::ErrorKind;
use crate::suite::check::Needs;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "grpc";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "grpc.errors.status-and-error-info",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "10.6", statements: &["V10-10.6-01", "V10-5.4-01"] },
            requirement: "A gRPC A2A error has the mapped status code and an ErrorInfo (reason, domain) in grpc-status-details-bin",
            scope: GRPC_1_0,
            requires: &[],
            maps_to: &["GRPC-ERR-002"],
            acts: &["GRPC-STATUS-001"],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(grpc_error(ctx)),
        },
    ]
}

async fn grpc_error(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let error = match not_found(&ctx).await? {
        Ok(e) => e,
        Err(v) => return Ok(v),
    };
    Ok(match judge::error(&error, ErrorKind::TaskNotFound) {
        Ok(()) => Verdict::pass(),
        Err(differs) => Verdict::fail(
            judge::expected(ErrorKind::TaskNotFound, ctx.binding(), ctx.version()),
            format!("{differs}: {error}"),
        ),
    })
}

/// The binding rules of §10.2 (service parameters as metadata), after the check above in
/// the catalogue.
pub fn binding_rules() -> Vec<Check> {
    vec![Check {
        id: "grpc.service-parameters-in-metadata",
        level: Level::Must,
        spec: SpecRef {
            version: "1.0",
            section: "10.2",
            statements: &["V10-10.2-01", "V10-10.2-02", "V10-10.2-04", "V10-10.2-05"],
        },
        requirement: "The A2A-Version service parameter is read from the a2a-version metadata entry: 1.0 is served, 99.0 gets VersionNotSupportedError",
        scope: GRPC_1_0,
        requires: &[],
        maps_to: &["GRPC-META-001"],
        acts: &[],
        reading: Some(
            "gRPC metadata keys are lower-case; the kit sends `a2a-version`. Validating the \
             version (a SHOULD in §10.2) is what §3.6.2 requires of every binding, so a \
             request for 99.0 that is served is a failure.",
        ),
        needs: Needs::NONE.weighs(2),
        run: |ctx| Box::pin(version_metadata(ctx)),
    }]
}

async fn version_metadata(ctx: Ctx) -> Result<Verdict, HarnessError> {
    use crate::exchange::transport::VersionHeader;
    // 1.0 must be served as 1.0 (not refused as a version: what GetTask of an unknown id then
    // answers is judged by tasks.get.*); 99.0 must be refused with VersionNotSupportedError.
    let mut findings = super::setup::Findings::default();
    let served = ctx
        .request_with(
            "GetTask",
            serde_json::json!({ "id": ctx.id("tck-no-such-task") }),
            VersionHeader::Value("1.0"),
        )
        .await?;
    if let Ok(crate::exchange::transport::Answer::Error(e)) = &served.read {
        if judge::error(e, ErrorKind::VersionNotSupported).is_ok() {
            findings.problem(format!(
                "GetTask with a2a-version: 1.0 was refused as a version: {e}"
            ));
        }
    }
    let refused = ctx
        .request_with(
            "GetTask",
            serde_json::json!({ "id": ctx.id("tck-no-such-task") }),
            VersionHeader::Value("99.0"),
        )
        .await?;
    findings.add(
        "GetTask with a2a-version: 99.0",
        judge::expect_error(&refused, ErrorKind::VersionNotSupported),
    );
    Ok(findings.verdict(
        "a2a-version read from the metadata: 1.0 served as 1.0, 99.0 refused with VersionNotSupportedError",
        Verdict::pass(),
    ))
}

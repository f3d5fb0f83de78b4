//! gRPC binding checks (`grpc.*`, spec 1.0 §10): the status and ErrorInfo of an A2A error.

use super::setup::not_found;
use super::GRPC_1_0;
use crate::a2a::ErrorKind;
use crate::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::ctx::Ctx;
use crate::judge;

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
            reading: None,
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

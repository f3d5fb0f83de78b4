//! Error details beyond the ErrorInfo (spec 1.0 §3.3.2, §9.5, §11.6): an invalid request
//! names the field that failed in a google.rpc.BadRequest (SHOULD), and any further detail
//! objects an agent adds are typed (MAY, so only present ones are judged). Here
//! the `jsonrpc.*` check; the `rest.*` ones are in `checks/rest/error_details.rs`, what they share in `checks/setup/error_details.rs`.

use crate::suite::check::Needs;
use serde_json::json;

use crate::facts::a2a;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::checks::setup::error_details::judge_extras;
use crate::suite::checks::JSONRPC_1_0;
use crate::suite::ctx::Ctx;

/// The JSON-RPC checks of this module.
pub fn jsonrpc_checks() -> Vec<Check> {
    vec![Check {
        id: "jsonrpc.errors.extra-data-typed",
        level: Level::May,
        spec: SpecRef { version: "1.0", section: "9.5", statements: &["V10-9.5-03"] },
        requirement: "Error data objects an agent adds beside the ErrorInfo (e.g. a BadRequest for invalid params) carry an @type",
        scope: JSONRPC_1_0,
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some(
            "Extra context is optional (MAY): an error with only its ErrorInfo is N/A. Present \
             objects are judged by 1.0.1, which types every data object.",
        ),
        needs: Needs::NONE,
        run: |ctx| Box::pin(jsonrpc_extra(ctx)),
    }]
}

async fn jsonrpc_extra(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx.rpc("SendMessage", json!({})).await?;
    let Some(error) = reply.body.as_ref().and_then(|b| b.get("error")) else {
        return Err(HarnessError::Prerequisite(format!(
            "SendMessage without message was not refused: {}",
            reply.http.body_start(200)
        )));
    };
    Ok(judge_extras(error.get("data"), &a2a::brief(error, 200)))
}

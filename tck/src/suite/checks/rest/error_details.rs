//! Error details beyond the ErrorInfo (spec 1.0 §3.3.2, §9.5, §11.6): an invalid request
//! names the field that failed in a google.rpc.BadRequest (SHOULD), and any further detail
//! objects an agent adds are typed (MAY, so only present ones are judged). Here
//! the `rest.*` checks; the `jsonrpc.*` one is in `checks/jsonrpc/error_details.rs`, what they share in `checks/setup/error_details.rs`.

use crate::suite::check::Needs;
use serde_json::{json, Value};

use crate::facts::a2a;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::checks::setup::error_details::judge_extras;
use crate::suite::checks::REST_1_0;
use crate::suite::ctx::Ctx;

/// The `@type` of google.rpc.BadRequest ends with this.
const BAD_REQUEST: &str = "google.rpc.BadRequest";

/// The HTTP+JSON checks of this module.
pub fn rest_checks() -> Vec<Check> {
    vec![
        Check {
            id: "rest.errors.bad-request-field-violations",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "11.6", statements: &["V10-11.6-02", "V10-3.3.2-09"] },
            requirement: "An invalid SendMessage (no message) gets a google.rpc.BadRequest detail whose fieldViolations name the field and why",
            scope: REST_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(bad_request(ctx)),
        },
        Check {
            id: "rest.errors.extra-details-typed",
            level: Level::May,
            spec: SpecRef { version: "1.0", section: "11.6", statements: &["V10-11.6-03"] },
            requirement: "Error details an agent adds beside the ErrorInfo carry an @type",
            scope: REST_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some("Extra context is optional (MAY): an error with only its ErrorInfo is N/A."),
            needs: Needs::NONE,
            run: |ctx| Box::pin(rest_extra(ctx)),
        },
    ]
}

/// The `error` object of the HTTP+JSON answer to a SendMessage without `message`.
async fn rest_invalid(ctx: &Ctx) -> Result<Value, HarnessError> {
    let http = crate::suite::checks::setup::rest::raw(ctx, "SendMessage", json!({})).await?;
    match http.json().and_then(|b| b.get("error").cloned()) {
        Some(error) if (400..500).contains(&http.status) => Ok(error),
        _ => Err(HarnessError::Prerequisite(format!(
            "SendMessage without message did not get a 4xx error: HTTP {}: {}",
            http.status,
            http.body_start(200)
        ))),
    }
}

async fn bad_request(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let error = rest_invalid(&ctx).await?;
    let found = a2a::items(&error, "details").find(|d| {
        d.get("@type")
            .and_then(Value::as_str)
            .is_some_and(|t| t.ends_with(BAD_REQUEST))
    });
    let expected = "a google.rpc.BadRequest detail with fieldViolations [{field, description}]";
    let Some(found) = found else {
        return Ok(Verdict::fail(expected, a2a::brief(&error, 300)));
    };
    let text = |v: &Value, k: &str| {
        v.get(k)
            .and_then(Value::as_str)
            .is_some_and(|s| !s.is_empty())
    };
    let violations: Vec<&Value> = a2a::items(found, "fieldViolations").collect();
    Ok(
        if !violations.is_empty()
            && violations
                .iter()
                .all(|v| text(v, "field") && text(v, "description"))
        {
            Verdict::pass_with(a2a::brief(found, 200))
        } else {
            Verdict::fail(expected, a2a::brief(found, 300))
        },
    )
}

async fn rest_extra(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let error = rest_invalid(&ctx).await?;
    Ok(judge_extras(error.get("details"), &a2a::brief(&error, 200)))
}

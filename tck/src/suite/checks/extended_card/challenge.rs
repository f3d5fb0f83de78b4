//! The challenge of a refused 0.3 extended-card request (`extended-card.refusal-challenge`,
//! 0.3 §7.10): agent/getAuthenticatedExtendedCard (JSON-RPC) or GET /v1/card (REST) without
//! credentials is refused with a `WWW-Authenticate` header.

use serde_json::Value;

use super::raw_card;
use crate::facts::model::Binding;
use crate::suite::check::{HarnessError, Verdict};
use crate::suite::checks::setup::auth::without_credentials;
use crate::suite::ctx::Ctx;

pub(super) async fn refusal_challenge(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let caller = without_credentials(&ctx);
    let http = raw_card(&caller).await?;
    let body = http.json();
    let served = match ctx.binding() {
        Binding::Jsonrpc => body.as_ref().is_some_and(|b| b.get("result").is_some()),
        _ => (200..300).contains(&http.status),
    };
    if served {
        return Err(HarnessError::Prerequisite(format!(
            "the extended card was served without credentials (HTTP {}), so there is no \
             refusal to judge (see extended-card.requires-auth)",
            http.status
        )));
    }
    let not_configured = body
        .as_ref()
        .and_then(|b| b.pointer("/error/code"))
        .and_then(Value::as_i64)
        == Some(-32007);
    if not_configured {
        return Ok(Verdict::NotApplicable {
            reason: "the call without credentials was answered \
                     AuthenticatedExtendedCardNotConfiguredError: no card to refuse"
                .into(),
        });
    }
    if let Some(value) = http.header("www-authenticate").map(str::trim) {
        if !value.is_empty() {
            return Ok(Verdict::pass_with(format!("WWW-Authenticate: {value}")));
        }
    }
    if http.status == 403 {
        return Ok(Verdict::pass_with(
            "HTTP 403 without WWW-Authenticate: §7.10 asks for the header on the 401 answer \
             (missing or invalid credentials), not on a refusal for lack of permission",
        ));
    }
    Ok(Verdict::fail(
        "a WWW-Authenticate header on the refusal",
        format!(
            "HTTP {} without WWW-Authenticate: {}",
            http.status,
            http.body_start(300)
        ),
    ))
}

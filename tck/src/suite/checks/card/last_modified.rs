//! The card's optional Last-Modified header (`card.caching.*`, spec 1.0 §8.6.1): when the
//! agent sends one, it is an HTTP-date. The required caching headers are checked in `card`.

use crate::suite::check::Needs;
use crate::suite::check::{Check, HarnessError, Level, Scope, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "card";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![Check {
        id: "card.caching.last-modified",
        level: Level::May,
        spec: SpecRef { version: "1.0", section: "8.6.1", statements: &["V10-8.6.1-03"] },
        requirement: "When the card is served with Last-Modified, its value is an HTTP-date (RFC 9110 §5.6.7)",
        scope: Scope::Card,
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some(
            "Last-Modified is optional (MAY); without it the result is N/A. A value that HTTP \
             clients cannot read as a date is reported as a warning, never a failure.",
        ),
        needs: Needs::NONE,
        run: |ctx| Box::pin(last_modified(ctx)),
    }]
}

async fn last_modified(ctx: Ctx) -> Result<Verdict, HarnessError> {
    crate::exchange::card::record(ctx.wire.recorder(), &ctx.card);
    let Some(value) = ctx.card.reply.header("last-modified") else {
        return Ok(Verdict::NotApplicable {
            reason: "the card is served without Last-Modified (optional)".into(),
        });
    };
    Ok(match httpdate::parse_http_date(value) {
        // The value itself changes from run to run: not in the result.
        Ok(_) => Verdict::pass_with("Last-Modified is an HTTP-date"),
        Err(e) => Verdict::fail(
            "Last-Modified as an HTTP-date, e.g. Tue, 01 Dec 2026 14:00:00 GMT",
            format!("Last-Modified: {value} ({e})"),
        ),
    })
}

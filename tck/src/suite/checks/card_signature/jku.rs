//! The scheme of the key set a card signature names (`card.signature.*`, spec 1.0 §8.4.3).

use crate::suite::check::{Needs, Profile};
use serde_json::Value;

use crate::exchange::card;
use crate::facts::jws::Signature;
use crate::suite::check::{Check, HarnessError, Level, Scope, SpecRef, Verdict};
use crate::suite::checks::setup::Findings;
use crate::suite::ctx::Ctx;

/// This module's checks.
pub fn checks() -> Vec<Check> {
    vec![Check {
        id: "card.signature.jku-over-https",
        level: Level::Should,
        spec: SpecRef {
            version: "1.0",
            section: "8.4.3",
            statements: &["V10-8.4.3-03"],
        },
        requirement: "A signature's `jku` names its key set by an https URL when the card is served over https",
        scope: Scope::Card,
        requires: &[],
        maps_to: &[],
        acts: &[],
        reading: Some(
            "Judged only where the agent offers TLS, like the tls.* checks: when the card itself \
             comes over plain http, asking for its keys over https is not something the kit can \
             tell a test deployment from a production one by (N/A). A `jku` on http:// beside a \
             card on https:// is a WARN. N/A without signatures or without a `jku` (the key may \
             come from elsewhere, §8.4.3).",
        ),
        needs: Needs::NONE.on(Profile::Tls),
        run: |ctx| Box::pin(jku_over_https(ctx)),
    }]
}

async fn jku_over_https(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let entries: Vec<Value> = match ctx.card.json.get("signatures") {
        Some(Value::Array(items)) => items.clone(),
        _ => Vec::new(),
    };
    if entries.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: "the card carries no signatures (signing is optional, §8.4)".into(),
        });
    }
    if !ctx.card.url.to_ascii_lowercase().starts_with("https://") {
        return Ok(Verdict::NotApplicable {
            reason: "the card is served over plain http: the kit judges the scheme of the key \
                     set only where the agent offers TLS"
                .into(),
        });
    }
    card::record(ctx.wire.recorder(), &ctx.card);
    let mut findings = Findings::default();
    let mut judged = 0;
    for (i, entry) in entries.iter().enumerate() {
        let Some(jku) = Signature::parse(entry).jku() else {
            continue;
        };
        judged += 1;
        if !jku.trim().to_ascii_lowercase().starts_with("https://") {
            findings.problem(format!("signatures[{i}]: jku {jku}"));
        }
    }
    if judged == 0 {
        return Ok(Verdict::NotApplicable {
            reason: "no signature's protected header carries a `jku`".into(),
        });
    }
    Ok(findings.verdict(
        "every jku an https URL (the card is served over https)",
        Verdict::pass(),
    ))
}

//! `extended-card.limited-principal-refused`: a principal that may not read the extended card
//! is refused, or given a card that shows none of the extended card's privileged skills.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::suite::check::{HarnessError, Verdict};
use crate::suite::checks::setup::auth::limited_principal;
use crate::suite::ctx::{Answer, Ctx};

/// The ids (or, lacking one, the names) of a card's skills.
fn skills(card: &Value) -> BTreeSet<String> {
    card.get("skills")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(|skill| {
            skill
                .get("id")
                .or_else(|| skill.get("name"))
                .and_then(Value::as_str)
                .map(str::to_owned)
        })
        .collect()
}

pub(super) async fn limited_card(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let limited = match limited_principal(&ctx) {
        Ok(limited) => limited,
        Err(not_applicable) => return Ok(not_applicable),
    };
    let reply = limited.extended_card().await?;
    // Any error (an authorization error, ExtendedAgentCardNotConfiguredError for this caller,
    // ...) gives nothing away; the refusal's form is auth.limited-principal-refused's.
    let shown = match &reply.read {
        Ok(Answer::Result(card)) if !card.is_null() => card.clone(),
        _ => return Ok(Verdict::pass()),
    };
    // Served: privileged is what the run's principal sees beyond the public card.
    let full = ctx.extended_card().await?;
    let Ok(Answer::Result(full)) = &full.read else {
        return Err(HarnessError::Prerequisite(format!(
            "the limited principal was given a card, and the run's principal got no extended \
             card to tell privileged content by ({})",
            full.read
                .as_ref()
                .map_or_else(Clone::clone, Answer::describe)
        )));
    };
    let public = skills(&ctx.card.json);
    let privileged: BTreeSet<String> = skills(full).difference(&public).cloned().collect();
    if privileged.is_empty() {
        return Err(HarnessError::Prerequisite(
            "the limited principal was given a card, and the run's principal's extended card \
             lists no skill beyond the public card's: the kit has no privileged content to look \
             for"
            .into(),
        ));
    }
    let leaked: Vec<String> = skills(&shown).intersection(&privileged).cloned().collect();
    Ok(if leaked.is_empty() {
        Verdict::pass_with(
            "the limited principal was given a card tailored to it, with none of the skills the \
             extended card adds to the public card (§13.3 lets the card depend on the caller)",
        )
    } else {
        Verdict::fail(
            "a refusal, or a card without the extended card's privileged skills",
            format!(
                "the limited principal was given the skill(s) the extended card adds to the \
                 public card: {}",
                leaked.join(", ")
            ),
        )
    })
}

//! The extensions a card requires and a request that activates them, shared by
//! `extensions.*` and `service-params.*`.

use crate::facts::service_params::required_extensions;
use crate::suite::check::{HarnessError, Verdict};
use crate::suite::ctx::{Answer, Ctx};
use serde_json::{json, Value};

/// The card's required extensions, or the N/A verdict when it declares none.
pub(crate) fn required_or_na(ctx: &Ctx) -> Result<Vec<String>, Verdict> {
    let required = required_extensions(&ctx.card.json);
    if required.is_empty() {
        Err(Verdict::NotApplicable {
            reason: "the card declares no extension with required: true".into(),
        })
    } else {
        Ok(required)
    }
}

/// SendMessage params with a plain message.
pub(crate) fn send_params(ctx: &Ctx) -> Value {
    json!({ "message": ctx.user_message("tck-complete-task") })
}

/// A plain SendMessage with the card's required extensions activated must be processed, so
/// that a refusal of a variant is the variant's doing (an agent may also refuse requests that
/// do not follow an extension's own protocol, which the kit cannot know).
pub(crate) async fn baseline_processed(ctx: &Ctx) -> Result<(), HarnessError> {
    let reply = ctx.send(send_params(ctx)).await?;
    match &reply.read {
        Ok(Answer::Result(_)) => Ok(()),
        Ok(other) => Err(HarnessError::Prerequisite(format!(
            "a plain SendMessage with the card's required extensions activated was not \
             processed: {}",
            other.describe()
        ))),
        Err(unreadable) => Err(HarnessError::Prerequisite(format!(
            "a plain SendMessage with the card's required extensions activated: {unreadable}"
        ))),
    }
}

//! Service-parameter checks (`service-params.*`, spec 1.0 §3.2.6, §9.2, §10.2, §11.2): the
//! `A2A-Extensions` parameter is read from HTTP headers (JSON-RPC, REST) and from gRPC
//! metadata alike, with several values comma-separated in one field. (`A2A-Version` from
//! gRPC metadata is judged by the `versioning.*` checks, which run on every binding.)

use super::setup::extensions::{baseline_processed, required_or_na, send_params};
use super::EVERY_BINDING_1_0;
use crate::exchange::judge;
use crate::facts::a2a::ErrorKind;
use crate::facts::service_params::UNKNOWN_EXTENSION;
use crate::suite::check::Needs;
use crate::suite::check::{Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::{Answer, Ctx};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "service-params";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "service-params.extensions-read-from-binding",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "9.2",
                statements: &[
                    "V10-9.2-01", "V10-9.2-02", "V10-10.2-01", "V10-10.2-02", "V10-10.2-04",
                    "V10-11.2-01", "V10-11.2-02",
                ],
            },
            requirement: "A2A-Extensions sent as an HTTP header (JSON-RPC, REST) or gRPC metadata activates the extension",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "SendMessage with the card's required extensions in A2A-Extensions (gRPC: the \
                 a2a-extensions metadata key) must not get ExtensionSupportRequiredError: that \
                 answer shows the agent did not read the parameter where the binding carries it. \
                 N/A when the card declares no required extension (nothing observable).",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(extensions_read(ctx)),
        },
        Check {
            id: "service-params.extensions-comma-separated",
            level: Level::Should,
            spec: SpecRef {
                version: "1.0",
                section: "9.2",
                statements: &["V10-9.2-03", "V10-10.2-03", "V10-11.2-03"],
            },
            requirement: "Several extension URIs comma-separated in one A2A-Extensions field are all read",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "One A2A-Extensions field holds an unknown URI first and the required ones after \
                 it, comma-separated, as §9.2/§10.2/§11.2 ask senders to do: an agent that reads \
                 only the first value misses the required extension.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(comma_separated(ctx)),
        },
    ]
}

async fn extensions_read(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let required = match required_or_na(&ctx) {
        Ok(required) => required,
        Err(na) => return Ok(na),
    };
    let activated = ctx.with_extensions(required.clone());
    let reply = activated.send(send_params(&activated)).await?;
    let expected = format!(
        "SendMessage processed with {} activated through the binding's service parameters",
        required.join(", ")
    );
    Ok(match &reply.read {
        Ok(Answer::Result(_)) => Verdict::pass(),
        Ok(Answer::Error(e)) if judge::is(e, ErrorKind::ExtensionSupportRequired) => {
            Verdict::fail(expected, format!("the extension was not seen: {e}"))
        }
        Ok(other) => {
            return Err(HarnessError::Prerequisite(format!(
                "SendMessage with the required extensions activated failed otherwise: {}",
                other.describe()
            )))
        }
        Err(unreadable) => Verdict::fail(expected, unreadable.clone()),
    })
}

async fn comma_separated(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let required = match required_or_na(&ctx) {
        Ok(required) => required,
        Err(na) => return Ok(na),
    };
    baseline_processed(&ctx).await?;
    let mut activated = vec![UNKNOWN_EXTENSION.to_string()];
    activated.extend(required.iter().cloned());
    let listed = activated.join(",");
    let both = ctx.with_extensions(activated);
    let reply = both.send(send_params(&both)).await?;
    Ok(match &reply.read {
        Ok(Answer::Result(_)) => Verdict::pass(),
        Ok(other) => Verdict::fail(
            format!("SendMessage processed with A2A-Extensions: {listed}"),
            other.describe(),
        ),
        Err(unreadable) => Verdict::fail("SendMessage processed", unreadable.clone()),
    })
}

//! Extension checks (`extensions.*`, spec 1.0 §3.3.4, §4.6, topics/extensions.md): a
//! required extension the request does not activate is refused, another version of its URI
//! does not stand in for it, unknown extensions are ignored, and activated ones are echoed.
//! The kit activates the card's required extensions on every request (see
//! [`crate::facts::service_params`]); these checks change that on purpose, one request each.

pub mod v03;
use super::setup::extensions::{baseline_processed, required_or_na, send_params};
use crate::suite::check::Needs;
use serde_json::json;

use super::{EVERY_BINDING_1_0, JSON_1_0};
use crate::exchange::judge;
use crate::exchange::transport::rest;
use crate::exchange::wire::{HttpReply, Request};
use crate::facts::a2a::ErrorKind;
use crate::facts::service_params::{self, other_version, required_extensions, UNKNOWN_EXTENSION};
use crate::suite::check::{Binding, Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::{Answer, Ctx};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "extensions";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "extensions.required-not-activated-rejected",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.3.4", statements: &["V10-3.3.4-06"] },
            requirement: "A request that does not activate an extension the card marks required gets ExtensionSupportRequiredError",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "SendMessage without any A2A-Extensions service parameter (header, or gRPC \
                 metadata), on a card that declares an extension with required: true. N/A when \
                 the card declares none.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(required_not_activated(ctx)),
        },
        Check {
            id: "extensions.required-version-not-downgraded",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "4.6.3", statements: &["V10-4.6.3-03", "V10-4.6.3-04"] },
            requirement: "Activating another version of a required extension's URI is not taken for the declared version: the request is refused",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "The request activates the required extension's URI with its version raised by \
                 one (…/v1 → …/v2), a version the agent does not declare. The agent must not fall \
                 back to the declared version (§4.6.3), so the required extension is not active: \
                 ExtensionSupportRequiredError (§3.3.4). §4.6.3 only asks for \"an error \
                 indicating unsupported extension\", so another error is tolerated (WARN); \
                 processing the request fails. N/A when no required extension's URI carries a \
                 version the kit recognises (a last path segment v<N> or <N>[.<M>]).",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(version_not_downgraded(ctx)),
        },
        Check {
            id: "extensions.unknown-extension-ignored",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "4.6.3", statements: &["V10-4.6.3-03"] },
            requirement: "An extension the agent does not support, requested beside the required ones, is ignored: the request is processed",
            scope: EVERY_BINDING_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "The request activates the card's required extensions and, after them, a URI of \
                 the kit's own namespace that no agent declares. §4.6.3 (an unsupported version \
                 is ignored) and topics/extensions.md (\"requested extensions not supported by \
                 the agent can be ignored\"): SendMessage succeeds. A plain SendMessage with \
                 only the required extensions must be processed first (else the check cannot \
                 tell what the refusal is about: a missing prerequisite, not a failure).",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(unknown_ignored(ctx)),
        },
        Check {
            id: "extensions.activated-echoed",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "4.6", statements: &["V10-D-4.6-01"] },
            requirement: "A response lists the extensions the request activated in an A2A-Extensions header",
            scope: JSON_1_0,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "topics/extensions.md: the response SHOULD carry A2A-Extensions listing every \
                 extension activated for the request. Judged for the required extensions (a \
                 processed request has activated them); which optional extensions an agent \
                 activates is its own choice. HTTP bindings only: no text says where a gRPC \
                 response would carry the list.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(activated_echoed(ctx)),
        },
    ]
}

/// The card's required extensions, the index of one whose URI carries a version, and that URI
/// with another version (what a downgrade check activates in its place); else N/A.
pub(crate) fn downgrade_of(ctx: &Ctx) -> Result<(Vec<String>, usize, String), Verdict> {
    let required = required_or_na(ctx)?;
    let found = (required.iter().enumerate())
        .find_map(|(i, uri)| other_version(uri).map(|other| (i, other)));
    match found {
        Some((index, other)) => Ok((required, index, other)),
        None => Err(Verdict::NotApplicable {
            reason: format!(
                "no required extension's URI carries a version the kit recognises: {}",
                required.join(", ")
            ),
        }),
    }
}

async fn required_not_activated(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Err(na) = required_or_na(&ctx) {
        return Ok(na);
    }
    let bare = ctx.with_extensions(Vec::new());
    let reply = bare.send(send_params(&bare)).await?;
    Ok(judge::expect_error(
        &reply,
        ErrorKind::ExtensionSupportRequired,
    ))
}

async fn version_not_downgraded(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (required, index, other) = match downgrade_of(&ctx) {
        Ok(found) => found,
        Err(na) => return Ok(na),
    };
    let declared = required[index].clone();
    // A fall-back shows only where the agent refuses a request without the extension at all.
    let bare = ctx.with_extensions(Vec::new());
    let reply = bare.send(send_params(&bare)).await?;
    if !matches!(reply.read, Ok(Answer::Error(_))) {
        return Err(HarnessError::Prerequisite(format!(
            "the agent processes a request that activates no extension at all (see \
             extensions.required-not-activated-rejected), so a fall-back from {other} to \
             {declared} cannot be told apart"
        )));
    }
    let mut activated = required;
    activated[index] = other.clone();
    let changed = ctx.with_extensions(activated);
    let reply = changed.send(send_params(&changed)).await?;
    let expected = format!(
        "{} ({other} activated in place of the declared {declared})",
        judge::expected(
            ErrorKind::ExtensionSupportRequired,
            ctx.binding(),
            ctx.version()
        )
    );
    Ok(match &reply.read {
        Ok(Answer::Error(error)) if judge::is(error, ErrorKind::ExtensionSupportRequired) => {
            Verdict::pass()
        }
        Ok(Answer::Error(error)) => Verdict::tolerate(
            expected,
            format!("another error: {error}"),
            "§4.6.3 asks only for \"an error indicating unsupported extension\"; §3.3.4 names \
             ExtensionSupportRequiredError",
        ),
        Ok(other_answer) => Verdict::fail(
            expected,
            format!(
                "the request was processed, as if {declared} were active: {}",
                other_answer.describe()
            ),
        ),
        Err(unreadable) => Verdict::fail(expected, unreadable.clone()),
    })
}

async fn unknown_ignored(ctx: Ctx) -> Result<Verdict, HarnessError> {
    baseline_processed(&ctx).await?;
    let mut activated = required_extensions(&ctx.card.json);
    activated.push(UNKNOWN_EXTENSION.to_string());
    let with_unknown = ctx.with_extensions(activated);
    let reply = with_unknown.send(send_params(&with_unknown)).await?;
    Ok(match &reply.read {
        Ok(Answer::Result(_)) => Verdict::pass(),
        Ok(other) => Verdict::fail(
            format!("SendMessage processed, the unknown extension {UNKNOWN_EXTENSION} ignored"),
            other.describe(),
        ),
        Err(unreadable) => Verdict::fail("SendMessage processed", unreadable.clone()),
    })
}

/// SendMessage over plain HTTP (JSON-RPC or REST), the answer with its headers; the wire adds
/// the activated extensions.
pub(crate) async fn send_http(ctx: &Ctx) -> Result<HttpReply, HarnessError> {
    let interface = ctx
        .interface
        .as_ref()
        .ok_or_else(|| HarnessError::Internal("interface check run without an interface".into()))?;
    let params = ctx.with_tenant(send_params(ctx))?;
    let version = ("a2a-version", ctx.version().as_str().to_string());
    match ctx.binding() {
        Binding::Jsonrpc => {
            let envelope = json!({
                "jsonrpc": "2.0", "id": ctx.id("rpc"), "method": "SendMessage", "params": params,
            });
            let headers = vec![("content-type", "application/json".to_string()), version];
            Ok(ctx
                .post_raw(envelope.to_string().into_bytes(), headers)
                .await?
                .http)
        }
        _ => {
            let route = rest::route(&interface.url, "SendMessage", &params)?;
            let body = route.body.map(|b| b.to_string().into_bytes());
            let headers = vec![("content-type", "application/json".to_string()), version];
            ctx.wire
                .send(Request {
                    method: route.method,
                    url: &route.url,
                    headers,
                    body,
                })
                .await
        }
    }
}

async fn activated_echoed(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let required = match required_or_na(&ctx) {
        Ok(required) => required,
        Err(na) => return Ok(na),
    };
    let http = send_http(&ctx).await?;
    if !(200..300).contains(&http.status) {
        return Err(HarnessError::Prerequisite(format!(
            "SendMessage with the required extensions activated was not processed: HTTP {} {}",
            http.status,
            http.body_start(200)
        )));
    }
    let echoed: Vec<String> = (http.headers.iter())
        .filter(|(k, _)| {
            k.eq_ignore_ascii_case(service_params::EXTENSIONS)
                || k.eq_ignore_ascii_case(service_params::EXTENSIONS_0_3)
        })
        .flat_map(|(_, v)| v.split(','))
        .map(|uri| uri.trim().to_string())
        .filter(|uri| !uri.is_empty())
        .collect();
    let missing: Vec<&String> = required
        .iter()
        .filter(|uri| !echoed.contains(uri))
        .collect();
    Ok(if missing.is_empty() {
        Verdict::pass()
    } else {
        Verdict::fail(
            format!(
                "an A2A-Extensions response header listing {}",
                required.join(", ")
            ),
            if echoed.is_empty() {
                "no A2A-Extensions header".to_string()
            } else {
                format!("A2A-Extensions: {}", echoed.join(", "))
            },
        )
    })
}

//! Extensions on 0.3 interfaces (`extensions.v03-*`, topics/extensions.md @ v0.3.0): the
//! `X-A2A-Extensions` header activates extensions, a required extension not activated is
//! refused, another version of a required URI is not taken for it, unsupported activations
//! are ignored, and the answer lists the activated extensions in `X-A2A-Extensions`.
//!
//! 0.3 names the header for HTTP only (JSON-RPC and REST); it defines no gRPC metadata for
//! extensions, so these checks do not run on 0.3 gRPC. That a breaking change takes a new
//! URI binds extension authors, not agents: nothing an agent answers can show it.

use crate::suite::check::Needs;
use serde_json::json;

use crate::exchange::transport::v03::Form;
use crate::exchange::transport::Reply;
use crate::exchange::wire::{HttpReply, Request};
use crate::facts::service_params::{
    other_version, required_extensions, EXTENSIONS, UNKNOWN_EXTENSION,
};
use crate::suite::check::{Binding, Check, HarnessError, Level, SpecRef, Verdict};
use crate::suite::checks::extensions::downgrade_of;
use crate::suite::checks::setup::extensions::{baseline_processed, required_or_na, send_params};
use crate::suite::checks::setup::message_03;
use crate::suite::checks::JSON_0_3;
use crate::suite::ctx::{Answer, Ctx};

/// The id prefix of every check in this module.
pub const PREFIX: &str = "extensions";

/// The 0.3 header, as topics/extensions.md spells it.
const HEADER_0_3: &str = "X-A2A-Extensions";

const STATEMENTS: &[&str] = &["V03-D-04"];

/// This module's checks.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "extensions.v03-activated-by-header",
            level: Level::Must,
            spec: SpecRef { version: "0.3", section: "topics/extensions.md", statements: STATEMENTS },
            requirement: "On 0.3, X-A2A-Extensions (alone, without 1.0's A2A-Extensions) activates a required extension",
            scope: JSON_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "Observable where the agent refuses a 0.3 request that activates nothing: then \
                 message/send with the card's required extensions in X-A2A-Extensions only \
                 must be processed, as a 0.3 client sends them (topics/extensions.md @ v0.3.0 \
                 names no other header). N/A when the card declares no required extension or \
                 the agent processes the bare request; a request with both header names must \
                 be processed first (else UNTESTABLE). 0.3 defines no gRPC metadata for \
                 extensions: JSON-RPC and REST only.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(activated_by_header(ctx)),
        },
        Check {
            id: "extensions.v03-required-not-activated-refused",
            level: Level::Should,
            spec: SpecRef { version: "0.3", section: "topics/extensions.md", statements: STATEMENTS },
            requirement: "On 0.3, a request that does not activate an extension the card marks required is refused",
            scope: JSON_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "0.3: agents \"should ... reject the incoming request and return an appropriate \
                 error code\". 0.3 has no ExtensionSupportRequiredError (1.0's -32008), so any \
                 error passes; a processed request is a WARN. N/A when the card declares no \
                 required extension.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(required_refused(ctx)),
        },
        Check {
            id: "extensions.v03-version-not-downgraded",
            level: Level::Must,
            spec: SpecRef { version: "0.3", section: "topics/extensions.md", statements: STATEMENTS },
            requirement: "On 0.3, activating another version of a required extension's URI is not taken for the declared version",
            scope: JSON_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "X-A2A-Extensions names the required URI with its version raised by one (…/v1 \
                 → …/v2). 0.3: the agent SHOULD ignore that activation and MUST NOT fall back \
                 to another version, so the required extension stays inactive and the request \
                 is refused like one that activates nothing (any error passes). Observable \
                 only where the agent refuses the bare request (else UNTESTABLE); N/A when no \
                 required URI carries a version the kit recognises.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(not_downgraded(ctx)),
        },
        Check {
            id: "extensions.v03-unsupported-activation-ignored",
            level: Level::Should,
            spec: SpecRef { version: "0.3", section: "topics/extensions.md", statements: STATEMENTS },
            requirement: "On 0.3, activations of extensions (or versions) the agent does not support are ignored beside the required ones: the request is processed",
            scope: JSON_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "X-A2A-Extensions lists, comma-separated, a URI of the kit's own namespace, the \
                 required URIs with their version raised by one (where the kit recognises one), \
                 then the required URIs. 0.3: unsupported extensions \"can be ignored\" and an \
                 unsupported version SHOULD be ignored; a refusal is a WARN. A plain request \
                 with the required extensions must be processed first (else UNTESTABLE).",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(unsupported_ignored(ctx)),
        },
        Check {
            id: "extensions.v03-activated-echoed",
            level: Level::Should,
            spec: SpecRef { version: "0.3", section: "topics/extensions.md", statements: STATEMENTS },
            requirement: "On 0.3, the response lists the activated extensions in an X-A2A-Extensions header",
            scope: JSON_0_3,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "0.3: \"the response should include the X-A2A-Extensions header identifying all \
                 extensions that were activated\". Judged for the required extensions, \
                 activated with X-A2A-Extensions on message/send; 1.0's A2A-Extensions alone \
                 is not what a 0.3 client reads (WARN).",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(echoed(ctx)),
        },
    ]
}

/// The check's context activating `uris` with X-A2A-Extensions only (none: no header).
fn activating(ctx: &Ctx, uris: &[String]) -> Ctx {
    let mut headers: Vec<(String, String)> = (ctx.wire.extra_headers().iter())
        .filter(|(k, _)| !k.eq_ignore_ascii_case(EXTENSIONS) && !k.eq_ignore_ascii_case(HEADER_0_3))
        .cloned()
        .collect();
    if !uris.is_empty() {
        headers.push((HEADER_0_3.to_string(), uris.join(",")));
    }
    ctx.with_extensions(Vec::new()).as_caller(headers)
}

/// SendMessage activating `uris` with X-A2A-Extensions only.
async fn send(ctx: &Ctx, uris: &[String]) -> Result<Reply, HarnessError> {
    let caller = activating(ctx, uris);
    caller.send(send_params(&caller)).await
}

fn processed(reply: &Reply) -> bool {
    matches!(reply.read, Ok(Answer::Result(_)))
}

/// The bare request (no activation) must be refused for activations to be observable.
async fn bare_refused(ctx: &Ctx) -> Result<bool, HarnessError> {
    Ok(!processed(&send(ctx, &[]).await?))
}

async fn activated_by_header(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let required = match required_or_na(&ctx) {
        Ok(required) => required,
        Err(na) => return Ok(na),
    };
    if !bare_refused(&ctx).await? {
        return Ok(Verdict::NotApplicable {
            reason: "the agent processes a 0.3 request that activates no extension: activation \
                     is not observable"
                .into(),
        });
    }
    baseline_processed(&ctx).await?;
    let reply = send(&ctx, &required).await?;
    Ok(match &reply.read {
        Ok(Answer::Result(_)) => Verdict::pass(),
        Ok(other) => Verdict::fail(
            format!("message/send processed with {HEADER_0_3}: {}", required.join(",")),
            format!(
                "refused like a request without activation (with both header names it is processed): {}",
                other.describe()
            ),
        ),
        Err(unreadable) => Verdict::fail("message/send processed", unreadable.clone()),
    })
}

async fn required_refused(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Err(na) = required_or_na(&ctx) {
        return Ok(na);
    }
    let reply = send(&ctx, &[]).await?;
    Ok(match &reply.read {
        Ok(Answer::Error(error)) => Verdict::pass_with(format!("refused: {error}")),
        Ok(other) => Verdict::fail(
            "an error: the required extension is not activated",
            format!("processed: {}", other.describe()),
        ),
        Err(unreadable) => Verdict::pass_with(format!("not processed: {unreadable}")),
    })
}

async fn not_downgraded(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let (required, index, other) = match downgrade_of(&ctx) {
        Ok(found) => found,
        Err(na) => return Ok(na),
    };
    if !bare_refused(&ctx).await? {
        return Err(HarnessError::Prerequisite(
            "the agent processes a 0.3 request that activates no extension, so a fall-back \
             cannot be told apart"
                .into(),
        ));
    }
    let declared = required[index].clone();
    let mut activated = required;
    activated[index] = other.clone();
    let reply = send(&ctx, &activated).await?;
    Ok(if processed(&reply) {
        Verdict::fail(
            format!("a refusal ({other} activated in place of the declared {declared})"),
            format!("processed, as if {declared} were active"),
        )
    } else {
        Verdict::pass()
    })
}

async fn unsupported_ignored(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if let Err(na) = required_or_na(&ctx) {
        return Ok(na);
    }
    let required = required_extensions(&ctx.card.json);
    if !processed(&send(&ctx, &required).await?) {
        return Err(HarnessError::Prerequisite(format!(
            "message/send with {HEADER_0_3}: {} was not processed",
            required.join(",")
        )));
    }
    let mut activated = vec![UNKNOWN_EXTENSION.to_string()];
    activated.extend(required.iter().filter_map(|uri| other_version(uri)));
    activated.extend(required.iter().cloned());
    let reply = send(&ctx, &activated).await?;
    Ok(match &reply.read {
        Ok(Answer::Result(_)) => Verdict::pass(),
        Ok(other) => Verdict::fail(
            format!("processed with {HEADER_0_3}: {}", activated.join(",")),
            other.describe(),
        ),
        Err(unreadable) => Verdict::fail("processed", unreadable.clone()),
    })
}

/// message/send in the 0.3 form, over plain HTTP, activating `uris` with X-A2A-Extensions.
async fn send_http(ctx: &Ctx, uris: &[String]) -> Result<HttpReply, HarnessError> {
    let caller = activating(ctx, uris);
    let content = vec![("content-type", "application/json".to_string())];
    match ctx.binding() {
        Binding::Jsonrpc => {
            let body = json!({
                "jsonrpc": "2.0", "id": caller.id("rpc"), "method": "message/send",
                "params": {"message": message_03(&caller, "tck-complete-task", Form::JsonRpc)},
            });
            Ok(caller
                .post_raw(body.to_string().into_bytes(), content)
                .await?
                .http)
        }
        _ => {
            let base = (ctx.interface.as_ref())
                .map(|i| i.url.trim_end_matches('/').to_string())
                .unwrap_or_default();
            let url = format!("{base}/v1/message:send");
            let body = json!({"message": message_03(&caller, "tck-complete-task", Form::Proto)});
            caller
                .wire
                .send(Request {
                    method: reqwest::Method::POST,
                    url: &url,
                    headers: content,
                    body: Some(body.to_string().into_bytes()),
                })
                .await
        }
    }
}

async fn echoed(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let required = match required_or_na(&ctx) {
        Ok(required) => required,
        Err(na) => return Ok(na),
    };
    let http = send_http(&ctx, &required).await?;
    let result = http.json().is_some_and(|b| b.get("error").is_none());
    if !(200..300).contains(&http.status) || !result {
        return Err(HarnessError::Prerequisite(format!(
            "message/send with {HEADER_0_3}: {} was not processed: HTTP {} {}",
            required.join(","),
            http.status,
            http.body_start(200)
        )));
    }
    let echoed: Vec<String> = (http.headers.iter())
        .filter(|(k, _)| k.eq_ignore_ascii_case(HEADER_0_3))
        .flat_map(|(_, v)| v.split(','))
        .map(|uri| uri.trim().to_string())
        .filter(|uri| !uri.is_empty())
        .collect();
    let missing: Vec<&String> = (required.iter())
        .filter(|uri| !echoed.contains(uri))
        .collect();
    Ok(if missing.is_empty() {
        Verdict::pass()
    } else {
        let other = http.header(EXTENSIONS).map(str::to_string);
        Verdict::fail(
            format!(
                "an {HEADER_0_3} response header listing {}",
                required.join(", ")
            ),
            match (echoed.is_empty(), other) {
                (true, Some(v)) => format!("no {HEADER_0_3}; only 1.0's A2A-Extensions: {v}"),
                (true, None) => format!("no {HEADER_0_3} header"),
                (false, _) => format!("{HEADER_0_3}: {}", echoed.join(", ")),
            },
        )
    })
}

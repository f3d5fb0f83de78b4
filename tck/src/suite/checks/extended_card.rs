//! Extended Agent Card checks (`extended-card.*`, spec 1.0 §3.1.11, §3.3.4, §13.3; 0.3
//! §7.10): when the card declares the extended card, the authenticated call returns an Agent
//! Card on every binding (or ExtendedAgentCardNotConfiguredError), a call without
//! credentials gets no card nor does a principal without the permission get its privileged
//! content, and the HTTP bindings serve it with caching headers.

use crate::suite::check::{Needs, Profile};
use serde_json::{json, Value};

use super::setup::auth::{in_binding_form, served, with_wrong_credentials, without_credentials};
use super::setup::Findings;
use super::EVERY_BINDING_BOTH;
use crate::exchange::judge;
use crate::exchange::transport::Reply;
use crate::exchange::wire::HttpReply;
use crate::facts::a2a::ErrorKind;
use crate::facts::model::{Binding, ProtocolVersion};
use crate::suite::check::{Capability, Check, Gate, HarnessError, Level, SpecRef, Verdict};
use crate::suite::ctx::{Answer, Ctx};

mod challenge;
mod limited;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "extended-card";

const GATE: &[Gate] = &[Gate::Declares(Capability::ExtendedAgentCard)];

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "extended-card.with-credentials",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "3.3.4", statements: &["V10-3.3.4-05", "V10-13.3-14", "V03-7.10-04"] },
            requirement: "With credentials, GetExtendedAgentCard returns an Agent Card, or ExtendedAgentCardNotConfiguredError when none is configured",
            scope: EVERY_BINDING_BOTH,
            requires: GATE,
            maps_to: &["CARD-EXT-001"],
            acts: &["CARD-EXT-001"],
            reading: Some(
                "An Agent Card here is an object with the card's required fields: name, \
                 description, version, capabilities, skills, defaultInputModes, \
                 defaultOutputModes, and supportedInterfaces (1.0) or url (0.3). A declared \
                 capability with no card configured is conformant when answered with \
                 ExtendedAgentCardNotConfiguredError (-32007) in the binding's form. 0.3 \
                 calls are agent/getAuthenticatedExtendedCard, REST GET /v1/card and gRPC \
                 GetAgentCard; the gate reads capabilities.extendedAgentCard or the 0.3 \
                 supportsAuthenticatedExtendedCard.",
            ),
            needs: Needs::NONE.on(Profile::Authenticated),
            run: |ctx| Box::pin(with_credentials(ctx)),
        },
        Check {
            id: "extended-card.requires-auth",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "13.3", statements: &["V10-13.3-01", "V10-13.3-10", "V10-14.3-06", "V03-7.10-04"] },
            requirement: "GetExtendedAgentCard without credentials, or with wrong ones, returns no card",
            scope: EVERY_BINDING_BOTH,
            requires: GATE,
            maps_to: &[],
            acts: &["SEC-EXTCARD-001", "SEC-EXTCARD-004"],
            reading: Some(
                "Any error (HTTP 401/403, gRPC UNAUTHENTICATED, a JSON-RPC error, even \
                 UnsupportedOperationError) is accepted: the sentence asks only that the card \
                 is not given to an unauthenticated caller. The form of authentication \
                 refusals is judged by auth.rejection-form. Wrong credentials are tried when \
                 the kit can make them (see auth.invalid-credentials-rejected).",
            ),
            needs: Needs::NONE.on(Profile::Authenticated),
            run: |ctx| Box::pin(requires_auth(ctx)),
        },
        Check {
            id: "extended-card.limited-principal-refused",
            level: Level::Must,
            spec: SpecRef { version: "1.0", section: "13.3", statements: &["V10-13.3-10"] },
            requirement: "GetExtendedAgentCard by a caller that authenticates but may not read the extended card is refused, or answered with a card that holds none of the extended card's privileged skills",
            scope: super::EVERY_BINDING_1_0,
            requires: GATE,
            maps_to: &[],
            acts: &["SEC-EXTCARD-002"],
            reading: Some(
                "Needs a limited principal's credentials (--limited-bearer, --limited-bearer-env \
                 or --limited-header), taken as the user's word that this principal may see \
                 nothing of the extended card beyond the public card; without them N/A. Any \
                 error passes (an authorization error, or ExtendedAgentCardNotConfiguredError: \
                 none configured for this caller); the refusal's form is \
                 auth.limited-principal-refused's. §13.3 lets the extended card depend on the \
                 caller (V10-13.3-03), so a card served to the limited principal is not by \
                 itself a failure: what is privileged is read as the skills (by id) of the run's \
                 principal's extended card that the public card lacks (V10-13.3-05), and the \
                 card FAILs only if it shows one of them. Other differences (capability details, \
                 configuration) are not judged: the kit cannot tell which are privileged. A \
                 card served when the run's principal gets no extended card, or one with no \
                 skill beyond the public card's, leaves nothing to compare: UNTESTABLE. 1.0 \
                 only: 0.3 names no permission rule for the extended card (§7.10 asks only for \
                 authentication).",
            ),
            needs: Needs::NONE.weighs(2).on(Profile::Authenticated),
            run: |ctx| Box::pin(limited::limited_card(ctx)),
        },
        Check {
            id: "extended-card.cache-headers",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "13.3", statements: &["V10-13.3-04", "V10-13.3-12"] },
            requirement: "The extended card is served with caching headers (Cache-Control, and ETag or Last-Modified as its version)",
            scope: super::JSON_1_0,
            requires: GATE,
            maps_to: &[],
            acts: &[],
            reading: Some(
                "\"Appropriate caching headers\" are not named: Cache-Control (or Expires) for \
                 the client's caching, and ETag or Last-Modified as the version a client \
                 revalidates (V10-13.3-12); both are asked for, like the public card's \
                 (§8.6.1). gRPC has no HTTP caching headers: the check runs on the JSON \
                 bindings only. A card not configured (-32007) makes the check N/A.",
            ),
            needs: Needs::NONE.on(Profile::Authenticated),
            run: |ctx| Box::pin(cache_headers(ctx)),
        },
        Check {
            id: "extended-card.refusal-challenge",
            level: Level::Should,
            spec: SpecRef { version: "0.3", section: "7.10", statements: &["V03-7.10-02"] },
            requirement: "A 0.3 extended-card request refused for missing credentials carries a WWW-Authenticate header",
            scope: super::JSON_0_3,
            requires: GATE,
            maps_to: &[],
            acts: &[],
            reading: Some(
                "agent/getAuthenticatedExtendedCard (JSON-RPC) or GET /v1/card (REST) with no \
                 credential. §7.10 names the header on the 401 answer for missing or invalid \
                 credentials: a 403 (a refusal for lack of permission) passes without it; any \
                 other refusal (401, or a JSON-RPC error) without it is a WARN. A card served \
                 without credentials leaves nothing to judge (UNTESTABLE; \
                 extended-card.requires-auth fails it). gRPC has no HTTP header: its \
                 `www-authenticate` metadata is auth.challenge's. 1.0 states its challenge rule \
                 once for every operation (auth.challenge).",
            ),
            needs: Needs::NONE.on(Profile::Authenticated),
            run: |ctx| Box::pin(challenge::refusal_challenge(ctx)),
        },
    ]
}

/// What is missing for `value` to be an Agent Card of `version`.
fn card_problems(value: &Value, version: ProtocolVersion) -> Vec<String> {
    let Some(card) = value.as_object() else {
        return vec![format!(
            "not an object: {}",
            crate::facts::a2a::brief(value, 200)
        )];
    };
    let mut required = vec![
        ("name", "string"),
        ("description", "string"),
        ("version", "string"),
        ("capabilities", "object"),
        ("skills", "array"),
        ("defaultInputModes", "array"),
        ("defaultOutputModes", "array"),
    ];
    required.push(match version {
        ProtocolVersion::V1_0 => ("supportedInterfaces", "array"),
        ProtocolVersion::V0_3 => ("url", "string"),
    });
    required
        .into_iter()
        .filter(|(field, kind)| {
            !matches!(
                (card.get(*field), *kind),
                (Some(Value::String(_)), "string")
                    | (Some(Value::Object(_)), "object")
                    | (Some(Value::Array(_)), "array")
            )
        })
        .map(|(field, kind)| format!("{field} ({kind}) missing or mistyped"))
        .collect()
}

/// The judgement of an authenticated call's reply: `Ok(true)` a card, `Ok(false)` not
/// configured (conformant), `Err` what is wrong.
fn judge_card(reply: &Reply, version: ProtocolVersion) -> Result<bool, String> {
    match &reply.read {
        Ok(Answer::Result(card)) => {
            let problems = card_problems(card, version);
            if problems.is_empty() {
                Ok(true)
            } else {
                Err(format!(
                    "a result that is not an Agent Card: {}",
                    problems.join(", ")
                ))
            }
        }
        Ok(Answer::Error(error)) if judge::is(error, ErrorKind::ExtendedAgentCardNotConfigured) => {
            Ok(false)
        }
        Ok(answer) => Err(answer.describe()),
        Err(unreadable) => Err(unreadable.clone()),
    }
}

async fn with_credentials(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let reply = ctx.extended_card().await?;
    // An authentication or authorization refusal says the kit's credentials do not reach the
    // card (none given, or without the permission): nothing to judge.
    let refused = matches!(&reply.read, Ok(Answer::Error(_))) && in_binding_form(&reply).is_ok();
    if refused {
        let given = if ctx.wire.extra_headers().is_empty() {
            "the kit was given no credentials (--bearer, --bearer-env, --header)"
        } else {
            "the credentials given may lack the permission"
        };
        return Err(HarnessError::Prerequisite(format!(
            "GetExtendedAgentCard was refused as unauthenticated or unauthorized; {given}"
        )));
    }
    let expected = "an Agent Card, or ExtendedAgentCardNotConfiguredError";
    Ok(match judge_card(&reply, ctx.version()) {
        Ok(true) => Verdict::pass(),
        Ok(false) => Verdict::pass_with(
            "ExtendedAgentCardNotConfiguredError: no extended card is configured",
        ),
        Err(actual) => Verdict::fail(expected, actual),
    })
}

async fn requires_auth(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let mut callers = vec![("without credentials", without_credentials(&ctx))];
    callers.extend(with_wrong_credentials(&ctx).map(|c| ("with wrong credentials", c)));
    let mut findings = Findings::default();
    for (how, caller) in callers {
        let reply = caller.extended_card().await?;
        if let Some(what) = served(&reply) {
            findings.problem(format!("GetExtendedAgentCard {how} was served: {what}"));
        }
    }
    Ok(findings.verdict(
        "no extended card without valid credentials",
        Verdict::pass(),
    ))
}

/// The extended card's HTTP answer, as the binding sends it (with the run's credentials).
pub(super) async fn raw_card(ctx: &Ctx) -> Result<HttpReply, HarnessError> {
    let base = ctx
        .interface
        .as_ref()
        .map(|i| i.url.trim_end_matches('/').to_string());
    let base = base.unwrap_or_default();
    let version =
        (ctx.version() == ProtocolVersion::V1_0).then(|| ("A2A-Version", "1.0".to_string()));
    match ctx.binding() {
        Binding::Rest => {
            let url = match ctx.version() {
                ProtocolVersion::V1_0 => {
                    match ctx.interface.as_ref().and_then(|i| i.tenant.as_deref()) {
                        Some(tenant) => format!("{base}/{tenant}/extendedAgentCard"),
                        None => format!("{base}/extendedAgentCard"),
                    }
                }
                ProtocolVersion::V0_3 => format!("{base}/v1/card"),
            };
            let request = crate::exchange::wire::Request {
                method: reqwest::Method::GET,
                url: &url,
                headers: version.into_iter().collect(),
                body: None,
            };
            ctx.wire.send(request).await
        }
        _ => {
            let method = match ctx.version() {
                ProtocolVersion::V1_0 => "GetExtendedAgentCard",
                ProtocolVersion::V0_3 => "agent/getAuthenticatedExtendedCard",
            };
            let body =
                json!({"jsonrpc": "2.0", "id": ctx.id("tck-extended-card"), "method": method});
            let mut headers = vec![("Content-Type", "application/json".to_string())];
            headers.extend(version);
            Ok(ctx
                .post_raw(body.to_string().into_bytes(), headers)
                .await?
                .http)
        }
    }
}

async fn cache_headers(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let http = raw_card(&ctx).await?;
    let body = http.json();
    let card = match ctx.binding() {
        Binding::Jsonrpc => body.as_ref().and_then(|b| b.get("result")),
        _ => body.as_ref().filter(|_| http.status == 200),
    };
    if card.is_none() {
        let configured = body
            .as_ref()
            .and_then(|b| b.pointer("/error/code"))
            .and_then(Value::as_i64)
            != Some(-32007)
            && !http
                .body_start(2000)
                .contains("EXTENDED_AGENT_CARD_NOT_CONFIGURED");
        if !configured {
            return Ok(Verdict::NotApplicable {
                reason: "no extended card is configured (ExtendedAgentCardNotConfiguredError)"
                    .into(),
            });
        }
        return Err(HarnessError::Prerequisite(format!(
            "the extended card was not returned with the kit's credentials (HTTP {}): {}",
            http.status,
            http.body_start(300)
        )));
    }
    let has = |name: &str| http.header(name).is_some_and(|v| !v.trim().is_empty());
    let mut missing = Vec::new();
    if !has("cache-control") && !has("expires") {
        missing.push("Cache-Control");
    }
    if !has("etag") && !has("last-modified") {
        missing.push("ETag (or Last-Modified)");
    }
    Ok(if missing.is_empty() {
        Verdict::pass()
    } else {
        Verdict::fail(
            "Cache-Control and ETag (or Last-Modified) on the extended card",
            format!("no {}", missing.join(", no ")),
        )
    })
}

//! Signed agent card checks (`card.signature.*`, spec 1.0 §8.4): the JWS protected header of
//! each signature, the JWK Set its `jku` names, and the signature over the canonical card.
//! Every check is N/A when the card carries no `signatures`.

pub mod jku;
use crate::suite::check::Needs;
use serde_json::Value;

use super::setup::verdict_from;
use crate::exchange::card;
use crate::exchange::wire::Request;
use crate::facts::jws::{self, Signature};
use crate::suite::check::{Check, HarnessError, Level, Scope, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "card.signature";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "card.signature.verifies",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "8.4.1",
                statements: &[
                    "V10-8.4.1-01",
                    "V10-8.4.1-02",
                    "V10-8.4.1-03",
                    "V10-8.4.1-04",
                    "V10-8.4.1-05",
                    "V10-8.4.1-06",
                    "V10-8.4.1-07",
                    "V10-8.4.1-08",
                ],
            },
            requirement: "Each card signature verifies over the RFC 8785 canonical card without `signatures` and default-valued fields",
            scope: Scope::Card,
            requires: &[],
            maps_to: &["CARD-SIGN-001", "CARD-SIGN-002"],
            acts: &[],
            reading: Some(
                "§8.4.1 removes default-valued fields following proto presence (`optional` and \
                 REQUIRED fields kept). Fields outside the 1.0 proto (0.3 fields, extensions) \
                 have no declared presence, so the kit accepts a signature over any of: that \
                 form, the same with every default-valued field removed, the same keeping \
                 `optional` fields only, and the card as served; each without `signatures`. \
                 The key comes from --trusted-key or from the JWK Set at `jku` (by `kid`); a \
                 signature whose key is found nowhere, or whose `alg` the kit cannot verify, is \
                 not judged (N/A when no signature can be).",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(verifies(ctx)),
        },
        Check {
            id: "card.signature.header-alg-typ-kid",
            level: Level::Must,
            spec: SpecRef {
                version: "1.0",
                section: "8.4.2",
                statements: &["V10-8.4.2-01"],
            },
            requirement: "Each signature's protected header is a base64url JSON object with `alg`, `typ` and `kid`",
            scope: Scope::Card,
            requires: &[],
            maps_to: &["CARD-SIGN-003"],
            acts: &[],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(header_fields(ctx)),
        },
        Check {
            id: "card.signature.typ-jose",
            level: Level::Should,
            spec: SpecRef {
                version: "1.0",
                section: "8.4.2",
                statements: &["V10-8.4.2-02"],
            },
            requirement: "Each signature's protected header says `typ: \"JOSE\"`",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: None,
            needs: Needs::NONE,
            run: |ctx| Box::pin(typ_jose(ctx)),
        },
        Check {
            id: "card.signature.jku-holds-key",
            level: Level::Should,
            spec: SpecRef {
                version: "1.0",
                section: "8.4.2",
                statements: &["V10-8.4.2-03", "EXT-RFC7515-4.1.2-01"],
            },
            requirement: "A `jku` in a protected header serves a JWK Set holding the key named by `kid`",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "`jku` is optional (§8.4.2, MAY); when present, RFC 7515 §4.1.2 defines it as \
                 the URL of a key set one of whose keys signed the JWS. That the set holds the \
                 key is the parameter's definition, not a keyworded sentence (the RFC's MUST is \
                 on the set's JWK Set encoding), so a set without the key, or one the kit cannot \
                 read, is a WARN. N/A without `jku`. When `kid` is absent (judged by \
                 card.signature.header-alg-typ-kid), any key of the set that verifies the \
                 signature is taken.",
            ),
            needs: Needs::NONE,
            run: |ctx| Box::pin(jku_holds_key(ctx)),
        },
    ]
}

/// The card's signatures, or the N/A verdict when it has none.
fn signatures(ctx: &Ctx) -> Result<Vec<Signature>, Verdict> {
    card::record(ctx.wire.recorder(), &ctx.card);
    match ctx.card.json.get("signatures") {
        None | Some(Value::Null) => Err(Verdict::NotApplicable {
            reason: "the card carries no `signatures` (signing is optional, §8.4)".into(),
        }),
        Some(Value::Array(items)) if items.is_empty() => Err(Verdict::NotApplicable {
            reason: "the card's `signatures` is empty (signing is optional, §8.4)".into(),
        }),
        Some(Value::Array(items)) => Ok(items.iter().map(Signature::parse).collect()),
        Some(other) => Err(Verdict::fail(
            "`signatures` as an array of AgentCardSignature",
            crate::facts::a2a::brief(other, 120),
        )),
    }
}

async fn header_fields(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let signatures = match signatures(&ctx) {
        Ok(s) => s,
        Err(verdict) => return Ok(verdict),
    };
    let mut problems = Vec::new();
    for (i, signature) in signatures.iter().enumerate() {
        match &signature.header {
            Err(e) => problems.push(format!("signatures[{i}].protected: {e}")),
            Ok(header) => {
                let missing: Vec<&str> = ["alg", "typ", "kid"]
                    .into_iter()
                    .filter(|f| {
                        header
                            .get(*f)
                            .and_then(Value::as_str)
                            .is_none_or(str::is_empty)
                    })
                    .collect();
                if !missing.is_empty() {
                    problems.push(format!(
                        "signatures[{i}]: the protected header {} lacks {}",
                        signature.header_text(),
                        missing.join(", ")
                    ));
                }
            }
        }
    }
    Ok(verdict_from(
        problems,
        "protected headers with non-empty string alg, typ and kid",
    ))
}

async fn typ_jose(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let signatures = match signatures(&ctx) {
        Ok(s) => s,
        Err(verdict) => return Ok(verdict),
    };
    let headers: Vec<(usize, &serde_json::Map<String, Value>)> = (signatures.iter().enumerate())
        .filter_map(|(i, signature)| Some((i, signature.header.as_ref().ok()?)))
        .collect();
    if headers.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: "no signature's protected header could be read (judged by \
                     card.signature.header-alg-typ-kid)"
                .into(),
        });
    }
    let problems = (headers.iter())
        .filter_map(|(i, header)| {
            let typ = header.get("typ");
            (typ.and_then(Value::as_str) != Some("JOSE"))
                .then(|| format!("signatures[{i}]: typ is {}", typ.unwrap_or(&Value::Null)))
        })
        .collect();
    Ok(verdict_from(
        problems,
        "typ \"JOSE\" in every protected header",
    ))
}

/// The JWK Set at `url`, fetched through the recording client, or why there is none.
async fn fetch_jwks(ctx: &Ctx, url: &str) -> Result<Result<Vec<Value>, String>, HarnessError> {
    if !(url.starts_with("http://") || url.starts_with("https://")) {
        return Ok(Err(format!("jku {url:?} is not an http(s) URL")));
    }
    let reply = ctx
        .wire
        .send(Request {
            method: reqwest::Method::GET,
            url,
            headers: vec![(
                "accept",
                "application/jwk-set+json, application/json".into(),
            )],
            body: None,
        })
        .await?;
    if reply.status != 200 {
        return Ok(Err(format!("jku {url} answered HTTP {}", reply.status)));
    }
    match reply.json().as_ref().and_then(|v| v.get("keys")) {
        Some(Value::Array(keys)) => Ok(Ok(keys.clone())),
        _ => Ok(Err(format!(
            "jku {url} did not answer a JWK Set ({{\"keys\": [...]}}): {}",
            reply.body_start(120)
        ))),
    }
}

async fn jku_holds_key(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let signatures = match signatures(&ctx) {
        Ok(s) => s,
        Err(verdict) => return Ok(verdict),
    };
    let mut problems = Vec::new();
    let mut judged = 0;
    for (i, signature) in signatures.iter().enumerate() {
        let Some(jku) = signature.jku() else { continue };
        judged += 1;
        let keys = match fetch_jwks(&ctx, &jku).await? {
            Ok(keys) => keys,
            Err(e) => {
                problems.push(format!("signatures[{i}]: {e}"));
                continue;
            }
        };
        match signature.kid() {
            Some(kid) => {
                if jws::keys_for(&keys, Some(&kid)).is_empty() {
                    let held: Vec<&str> = keys
                        .iter()
                        .filter_map(|k| k.get("kid").and_then(Value::as_str))
                        .collect();
                    problems.push(format!(
                        "signatures[{i}]: the JWK Set at {jku} has no key with kid {kid:?} \
                         (it holds kids {held:?})"
                    ));
                }
            }
            None => {
                if let jws::Outcome::Mismatch = signature.verify_with_any(&ctx.card.json, &keys) {
                    problems.push(format!(
                        "signatures[{i}]: no key of the JWK Set at {jku} verifies the signature \
                         (the header names no kid)"
                    ));
                }
            }
        }
    }
    if judged == 0 {
        return Ok(Verdict::NotApplicable {
            reason: "no signature's protected header carries a `jku`".into(),
        });
    }
    Ok(verdict_from(
        problems,
        "each jku serving a JWK Set with the signing key",
    ))
}

/// The keys that may have made `signature`: the trusted keys, then those of its `jku` set
/// (each narrowed by `kid` when the header names one), with what was tried.
async fn keys_of(
    ctx: &Ctx,
    signature: &Signature,
) -> Result<(Vec<Value>, Vec<String>), HarnessError> {
    let kid = signature.kid();
    let mut keys = jws::keys_for(ctx.trusted_keys(), kid.as_deref());
    let mut tried = vec![format!("{} trusted key(s) matching", keys.len())];
    if let Some(jku) = signature.jku() {
        match fetch_jwks(ctx, &jku).await? {
            Ok(set) => {
                let found = jws::keys_for(&set, kid.as_deref());
                tried.push(format!(
                    "{} key(s) of the JWK Set at {jku} matching",
                    found.len()
                ));
                keys.extend(found);
            }
            Err(e) => tried.push(e),
        }
    } else {
        tried.push("no jku".into());
    }
    Ok((keys, tried))
}

async fn verifies(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let signatures = match signatures(&ctx) {
        Ok(s) => s,
        Err(verdict) => return Ok(verdict),
    };
    let card = &ctx.card.json;
    let mut problems = Vec::new();
    let mut verified = Vec::new();
    let mut unjudged = Vec::new();
    for (i, signature) in signatures.iter().enumerate() {
        let (keys, tried) = keys_of(&ctx, signature).await?;
        if keys.is_empty() {
            unjudged.push(format!(
                "signatures[{i}]: no key for kid {:?} ({})",
                signature.kid().unwrap_or_default(),
                tried.join(", ")
            ));
            continue;
        }
        match signature.verify_with_any(card, &keys) {
            jws::Outcome::Verified { form } => {
                crate::facts::revision::note_signature(i, signature.forms_verified(card, &keys));
                verified.push(format!("signatures[{i}] verifies over {form}"));
            }
            jws::Outcome::Unsupported(why) => unjudged.push(format!("signatures[{i}]: {why}")),
            jws::Outcome::Mismatch => {
                crate::facts::revision::note(crate::facts::revision::Sentence::CardCanonicalForm);
                let canonical = jws::canonical_forms(card)
                    .into_iter()
                    .next()
                    .map(|(_, bytes)| String::from_utf8_lossy(&bytes).into_owned())
                    .unwrap_or_default();
                problems.push(format!(
                    "signatures[{i}] (protected header {}) does not verify with {} over any \
                     canonical form of the card; the canonical card (defaults removed by proto \
                     presence, RFC 8785) is: {canonical}",
                    signature.header_text(),
                    tried.join(", "),
                ));
            }
        }
    }
    if !problems.is_empty() {
        return Ok(Verdict::fail(
            "each signature verifying over the canonical card",
            problems.join("; "),
        ));
    }
    if verified.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: format!(
                "no signature could be checked (give the key with --trusted-key): {}",
                unjudged.join("; ")
            ),
        });
    }
    let mut detail = verified.join("; ");
    if !unjudged.is_empty() {
        detail.push_str(&format!("; not checked: {}", unjudged.join("; ")));
    }
    Ok(Verdict::pass_with(detail))
}

//! The 0.3 card's transport declarations (`v03.card.*`, 0.3 spec §5.6): the main url answers
//! its preferredTransport, each additional interface answers the transport it names, and
//! additionalInterfaces is complete. The 0.3 wire rules are in `v03_wire`.

use crate::suite::check::Needs;
use serde_json::Value;

use crate::exchange::card::{FetchedCard, Interface};
use crate::exchange::transport::{Answer, ErrorReply};
use crate::facts::a2a;
use crate::suite::check::{
    Binding, Check, HarnessError, Level, ProtocolVersion, Scope, SpecRef, Verdict,
};
use crate::suite::checks::setup::verdict_from;
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "v03";

/// The transport names the 0.3 spec defines (§5.5.5).
const CORE_TRANSPORTS: &[&str] = &["JSONRPC", "GRPC", "HTTP+JSON"];

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "v03.card.declared-transports-answer",
            level: Level::Must,
            spec: SpecRef {
                version: "0.3",
                section: "5.6",
                statements: &["V03-3.1-02", "V03-3.2-01", "V03-3.4.2-01", "V03-5.6.1-01", "V03-5.6.1-02", "V03-5.6.1-04", "V03-5.6.2-02", "V03-5.6.4-02", "V03-5.6.4-04", "V03-5.6.4-05", "V03-11.1.1-01", "V03-11.1.1-03", "V03-T-01", "V03-T-02", "V03-T-03"],
            },
            requirement: "The 0.3 card's url answers its preferredTransport, and each additionalInterfaces url answers the transport it declares",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "A missing preferredTransport is read as JSONRPC, the 0.3 schema's default (spec \
                 notes §2.9 #6). One url may serve several transports (§5.6.2), so only a \
                 transport that does not answer where it is declared is a conflict. A card \
                 without the 0.3 fields has nothing to check (N/A); a url that asks for \
                 credentials the kit does not hold cannot be judged (UNTESTABLE).",
            ),
            needs: Needs::NONE.weighs(3),
            run: |ctx| Box::pin(declared_transports(ctx)),
        },
        Check {
            id: "v03.card.additional-interfaces-complete",
            level: Level::Should,
            spec: SpecRef { version: "0.3", section: "5.6.4", statements: &["V03-5.5.5-01", "V03-5.6.2-03", "V03-5.6.4-03", "V03-T-03"] },
            requirement: "A 0.3 card's additionalInterfaces repeats the main url with its preferredTransport, and transports use the core names JSONRPC, GRPC, HTTP+JSON",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some("Applies when the card lists additionalInterfaces (\"if provided\")."),
            needs: Needs::NONE,
            run: |ctx| Box::pin(interfaces_complete(ctx)),
        },
    ]
}

/// The 0.3 card's declarations: (transport, url) of `url`/`preferredTransport` first, then
/// of each `additionalInterfaces` entry; None when the card has no 0.3 fields.
fn declarations(card: &FetchedCard) -> Option<Vec<(String, String)>> {
    if card.top_level_version() != Some(ProtocolVersion::V0_3) {
        return None;
    }
    let card = &card.json;
    let url = card.get("url").and_then(Value::as_str)?;
    let preferred = card
        .get("preferredTransport")
        .and_then(Value::as_str)
        .unwrap_or("JSONRPC");
    let mut entries = vec![(preferred.to_string(), url.to_string())];
    for extra in a2a::items(card, "additionalInterfaces") {
        let text = |k: &str| {
            extra
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        entries.push((text("transport"), text("url")));
    }
    Some(entries)
}

async fn declared_transports(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let Some(entries) = declarations(&ctx.card) else {
        return Ok(Verdict::NotApplicable {
            reason: "the card has no 0.3 fields (protocolVersion 0.3 and url)".into(),
        });
    };
    let mut problems = Vec::new();
    let mut unauthorized = Vec::new();
    let mut tried = Vec::new();
    for (i, (transport, url)) in entries.iter().enumerate() {
        let label = if i == 0 {
            format!("url {url} (preferredTransport {transport})")
        } else {
            format!("additionalInterfaces[{}] {transport} at {url}", i - 1)
        };
        // Transports the kit does not speak (extensions, §3.2.4) cannot be tried.
        let Some(binding) = Binding::from_card(transport) else {
            continue;
        };
        if tried.contains(&(binding, url.clone())) {
            continue;
        }
        tried.push((binding, url.clone()));
        let interface = Interface {
            binding,
            version: ProtocolVersion::V0_3,
            url: url.clone(),
            tenant: None,
        };
        let on = ctx.on(interface);
        let params = serde_json::json!({ "message": on.user_message("tck-complete-task") });
        let reply = match on.send(params).await {
            // Refused for want of credentials, whatever the body says: the kit cannot tell
            // what is served there (a 401 page is not the binding's error form).
            Ok(reply) if matches!(reply.http_status, Some(401 | 403)) => {
                let status = reply.http_status.unwrap_or_default();
                unauthorized.push(format!("{label}: HTTP {status}"));
                continue;
            }
            Ok(reply) => reply.answer(),
            Err(e) => Err(e),
        };
        match reply {
            Ok(answer) => match &answer {
                Answer::Result(r) if r.get("task").is_some() || r.get("message").is_some() => {}
                // Refused for want of credentials: the kit cannot tell what is served there.
                Answer::Error(e) if refused_for_credentials(e) => {
                    unauthorized.push(format!("{label}: {}", answer.describe()));
                }
                _ => problems.push(format!("{label}: {}", answer.describe())),
            },
            Err(e) => problems.push(format!("{label}: {e}")),
        }
    }
    if problems.is_empty() && !unauthorized.is_empty() {
        return Err(HarnessError::Prerequisite(format!(
            "the agent asked for credentials the kit does not hold: {}",
            unauthorized.join("; ")
        )));
    }
    if tried.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: "the card's 0.3 fields declare no transport the kit speaks".into(),
        });
    }
    Ok(verdict_from(
        problems,
        "a 0.3 SendMessage answered in the declared transport at every declared url",
    ))
}

/// An authentication or authorization refusal (HTTP 401/403, gRPC UNAUTHENTICATED or
/// PERMISSION_DENIED).
fn refused_for_credentials(error: &ErrorReply) -> bool {
    matches!(error.http_status, Some(401 | 403))
        || matches!(
            error.status.as_deref(),
            Some("UNAUTHENTICATED" | "PERMISSION_DENIED")
        )
}

async fn interfaces_complete(ctx: Ctx) -> Result<Verdict, HarnessError> {
    let card = &ctx.card.json;
    let Some(entries) = declarations(&ctx.card) else {
        return Ok(Verdict::NotApplicable {
            reason: "the card has no 0.3 fields (protocolVersion 0.3 and url)".into(),
        });
    };
    if card.get("additionalInterfaces").is_none() {
        return Ok(Verdict::NotApplicable {
            reason: "the card lists no additionalInterfaces".into(),
        });
    }
    let mut problems = Vec::new();
    let main = &entries[0];
    if !entries[1..].contains(main) {
        problems.push(format!(
            "no additionalInterfaces entry for the main url {} with transport {}",
            main.1, main.0
        ));
    }
    for (transport, url) in &entries {
        if !CORE_TRANSPORTS.contains(&transport.as_str()) {
            problems.push(format!(
                "transport {transport:?} at {url} is not a core transport name"
            ));
        }
    }
    Ok(verdict_from(
        problems,
        "additionalInterfaces with the main url and preferredTransport, core transport names",
    ))
}

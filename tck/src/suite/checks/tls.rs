//! Transport-security checks (`tls.*`, spec 1.0 §7.1, §13.4, §14.3): for an agent whose card
//! is served over HTTPS, every interface is too, HTTP responses carry HSTS, TLS 1.3 is
//! offered and the legacy versions (SSLv3, TLS 1.0, TLS 1.1) are refused. On a plain-http
//! card they are N/A: whether a deployment is production (where §7.1 makes TLS a MUST) cannot
//! be seen from outside, so the kit judges the TLS an agent offers, not its absence.

use crate::suite::check::{Needs, Profile};
use std::collections::BTreeSet;

use serde_json::json;

use super::setup::Findings;
use crate::exchange::card::{self, Interface};
use crate::exchange::tls_probe::{self, Legacy, LegacyAnswer};
use crate::exchange::wire::{HttpReply, Request};
use crate::suite::check::{Binding, Check, HarnessError, Level, Scope, SpecRef, Verdict};
use crate::suite::ctx::Ctx;

/// The id prefix of every check in this module.
pub const PREFIX: &str = "tls";

const NOT_HTTPS: &str = "the card is not served over https: the kit judges TLS only where an \
                         agent offers it (§7.1's MUST is for production deployments, which the \
                         kit cannot tell apart)";

/// This module's checks, in spec order.
pub fn checks() -> Vec<Check> {
    vec![
        Check {
            id: "tls.tls-1-3-offered",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "7.1", statements: &["V10-7.1-02", "V10-13.4-02", "V03-4.1-02"] },
            requirement: "Each HTTPS endpoint of the agent negotiates TLS 1.3 when a client offers only it",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "\"TLS 1.3+ recommended\": one handshake per endpoint (the card's host and each \
                 interface's), offering TLS 1.3 only. The certificate is not judged by this \
                 probe; the kit's own requests verify it.",
            ),
            needs: Needs::NONE.on(Profile::Tls),
            run: |ctx| Box::pin(tls13_offered(ctx)),
        },
        Check {
            id: "tls.legacy-versions-refused",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "13.4", statements: &["V10-13.4-04"] },
            requirement: "Each HTTPS endpoint refuses a handshake that offers at most SSLv3, TLS 1.0 or TLS 1.1",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "One ClientHello per legacy version, offering it as the highest: a ServerHello \
                 of that version is acceptance; an alert, a closed connection or silence until \
                 the deadline is refusal. Together with the kit's own TLS 1.2+ requests this also \
                 shows TLS 1.2 at least.",
            ),
            needs: Needs::NONE.on(Profile::Tls),
            run: |ctx| Box::pin(legacy_refused(ctx)),
        },
        Check {
            id: "tls.hsts-on-http-bindings",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "13.4", statements: &["V10-13.4-03"] },
            requirement: "The card and every HTTP interface (JSON-RPC, REST) answer with Strict-Transport-Security (max-age > 0)",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "\"Agents SHOULD enforce HSTS headers when using HTTP-based bindings\": the \
                 card's response and one response of each HTTPS JSON-RPC and REST interface \
                 must carry the header; max-age=0 (which switches HSTS off) does not count.",
            ),
            needs: Needs::NONE.on(Profile::Tls),
            run: |ctx| Box::pin(hsts(ctx)),
        },
        Check {
            id: "tls.interfaces-https",
            level: Level::Should,
            spec: SpecRef { version: "1.0", section: "14.3", statements: &["V10-14.3-03", "V10-P-08"] },
            requirement: "A card served over HTTPS lists no interface at a plaintext URL (http://, ws://); JSON-RPC and REST URLs are https",
            scope: Scope::Card,
            requires: &[],
            maps_to: &[],
            acts: &[],
            reading: Some(
                "The proto says HTTP interface URLs \"must be\" absolute HTTPS URLs \"in \
                 production\" and §14.3 says implementations SHOULD support HTTPS: the kit cannot \
                 tell production, so a card over HTTPS that sends a client to plain http is \
                 judged at SHOULD (WARN). A gRPC host:port is reached with the card's scheme.",
            ),
            needs: Needs::NONE.on(Profile::Tls),
            run: |ctx| Box::pin(interfaces_https(ctx)),
        },
    ]
}

/// Whether the card came over https.
fn card_is_https(ctx: &Ctx) -> bool {
    ctx.card.url.to_ascii_lowercase().starts_with("https://")
}

/// The `host:port` and host of an https URL (or of a gRPC `host:port`), if it is one.
fn endpoint(url: &str) -> Option<(String, String)> {
    let full = if url.contains("://") {
        url.to_string()
    } else {
        format!("https://{url}")
    };
    let parsed = reqwest::Url::parse(&full).ok()?;
    if parsed.scheme() != "https" {
        return None;
    }
    let host = parsed.host_str()?.trim_matches(['[', ']']).to_string();
    let port = parsed.port_or_known_default()?;
    let addr = if host.contains(':') {
        format!("[{host}]:{port}")
    } else {
        format!("{host}:{port}")
    };
    Some((addr, host))
}

/// The distinct TLS endpoints: the card's and every declared interface's.
fn endpoints(ctx: &Ctx) -> Vec<(String, String)> {
    let (declared, _) = card::interfaces(&ctx.card.json);
    let urls = std::iter::once(ctx.card.url.clone()).chain(declared.into_iter().map(|d| d.url));
    let mut seen = BTreeSet::new();
    urls.filter_map(|url| endpoint(&url))
        .filter(|(addr, _)| seen.insert(addr.clone()))
        .collect()
}

async fn tls13_offered(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if !card_is_https(&ctx) {
        return Ok(Verdict::NotApplicable {
            reason: NOT_HTTPS.into(),
        });
    }
    let mut findings = Findings::default();
    for (addr, host) in endpoints(&ctx) {
        match tls_probe::tls13(&addr, &host)
            .await
            .map_err(HarnessError::Transport)?
        {
            Ok(()) => {}
            Err(why) => findings.problem(format!("{addr}: {why}")),
        }
    }
    Ok(findings.verdict(
        "a TLS 1.3 handshake on every HTTPS endpoint",
        Verdict::pass(),
    ))
}

async fn legacy_refused(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if !card_is_https(&ctx) {
        return Ok(Verdict::NotApplicable {
            reason: NOT_HTTPS.into(),
        });
    }
    let mut findings = Findings::default();
    let mut refusals = Vec::new();
    for (addr, host) in endpoints(&ctx) {
        // The three probes at once: a silent endpoint costs one deadline, not three.
        let probes = Legacy::ALL.map(|version| tls_probe::legacy(&addr, &host, version));
        let answers = futures::future::join_all(probes).await;
        for (version, answer) in Legacy::ALL.into_iter().zip(answers) {
            match answer.map_err(HarnessError::Transport)? {
                LegacyAnswer::Accepted => findings.problem(format!(
                    "{addr} answered a {} ClientHello with a {} ServerHello",
                    version.name(),
                    version.name()
                )),
                LegacyAnswer::Refused(how) => {
                    refusals.push(format!("{addr} {}: {how}", version.name()))
                }
            }
        }
    }
    let detail = format!("refused: {}", refusals.join("; "));
    Ok(findings.verdict(
        "SSLv3, TLS 1.0 and TLS 1.1 refused on every HTTPS endpoint",
        Verdict::pass_with(detail),
    ))
}

/// One answer of an HTTP interface: JSON-RPC GetTask, or REST GET /tasks/{id}, of an unknown
/// task (any answer has headers).
async fn touch(ctx: &Ctx, interface: &Interface) -> Result<HttpReply, HarnessError> {
    let version = ("a2a-version", interface.version.as_str().to_string());
    let id = ctx.id("tck-no-such-task");
    let (method, url, body) = match interface.binding {
        Binding::Jsonrpc => {
            let envelope = json!({
                "jsonrpc": "2.0", "id": ctx.id("rpc"), "method": "GetTask", "params": {"id": id},
            });
            (
                reqwest::Method::POST,
                interface.url.clone(),
                Some(envelope.to_string().into_bytes()),
            )
        }
        _ => {
            let url = format!("{}/tasks/{id}", interface.url.trim_end_matches('/'));
            (reqwest::Method::GET, url, None)
        }
    };
    let headers = vec![("content-type", "application/json".to_string()), version];
    ctx.wire
        .send(Request {
            method,
            url: &url,
            headers,
            body,
        })
        .await
}

/// The problem with a response's HSTS header, if any.
fn hsts_problem(reply: &HttpReply) -> Option<String> {
    let Some(value) = reply.header("strict-transport-security") else {
        return Some("no Strict-Transport-Security header".into());
    };
    let max_age = value.split(';').find_map(|directive| {
        let (name, number) = directive.split_once('=')?;
        (name.trim().eq_ignore_ascii_case("max-age"))
            .then(|| number.trim().trim_matches('"').parse::<u64>().ok())?
    });
    match max_age {
        Some(age) if age > 0 => None,
        _ => Some(format!(
            "Strict-Transport-Security: {value} (no max-age above 0)"
        )),
    }
}

async fn hsts(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if !card_is_https(&ctx) {
        return Ok(Verdict::NotApplicable {
            reason: NOT_HTTPS.into(),
        });
    }
    let mut findings = Findings::default();
    if let Some(problem) = hsts_problem(&ctx.card.reply) {
        findings.problem(format!("the card at {}: {problem}", ctx.card.url));
    }
    let (_, interfaces) = card::interfaces(&ctx.card.json);
    let mut seen = BTreeSet::new();
    for interface in interfaces {
        let http = matches!(interface.binding, Binding::Jsonrpc | Binding::Rest);
        if !http || endpoint(&interface.url).is_none() || !seen.insert(interface.url.clone()) {
            continue;
        }
        let reply = touch(&ctx, &interface).await?;
        if let Some(problem) = hsts_problem(&reply) {
            findings.problem(format!(
                "{} {}: {problem}",
                interface.binding, interface.url
            ));
        }
    }
    Ok(findings.verdict(
        "Strict-Transport-Security with max-age > 0 on the card and every HTTP interface",
        Verdict::pass(),
    ))
}

async fn interfaces_https(ctx: Ctx) -> Result<Verdict, HarnessError> {
    if !card_is_https(&ctx) {
        return Ok(Verdict::NotApplicable {
            reason: NOT_HTTPS.into(),
        });
    }
    let (declared, _) = card::interfaces(&ctx.card.json);
    if declared.is_empty() {
        return Ok(Verdict::NotApplicable {
            reason: "the card declares no interface URL to judge".into(),
        });
    }
    let mut findings = Findings::default();
    for interface in declared {
        let url = interface.url.trim();
        let lower = url.to_ascii_lowercase();
        // Only a scheme that is plaintext by definition is judged: a `host:port` (gRPC) is
        // reached with the card's scheme, and a custom binding may use its own secure scheme
        // (e.g. wss://).
        let http_binding = matches!(interface.binding, Some(Binding::Jsonrpc | Binding::Rest));
        let plaintext = lower.starts_with("http://") || lower.starts_with("ws://");
        if plaintext || (http_binding && !lower.starts_with("https://")) {
            findings.problem(format!(
                "{} {} at {url}",
                interface.protocol_binding, interface.protocol_version
            ));
        }
    }
    Ok(findings.verdict("every interface over https", Verdict::pass()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn endpoints_of_urls() {
        assert_eq!(
            endpoint("https://127.0.0.1:8443/a2a"),
            Some(("127.0.0.1:8443".into(), "127.0.0.1".into()))
        );
        assert_eq!(
            endpoint("agent.example:50051").map(|e| e.0).as_deref(),
            Some("agent.example:50051")
        );
        assert_eq!(
            endpoint("https://agent.example/x").map(|e| e.0).as_deref(),
            Some("agent.example:443")
        );
        assert_eq!(endpoint("http://agent.example/x"), None);
    }

    #[test]
    fn hsts_values() {
        let reply = |value: &str| HttpReply {
            status: 200,
            headers: vec![("Strict-Transport-Security".into(), value.into())],
            body: Vec::new(),
        };
        assert_eq!(
            hsts_problem(&reply("max-age=31536000; includeSubDomains")),
            None
        );
        assert!(hsts_problem(&reply("max-age=0")).is_some());
        assert!(hsts_problem(&reply("includeSubDomains")).is_some());
    }
}

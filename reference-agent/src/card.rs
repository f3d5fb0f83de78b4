//! The public Agent Card (`GET /.well-known/agent-card.json`): the conformant card, sent
//! through the card pass of [`crate::shape`] once at startup.

use std::fmt::Write as _;

use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::config::{JSONRPC_PATH, REST_PATH};
use crate::policy::INPUT_MODES;
use crate::policy::{CardPolicy, Policy};
use crate::shape::Shaper;
use crate::signing::{CardSigner, JWKS_PATH};

/// Where the card lives, and the 0.2-era path the `card-only-at-legacy-path` fault uses.
pub const CARD_PATH: &str = "/.well-known/agent-card.json";
pub const LEGACY_CARD_PATH: &str = "/.well-known/agent.json";

const CACHE_CONTROL: &str = "public, max-age=300";

/// The serialized card (signed) and its entity tag, and the JWK Set of the signing key,
/// computed once at startup.
#[derive(Debug, Clone)]
pub struct CardDocument {
    body: String,
    etag: String,
    /// The Last-Modified value: when the card was made (an HTTP-date).
    last_modified: String,
    jwks: String,
}

impl CardDocument {
    pub fn new(base_url: &str, policy: &Policy, shape: &Shaper) -> Result<Self, String> {
        let signer = CardSigner::new(policy.card.signing)?;
        let mut jku = format!("{base_url}{JWKS_PATH}");
        if policy.card.jku_plain_http {
            jku = jku.replacen("https://", "http://", 1);
        }
        let mut card = card_json(base_url, policy);
        extras(&mut card, base_url, policy);
        let body = signer.sign(shape.card(card), &jku).to_string();
        let digest = Sha256::digest(body.as_bytes());
        let hex = digest.iter().take(8).fold(String::new(), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        });
        let made = std::time::SystemTime::now();
        let last_modified = if policy.wire_rules.card_last_modified_malformed {
            humantime::format_rfc3339_seconds(made).to_string()
        } else {
            httpdate::fmt_http_date(made)
        };
        Ok(CardDocument {
            body,
            etag: format!("\"{hex}\""),
            last_modified,
            jwks: signer.jwks().to_owned(),
        })
    }

    fn matches(&self, if_none_match: &str) -> bool {
        if_none_match
            .split(',')
            .map(|tag| tag.trim().trim_start_matches("W/"))
            .any(|tag| tag == "*" || tag == self.etag)
    }
}

pub(crate) fn card_json(base_url: &str, policy: &Policy) -> Value {
    let jsonrpc_url = format!("{base_url}{JSONRPC_PATH}");
    // 0.3 REST clients add `/v1` to this url themselves.
    let rest_url = format!("{base_url}{REST_PATH}");
    // gRPC urls are `host:port` (proto AgentInterface.url); the agent speaks h2c.
    let grpc_url = base_url.split("://").nth(1).unwrap_or(base_url);
    let bindings = [
        ("JSONRPC", jsonrpc_url.as_str()),
        ("HTTP+JSON", rest_url.as_str()),
        ("GRPC", grpc_url),
    ];
    // Each binding serves 1.0 and 0.3 at the same url, picked by A2A-Version.
    let interfaces: Vec<Value> = ["1.0", "0.3"]
        .iter()
        .flat_map(|version| {
            bindings.iter().map(move |(binding, url)| {
                json!({"url": url, "protocolBinding": binding, "protocolVersion": version})
            })
        })
        .collect();
    let mut card = json!({
        "name": "A2A TCK Reference Agent",
        "description": "A deterministic, scripted A2A 1.0 and 0.3 agent used to validate the a2a-tck \
                        conformance kit. The prefix of message.messageId selects the scenario.",
        "supportedInterfaces": interfaces,
        "provider": {
            "organization": "A2A TCK",
            "url": "https://github.com/a2a-tck/a2a-tck",
        },
        "version": env!("CARGO_PKG_VERSION"),
        "capabilities": {
            "streaming": policy.streams(),
            "pushNotifications": policy.service.push,
            "extendedAgentCard": false,
        },
        "defaultInputModes": policy.requests.input_modes,
        "defaultOutputModes": INPUT_MODES,
        "skills": [{
            "id": "tck",
            "name": "TCK scenarios",
            "description": "Runs the scripted scenario named by the messageId prefix \
                            (tck-complete-task, tck-input-required, tck-artifact-text, ...).",
            "tags": ["tck"],
            "examples": [
                "messageId tck-complete-task-1: completes the task",
                "messageId tck-input-required-1: asks for more input",
                "messageId tck-message-response-1: answers with a direct message",
            ],
        }],
    });
    if let Some(card) = card.as_object_mut() {
        // The 0.3 card fields, so that 0.3 clients can read the same card.
        let additional: Vec<Value> = bindings
            .iter()
            .map(|(binding, url)| json!({"url": url, "transport": binding}))
            .collect();
        card.insert("protocolVersion".to_owned(), json!("0.3.0"));
        let main_url = if policy.wire_rules.v03_url_is_rest {
            &rest_url
        } else {
            &jsonrpc_url
        };
        card.insert("url".to_owned(), json!(main_url));
        card.insert("preferredTransport".to_owned(), json!("JSONRPC"));
        card.insert("additionalInterfaces".to_owned(), json!(additional));
        card.insert("supportsAuthenticatedExtendedCard".to_owned(), json!(false));
    }
    crate::auth::declare(&mut card, &policy.auth);
    card
}

/// What the card says of the agent's configuration: its extensions (`--required-extension`),
/// and under `--tls` with the `tls-http-interface` fault, plain-http JSON-RPC urls.
pub(crate) fn extras(card: &mut Value, base_url: &str, policy: &Policy) {
    if let Some(extensions) = crate::extensions::declared(&policy.extensions) {
        card["capabilities"]["extensions"] = extensions;
    }
    if policy.tls.http_interface {
        let plain = base_url.replacen("https://", "http://", 1);
        let jsonrpc = format!("{plain}{JSONRPC_PATH}");
        if let Some(interfaces) = card["supportedInterfaces"].as_array_mut() {
            for interface in interfaces {
                if interface["protocolBinding"] == "JSONRPC" {
                    interface["url"] = json!(jsonrpc);
                }
            }
        }
    }
}

/// Serves the card with caching headers (and answers matching `If-None-Match` with 304).
pub fn respond(card: &CardDocument, policy: &CardPolicy, headers: &HeaderMap) -> Response {
    let json = [(header::CONTENT_TYPE, policy.media_type)];
    if !policy.cache_headers {
        return (json, card.body.clone()).into_response();
    }
    let caching = [
        (header::CACHE_CONTROL, CACHE_CONTROL),
        (header::ETAG, card.etag.as_str()),
        (header::LAST_MODIFIED, card.last_modified.as_str()),
    ];
    let revalidated = headers
        .get(header::IF_NONE_MATCH)
        .and_then(|v| v.to_str().ok())
        .is_some_and(|tags| card.matches(tags));
    if revalidated {
        return (StatusCode::NOT_MODIFIED, caching).into_response();
    }
    (json, caching, card.body.clone()).into_response()
}

/// Serves the JWK Set of the card's signing key (the signature's `jku`).
pub fn jwks(card: &CardDocument) -> Response {
    let json = [(header::CONTENT_TYPE, "application/jwk-set+json")];
    (json, card.jwks.clone()).into_response()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn etag_is_quoted_sha256_prefix() {
        let config = crate::config::AgentConfig::default();
        let card = CardDocument::new(
            "http://127.0.0.1:1",
            &Policy::new(&config),
            &Shaper::new(&config),
        )
        .unwrap();
        assert_eq!(card.etag.len(), 18);
        assert!(card.matches(&card.etag));
        assert!(card.matches(&format!("\"x\", W/{}", card.etag)));
        assert!(!card.matches("\"x\""));
        let value: Value = serde_json::from_str(&card.body).unwrap();
        assert_eq!(
            value["supportedInterfaces"][0]["url"],
            "http://127.0.0.1:1/a2a/jsonrpc"
        );
    }

    #[test]
    fn card_lists_both_versions_on_every_binding() {
        let card = card_json(
            "http://h:1",
            &Policy::new(&crate::config::AgentConfig::default()),
        );
        let interfaces = card["supportedInterfaces"].as_array().unwrap();
        assert_eq!(interfaces.len(), 6);
        assert_eq!(interfaces[3]["url"], "http://h:1/a2a/jsonrpc");
        assert_eq!(interfaces[3]["protocolVersion"], "0.3");
        assert_eq!(interfaces[5]["url"], "h:1");
        assert_eq!(card["protocolVersion"], "0.3.0");
        assert_eq!(card["url"], "http://h:1/a2a/jsonrpc");
        assert_eq!(card["additionalInterfaces"][1]["transport"], "HTTP+JSON");
    }
}

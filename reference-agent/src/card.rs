//! The public Agent Card (`GET /.well-known/agent-card.json`).

use std::fmt::Write as _;
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{json, Value};
use sha2::{Digest, Sha256};

use crate::fault::Fault;
use crate::params::INPUT_MODES;
use crate::{AgentConfig, App, JSONRPC_PATH, REST_PATH};

/// Where the card lives, and the 0.2-era path the `card-only-at-legacy-path` fault uses.
pub const CARD_PATH: &str = "/.well-known/agent-card.json";
pub const LEGACY_CARD_PATH: &str = "/.well-known/agent.json";

const CACHE_CONTROL: &str = "public, max-age=300";

/// The serialized card and its entity tag, computed once at startup.
#[derive(Debug, Clone)]
pub struct CardDocument {
    body: String,
    etag: String,
}

impl CardDocument {
    pub fn new(base_url: &str, config: &AgentConfig) -> Self {
        let body = card_json(base_url, config).to_string();
        let digest = Sha256::digest(body.as_bytes());
        let hex = digest.iter().take(8).fold(String::new(), |mut hex, byte| {
            let _ = write!(hex, "{byte:02x}");
            hex
        });
        CardDocument {
            body,
            etag: format!("\"{hex}\""),
        }
    }

    fn matches(&self, if_none_match: &str) -> bool {
        if_none_match
            .split(',')
            .map(|tag| tag.trim().trim_start_matches("W/"))
            .any(|tag| tag == "*" || tag == self.etag)
    }
}

fn card_json(base_url: &str, config: &AgentConfig) -> Value {
    let protocol_version = if config.has(Fault::CardPatchVersion) {
        "1.0.0"
    } else {
        "1.0"
    };
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
    let declares_0_3 = !config.has(Fault::CardOmits03);
    // Each binding serves 1.0 and 0.3 at the same url, picked by A2A-Version.
    let mut versions = vec!["1.0"];
    if declares_0_3 {
        versions.push("0.3");
    }
    let mut interfaces: Vec<Value> = versions
        .iter()
        .flat_map(|version| {
            bindings.iter().map(move |(binding, url)| {
                let version = match (*version, *binding) {
                    ("1.0", "JSONRPC") => protocol_version,
                    (version, _) => version,
                };
                json!({"url": url, "protocolBinding": binding, "protocolVersion": version})
            })
        })
        .collect();
    if config.has(Fault::CardBadInterface) {
        interfaces.push(json!({"url": "rest", "protocolBinding": "HTTP+JSON"}));
    }
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
            "streaming": config.streams() && !config.has(Fault::StreamingUndeclared),
            "pushNotifications": false,
            "extendedAgentCard": false,
        },
        "defaultInputModes": INPUT_MODES,
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
    if let (true, Some(card)) = (declares_0_3, card.as_object_mut()) {
        // The 0.3 card fields, so that 0.3 clients can read the same card.
        let additional: Vec<Value> = bindings
            .iter()
            .map(|(binding, url)| json!({"url": url, "transport": binding}))
            .collect();
        card.insert("protocolVersion".to_owned(), json!("0.3.0"));
        card.insert("url".to_owned(), json!(jsonrpc_url));
        card.insert("preferredTransport".to_owned(), json!("JSONRPC"));
        card.insert("additionalInterfaces".to_owned(), json!(additional));
        card.insert("supportsAuthenticatedExtendedCard".to_owned(), json!(false));
    }
    if let (true, Some(card)) = (
        config.has(Fault::CardMissingRequiredField),
        card.as_object_mut(),
    ) {
        card.remove("description");
    }
    card
}

/// Serves the card with caching headers (and answers matching `If-None-Match` with 304).
pub async fn handle(State(app): State<Arc<App>>, headers: HeaderMap) -> Response {
    let card = &app.card;
    let json = [(header::CONTENT_TYPE, "application/json")];
    if app.config.has(Fault::CardNoCacheHeaders) {
        return (json, card.body.clone()).into_response();
    }
    let caching = [
        (header::CACHE_CONTROL, CACHE_CONTROL),
        (header::ETAG, card.etag.as_str()),
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

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn etag_is_quoted_sha256_prefix() {
        let card = CardDocument::new("http://127.0.0.1:1", &AgentConfig::default());
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
    fn card_faults_change_the_card() {
        let with = |fault| {
            let config = AgentConfig::default().with_fault(fault);
            card_json("http://h", &config)
        };
        assert!(with(Fault::CardMissingRequiredField)
            .get("description")
            .is_none());
        assert_eq!(
            with(Fault::CardPatchVersion)["supportedInterfaces"][0]["protocolVersion"],
            "1.0.0"
        );
        assert_eq!(
            with(Fault::CardBadInterface)["supportedInterfaces"][6]["url"],
            "rest"
        );
        let card = card_json("http://h:1", &AgentConfig::default());
        let interfaces = card["supportedInterfaces"].as_array().unwrap();
        assert_eq!(interfaces.len(), 6);
        assert_eq!(interfaces[3]["url"], "http://h:1/a2a/jsonrpc");
        assert_eq!(interfaces[3]["protocolVersion"], "0.3");
        assert_eq!(interfaces[5]["url"], "h:1");
        assert_eq!(card["protocolVersion"], "0.3.0");
        assert_eq!(card["url"], "http://h:1/a2a/jsonrpc");
        assert_eq!(card["additionalInterfaces"][1]["transport"], "HTTP+JSON");
        let omits = with(Fault::CardOmits03);
        assert_eq!(omits["supportedInterfaces"].as_array().unwrap().len(), 3);
        assert!(omits.get("protocolVersion").is_none());
        assert!(omits.get("additionalInterfaces").is_none());
    }
}

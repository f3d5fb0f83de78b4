//! Fetching the agent card and resolving the interfaces it declares.

use std::sync::Arc;

use serde_json::Value;
use sha2::{Digest, Sha256};

use crate::exchange::evidence::{Exchange, Recorder};
use crate::exchange::wire::{HttpReply, Request, Wire};
use crate::facts::model::{HarnessError, ProtocolVersion};

mod declared;
pub use declared::{
    interfaces, interfaces_assuming, usable_url, DeclaredInterface, Interface, NO_PROTOCOL_VERSION,
    SUPPORTED_BINDINGS,
};

/// The well-known path of the public agent card (spec 1.0 §8.2).
pub const WELL_KNOWN_PATH: &str = "/.well-known/agent-card.json";

/// The card as fetched.
#[derive(Debug, Clone)]
pub struct FetchedCard {
    pub url: String,
    pub reply: HttpReply,
    pub json: Value,
    pub sha256: String,
    pub exchange: Exchange,
    /// The `A2A-Version` the card was asked for with; `None`: without the header, as a 0.3
    /// client asks (an absent header means 0.3, spec 1.0 §3.6.2).
    pub a2a_version: Option<ProtocolVersion>,
    /// The version the user said to read this card as, when it names none
    /// (`--assume-version`); the card checks then judge it by that version's card rules.
    pub assumed_version: Option<ProtocolVersion>,
}

impl FetchedCard {
    /// The version the card's top level is in (see [`top_level_version`]).
    pub fn top_level_version(&self) -> Option<ProtocolVersion> {
        top_level_version(&self.json, self.assumed_version)
    }
}

/// The version a card's top level is in: its `protocolVersion` (0.3 cards), or, when it names
/// none and has no `supportedInterfaces`, the version `assumed` for it (`--assume-version`).
pub fn top_level_version(
    card: &Value,
    assumed: Option<ProtocolVersion>,
) -> Option<ProtocolVersion> {
    let named = card.get("protocolVersion").and_then(Value::as_str);
    match named.filter(|v| !v.trim().is_empty()) {
        Some(version) => ProtocolVersion::from_declared(version),
        None if card.get("supportedInterfaces").is_none() => assumed,
        None => None,
    }
}

/// Why the card is unusable: the run cannot start.
#[derive(Debug, thiserror::Error)]
pub enum CardError {
    #[error("could not fetch the agent card from {url}: {reason}")]
    Fetch { url: String, reason: String },
    #[error("the agent card at {url} answered HTTP {status} (expected 200); body starts: {body}")]
    Status {
        url: String,
        status: u16,
        body: String,
    },
    #[error("the agent card at {url} is not JSON ({reason}); Content-Type {}; body starts: {body}", content_type.as_deref().unwrap_or("none"))]
    NotJson {
        url: String,
        reason: String,
        content_type: Option<String>,
        body: String,
    },
    #[error("the agent card at {url} is JSON but not an object")]
    NotObject { url: String },
    #[error("invalid target URL {url:?}: {reason}")]
    BadUrl { url: String, reason: String },
}

/// The card URL for a target: the origin of the target plus the well-known path.
pub fn card_url_for(target: &str) -> Result<String, CardError> {
    let parsed = reqwest::Url::parse(target).map_err(|e| CardError::BadUrl {
        url: target.to_string(),
        reason: e.to_string(),
    })?;
    if !matches!(parsed.scheme(), "http" | "https") || parsed.host_str().is_none() {
        return Err(CardError::BadUrl {
            url: target.to_string(),
            reason: "expected an http:// or https:// URL with a host".into(),
        });
    }
    let mut origin = parsed.origin().ascii_serialization();
    origin.push_str(WELL_KNOWN_PATH);
    Ok(origin)
}

/// GETs the card without `A2A-Version` and checks it is a JSON object.
pub async fn fetch(wire: &Wire, url: &str) -> Result<FetchedCard, CardError> {
    fetch_as(wire, url, None).await
}

/// GETs the card as a client of `version` asks for it (`A2A-Version: 1.0`; `None`: no
/// header) and checks it is a JSON object.
pub async fn fetch_as(
    wire: &Wire,
    url: &str,
    version: Option<ProtocolVersion>,
) -> Result<FetchedCard, CardError> {
    let mut headers = vec![("accept", "application/json".to_string())];
    if let Some(version) = version {
        headers.push(("a2a-version", version.as_str().to_string()));
    }
    let reply = wire
        .send(Request {
            method: reqwest::Method::GET,
            url,
            headers,
            body: None,
        })
        .await
        .map_err(|e| CardError::Fetch {
            url: url.to_string(),
            reason: match e {
                HarnessError::Transport(m)
                | HarnessError::Deadline(m)
                | HarnessError::Malformed(m)
                | HarnessError::Prerequisite(m)
                | HarnessError::Internal(m) => m,
            },
        })?;
    let exchange = wire
        .recorder()
        .take()
        .pop()
        .ok_or_else(|| CardError::Fetch {
            url: url.to_string(),
            reason: "no exchange recorded".into(),
        })?;
    // Left on the recorder too: when the card is unusable, it is the run's evidence.
    wire.recorder().push(exchange.clone());
    if reply.status != 200 {
        let body = match reply.header("location") {
            Some(location) => format!(
                "(redirect to {location}, not followed) {}",
                reply.body_start(200)
            ),
            None => reply.body_start(200),
        };
        return Err(CardError::Status {
            url: url.to_string(),
            status: reply.status,
            body,
        });
    }
    let json: Value = serde_json::from_slice(&reply.body).map_err(|e| CardError::NotJson {
        url: url.to_string(),
        reason: e.to_string(),
        content_type: reply.header("content-type").map(str::to_string),
        body: reply.body_start(200),
    })?;
    if !json.is_object() {
        return Err(CardError::NotObject {
            url: url.to_string(),
        });
    }
    let sha256 = format!("sha256:{:x}", Sha256::digest(&reply.body));
    Ok(FetchedCard {
        url: url.to_string(),
        reply,
        json,
        sha256,
        exchange,
        a2a_version: version,
        assumed_version: None,
    })
}

/// The cards an agent serves at one URL: the one read without `A2A-Version` (what a 0.3
/// client reads), and, when it is another card, the one read with `A2A-Version: 1.0` (an
/// agent that varies its card by version, `Vary: A2A-Version`). The run tests the interfaces
/// of both, each with the card that declares it.
#[derive(Debug, Clone)]
pub struct Cards {
    /// Read without `A2A-Version`: the run's card.
    pub plain: Arc<FetchedCard>,
    /// Read with `A2A-Version: 1.0`, when it is not the same card (same JSON) as `plain`.
    pub v1_0: Option<Arc<FetchedCard>>,
    /// The union of both cards' interfaces (see [`Cards::interfaces`]).
    declared: Vec<DeclaredInterface>,
    /// Each tested interface with the card it is tested with.
    tested: Vec<(Interface, Arc<FetchedCard>)>,
}

impl Cards {
    /// `plain`, and `v1_0` when it is another card (same JSON: the agent serves one card, and
    /// the run is as if only `plain` had been read).
    pub fn new(plain: FetchedCard, v1_0: Option<FetchedCard>) -> Cards {
        Cards::assuming(plain, v1_0, None)
    }

    /// [`Cards::new`], reading a card that names no protocolVersion as one of `assume`
    /// (`--assume-version`, see [`interfaces_assuming`]).
    pub fn assuming(
        plain: FetchedCard,
        v1_0: Option<FetchedCard>,
        assume: Option<ProtocolVersion>,
    ) -> Cards {
        let assume = assume.filter(|v| *v == ProtocolVersion::V0_3);
        let plain = Arc::new(FetchedCard {
            assumed_version: assume,
            ..plain
        });
        let v1_0 = v1_0.filter(|card| card.json != plain.json).map(Arc::new);
        let (mut declared, tested) = interfaces_assuming(&plain.json, assume);
        let mut tested: Vec<(Interface, Arc<FetchedCard>)> =
            tested.into_iter().map(|i| (i, plain.clone())).collect();
        if let Some(v1_0) = &v1_0 {
            let (more, more_tested) = interfaces(&v1_0.json);
            let same = |a: &DeclaredInterface, b: &DeclaredInterface| {
                a.url == b.url
                    && match (a.binding, b.binding, a.version, b.version) {
                        (Some(ab), Some(bb), Some(av), Some(bv)) => ab == bb && av == bv,
                        _ => {
                            a.protocol_binding == b.protocol_binding
                                && a.protocol_version == b.protocol_version
                        }
                    }
            };
            for mut entry in more {
                // An interface both cards declare is tested once, with the card read without
                // the header (as before), unless it is a 1.0 interface: then with the card a
                // 1.0 client reads.
                if let Some(at) = declared.iter().position(|d| same(d, &entry)) {
                    if entry.tested && entry.version == Some(ProtocolVersion::V1_0) {
                        if let Some(t) = tested.iter_mut().find(|(i, _)| {
                            Some(i.binding) == entry.binding
                                && Some(i.version) == entry.version
                                && i.url == declared[at].url
                        }) {
                            t.1 = v1_0.clone();
                        }
                    }
                    continue;
                }
                entry.card_a2a_version = Some(ProtocolVersion::V1_0);
                if let (true, Some(b), Some(v)) = (entry.tested, entry.binding, entry.version) {
                    let taken = tested
                        .iter()
                        .position(|(i, _)| i.binding == b && i.version == v);
                    match taken {
                        // One interface per binding x version: for 1.0, the one a 1.0 client
                        // reads in its card; for 0.3, the one of the card read without it.
                        Some(at) if v == ProtocolVersion::V1_0 => {
                            let old = tested.remove(at).0;
                            if let Some(d) = declared.iter_mut().find(|d| {
                                d.tested
                                    && d.binding == Some(b)
                                    && d.version == Some(v)
                                    && d.url == old.url
                            }) {
                                d.tested = false;
                                d.reason = Some(format!(
                                    "the card served with A2A-Version: 1.0 declares this binding \
                                     and version at {}, which a 1.0 client uses",
                                    entry.url
                                ));
                            }
                        }
                        Some(_) => {
                            entry.tested = false;
                            entry.reason = Some(
                                "the card served without A2A-Version declares the same binding \
                                 and version"
                                    .into(),
                            );
                        }
                        None => {}
                    }
                    if entry.tested {
                        if let Some(interface) = more_tested
                            .iter()
                            .find(|i| i.binding == b && i.version == v && i.url == entry.url)
                        {
                            tested.push((interface.clone(), v1_0.clone()));
                        }
                    }
                }
                declared.push(entry);
            }
        }
        Cards {
            plain,
            v1_0,
            declared,
            tested,
        }
    }

    /// Every interface the cards declare (the plain card's first; an interface, url x binding
    /// x version, listed once), and the ones to test: one per binding x version.
    pub fn interfaces(&self) -> (Vec<DeclaredInterface>, Vec<Interface>) {
        (
            self.declared.clone(),
            self.tested.iter().map(|(i, _)| i.clone()).collect(),
        )
    }

    /// The card `interface` is tested with: the one that declares it (for an interface both
    /// declare, the 1.0 card for a 1.0 interface).
    pub fn card_of(&self, interface: &Interface) -> Arc<FetchedCard> {
        self.tested
            .iter()
            .find(|(i, _)| i == interface)
            .map_or_else(|| self.plain.clone(), |(_, card)| card.clone())
    }

    /// The distinct cards: the plain one, then the 1.0 one if any.
    pub fn all(&self) -> impl Iterator<Item = &Arc<FetchedCard>> {
        std::iter::once(&self.plain).chain(self.v1_0.as_ref())
    }
}

/// Records the card fetch as evidence of a check.
pub fn record(recorder: &Recorder, card: &FetchedCard) {
    recorder.push(card.exchange.clone());
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn card_url_is_origin_plus_well_known_path() {
        assert_eq!(
            card_url_for("http://127.0.0.1:8080/a2a/jsonrpc")
                .ok()
                .as_deref(),
            Some("http://127.0.0.1:8080/.well-known/agent-card.json")
        );
        assert!(card_url_for("ftp://x").is_err());
        assert!(card_url_for("not a url").is_err());
    }

    #[test]
    fn a_card_that_names_no_version_is_named_and_tested_only_as_assumed() {
        let old = json!({"url": "http://h/rpc", "additionalInterfaces": [
            {"url": "http://h/rest", "transport": "HTTP+JSON"}]});
        let (declared, tested) = interfaces(&old);
        assert!(tested.is_empty());
        assert_eq!(declared.len(), 2, "{declared:?}");
        for d in &declared {
            assert!(!d.tested);
            assert_eq!(d.reason.as_deref(), Some(NO_PROTOCOL_VERSION));
        }
        assert_eq!(declared[0].protocol_binding, "JSONRPC");
        let (declared, tested) = interfaces_assuming(&old, Some(ProtocolVersion::V0_3));
        assert_eq!(tested.len(), 2);
        assert!(tested.iter().all(|i| i.version == ProtocolVersion::V0_3));
        assert!(declared.iter().all(|d| d.tested));
        // A version the kit does not test is named with it, and no assumption overrides it.
        let named = json!({"url": "http://h/rpc", "protocolVersion": "0.2.5"});
        let (declared, tested) = interfaces_assuming(&named, Some(ProtocolVersion::V0_3));
        assert!(tested.is_empty());
        assert_eq!(
            declared[0].reason.as_deref(),
            Some("protocol version \"0.2.5\" is not one the kit tests")
        );
    }

    #[test]
    fn cards_of_0_3_and_mixed_cards_are_read() {
        let v03 = json!({
            "protocolVersion": "0.3.0", "url": "http://h/rpc", "preferredTransport": "JSONRPC",
            "additionalInterfaces": [
                {"url": "http://h/rpc", "transport": "JSONRPC"},
                {"url": "http://h/rest", "transport": "HTTP+JSON"},
                {"url": "h:50051", "transport": "GRPC"}
            ]
        });
        let (declared, tested) = interfaces(&v03);
        assert_eq!(declared.len(), 3, "{declared:?}");
        assert!(tested.iter().all(|i| i.version == ProtocolVersion::V0_3));
        assert_eq!(tested.len(), 3);
        // A mixed card lists 0.3 in supportedInterfaces and in the 0.3 fields: once each.
        let mut mixed = v03.clone();
        mixed["supportedInterfaces"] = json!([
            {"url": "http://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "http://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
        ]);
        let (declared, tested) = interfaces(&mixed);
        assert_eq!(tested.len(), 4, "{tested:?}");
        assert_eq!(declared.len(), 4, "{declared:?}");
        // Without the 0.3 fields, 1.0 alone.
        let (_, tested) = interfaces(&json!({"supportedInterfaces": mixed["supportedInterfaces"]}));
        assert_eq!(tested.len(), 2);
    }

    fn fetched(json: Value, a2a_version: Option<ProtocolVersion>) -> FetchedCard {
        FetchedCard {
            url: "http://h/.well-known/agent-card.json".into(),
            reply: HttpReply {
                status: 200,
                headers: Vec::new(),
                body: Vec::new(),
            },
            json,
            sha256: String::new(),
            exchange: serde_json::from_value(json!({
                "request": {"method": "GET", "url": "http://h/", "headers": []},
                "elapsed_ms": 0
            }))
            .expect("an exchange"),
            a2a_version,
            assumed_version: None,
        }
    }

    #[test]
    fn the_interfaces_of_both_cards_are_tested_once_each() {
        let v03 = json!({"protocolVersion": "0.3.0", "url": "http://h/rpc"});
        let v10 = json!({"supportedInterfaces": [
            {"url": "http://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "http://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"}
        ]});
        let cards = Cards::new(
            fetched(v03.clone(), None),
            Some(fetched(v10.clone(), Some(ProtocolVersion::V1_0))),
        );
        let (declared, tested) = cards.interfaces();
        // The 0.3 interface both declare is listed once; the 1.0 one comes from the 1.0 card.
        assert_eq!(declared.len(), 2, "{declared:?}");
        assert_eq!(tested.len(), 2, "{tested:?}");
        assert_eq!(declared[1].card_a2a_version, Some(ProtocolVersion::V1_0));
        assert_eq!(cards.card_of(&tested[0]).a2a_version, None);
        assert_eq!(
            cards.card_of(&tested[1]).a2a_version,
            Some(ProtocolVersion::V1_0)
        );
        assert_eq!(cards.all().count(), 2);
        // The same card either way: one card, as before.
        let same = Cards::new(fetched(v03.clone(), None), Some(fetched(v03, None)));
        assert!(same.v1_0.is_none());
        assert_eq!(same.interfaces().1.len(), 1);
        assert_eq!(same.all().count(), 1);
    }

    #[test]
    fn interfaces_are_resolved_and_explained() {
        let card = json!({"supportedInterfaces": [
            {"url": "http://h/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0.2"},
            {"url": "http://h/rest", "protocolBinding": "HTTP+JSON", "protocolVersion": "1.0"},
            {"url": "http://h/rpc2", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
            {"url": "http://h/x", "protocolBinding": "urn:custom", "protocolVersion": "1.0"}
        ]});
        let (declared, tested) = interfaces(&card);
        assert_eq!(declared.len(), 4);
        assert_eq!(tested.len(), 2);
        assert_eq!(tested[0].url, "http://h/rpc");
        assert_eq!(tested[1].url, "http://h/rest");
        assert!(declared[1].reason.is_none());
        assert!(declared[2].reason.is_some());
        assert!(declared[3].reason.is_some());
    }
}

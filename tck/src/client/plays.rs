//! The client mode's scenario table, kept as data in `fixtures/client-plays.json`: the plays
//! (what the scripted agent serves and what the client is asked to do) and the checks judged
//! over them, each with its registry sentences and the reference client's fault that breaks it;
//! and the card a play serves on one binding x version.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::check::Level;
use crate::model::{Binding, ProtocolVersion};

const FIXTURE: &str = include_str!("../../../fixtures/client-plays.json");

/// The whole table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    #[allow(dead_code)]
    about: String,
    pub plays: Vec<PlaySpec>,
    pub checks: Vec<ClientCheck>,
}

/// What the scripted agent plays, and the steps the client is asked to take.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PlaySpec {
    pub id: String,
    pub description: String,
    #[serde(default)]
    pub card: CardSpec,
    /// The steps, as the scenario file gives them to the adapter.
    pub steps: Vec<Value>,
    /// Features the adapter must declare for the play to run (else its checks are N/A).
    #[serde(default)]
    pub needs: Vec<String>,
    /// The versions it runs on (default: both).
    #[serde(default)]
    pub versions: Option<Vec<String>>,
    /// End the play's first stream after this many events.
    #[serde(default)]
    pub cut_after: Option<usize>,
}

/// How the play's card differs from a plain one.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct CardSpec {
    /// Add fields no version defines (top level, capabilities, skills).
    #[serde(default)]
    pub unknown_fields: bool,
    /// `capabilities.streaming` (default true).
    #[serde(default)]
    pub streaming: Option<bool>,
    /// `one` (default), `two` (two working interfaces), `dead-first` (a failing one first).
    #[serde(default)]
    pub interfaces: Option<String>,
    /// The interface's tenant (1.0).
    #[serde(default)]
    pub tenant: Option<String>,
    /// The agent needs a bearer token and offers an extended card.
    #[serde(default)]
    pub bearer: bool,
    /// The card declares an extension with `required: true`, which the agent enforces.
    #[serde(default)]
    pub required_extension: bool,
    /// The card is written in both versions' forms, with an interface of each version.
    #[serde(default)]
    pub mixed: bool,
    /// The card is signed: `valid`, `broken` (changed after signing) or `defaults` (a REQUIRED
    /// field at its default, one signature per reading of §8.4); see [`crate::card_signing`].
    #[serde(default)]
    pub signed: Option<String>,
}

/// One rule judged over a play.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct ClientCheck {
    pub id: String,
    pub level: String,
    pub play: String,
    pub statements: Vec<String>,
    pub requirement: String,
    #[serde(default)]
    pub reading: Option<String>,
    /// The reference client's fault that makes this check fail.
    pub fault: String,
    /// The versions it is judged on (default: those of its play).
    #[serde(default)]
    pub versions: Option<Vec<String>>,
}

impl ClientCheck {
    /// Its level.
    pub fn level(&self) -> Level {
        match self.level.as_str() {
            "MUST" => Level::Must,
            "SHOULD" => Level::Should,
            _ => Level::May,
        }
    }

    /// Whether it is judged on `version`.
    pub fn runs_on(&self, play: &PlaySpec, version: ProtocolVersion) -> bool {
        let listed = |versions: &Option<Vec<String>>| {
            versions
                .as_ref()
                .is_none_or(|v| v.iter().any(|v| v == version.as_str()))
        };
        listed(&self.versions) && listed(&play.versions)
    }
}

/// The table, parsed once.
pub fn table() -> &'static Table {
    static TABLE: OnceLock<Table> = OnceLock::new();
    TABLE.get_or_init(|| match serde_json::from_str(FIXTURE) {
        Ok(table) => table,
        // The fixture is built into the kit and checked by its tests.
        Err(e) => panic!("fixtures/client-plays.json does not parse: {e}"),
    })
}

/// A play by id.
pub fn play(id: &str) -> Option<&'static PlaySpec> {
    table().plays.iter().find(|p| p.id == id)
}

/// The card's spelling of a binding.
pub fn binding_name(binding: Binding) -> &'static str {
    match binding {
        Binding::Jsonrpc => "JSONRPC",
        Binding::Rest => "HTTP+JSON",
        Binding::Grpc => "GRPC",
    }
}

/// Where a play's interfaces are: the base URL (`http://127.0.0.1:PORT/p/TOKEN`) of each door.
#[derive(Debug, Clone)]
pub struct Bases {
    pub main: String,
    pub alt: String,
    pub dead: String,
}

/// The URL of an interface of `binding` under `base`.
pub fn interface_url(base: &str, binding: Binding) -> String {
    match binding {
        Binding::Jsonrpc => format!("{base}{}", a2a_reference_agent::JSONRPC_PATH),
        Binding::Rest => format!("{base}{}", a2a_reference_agent::REST_PATH),
        // gRPC urls are host:port; the path prefix cannot travel.
        Binding::Grpc => {
            let host = base.split("://").nth(1).unwrap_or(base);
            host.split('/').next().unwrap_or(host).to_owned()
        }
    }
}

/// The card a play serves on `binding` at `version`, made from the reference agent's own card
/// (`backend`): its interfaces replaced by the play's, written in that version's form only,
/// unsigned (the play changes what a signature covers).
pub fn card_for(
    spec: &PlaySpec,
    binding: Binding,
    version: ProtocolVersion,
    bases: &Bases,
    backend: &Value,
) -> Value {
    let mut card = backend.as_object().cloned().unwrap_or_default();
    for key in [
        "signatures",
        "supportedInterfaces",
        "protocolVersion",
        "url",
        "preferredTransport",
        "additionalInterfaces",
        "supportsAuthenticatedExtendedCard",
        "security",
        "securityRequirements",
        "securitySchemes",
    ] {
        card.remove(key);
    }
    let urls: Vec<String> = match spec.card.interfaces.as_deref() {
        Some("two") => vec![bases.main.clone(), bases.alt.clone()],
        Some("dead-first") => vec![bases.dead.clone(), bases.main.clone()],
        _ => vec![bases.main.clone()],
    }
    .iter()
    .map(|base| interface_url(base, binding))
    .collect();
    let name = binding_name(binding);
    let mut capabilities = card
        .get("capabilities")
        .and_then(Value::as_object)
        .cloned()
        .unwrap_or_default();
    capabilities.insert(
        "streaming".into(),
        json!(spec.card.streaming.unwrap_or(true)),
    );
    capabilities.remove("extendedAgentCard");
    if spec.card.unknown_fields {
        capabilities.insert("tckFutureCapability".into(), json!({"level": 3}));
    }
    match version {
        ProtocolVersion::V1_0 => {
            let interfaces: Vec<Value> = (urls.iter())
                .map(|url| {
                    let mut entry = json!({"url": url, "protocolBinding": name, "protocolVersion": "1.0"});
                    if let Some(tenant) = &spec.card.tenant {
                        entry["tenant"] = json!(tenant);
                    }
                    entry
                })
                .collect();
            card.insert("supportedInterfaces".into(), json!(interfaces));
            capabilities.insert("extendedAgentCard".into(), json!(spec.card.bearer));
            if spec.card.bearer {
                card.insert(
                    "securitySchemes".into(),
                    json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}}),
                );
                card.insert(
                    "securityRequirements".into(),
                    json!([{"schemes": {"bearer": {"list": []}}}]),
                );
            }
        }
        ProtocolVersion::V0_3 => {
            card.insert("protocolVersion".into(), json!("0.3.0"));
            card.insert("url".into(), json!(urls[0]));
            card.insert("preferredTransport".into(), json!(name));
            let additional: Vec<Value> = (urls.iter())
                .map(|url| json!({"url": url, "transport": name}))
                .collect();
            card.insert("additionalInterfaces".into(), json!(additional));
            card.insert(
                "supportsAuthenticatedExtendedCard".into(),
                json!(spec.card.bearer),
            );
            if spec.card.bearer {
                card.insert(
                    "securitySchemes".into(),
                    json!({"bearer": {"type": "http", "scheme": "bearer"}}),
                );
                card.insert("security".into(), json!([{"bearer": []}]));
            }
        }
    }
    card.insert("capabilities".into(), Value::Object(capabilities));
    if spec.card.mixed {
        mix(&mut card, binding, version, bases);
    }
    if spec.card.unknown_fields {
        card.insert(
            "tckFutureField".into(),
            json!({"note": "a field no version of A2A defines", "n": 1}),
        );
        if let Some(skills) = card.get_mut("skills").and_then(Value::as_array_mut) {
            for skill in skills {
                if let Some(skill) = skill.as_object_mut() {
                    skill.insert("tckFutureSkillField".into(), json!(["x"]));
                }
            }
        }
    }
    Value::Object(card)
}

/// The other version.
pub fn other(version: ProtocolVersion) -> ProtocolVersion {
    match version {
        ProtocolVersion::V1_0 => ProtocolVersion::V0_3,
        ProtocolVersion::V0_3 => ProtocolVersion::V1_0,
    }
}

/// Writes a card in both forms: `supportedInterfaces` with an interface of `version` at the
/// main door and one of the other version at the second door, and the 0.3 fields naming the
/// 0.3 one.
fn mix(card: &mut Map<String, Value>, binding: Binding, version: ProtocolVersion, bases: &Bases) {
    let name = binding_name(binding);
    let main = interface_url(&bases.main, binding);
    let alt = interface_url(&bases.alt, binding);
    card.insert(
        "supportedInterfaces".into(),
        json!([
            {"url": main, "protocolBinding": name, "protocolVersion": version.as_str()},
            {"url": alt, "protocolBinding": name, "protocolVersion": other(version).as_str()},
        ]),
    );
    let v03 = if version == ProtocolVersion::V0_3 { &main } else { &alt };
    card.insert("protocolVersion".into(), json!("0.3.0"));
    card.insert("url".into(), json!(v03));
    card.insert("preferredTransport".into(), json!(name));
    card.insert("additionalInterfaces".into(), json!([{"url": v03, "transport": name}]));
    if let Some(capabilities) = card.get_mut("capabilities").and_then(Value::as_object_mut) {
        capabilities.insert("extendedAgentCard".into(), json!(false));
    }
    card.insert("supportsAuthenticatedExtendedCard".into(), json!(false));
}

/// The skill ids of a card.
pub fn skill_ids(card: &Value) -> Vec<String> {
    (card.get("skills").and_then(Value::as_array))
        .map(|skills| {
            skills
                .iter()
                .filter_map(|s| s.get("id").and_then(Value::as_str).map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

/// The scenario file of one play on one interface, as the adapter reads it.
pub fn scenario_file(
    spec: &PlaySpec,
    card_url: &str,
    binding: Binding,
    version: ProtocolVersion,
    bearer: Option<&str>,
    trusted_keys: Option<Value>,
) -> Value {
    let extensions: Vec<&str> = if spec.card.required_extension {
        vec![a2a_reference_agent::extensions::REQUIRED_EXTENSION]
    } else {
        Vec::new()
    };
    let mut file = Map::new();
    file.insert("protocol".into(), json!(1));
    file.insert("play".into(), json!(spec.id));
    file.insert("card_url".into(), json!(card_url));
    file.insert("binding".into(), json!(binding_name(binding)));
    file.insert("version".into(), json!(version.as_str()));
    file.insert("bearer".into(), json!(bearer));
    file.insert("extensions".into(), json!(extensions));
    file.insert("trusted_keys".into(), trusted_keys.unwrap_or(Value::Null));
    file.insert("steps".into(), json!(spec.steps));
    Value::Object(file)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn the_table_is_consistent() {
        let table = table();
        let mut ids = std::collections::BTreeSet::new();
        for check in &table.checks {
            assert!(ids.insert(check.id.as_str()), "{} twice", check.id);
            assert!(check.id.starts_with("client."), "{}", check.id);
            assert!(play(&check.play).is_some(), "{}: no play {}", check.id, check.play);
            assert!(["MUST", "SHOULD", "MAY"].contains(&check.level.as_str()));
            assert!(!check.statements.is_empty(), "{} cites nothing", check.id);
        }
        for play in &table.plays {
            assert!(
                table.checks.iter().any(|c| c.play == play.id),
                "play {} is judged by no check",
                play.id
            );
            for step in &play.steps {
                let op = step["op"].as_str().unwrap();
                assert!(
                    ["card", "send", "get", "cancel", "subscribe", "extended_card", "push"]
                        .contains(&op),
                    "{}: op {op}",
                    play.id
                );
            }
        }
    }

    #[test]
    fn a_0_3_card_has_only_0_3_fields() {
        let spec = play("fallback").unwrap();
        let bases = Bases {
            main: "http://127.0.0.1:1/p/t".into(),
            alt: "http://127.0.0.1:2/p/t".into(),
            dead: "http://127.0.0.1:3/p/t".into(),
        };
        let backend = json!({"name": "n", "supportedInterfaces": [], "skills": [{"id": "s"}], "capabilities": {"extendedAgentCard": false}});
        let card = card_for(spec, Binding::Jsonrpc, ProtocolVersion::V0_3, &bases, &backend);
        assert_eq!(card["url"], "http://127.0.0.1:3/p/t/a2a/jsonrpc");
        assert_eq!(card["additionalInterfaces"][1]["url"], "http://127.0.0.1:1/p/t/a2a/jsonrpc");
        assert!(card.get("supportedInterfaces").is_none());
        assert!(card["capabilities"].get("extendedAgentCard").is_none());
        let card = card_for(spec, Binding::Grpc, ProtocolVersion::V1_0, &bases, &backend);
        assert_eq!(card["supportedInterfaces"][0]["url"], "127.0.0.1:3");
        assert!(card.get("url").is_none());
    }
}

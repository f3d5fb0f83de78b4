//! The client mode's plays, kept as data in `fixtures/client-plays.json`: what the scripted
//! agent serves and what the client is asked to do (the checks judged over them are in
//! [`super::client_checks`]); and the card a play serves on one binding x version.

use std::sync::OnceLock;

use serde::Deserialize;
use serde_json::{json, Map, Value};

use crate::facts::model::{Binding, ProtocolVersion};

use super::stage::{Door, PlayOptions, Stage};

const FIXTURE: &str = include_str!("../../../fixtures/client-plays.json");

/// The whole table.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Table {
    #[allow(dead_code)]
    about: String,
    pub plays: Vec<PlaySpec>,
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
    /// What the stage breaks on the wire: the first request carrying each marker.
    #[serde(default)]
    pub mishaps: Vec<MishapSpec>,
}

/// One mishap of a play: the first request whose body holds `marker` (a text of its steps)
/// is answered 503 (`unavailable`), dropped (`drop`) or held `ms` milliseconds (`hold`).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct MishapSpec {
    pub marker: String,
    pub does: String,
    #[serde(default)]
    pub ms: Option<u64>,
}

impl PlaySpec {
    /// The stage's mishaps of the play.
    pub fn mishaps(&self) -> Vec<(String, super::stage::Mishap)> {
        use super::stage::Mishap;
        (self.mishaps.iter())
            .filter_map(|m| {
                let mishap = match m.does.as_str() {
                    "unavailable" => Mishap::Unavailable,
                    "drop" => Mishap::Drop,
                    "hold" => Mishap::Hold(std::time::Duration::from_millis(m.ms?)),
                    _ => return None,
                };
                Some((m.marker.clone(), mishap))
            })
            .collect()
    }
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
    /// `one` (default), `two` (two working interfaces), `dead-first` (a failing one first),
    /// `unspoken-first` (first an interface of a binding the client does not declare, at the
    /// failing door, then the play's).
    #[serde(default)]
    pub interfaces: Option<String>,
    /// A REQUIRED field of the card left out (`name`).
    #[serde(default)]
    pub without: Option<String>,
    /// Where the client's bearer token belongs: `unasked` (the card declares no security; the
    /// client is given a token anyway) or `other-origin` (the card declares a bearer scheme and
    /// its interfaces are on another origin than the card; the agent asks for the token).
    #[serde(default)]
    pub credentials: Option<String>,
    /// The card is served with `Cache-Control: no-cache` and an `ETag`, and changes after its
    /// first fetch (see [`crate::client::stage::PlayOptions`]).
    #[serde(default)]
    pub caching: bool,
    /// The card's first interface (the main door) answers every request VersionNotSupportedError;
    /// a second interface, of the other version, works.
    #[serde(default)]
    pub refuse_version: bool,
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
    /// field at its default, one signature per reading of §8.4); see [`crate::client::card_signing`].
    #[serde(default)]
    pub signed: Option<String>,
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
    /// The card's spelling of a binding the client does not declare (for `unspoken-first`).
    pub unspoken: String,
    /// The binding of the failing interface `dead-first` lists first: another binding the
    /// client declares (the sentences on fallback speak of alternative protocols), or the
    /// play's own when the client declares one binding only.
    pub fallback_from: Binding,
}

/// The binding of `unspoken-first` when the client declares all three: an open-form binding
/// name (§5.8: a URI) that no client speaks.
pub const CUSTOM_BINDING: &str = "https://a2a-tck.invalid/bindings/unspoken";

impl CardSpec {
    /// Whether the card declares a bearer scheme.
    pub fn declares_bearer(&self) -> bool {
        self.bearer || self.credentials.as_deref() == Some("other-origin")
    }

    /// Whether the client is given a bearer token.
    pub fn gives_bearer(&self) -> bool {
        self.bearer || self.credentials.is_some()
    }

    /// Whether the interfaces are on another origin than the card.
    pub fn other_origin(&self) -> bool {
        self.credentials.as_deref() == Some("other-origin")
    }
}

/// The card's revision a `caching` play serves from the card's second fetch on: another name.
pub fn revised(card: &Value) -> Value {
    let mut revised = card.clone();
    let name = card["name"].as_str().unwrap_or("");
    revised["name"] = json!(format!("{name} (revised)"));
    revised
}

/// Where a play's doors are. HTTP interfaces share the card's origin (the second and failing
/// doors are paths of the main listener), unless the play puts them on another origin; gRPC
/// interfaces are `host:port`, so each gRPC door is its own listener, as is the failing door of
/// `unspoken-first` when the binding it lists there is gRPC. `declared` are the bindings the
/// client declares.
pub fn bases(
    stage: &Stage,
    spec: &PlaySpec,
    binding: Binding,
    token: &str,
    declared: &[Binding],
) -> Bases {
    let own_listener = |door: Door| format!("http://{}/p/{token}", stage.addr(door));
    let on_main = |door: Door| {
        format!(
            "http://{}/p/{token}{}",
            stage.addr(Door::Main),
            Stage::segment(door)
        )
    };
    let apart = binding == Binding::Grpc || spec.card.other_origin();
    let base = |door: Door| {
        if apart {
            own_listener(door)
        } else {
            on_main(door)
        }
    };
    let unspoken = [Binding::Jsonrpc, Binding::Rest, Binding::Grpc]
        .into_iter()
        .find(|b| !declared.contains(b))
        .map_or(CUSTOM_BINDING, binding_name);
    let fallback_from = [Binding::Jsonrpc, Binding::Rest, Binding::Grpc]
        .into_iter()
        .find(|b| *b != binding && declared.contains(b))
        .unwrap_or(binding);
    let dead_first = spec.card.interfaces.as_deref() == Some("dead-first");
    Bases {
        // With its interfaces on another origin, the card stays on the main listener: the
        // interfaces are the second door's.
        main: if spec.card.other_origin() {
            own_listener(Door::Alt)
        } else {
            base(Door::Main)
        },
        alt: base(Door::Alt),
        // A gRPC address is host:port: a failing gRPC interface is a listener of its own.
        dead: if (spec.card.interfaces.as_deref() == Some("unspoken-first") && unspoken == "GRPC")
            || (dead_first && fallback_from == Binding::Grpc)
        {
            own_listener(Door::Dead)
        } else {
            base(Door::Dead)
        },
        unspoken: unspoken.to_owned(),
        fallback_from,
    }
}

/// Where the play's card is.
pub fn card_url(stage: &Stage, token: &str) -> String {
    format!(
        "http://{}/p/{token}/.well-known/agent-card.json",
        stage.addr(Door::Main)
    )
}

/// What the play asks of the stage besides its card.
pub fn stage_options(spec: &PlaySpec, card: &Value) -> PlayOptions {
    PlayOptions {
        refuse_version: spec.card.refuse_version,
        cache_headers: spec.card.caching,
        revised_card: spec.card.caching.then(|| revised(card)),
    }
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
    let listed: Vec<(String, &str)> = match spec.card.interfaces.as_deref() {
        Some("two") => vec![(bases.main.clone(), binding), (bases.alt.clone(), binding)],
        Some("dead-first") => vec![
            (bases.dead.clone(), bases.fallback_from),
            (bases.main.clone(), binding),
        ],
        _ => vec![(bases.main.clone(), binding)],
    }
    .iter()
    .map(|(base, binding)| (interface_url(base, *binding), binding_name(*binding)))
    .collect();
    let listed = if spec.card.interfaces.as_deref() == Some("unspoken-first") {
        let unspoken = bases.unspoken.as_str();
        let url = match Binding::from_card(unspoken) {
            Some(core) => interface_url(&bases.dead, core),
            None => format!("{}/a2a/custom", bases.dead),
        };
        std::iter::once((url, unspoken)).chain(listed).collect()
    } else {
        listed
    };
    let urls: Vec<String> = listed.iter().map(|(url, _)| url.clone()).collect();
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
            let interfaces: Vec<Value> = (listed.iter())
                .map(|(url, name)| {
                    let mut entry =
                        json!({"url": url, "protocolBinding": name, "protocolVersion": "1.0"});
                    if let Some(tenant) = &spec.card.tenant {
                        entry["tenant"] = json!(tenant);
                    }
                    entry
                })
                .collect();
            card.insert("supportedInterfaces".into(), json!(interfaces));
            capabilities.insert("extendedAgentCard".into(), json!(spec.card.bearer));
            if spec.card.declares_bearer() {
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
            card.insert("preferredTransport".into(), json!(listed[0].1));
            let additional: Vec<Value> = (listed.iter())
                .map(|(url, name)| json!({"url": url, "transport": name}))
                .collect();
            card.insert("additionalInterfaces".into(), json!(additional));
            card.insert(
                "supportsAuthenticatedExtendedCard".into(),
                json!(spec.card.bearer),
            );
            if spec.card.declares_bearer() {
                card.insert(
                    "securitySchemes".into(),
                    json!({"bearer": {"type": "http", "scheme": "bearer"}}),
                );
                card.insert("security".into(), json!([{"bearer": []}]));
            }
        }
    }
    card.insert("capabilities".into(), Value::Object(capabilities));
    if spec.card.mixed || spec.card.refuse_version {
        mix(&mut card, binding, version, bases);
    }
    if let Some(field) = &spec.card.without {
        card.remove(field);
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
    let v03 = if version == ProtocolVersion::V0_3 {
        &main
    } else {
        &alt
    };
    card.insert("protocolVersion".into(), json!("0.3.0"));
    card.insert("url".into(), json!(v03));
    card.insert("preferredTransport".into(), json!(name));
    card.insert(
        "additionalInterfaces".into(),
        json!([{"url": v03, "transport": name}]),
    );
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

/// The calls a describe line's `operations` may name (`adapters/PROTOCOL.md`).
pub const OPERATIONS: &[&str] = &[
    "send",
    "stream",
    "get",
    "cancel",
    "subscribe",
    "push",
    "extended_card",
    "list",
];

/// The calls of the client's API that can take a step (any one of them does): none for `card`
/// (every client resolves its card), `send` or `stream` for a `send` by its `stream`, else
/// the step's op (`get`, `cancel`, `subscribe`, `push`, `extended_card`).
pub fn step_calls(step: &Value) -> Vec<&'static str> {
    match step["op"].as_str().unwrap_or("") {
        "card" => Vec::new(),
        "send" => match step["stream"].as_str().unwrap_or("auto") {
            "always" => vec!["stream"],
            "never" => vec!["send"],
            _ => vec!["send", "stream"],
        },
        other => OPERATIONS
            .iter()
            .copied()
            .filter(|known| *known == other)
            .collect(),
    }
}

/// Whether a client whose adapter declares `operations` (`None`: every call) offers a call
/// that takes `step`.
pub fn offers(step: &Value, operations: Option<&[String]>) -> bool {
    let calls = step_calls(step);
    match operations {
        None => true,
        Some(_) if calls.is_empty() => true,
        Some(offered) => calls.iter().any(|c| offered.iter().any(|o| o == c)),
    }
}

/// The sentence that requires every client of `version` to offer `call`, if one does: 0.3
/// §11.2.2 (V03-11.2.2-01) asks clients to make `message/send` and `tasks/get` requests.
/// No sentence of either version requires a client to offer cancel, subscribe, list, push
/// or the extended card, or 1.0 clients any call.
pub fn required_of_clients(call: &str, version: ProtocolVersion) -> Option<&'static str> {
    (version == ProtocolVersion::V0_3 && matches!(call, "send" | "get")).then_some("V03-11.2.2-01")
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
        let checks = super::super::client_checks::all();
        let mut ids = std::collections::BTreeSet::new();
        for check in checks {
            let judged = super::super::client_checks::play_of(check).unwrap_or("");
            assert!(ids.insert(check.id), "{} twice", check.id);
            assert!(check.id.starts_with("client."), "{}", check.id);
            assert!(play(judged).is_some(), "{}: no play {judged}", check.id);
            assert!(
                !check.spec.statements.is_empty(),
                "{} cites nothing",
                check.id
            );
            let first = check.spec.statements[0];
            assert_eq!(
                crate::facts::registry::section_of(first).as_deref(),
                Some(check.spec.section),
                "{}: the section of {first}",
                check.id
            );
            let version = if first.starts_with("V03-") {
                "0.3"
            } else {
                "1.0"
            };
            assert_eq!(check.spec.version, version, "{}", check.id);
        }
        for play in &table.plays {
            assert!(
                checks
                    .iter()
                    .any(|c| super::super::client_checks::play_of(c) == Some(play.id.as_str())),
                "play {} is judged by no check",
                play.id
            );
            for step in &play.steps {
                let op = step["op"].as_str().unwrap();
                assert!(
                    [
                        "card",
                        "send",
                        "get",
                        "cancel",
                        "subscribe",
                        "extended_card",
                        "push",
                        "wait"
                    ]
                    .contains(&op),
                    "{}: op {op}",
                    play.id
                );
            }
            assert_eq!(
                play.mishaps().len(),
                play.mishaps.len(),
                "{}: a mishap unread",
                play.id
            );
        }
    }

    fn origin(url: &str) -> String {
        let rest = url.split("://").nth(1).unwrap_or(url);
        rest.split('/').next().unwrap_or(rest).to_owned()
    }

    #[tokio::test]
    async fn http_doors_share_the_cards_origin_unless_a_play_asks_for_another() {
        let stage = Stage::start().await.unwrap();
        let card = card_url(&stage, "t");
        let all = [Binding::Jsonrpc, Binding::Rest, Binding::Grpc];
        for id in ["preference", "fallback", "mixed-card"] {
            let bases = bases(&stage, play(id).unwrap(), Binding::Rest, "t", &all);
            for base in [&bases.main, &bases.alt, &bases.dead] {
                assert_eq!(origin(base), origin(&card), "{id}: {base}");
            }
            assert_ne!(bases.main, bases.alt);
            assert_ne!(bases.main, bases.dead);
        }
        // gRPC interfaces are host:port: each door is its own listener.
        let grpc = bases(
            &stage,
            play("preference").unwrap(),
            Binding::Grpc,
            "t",
            &all,
        );
        assert_ne!(origin(&grpc.main), origin(&grpc.alt));
        // The credentials play puts the interfaces on another origin than the card.
        let apart = bases(
            &stage,
            play("credentials-other-origin").unwrap(),
            Binding::Jsonrpc,
            "t",
            &all,
        );
        assert_ne!(origin(&apart.main), origin(&card));
        // The binding listed first is one the client does not declare.
        let unspoken = bases(
            &stage,
            play("unspoken-first").unwrap(),
            Binding::Jsonrpc,
            "t",
            &[Binding::Jsonrpc],
        );
        assert_eq!(unspoken.unspoken, "HTTP+JSON");
        assert_eq!(origin(&unspoken.dead), origin(&card));
        let no_grpc = [Binding::Jsonrpc, Binding::Rest];
        let unspoken = bases(
            &stage,
            play("unspoken-first").unwrap(),
            Binding::Jsonrpc,
            "t",
            &no_grpc,
        );
        assert_eq!(unspoken.unspoken, "GRPC");
        assert_ne!(origin(&unspoken.dead), origin(&card));
        assert_eq!(
            bases(
                &stage,
                play("unspoken-first").unwrap(),
                Binding::Jsonrpc,
                "t",
                &all
            )
            .unspoken,
            CUSTOM_BINDING
        );
    }

    #[test]
    fn a_0_3_card_has_only_0_3_fields() {
        let spec = play("fallback").unwrap();
        let bases = Bases {
            main: "http://127.0.0.1:1/p/t".into(),
            alt: "http://127.0.0.1:2/p/t".into(),
            dead: "http://127.0.0.1:3/p/t".into(),
            unspoken: "GRPC".into(),
            fallback_from: Binding::Jsonrpc,
        };
        let backend = json!({"name": "n", "supportedInterfaces": [], "skills": [{"id": "s"}], "capabilities": {"extendedAgentCard": false}});
        let card = card_for(
            spec,
            Binding::Jsonrpc,
            ProtocolVersion::V0_3,
            &bases,
            &backend,
        );
        assert_eq!(card["url"], "http://127.0.0.1:3/p/t/a2a/jsonrpc");
        assert_eq!(
            card["additionalInterfaces"][1]["url"],
            "http://127.0.0.1:1/p/t/a2a/jsonrpc"
        );
        assert!(card.get("supportedInterfaces").is_none());
        assert!(card["capabilities"].get("extendedAgentCard").is_none());
        // The failing interface is of another binding the client declares; the play's own
        // (gRPC: host:port) comes second.
        let card = card_for(spec, Binding::Grpc, ProtocolVersion::V1_0, &bases, &backend);
        assert_eq!(
            card["supportedInterfaces"][0]["url"],
            "http://127.0.0.1:3/p/t/a2a/jsonrpc"
        );
        assert_eq!(card["supportedInterfaces"][0]["protocolBinding"], "JSONRPC");
        assert_eq!(card["supportedInterfaces"][1]["url"], "127.0.0.1:1");
        assert_eq!(card["supportedInterfaces"][1]["protocolBinding"], "GRPC");
        assert!(card.get("url").is_none());
    }
}

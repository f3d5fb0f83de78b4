//! The extended card of authenticated mode, in the form of each version and binding.

use serde_json::{json, Map, Value};

use super::{AuthPolicy, SCHEME};

/// The extended card in each wire form: 1.0 ProtoJSON, 0.3 JSON-RPC JSON, 0.3 ProtoJSON.
#[derive(Debug, Clone)]
pub struct ExtendedCards {
    pub v10: Value,
    pub v03_json: Value,
    pub v03_proto: Value,
}

const V10_FIELDS: &[&str] = &[
    "name",
    "description",
    "supportedInterfaces",
    "provider",
    "version",
    "documentationUrl",
    "capabilities",
    "securitySchemes",
    "securityRequirements",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
    "iconUrl",
];

const V03_FIELDS: &[&str] = &[
    "protocolVersion",
    "name",
    "description",
    "url",
    "preferredTransport",
    "additionalInterfaces",
    "provider",
    "version",
    "documentationUrl",
    "capabilities",
    "securitySchemes",
    "security",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
    "supportsAuthenticatedExtendedCard",
];

/// The extended card made from the public card (unsigned): one more skill, shown only to
/// authenticated callers. `None` when authenticated mode is off.
pub fn extended_cards(public: &Value, policy: &AuthPolicy) -> Option<ExtendedCards> {
    if !policy.on {
        return None;
    }
    let mut card = public.clone();
    if let Some(skills) = card.get_mut("skills").and_then(Value::as_array_mut) {
        skills.push(json!({
            "id": EXTENDED_SKILL,
            "name": "Extended TCK scenarios",
            "description": "Listed in the extended card only, which authenticated callers get.",
            "tags": ["tck", "extended"],
        }));
    }
    let pick = |fields: &[&str]| -> Map<String, Value> {
        fields
            .iter()
            .filter_map(|f| card.get(*f).map(|v| ((*f).to_owned(), v.clone())))
            .collect()
    };
    let oneof_only = |schemes: &mut Value| {
        if let Some(schemes) = schemes.as_object_mut() {
            for scheme in schemes.values_mut() {
                if let Some(scheme) = scheme.as_object_mut() {
                    scheme.retain(|k, _| k.ends_with("SecurityScheme"));
                }
            }
        }
    };
    let mut v10 = pick(V10_FIELDS);
    if let Some(capabilities) = v10.get_mut("capabilities").and_then(Value::as_object_mut) {
        capabilities.remove("stateTransitionHistory");
    }
    if let Some(schemes) = v10.get_mut("securitySchemes") {
        oneof_only(schemes);
    }
    let mut v03_json = pick(V03_FIELDS);
    if let Some(capabilities) = v03_json
        .get_mut("capabilities")
        .and_then(Value::as_object_mut)
    {
        capabilities.remove("extendedAgentCard");
    }
    if let Some(schemes) = v03_json
        .get_mut("securitySchemes")
        .and_then(Value::as_object_mut)
    {
        for scheme in schemes.values_mut() {
            if let Some(scheme) = scheme.as_object_mut() {
                scheme.retain(|k, _| !k.ends_with("SecurityScheme"));
            }
        }
    }
    let mut v03_proto = v03_json.clone();
    if let Some(schemes) = public.get("securitySchemes") {
        let mut schemes = schemes.clone();
        oneof_only(&mut schemes);
        v03_proto.insert("securitySchemes".into(), schemes);
    }
    v03_proto.insert(
        "security".into(),
        json!([{ "schemes": { SCHEME: { "list": [] } } }]),
    );
    if policy.card_not_a_card {
        let junk = json!({"extended": true, "skills": "tck-extended"});
        return Some(ExtendedCards {
            v10: junk.clone(),
            v03_json: junk,
            v03_proto: json!({}),
        });
    }
    Some(ExtendedCards {
        v10: Value::Object(v10),
        v03_json: Value::Object(v03_json),
        v03_proto: Value::Object(v03_proto),
    })
}

/// The id of the skill the extended card adds to the public card's.
const EXTENDED_SKILL: &str = "tck-extended";

/// The extended cards as tailored to a caller who may see nothing beyond the public card:
/// without the skill they add (spec 1.0 §13.3: the content MAY depend on the caller).
pub fn public_view(mut cards: ExtendedCards) -> ExtendedCards {
    for card in [&mut cards.v10, &mut cards.v03_json, &mut cards.v03_proto] {
        if let Some(skills) = card.get_mut("skills").and_then(Value::as_array_mut) {
            skills.retain(|skill| skill.get("id") != Some(&json!(EXTENDED_SKILL)));
        }
    }
    cards
}

/// The answer of the extended-card operations: the card in the form `form` picks, or the
/// error of an agent that declares the capability without a card configured (by the faults).
pub fn extended_card(
    cards: Option<&ExtendedCards>,
    policy: &crate::policy::features::AuthPolicy,
    form: fn(&ExtendedCards) -> &Value,
) -> Option<Result<Value, crate::error::RpcError>> {
    let cards = cards?;
    Some(if policy.card_not_configured_wrong_error {
        Err(crate::error::RpcError::unsupported_operation(
            "no extended agent card is configured",
        ))
    } else if policy.card_not_configured {
        Err(crate::error::RpcError::extended_card_not_configured())
    } else {
        Ok(form(cards).clone())
    })
}

//! What the kit sends to an agent that plays no scenario contract when nothing else says
//! (no `--drive` file, no contract that carries scenarios): a message taken from what the
//! agent's card declares it accepts. A skill's first example is sent as text when the skill
//! takes `text/plain` (or its card names no input modes); an agent whose input modes take
//! JSON only is sent a data part (a skill's example when it is a JSON object, else a small
//! object of the kit's). A card that says neither leaves the kit's own text in place.
//!
//! Only the parts change: the message keeps its id, and every verdict still rests on what
//! the agent did with it.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::facts::a2a;

/// The data part's content when the card gives no JSON example.
pub const DEFAULT_DATA: &str = r#"{"query": "hello"}"#;

/// Where the message came from on the card.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "kebab-case")]
pub enum CardSource {
    /// A skill's `examples`.
    Example,
    /// The input modes alone (`defaultInputModes`, a skill's `inputModes`): JSON only, and
    /// no example that is a JSON object, so the kit's small object is sent.
    InputModes,
}

/// The kind of part sent.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum PartKind {
    /// A text part.
    Text,
    /// A data part (1.0 `data` with `mediaType`; 0.3 `kind: "data"`).
    Data,
}

/// The message a run took from the agent's card, as recorded in the report.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct CardDriven {
    /// The skill whose example (or own `inputModes`) decided, by its `id` (else its `name`);
    /// absent when the card's `defaultInputModes` decided.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub skill: Option<String>,
    /// `example` (a skill's example) or `input-modes` (the modes alone).
    pub source: CardSource,
    /// `text` or `data`.
    pub part: PartKind,
    /// The parts every plain message carried, in the 1.0 JSON form (a 0.3 interface is sent
    /// them in its own form).
    pub parts: Value,
}

impl CardDriven {
    /// In words, for the report's evidence: "probe message taken from the card: skill `x`
    /// example (a text part)".
    pub fn words(&self) -> String {
        let from = match (&self.skill, self.source) {
            (Some(skill), CardSource::Example) => format!("skill `{skill}` example"),
            (Some(skill), CardSource::InputModes) => format!("skill `{skill}` inputModes"),
            (None, _) => "defaultInputModes".to_string(),
        };
        let part = match self.part {
            PartKind::Text => "a text part",
            PartKind::Data => "a data part",
        };
        format!(
            "probe message taken from the card: {from} ({part}: {})",
            self.parts
        )
    }
}

/// The message the card makes for an agent that plays no contract; `None` when the card
/// declares nothing the kit's own text would not do as well (text accepted, no example) or
/// nothing the kit can send (neither text nor JSON accepted).
pub fn from_card(card: &Value) -> Option<CardDriven> {
    let defaults = modes(card, "defaultInputModes");
    let skills: Vec<&Value> = a2a::items(card, "skills").collect();
    let modes_of = |skill: &Value| modes(skill, "inputModes").or_else(|| defaults.clone());
    let name_of = |skill: &Value| {
        a2a::text(skill, "id")
            .or_else(|| a2a::text(skill, "name"))
            .map(str::to_string)
    };
    // A skill that takes text, with an example: its first example, as text.
    for skill in &skills {
        if !accepts_text(modes_of(skill).as_deref()) {
            continue;
        }
        if let Some(example) = first_example(skill) {
            return Some(CardDriven {
                skill: name_of(skill),
                source: CardSource::Example,
                part: PartKind::Text,
                parts: json!([{ "text": example }]),
            });
        }
    }
    // JSON only: on the card's defaults, or on every skill's modes.
    let json_only = if skills.is_empty() {
        only_json(defaults.as_deref())
    } else {
        skills.iter().all(|s| only_json(modes_of(s).as_deref()))
    };
    if !json_only {
        return None;
    }
    let data_part = |data: Value| json!([{ "data": data, "mediaType": "application/json" }]);
    for skill in &skills {
        let example = a2a::items(skill, "examples")
            .filter_map(Value::as_str)
            .find_map(|e| {
                serde_json::from_str::<Value>(e)
                    .ok()
                    .filter(Value::is_object)
            });
        if let Some(data) = example {
            return Some(CardDriven {
                skill: name_of(skill),
                source: CardSource::Example,
                part: PartKind::Data,
                parts: data_part(data),
            });
        }
    }
    let own_modes = skills
        .iter()
        .find(|s| modes(s, "inputModes").is_some())
        .and_then(|s| name_of(s));
    Some(CardDriven {
        skill: own_modes,
        source: CardSource::InputModes,
        part: PartKind::Data,
        parts: data_part(serde_json::from_str(DEFAULT_DATA).expect("the kit's JSON")),
    })
}

/// The media types in `field` of `value`, when it names any.
fn modes(value: &Value, field: &str) -> Option<Vec<String>> {
    let modes: Vec<String> = a2a::items(value, field)
        .filter_map(Value::as_str)
        .map(essence)
        .collect();
    (!modes.is_empty()).then_some(modes)
}

/// The media type without its parameters, in lower case.
fn essence(media_type: &str) -> String {
    let essence = media_type.split(';').next().unwrap_or_default();
    essence.trim().to_ascii_lowercase()
}

fn first_example(skill: &Value) -> Option<&str> {
    a2a::items(skill, "examples")
        .filter_map(Value::as_str)
        .find(|e| !e.trim().is_empty())
}

/// Whether `modes` take plain text: no modes named, or `text/plain` (`text`, `text/*`, `*/*`).
fn accepts_text(modes: Option<&[String]>) -> bool {
    modes.is_none_or(|modes| {
        (modes.iter()).any(|m| matches!(m.as_str(), "text/plain" | "text" | "text/*" | "*/*"))
    })
}

/// Whether `modes` name media types, every one of them JSON (`application/json`, a `+json`
/// type).
fn only_json(modes: Option<&[String]>) -> bool {
    modes.is_some_and(|modes| modes.iter().all(|m| is_json(m)))
}

fn is_json(essence: &str) -> bool {
    essence
        .split_once('/')
        .is_some_and(|(_, sub)| sub == "json" || sub.ends_with("+json"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_text_skill_gives_its_first_example() {
        let card = json!({"defaultInputModes": ["application/json"], "skills": [
            {"id": "data", "examples": ["{\"a\": 1}"]},
            {"id": "chat", "inputModes": ["text/plain; charset=utf-8"], "examples": ["", "Hi there"]},
        ]});
        let driven = from_card(&card).expect("card driven");
        assert_eq!(
            (driven.skill.as_deref(), driven.source, driven.part),
            (Some("chat"), CardSource::Example, PartKind::Text)
        );
        assert_eq!(driven.parts, json!([{"text": "Hi there"}]));
        assert!(driven.words().contains("skill `chat` example"));
        // No modes at all: text is taken to be accepted.
        let bare = json!({"skills": [{"name": "Echo", "examples": ["echo me"]}]});
        assert_eq!(
            from_card(&bare).map(|d| (d.skill, d.parts)),
            Some((Some("Echo".into()), json!([{"text": "echo me"}])))
        );
    }

    #[test]
    fn a_json_only_agent_gets_a_data_part() {
        let example = json!({"defaultInputModes": ["application/json"], "skills": [
            {"id": "lookup", "examples": ["find me a flight", "{\"city\": \"Paris\"}"]},
        ]});
        let driven = from_card(&example).expect("card driven");
        assert_eq!(
            (driven.source, driven.part),
            (CardSource::Example, PartKind::Data)
        );
        assert_eq!(
            driven.parts,
            json!([{"data": {"city": "Paris"}, "mediaType": "application/json"}])
        );
        let modes_only = json!({"defaultInputModes": ["application/vnd.x+json"],
            "skills": [{"id": "s", "examples": ["not json"]}]});
        let driven = from_card(&modes_only).expect("card driven");
        assert_eq!(
            (driven.skill, driven.source),
            (None, CardSource::InputModes)
        );
        assert_eq!(driven.parts[0]["data"], json!({"query": "hello"}));
        let no_skills = json!({"defaultInputModes": ["application/json"]});
        assert!(from_card(&no_skills).is_some());
    }

    #[test]
    fn a_card_that_says_nothing_useful_changes_nothing() {
        // Text accepted, no example: the kit's own text is as good.
        assert_eq!(
            from_card(&json!({"defaultInputModes": ["text/plain"]})),
            None
        );
        assert_eq!(from_card(&json!({})), None);
        // Images only: nothing the kit could send.
        assert_eq!(
            from_card(&json!({"defaultInputModes": ["image/png"], "skills": [{"id": "x"}]})),
            None
        );
        // One skill takes JSON only, another text without an example: not JSON only.
        let mixed = json!({"skills": [
            {"id": "a", "inputModes": ["application/json"]},
            {"id": "b", "inputModes": ["text/plain"]},
        ]});
        assert_eq!(from_card(&mixed), None);
    }
}

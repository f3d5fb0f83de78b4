//! Strict wire shapes: the project's own types of every message an agent sends, for 1.0
//! ([`v10`]) and 0.3 ([`v03`]), the JSON Schemas generated from them (committed under
//! `schemas/`, kept current by a drift test; `a2a-tck schemas --write DIR` writes them), and
//! the [`Audit`] that validates every JSON message the kit receives on an interface against
//! its version's schema. The schemas are compiled once per run.

use std::collections::BTreeMap;

use schemars::generate::SchemaSettings;
use schemars::{JsonSchema, Schema};
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::facts::model::ProtocolVersion;

mod audit;
mod foreign;
mod phases;
mod route;
pub mod v03;
pub mod v10;

pub use audit::{Audit, Finding, Findings, InterfaceAudit, Rule};
pub use phases::Phases;

/// The `jsonrpc` member: always "2.0".
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub enum JsonRpcVersion {
    #[serde(rename = "2.0")]
    V2,
}

/// A JSON-RPC 2.0 response (both versions): exactly one of `result` and `error`. The result
/// is validated apart, by the method of the request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[schemars(transform = result_or_error)]
pub struct JsonRpcResponse {
    pub jsonrpc: JsonRpcVersion,
    /// The request's id: a string, a number, or null (parse errors).
    #[schemars(extend("type" = ["string", "number", "null"]))]
    pub id: Value,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub error: Option<JsonRpcError>,
}

/// A JSON-RPC 2.0 error object; `data` is free-form here (its 1.0 content is judged by the
/// error checks).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct JsonRpcError {
    pub code: i64,
    pub message: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub data: Option<Value>,
}

/// Member `name` is set: present and not null (ProtoJSON reads null as "not set").
fn set(name: &str) -> Value {
    json!({"required": [name], "properties": {name: {"not": {"type": "null"}}}})
}

/// Exactly one of `members` is set (a proto oneof).
fn exactly_one(schema: &mut Schema, members: &[&str]) {
    let branches: Vec<Value> = members.iter().map(|m| set(m)).collect();
    schema.insert("oneOf".into(), Value::Array(branches));
}

/// The 1.0 Part's `oneof content`. `data` is a `google.protobuf.Value`, for which JSON null is
/// a value (NullValue): `{"data": null}` alone is a data part, beside a set member it is read
/// as unset.
fn part_content(schema: &mut Schema) {
    let others: Vec<Value> = ["text", "raw", "url"].iter().map(|m| set(m)).collect();
    let data = json!({
        "required": ["data"],
        "anyOf": [
            {"properties": {"data": {"not": {"type": "null"}}}},
            {"not": {"anyOf": others}}
        ]
    });
    let mut branches = others;
    branches.push(data);
    schema.insert("oneOf".into(), Value::Array(branches));
}

fn one_event(schema: &mut Schema) {
    exactly_one(
        schema,
        &["task", "message", "statusUpdate", "artifactUpdate"],
    );
}

fn task_or_message(schema: &mut Schema) {
    exactly_one(schema, &["task", "message"]);
}

fn bytes_or_uri(schema: &mut Schema) {
    exactly_one(schema, &["bytes", "uri"]);
}

fn proto_part_content(schema: &mut Schema) {
    exactly_one(schema, &["text", "file", "data"]);
}

fn proto_file_content(schema: &mut Schema) {
    exactly_one(schema, &["fileWithUri", "fileWithBytes"]);
}

/// JSON-RPC 2.0: `result` or `error`, never both. A null `result` is a result (0.3 answers a
/// push config delete with it); a null `error` beside a result is read as absent.
fn result_or_error(schema: &mut Schema) {
    let error = set("error");
    let result = set("result");
    let null_result = json!({
        "required": ["result"],
        "properties": {"result": {"type": "null"}},
        "not": error
    });
    schema.insert(
        "anyOf".into(),
        json!([{"oneOf": [error, result]}, null_result]),
    );
}

/// Optional members are absent, not null: the audit removes null members before judging
/// (ProtoJSON reads null as "not set"), so the schema of an `Option<T>` is `T`'s.
fn drop_null(schema: &mut Value) {
    let Value::Object(object) = schema else {
        return;
    };
    if let Some(Value::Array(types)) = object.get_mut("type") {
        types.retain(|t| t != "null");
        if types.len() == 1 {
            let only = types.remove(0);
            object.insert("type".into(), only);
        }
    }
    let nullable = match object.get("anyOf") {
        Some(Value::Array(branches)) if branches.len() == 2 => branches
            .iter()
            .position(|b| *b == json!({"type": "null"}))
            .map(|null| branches[1 - null].clone()),
        _ => None,
    };
    if let Some(Value::Object(inner)) = nullable {
        object.remove("anyOf");
        for (k, v) in inner {
            object.entry(k).or_insert(v);
        }
    }
    for (key, member) in object.iter_mut() {
        match (key.as_str(), member) {
            ("properties" | "$defs", Value::Object(members)) => {
                members.values_mut().for_each(drop_null)
            }
            ("items" | "additionalProperties", member) => drop_null(member),
            ("oneOf" | "anyOf" | "allOf", Value::Array(branches)) => {
                branches.iter_mut().for_each(drop_null)
            }
            _ => {}
        }
    }
}

/// Removes null members (ProtoJSON's "not set") from a received message, keeping a part's
/// `data` (a `google.protobuf.Value`, where null is a value) and not looking into user data.
pub(crate) fn strip_nulls(value: &mut Value) {
    match value {
        Value::Object(object) => {
            object.retain(|k, m| !m.is_null() || k == "data");
            for (key, member) in object.iter_mut() {
                if key != "data" && key != "metadata" {
                    strip_nulls(member);
                }
            }
        }
        Value::Array(items) => items.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

/// The file name of a version's schema under `schemas/`.
pub fn file_name(version: ProtocolVersion) -> String {
    format!("a2a-{}.wire.schema.json", version.as_str())
}

/// The roots (the `$defs` a received message is validated against) of each version.
fn roots(version: ProtocolVersion, generator: &mut schemars::SchemaGenerator) {
    generator.subschema_for::<JsonRpcResponse>();
    match version {
        ProtocolVersion::V1_0 => {
            use v10::*;
            generator.subschema_for::<Task>();
            generator.subschema_for::<Message>();
            generator.subschema_for::<SendMessageResponse>();
            generator.subschema_for::<StreamResponse>();
            generator.subschema_for::<ListTasksResponse>();
            generator.subschema_for::<TaskPushNotificationConfig>();
            generator.subschema_for::<ListTaskPushNotificationConfigsResponse>();
        }
        ProtocolVersion::V0_3 => {
            use v03::*;
            generator.subschema_for::<SendMessageResult>();
            generator.subschema_for::<StreamResult>();
            generator.subschema_for::<TaskPushNotificationConfig>();
            generator.subschema_for::<ProtoSendMessageResponse>();
            generator.subschema_for::<ProtoStreamResponse>();
            generator.subschema_for::<ProtoTaskPushNotificationConfig>();
            generator.subschema_for::<ProtoListTaskPushNotificationConfigResponse>();
        }
    }
}

/// The wire schema of `version`: every type in `$defs`, in name order.
pub fn schema(version: ProtocolVersion) -> Value {
    let mut generator = SchemaSettings::draft2020_12().into_generator();
    roots(version, &mut generator);
    let mut defs: BTreeMap<String, Value> = generator.take_definitions(true).into_iter().collect();
    for (name, def) in defs.iter_mut() {
        if !name.starts_with("JsonRpc") {
            drop_null(def);
        }
    }
    let description = match version {
        ProtocolVersion::V1_0 => {
            "The messages an A2A 1.0 agent sends, in ProtoJSON (REQUIRED fields required, \
             REQUIRED arrays non-empty, oneofs exactly one member, enums as ProtoJSON names), \
             and the JSON-RPC 2.0 response envelope. Unknown members are allowed."
        }
        ProtocolVersion::V0_3 => {
            "The messages an A2A 0.3 agent sends: the JSON of types.ts (JSON-RPC, with `kind`), \
             the ProtoJSON of the 0.3 proto (types named Proto*: gRPC, and REST in practice), \
             and the JSON-RPC 2.0 response envelope. Unknown members are allowed."
        }
    };
    json!({
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": format!("https://a2a-tck.dev/schemas/{}", file_name(version)),
        "title": format!("A2A {} wire shapes (a2a-tck)", version.as_str()),
        "description": description,
        "$defs": defs,
    })
}

/// The schema as written to its file.
pub fn schema_text(version: ProtocolVersion) -> String {
    let mut text = serde_json::to_string_pretty(&schema(version)).unwrap_or_default();
    text.push('\n');
    text
}

/// Writes both schemas into `dir`; returns the paths written.
pub fn write(dir: &std::path::Path) -> std::io::Result<Vec<std::path::PathBuf>> {
    std::fs::create_dir_all(dir)?;
    let mut written = Vec::new();
    for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
        let path = dir.join(file_name(version));
        std::fs::write(&path, schema_text(version))?;
        written.push(path);
    }
    Ok(written)
}

/// The compiled schema of one version, built once per run: one validator whose root has a
/// member per def a message is judged against, so the `$defs` are compiled once.
pub struct Validators {
    validator: Option<jsonschema::Validator>,
    roots: &'static [&'static str],
}

impl std::fmt::Debug for Validators {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Validators")
            .field("roots", &self.roots)
            .finish()
    }
}

impl Validators {
    /// Compiles `version`'s schema.
    pub fn new(version: ProtocolVersion) -> Validators {
        let schema = schema(version);
        let defs = schema
            .get("$defs")
            .cloned()
            .unwrap_or(Value::Object(Map::new()));
        let roots = ROOTS[version_index(version)];
        let properties: Map<String, Value> = roots
            .iter()
            .map(|name| {
                (
                    (*name).to_string(),
                    json!({"$ref": format!("#/$defs/{name}")}),
                )
            })
            .collect();
        let root = json!({
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "type": "object",
            "properties": properties,
            "$defs": defs,
        });
        Validators {
            validator: jsonschema::validator_for(&root).ok(),
            roots,
        }
    }

    /// What is wrong with `instance` as a `def`, one line per problem (empty: valid, or an
    /// unknown def).
    pub fn problems(&self, def: &str, instance: &Value) -> Vec<String> {
        let Some(validator) = self
            .validator
            .as_ref()
            .filter(|_| self.roots.contains(&def))
        else {
            return Vec::new();
        };
        let mut wrapped = Map::new();
        wrapped.insert(def.to_string(), instance.clone());
        let wrapped = Value::Object(wrapped);
        let prefix = format!("/{def}");
        validator
            .iter_errors(&wrapped)
            .map(|e| {
                let path = e.instance_path().to_string();
                let at = path.strip_prefix(&prefix).unwrap_or(&path);
                let at = if at.is_empty() { "/" } else { at };
                format!("{def} at {at}: {}", cut(&e.to_string(), 200))
            })
            .collect()
    }
}

/// `text` cut to `max` characters.
pub(crate) fn cut(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        text.to_string()
    } else {
        format!("{}...", text.chars().take(max).collect::<String>())
    }
}

/// The defs received messages are validated against, per version.
const ROOTS: [&[&str]; 2] = [
    &[
        "JsonRpcResponse",
        "JsonRpcError",
        "Task",
        "Message",
        "SendMessageResponse",
        "StreamResponse",
        "ListTasksResponse",
        "TaskPushNotificationConfig",
        "ListTaskPushNotificationConfigsResponse",
    ],
    &[
        "JsonRpcResponse",
        "JsonRpcError",
        "Task",
        "Message",
        "TaskStatusUpdateEvent",
        "TaskArtifactUpdateEvent",
        "SendMessageResult",
        "StreamResult",
        "TaskPushNotificationConfig",
        "ProtoTask",
        "ProtoSendMessageResponse",
        "ProtoStreamResponse",
        "ProtoTaskPushNotificationConfig",
        "ProtoListTaskPushNotificationConfigResponse",
    ],
];

fn version_index(version: ProtocolVersion) -> usize {
    match version {
        ProtocolVersion::V1_0 => 0,
        ProtocolVersion::V0_3 => 1,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The committed schemas are the ones the types generate; `UPDATE_SCHEMAS=1` rewrites them.
    #[test]
    fn committed_schemas_match_the_types() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../schemas");
        if std::env::var_os("UPDATE_SCHEMAS").is_some() {
            write(&dir).expect("schemas written");
        }
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            let path = dir.join(file_name(version));
            let committed = std::fs::read_to_string(&path).unwrap_or_default();
            assert!(
                committed == schema_text(version),
                "{} is out of date with the wire types in tck/src/shapes; regenerate it with \
                 `UPDATE_SCHEMAS=1 cargo test -p a2a-tck --lib shapes` or \
                 `a2a-tck schemas --write schemas`",
                path.display()
            );
        }
    }

    #[test]
    fn every_root_compiles() {
        for version in [ProtocolVersion::V1_0, ProtocolVersion::V0_3] {
            let validators = Validators::new(version);
            assert!(validators.validator.is_some(), "{version:?}");
            let defs = schema(version);
            for name in ROOTS[version_index(version)] {
                assert!(defs["$defs"].get(*name).is_some(), "{name} of {version:?}");
            }
        }
    }

    #[test]
    fn parts_are_one_of() {
        let v = Validators::new(ProtocolVersion::V1_0);
        let msg = |parts: Value| json!({"messageId": "m", "role": "ROLE_AGENT", "parts": parts});
        assert!(v
            .problems("Message", &msg(json!([{"text": "a"}])))
            .is_empty());
        assert!(!v
            .problems("Message", &msg(json!([{"text": "a", "url": "u"}])))
            .is_empty());
        assert!(!v
            .problems("Message", &msg(json!([{"mediaType": "x"}])))
            .is_empty());
        assert!(!v.problems("Message", &msg(json!([]))).is_empty());
        let task = json!({"id": "t", "status": {"state": "TASK_STATE_COMPLETED"}, "kind": "task"});
        assert!(
            v.problems("Task", &task).is_empty(),
            "unknown members are allowed"
        );
        let bad = json!({"id": "t", "status": {"state": "completed"}});
        assert!(!v.problems("Task", &bad).is_empty());
        let mut nulls = msg(json!([{"text": "a", "raw": null, "url": null, "data": null}]));
        nulls["metadata"] = Value::Null;
        strip_nulls(&mut nulls);
        let problems = v.problems("Message", &nulls);
        assert!(problems.is_empty(), "null is unset: {problems:?}");
        assert!(v
            .problems("Message", &msg(json!([{"data": null}])))
            .is_empty());
        assert!(!v
            .problems("Message", &msg(json!([{"text": "a", "data": {}}])))
            .is_empty());
        let rpc = |body: Value| v.problems("JsonRpcResponse", &body);
        assert!(rpc(json!({"jsonrpc": "2.0", "id": 1, "result": null})).is_empty());
        assert!(rpc(
            json!({"jsonrpc": "2.0", "id": 1, "result": null, "error": {"code": 1, "message": "m"}})
        )
        .is_empty());
        assert!(!rpc(
            json!({"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}})
        )
        .is_empty());
        assert!(!rpc(json!({"jsonrpc": "2.0", "id": 1})).is_empty());
    }
}

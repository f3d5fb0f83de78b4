//! An SDK's ACTS behaviour file (`acts/sut-behaviors.yaml`, ACTS §11): the `tck-*` prefixes
//! its test agent declares it plays, each with what it does (a task or a message, the state it
//! ends in, its artifacts, a delay, streaming). Given with `--sut-behaviors`, the file is the
//! run's scenario contract: the scenarios are carried the ACTS way (the prefix starts the first
//! text part), nothing is probed, and the kit sends only the scenarios whose ACTS counterpart
//! the file declares. Fields the kit does not know are accepted and kept out of its reading.

use std::collections::BTreeMap;
use std::path::Path;

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;
use sha2::{Digest, Sha256};

/// What a check that needs an undeclared scenario gets (`--undeclared`).
#[derive(
    Debug,
    Clone,
    Copy,
    Default,
    PartialEq,
    Eq,
    PartialOrd,
    Ord,
    Hash,
    Serialize,
    Deserialize,
    JsonSchema,
)]
#[serde(rename_all = "lowercase")]
pub enum Undeclared {
    /// The kit's rule: the kit could not bring the agent into the state the check needs, so
    /// the result is UNTESTABLE (never a pass, and it keeps the verdict from `conformant`).
    #[default]
    Untestable,
    /// The ACTS runner's rule: a test that needs a behaviour the file does not declare fails
    /// (FAIL for a MUST check, WARN for a SHOULD or MAY one).
    Fail,
}

impl Undeclared {
    pub fn as_str(self) -> &'static str {
        match self {
            Undeclared::Untestable => "untestable",
            Undeclared::Fail => "fail",
        }
    }
}

/// One behaviour as the file declares it.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Behavior {
    /// The text prefix that asks for it (`tck-complete-task`).
    pub prefix: String,
    #[serde(default)]
    pub description: Option<String>,
    /// `task` or `message`.
    #[serde(default)]
    pub response_type: Option<String>,
    /// The state the task ends in (`TASK_STATE_COMPLETED`).
    #[serde(default)]
    pub terminal_state: Option<String>,
    /// The artifacts the answer carries, as the file writes them.
    #[serde(default)]
    pub artifacts: Option<Vec<Value>>,
    /// How long the agent works before it ends the task (ACTS's timed `tck-long-running`).
    #[serde(default)]
    pub delay_ms: Option<u64>,
    /// Whether the behaviour is for streaming requests.
    #[serde(default)]
    pub streaming: Option<bool>,
    /// Fields the kit does not read, kept so that a newer file is still accepted.
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

#[derive(Debug, Deserialize)]
struct File {
    acts_version: Version,
    behaviors: Vec<Behavior>,
    #[serde(flatten)]
    _other: BTreeMap<String, Value>,
}

/// `acts_version` is a string in the SDKs' files; an unquoted `1.0` reads as a number.
#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Version {
    Text(String),
    Number(serde_json::Number),
}

/// A read behaviour file: where it came from, its digest and what it declares.
#[derive(Debug, Clone, PartialEq)]
pub struct SutBehaviors {
    /// The path as given.
    pub path: String,
    /// SHA-256 of the file's bytes, `sha256:<hex>`.
    pub sha256: String,
    /// The file's `acts_version`.
    pub acts_version: String,
    /// Every behaviour, in the file's order.
    pub behaviors: Vec<Behavior>,
}

impl SutBehaviors {
    /// Reads and checks a behaviour file (YAML; JSON is YAML too).
    pub fn read(path: &Path) -> Result<SutBehaviors, String> {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        let text = String::from_utf8(bytes.clone())
            .map_err(|_| format!("{}: not UTF-8 text", path.display()))?;
        let mut read =
            SutBehaviors::parse(&text).map_err(|e| format!("{}: {e}", path.display()))?;
        read.path = path.display().to_string();
        read.sha256 = format!("sha256:{:x}", Sha256::digest(&bytes));
        Ok(read)
    }

    /// Parses the text of a behaviour file: a mapping with `acts_version` and a non-empty
    /// `behaviors` list, each with a `prefix` that starts with `tck-`. Other fields are
    /// accepted.
    pub fn parse(text: &str) -> Result<SutBehaviors, String> {
        let shape = "an ACTS SUT behaviours file is a mapping with `acts_version` and a \
                     `behaviors` list, each item with a `prefix` (ACTS §11.1)";
        let file: File = serde_yaml_ng::from_str(text).map_err(|e| format!("{e}; {shape}"))?;
        let acts_version = match file.acts_version {
            Version::Text(text) => text,
            Version::Number(number) => number.to_string(),
        };
        if acts_version.trim().is_empty() {
            return Err(format!("`acts_version` is empty; {shape}"));
        }
        if file.behaviors.is_empty() {
            return Err(format!("`behaviors` is empty; {shape}"));
        }
        for (index, behavior) in file.behaviors.iter().enumerate() {
            if !behavior.prefix.starts_with("tck-") || behavior.prefix.trim() != behavior.prefix {
                return Err(format!(
                    "behaviors[{index}]: the prefix `{}` does not start with `tck-` (ACTS §11.2)",
                    behavior.prefix
                ));
            }
            if let Some(kind) = &behavior.response_type {
                if kind != "task" && kind != "message" {
                    return Err(format!(
                        "behaviors[{index}] (`{}`): response_type `{kind}` is neither `task` nor \
                         `message`",
                        behavior.prefix
                    ));
                }
            }
        }
        Ok(SutBehaviors {
            path: String::new(),
            sha256: String::new(),
            acts_version,
            behaviors: file.behaviors,
        })
    }

    /// Whether the file declares `prefix`.
    pub fn declares(&self, prefix: &str) -> bool {
        self.behaviors.iter().any(|b| b.prefix == prefix)
    }

    /// The declared prefixes, sorted, each once.
    pub fn prefixes(&self) -> Vec<String> {
        let mut prefixes: Vec<String> = self.behaviors.iter().map(|b| b.prefix.clone()).collect();
        prefixes.sort_unstable();
        prefixes.dedup();
        prefixes
    }

    /// The delay the file gives `prefix`, if any.
    pub fn delay_ms(&self, prefix: &str) -> Option<u64> {
        self.behaviors
            .iter()
            .filter(|b| b.prefix == prefix)
            .find_map(|b| b.delay_ms)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_shape_and_keeps_unknown_fields() {
        let text = "acts_version: 1.0\nnotes: x\nbehaviors:\n  - prefix: tck-long-running\n    \
                    delay_ms: 1000\n    retries: 3\n  - prefix: tck-cancel\n";
        let file = SutBehaviors::parse(text).expect("parses");
        assert_eq!(file.acts_version, "1.0");
        assert_eq!(file.prefixes(), ["tck-cancel", "tck-long-running"]);
        assert_eq!(file.delay_ms("tck-long-running"), Some(1000));
        assert!(file.behaviors[0].other.contains_key("retries"));
    }

    #[test]
    fn refuses_what_is_not_that_shape() {
        for text in [
            "behaviors: []\n",
            "acts_version: '1.0'\nbehaviors: []\n",
            "acts_version: '1.0'\nbehaviors:\n  - description: no prefix\n",
            "acts_version: '1.0'\nbehaviors:\n  - prefix: complete\n",
            "acts_version: '1.0'\nbehaviors:\n  - prefix: tck-x\n    response_type: stream\n",
            "- a list\n",
        ] {
            assert!(SutBehaviors::parse(text).is_err(), "{text}");
        }
    }
}

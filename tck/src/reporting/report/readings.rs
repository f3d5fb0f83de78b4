//! The report's record of how the run read the text: the revision of A2A 1.0 it judged by,
//! the reading it applied to each contested sentence its checks met, and the canonical forms
//! over which the card's signatures verified.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::facts::revision::{Judging, Met};

/// The revision of A2A 1.0 a run judged the 1.0 results by (`--spec-revision`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SpecRevisionJudged {
    /// The revision whose text is the expectation, e.g. `1.0.1`.
    pub revision: String,
    /// True when an answer another revision gave, where it differs, is tolerated (WARN)
    /// rather than judged by this revision's keyword: the default (`latest`); false when the
    /// revision was pinned.
    pub tolerant: bool,
    /// The revisions whose answers are tolerated; empty when pinned.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub tolerated: Vec<String>,
}

impl SpecRevisionJudged {
    /// The revision of a run that holds results of `spec_versions`; `None` when it holds no
    /// 1.0 result (a 0.3 run is not judged by a 1.0 revision).
    pub fn of(judging: Judging, spec_versions: &[String]) -> Option<SpecRevisionJudged> {
        spec_versions
            .iter()
            .any(|v| v == "1.0")
            .then(|| SpecRevisionJudged {
                revision: judging.revision().tag.to_string(),
                tolerant: judging.tolerant(),
                tolerated: judging.tolerated().map(|r| r.tag.to_string()).collect(),
            })
    }
}

/// A contested sentence (one the revisions word differently, or one that contradicts itself)
/// that the run's checks met, and the reading they applied.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct AppliedReading {
    /// The section of the spec that holds it, e.g. `5.4`.
    pub section: String,
    /// The sentence, in the kit's words.
    pub sentence: String,
    /// The reading applied: the answers accepted, tolerated or failed.
    pub reading: String,
    /// The ids of the checks that met it.
    pub checks: Vec<String>,
}

impl AppliedReading {
    /// The readings applied under `judging` to the sentences `met` records, in section order.
    pub fn of(judging: Judging, met: &Met) -> Vec<AppliedReading> {
        met.sentences
            .iter()
            .map(|(sentence, checks)| {
                let mut checks = checks.clone();
                checks.sort();
                AppliedReading {
                    section: sentence.section().to_string(),
                    sentence: sentence.title(),
                    reading: sentence.reading(judging),
                    checks,
                }
            })
            .collect()
    }
}

/// One signature of the card and the canonical forms of the card it verified over (§8.4
/// contradicts itself on which properties the canonical form keeps).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub struct SignatureForms {
    /// Its index in the card's `signatures`.
    pub signature: usize,
    /// Each RFC 8785 (JCS) form of the card, without `signatures`, that it verified over,
    /// e.g. `the card as served`, `defaults removed by proto presence`.
    pub verified_over: Vec<String>,
}

impl SignatureForms {
    /// The signatures `met` records as verified.
    pub fn of(met: &Met) -> Vec<SignatureForms> {
        met.signatures
            .iter()
            .map(|(index, forms)| SignatureForms {
                signature: *index,
                verified_over: forms.iter().map(|f| f.to_string()).collect(),
            })
            .collect()
    }
}

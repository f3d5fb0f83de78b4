//! What the error-detail checks of JSON-RPC and REST share: the typed extras of an error
//! beyond its ErrorInfo, and how they are judged.

use serde_json::Value;

use crate::facts::a2a::{self, ERROR_INFO_TYPE};
use crate::suite::check::Verdict;

/// The detail objects of an error other than its ErrorInfo.
pub(crate) fn extras(details: &[Value]) -> Vec<&Value> {
    details
        .iter()
        .filter(|d| d.get("@type").and_then(Value::as_str) != Some(ERROR_INFO_TYPE))
        .collect()
}

/// PASS when every extra detail is typed, N/A without extras, a violation otherwise.
pub(crate) fn judge_extras(details: Option<&Value>, answer: &str) -> Verdict {
    let Some(details) = details.and_then(Value::as_array) else {
        return Verdict::NotApplicable {
            reason: format!("the error carries no detail array: {answer}"),
        };
    };
    let extras = extras(details);
    if extras.is_empty() {
        return Verdict::NotApplicable {
            reason: "the error carries no detail beside its ErrorInfo (optional)".into(),
        };
    }
    let untyped: Vec<String> = extras
        .iter()
        .filter(|d| !d.get("@type").is_some_and(Value::is_string))
        .map(|d| a2a::brief(d, 160))
        .collect();
    if untyped.is_empty() {
        Verdict::pass_with(format!("{} typed extra detail(s)", extras.len()))
    } else {
        Verdict::fail(
            "every extra detail object with an @type",
            format!("untyped: {}", untyped.join("; ")),
        )
    }
}

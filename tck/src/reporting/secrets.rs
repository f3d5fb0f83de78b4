//! Credentials never reach an output: the evidence redacts credential headers as it records
//! them, and [`scrub`] then replaces every other occurrence of a credential (an agent that
//! echoes a token in a body or an error message) in the whole report, before any writer
//! (JSON, JUnit, HTML, Markdown, summary) sees it.

use crate::reporting::report::Report;

/// What replaces a secret.
pub const REDACTED: &str = "[redacted]";

/// Secrets shorter than this are not searched for (they would match ordinary text).
const MIN_SECRET: usize = 6;

/// The secrets in credential headers: each value, and the credential after its scheme
/// (`Bearer <token>` gives the token too).
pub fn of_headers<'a>(headers: impl IntoIterator<Item = &'a (String, String)>) -> Vec<String> {
    let mut secrets = Vec::new();
    for (name, value) in headers {
        if matches!(
            name.to_ascii_lowercase().as_str(),
            "a2a-version" | "a2a-extensions" | "x-a2a-extensions" | "accept" | "content-type"
        ) {
            continue;
        }
        secrets.push(value.trim().to_string());
        if let Some((_, credential)) = value.trim().split_once(' ') {
            secrets.push(credential.trim().to_string());
        }
    }
    secrets.retain(|s| s.len() >= MIN_SECRET);
    // Longest first, so a value is replaced before the token inside it.
    secrets.sort_by_key(|s| std::cmp::Reverse(s.len()));
    secrets.dedup();
    secrets
}

/// The report with every occurrence of `secrets` replaced by [`REDACTED`].
pub fn scrub(report: Report, secrets: &[String]) -> Report {
    if secrets.is_empty() {
        return report;
    }
    let Ok(mut text) = serde_json::to_string(&report) else {
        return report;
    };
    let mut changed = false;
    for secret in secrets {
        // The secret as it appears inside a JSON string.
        let Ok(quoted) = serde_json::to_string(secret) else {
            continue;
        };
        let escaped = &quoted[1..quoted.len() - 1];
        if text.contains(escaped) {
            text = text.replace(escaped, REDACTED);
            changed = true;
        }
    }
    if !changed {
        return report;
    }
    serde_json::from_str(&text).unwrap_or(report)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bearer_values_give_the_token_too() {
        let headers = vec![
            ("Authorization".to_string(), "Bearer abcdefgh".to_string()),
            ("A2A-Version".to_string(), "1.0.0000".to_string()),
            ("X-Key".to_string(), "k".to_string()),
        ];
        assert_eq!(of_headers(&headers), vec!["Bearer abcdefgh", "abcdefgh"]);
    }
}

//! Service parameters the kit sends as a correct client (spec 1.0 §3.2.6): the extensions
//! to activate. A card's required extensions (`capabilities.extensions[].required`) are
//! activated on every request of every binding, as `A2A-Extensions` (1.0; HTTP header or gRPC
//! metadata) and `X-A2A-Extensions` (0.3's name), comma-separated in one field (§9.2).

use serde_json::Value;

/// The header / metadata name of the extensions parameter, and its 0.3 name.
pub const EXTENSIONS: &str = "a2a-extensions";
pub const EXTENSIONS_0_3: &str = "x-a2a-extensions";

/// The URIs of the extensions the card declares, with whether each is required.
pub fn declared_extensions(card: &Value) -> Vec<(String, bool)> {
    card.pointer("/capabilities/extensions")
        .and_then(Value::as_array)
        .map(|extensions| {
            extensions
                .iter()
                .filter_map(|e| {
                    let uri = e.get("uri").and_then(Value::as_str)?.trim();
                    let required = e.get("required").and_then(Value::as_bool) == Some(true);
                    (!uri.is_empty()).then(|| (uri.to_string(), required))
                })
                .collect()
        })
        .unwrap_or_default()
}

/// The URIs of the extensions the card marks `required: true`.
pub fn required_extensions(card: &Value) -> Vec<String> {
    declared_extensions(card)
        .into_iter()
        .filter(|(_, required)| *required)
        .map(|(uri, _)| uri)
        .collect()
}

/// Adds the extension headers to a request's headers, unless the request already names
/// either (a check that sets its own activation) or there is nothing to activate.
pub fn add_extension_headers(headers: &mut Vec<(&str, String)>, extensions: &[String]) {
    let named = headers
        .iter()
        .any(|(k, _)| k.eq_ignore_ascii_case(EXTENSIONS) || k.eq_ignore_ascii_case(EXTENSIONS_0_3));
    if extensions.is_empty() || named {
        return;
    }
    let value = extensions.join(",");
    headers.push((EXTENSIONS, value.clone()));
    headers.push((EXTENSIONS_0_3, value));
}

/// The same URI with another version: the last path segment of the form `v<N>` (or a
/// `<N>` / `<N>.<M>` segment) with its major number raised by one. `None` when the URI
/// carries no version the kit can recognise.
pub fn other_version(uri: &str) -> Option<String> {
    let (base, last) = uri.trim_end_matches('/').rsplit_once('/')?;
    let (prefix, number) = match last.strip_prefix(['v', 'V']) {
        Some(rest) => (&last[..1], rest),
        None => ("", last),
    };
    let major = number.split('.').next()?;
    if major.is_empty() || !major.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let next = major.parse::<u64>().ok()?.checked_add(1)?;
    Some(format!("{base}/{prefix}{next}"))
}

/// An extension no agent knows: a URI of the kit's own namespace.
pub const UNKNOWN_EXTENSION: &str =
    "https://github.com/a2a-tck/a2a-tck/extensions/unknown-to-every-agent/v1";

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn other_versions() {
        assert_eq!(
            other_version("https://x.org/ext/geo/v1").as_deref(),
            Some("https://x.org/ext/geo/v2")
        );
        assert_eq!(
            other_version("https://x.org/ext/geo/2.1").as_deref(),
            Some("https://x.org/ext/geo/3")
        );
        assert_eq!(other_version("https://x.org/ext/geo"), None);
        assert_eq!(other_version("urn:geo"), None);
    }

    #[test]
    fn headers_added_once() {
        let mut headers = vec![("content-type", "x".to_string())];
        add_extension_headers(&mut headers, &["a".into(), "b".into()]);
        assert_eq!(headers[1], (EXTENSIONS, "a,b".to_string()));
        let mut own = vec![("A2A-Extensions", String::new())];
        add_extension_headers(&mut own, &["a".into()]);
        assert_eq!(own.len(), 1);
    }
}

//! Extensions (spec 1.0 §4.6, §3.3.4): with `AgentConfig::required_extension` the
//! card declares [`REQUIRED_EXTENSION`] with `required: true`, every 1.0 request must activate
//! it through the `A2A-Extensions` service parameter (HTTP header, gRPC metadata; the 0.3
//! name `X-A2A-Extensions` is read too), and responses list the activated extensions in an
//! `A2A-Extensions` header (topics/extensions.md). Unknown URIs are ignored; another version
//! of the required URI is not taken for it (§4.6.3). 0.3 JSON-RPC and REST requests follow
//! the same rules with 0.3's header `X-A2A-Extensions` (refused with InvalidRequest, as 0.3
//! names no error), and responses list the activated extensions under both names.

use axum::extract::Request;
use axum::http::{HeaderMap, HeaderValue};
use axum::middleware::Next;
use axum::response::Response;
use serde_json::{json, Value};

use crate::error::RpcError;
use crate::policy::features::ExtensionPolicy;

/// The extension the agent requires when configured to: a URI of the project's own
/// namespace, versioned by its last path segment.
pub const REQUIRED_EXTENSION: &str = "https://github.com/a2a-tck/a2a-tck/extensions/tck-ack/v1";

/// The header (and gRPC metadata key) of the service parameter, and its 0.3 name.
const HEADER: &str = "a2a-extensions";
const HEADER_0_3: &str = "x-a2a-extensions";

/// The card's `capabilities.extensions`, or `None` when the agent declares none.
pub fn declared(policy: &ExtensionPolicy) -> Option<Value> {
    policy.required.then(|| {
        json!([{
            "uri": REQUIRED_EXTENSION,
            "description": "Test extension of the a2a-tck reference agent: every request must \
                            activate it (A2A-Extensions); it changes nothing else.",
            "required": true,
        }])
    })
}

/// The extension URIs a request names: every value of both header names, comma-separated.
pub fn requested(policy: &ExtensionPolicy, headers: &HeaderMap) -> Vec<String> {
    let values = headers
        .get_all(HEADER)
        .iter()
        .chain(headers.get_all(HEADER_0_3).iter());
    let mut uris: Vec<String> = values
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(','))
        .map(|uri| uri.trim().to_owned())
        .filter(|uri| !uri.is_empty())
        .collect();
    if policy.first_value_only {
        uris.truncate(1);
    }
    uris
}

/// The URI without its version segment (`.../v1` → `...`), for the downgrade fault.
fn unversioned(uri: &str) -> &str {
    match uri.rsplit_once('/') {
        Some((base, last))
            if last.len() > 1
                && last.starts_with('v')
                && last[1..].bytes().all(|b| b.is_ascii_digit()) =>
        {
            base
        }
        _ => uri,
    }
}

/// The declared extensions the request activates.
pub fn activated(policy: &ExtensionPolicy, requested: &[String]) -> Vec<String> {
    if !policy.required {
        return Vec::new();
    }
    let fallback = policy.version_downgrade;
    let hit = requested.iter().any(|uri| {
        uri == REQUIRED_EXTENSION
            || (fallback && unversioned(uri) == unversioned(REQUIRED_EXTENSION))
    });
    if hit {
        vec![REQUIRED_EXTENSION.to_owned()]
    } else {
        Vec::new()
    }
}

/// The extension rules of a 1.0 request: a required extension not activated is
/// ExtensionSupportRequiredError; unknown URIs are ignored.
pub fn check(policy: &ExtensionPolicy, headers: &HeaderMap) -> Result<(), RpcError> {
    enforce(policy, headers, || {
        RpcError::extension_support_required(REQUIRED_EXTENSION)
    })
}

/// The extension rules of a 0.3 JSON-RPC or REST request (topics/extensions.md @ v0.3.0):
/// activation by `X-A2A-Extensions` (`A2A-Extensions` is read too); a required extension not
/// activated is refused with InvalidRequest, as 0.3 names no error for it.
pub fn check_v03(policy: &ExtensionPolicy, headers: &HeaderMap) -> Result<(), RpcError> {
    let missing = || {
        RpcError::invalid_request(format_args!(
            "the required extension {REQUIRED_EXTENSION} is not activated (X-A2A-Extensions)"
        ))
    };
    if policy.v03_header_ignored {
        let mut headers = headers.clone();
        headers.remove(HEADER_0_3);
        return enforce(policy, &headers, missing);
    }
    enforce(policy, headers, missing)
}

fn enforce(
    policy: &ExtensionPolicy,
    headers: &HeaderMap,
    missing: impl FnOnce() -> RpcError,
) -> Result<(), RpcError> {
    if !policy.required {
        return Ok(());
    }
    let requested = requested(policy, headers);
    if policy.unknown_rejected {
        if let Some(unknown) = requested.iter().find(|uri| *uri != REQUIRED_EXTENSION) {
            return Err(RpcError::invalid_request(format_args!(
                "unknown extension {unknown}"
            )));
        }
    }
    if activated(policy, &requested).is_empty() && !policy.required_not_enforced {
        return Err(missing());
    }
    Ok(())
}

/// Middleware: the response lists the extensions the request activated.
pub async fn echo(policy: ExtensionPolicy, request: Request, next: Next) -> Response {
    let activated = activated(&policy, &requested(&policy, request.headers()));
    let mut response = next.run(request).await;
    if !activated.is_empty() && !policy.not_echoed {
        if let Ok(value) = HeaderValue::from_str(&activated.join(",")) {
            // Both names: 0.3 clients read X-A2A-Extensions.
            if !policy.v03_not_echoed {
                response.headers_mut().insert(HEADER_0_3, value.clone());
            }
            response.headers_mut().insert(HEADER, value);
        }
    }
    response
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::config::AgentConfig;
    use crate::fault::Fault;

    fn policy(config: &AgentConfig) -> ExtensionPolicy {
        ExtensionPolicy::new(config)
    }

    fn headers(value: &str) -> HeaderMap {
        let mut headers = HeaderMap::new();
        headers.insert(HEADER, value.parse().unwrap());
        headers
    }

    #[test]
    fn required_extension_rules() {
        let config = AgentConfig {
            required_extension: true,
            ..AgentConfig::default()
        };
        assert!(check(&policy(&config), &HeaderMap::new()).is_err());
        assert!(check(&policy(&config), &headers(REQUIRED_EXTENSION)).is_ok());
        let both = format!("urn:unknown, {REQUIRED_EXTENSION}");
        assert!(check(&policy(&config), &headers(&both)).is_ok());
        let v2 = REQUIRED_EXTENSION.replace("/v1", "/v2");
        assert_eq!(
            check(&policy(&config), &headers(&v2)).unwrap_err().code,
            -32008
        );
        let downgrade = config.clone().with_fault(Fault::ExtensionVersionDowngrade);
        assert!(check(&policy(&downgrade), &headers(&v2)).is_ok());
        assert!(check(&policy(&AgentConfig::default()), &HeaderMap::new()).is_ok());
    }

    #[test]
    fn v03_reads_its_own_header() {
        let config = AgentConfig {
            required_extension: true,
            ..AgentConfig::default()
        };
        let mut x = HeaderMap::new();
        x.insert(HEADER_0_3, REQUIRED_EXTENSION.parse().unwrap());
        assert!(check_v03(&policy(&config), &x).is_ok());
        assert_eq!(
            check_v03(&policy(&config), &HeaderMap::new())
                .unwrap_err()
                .code,
            -32600
        );
        let ignored = config.with_fault(Fault::V03ExtensionsHeaderIgnored);
        assert!(check_v03(&policy(&ignored), &x).is_err());
        assert!(check_v03(&policy(&ignored), &headers(REQUIRED_EXTENSION)).is_ok());
    }
}

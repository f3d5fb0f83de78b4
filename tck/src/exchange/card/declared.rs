//! The interfaces a card declares (`supportedInterfaces`, or the 0.3 and pre-0.3 top-level
//! `url` with `preferredTransport` and `additionalInterfaces`), as declared and as the kit
//! tests them: the first declaration of each binding x version, with a usable URL.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::facts::model::{Binding, ProtocolVersion};

/// One entry of `supportedInterfaces`, as declared, with what the kit makes of it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub struct DeclaredInterface {
    /// The `protocolBinding` as declared (`JSONRPC`, `HTTP+JSON`, `GRPC`).
    pub protocol_binding: String,
    /// The `protocolVersion` as declared.
    pub protocol_version: String,
    /// The interface's `url` as declared.
    pub url: String,
    /// The `tenant` as declared, when present.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tenant: Option<String>,
    /// The binding the kit resolved, if it knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub binding: Option<Binding>,
    /// The version the kit resolved (patch ignored), if it knows it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub version: Option<ProtocolVersion>,
    /// Whether this run tests it, and if not why not.
    pub tested: bool,
    /// Why an interface is not tested (not selected, a binding the kit does not speak, ...).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// For a tested interface that did not answer usably: what its probe found. Every check
    /// on it is then ERROR with this reason.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// True when that problem is that the agent refused the probe for want of credentials
    /// (HTTP 401/403, gRPC UNAUTHENTICATED/PERMISSION_DENIED): the verdict is then
    /// `inconclusive` and names the flags that give them.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub needs_credentials: bool,
    /// When the agent serves another card to a 1.0 client (`target.versioned_card`) and
    /// only that card declares this interface: the `A2A-Version` that card was read with
    /// (`1.0`). Absent: the card read without the header declares it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub card_a2a_version: Option<ProtocolVersion>,
}

/// An interface the kit will test.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Interface {
    pub binding: Binding,
    pub version: ProtocolVersion,
    pub url: String,
    pub tenant: Option<String>,
}

/// The bindings this build of the kit can drive.
pub const SUPPORTED_BINDINGS: &[Binding] = &[Binding::Jsonrpc, Binding::Rest, Binding::Grpc];

/// Why an interface of a card that names no protocolVersion (the pre-0.3 shape: a top-level
/// `url`, no `supportedInterfaces`) is not tested, unless the user assumes a version.
pub const NO_PROTOCOL_VERSION: &str = "the card names no protocolVersion (the pre-0.3 shape: a \
    top-level url, no supportedInterfaces), so the kit does not know which version to speak \
    there; --assume-version 0.3 tests it as 0.3";

/// Reads `supportedInterfaces`; the first declaration of each binding x version is tested.
pub fn interfaces(card: &Value) -> (Vec<DeclaredInterface>, Vec<Interface>) {
    interfaces_assuming(card, None)
}

/// [`interfaces`], reading a card that names no protocolVersion (a top-level `url`, no
/// `supportedInterfaces`) as a card of `assume` (`--assume-version`; only 0.3 has that shape).
/// Without it, such a card's interfaces are declared, not tested ([`NO_PROTOCOL_VERSION`]).
pub fn interfaces_assuming(
    card: &Value,
    assume: Option<ProtocolVersion>,
) -> (Vec<DeclaredInterface>, Vec<Interface>) {
    let mut declared = Vec::new();
    let mut tested: Vec<Interface> = Vec::new();
    let entries = card
        .get("supportedInterfaces")
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    for entry in entries {
        let text = |k: &str| {
            entry
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        let protocol_binding = text("protocolBinding");
        let protocol_version = text("protocolVersion");
        let url = text("url");
        let tenant = entry
            .get("tenant")
            .and_then(Value::as_str)
            .filter(|t| !t.is_empty())
            .map(str::to_string);
        let binding = Binding::from_card(&protocol_binding);
        let version = ProtocolVersion::from_declared(&protocol_version);
        let reason = match (binding, version) {
            (None, _) => Some(format!(
                "binding {protocol_binding:?} is not one the kit knows"
            )),
            (Some(b), _) if !SUPPORTED_BINDINGS.contains(&b) => Some(format!(
                "the {b} binding is not implemented in this version of the kit"
            )),
            (_, None) => Some(format!(
                "protocol version {protocol_version:?} is not one the kit tests"
            )),
            (Some(b), Some(_)) if !usable_url(Some(b), &url) => {
                Some(format!("url {url:?} is not an absolute URL"))
            }
            (Some(b), Some(v)) if tested.iter().any(|i| i.binding == b && i.version == v) => {
                Some("an earlier entry declares the same binding and version".to_string())
            }
            _ => None,
        };
        if let (None, Some(b), Some(v)) = (&reason, binding, version) {
            tested.push(Interface {
                binding: b,
                version: v,
                url: url.clone(),
                tenant: tenant.clone(),
            });
        }
        declared.push(DeclaredInterface {
            protocol_binding,
            protocol_version,
            url,
            tenant,
            binding,
            version,
            tested: reason.is_none(),
            reason,
            problem: None,
            needs_credentials: false,
            card_a2a_version: None,
        });
    }
    // A 0.3 card (or the 0.3 half of a mixed card): `url` + `preferredTransport` +
    // `additionalInterfaces`, all of the top-level `protocolVersion` (spec notes §2.5). An
    // interface already declared in `supportedInterfaces` is not listed twice.
    let top_version = card
        .get("protocolVersion")
        .and_then(Value::as_str)
        .unwrap_or("");
    // No supportedInterfaces: the card's interfaces are its top-level url's.
    let top_level_only = declared.is_empty();
    let top = match ProtocolVersion::from_declared(top_version) {
        Some(version) => Some(version),
        None if top_level_only && top_version.trim().is_empty() => {
            assume.filter(|v| *v == ProtocolVersion::V0_3)
        }
        None => None,
    };
    let url = card.get("url").and_then(Value::as_str);
    if let (Some(url), true) = (url, top_level_only && top != Some(ProtocolVersion::V0_3)) {
        // The pre-0.3 shape (or a version the kit does not test), no version assumed: each
        // interface named, not tested.
        let reason = match top {
            _ if top_version.trim().is_empty() => NO_PROTOCOL_VERSION.to_string(),
            Some(version) => format!(
                "a {version} card declares its interfaces in supportedInterfaces; this one gives \
                 only a top-level url"
            ),
            None => format!("protocol version {top_version:?} is not one the kit tests"),
        };
        for (transport, url) in top_level_entries(card, url) {
            declared.push(DeclaredInterface {
                binding: Binding::from_card(&transport),
                protocol_binding: transport,
                protocol_version: top_version.to_string(),
                url,
                tenant: None,
                version: top,
                tested: false,
                reason: Some(reason.clone()),
                problem: None,
                needs_credentials: false,
                card_a2a_version: None,
            });
        }
    }
    if let (Some(ProtocolVersion::V0_3), Some(url)) = (top, url) {
        for (transport, url) in top_level_entries(card, url) {
            let binding = Binding::from_card(&transport);
            let seen = declared.iter().any(|d| {
                d.binding == binding
                    && d.version == Some(ProtocolVersion::V0_3)
                    && (d.url == url || binding.is_none())
            });
            if seen {
                continue;
            }
            let reason = match binding {
                None => Some(format!("transport {transport:?} is not one the kit knows")),
                Some(b) if !usable_url(Some(b), &url) => {
                    Some(format!("url {url:?} is not an absolute URL"))
                }
                Some(b)
                    if tested
                        .iter()
                        .any(|i| i.binding == b && i.version == ProtocolVersion::V0_3) =>
                {
                    Some("an earlier entry declares the same binding and version".to_string())
                }
                Some(_) => None,
            };
            if let (None, Some(b)) = (&reason, binding) {
                tested.push(Interface {
                    binding: b,
                    version: ProtocolVersion::V0_3,
                    url: url.clone(),
                    tenant: None,
                });
            }
            declared.push(DeclaredInterface {
                protocol_binding: transport,
                protocol_version: top_version.to_string(),
                url,
                tenant: None,
                binding,
                version: Some(ProtocolVersion::V0_3),
                tested: reason.is_none(),
                reason,
                problem: None,
                needs_credentials: false,
                card_a2a_version: None,
            });
        }
    }
    (declared, tested)
}

/// An absolute URL with a host; for gRPC also `host:port` (the proto's form).
pub fn usable_url(binding: Option<Binding>, url: &str) -> bool {
    let absolute = |u: &str| reqwest::Url::parse(u).is_ok_and(|u| u.has_host());
    if url.contains("://") {
        absolute(url)
    } else {
        binding == Some(Binding::Grpc) && absolute(&format!("http://{url}"))
    }
}

/// The interfaces a card declares at its top level (the 0.3 and pre-0.3 shapes): `url` with
/// `preferredTransport` (JSON-RPC when absent), then each of `additionalInterfaces`, as
/// (transport, url).
fn top_level_entries(card: &Value, url: &str) -> Vec<(String, String)> {
    let preferred = card
        .get("preferredTransport")
        .and_then(Value::as_str)
        .unwrap_or("JSONRPC");
    let mut entries = vec![(preferred.to_string(), url.to_string())];
    for extra in crate::facts::a2a::items(card, "additionalInterfaces") {
        let text = |k: &str| {
            extra
                .get(k)
                .and_then(Value::as_str)
                .unwrap_or("")
                .to_string()
        };
        entries.push((text("transport"), text("url")));
    }
    entries
}

//! Signing the Agent Card (spec 1.0 §8.4): a P-256 key made at startup, a detached-payload
//! JWS (ES256) over the RFC 8785 canonical form of the card without `signatures` and without
//! default-valued fields, and the JWK Set (`/.well-known/jwks.json`) its `jku` points at.
//! Faults break one rule each: a signature over other bytes, a header without `kid`, a `typ`
//! other than "JOSE", a JWK Set holding another key.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::{json, Map, Value};

/// Where the JWK Set is served.
pub const JWKS_PATH: &str = "/.well-known/jwks.json";

/// The key id of the card's signing key.
const KID: &str = "reference-agent-card-key";

pub use crate::policy::features::SigningFaults;

/// Fields of the card's messages that proto marks `optional`: kept even when they hold their
/// default value (§8.4.1). REQUIRED fields are kept too; the card has none at a default.
const OPTIONAL_FIELDS: &[&str] = &[
    "documentationUrl",
    "iconUrl",
    "streaming",
    "pushNotifications",
    "extendedAgentCard",
];

/// The card with default-valued fields removed (except `optional` ones), recursively.
fn without_defaults(value: &Value) -> Value {
    match value {
        Value::Object(map) => {
            let kept: Map<String, Value> = map
                .iter()
                .filter(|(key, v)| OPTIONAL_FIELDS.contains(&key.as_str()) || !is_default(v))
                .map(|(key, v)| (key.clone(), without_defaults(v)))
                .collect();
            Value::Object(kept)
        }
        Value::Array(items) => Value::Array(items.iter().map(without_defaults).collect()),
        other => other.clone(),
    }
}

fn is_default(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::Bool(b) => !b,
        Value::Number(n) => n.as_f64() == Some(0.0),
        Value::String(s) => s.is_empty(),
        Value::Array(a) => a.is_empty(),
        Value::Object(o) => o.is_empty(),
    }
}

/// The bytes that are signed: the RFC 8785 form of the card without `signatures` and
/// without default-valued fields.
pub fn canonical_payload(card: &Value) -> Vec<u8> {
    let mut card = card.clone();
    if let Some(map) = card.as_object_mut() {
        map.remove("signatures");
    }
    serde_jcs::to_vec(&without_defaults(&card)).unwrap_or_default()
}

/// The card's signing key, and the JWK Set served at [`JWKS_PATH`].
pub struct CardSigner {
    key: EcdsaKeyPair,
    jwks: String,
    faults: SigningFaults,
}

impl std::fmt::Debug for CardSigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CardSigner")
            .field("faults", &self.faults)
            .finish_non_exhaustive()
    }
}

fn generate() -> Result<EcdsaKeyPair, String> {
    let rng = SystemRandom::new();
    let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
        .map_err(|e| format!("cannot generate a P-256 key: {e}"))?;
    EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
        .map_err(|e| format!("cannot load the P-256 key: {e}"))
}

/// The public JWK of `key` (an uncompressed point 0x04 || x || y), named `kid`.
fn jwk(key: &EcdsaKeyPair, kid: &str) -> Value {
    let point = key.public_key().as_ref();
    let (x, y) = point.get(1..).unwrap_or_default().split_at(32);
    json!({
        "kty": "EC",
        "crv": "P-256",
        "x": URL_SAFE_NO_PAD.encode(x),
        "y": URL_SAFE_NO_PAD.encode(y),
        "kid": kid,
        "use": "sig",
        "alg": "ES256",
    })
}

impl CardSigner {
    /// A fresh key (random per start; the key id is fixed).
    pub fn new(faults: SigningFaults) -> Result<CardSigner, String> {
        let key = generate()?;
        // The unknown-key fault publishes another key, under another id.
        let published = if faults.unknown_key {
            jwk(&generate()?, "reference-agent-other-key")
        } else {
            jwk(&key, KID)
        };
        let jwks = json!({"keys": [published]}).to_string();
        Ok(CardSigner { key, jwks, faults })
    }

    /// The JWK Set document.
    pub fn jwks(&self) -> &str {
        &self.jwks
    }

    /// `card` with one signature in `signatures`; `jku` is the JWK Set's absolute URL.
    pub fn sign(&self, mut card: Value, jku: &str) -> Value {
        let mut header = Map::new();
        header.insert("alg".to_owned(), json!("ES256"));
        let typ = if self.faults.typ_jwt { "JWT" } else { "JOSE" };
        header.insert("typ".to_owned(), json!(typ));
        if !self.faults.no_kid {
            header.insert("kid".to_owned(), json!(KID));
        }
        header.insert("jku".to_owned(), json!(jku));
        let protected = URL_SAFE_NO_PAD.encode(Value::Object(header).to_string());
        let mut payload = canonical_payload(&card);
        if self.faults.bad_signature {
            payload.extend_from_slice(b" ");
        }
        let input = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(&payload));
        let rng = SystemRandom::new();
        let signature = self
            .key
            .sign(&rng, input.as_bytes())
            .map(|s| URL_SAFE_NO_PAD.encode(s.as_ref()))
            .unwrap_or_default();
        if let Some(map) = card.as_object_mut() {
            map.insert(
                "signatures".to_owned(),
                json!([{"protected": protected, "signature": signature}]),
            );
        }
        card
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use ring::signature::{UnparsedPublicKey, ECDSA_P256_SHA256_FIXED};

    #[test]
    fn signature_verifies_over_the_canonical_card_with_the_published_key() {
        let signer = CardSigner::new(SigningFaults::default()).unwrap();
        let card = json!({"name": "a", "skills": [], "capabilities": {"streaming": false}});
        let signed = signer.sign(card.clone(), "http://x/.well-known/jwks.json");
        let entry = &signed["signatures"][0];
        let payload = canonical_payload(&signed);
        assert_eq!(
            payload,
            br#"{"capabilities":{"streaming":false},"name":"a"}"#
        );
        let input = format!(
            "{}.{}",
            entry["protected"].as_str().unwrap(),
            URL_SAFE_NO_PAD.encode(&payload)
        );
        let jwks: Value = serde_json::from_str(signer.jwks()).unwrap();
        let key = &jwks["keys"][0];
        let mut point = vec![4u8];
        for c in ["x", "y"] {
            point.extend(URL_SAFE_NO_PAD.decode(key[c].as_str().unwrap()).unwrap());
        }
        let sig = URL_SAFE_NO_PAD
            .decode(entry["signature"].as_str().unwrap())
            .unwrap();
        UnparsedPublicKey::new(&ECDSA_P256_SHA256_FIXED, point)
            .verify(input.as_bytes(), &sig)
            .unwrap();
    }
}

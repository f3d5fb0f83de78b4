//! Agent card signatures (spec 1.0 §8.4): decoding an AgentCardSignature, the canonical
//! forms of a card (RFC 8785 via `serde_jcs`) a signature may cover, public keys from JWKs,
//! and verifying a detached-payload JWS with `ring`.

use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
use base64::Engine as _;
use ring::signature::{self as sig, UnparsedPublicKey};
use serde_json::{Map, Value};

/// One entry of the card's `signatures`, decoded as far as it goes.
#[derive(Debug, Clone)]
pub struct Signature {
    /// The `protected` member as sent (the JWS signing input starts with it).
    pub protected: String,
    /// The decoded protected header, or why it does not decode to a JSON object.
    pub header: Result<Map<String, Value>, String>,
    /// The decoded signature bytes, or why they do not decode.
    pub signature: Result<Vec<u8>, String>,
}

/// Base64url, padded or not (RFC 7515 asks for no padding; a padded value is still readable).
fn b64(text: &str) -> Result<Vec<u8>, String> {
    URL_SAFE_NO_PAD
        .decode(text)
        .or_else(|_| URL_SAFE.decode(text))
        .map_err(|e| format!("not base64url ({e})"))
}

impl Signature {
    pub fn parse(entry: &Value) -> Signature {
        let protected = entry
            .get("protected")
            .and_then(Value::as_str)
            .unwrap_or_default()
            .to_owned();
        let header = if protected.is_empty() {
            Err("`protected` is missing".to_owned())
        } else {
            b64(&protected).and_then(|bytes| match serde_json::from_slice(&bytes) {
                Ok(Value::Object(map)) => Ok(map),
                Ok(_) | Err(_) => Err(format!(
                    "does not decode to a JSON object: {}",
                    String::from_utf8_lossy(&bytes)
                )),
            })
        };
        let signature = match entry.get("signature").and_then(Value::as_str) {
            None | Some("") => Err("`signature` is missing".to_owned()),
            Some(text) => b64(text),
        };
        Signature {
            protected,
            header,
            signature,
        }
    }

    fn text(&self, field: &str) -> Option<String> {
        let header = self.header.as_ref().ok()?;
        header.get(field).and_then(Value::as_str).map(str::to_owned)
    }

    pub fn kid(&self) -> Option<String> {
        self.text("kid")
    }

    pub fn jku(&self) -> Option<String> {
        self.text("jku")
    }

    pub fn alg(&self) -> Option<String> {
        self.text("alg")
    }

    /// The decoded protected header as text, for evidence.
    pub fn header_text(&self) -> String {
        match &self.header {
            Ok(map) => Value::Object(map.clone()).to_string(),
            Err(e) => e.clone(),
        }
    }

    /// Whether the signature verifies over one of the card's canonical forms with one of
    /// `keys` (JWKs).
    pub fn verify_with_any(&self, card: &Value, keys: &[Value]) -> Outcome {
        let Some(alg) = self.alg() else {
            return Outcome::Unsupported("no alg in the protected header".into());
        };
        let Ok(signature) = &self.signature else {
            return Outcome::Mismatch;
        };
        let mut usable = 0;
        for key in keys {
            let Some(verifier) = verifier(&alg, key) else {
                continue;
            };
            usable += 1;
            for (form, payload) in canonical_forms(card) {
                let input = format!("{}.{}", self.protected, URL_SAFE_NO_PAD.encode(&payload));
                if verifier.verify(input.as_bytes(), signature) {
                    return Outcome::Verified { form };
                }
            }
        }
        if usable == 0 {
            return Outcome::Unsupported(format!(
                "alg {alg:?} with the key(s) found is not one the kit verifies (ES256, ES384, \
                 EdDSA/Ed25519, RS256/384/512, PS256/384/512)"
            ));
        }
        Outcome::Mismatch
    }
}

impl Signature {
    /// The names of every form of `card` ([`named_forms`]) the signature verifies over with
    /// one of `keys`; empty when none does or the kit cannot verify it.
    pub fn forms_verified(&self, card: &Value, keys: &[Value]) -> Vec<&'static str> {
        let (Some(alg), Ok(signature)) = (self.alg(), &self.signature) else {
            return Vec::new();
        };
        let verifiers: Vec<Verifier> = keys.iter().filter_map(|k| verifier(&alg, k)).collect();
        named_forms(card)
            .into_iter()
            .filter(|(_, payload)| {
                let input = format!("{}.{}", self.protected, URL_SAFE_NO_PAD.encode(payload));
                verifiers
                    .iter()
                    .any(|v| v.verify(input.as_bytes(), signature))
            })
            .map(|(name, _)| name)
            .collect()
    }
}

/// What verifying one signature came to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// It verifies over the named canonical form.
    Verified { form: &'static str },
    /// No key and form verify it.
    Mismatch,
    /// The kit cannot verify it (algorithm or key type).
    Unsupported(String),
}

/// The keys of a JWK Set that may have made a signature named `kid`: the one with that kid,
/// or every key when the header names none.
pub fn keys_for(keys: &[Value], kid: Option<&str>) -> Vec<Value> {
    keys.iter()
        .filter(|key| kid.is_none() || key.get("kid").and_then(Value::as_str) == kid)
        .cloned()
        .collect()
}

/// JSON names of the fields proto marks `optional` in the card's messages (§8.4.1 keeps them
/// when set, even at their default value).
const OPTIONAL: &[&str] = &[
    "documentationUrl",
    "iconUrl",
    "streaming",
    "pushNotifications",
    "extendedAgentCard",
];

/// JSON names of the fields proto marks REQUIRED in the card's messages (always kept).
const REQUIRED: &[&str] = &[
    "name",
    "description",
    "supportedInterfaces",
    "version",
    "capabilities",
    "defaultInputModes",
    "defaultOutputModes",
    "skills",
    "url",
    "protocolBinding",
    "protocolVersion",
    "organization",
    "id",
    "tags",
    "location",
    "scheme",
    "flows",
    "openIdConnectUrl",
    "authorizationUrl",
    "tokenUrl",
    "deviceAuthorizationUrl",
    "scopes",
];

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

/// `value` with default-valued members removed, except those `keep` names.
fn strip(value: &Value, keep: &dyn Fn(&str) -> bool) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.iter()
                .filter(|(name, v)| keep(name) || !is_default(v))
                .map(|(name, v)| (name.clone(), strip(v, keep)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.iter().map(|v| strip(v, keep)).collect()),
        other => other.clone(),
    }
}

/// The forms of `card` a signature may cover, each RFC 8785 canonical and without
/// `signatures`, the one §8.4.1 describes first (see the reading of card.signature.verifies);
/// a form whose bytes an earlier one already gives is left out.
pub fn canonical_forms(card: &Value) -> Vec<(&'static str, Vec<u8>)> {
    let mut out: Vec<(&'static str, Vec<u8>)> = Vec::new();
    for (name, bytes) in named_forms(card) {
        if !out.iter().any(|(_, b)| *b == bytes) {
            out.push((name, bytes));
        }
    }
    out
}

/// Every form of `card` a signature may cover, by name, RFC 8785 canonical and without
/// `signatures`; two names may give the same bytes (a card with no default-valued field).
pub fn named_forms(card: &Value) -> Vec<(&'static str, Vec<u8>)> {
    let mut card = card.clone();
    if let Some(map) = card.as_object_mut() {
        map.remove("signatures");
    }
    let presence = |name: &str| OPTIONAL.contains(&name) || REQUIRED.contains(&name);
    let optional = |name: &str| OPTIONAL.contains(&name);
    let forms: [(&'static str, Value); 4] = [
        (
            "defaults removed by proto presence",
            strip(&card, &presence),
        ),
        (
            "defaults removed except optional fields",
            strip(&card, &optional),
        ),
        (
            "every default-valued field removed",
            strip(&card, &|_| false),
        ),
        ("the card as served", card),
    ];
    forms
        .into_iter()
        .filter_map(|(name, form)| serde_jcs::to_vec(&form).ok().map(|bytes| (name, bytes)))
        .collect()
}

/// A verifier for `alg` with the public key `jwk`, when the kit supports both.
fn verifier(alg: &str, jwk: &Value) -> Option<Verifier> {
    let field = |name: &str| {
        jwk.get(name)
            .and_then(Value::as_str)
            .and_then(|t| b64(t).ok())
    };
    let kty = jwk.get("kty").and_then(Value::as_str)?;
    let crv = jwk.get("crv").and_then(Value::as_str);
    match (alg, kty, crv) {
        ("ES256", "EC", Some("P-256")) | ("ES384", "EC", Some("P-384")) => {
            let mut point = vec![4u8];
            point.extend(field("x")?);
            point.extend(field("y")?);
            let algorithm: &'static dyn sig::VerificationAlgorithm = if alg == "ES256" {
                &sig::ECDSA_P256_SHA256_FIXED
            } else {
                &sig::ECDSA_P384_SHA384_FIXED
            };
            Some(Verifier::Bytes(algorithm, point))
        }
        ("EdDSA" | "Ed25519", "OKP", Some("Ed25519")) => {
            Some(Verifier::Bytes(&sig::ED25519, field("x")?))
        }
        (_, "RSA", _) => {
            let params: &'static sig::RsaParameters = match alg {
                "RS256" => &sig::RSA_PKCS1_2048_8192_SHA256,
                "RS384" => &sig::RSA_PKCS1_2048_8192_SHA384,
                "RS512" => &sig::RSA_PKCS1_2048_8192_SHA512,
                "PS256" => &sig::RSA_PSS_2048_8192_SHA256,
                "PS384" => &sig::RSA_PSS_2048_8192_SHA384,
                "PS512" => &sig::RSA_PSS_2048_8192_SHA512,
                _ => return None,
            };
            Some(Verifier::Rsa(params, field("n")?, field("e")?))
        }
        _ => None,
    }
}

enum Verifier {
    Bytes(&'static dyn sig::VerificationAlgorithm, Vec<u8>),
    Rsa(&'static sig::RsaParameters, Vec<u8>, Vec<u8>),
}

impl Verifier {
    fn verify(&self, input: &[u8], signature: &[u8]) -> bool {
        match self {
            Verifier::Bytes(algorithm, key) => UnparsedPublicKey::new(*algorithm, key)
                .verify(input, signature)
                .is_ok(),
            Verifier::Rsa(params, n, e) => sig::RsaPublicKeyComponents { n, e }
                .verify(params, input, signature)
                .is_ok(),
        }
    }
}

/// The keys of a `--trusted-key` file: a JWK, or a JWK Set.
pub fn trusted_keys(text: &str) -> Result<Vec<Value>, String> {
    let value: Value = serde_json::from_str(text).map_err(|e| format!("not JSON: {e}"))?;
    match value.get("keys") {
        Some(Value::Array(keys)) => Ok(keys.clone()),
        Some(_) => Err("`keys` is not an array".into()),
        None if value.get("kty").is_some() => Ok(vec![value]),
        None => Err("neither a JWK (no `kty`) nor a JWK Set (no `keys`)".into()),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn forms_drop_signatures_and_defaults_by_presence() {
        let card = json!({
            "name": "a", "skills": [], "signatures": [{}], "iconUrl": "",
            "capabilities": {"streaming": false, "extensions": []}, "extra": false,
        });
        let forms = canonical_forms(&card);
        assert_eq!(
            String::from_utf8(forms[0].1.clone()).unwrap(),
            r#"{"capabilities":{"streaming":false},"iconUrl":"","name":"a","skills":[]}"#
        );
        assert!(forms
            .iter()
            .all(|(_, bytes)| !String::from_utf8_lossy(bytes).contains("signatures")));
    }

    /// A detached JWS over the first canonical form of `card`, signed by `sign`.
    fn sign(card: &Value, header: &Value, sign: impl Fn(&[u8]) -> Vec<u8>) -> Value {
        let protected = URL_SAFE_NO_PAD.encode(header.to_string());
        let payload = URL_SAFE_NO_PAD.encode(&canonical_forms(card)[0].1);
        let signature = sign(format!("{protected}.{payload}").as_bytes());
        json!({"protected": protected, "signature": URL_SAFE_NO_PAD.encode(signature)})
    }

    #[test]
    fn ed25519_signatures_verify_with_their_key_only() {
        let rng = ring::rand::SystemRandom::new();
        let pkcs8 = sig::Ed25519KeyPair::generate_pkcs8(&rng).unwrap();
        let pair = sig::Ed25519KeyPair::from_pkcs8(pkcs8.as_ref()).unwrap();
        let x = URL_SAFE_NO_PAD.encode(sig::KeyPair::public_key(&pair).as_ref());
        let jwk = json!({"kty": "OKP", "crv": "Ed25519", "x": x, "kid": "k"});
        let card = json!({"name": "a", "capabilities": {}});
        let header = json!({"alg": "EdDSA", "typ": "JOSE", "kid": "k"});
        let entry = sign(&card, &header, |input| pair.sign(input).as_ref().to_vec());
        let signature = Signature::parse(&entry);
        assert_eq!(signature.kid().as_deref(), Some("k"));
        let keys = keys_for(&trusted_keys(&jwk.to_string()).unwrap(), Some("k"));
        assert!(matches!(
            signature.verify_with_any(&card, &keys),
            Outcome::Verified { .. }
        ));
        let tampered = json!({"name": "b", "capabilities": {}});
        assert_eq!(
            signature.verify_with_any(&tampered, &keys),
            Outcome::Mismatch
        );
        let es = json!({"kty": "EC", "crv": "P-256", "x": "AA", "y": "AA"});
        assert!(matches!(
            signature.verify_with_any(&card, &[es]),
            Outcome::Unsupported(_)
        ));
    }

    #[test]
    fn trusted_key_files_are_a_jwk_or_a_set() {
        let jwk = json!({"kty": "EC", "kid": "k"});
        assert_eq!(trusted_keys(&jwk.to_string()).unwrap(), vec![jwk.clone()]);
        let set = json!({"keys": [jwk]}).to_string();
        assert_eq!(trusted_keys(&set).unwrap().len(), 1);
        assert!(trusted_keys("{}").is_err());
    }
}

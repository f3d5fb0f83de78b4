//! Signing a play's card (spec 1.0 §8.4): a P-256 key made for the run, and a detached-payload
//! JWS (ES256) over one canonical form of the card. §8.4.1 keeps REQUIRED fields that hold
//! their default value; §8.4.2 and §8.4.3 say to remove "properties with default values"; a play
//! that signs a card with REQUIRED fields at their defaults carries one signature per reading
//! (REQUIRED and `optional` fields kept; only `optional` ones kept; none kept), so a verifier
//! that follows any of them verifies one.

use base64::engine::general_purpose::URL_SAFE_NO_PAD;
use base64::Engine as _;
use ring::rand::SystemRandom;
use ring::signature::{EcdsaKeyPair, KeyPair as _, ECDSA_P256_SHA256_FIXED_SIGNING};
use serde_json::{json, Value};

/// The canonical form §8.4.1 describes: defaults removed but for REQUIRED and `optional` fields.
pub const PRESENCE_FORM: &str = "defaults removed by proto presence";
/// §8.4.1's rule for `optional` fields with §8.4.3's removal of the other defaults, REQUIRED
/// ones included (a2a-sdk's verifier, measured).
pub const EXCEPT_OPTIONAL_FORM: &str = "defaults removed except optional fields";
/// The form §8.4.2 and §8.4.3 read literally: every default-valued field removed.
pub const NO_DEFAULTS_FORM: &str = "every default-valued field removed";

/// The key id of the play signer's key.
pub const KID: &str = "a2a-tck-client-plays";

/// The run's signing key.
pub struct PlaySigner {
    key: EcdsaKeyPair,
}

impl std::fmt::Debug for PlaySigner {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlaySigner")
    }
}

impl PlaySigner {
    /// A fresh P-256 key.
    pub fn new() -> Result<PlaySigner, String> {
        let rng = SystemRandom::new();
        let pkcs8 = EcdsaKeyPair::generate_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, &rng)
            .map_err(|e| format!("cannot make a P-256 key: {e}"))?;
        let key = EcdsaKeyPair::from_pkcs8(&ECDSA_P256_SHA256_FIXED_SIGNING, pkcs8.as_ref(), &rng)
            .map_err(|e| format!("cannot load the P-256 key: {e}"))?;
        Ok(PlaySigner { key })
    }

    /// The JWK Set a client is given to trust.
    pub fn jwks(&self) -> Value {
        let point = self.key.public_key().as_ref();
        let (x, y) = point.get(1..).unwrap_or_default().split_at(32);
        json!({"keys": [{
            "kty": "EC",
            "crv": "P-256",
            "x": URL_SAFE_NO_PAD.encode(x),
            "y": URL_SAFE_NO_PAD.encode(y),
            "kid": KID,
            "alg": "ES256",
            "use": "sig",
        }]})
    }

    /// One AgentCardSignature over the canonical `form` of `card` (`signatures` left out).
    pub fn signature(&self, card: &Value, form: &str) -> Value {
        let payload = (crate::facts::jws::canonical_forms(card).into_iter())
            .find(|(name, _)| *name == form)
            .or_else(|| crate::facts::jws::canonical_forms(card).into_iter().next())
            .map(|(_, bytes)| bytes)
            .unwrap_or_default();
        let header = json!({"alg": "ES256", "typ": "JOSE", "kid": KID});
        let protected = URL_SAFE_NO_PAD.encode(header.to_string());
        let input = format!("{protected}.{}", URL_SAFE_NO_PAD.encode(&payload));
        let signature = (self.key.sign(&SystemRandom::new(), input.as_bytes()))
            .map(|s| URL_SAFE_NO_PAD.encode(s.as_ref()))
            .unwrap_or_default();
        json!({"protected": protected, "signature": signature})
    }

    /// `card` signed as `how` says (each with an empty `capabilities.extensions`, which every
    /// reading leaves out): `valid` (a security scheme declared, one signature over the §8.4.1
    /// form), `broken` (one valid signature, then a security scheme added), `defaults` (its
    /// description emptied, a REQUIRED field at its default, and one signature per reading).
    pub fn sign(&self, mut card: Value, how: &str) -> Value {
        // A repeated field that is not REQUIRED, empty: every reading leaves it out of the
        // canonical form (§8.4.1's example: `extensions: []`), the card as served has it.
        if let Some(capabilities) = card.get_mut("capabilities").and_then(Value::as_object_mut) {
            capabilities.entry("extensions").or_insert(json!([]));
        }
        match how {
            "defaults" => card["description"] = json!(""),
            "valid" => card["securitySchemes"] = schemes(),
            _ => {}
        }
        let signatures = match how {
            "defaults" => {
                let forms = crate::facts::jws::canonical_forms(&card);
                [PRESENCE_FORM, EXCEPT_OPTIONAL_FORM, NO_DEFAULTS_FORM]
                    .into_iter()
                    .filter(|form| forms.iter().any(|(name, _)| name == form))
                    .map(|form| self.signature(&card, form))
                    .collect()
            }
            _ => vec![self.signature(&card, PRESENCE_FORM)],
        };
        if how == "broken" {
            // A security-relevant change: a scheme declared after the card was signed.
            card["securitySchemes"] = schemes();
        }
        card["signatures"] = json!(signatures);
        card
    }
}

/// The security scheme a signed play declares (a bearer token; no request needs it).
fn schemes() -> Value {
    json!({"bearer": {"httpAuthSecurityScheme": {"scheme": "Bearer"}}})
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::facts::jws::{Outcome, Signature};

    fn card() -> Value {
        json!({"name": "n", "description": "d", "version": "1", "skills": [{"id": "s", "name": "s", "description": "", "tags": []}],
               "capabilities": {"streaming": true}, "defaultInputModes": ["text/plain"], "defaultOutputModes": ["text/plain"]})
    }

    #[test]
    fn valid_and_default_cards_verify_and_a_broken_one_does_not() {
        let signer = PlaySigner::new().unwrap();
        let keys = signer.jwks()["keys"].as_array().unwrap().clone();
        let verifies = |card: &Value| {
            (card["signatures"].as_array().unwrap().iter())
                .map(|entry| Signature::parse(entry).verify_with_any(card, &keys))
                .collect::<Vec<_>>()
        };
        let valid = signer.sign(card(), "valid");
        assert!(matches!(verifies(&valid)[0], Outcome::Verified { .. }));
        let broken = signer.sign(card(), "broken");
        assert_eq!(verifies(&broken), vec![Outcome::Mismatch]);
        let defaults = signer.sign(card(), "defaults");
        assert_eq!(defaults["description"], "");
        let outcomes = verifies(&defaults);
        assert!(outcomes.len() >= 2, "{outcomes:?}");
        assert_eq!(
            outcomes[0],
            Outcome::Verified {
                form: PRESENCE_FORM
            }
        );
        assert!(outcomes
            .iter()
            .all(|o| matches!(o, Outcome::Verified { .. })));
    }
}

//! The API-key stamp, the value of `Service-Wallet-Signature`:
//! base64url (no padding) of the compact JSON
//! `{"publicKey":"<compressed hex>","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"<DER hex>"}`
//! where the signature is ECDSA P-256 (no low-S normalisation) over SHA-256 of the exact
//! UTF-8 bytes of the payload, with a hedged RFC 6979 nonce (so two stamps of one payload
//! differ) and verified before it is returned ([`crate::signing_key`]): each function
//! here that signs is `ENGINE_FAULT` rather than return a signature that does not verify.

use crate::prelude::*;
use p256::ecdsa::Signature;
#[cfg(any(test, feature = "service"))]
use p256::ecdsa::SigningKey;
use p256::PublicKey;

use crate::codec::{base64url_encode, hex_encode};
use crate::ecdsa_der::{self, DerSignature};
use crate::error::Result;
use crate::signing_key::SigningKey as KitSigningKey;

/// The `scheme` of every stamp.
pub const STAMP_SCHEME: &str = "SIGNATURE_SCHEME_TK_API_P256";

#[cfg(any(test, feature = "service"))]
/// DER-encoded signature over SHA-256 of `payload`, byte for byte as given.
pub fn sign_der(key: &SigningKey, payload: &str) -> Result<DerSignature> {
    Ok(ecdsa_der::encode(
        &KitSigningKey::from(key).sign(payload.as_bytes())?,
    ))
}

#[cfg(any(test, feature = "service"))]
/// The stamp JSON text for `payload`, before base64url.
pub fn stamp_json(key: &SigningKey, payload: &str) -> Result<String> {
    stamp_json_with(&KitSigningKey::from(key), payload)
}

fn stamp_json_with(key: &KitSigningKey, payload: &str) -> Result<String> {
    Ok(stamp_json_of(
        key.public_key(),
        &ecdsa_der::encode(&key.sign(payload.as_bytes())?),
    ))
}

/// The stamp JSON text naming `public` as the signer of `signature`.
fn stamp_json_of(public: &PublicKey, signature: &DerSignature) -> String {
    // Every value is lowercase hex or a constant, so no JSON escaping is ever needed.
    let mut json = String::with_capacity(256);
    json.push_str(r#"{"publicKey":""#);
    json.push_str(&crate::public_key::compressed_hex(public));
    json.push_str(r#"","scheme":""#);
    json.push_str(STAMP_SCHEME);
    json.push_str(r#"","signature":""#);
    json.push_str(&hex_encode(signature.as_bytes()));
    json.push_str(r#""}"#);
    json
}

#[cfg(any(test, feature = "service"))]
/// The `Service-Wallet-Signature` header value for `payload`.
pub fn stamp(key: &SigningKey, payload: &str) -> Result<String> {
    stamp_with(&KitSigningKey::from(key), payload)
}

/// [`stamp`] with the kit's own signing key (sessions and the OTP login's TEK).
pub(crate) fn stamp_with(key: &KitSigningKey, payload: &str) -> Result<String> {
    Ok(base64url_encode(stamp_json_with(key, payload)?.as_bytes()))
}

/// The header value for a signature made elsewhere (WebCrypto, for the session store)
/// by the key whose public half is `public`. The caller is trusted to have signed the
/// payload with that key; [`verify_stamp`] checks a stamp against its payload.
pub fn stamp_from_signature(public: &PublicKey, signature: &Signature) -> String {
    base64url_encode(stamp_json_of(public, &ecdsa_der::encode(signature)).as_bytes())
}

#[cfg(all(feature = "json", any(test, feature = "service")))]
mod verify {
    use p256::ecdsa::signature::Verifier as _;
    use p256::ecdsa::VerifyingKey;

    use crate::codec::{base64url_decode, hex_decode};
    use crate::error::{Error, ErrorCode, Result};
    use crate::public_key::parse_public_key_hex;

    /// A decoded stamp.
    #[derive(Clone, Debug, PartialEq, Eq)]
    pub struct DecodedStamp {
        /// Compressed public key, hex.
        pub public_key: String,
        /// The scheme string.
        pub scheme: String,
        /// DER signature, hex.
        pub signature: String,
    }

    /// Decodes a stamp header (tolerating `=` padding) into its three fields.
    pub fn decode_stamp(header: &str) -> Result<DecodedStamp> {
        let bad = |why: &str| Error::new(ErrorCode::InvalidInput, ["stamp ", why].concat());
        let json = base64url_decode(header).ok_or_else(|| bad("is not base64url"))?;
        let value: serde_json::Value =
            serde_json::from_slice(&json).map_err(|_| bad("is not JSON"))?;
        let field = |name: &str| {
            value
                .get(name)
                .and_then(|v| v.as_str())
                .map(str::to_owned)
                .ok_or_else(|| bad(&["has no string field ", name].concat()))
        };
        Ok(DecodedStamp {
            public_key: field("publicKey")?,
            scheme: field("scheme")?,
            signature: field("signature")?,
        })
    }

    /// Verifies a stamp over `payload`, as the service does. Accepts both `s` and `n − s`.
    /// Returns the verified stamp; its `public_key` is the signer's key in lowercase
    /// compressed form, however the stamp spelled it.
    pub fn verify_stamp(header: &str, payload: &str) -> Result<DecodedStamp> {
        let stamp = decode_stamp(header)?;
        if stamp.scheme != super::STAMP_SCHEME {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "stamp scheme is not SIGNATURE_SCHEME_TK_API_P256",
            ));
        }
        let key = parse_public_key_hex(&stamp.public_key, "stamp publicKey")?;
        let der = hex_decode(&stamp.signature)
            .ok_or_else(|| Error::new(ErrorCode::InvalidInput, "stamp signature is not hex"))?;
        let signature = crate::ecdsa_der::decode(&der)
            .ok_or_else(|| Error::new(ErrorCode::InvalidInput, "stamp signature is not DER"))?;
        VerifyingKey::from(&key)
            .verify(payload.as_bytes(), &signature)
            .map_err(|_| Error::new(ErrorCode::Unauthorized, "stamp signature does not verify"))?;
        // Name the signer in one canonical form, whatever case or encoding it was sent in.
        Ok(DecodedStamp {
            public_key: crate::public_key::compressed_hex(&key),
            ..stamp
        })
    }
}

#[cfg(all(feature = "json", any(test, feature = "service")))]
pub use verify::{decode_stamp, verify_stamp, DecodedStamp};

#[cfg(all(test, feature = "json"))]
mod tests {
    use super::*;
    use crate::codec::base64url_decode;
    use crate::error::ErrorCode;
    use crate::signing_key::{deterministic, fault};
    use crate::test_vectors::{hex, vectors};
    use p256::elliptic_curve::sec1::ToSec1Point;
    use proptest::prelude::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn key(hex_text: &str) -> SigningKey {
        SigningKey::from_slice(&hex(hex_text)).unwrap()
    }

    /// The vectors pin RFC 6979's deterministic nonces: through the test-only
    /// deterministic path (empty additional data), byte for byte.
    #[test]
    fn deterministic_stamp_vectors_are_byte_identical() {
        let v = vectors("api-key-stamps.json");
        let cases = v["deterministicStamps"].as_array().unwrap();
        assert_eq!(cases.len(), 10);
        for case in cases {
            let id = case["id"].as_str().unwrap();
            let k = key(case["privateKeyHex"].as_str().unwrap());
            let payload = case["payloadUtf8"].as_str().unwrap();
            deterministic::with(|| {
                assert_eq!(
                    hex_encode(sign_der(&k, payload).unwrap().as_bytes()),
                    case["signatureDerHex"].as_str().unwrap(),
                    "{id}"
                );
                assert_eq!(
                    stamp_json(&k, payload).unwrap(),
                    case["stampJson"].as_str().unwrap(),
                    "{id}"
                );
                assert_eq!(
                    stamp(&k, payload).unwrap(),
                    case["stampHeaderValue"].as_str().unwrap(),
                    "{id}"
                );
            });
            // The shipped (hedged) stamp is another one, and verifies.
            let hedged = stamp(&k, payload).unwrap();
            assert_ne!(hedged, case["stampHeaderValue"].as_str().unwrap(), "{id}");
            verify_stamp(&hedged, payload).unwrap();
            // The other-s form verifies too (services must accept either).
            let other = case["otherSFormDerHex"].as_str().unwrap();
            let header = base64url_encode(
                format!(
                    r#"{{"publicKey":"{}","scheme":"{STAMP_SCHEME}","signature":"{other}"}}"#,
                    case["publicKeyCompressedHex"].as_str().unwrap()
                )
                .as_bytes(),
            );
            verify_stamp(&header, payload).unwrap();
        }
    }

    #[test]
    fn key_vectors_derive_their_public_keys() {
        let v = vectors("api-key-stamps.json");
        for case in v["keys"].as_array().unwrap() {
            let k = key(case["privateKeyHex"].as_str().unwrap());
            let p = k.verifying_key().as_affine();
            assert_eq!(
                hex_encode(p.to_sec1_point(true).as_bytes()),
                case["publicKeyCompressedHex"].as_str().unwrap()
            );
            assert_eq!(
                hex_encode(p.to_sec1_point(false).as_bytes()),
                case["publicKeyUncompressedHex"].as_str().unwrap()
            );
        }
    }

    #[test]
    fn published_tkcli_stamp_verifies() {
        let v = vectors("api-key-stamps.json");
        let p = &v["publishedStamp"];
        let header = p["stampHeaderValue"].as_str().unwrap();
        let payload = p["payloadUtf8"].as_str().unwrap();
        let decoded = verify_stamp(header, payload).unwrap();
        assert_eq!(decoded.scheme, STAMP_SCHEME);
        assert!(verify_stamp(header, &format!("{payload} ")).is_err());
    }

    #[test]
    fn negative_stamp_vectors() {
        let v = vectors("api-key-stamps.json");
        for case in v["negative"].as_array().unwrap() {
            let header = case["stampHeaderValue"].as_str().unwrap();
            let payload = case["payloadUtf8"].as_str().unwrap();
            match case["id"].as_str().unwrap() {
                "payload-mismatch" => {
                    let err = verify_stamp(header, payload).unwrap_err();
                    assert_eq!(err.code(), ErrorCode::Unauthorized);
                }
                "padded-base64url" => {
                    assert!(header.ends_with('='));
                    // Decoders may tolerate padding; our own stamps never carry it.
                    let decoded = decode_stamp(header).unwrap();
                    let k = v["keys"][0]["privateKeyHex"].as_str().unwrap();
                    assert!(!stamp(&key(k), payload).unwrap().contains('='));
                    assert_eq!(decoded.scheme, STAMP_SCHEME);
                }
                other => panic!("unhandled negative vector {other}"),
            }
        }
    }

    fn decoded_keys_in_order(header: &str) -> Vec<String> {
        let json = base64url_decode(header).unwrap();
        let value: serde_json::Value = serde_json::from_slice(&json).unwrap();
        // serde_json (without preserve_order) sorts keys, so check order on the raw text.
        let text = String::from_utf8(json).unwrap();
        let keys: Vec<String> = value.as_object().unwrap().keys().cloned().collect();
        let mut positions: Vec<(usize, String)> = keys
            .into_iter()
            .map(|k| (text.find(&format!("\"{k}\":")).unwrap(), k))
            .collect();
        positions.sort();
        positions.into_iter().map(|(_, k)| k).collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn stamps_verify_for_any_payload(
            secret in proptest::array::uniform32(1u8..),
            payload in prop_oneof![
                ".*",
                "\\PC*",
                "[ \t\r\n]{0,4}[\\p{Emoji}a-z\"\\\\{}:,]{0,64}[ \t\r\n]{0,4}",
                Just(String::new()),
                Just("\0".to_string()),
                Just("a\r\nb\0c\u{1F600}".to_string()),
            ],
        ) {
            let k = SigningKey::from_slice(&secret).unwrap();
            let header = stamp(&k, &payload).unwrap();
            prop_assert!(!header.contains('='));
            let decoded = verify_stamp(&header, &payload).unwrap();
            prop_assert_eq!(decoded_keys_in_order(&header), ["publicKey", "scheme", "signature"]);
            prop_assert_eq!(
                base64url_decode(&header).unwrap(),
                format!(
                    r#"{{"publicKey":"{}","scheme":"{STAMP_SCHEME}","signature":"{}"}}"#,
                    decoded.public_key, decoded.signature
                ).into_bytes()
            );
            // A different payload (even by trailing whitespace) does not verify.
            let changed = format!("{payload} ");
            prop_assert!(verify_stamp(&header, &changed).is_err());
        }
    }

    #[test]
    fn one_megabyte_payload_stamps_and_verifies() {
        let k = key(&"11".repeat(32));
        let payload: String = "é{\"a\":1}\r\n".repeat(100_000);
        assert!(payload.len() >= 1_000_000);
        let header = stamp(&k, &payload).unwrap();
        verify_stamp(&header, &payload).unwrap();
        let mut changed = payload.clone();
        changed.push(' ');
        assert!(verify_stamp(&header, &changed).is_err());
    }

    #[test]
    fn two_stamps_of_one_payload_differ_and_both_verify() {
        let k = key(&"22".repeat(32));
        let (a, b) = (stamp(&k, "{}").unwrap(), stamp(&k, "{}").unwrap());
        assert_ne!(a, b);
        assert_eq!(verify_stamp(&a, "{}").unwrap(), decode_stamp(&a).unwrap());
        verify_stamp(&b, "{}").unwrap();
    }

    #[test]
    fn a_faulty_signature_is_engine_fault_not_a_stamp() {
        let k = key(&"33".repeat(32));
        fault::corrupt_next_signatures(1);
        assert_eq!(stamp(&k, "p").unwrap_err().code(), ErrorCode::EngineFault);
        fault::corrupt_next_signatures(1);
        assert_eq!(
            sign_der(&k, "p").err().map(|e| e.code()),
            Some(ErrorCode::EngineFault)
        );
        // The caller's p256 key is its own: the next stamp (no fault) verifies.
        verify_stamp(&stamp(&k, "p").unwrap(), "p").unwrap();
    }
}

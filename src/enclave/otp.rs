//! Encrypted OTP (newer API versions): `/challenge` returns
//! `otpEncryptionTargetBundle`, a signed enclave envelope whose data names the enclave's
//! HPKE key `targetPublic`; the client seals the compact JSON
//! `{"otp_code":"…","public_key":"…"}` to it and sends the result as a string. The key
//! whose public half goes in `public_key` (the TEK, compressed SEC1 hex: production
//! refuses the uncompressed form) then signs the second leg and becomes the session key
//! (`Session::from_client_key`).

use crate::prelude::*;
use p256::elliptic_curve::sec1::ToSec1Point;

use crate::bundle::seal_raw;
use crate::client_key::ClientKey;
use crate::codec::hex_encode;
#[cfg(feature = "json")]
use crate::enclave::{SignerPin, VerifiedEnvelope};
use crate::error::{Error, ErrorCode, Result};
use crate::fields::{required, Fields};
use crate::message::{PendingSignature, SignedRetryHeaders};
use crate::public_key::parse_public_key_hex;
use crate::timestamp::UnixMillis;

/// The longest OTP accepted (codes are 6–8 digits; this only bounds hostile input).
const MAX_OTP_LEN: usize = 64;

/// Tolerates the documented quirk of the bundle arriving wrapped in single quotes.
pub fn unquote_target_bundle(text: &str) -> &str {
    let t = text.trim();
    t.strip_prefix('\'')
        .and_then(|t| t.strip_suffix('\''))
        .unwrap_or(t)
}

/// Seals `otp` for the enclave named by a verified target bundle's data (`targetPublic`),
/// binding `tek`'s public key (compressed: production answers an uncompressed `public_key`
/// with 400 INVALID_INPUT "Invalid wallet request."). Returns the `encryptedOtpBundle` string:
/// `{"encappedPublic":"<65-byte hex>","ciphertext":"<hex>"}`.
pub fn encrypt_otp(target_data: &dyn Fields, otp: &str, tek: &ClientKey) -> Result<String> {
    tek.check_unused()?;
    if otp.is_empty() || otp.len() > MAX_OTP_LEN || otp.chars().any(char::is_control) {
        // The code itself is never put in a message.
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "otp must be 1 to 64 printable characters",
        ));
    }
    let target_hex = required(
        target_data,
        "targetPublic",
        ErrorCode::InvalidBundle,
        "OTP target bundle data",
    )?;
    let target = parse_public_key_hex(&target_hex, "OTP target bundle targetPublic")?;
    let public_key = tek.compressed_public_key_hex();
    let parts = [
        JsonPart::Raw("{\"otp_code\":"),
        JsonPart::Str(otp),
        JsonPart::Raw(",\"public_key\":"),
        JsonPart::Str(&public_key),
        JsonPart::Raw("}"),
    ];
    // The code is escaped straight into a buffer sized exactly by a first pass: a buffer
    // that grew (escaping lengthens `"` and `\`) would free an unwiped copy of it.
    let capacity = parts.iter().map(JsonPart::len).sum();
    let mut plaintext = zeroize::Zeroizing::new(String::with_capacity(capacity));
    for part in &parts {
        part.write(&mut plaintext);
    }
    debug_assert!(
        plaintext.capacity() == capacity,
        "the plaintext buffer grew"
    );
    let (enc, ciphertext) = seal_raw(&target, plaintext.as_bytes())?;
    Ok([
        r#"{"encappedPublic":""#,
        &hex_encode(enc.to_sec1_point(false).as_bytes()),
        r#"","ciphertext":""#,
        &hex_encode(&ciphertext),
        r#""}"#,
    ]
    .concat())
}

/// A piece of the OTP plaintext: JSON text as is, or a string to write as a JSON string.
enum JsonPart<'a> {
    Raw(&'a str),
    Str(&'a str),
}

impl JsonPart<'_> {
    /// The escape of `c` inside a JSON string, if it needs one (as `json_string` writes it).
    fn escape(c: char) -> Option<&'static str> {
        Some(match c {
            '"' => "\\\"",
            '\\' => "\\\\",
            '\n' => "\\n",
            '\r' => "\\r",
            '\t' => "\\t",
            _ => return None,
        })
    }

    /// Bytes written by [`JsonPart::write`].
    fn len(&self) -> usize {
        match self {
            Self::Raw(text) => text.len(),
            Self::Str(text) => {
                2 + text
                    .chars()
                    .map(|c| match Self::escape(c) {
                        Some(escaped) => escaped.len(),
                        None if (c as u32) < 0x20 => 6,
                        None => c.len_utf8(),
                    })
                    .sum::<usize>()
            }
        }
    }

    fn write(&self, out: &mut String) {
        match self {
            Self::Raw(text) => out.push_str(text),
            Self::Str(text) => {
                out.push('"');
                for c in text.chars() {
                    match Self::escape(c) {
                        Some(escaped) => out.push_str(escaped),
                        None if (c as u32) < 0x20 => {
                            const HEX: &[u8; 16] = b"0123456789abcdef";
                            out.push_str("\\u00");
                            out.push(HEX[c as usize >> 4] as char);
                            out.push(HEX[c as usize & 15] as char);
                        }
                        None => out.push(c),
                    }
                }
                out.push('"');
            }
        }
    }
}

/// Signs the OTP login's 202 (the second leg of verify) with the TEK, whose public half
/// went in `public_key`: there is no session yet, so the TEK stamps it directly. Refuses
/// an expired 202 (`REQUEST_EXPIRED`) and a requestId it signed before
/// (`REQUEST_ALREADY_SIGNED`, remembered into its session); the TEK stays usable, it
/// becomes the session key.
pub fn sign_with_tek(
    tek: &mut ClientKey,
    pending: &PendingSignature,
    now: UnixMillis,
) -> Result<SignedRetryHeaders> {
    tek.secret()?;
    crate::inspect::check_signable(&pending.payload_to_sign, ErrorCode::InvalidPendingSignature)?;
    if now >= pending.expires_at_ms {
        return Err(Error::new(
            ErrorCode::RequestExpired,
            "the 202's expiresAt has passed; request a new OTP and verify again",
        ));
    }
    tek.record_signed_request(&pending.request_id, now)?;
    let secret = tek.secret()?;
    // SigningKey zeroizes its copy of the secret when dropped.
    let key = crate::signing_key::SigningKey::with_public(secret.clone(), *tek.public_key());
    let signature = crate::stamp::stamp_with(&key, &pending.payload_to_sign);
    if key.is_poisoned() {
        // The copy is wiped; so is the TEK it came from.
        tek.poison();
    }
    Ok(SignedRetryHeaders {
        signature: signature?,
        request_id: pending.request_id.clone(),
    })
}

/// Verifies an `otpEncryptionTargetBundle` (JSON text, single quotes tolerated) under
/// `pin` and seals `otp` to it (native convenience).
#[cfg(feature = "json")]
pub fn encrypt_otp_json(
    target_bundle: &str,
    otp: &str,
    tek: &ClientKey,
    pin: &SignerPin,
) -> Result<String> {
    let what = "OTP target bundle";
    let envelope = crate::fields::parse_object(
        unquote_target_bundle(target_bundle),
        ErrorCode::InvalidBundle,
        what,
    )?;
    let verified = VerifiedEnvelope::verify(&envelope, pin, what)?;
    let data = crate::fields::parse_object(
        verified.data_text()?,
        ErrorCode::InvalidBundle,
        "OTP target bundle data",
    )?;
    encrypt_otp(&data, otp, tek)
}

#[cfg(all(test, feature = "json"))]
mod tests {
    use super::*;
    use crate::codec::hex_decode;
    use crate::enclave::PRODUCTION_TLS_FETCHER_PUBLIC_KEY;
    use crate::public_key::compressed_hex;
    use p256::ecdsa::signature::Signer as _;
    use p256::ecdsa::{DerSignature, SigningKey};
    use p256::{PublicKey, SecretKey};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    /// A throwaway enclave: its HPKE key and its signing key, and a target bundle it signed.
    fn enclave() -> (SecretKey, SigningKey, String) {
        let target = SecretKey::from_slice(&[0x51; 32]).unwrap();
        let signer = SigningKey::from_slice(&[0x52; 32]).unwrap();
        let data = format!(
            r#"{{"organizationId":"org","targetPublic":"{}"}}"#,
            crate::public_key::uncompressed_hex(&target.public_key())
        );
        let signature: DerSignature = signer.sign(data.as_bytes());
        let bundle = format!(
            r#"{{"version":"v1.0.0","data":"{}","dataSignature":"{}","enclaveQuorumPublic":"{}"}}"#,
            hex_encode(data.as_bytes()),
            hex_encode(signature.as_bytes()),
            crate::public_key::uncompressed_hex(&PublicKey::from(signer.verifying_key()))
        );
        (target, signer, bundle)
    }

    /// The enclave's side, through the independent `hpke` crate (a dev-dependency): opens
    /// an `encryptedOtpBundle` with the enclave's key and returns the plaintext text.
    fn open_text(enclave: &SecretKey, sealed: &str) -> String {
        use hpke::{aead::AesGcm256, kdf::HkdfSha256, kem::DhP256HkdfSha256, Deserializable};
        type Kem = DhP256HkdfSha256;
        let v: serde_json::Value = serde_json::from_str(sealed).unwrap();
        assert_eq!(
            v.as_object().unwrap().keys().collect::<Vec<_>>(),
            ["ciphertext", "encappedPublic"]
        );
        assert!(
            sealed.starts_with(r#"{"encappedPublic":"04"#),
            "compact, encappedPublic first: {sealed}"
        );
        let enc = hex_decode(v["encappedPublic"].as_str().unwrap()).unwrap();
        let ct = hex_decode(v["ciphertext"].as_str().unwrap()).unwrap();
        // The aad is enc ‖ the enclave's public key, both uncompressed (protocol notes §1.3).
        let aad = [
            &enc[..],
            enclave.public_key().to_sec1_point(false).as_bytes(),
        ]
        .concat();
        let pt = hpke::single_shot_open::<AesGcm256, HkdfSha256, Kem>(
            &hpke::OpModeR::Base,
            &<Kem as hpke::Kem>::PrivateKey::from_bytes(&enclave.to_bytes()[..]).unwrap(),
            &<Kem as hpke::Kem>::EncappedKey::from_bytes(&enc).unwrap(),
            crate::bundle::HPKE_INFO,
            &ct,
            &aad,
        )
        .unwrap();
        String::from_utf8(pt).unwrap()
    }

    fn open(enclave: &SecretKey, sealed: &str) -> serde_json::Value {
        let text = open_text(enclave, sealed);
        assert!(text.starts_with(r#"{"otp_code":"#), "key order: {text}");
        serde_json::from_str(&text).unwrap()
    }

    #[test]
    fn round_trip_with_a_throwaway_enclave() {
        let (enclave_key, signer, bundle) = enclave();
        let tek = ClientKey::generate().unwrap();
        let pin = SignerPin::Key(crate::public_key::uncompressed_hex(&PublicKey::from(
            signer.verifying_key(),
        )));
        for text in [
            bundle.clone(),
            format!("'{bundle}'"),
            format!("  '{bundle}'\n"),
        ] {
            let sealed = encrypt_otp_json(&text, "123456", &tek, &pin).unwrap();
            let opened = open(&enclave_key, &sealed);
            assert_eq!(opened["otp_code"], "123456");
            assert_eq!(opened["public_key"], tek.compressed_public_key_hex());
        }
        assert!(!tek.is_consumed(), "the TEK goes on to sign the second leg");
    }

    #[test]
    fn the_plaintext_binds_the_compressed_tek() {
        // Production refuses an uncompressed `public_key` (400 INVALID_INPUT "Invalid
        // wallet request."): the enclave reads the compressed SEC1 form only.
        let (enclave_key, _, bundle) = enclave();
        let tek = ClientKey::from_secret(SecretKey::from_slice(&[0x53; 32]).unwrap()).unwrap();
        let sealed = encrypt_otp_json(&bundle, "123456", &tek, &SignerPin::Unpinned).unwrap();
        let text = open_text(&enclave_key, &sealed);
        let compressed = compressed_hex(tek.public_key());
        assert_eq!(
            text,
            format!(r#"{{"otp_code":"123456","public_key":"{compressed}"}}"#),
            "compact, otp_code then public_key"
        );
        let opened: serde_json::Value = serde_json::from_str(&text).unwrap();
        let public_key = opened["public_key"].as_str().unwrap();
        assert_eq!(public_key.len(), 66);
        assert!(public_key.starts_with("02") || public_key.starts_with("03"));
        assert_eq!(
            parse_public_key_hex(public_key, "public_key").unwrap(),
            *tek.public_key()
        );
    }

    #[test]
    fn json_parts_are_measured_exactly_and_escaped_as_json() {
        for text in [
            "123456",
            "12\"3\\4",
            "\"\\\"",
            "a\nb\r\t\u{1}\u{1f}",
            "é€😀",
            "",
        ] {
            let part = JsonPart::Str(text);
            let mut out = String::new();
            part.write(&mut out);
            assert_eq!(out.len(), part.len(), "{text:?}");
            assert_eq!(serde_json::from_str::<String>(&out).unwrap(), text);
            assert_eq!(out, serde_json::to_string(text).unwrap());
        }
        let mut out = String::new();
        JsonPart::Raw("{\"k\":").write(&mut out);
        assert_eq!(out, "{\"k\":");
    }

    #[test]
    fn the_tek_signs_a_request_id_once_and_its_session_remembers_it() {
        use crate::fields::test_support::TestFields;
        use crate::session::Session;
        const NOW: UnixMillis = 1_760_357_000_000;
        let id = "Request:123e4567-e89b-12d3-a456-426614174000";
        let pending = |request_id: &str| PendingSignature {
            payload_to_sign: "{\"a\":1}".into(),
            request_id: request_id.into(),
            expires_at_ms: NOW + 300_000,
        };
        let mut tek = ClientKey::generate().unwrap();
        sign_with_tek(&mut tek, &pending(id), NOW).unwrap();
        for again in [
            id.to_owned(),
            id.to_ascii_uppercase().replace("REQUEST:", "Request:"),
        ] {
            let err = sign_with_tek(&mut tek, &pending(&again), NOW + 1).unwrap_err();
            assert_eq!(
                err.code(),
                ErrorCode::RequestAlreadySigned,
                "{again}: {err}"
            );
        }
        // A refused id leaves the TEK usable for another.
        let other = "Request:00000000-0000-4000-8000-000000000001";
        sign_with_tek(&mut tek, &pending(other), NOW + 2).unwrap();
        // In client-held mode the TEK becomes the session key: the session refuses what
        // the TEK signed and signs the rest.
        let response = TestFields::default()
            .with("id", "Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b")
            .with(
                "accountId",
                "InternalAccount:7f3e9b1c-2a4d-4c8e-b6f1-9d0e2a3b4c5d",
            )
            .with("type", "EMAIL_OTP")
            .with("expiresAt", "2025-10-13T12:15:00Z");
        let mut session = Session::from_client_key(&response, &mut tek).unwrap();
        for spent in [id, other] {
            let err = session.sign_retry(&pending(spent), NOW + 3).unwrap_err();
            assert_eq!(
                err.code(),
                ErrorCode::RequestAlreadySigned,
                "{spent}: {err}"
            );
        }
        session
            .sign_retry(
                &pending("Request:00000000-0000-4000-8000-000000000002"),
                NOW + 3,
            )
            .unwrap();
    }

    #[test]
    fn pins_signatures_and_inputs() {
        let (_, _, bundle) = enclave();
        let tek = ClientKey::generate().unwrap();
        let production = SignerPin::Key(PRODUCTION_TLS_FETCHER_PUBLIC_KEY.into());
        let err = encrypt_otp_json(&bundle, "123456", &tek, &production).unwrap_err();
        assert_eq!(
            err.code(),
            ErrorCode::DecryptionFailed,
            "a throwaway enclave is not production"
        );
        for named in ["otpSignerPin", "otpSignerPublicKey"] {
            assert!(err.message().contains(named), "{named}: {err}");
        }
        assert!(encrypt_otp_json(&bundle, "123456", &tek, &SignerPin::Unpinned).is_ok());
        let forged = bundle.replacen("\"data\":\"7b", "\"data\":\"7c", 1);
        assert_eq!(
            encrypt_otp_json(&forged, "1", &tek, &SignerPin::Unpinned)
                .unwrap_err()
                .code(),
            ErrorCode::DecryptionFailed
        );
        // Refused codes are validated, and never echoed in the error.
        for bad in ["", "12\n34", &"9".repeat(65), "1234567\u{7}"] {
            let err = encrypt_otp_json(&bundle, bad, &tek, &SignerPin::Unpinned).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput);
            assert!(bad.is_empty() || !err.to_string().contains(bad), "{err}");
        }
        // The unquoted-keys example of the old docs is not JSON: a typed error, no guess.
        let err =
            encrypt_otp_json("{version:'v1.0.0'}", "1", &tek, &SignerPin::Sandbox).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidBundle);
    }
}

//! Keys kept in WebCrypto, for the session store (the one place a private key
//! leaves wasm memory, into a non-extractable `CryptoKey`):
//! - [`pkcs8_der`]: the PKCS#8 form `crypto.subtle.importKey('pkcs8', …)` takes;
//! - [`stamp_from_p1363`]: a stamp from the raw `r ‖ s` that `crypto.subtle.sign` gives,
//!   once it verifies;
//!
//! A bundle opened when the ECDH step ran in WebCrypto (a client key kept across an OAUTH
//! redirect) is [`crate::bundle::Bundle::open_with_dh`].

use crate::prelude::*;
use p256::ecdsa::signature::hazmat::PrehashVerifier as _;
use p256::ecdsa::{Signature, VerifyingKey};
use p256::elliptic_curve::sec1::ToSec1Point;
use p256::{PublicKey, SecretKey};
use sha2::{Digest as _, Sha256};
use zeroize::Zeroizing;

use crate::error::{Error, ErrorCode, Result};

/// PKCS#8 `PrivateKeyInfo` of a P-256 key, up to the 32 scalar bytes: version 0, algorithm
/// id-ecPublicKey with prime256v1, then an RFC 5915 `ECPrivateKey` (version 1, the scalar).
const PKCS8_PREFIX: [u8; 36] = [
    0x30, 0x81, 0x87, 0x02, 0x01, 0x00, 0x30, 0x13, 0x06, 0x07, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x02,
    0x01, 0x06, 0x08, 0x2a, 0x86, 0x48, 0xce, 0x3d, 0x03, 0x01, 0x07, 0x04, 0x6d, 0x30, 0x6b, 0x02,
    0x01, 0x01, 0x04, 0x20,
];
/// Between the scalar and the uncompressed public key: `[1] BIT STRING`, no unused bits.
const PKCS8_PUBLIC_KEY_TAG: [u8; 5] = [0xa1, 0x44, 0x03, 0x42, 0x00];
/// Length of [`pkcs8_der`]'s output.
pub(crate) const PKCS8_LEN: usize = 36 + 32 + 5 + 65;

/// The PKCS#8 DER of `secret`, with its public key `public` (some WebCrypto engines
/// require it). Secret: the caller wipes every copy right after the import.
pub(crate) fn pkcs8_der(secret: &SecretKey, public: &PublicKey) -> Zeroizing<Vec<u8>> {
    let mut der = Zeroizing::new(Vec::with_capacity(PKCS8_LEN));
    der.extend_from_slice(&PKCS8_PREFIX);
    der.extend_from_slice(&Zeroizing::new(secret.to_bytes()));
    der.extend_from_slice(&PKCS8_PUBLIC_KEY_TAG);
    der.extend_from_slice(public.to_sec1_point(false).as_bytes());
    der
}

/// The stamp for `payload`, which WebCrypto signed (ECDSA, SHA-256) with the private half
/// of `public`: `p1363` is the 64-byte `r ‖ s` it returns, turned into DER here once it
/// verifies under `public` (p256's `VerifyingKey`: code independent of the engine's crypto
/// library that signed). `ENGINE_FAULT` when it does not: nothing is released.
pub(crate) fn stamp_from_p1363(public: &PublicKey, payload: &[u8], p1363: &[u8]) -> Result<String> {
    let signature = Signature::from_slice(p1363).map_err(|_| {
        Error::new(
            ErrorCode::InvalidInput,
            "signature is not a 64-byte P-256 r ‖ s (IEEE P1363) value",
        )
    })?;
    // The prehash form, as the in-wasm signer's check (src/signing_key.rs): one verifier.
    if VerifyingKey::from(public)
        .verify_prehash(&Sha256::digest(payload), &signature)
        .is_err()
    {
        return Err(Error::engine_fault());
    }
    Ok(crate::stamp::stamp_from_signature(public, &signature))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::Bundle;
    use crate::codec::hex_encode;
    use crate::test_vectors::{hex, vectors};
    use p256::ecdsa::signature::{Signer as _, Verifier as _};
    use p256::ecdsa::{SigningKey, VerifyingKey};
    use p256::pkcs8::DecodePrivateKey as _;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn pkcs8_is_what_the_pkcs8_crate_reads_back() {
        let secret = SecretKey::from_slice(&[0x42; 32]).unwrap();
        let der = pkcs8_der(&secret, &secret.public_key());
        assert_eq!(der.len(), PKCS8_LEN);
        let back = SecretKey::from_pkcs8_der(&der).unwrap();
        assert_eq!(back.to_bytes(), secret.to_bytes());
    }

    #[test]
    fn a_p1363_signature_stamps_like_our_own_signer() {
        let key = SigningKey::from_slice(&[0x11; 32]).unwrap();
        let payload = r#"{"type":"ACTIVITY","amount":"1"}"#;
        let signature: Signature = key.sign(payload.as_bytes());
        let public = PublicKey::from(key.verifying_key());
        let header = stamp_from_p1363(&public, payload.as_bytes(), &signature.to_bytes()).unwrap();
        // Deterministic nonces on both sides: the very same header as the in-wasm signer.
        assert_eq!(
            header,
            crate::signing_key::deterministic::with(|| crate::stamp::stamp(&key, payload)).unwrap()
        );
        VerifyingKey::from(&public)
            .verify(payload.as_bytes(), &signature)
            .unwrap();
        for bad in [&[0u8; 64][..], &[1u8; 63], &[0xff; 64]] {
            let err = stamp_from_p1363(&public, payload.as_bytes(), bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput);
        }
        // A well-formed signature that does not verify: over another payload, by another
        // key, or one bit flipped (a faulty engine).
        let other = SigningKey::from_slice(&[0x12; 32]).unwrap();
        let sign = |by: &SigningKey, message: &[u8]| -> Signature { by.sign(message) };
        let mut flipped = signature.to_bytes();
        flipped[40] ^= 1;
        for (what, wrong) in [
            ("another payload", sign(&key, b"other").to_bytes()),
            ("another key", sign(&other, payload.as_bytes()).to_bytes()),
            ("a flipped bit", flipped),
        ] {
            let err = stamp_from_p1363(&public, payload.as_bytes(), &wrong).unwrap_err();
            assert_eq!(err.code(), ErrorCode::EngineFault, "{what}");
            assert!(err.message().contains("reload the page"), "{what}");
        }
    }

    #[test]
    fn opens_the_published_bundles_from_the_dh_result_alone() {
        let file = vectors("credential-bundles.json");
        let cases = file["upstream"].as_array().unwrap();
        assert!(!cases.is_empty());
        for case in cases {
            let receiver =
                SecretKey::from_slice(&hex(case["receiverPrivateKeyHex"].as_str().unwrap()))
                    .unwrap();
            let bundle = Bundle::decode(case["bundle"].as_str().unwrap()).unwrap();
            let dh = p256::ecdh::diffie_hellman(
                receiver.to_nonzero_scalar(),
                bundle.encapsulated_key().as_affine(),
            );
            let plaintext = bundle
                .open_with_dh(dh.raw_secret_bytes(), &receiver.public_key())
                .unwrap();
            assert_eq!(
                hex_encode(&plaintext),
                case["expectedPlaintextHex"].as_str().unwrap()
            );
            assert_eq!(*plaintext, *bundle.open(&receiver).unwrap());

            let mut wrong = dh.raw_secret_bytes().to_vec();
            wrong[0] ^= 1;
            let err = bundle
                .open_with_dh(&wrong, &receiver.public_key())
                .unwrap_err();
            assert_eq!(err.code(), ErrorCode::DecryptionFailed);
            let other = SecretKey::from_slice(&[5; 32]).unwrap().public_key();
            let err = bundle
                .open_with_dh(dh.raw_secret_bytes(), &other)
                .unwrap_err();
            assert_eq!(err.code(), ErrorCode::DecryptionFailed);
            let err = bundle
                .open_with_dh(&wrong[..31], &receiver.public_key())
                .unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput);
        }
    }

    #[test]
    fn opens_fresh_seals_from_the_dh_result_alone() {
        let receiver = SecretKey::from_slice(&[0x23; 32]).unwrap();
        for len in [0usize, 1, 32, 100] {
            let message = vec![0x5a; len];
            let sealed = crate::bundle::seal(&receiver.public_key(), &message).unwrap();
            let bundle = Bundle::decode(&sealed).unwrap();
            let dh = p256::ecdh::diffie_hellman(
                receiver.to_nonzero_scalar(),
                bundle.encapsulated_key().as_affine(),
            );
            let opened = bundle
                .open_with_dh(dh.raw_secret_bytes(), &receiver.public_key())
                .unwrap();
            assert_eq!(*opened, message);
        }
    }
}

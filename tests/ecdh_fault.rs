//! A faulty ECDH (here: the accumulator corrupted mid-multiplication by the test-only
//! `fault-injection` feature, as a fault in the arithmetic would) is `ENGINE_FAULT`, not
//! `DECRYPTION_FAILED`: the ClientKey that opened the bundle is poisoned (every later use
//! `ENGINE_FAULT`) and its scalar wiped from its memory at once, not at drop. Same
//! allocator scan as tests/signing_fault.rs. Run with
//! `cargo test --features fault-injection --test ecdh_fault`.
#![cfg(all(not(target_arch = "wasm32"), feature = "fault-injection"))]
// Tests may format (clippy.toml bans it in the library code only).
#![allow(clippy::disallowed_macros)]

use std::mem::ManuallyDrop;

use embedded_wallet_kit::fault_injection::corrupt_next_shared_secrets;
use embedded_wallet_kit::SecretKey;
use embedded_wallet_kit::{service, ClientKey, ErrorCode, Session};

#[path = "support/freed_copies.rs"]
mod freed;
use freed::freed_copies;

/// The scalar as p256 keeps it: little-endian limbs.
fn in_memory(secret: &SecretKey) -> Vec<u8> {
    secret.to_bytes().iter().rev().copied().collect()
}

/// A verify response whose bundle holds a session key, sealed to `key`.
fn response_for(key: &ClientKey) -> String {
    let sealed = service::seal(key.public_key(), &[0x11; 32]);
    format!(
        r#"{{"id":"Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b","accountId":"InternalAccount:1",
            "type":"EMAIL_OTP","expiresAt":"2999-01-01T00:00:00Z","encryptedSessionSigningKey":"{}"}}"#,
        sealed.unwrap()
    )
}

#[test]
fn a_faulty_ecdh_poisons_the_client_key_and_wipes_its_scalar() {
    let secret = SecretKey::from_slice(&[0x3c; 32]).unwrap();
    let needle = in_memory(&secret);
    let key = || {
        Box::new(ManuallyDrop::new(
            ClientKey::from_secret(secret.clone()).unwrap(),
        ))
    };

    // Control: an unused key's block, freed without its destructor, holds the scalar.
    let live = key();
    assert_eq!(freed_copies(&needle, || drop(live)), 1);

    let mut faulty = key();
    let response = response_for(&faulty);
    corrupt_next_shared_secrets(1);
    let err = Session::open_json(&response, &mut faulty).unwrap_err();
    assert_eq!(err.code(), ErrorCode::EngineFault, "{err}");
    assert!(err.message().contains("reload the page"), "{err}");
    // Every later use is ENGINE_FAULT: the same bundle, which would open on a sound
    // engine, is not tried again with this key.
    assert_eq!(
        Session::open_json(&response, &mut faulty)
            .unwrap_err()
            .code(),
        ErrorCode::EngineFault
    );
    assert_eq!(
        faulty.check_unused().unwrap_err().code(),
        ErrorCode::EngineFault
    );
    assert_eq!(
        faulty.key_pkcs8().unwrap_err().code(),
        ErrorCode::EngineFault
    );
    assert_eq!(freed_copies(&needle, || drop(faulty)), 0);

    // The fault was one computation's: a fresh key opens a fresh bundle.
    let mut sound = ClientKey::generate().unwrap();
    Session::open_json(&response_for(&sound), &mut sound).unwrap();
}

/// The seal of the OTP login (an ephemeral key's ECDH with the enclave's key) fails
/// closed too, rather than sealing to a wrong key.
#[test]
fn a_faulty_ecdh_in_a_seal_is_an_engine_fault() {
    let recipient = ClientKey::generate().unwrap();
    corrupt_next_shared_secrets(1);
    let err = service::seal(recipient.public_key(), &[7; 32]).unwrap_err();
    assert_eq!(err.code(), ErrorCode::EngineFault, "{err}");
    service::seal(recipient.public_key(), &[7; 32]).unwrap();
}

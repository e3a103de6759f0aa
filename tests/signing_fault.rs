//! A signature that does not verify (here: corrupted by the test-only `fault-injection`
//! feature, as a fault in the arithmetic would) is never released: `ENGINE_FAULT`, the
//! session (or the OTP login's TEK) poisoned, and its secret scalar wiped from its memory
//! at once, not at drop. Each object is kept in a heap block that is freed without running
//! its destructor (`ManuallyDrop`), and the recording allocator checks that block for the
//! scalar's bytes. Native only: its own global allocator, in its own test binary. Run with
//! `cargo test --features fault-injection --test signing_fault`.
#![cfg(all(not(target_arch = "wasm32"), feature = "fault-injection"))]
// Tests may format (clippy.toml bans it in the library code only).
#![allow(clippy::disallowed_macros)]

use std::mem::ManuallyDrop;

use embedded_wallet_kit::enclave::sign_with_tek;
use embedded_wallet_kit::fault_injection::corrupt_next_signatures;
use embedded_wallet_kit::system_now;
use embedded_wallet_kit::SecretKey;
use embedded_wallet_kit::{service, ClientKey, ErrorCode, PendingSignature, Session};

#[path = "support/freed_copies.rs"]
mod freed;
use freed::freed_copies;

/// The scalar as it lies in memory: p256 keeps it as little-endian limbs (the control
/// cases below show that this is what a live key's block holds).
fn in_memory(secret: &SecretKey) -> Vec<u8> {
    secret.to_bytes().iter().rev().copied().collect()
}

fn session_of(secret: &SecretKey) -> Box<ManuallyDrop<Session>> {
    let mut key = ClientKey::generate().unwrap();
    let sealed = service::seal(key.public_key(), &secret.to_bytes()).unwrap();
    let response = format!(
        r#"{{"id":"Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b","accountId":"InternalAccount:1",
            "type":"EMAIL_OTP","expiresAt":"2999-01-01T00:00:00Z","encryptedSessionSigningKey":"{sealed}"}}"#
    );
    Box::new(ManuallyDrop::new(
        Session::open_json(&response, &mut key).unwrap(),
    ))
}

#[test]
fn a_faulty_stamp_poisons_the_session_and_wipes_its_scalar() {
    let secret = SecretKey::from_slice(&[0x5a; 32]).unwrap();
    let needle = in_memory(&secret);

    // Control: a live session's block, freed without its destructor, holds the scalar.
    let live = session_of(&secret);
    live.stamp("{}", system_now()).unwrap();
    assert_eq!(freed_copies(&needle, || drop(live)), 1);

    let mut session = session_of(&secret);
    corrupt_next_signatures(1);
    let err = session.stamp("{}", system_now()).unwrap_err();
    assert_eq!(err.code(), ErrorCode::EngineFault);
    assert!(err.message().contains("reload the page"), "{err}");
    assert!(session.is_poisoned());
    for code in [
        session.stamp("{}", system_now()).unwrap_err().code(),
        session.key_pkcs8().unwrap_err().code(),
    ] {
        assert_eq!(code, ErrorCode::EngineFault);
    }
    let pending = PendingSignature::from_json(
        r#"{"requestId":"Request:123e4567-e89b-12d3-a456-426614174000","payloadToSign":"{}","expiresAt":"2999-01-01T00:00:00Z"}"#,
    )
    .unwrap();
    assert_eq!(
        session
            .sign_retry(&pending, system_now())
            .unwrap_err()
            .code(),
        ErrorCode::EngineFault
    );
    assert_eq!(freed_copies(&needle, || drop(session)), 0);
}

#[test]
fn a_faulty_tek_signature_poisons_the_tek_and_wipes_its_scalar() {
    let secret = SecretKey::from_slice(&[0x6b; 32]).unwrap();
    let needle = in_memory(&secret);
    let pending = PendingSignature::from_json(
        r#"{"requestId":"Request:123e4567-e89b-12d3-a456-426614174001","payloadToSign":"{}","expiresAt":"2999-01-01T00:00:00Z"}"#,
    )
    .unwrap();
    let now = 1_760_356_800_000;

    let mut live = Box::new(ManuallyDrop::new(
        ClientKey::from_secret(secret.clone()).unwrap(),
    ));
    sign_with_tek(&mut live, &pending, now).unwrap();
    assert_eq!(freed_copies(&needle, || drop(live)), 1);

    let mut tek = Box::new(ManuallyDrop::new(
        ClientKey::from_secret(secret.clone()).unwrap(),
    ));
    corrupt_next_signatures(1);
    let err = sign_with_tek(&mut tek, &pending, now).unwrap_err();
    assert_eq!(err.code(), ErrorCode::EngineFault);
    // Every later use is ENGINE_FAULT, not KEY_CONSUMED.
    assert_eq!(
        tek.check_unused().unwrap_err().code(),
        ErrorCode::EngineFault
    );
    assert_eq!(tek.key_pkcs8().unwrap_err().code(), ErrorCode::EngineFault);
    assert_eq!(freed_copies(&needle, || drop(tek)), 0);
}

//! Key generation, bundle opening (ECDH, HKDF, AES-GCM) and signing (a stamp), with every
//! secret marked undefined from the moment it exists: run under
//! `valgrind --error-exitcode=9` (tests/ct/run.sh), any branch or memory address that
//! depends on a secret, unless accepted by name in tests/ct/accepted.supp, fails it.
//!
//! The client key's scalar is marked right after it is drawn. Nothing else needs marking:
//! the session key is what the bundle decrypts to under keys derived from the client
//! key's ECDH, so memcheck sees it (and the stamp's nonce, derived from it) as undefined
//! too. Public outputs are declassified where the public API hands them out, after the
//! public keys are asserted to be secret-derived (the secrets are seen to reach key
//! generation and the open; tests/ct/run.sh sees them reach the signature: the stamp is
//! base64url, whose table lookups memcheck reports but whose output it deems defined).

use embedded_wallet_kit::system_now;
use embedded_wallet_kit::SecretKey;
use embedded_wallet_kit::{service, ClientKey, Session};
use ewk_ct::{is_secret, public, secret};
use p256::elliptic_curve::Generate as _;

fn main() {
    // Key generation.
    let client_secret = SecretKey::try_generate_from_rng(&mut getrandom::SysRng).unwrap();
    secret(&client_secret);
    let mut key = ClientKey::from_secret(client_secret).unwrap();
    // Hex, not the struct: its padding is undefined to memcheck whatever happens.
    assert!(
        is_secret(key.public_key_hex().as_bytes()),
        "keygen: the scalar did not reach k·G"
    );
    public(key.public_key());

    // The service seals a session key to it (its side: nothing marked).
    let session_secret = SecretKey::try_generate_from_rng(&mut getrandom::SysRng).unwrap();
    let sealed = service::seal(key.public_key(), &session_secret.to_bytes()).unwrap();
    let response = [
        r#"{"id":"Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b","accountId":"InternalAccount:1","#,
        r#""type":"EMAIL_OTP","expiresAt":"2999-01-01T00:00:00Z","encryptedSessionSigningKey":""#,
        &sealed,
        r#""}"#,
    ]
    .concat();

    // Bundle opening: ECDH with the (secret) client key, then the session key.
    let session = Session::open_json(&response, &mut key).unwrap();
    let session_public = session.public_key_hex().unwrap();
    assert!(
        is_secret(session_public.as_bytes()),
        "open: the client key did not reach the session key"
    );
    public(&session_public);
    public(session_public.as_bytes());
    assert_eq!(
        session_public,
        embedded_wallet_kit::service::compressed_hex(&session_secret.public_key())
    );

    // Signing.
    let stamp = session
        .stamp(r#"{"type":"ACTIVITY"}"#, system_now())
        .unwrap();
    public(&stamp);
    public(stamp.as_bytes());
    assert!(!stamp.is_empty());
    println!("ct-check: key generation, bundle open and stamp ran");
}

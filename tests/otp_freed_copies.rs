//! No freed, unwiped copy of an OTP code: every heap block `encrypt_otp` frees is checked,
//! just before it goes back to the allocator, for the code and its JSON-escaped form. A
//! buffer that grows (a `String` sized for the code, lengthened by escaping `"` and `\`)
//! frees its old block as it was; the wasm build's allocator (talc, with
//! `disable-realloc-in-place`) always moves on growth, as `GlobalAlloc::realloc`'s default
//! here does. Native only: its own global allocator (tests/support/freed_copies.rs), in its
//! own test binary.
#![cfg(all(not(target_arch = "wasm32"), feature = "json"))]
// Tests may format (clippy.toml bans it in the library code only).
#![allow(clippy::disallowed_macros)]

use embedded_wallet_kit::enclave::encrypt_otp;
use embedded_wallet_kit::parse_object;
use embedded_wallet_kit::service::uncompressed_hex;
use embedded_wallet_kit::ClientKey;
use embedded_wallet_kit::ErrorCode;
use embedded_wallet_kit::SecretKey;

#[path = "support/freed_copies.rs"]
mod freed;
use freed::freed_copies;

#[test]
fn sealing_a_code_with_quotes_and_backslashes_frees_no_copy_of_it() {
    let enclave = SecretKey::from_slice(&[0x51; 32]).unwrap();
    let target_public = uncompressed_hex(&enclave.public_key());
    let data = parse_object(
        &format!(r#"{{"targetPublic":"{target_public}"}}"#),
        ErrorCode::InvalidBundle,
        "target data",
    )
    .unwrap();
    let tek = ClientKey::generate().unwrap();

    // The instrument sees an ordinary freed string.
    assert_eq!(
        freed_copies(b"12\\\"3", || drop(String::from("x12\\\"3x"))),
        1
    );

    let code = "12\"3\\4";
    // The escaped form up to the point where a buffer of the code's length + 2 is full,
    // and the code itself.
    for needle in [&b"\"12\\\"3\\\\"[..], code.as_bytes()] {
        let copies = freed_copies(needle, || {
            let sealed = encrypt_otp(&data, code, &tek).unwrap();
            assert!(sealed.starts_with(r#"{"encappedPublic":"04"#));
        });
        assert_eq!(
            copies,
            0,
            "{copies} freed, unwiped block(s) held {:?}",
            String::from_utf8_lossy(needle)
        );
    }
}

//! # embedded-wallet-kit
//!
//! The client side of an embedded-wallet payments API (the wire contract is
//! `docs/protocol.md` in the repository): an ephemeral P-256 [`ClientKey`] whose public
//! half goes to the service, the HPKE-sealed session bundle opened into a [`Session`],
//! and the API-key stamps that session puts on signed retries and quote executions.
//!
//! The core is plain Rust with no JS bindings and runs natively (servers, CLIs, tests) and
//! on wasm32; the npm package's wasm modules are thin `wasm-bindgen` crates over it
//! (`bindings/` in the repository).
//!
//! ```
//! use embedded_wallet_kit::{ClientKey, SecretKey, Session};
//! # fn main() -> Result<(), embedded_wallet_kit::Error> {
//! let mut key = ClientKey::generate()?;
//! // The service seals a session key to key.public_key_hex(); here we play the service
//! // (the `service` feature, for emulators and tests).
//! let session_key = SecretKey::from_slice(&[7u8; 32]).unwrap();
//! let sealed = embedded_wallet_kit::service::seal(key.public_key(), &session_key.to_bytes())?;
//! let response = format!(
//!     r#"{{"id":"Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b","accountId":"InternalAccount:1",
//!        "type":"EMAIL_OTP","expiresAt":"2999-01-01T00:00:00Z","encryptedSessionSigningKey":"{sealed}"}}"#
//! );
//! let session = Session::open_json(&response, &mut key)?;
//! // `now` is an argument (sans-IO): natively the system clock, `system_now()`.
//! let header = session.stamp("{\"type\":\"ACTIVITY\"}", embedded_wallet_kit::system_now())?;
//! assert!(!header.contains('='));
//! # Ok(()) }
//! ```

#![cfg_attr(not(feature = "std"), no_std)]
#![warn(missing_docs, unreachable_pub)]
// The tests may format; the library may not (clippy.toml says why).
#![cfg_attr(test, allow(clippy::disallowed_macros))]

// Without `std` (the wasm modules) the core needs only an allocator: `String` and `Vec`
// (and, in the tests, `format!`) come from `alloc` (through `prelude`), everything else
// from `core`.
extern crate alloc;
// The tests use std's collections, threads and files in either configuration.
#[cfg(all(test, not(feature = "std")))]
extern crate std;

// The public API is what this file re-exports, plus the modules declared `pub` below
// (each a namespace of its own: `enclave::…`, `passkey::…`, `flows::…`, `encoding::…`,
// `text::…`), plus, with the `service` feature, `service::…`. Everything else is
// internal. The modules whose items `service` (or the fuzz targets) re-export keep them
// `pub`.
#[cfg_attr(not(fuzzing), allow(unreachable_pub))]
mod basepoint;
#[cfg_attr(not(any(fuzzing, feature = "service")), allow(unreachable_pub))]
mod bundle;
#[cfg_attr(not(feature = "service"), allow(unreachable_pub))]
mod client_key;
#[cfg_attr(not(feature = "service"), allow(unreachable_pub))]
mod codec;
#[cfg_attr(not(fuzzing), allow(unreachable_pub))]
mod ecdh;
#[cfg_attr(not(fuzzing), allow(unreachable_pub))]
mod ecdsa_der;
pub mod enclave;
mod error;
mod fields;
pub mod flows;
mod inspect;
#[cfg_attr(not(fuzzing), allow(unreachable_pub))]
mod json;
mod message;
pub mod passkey;
mod prelude;
#[cfg_attr(not(feature = "service"), allow(unreachable_pub))]
mod public_key;
mod request_ids;
mod self_test;
mod session;
#[cfg_attr(not(fuzzing), allow(unreachable_pub))]
mod signing_key;
#[cfg_attr(not(feature = "service"), allow(unreachable_pub))]
mod stamp;
pub mod text;
#[cfg_attr(not(feature = "service"), allow(unreachable_pub))]
mod timestamp;
mod webcrypto;

#[cfg(test)]
mod test_vectors;

/// The P-256 key types the API takes and returns ([`ClientKey::from_secret`],
/// [`ClientKey::public_key`], [`Session::external`], [`parse_public_key_hex`]), from the
/// `p256` version the kit is built with.
pub use p256::{PublicKey, SecretKey};

pub use client_key::{ClientKey, KeyForm};
pub use error::{Error, ErrorCode, Result, ServiceDetails};
#[cfg(feature = "json")]
pub use fields::parse_object;
pub use fields::{Field, Fields};
pub use inspect::{inspect_payload, PayloadInspection};
pub use message::{
    PendingSignature, QuoteToSign, SignedRetryHeaders, REQUEST_ID_HEADER, SIGNATURE_HEADER,
};
pub use public_key::parse_public_key_hex;
pub use request_ids::SignedRequestIds;
pub use self_test::self_test;
pub use session::{Session, SessionInfo};
#[cfg(feature = "std")]
pub use timestamp::system_now;
pub use timestamp::{format_rfc3339, UnixMillis};

/// base64url without padding: how the API's passkey JSON and the stamps carry bytes.
pub mod encoding {
    pub use crate::codec::{base64url_decode, base64url_encode};
}

/// The service's side of the protocol, for emulators and tests (the `service` feature;
/// no shipped build enables it): sealing session bundles, making and verifying stamps
/// with any P-256 key, the encodings and identifiers the service writes.
#[cfg(feature = "service")]
pub mod service {
    pub use crate::bundle::{
        seal, seal_raw, Bundle, ENC_LEN, HPKE_INFO, MAX_BUNDLE_CHARS, SESSION_BUNDLE_LEN, TAG_LEN,
    };
    pub use crate::client_key::oidc_nonce_for;
    pub use crate::codec::{
        base58check_decode, base58check_encode, hex_decode, hex_encode, sha256_hex,
        Base58CheckError,
    };
    pub use crate::flows::http::{uuid_v4, uuid_v4_from};
    pub use crate::public_key::{compressed_hex, uncompressed_hex};
    pub use crate::session::SANDBOX_SIGNATURE;
    pub use crate::stamp::{
        decode_stamp, sign_der, stamp, stamp_from_signature, stamp_json, verify_stamp,
        DecodedStamp, STAMP_SCHEME,
    };
    pub use crate::timestamp::parse_rfc3339;
}

/// Test-only fault injection (the `fault-injection` feature, never in a shipped build).
#[cfg(feature = "fault-injection")]
pub mod fault_injection {
    pub use crate::signing_key::fault::{corrupt_next_shared_secrets, corrupt_next_signatures};
}

/// Internals for the fuzz targets (cargo-fuzz builds with `--cfg fuzzing`); not part of
/// the API.
#[cfg(fuzzing)]
pub mod fuzzing {
    pub use crate::basepoint::mul_generator;
    pub use crate::bundle::fuzzing::{open, seal};
    pub use crate::ecdh::diffie_hellman;
    pub use crate::json::{parse, Json, CASE_FOLDED_NAME, DUPLICATE_NAME, MAX_DEPTH};
    pub use crate::signing_key::deterministic::with as with_deterministic_nonces;
    pub use crate::signing_key::SigningKey;

    /// The strict DER codec of ECDSA signatures.
    pub mod ecdsa_der {
        pub use crate::ecdsa_der::{decode, encode, DerSignature, MAX_LEN};
    }
}

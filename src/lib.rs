//! # embedded-wallet-kit
//!
//! The client side of an embedded-wallet payments API (see `DESIGN.md` in the project's
//! shared docs): an ephemeral P-256 [`ClientKey`] whose public half goes to the service,
//! the HPKE-sealed session bundle opened into a [`Session`], and the API-key stamps that
//! session puts on signed retries and quote executions.
//!
//! The core is plain Rust with no JS bindings and runs natively (servers, CLIs, tests) and
//! on wasm32; the npm package's wasm modules are thin `wasm-bindgen` crates over it
//! (`bindings/` in the repository).
//!
//! ```
//! use embedded_wallet_kit::{ClientKey, bundle, Session};
//! # fn main() -> Result<(), embedded_wallet_kit::Error> {
//! let mut key = ClientKey::generate()?;
//! // The service seals a session key to key.public_key_hex(); here we play the service.
//! let session_key = p256::SecretKey::from_slice(&[7u8; 32]).unwrap();
//! let sealed = bundle::seal(key.public_key(), &session_key.to_bytes())?;
//! let response = format!(
//!     r#"{{"id":"Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b","accountId":"InternalAccount:1",
//!        "type":"EMAIL_OTP","expiresAt":"2999-01-01T00:00:00Z","encryptedSessionSigningKey":"{sealed}"}}"#
//! );
//! let session = Session::open_json(&response, &mut key)?;
//! let header = session.stamp("{\"type\":\"ACTIVITY\"}")?;
//! assert!(!header.contains('='));
//! # Ok(()) }
//! ```

pub mod bundle;
pub mod client_key;
pub mod ecdsa_der;
pub mod enclave;
pub mod encoding;
pub mod error;
pub mod fields;
pub mod flows;
pub mod inspect;
pub mod json;
pub mod otp;
pub mod passkey;
pub mod session;
pub mod signed_retry;
pub mod stamp;
pub mod timestamp;
pub mod webcrypto;

#[cfg(test)]
mod test_vectors;

pub use p256;

pub use client_key::{ClientKey, KeyForm};
pub use error::{Error, ErrorCode, Result, ServiceDetails};
pub use fields::{Field, Fields};
pub use inspect::{inspect_payload, PayloadInspection};
pub use session::{Session, SessionInfo, SANDBOX_SIGNATURE};
pub use signed_retry::{
    PendingSignature, QuoteToSign, SignedRetryHeaders, REQUEST_ID_HEADER, SIGNATURE_HEADER,
};
pub use timestamp::{Clock, FixedClock, SystemClock, UnixMillis};

//! Passkeys: registration (attestation) and assertion through `navigator.credentials`,
//! in the exact JSON shapes the API takes. Option validation, the response shapes and
//! the error mapping are plain Rust (tested natively); the browser driver is in the wallet
//! module's binding crate.

mod credential;
mod errors;
pub(crate) mod options;
#[cfg(any(test, feature = "testing"))]
mod soft_authenticator;

pub use credential::{validate_account_id, validate_nickname, Assertion, Attestation};
pub use errors::{classify, Ceremony, Circumstances};
pub use options::{
    registration_challenge_bytes, Attachment, Authentication, AuthenticationInput, Registration,
    RegistrationInput, ResidentKey, UserVerification, PUB_KEY_CRED_ALGS,
};
#[cfg(any(test, feature = "testing"))]
pub use soft_authenticator::SoftAuthenticator;

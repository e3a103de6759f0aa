//! Passkeys: registration (attestation) and assertion through `navigator.credentials`,
//! in the exact JSON shapes the API takes. Option validation, the response shapes and
//! the error mapping are plain Rust (tested natively); the browser driver is in the wallet
//! module's binding crate.

pub mod credential;
pub mod errors;
pub mod options;
#[cfg(any(test, feature = "testing"))]
pub mod soft_authenticator;

pub use credential::{validate_account_id, validate_nickname, Assertion, Attestation};
pub use errors::{classify, Ceremony, Circumstances};
pub use options::{
    Attachment, Authentication, AuthenticationInput, Registration, RegistrationInput, ResidentKey,
    UserVerification,
};
#[cfg(any(test, feature = "testing"))]
pub use soft_authenticator::SoftAuthenticator;

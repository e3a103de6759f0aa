//! Flows against the service, sans-IO: each flow says which [`Request`] to send and reads
//! the [`Response`]; the integrator's transport sends it (adding the API credentials on
//! the backend, so the API secret never enters the browser). The same drivers run
//! natively and under the wasm `WalletClient`.

#[cfg_attr(not(feature = "service"), allow(unreachable_pub))]
pub(crate) mod http;
mod otp_login;
mod processing;
mod quote;
mod signed_retry;
pub mod wallet;

pub use http::{Request, Response};
pub use otp_login::{target_bundle, OtpLogin, OtpNext};
pub use processing::{ProcessingPolicy, Resend};
pub use quote::QuoteExecution;
pub use signed_retry::{Next, SignedRetryFlow};
pub use wallet::{KeyMode, KeyRef, Operation, PasskeyChallenge, SessionRef};

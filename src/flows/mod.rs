//! Flows against the service, sans-IO: each flow says which [`Request`] to send and reads
//! the [`Response`]; the integrator's transport sends it (adding the API credentials on
//! the backend, so the API secret never enters the browser). The same drivers run
//! natively and under the wasm `WalletClient`.

mod http;
mod otp_login;
mod processing;
mod quote;
mod signed_retry;
pub mod wallet;

pub use http::{
    body_string, expect_result, expect_success, pending_signature, response_error, uuid_v4,
    uuid_v4_from, Request, Response,
};
pub use otp_login::{target_bundle, OtpLogin, OtpNext, OtpStep};
pub use processing::{is_processing, ProcessingPolicy, Resend};
pub use quote::{QuoteExecution, IDEMPOTENCY_KEY_HEADER};
pub use signed_retry::{Next, SignedRetryFlow, Step, MAX_SIGNED_LEGS};
pub use wallet::{KeyMode, KeyRef, Operation, PasskeyChallenge, SessionRef};

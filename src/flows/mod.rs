//! Flows against the service, sans-IO: each flow says which [`Request`] to send and reads
//! the [`Response`]; the integrator's transport sends it (adding the API credentials on
//! the backend, so the API secret never enters the browser). The same drivers run
//! natively and under the wasm `WalletClient`.

pub mod http;
pub mod otp;
pub mod quote;
pub mod signed_retry;
pub mod wallet;

pub use http::{
    body_string, expect_result, expect_success, response_error, uuid_v4, Request, Response,
};
pub use otp::{OtpLogin, OtpNext, OtpStep};
pub use quote::QuoteExecution;
pub use signed_retry::{Next, SignedRetryFlow, Step, MAX_SIGNED_LEGS};
pub use wallet::PasskeyChallenge;

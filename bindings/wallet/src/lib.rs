//! The wallet wasm module, loaded lazily (by `init({ passkeys: true })`, the first
//! passkey call or the first WalletClient call) so that pages which only sign never
//! download it: the WebAuthn driver (`passkey.*`) and the flow drivers behind the JS
//! WalletClient. It holds no ClientKey or Session: the flows never sign, the shim has the
//! signing module's Session sign what a flow hands out.
#![cfg(target_arch = "wasm32")]
#![no_std]

extern crate alloc;
#[cfg(test)]
extern crate std;

mod browser;
mod flows;
pub mod passkey;

pub use flows::{
    wallet_flow, JsOtpLoginFlow, JsPasskeyChallenge, JsQuoteExecution, JsSignedRetryFlow,
};

//! The signing wasm module, the one `init()` loads: `ClientKey`, `Session`, the session
//! store's bindings, `inspectPayload` and the enclave exports (OTP sealing, wallet
//! export). Everything `#[wasm_bindgen]` in this crate is an export of the module, and
//! nothing else is.
#![cfg(target_arch = "wasm32")]

mod enclave;
mod inspect;
mod signing;
mod store;
mod warm;

pub use signing::{JsClientKey, JsSession};

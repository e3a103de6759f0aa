//! The signing wasm module, the one `init()` loads: `ClientKey`, `Session`, the session
//! store's bindings, `inspectPayload` and the enclave exports (OTP sealing, wallet
//! export). Everything `#[wasm_bindgen]` in this crate is an export of the module, and
//! nothing else is.
#![cfg(target_arch = "wasm32")]
#![no_std]

extern crate alloc;
#[cfg(test)]
extern crate std;

mod enclave;
mod inspect;
mod signing;
mod store;
mod warm;

pub use signing::{JsClientKey, JsSession};

// The generated declarations (pkg/embedded_wallet_kit.d.ts, which js/index.d.ts
// re-exports) name these interfaces in the `unchecked_*_type`s of the exports; they are
// declared once, in index.d.ts.
#[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
const PUBLIC_TYPES: &str = "import type { SessionResponse, PendingSignature, Quote, SignedRetryHeaders, QuoteSignatureHeader, PayloadInspection, EnclaveEnvelope, EnclaveOptions, WalletExportResponse, WalletExportOptions } from './index.js';";

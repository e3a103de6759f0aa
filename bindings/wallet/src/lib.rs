//! The full wasm module, the one the main entry's `init()` loads: everything a passkey
//! wallet page needs in one module. ewk-signing's exports (`ClientKey`, `Session`,
//! `warmUp`), linked from that crate, plus the WebAuthn driver (`passkey.*`), the flow
//! drivers behind the JS WalletClient, the session store's bindings, `inspectPayload`
//! and the enclave exports (OTP sealing, wallet export), which do their work only with
//! the `enclave` feature: the package ships the module with it (what
//! `init({ enclave: true })`, the Node entry and the isolated signer's Worker load) and
//! without it (what a plain `init()` loads), one glue for both. The flows never sign: the
//! shim has a Session sign what a flow hands out.
#![cfg(target_arch = "wasm32")]
#![no_std]
// The tests may format; the library may not (bindings/clippy.toml).
#![cfg_attr(test, allow(clippy::disallowed_macros))]

extern crate alloc;
#[cfg(test)]
extern crate std;

mod enclave;
mod flows;
mod inspect;
pub mod passkey;
mod store;
mod webauthn_json;

// Re-exported so that this crate visibly uses ewk-signing, whose #[wasm_bindgen] exports
// then link into this module (tests/js/declared-exports.test.mjs checks they do).
pub use ewk_signing::{JsClientKey, JsSession};

pub use flows::{
    wallet_flow, JsOtpLoginFlow, JsPasskeyChallenge, JsQuoteExecution, JsSignedRetryFlow,
};

// The interfaces this crate's exports name (ewk-signing's section imports those of its own).
#[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
const FULL_TYPES: &str = "import type { PayloadInspection, EnclaveEnvelope, EnclaveOptions, WalletExportResponse, WalletExportOptions } from './index.js';";

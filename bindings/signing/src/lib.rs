//! The signing-only wasm module, the one `embedded-wallet-kit/signing`'s `init()` loads:
//! `ClientKey`, `Session` and `warmUp`, nothing else. The wallet module (bindings/wallet,
//! what the main entry's `init()` loads) links this crate and adds the rest. Everything
//! `#[wasm_bindgen]` in this crate is an export of both modules.
#![cfg(target_arch = "wasm32")]
#![no_std]
// The tests may format; the library may not (bindings/clippy.toml).
#![cfg_attr(test, allow(clippy::disallowed_macros))]

extern crate alloc;
#[cfg(test)]
extern crate std;

pub mod signing;
mod tek;
mod warm;

pub use signing::{JsClientKey, JsSession};

// The generated declarations (embedded_wallet_kit_signing.d.ts and, through the full
// module, embedded_wallet_kit.d.ts; copies in tests/types/glue/, which npm/ is type-checked
// against) name these interfaces in the `unchecked_*_type`s of the exports; they are
// declared once, in npm/index.d.ts. The wallet module imports the interfaces its own exports
// name in a section of its own: one name imported twice would not compile.
#[wasm_bindgen::prelude::wasm_bindgen(typescript_custom_section)]
const SIGNING_TYPES: &str = "import type { SessionResponse, PendingSignature, Quote, SignedRetryHeaders, QuoteSignatureHeader } from './index.js';";

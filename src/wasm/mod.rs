//! `wasm-bindgen` exports: conversions between JS values and the core types, nothing
//! else. Every error leaves as a JS `KitError` (js/kit-error.js) with the core's code.
//!
//! The npm package ships modules built from this crate: the signing module (`signing`:
//! ClientKey, Session, the session store's bindings, inspectPayload) loaded by `init()`;
//! the passkey module (feature `passkey-module`: `passkey` and the WalletClient's flow
//! drivers), loaded on first use so that pages which only sign never download the
//! WebAuthn and flow code; and the testing module (feature `testing-module`: the software
//! authenticator) for the package's `testing` entry.

use wasm_bindgen::prelude::*;

use crate::error::{Error, ErrorCode};

#[cfg(not(any(feature = "passkey-module", feature = "testing-module")))]
mod enclave;
#[cfg(all(feature = "flows", not(feature = "testing-module")))]
mod flows;
#[cfg(not(any(feature = "passkey-module", feature = "testing-module")))]
mod inspect;
mod js;
#[cfg(feature = "passkey")]
pub mod passkey;
#[cfg(any(feature = "passkey", feature = "testing"))]
mod passkey_input;
#[cfg(not(any(feature = "passkey-module", feature = "testing-module")))]
mod signing;
#[cfg(not(any(feature = "passkey-module", feature = "testing-module")))]
mod store;
#[cfg(feature = "testing")]
pub mod testing;

#[cfg(all(feature = "flows", not(feature = "testing-module")))]
pub use flows::{
    wallet_flow, JsOtpLoginFlow, JsPasskeyChallenge, JsQuoteExecution, JsSignedRetryFlow,
};
#[cfg(not(any(feature = "passkey-module", feature = "testing-module")))]
pub use signing::{JsClientKey, JsSession};

#[wasm_bindgen(module = "/js/kit-error.js")]
extern "C" {
    #[wasm_bindgen(js_name = KitError)]
    type KitErrorJs;

    #[wasm_bindgen(constructor, js_class = "KitError")]
    fn new(code: &str, message: &str) -> KitErrorJs;

    #[cfg(feature = "passkey")]
    #[wasm_bindgen(constructor, js_class = "KitError")]
    fn new_with_cause(code: &str, message: &str, cause: &JsValue) -> KitErrorJs;
}

/// The JS form of a core error. Errors from a service response also carry `status`,
/// `serviceCode`, `reason` and `retryAfterMs` when the service gave them.
pub(crate) fn to_js(error: Error) -> JsValue {
    let js: JsValue = KitErrorJs::new(error.code().as_str(), error.message()).into();
    if let Some(service) = error.service() {
        let put = |key: &str, value: JsValue| {
            let _ = js_sys::Reflect::set(&js, &JsValue::from_str(key), &value);
        };
        put("status", JsValue::from(service.status));
        if let Some(code) = &service.service_code {
            put("serviceCode", JsValue::from_str(code));
        }
        if let Some(reason) = &service.reason {
            put("reason", JsValue::from_str(reason));
        }
        if let Some(ms) = service.retry_after_ms {
            put("retryAfterMs", JsValue::from_f64(ms as f64));
        }
    }
    js
}

/// The JS form of a core error that wraps a browser error (kept as `cause`).
#[cfg(feature = "passkey")]
pub(crate) fn to_js_with_cause(error: Error, cause: &JsValue) -> JsValue {
    KitErrorJs::new_with_cause(error.code().as_str(), error.message(), cause).into()
}

pub(crate) fn invalid_input(message: &str) -> JsValue {
    to_js(Error::new(ErrorCode::InvalidInput, message))
}

// Talc instead of the default dlmalloc: about 5 KB smaller in the module, and faster.
#[cfg(not(target_feature = "atomics"))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

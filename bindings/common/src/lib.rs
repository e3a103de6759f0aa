//! What every wasm module of the npm package shares, and nothing any of them exports:
//! the `KitError` import (npm/platform.js, one class across modules), the conversions
//! between JS values and the core's types with catching reads, the stack scrub, the
//! platform clock, and the allocator.
//!
//! The package ships one module per binding crate (bindings/): `ewk-signing` (ClientKey,
//! Session, the session store's bindings, inspectPayload, the enclave exports) loaded by
//! `init()`; `ewk-wallet` (`passkey` and the WalletClient's flow drivers), loaded on
//! first use so that pages which only sign never download the WebAuthn and flow code;
//! and `ewk-testing` (the software authenticator) for the package's `testing` entry.
#![cfg(target_arch = "wasm32")]
// The modules are `no_std` + `alloc`: std's panic machinery (which formats the message
// and its location even with panic = "abort") stays out of them; see `trap-panics`.
#![no_std]
// The tests may format; the library may not (bindings/clippy.toml).
#![cfg_attr(test, allow(clippy::disallowed_macros))]

extern crate alloc;
#[cfg(test)]
extern crate std;

use wasm_bindgen::prelude::*;

use embedded_wallet_kit::UnixMillis;
use embedded_wallet_kit::{Error, ErrorCode};

pub mod js;
pub mod passkey_input;

/// What std's prelude would give the binding crates: `use ewk_common::prelude::*;`.
pub mod prelude {
    pub use alloc::borrow::ToOwned;
    pub use alloc::boxed::Box;
    pub use alloc::string::String;
    pub use alloc::vec;
    pub use alloc::vec::Vec;
}

pub use js::scrubbed;

// KitError and the platform captures come from npm/platform.js. The shipped modules
// (feature `trap-panics`, which only scripts/build-pkg.sh sets) import it by its name, as
// ./platform.js, shipped next to the glue: the entries import the very same module, with
// no copy under snippets/ and no re-export. The tests' builds take it as a wasm-bindgen
// snippet (their glue lives elsewhere).
#[cfg_attr(feature = "trap-panics", wasm_bindgen(raw_module = "./platform.js"))]
#[cfg_attr(not(feature = "trap-panics"), wasm_bindgen(module = "/js/platform.js"))]
extern "C" {
    #[wasm_bindgen(js_name = KitError)]
    type KitErrorJs;

    #[wasm_bindgen(constructor, js_class = "KitError")]
    fn new(code: &str, message: &str) -> KitErrorJs;

    #[wasm_bindgen(constructor, js_class = "KitError")]
    fn new_with_cause(code: &str, message: &str, cause: &JsValue) -> KitErrorJs;
}

/// The JS form of a core error. Errors from a service response also carry `status`,
/// `serviceCode`, `reason` and `retryAfterMs` when the service gave them, and
/// `STILL_PROCESSING` the `requestId` of the request still under way.
pub fn to_js(error: Error) -> JsValue {
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
        if let Some(id) = &service.request_id {
            put("requestId", JsValue::from_str(id));
        }
    }
    js
}

/// The JS form of a core error that wraps a browser error (kept as `cause`).
pub fn to_js_with_cause(error: Error, cause: &JsValue) -> JsValue {
    KitErrorJs::new_with_cause(error.code().as_str(), error.message(), cause).into()
}

pub fn invalid_input(message: &str) -> JsValue {
    to_js(Error::new(ErrorCode::InvalidInput, message))
}

// What the kit takes from the page (npm/platform.js): WebCrypto and `Date.now` as they were
// when the kit's modules were evaluated, imported through wasm-bindgen's own mechanism from
// the one module the entries import first. Page script that replaces the globals later
// (even while init() downloads the .wasm) chooses no key, receives no key bytes and does
// not move the clock of the expiry guards.
#[cfg_attr(feature = "trap-panics", wasm_bindgen(raw_module = "./platform.js"))]
#[cfg_attr(not(feature = "trap-panics"), wasm_bindgen(module = "/js/platform.js"))]
extern "C" {
    #[wasm_bindgen(js_name = now)]
    fn platform_now() -> f64;

    // A view into wasm memory, filled in place; throws (caught) where there is no WebCrypto.
    #[wasm_bindgen(catch, js_name = getRandomValues)]
    fn platform_get_random_values(dest: &mut [u8]) -> Result<JsValue, JsValue>;

    /// `crypto.subtle.importKey` as captured. The engine copies `key_data` before it
    /// returns, so the view into wasm memory can be wiped as soon as the call is back.
    /// Throws (caught) where there is no `crypto.subtle` (insecure contexts).
    #[wasm_bindgen(catch, js_namespace = subtle, js_name = importKey)]
    pub fn subtle_import_key(
        format: &str,
        key_data: &[u8],
        algorithm: &js_sys::Object,
        extractable: bool,
        usages: &js_sys::Array,
    ) -> Result<js_sys::Promise, JsValue>;
}

/// `Date.now()` (as captured) in Unix milliseconds: the `now` the bindings pass to the
/// core's guards and flows (`stamp`, `sign_retry`, …), since wasm32-unknown-unknown
/// has no clock the core could read.
pub fn now_ms() -> UnixMillis {
    platform_now() as UnixMillis
}

/// getrandom's custom backend: the shipped modules are built with
/// `--cfg getrandom_backend="custom"` (scripts/build-pkg.sh), so every random byte the core
/// draws comes from the captured `crypto.getRandomValues`, in chunks of at most 65,536
/// bytes (its quota). Other wasm32 builds (the tests) use getrandom's `wasm_js` backend and
/// leave this unused.
///
/// # Safety
///
/// `dest` must be valid for writes of `len` bytes (getrandom's contract).
#[no_mangle]
unsafe extern "Rust" fn __getrandom_v03_custom(
    dest: *mut u8,
    len: usize,
) -> Result<(), getrandom::Error> {
    if len == 0 {
        return Ok(());
    }
    // Initialised before a slice is made of it (getrandom may hand over uninitialised bytes).
    core::ptr::write_bytes(dest, 0, len);
    let dest = core::slice::from_raw_parts_mut(dest, len);
    for chunk in dest.chunks_mut(65_536) {
        if platform_get_random_values(chunk).is_err() {
            return Err(getrandom::Error::UNSUPPORTED);
        }
    }
    Ok(())
}

// Talc instead of the default dlmalloc: a smaller module, and faster.
#[cfg(not(target_feature = "atomics"))]
#[global_allocator]
static ALLOCATOR: talc::wasm::WasmDynamicTalc = talc::wasm::new_wasm_dynamic_allocator();

/// The shipped modules' panic handler (feature `trap-panics`, set by scripts/build-pkg.sh):
/// a trap, the JS caller sees a `RuntimeError: unreachable`. The kit returns typed
/// `KitError`s for bad input and does not panic by design, so a panic is a bug; trapping
/// at once keeps the formatting machinery, the panic messages and their source locations
/// out of the module (a few KB gzip). The tests link std, whose handler they use.
#[cfg(feature = "trap-panics")]
#[panic_handler]
fn trap(_: &core::panic::PanicInfo<'_>) -> ! {
    core::arch::wasm32::unreachable()
}

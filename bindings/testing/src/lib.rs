//! The testing wasm module (the package's `testing` entry): the software authenticator
//! as a JS class, for tests only.
#![cfg(target_arch = "wasm32")]
#![no_std]
// The tests may format; the library may not (bindings/clippy.toml).
#![cfg_attr(test, allow(clippy::disallowed_macros))]

extern crate alloc;
#[cfg(test)]
extern crate std;

use wasm_bindgen::prelude::*;

use embedded_wallet_kit::passkey::SoftAuthenticator;
use ewk_common::passkey_input::{
    assertion_object, attestation_object, authentication_input, registration_input,
};
use ewk_common::scrubbed;
use ewk_common::to_js;

/// An in-memory WebAuthn authenticator bound to one page origin, for tests only: real
/// ES256 credentials in the shapes `passkey.register` / `passkey.authenticate` resolve to.
#[wasm_bindgen(js_name = SoftAuthenticator)]
pub struct JsSoftAuthenticator(SoftAuthenticator);

#[wasm_bindgen(js_class = SoftAuthenticator)]
impl JsSoftAuthenticator {
    /// An authenticator for pages of `origin` (`http(s)://host[:port]`).
    #[wasm_bindgen(constructor)]
    pub fn new(origin: &str) -> Result<JsSoftAuthenticator, JsValue> {
        scrubbed(|| SoftAuthenticator::new(origin).map(Self).map_err(to_js))
    }

    /// Creates a credential, as `passkey.register(options)` with "none" attestation. Synchronous.
    #[wasm_bindgen(unchecked_return_type = "PasskeyAttestation")]
    pub fn register(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "PasskeyRegisterOptions")] options: JsValue,
    ) -> Result<js_sys::Object, JsValue> {
        scrubbed(|| {
            let registration = registration_input(&options)?.validate().map_err(to_js)?;
            let attestation = self.0.register(&registration).map_err(to_js)?;
            Ok(attestation_object(&attestation))
        })
    }

    /// Signs an assertion with one credential it created, as `passkey.authenticate(options)`.
    /// `rpId` defaults to the origin's host. Synchronous. `userHandle` is always present.
    #[wasm_bindgen(unchecked_return_type = "PasskeyAssertion & { userHandle: string }")]
    pub fn authenticate(
        &mut self,
        #[wasm_bindgen(unchecked_param_type = "PasskeyAuthenticateOptions")] options: JsValue,
    ) -> Result<js_sys::Object, JsValue> {
        scrubbed(|| {
            let authentication = authentication_input(&options)?.validate().map_err(to_js)?;
            let assertion = self.0.authenticate(&authentication).map_err(to_js)?;
            Ok(assertion_object(&assertion))
        })
    }
}

// The generated declarations (embedded_wallet_kit_testing.d.ts, copied to tests/types/glue/)
// name these interfaces; they are declared once, in npm/index.d.ts.
#[wasm_bindgen(typescript_custom_section)]
const PUBLIC_TYPES: &str = "import type { PasskeyAssertion, PasskeyAttestation, PasskeyAuthenticateOptions, PasskeyRegisterOptions } from './index.js';";

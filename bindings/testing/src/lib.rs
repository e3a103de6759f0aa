//! The testing wasm module (the package's `testing` entry): the software authenticator
//! as a JS class, for tests only.
#![cfg(target_arch = "wasm32")]

use wasm_bindgen::prelude::*;

use embedded_wallet_kit::passkey::SoftAuthenticator;
use ewk_common::passkey_input::{
    assertion_object, attestation_object, authentication_input, registration_input,
};
use ewk_common::scrubbed;
use ewk_common::to_js;

/// An in-memory WebAuthn authenticator bound to one page origin. It answers with real
/// ES256 credentials in the shapes `passkey.register` / `passkey.authenticate` return,
/// for tests where no browser authenticator exists. Never for real users.
#[wasm_bindgen(js_name = SoftAuthenticator)]
pub struct JsSoftAuthenticator(SoftAuthenticator);

#[wasm_bindgen(js_class = SoftAuthenticator)]
impl JsSoftAuthenticator {
    /// An authenticator for pages of `origin`, e.g. `http://localhost:8787`.
    #[wasm_bindgen(constructor)]
    pub fn new(origin: &str) -> Result<JsSoftAuthenticator, JsValue> {
        scrubbed(|| SoftAuthenticator::new(origin).map(Self).map_err(to_js))
    }

    /// Like `passkey.register(options)` (the `signal` option is ignored).
    pub fn register(&mut self, options: JsValue) -> Result<js_sys::Object, JsValue> {
        scrubbed(|| {
            let registration = registration_input(&options)?.validate().map_err(to_js)?;
            let attestation = self.0.register(&registration).map_err(to_js)?;
            Ok(attestation_object(&attestation))
        })
    }

    /// Like `passkey.authenticate(options)`.
    pub fn authenticate(&mut self, options: JsValue) -> Result<js_sys::Object, JsValue> {
        scrubbed(|| {
            let authentication = authentication_input(&options)?.validate().map_err(to_js)?;
            let assertion = self.0.authenticate(&authentication).map_err(to_js)?;
            Ok(assertion_object(&assertion))
        })
    }
}

//! `ClientKey.signRetry`: the temporary encryption key (TEK) of the encrypted OTP login
//! stamps the login's 202 before any session exists. A method of ClientKey, so
//! it is this crate's (a Rust type's methods live in its crate); the rest of the newer
//! deployments' exports (`encryptOtp`, `openWalletExport`) are the wallet module's
//! (bindings/wallet/src/enclave.rs).

use js_sys::Object;
use wasm_bindgen::prelude::*;

use crate::signing::{headers_to_js, pending_from_js, JsClientKey};
use embedded_wallet_kit::enclave::sign_with_tek;
use ewk_common::scrubbed;
use ewk_common::to_js;

type JsResult<T> = Result<T, JsValue>;

#[wasm_bindgen(js_class = ClientKey)]
impl JsClientKey {
    /// Both retry headers for a 202, stamped with this key (the TEK): the encrypted OTP
    /// login's second leg, before any session exists. Does not consume the key.
    #[wasm_bindgen(js_name = signRetry, unchecked_return_type = "SignedRetryHeaders")]
    pub fn sign_retry(
        &self,
        #[wasm_bindgen(js_name = pending202, unchecked_param_type = "PendingSignature | string")]
        pending: &JsValue,
    ) -> JsResult<Object> {
        scrubbed(|| {
            let pending = pending_from_js(pending)?;
            let now = ewk_common::now_ms();
            let headers = self
                .handle()
                .write(|k| sign_with_tek(k, &pending, now).map_err(to_js));
            headers.map(|h| headers_to_js(&h))
        })
    }
}

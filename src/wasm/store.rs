//! The session store's wasm side (js/session-store.js is the public part): importing a
//! key into WebCrypto as non-extractable, the guards and stamps of a session whose key
//! lives there, and opening a bundle with a WebCrypto ECDH result. The `__` names are
//! internal: the package's classes hide them, and the store calls them on the raw ones.

use js_sys::{Array, Object, Promise};
use wasm_bindgen::prelude::*;

use super::js::scrub_stack;
use super::js::set;
use super::signing::{object_or_json, pending_from_js, quote_from_js, JsClientKey, JsSession};
use super::to_js;
use crate::client_key::parse_public_key_hex;
use crate::error::{Error, ErrorCode};

type JsResult<T> = Result<T, JsValue>;

#[wasm_bindgen]
extern "C" {
    /// `crypto.subtle.importKey`. The engine copies `key_data` before it returns, so the
    /// view into wasm memory can be wiped as soon as the call is back.
    #[wasm_bindgen(catch, js_namespace = ["crypto", "subtle"], js_name = importKey)]
    fn subtle_import_key(
        format: &str,
        key_data: &[u8],
        algorithm: &Object,
        extractable: bool,
        usages: &Array,
    ) -> Result<Promise, JsValue>;
}

/// Imports PKCS#8 `der` as a non-extractable P-256 key for `algorithm` (ECDSA or ECDH).
fn import_non_extractable(der: &[u8], algorithm: &str, usage: &str) -> JsResult<Promise> {
    let params = Object::new();
    set(&params, "name", algorithm);
    set(&params, "namedCurve", "P-256");
    let usages = Array::of1(&JsValue::from_str(usage));
    subtle_import_key("pkcs8", der, &params, false, &usages).map_err(|_| {
        to_js(Error::new(
            ErrorCode::InvalidInput,
            "crypto.subtle.importKey is not available (WebCrypto needs a secure context)",
        ))
    })
}

#[wasm_bindgen(js_class = ClientKey)]
impl JsClientKey {
    /// The key as a non-extractable WebCrypto ECDH key (kept across an OAUTH redirect).
    #[wasm_bindgen(js_name = __importKey)]
    pub fn import_key(&self) -> JsResult<Promise> {
        let der = crate::webcrypto::pkcs8_der(self.0.secret().map_err(to_js)?);
        let promise = import_non_extractable(&der, "ECDH", "deriveBits");
        drop(der);
        scrub_stack();
        promise
    }
}

#[wasm_bindgen(js_class = Session)]
impl JsSession {
    /// The session key as a non-extractable WebCrypto ECDSA signing key.
    #[wasm_bindgen(js_name = __importKey)]
    pub fn import_key(&self) -> JsResult<Promise> {
        let der = self.0.key_pkcs8().map_err(to_js)?;
        let promise = import_non_extractable(&der, "ECDSA", "sign");
        drop(der);
        scrub_stack();
        promise
    }

    /// A session restored from a store record (`id`, `accountId`, `type`, `expiresAt`)
    /// whose key is in WebCrypto; `publicKeyHex` is that key's public half.
    #[wasm_bindgen(js_name = __external)]
    pub fn external(record: &JsValue, public_key_hex: &str) -> JsResult<JsSession> {
        let fields = object_or_json(record, ErrorCode::InvalidSession, "stored session")?;
        let public =
            parse_public_key_hex(public_key_hex, "stored session publicKeyHex").map_err(to_js)?;
        crate::Session::external(&fields, public)
            .map(JsSession)
            .map_err(to_js)
    }

    /// Checks the session may stamp now; returns the exact payload to sign.
    #[wasm_bindgen(js_name = __authorizeStamp)]
    pub fn authorize_stamp(&self, payload: &JsValue) -> JsResult<String> {
        let payload = super::js::exact_string(payload, "payloadToSign", ErrorCode::InvalidInput)?;
        self.0.authorize_stamp().map_err(to_js)?;
        Ok(payload)
    }

    /// The guards of `signRetry` (the requestId is then spent); returns
    /// `{ payloadToSign, requestId }`.
    #[wasm_bindgen(js_name = __authorizeRetry)]
    pub fn authorize_retry(&mut self, pending: &JsValue) -> JsResult<Object> {
        let pending = pending_from_js(pending)?;
        self.0.authorize_retry(&pending).map_err(to_js)?;
        let out = Object::new();
        set(&out, "payloadToSign", &pending.payload_to_sign);
        set(&out, "requestId", &pending.request_id);
        Ok(out)
    }

    /// The guards of `signQuote`; returns the payload to sign.
    #[wasm_bindgen(js_name = __authorizeQuote)]
    pub fn authorize_quote(&self, quote: &JsValue) -> JsResult<String> {
        let quote = quote_from_js(quote)?;
        self.0.authorize_quote(&quote).map_err(to_js)?;
        Ok(quote.payload_to_sign)
    }

    /// The stamp from WebCrypto's signature (64-byte `r ‖ s`) of an authorized payload.
    #[wasm_bindgen(js_name = __stampFromP1363)]
    pub fn stamp_from_p1363(&self, signature: &[u8]) -> JsResult<String> {
        self.0.stamp_from_p1363(signature).map_err(to_js)
    }

    /// The uncompressed encapsulated key of a verify/refresh response's bundle.
    #[wasm_bindgen(js_name = __encapsulatedKey)]
    pub fn encapsulated_key(response: &JsValue) -> JsResult<Vec<u8>> {
        let fields = object_or_json(response, ErrorCode::InvalidSession, "session response")?;
        crate::Session::encapsulated_key(&fields).map_err(to_js)
    }

    /// Opens a verify/refresh response with the ECDH result `dh` of a WebCrypto-kept
    /// client key (public half `publicKeyHex`) and the bundle's encapsulated key.
    #[wasm_bindgen(js_name = __openWithDh)]
    pub fn open_with_dh(
        response: &JsValue,
        dh: Vec<u8>,
        public_key_hex: &str,
    ) -> JsResult<JsSession> {
        // Owned, so this copy of the ECDH result is wiped here (JS wipes its own).
        let dh = zeroize::Zeroizing::new(dh);
        let fields = object_or_json(response, ErrorCode::InvalidSession, "session response")?;
        let public = parse_public_key_hex(public_key_hex, "client publicKeyHex").map_err(to_js)?;
        let session = crate::Session::open_with_dh(&fields, &dh, &public);
        scrub_stack();
        session.map(JsSession).map_err(to_js)
    }
}

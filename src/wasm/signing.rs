//! The signing exports: `ClientKey` and `Session`.

use js_sys::Object;
use wasm_bindgen::prelude::*;

use super::js::{date_millis, exact_string, own, own_keys, scrub_stack, set};
pub(crate) use super::js::{object_or_json, JsFields};
use super::{invalid_input, to_js};
use crate::error::ErrorCode;
use crate::signed_retry::{PendingSignature, QuoteToSign, REQUEST_ID_HEADER, SIGNATURE_HEADER};
use crate::timestamp::UnixMillis;

type JsResult<T> = Result<T, JsValue>;

/// A 202 or quote whose `payloadToSign`, when it is a string, has an exact UTF-8 form.
pub(crate) fn with_exact_payload(
    value: &JsValue,
    code: ErrorCode,
    what: &str,
) -> JsResult<JsFields> {
    let fields = object_or_json(value, code, what)?;
    if let Some(payload) = own(&fields.0, "payloadToSign").filter(JsValue::is_string) {
        exact_string(&payload, &format!("{what} payloadToSign"), code)?;
    }
    Ok(fields)
}

/// `{ compressed?: boolean }` (absent: uncompressed). Anything else, unknown members
/// included, is `INVALID_INPUT`: a misspelt option must not silently give the other nonce.
fn key_form(options: &JsValue) -> JsResult<crate::KeyForm> {
    const SHAPE: &str = "oidcNonce options must be an object like { compressed: true }";
    if options.is_undefined() || options.is_null() {
        return Ok(crate::KeyForm::Uncompressed);
    }
    if !options.is_object() || options.is_function() || super::js::is_array(options) {
        return Err(invalid_input(SHAPE));
    }
    let keys = own_keys(options).map_err(|_| invalid_input(SHAPE))?;
    if keys.iter().any(|k| k != "compressed") {
        return Err(invalid_input(
            "oidcNonce options take only `compressed` (a boolean)",
        ));
    }
    match own(options, "compressed").filter(|v| !v.is_undefined()) {
        None => Ok(crate::KeyForm::Uncompressed),
        Some(v) => match v.as_bool() {
            Some(true) => Ok(crate::KeyForm::Compressed),
            Some(false) => Ok(crate::KeyForm::Uncompressed),
            None => Err(invalid_input("options.compressed must be a boolean")),
        },
    }
}

fn date(ms: UnixMillis) -> js_sys::Date {
    js_sys::Date::new(&JsValue::from_f64(ms as f64))
}

/// An ephemeral P-256 client key. Its private half never leaves wasm memory.
#[wasm_bindgen(js_name = ClientKey)]
pub struct JsClientKey(pub(crate) crate::ClientKey);

#[wasm_bindgen(js_class = ClientKey)]
impl JsClientKey {
    /// Generates a key from `crypto.getRandomValues`.
    pub fn generate() -> JsResult<JsClientKey> {
        let key = crate::ClientKey::generate().map(JsClientKey).map_err(to_js);
        scrub_stack();
        key
    }

    /// Uncompressed SEC1 lowercase hex (130 chars): the `clientPublicKey` to send.
    #[wasm_bindgen(getter, js_name = publicKeyHex)]
    pub fn public_key_hex(&self) -> String {
        self.0.public_key_hex()
    }

    /// Compressed SEC1 lowercase hex (66 chars).
    #[wasm_bindgen(getter, js_name = compressedPublicKeyHex)]
    pub fn compressed_public_key_hex(&self) -> String {
        self.0.compressed_public_key_hex()
    }

    /// The OAUTH nonce: hex SHA-256 of the `clientPublicKey` string sent: `publicKeyHex`,
    /// or `compressedPublicKeyHex` with `{ compressed: true }` (the client-held flow).
    #[wasm_bindgen(js_name = oidcNonce)]
    pub fn oidc_nonce(&self, options: &JsValue) -> JsResult<String> {
        Ok(self.0.oidc_nonce_for_form(key_form(options)?))
    }

    /// Whether the key was used (or closed) already.
    #[wasm_bindgen(getter)]
    pub fn consumed(&self) -> bool {
        self.0.is_consumed()
    }

    /// Zeroizes the private key now; the JS `free()` calls this.
    pub fn close(&mut self) {
        self.0.consume();
        scrub_stack();
    }
}

/// A signing session.
#[wasm_bindgen(js_name = Session)]
pub struct JsSession(pub(crate) crate::Session);

const SESSION_RESPONSE: &str = "session response";

#[wasm_bindgen(js_class = Session)]
impl JsSession {
    /// Opens a verify/refresh response (object or JSON text) with `key`, consuming it.
    pub fn open(response: &JsValue, key: &mut JsClientKey) -> JsResult<JsSession> {
        key.0.check_unused().map_err(to_js)?;
        let fields = object_or_json(response, ErrorCode::InvalidSession, SESSION_RESPONSE)?;
        let session = crate::Session::open(&fields, &mut key.0);
        scrub_stack(); // decryption left copies of the scalar in dead frames
        session.map(JsSession).map_err(to_js)
    }

    /// A sandbox session: signs with the magic value, never reads the bundle.
    pub fn sandbox(response: &JsValue) -> JsResult<JsSession> {
        let fields = object_or_json(response, ErrorCode::InvalidSession, SESSION_RESPONSE)?;
        crate::Session::sandbox(&fields)
            .map(JsSession)
            .map_err(to_js)
    }

    /// Newer API versions: the client key is the session key.
    #[wasm_bindgen(js_name = fromClientKey)]
    pub fn from_client_key(response: &JsValue, key: &mut JsClientKey) -> JsResult<JsSession> {
        key.0.check_unused().map_err(to_js)?;
        let fields = object_or_json(response, ErrorCode::InvalidSession, SESSION_RESPONSE)?;
        let session = crate::Session::from_client_key(&fields, &mut key.0);
        scrub_stack();
        session.map(JsSession).map_err(to_js)
    }

    /// `Session:<uuid>`.
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        self.0.info().id.clone()
    }

    /// The internal account id.
    #[wasm_bindgen(getter, js_name = accountId)]
    pub fn account_id(&self) -> String {
        self.0.info().account_id.clone()
    }

    /// The credential type.
    #[wasm_bindgen(getter, js_name = type)]
    pub fn kind(&self) -> String {
        self.0.info().kind.clone()
    }

    /// When the session stops signing.
    #[wasm_bindgen(getter, js_name = expiresAt)]
    pub fn expires_at(&self) -> js_sys::Date {
        date(self.0.info().expires_at_ms)
    }

    /// Compressed session public key hex; `undefined` for sandbox or freed sessions.
    #[wasm_bindgen(getter, js_name = publicKeyHex)]
    pub fn public_key_hex(&self) -> Option<String> {
        self.0.public_key_hex()
    }

    /// Whether this is a sandbox session.
    #[wasm_bindgen(getter)]
    pub fn sandboxed(&self) -> bool {
        self.0.is_sandbox()
    }

    /// Whether `now` (a Date or epoch milliseconds; default: the current time) is at or
    /// after `expiresAt`.
    #[wasm_bindgen(js_name = isExpired)]
    pub fn is_expired(&self, now: &JsValue) -> JsResult<bool> {
        if now.is_undefined() || now.is_null() {
            return Ok(self.0.is_expired());
        }
        let ms = match now.as_f64() {
            Some(ms) => ms,
            None => date_millis(now)
                .ok_or_else(|| invalid_input("now must be a Date or epoch milliseconds"))?,
        };
        if !ms.is_finite() {
            return Err(invalid_input("now is an invalid Date"));
        }
        Ok(self.0.is_expired_at(ms as UnixMillis))
    }

    /// The `Service-Wallet-Signature` value for `payloadToSign`, byte for byte.
    pub fn stamp(&self, payload: &JsValue) -> JsResult<String> {
        let payload = exact_string(payload, "payloadToSign", ErrorCode::InvalidInput)?;
        let stamp = self.0.stamp(&payload);
        scrub_stack(); // signing left the scalar and the nonce in dead frames
        stamp.map_err(to_js)
    }

    /// Both headers of a signed retry, from a 202 body (object or JSON text).
    #[wasm_bindgen(js_name = signRetry)]
    pub fn sign_retry(&mut self, pending: &JsValue) -> JsResult<Object> {
        let pending = pending_from_js(pending)?;
        let headers = self.0.sign_retry(&pending);
        scrub_stack();
        headers.map(|h| headers_to_js(&h)).map_err(to_js)
    }

    /// `{ "Service-Wallet-Signature" }` for executing a quote (reads only payloadToSign
    /// and expiresAt).
    #[wasm_bindgen(js_name = signQuote)]
    pub fn sign_quote(&self, quote: &JsValue) -> JsResult<Object> {
        let quote = quote_from_js(quote)?;
        let signature = self.0.sign_quote(&quote);
        scrub_stack();
        let signature = signature.map_err(to_js)?;
        let out = Object::new();
        set(&out, SIGNATURE_HEADER, &signature);
        Ok(out)
    }

    /// Zeroizes the session key now; the JS `free()` calls this. Later signing calls
    /// throw `SESSION_CLOSED`.
    pub fn close(&mut self) {
        self.0.close();
        scrub_stack();
    }
}

/// Exactly `{ "Service-Wallet-Signature", "Request-Id" }`.
pub(crate) fn headers_to_js(headers: &crate::SignedRetryHeaders) -> Object {
    let out = Object::new();
    set(&out, SIGNATURE_HEADER, &headers.signature);
    set(&out, REQUEST_ID_HEADER, &headers.request_id);
    out
}

/// A 202 body (object or JSON text) as the core reads it.
pub(crate) fn pending_from_js(pending: &JsValue) -> JsResult<PendingSignature> {
    let fields = with_exact_payload(
        pending,
        ErrorCode::InvalidPendingSignature,
        "202 PendingSignature",
    )?;
    PendingSignature::from_fields(&fields).map_err(to_js)
}

/// A quote (object or JSON text): only its payloadToSign and expiresAt.
pub(crate) fn quote_from_js(quote: &JsValue) -> JsResult<QuoteToSign> {
    let fields = with_exact_payload(quote, ErrorCode::InvalidInput, "quote")?;
    QuoteToSign::from_fields(&fields).map_err(to_js)
}

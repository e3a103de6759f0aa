//! The signing exports: `ClientKey` and `Session`. Page script sees them through the
//! handle classes of npm/guard.js; what they promise users is documented once, in
//! npm/index.d.ts (tests/types/glue-agrees.ts holds the types of both together).

use core::cell::{Cell, RefCell};
use ewk_common::prelude::*;

use js_sys::Object;
use wasm_bindgen::prelude::*;

use embedded_wallet_kit::UnixMillis;
use embedded_wallet_kit::{Error, ErrorCode};
use embedded_wallet_kit::{PendingSignature, QuoteToSign, REQUEST_ID_HEADER, SIGNATURE_HEADER};
use ewk_common::js::{date_millis, exact_string, own, own_keys, set};
use ewk_common::js::{object_or_json, JsFields};
use ewk_common::scrubbed;
use ewk_common::{invalid_input, now_ms, to_js};

type JsResult<T> = Result<T, JsValue>;

/// A 202 or quote whose `payloadToSign`, when it is a string, has an exact UTF-8 form.
fn with_exact_payload(value: &JsValue, code: ErrorCode, what: &str) -> JsResult<JsFields> {
    let fields = object_or_json(value, code, what)?;
    if let Some(payload) = own(&fields.0, "payloadToSign").filter(JsValue::is_string) {
        exact_string(&payload, &[what, " payloadToSign"].concat(), code)?;
    }
    Ok(fields)
}

/// `{ compressed?: boolean }` (absent: uncompressed). Anything else, unknown members
/// included, is `INVALID_INPUT`: a misspelt option must not silently give the other nonce.
fn key_form(options: &JsValue) -> JsResult<embedded_wallet_kit::KeyForm> {
    const SHAPE: &str = "oidcNonce options must be an object like { compressed: true }";
    if options.is_undefined() || options.is_null() {
        return Ok(embedded_wallet_kit::KeyForm::Uncompressed);
    }
    if !options.is_object() || options.is_function() || ewk_common::js::is_array(options) {
        return Err(invalid_input(SHAPE));
    }
    let keys = own_keys(options).map_err(|_| invalid_input(SHAPE))?;
    if keys.iter().any(|k| k != "compressed") {
        return Err(invalid_input(
            "oidcNonce options take only `compressed` (a boolean)",
        ));
    }
    match own(options, "compressed").filter(|v| !v.is_undefined()) {
        None => Ok(embedded_wallet_kit::KeyForm::Uncompressed),
        Some(v) => match v.as_bool() {
            Some(true) => Ok(embedded_wallet_kit::KeyForm::Compressed),
            Some(false) => Ok(embedded_wallet_kit::KeyForm::Uncompressed),
            None => Err(invalid_input("options.compressed must be a boolean")),
        },
    }
}

fn date(ms: UnixMillis) -> js_sys::Date {
    js_sys::Date::new(&JsValue::from_f64(ms as f64))
}

/// What `free()` does to the state behind a handle, and the error a call gets when a
/// `free()` from inside it (a getter, a replaced `Date.now`) closed it meanwhile.
pub trait Closable {
    /// INVALID_INPUT for a call that re-enters a handle in use.
    const BUSY: &'static str;
    fn close_now(&mut self);
    fn closed_during_call() -> Error;
}

impl Closable for embedded_wallet_kit::ClientKey {
    const BUSY: &'static str =
        "this ClientKey is in use by a call that has not returned (re-entered from a getter or callback)";
    fn close_now(&mut self) {
        self.consume();
    }
    fn closed_during_call() -> Error {
        Error::new(
            ErrorCode::KeyConsumed,
            "this ClientKey was freed during the call; its key is gone",
        )
    }
}

impl Closable for embedded_wallet_kit::Session {
    const BUSY: &'static str =
        "this Session is in use by a call that has not returned (re-entered from a getter or callback)";
    fn close_now(&mut self) {
        self.close();
    }
    fn closed_during_call() -> Error {
        Error::new(
            ErrorCode::SessionClosed,
            "this session was freed during the call; its key is gone",
        )
    }
}

/// The state behind a `ClientKey` or `Session` handle.
///
/// Boxed by [`boxed`] before the export scrubs the stack, so wasm-bindgen's wrapper (which
/// runs after the export returns, in frames no scrub reaches) moves a pointer, not the key.
/// Borrowed here per call, with every export taking `&self`: wasm-bindgen's own borrow
/// would turn a getter that re-enters the handle into its plain "recursive use" Error and
/// leave the key unzeroized; here the re-entrant call gets a KitError, and a `free()`
/// made while the state is in use zeroizes it as soon as the call lets go.
pub struct Handle<T: Closable> {
    state: RefCell<Box<T>>,
    close_pending: Cell<bool>,
}

impl<T: Closable> Handle<T> {
    fn new(state: Box<T>) -> Self {
        Self {
            state: RefCell::new(state),
            close_pending: Cell::new(false),
        }
    }

    #[cold]
    #[inline(never)]
    fn busy() -> JsValue {
        invalid_input(T::BUSY)
    }

    /// A `free()` requested while the state was borrowed, carried out now that it is not;
    /// whether there was one.
    #[inline(never)]
    fn settle(&self) -> bool {
        if !self.close_pending.get() {
            return false;
        }
        if let Ok(mut state) = self.state.try_borrow_mut() {
            self.close_pending.set(false);
            state.close_now();
        }
        true
    }

    #[cold]
    #[inline(never)]
    fn closed() -> JsValue {
        to_js(T::closed_during_call())
    }

    /// Reads public parts (still readable after a close).
    pub fn read<R>(&self, f: impl FnOnce(&T) -> R) -> JsResult<R> {
        let value = f(&**self.state.try_borrow().map_err(|_| Self::busy())?);
        self.settle();
        Ok(value)
    }

    /// Uses the key. A `free()` during the call wins: the result is dropped (a new
    /// session is zeroized with it) and the call throws the closed error.
    pub fn write<R>(&self, f: impl FnOnce(&mut T) -> JsResult<R>) -> JsResult<R> {
        let result = f(&mut **self.state.try_borrow_mut().map_err(|_| Self::busy())?);
        if self.settle() {
            drop(result);
            return Err(Self::closed());
        }
        result
    }

    /// Zeroizes now, or when the call using the state lets go of it.
    fn close(&self) {
        self.close_pending.set(true);
        self.settle();
    }
}

/// Runs `make` and moves its result to the heap in a frame of its own, below the export's:
/// the export's scrub (`scrubbed`) then overwrites every stack copy the construction left.
#[inline(never)]
pub fn boxed<T>(make: impl FnOnce() -> embedded_wallet_kit::Result<T>) -> JsResult<Box<T>> {
    make().map(Box::new).map_err(to_js)
}

/// An ephemeral P-256 key pair in wasm memory; its private half never leaves it.
#[wasm_bindgen(js_name = ClientKey)]
pub struct JsClientKey(Handle<embedded_wallet_kit::ClientKey>);

impl JsClientKey {
    /// A handle on `key` (tests, and the bindings that restore one).
    pub fn from_key(key: embedded_wallet_kit::ClientKey) -> Self {
        Self(Handle::new(Box::new(key)))
    }

    /// The key's state, for the wallet module's bindings (enclave, store): not an export.
    pub fn handle(&self) -> &Handle<embedded_wallet_kit::ClientKey> {
        &self.0
    }
}

#[wasm_bindgen(js_class = ClientKey)]
impl JsClientKey {
    /// Generates a fresh key from the platform's secure random source.
    pub fn generate() -> JsResult<JsClientKey> {
        scrubbed(|| {
            let key = boxed(embedded_wallet_kit::ClientKey::generate);
            key.map(|key| JsClientKey(Handle::new(key)))
        })
    }

    /// Uncompressed SEC1 public key, 130 lowercase hex chars, `^04[0-9a-f]{128}$`: send this as `clientPublicKey`.
    #[wasm_bindgen(getter, js_name = publicKeyHex)]
    pub fn public_key_hex(&self) -> JsResult<String> {
        scrubbed(|| self.0.read(|k| k.public_key_hex()))
    }

    /// Compressed SEC1 public key, 66 lowercase hex chars (`02`/`03` prefix).
    #[wasm_bindgen(getter, js_name = compressedPublicKeyHex)]
    pub fn compressed_public_key_hex(&self) -> JsResult<String> {
        scrubbed(|| self.0.read(|k| k.compressed_public_key_hex()))
    }

    /// The OIDC `nonce` of the `clientPublicKey` sent, in the form `options` names.
    #[wasm_bindgen(js_name = oidcNonce)]
    pub fn oidc_nonce(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "{ compressed?: boolean }")]
        options: &JsValue,
    ) -> JsResult<String> {
        scrubbed(|| {
            let form = key_form(options)?;
            self.0.read(|k| k.oidc_nonce_for_form(form))
        })
    }

    /// Whether the key was already used to open a session, or freed.
    #[wasm_bindgen(getter)]
    pub fn consumed(&self) -> JsResult<bool> {
        scrubbed(|| self.0.read(|k| k.is_consumed()))
    }

    /// Zeroizes the private key now; a later `Session.open` with it throws `KEY_CONSUMED`.
    /// The object stays usable for its public key: {@link free} also releases its memory.
    // npm/guard.js calls this for a `free()` made during a call (it releases the memory
    // when the call returns).
    pub fn close(&self) {
        scrubbed(|| {
            self.0.close();
        })
    }
}

/// An authenticated session whose P-256 signing key lives only in wasm memory.
#[wasm_bindgen(js_name = Session)]
pub struct JsSession(Handle<embedded_wallet_kit::Session>);

impl JsSession {
    pub fn from_boxed(session: Box<embedded_wallet_kit::Session>) -> Self {
        Self(Handle::new(session))
    }

    /// The session's state, for the wallet module's bindings (store): not an export.
    pub fn handle(&self) -> &Handle<embedded_wallet_kit::Session> {
        &self.0
    }
}

const SESSION_RESPONSE: &str = "session response";

/// Opens a session with `key` (consumed on success) in [`boxed`], then scrubs the stack:
/// decryption and the move to the heap left copies of both scalars in dead frames.
fn open_with_key(
    key: &JsClientKey,
    open: impl FnOnce(
        &mut embedded_wallet_kit::ClientKey,
    ) -> embedded_wallet_kit::Result<embedded_wallet_kit::Session>,
) -> JsResult<JsSession> {
    let session = key.0.write(|k| boxed(|| open(k)));
    session.map(JsSession::from_boxed)
}

#[wasm_bindgen(js_class = Session)]
impl JsSession {
    /// Opens the session bundle of a verify/refresh response with `key`, which it consumes.
    pub fn open(
        #[wasm_bindgen(unchecked_param_type = "SessionResponse | string")] response: &JsValue,
        key: &JsClientKey,
    ) -> JsResult<JsSession> {
        scrubbed(|| {
            key.0.read(|k| k.check_unused())?.map_err(to_js)?;
            let fields = object_or_json(response, ErrorCode::InvalidSession, SESSION_RESPONSE)?;
            open_with_key(key, |k| embedded_wallet_kit::Session::open(&fields, k))
        })
    }

    /// A sandbox session (API version 2025-10-13): never reads the bundle, and every
    /// signature is the literal `sandbox-valid-signature`.
    pub fn sandbox(
        #[wasm_bindgen(unchecked_param_type = "SessionResponse | string")] response: &JsValue,
    ) -> JsResult<JsSession> {
        scrubbed(|| {
            let fields = object_or_json(response, ErrorCode::InvalidSession, SESSION_RESPONSE)?;
            boxed(|| embedded_wallet_kit::Session::sandbox(&fields)).map(JsSession::from_boxed)
        })
    }

    /// Newer deployments: the client key itself becomes the session key (a compressed
    /// `clientPublicKey` was sent). A response carrying a bundle is `INVALID_SESSION`.
    #[wasm_bindgen(js_name = fromClientKey)]
    pub fn from_client_key(
        #[wasm_bindgen(unchecked_param_type = "SessionResponse | string")] response: &JsValue,
        key: &JsClientKey,
    ) -> JsResult<JsSession> {
        scrubbed(|| {
            key.0.read(|k| k.check_unused())?.map_err(to_js)?;
            let fields = object_or_json(response, ErrorCode::InvalidSession, SESSION_RESPONSE)?;
            open_with_key(key, |k| {
                embedded_wallet_kit::Session::from_client_key(&fields, k)
            })
        })
    }

    /// `Session:<uuid>`
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> JsResult<String> {
        scrubbed(|| self.0.read(|s| s.info().id.clone()))
    }

    /// `InternalAccount:<uuid>`
    #[wasm_bindgen(getter, js_name = accountId)]
    pub fn account_id(&self) -> JsResult<String> {
        scrubbed(|| self.0.read(|s| s.info().account_id.clone()))
    }

    /// `EMAIL_OTP`, `OAUTH` or `PASSKEY`.
    #[wasm_bindgen(getter, js_name = type)]
    pub fn kind(&self) -> JsResult<String> {
        scrubbed(|| self.0.read(|s| s.info().kind.clone()))
    }

    /// When the session key stops being usable.
    #[wasm_bindgen(getter, js_name = expiresAt)]
    pub fn expires_at(&self) -> JsResult<js_sys::Date> {
        scrubbed(|| {
            let ms = self.0.read(|s| s.info().expires_at_ms)?;
            Ok(date(ms))
        })
    }

    /// Compressed SEC1 public key of the session key, 66 lowercase hex chars; `undefined`
    /// for a sandbox session (it has no key) and after {@link free}.
    #[wasm_bindgen(getter, js_name = publicKeyHex)]
    pub fn public_key_hex(&self) -> JsResult<Option<String>> {
        scrubbed(|| self.0.read(|s| s.public_key_hex()))
    }

    /// How the session key came here: `'sealed'`, `'client-held'` or `'sandbox'`.
    #[wasm_bindgen(getter, js_name = keyMode, unchecked_return_type = "'sealed' | 'client-held' | 'sandbox'")]
    pub fn key_mode(&self) -> JsResult<String> {
        scrubbed(|| self.0.read(|s| s.key_mode().to_owned()))
    }

    /// Whether this is a {@link Session.sandbox} session.
    #[wasm_bindgen(getter)]
    pub fn sandboxed(&self) -> JsResult<bool> {
        scrubbed(|| self.0.read(|s| s.is_sandbox()))
    }

    /// Whether `expiresAt` has passed at `now` (a Date or epoch milliseconds; default: the
    /// current time). Throws `INVALID_INPUT` for an invalid Date.
    #[wasm_bindgen(js_name = isExpired)]
    pub fn is_expired(
        &self,
        #[wasm_bindgen(unchecked_optional_param_type = "Date | number")] now: &JsValue,
    ) -> JsResult<bool> {
        scrubbed(|| {
            if now.is_undefined() || now.is_null() {
                return self.0.read(|s| s.is_expired(now_ms()));
            }
            let ms = match now.as_f64() {
                Some(ms) => ms,
                None => date_millis(now)
                    .ok_or_else(|| invalid_input("now must be a Date or epoch milliseconds"))?,
            };
            if !ms.is_finite() {
                return Err(invalid_input("now is an invalid Date"));
            }
            self.0.read(|s| s.is_expired(ms as UnixMillis))
        })
    }

    /// The API-key stamp over the exact bytes of `payloadToSign`: the session checked, no
    /// requestId or expiry.
    pub fn stamp(
        &self,
        #[wasm_bindgen(js_name = payloadToSign, unchecked_param_type = "string")] payload: &JsValue,
    ) -> JsResult<String> {
        scrubbed(|| {
            let payload = exact_string(payload, "payloadToSign", ErrorCode::InvalidInput)?;

            self.0.write(|s| s.stamp(&payload, now_ms()).map_err(to_js))
        })
    }

    /// Both retry headers for a 202 (`PendingSignature`), each requestId signed once.
    #[wasm_bindgen(js_name = signRetry, unchecked_return_type = "SignedRetryHeaders")]
    pub fn sign_retry(
        &self,
        #[wasm_bindgen(js_name = pending202, unchecked_param_type = "PendingSignature | string")]
        pending: &JsValue,
    ) -> JsResult<Object> {
        scrubbed(|| {
            // Read (getters run) before the session is borrowed.
            let pending = pending_from_js(pending)?;
            let headers = self
                .0
                .write(|s| s.sign_retry(&pending, now_ms()).map_err(to_js));
            headers.map(|h| headers_to_js(&h))
        })
    }

    /// The signature header for a quote's `payloadToSign` (its expiry checked).
    #[wasm_bindgen(js_name = signQuote, unchecked_return_type = "QuoteSignatureHeader")]
    pub fn sign_quote(
        &self,
        #[wasm_bindgen(unchecked_param_type = "Quote | string")] quote: &JsValue,
    ) -> JsResult<Object> {
        scrubbed(|| {
            let quote = quote_from_js(quote)?;
            let signature = self
                .0
                .write(|s| s.sign_quote(&quote, now_ms()).map_err(to_js));
            let out = Object::new();
            set(&out, SIGNATURE_HEADER, &signature?);
            Ok(out)
        })
    }

    /// Zeroizes the session key now; any later signing call throws `SESSION_CLOSED`. The
    /// object stays usable for its public facts: {@link free} also releases its memory.
    // npm/guard.js calls this for a `free()` made during a call (it releases the memory
    // when the call returns).
    pub fn close(&self) {
        scrubbed(|| {
            self.0.close();
        })
    }
}

/// Exactly `{ "Service-Wallet-Signature", "Request-Id" }`.
pub fn headers_to_js(headers: &embedded_wallet_kit::SignedRetryHeaders) -> Object {
    let out = Object::new();
    set(&out, SIGNATURE_HEADER, &headers.signature);
    set(&out, REQUEST_ID_HEADER, &headers.request_id);
    out
}

/// A 202 body (object or JSON text) as the core reads it.
pub fn pending_from_js(pending: &JsValue) -> JsResult<PendingSignature> {
    let fields = with_exact_payload(
        pending,
        ErrorCode::InvalidPendingSignature,
        "202 PendingSignature",
    )?;
    PendingSignature::from_fields(&fields).map_err(to_js)
}

/// A quote (object or JSON text): only its payloadToSign and expiresAt.
pub fn quote_from_js(quote: &JsValue) -> JsResult<QuoteToSign> {
    let fields = with_exact_payload(quote, ErrorCode::InvalidInput, "quote")?;
    QuoteToSign::from_fields(&fields).map_err(to_js)
}

//! Drives `navigator.credentials` (wasm32 only). One ceremony at a time: a new call
//! aborts the previous one, `cancel()` aborts the current one, a caller's AbortSignal is
//! honoured, and a watchdog ends a ceremony the browser never settles (a request with no
//! authenticator can hang forever). Bindings are the kit's own, all with `catch`, so no
//! consumer ever needs `web_sys_unstable_apis`, and odd objects (extensions that replace
//! `navigator.credentials`) give typed errors, not panics.

use alloc::rc::Rc;
use core::cell::{Cell, RefCell};
use ewk_common::prelude::*;

use js_sys::{Array, Function, Object, Promise, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal};

use embedded_wallet_kit::passkey::{classify, Ceremony, Circumstances};
use embedded_wallet_kit::passkey::{Assertion, Attestation};
use embedded_wallet_kit::passkey::{Authentication, Registration, PUB_KEY_CRED_ALGS};
use embedded_wallet_kit::{Error, ErrorCode};
use ewk_common::{to_js, to_js_with_cause, SingleThread};

/// How long after the requested timeout the watchdog gives up on the browser.
const WATCHDOG_GRACE_MS: u32 = 1_000;

#[wasm_bindgen]
extern "C" {
    /// `navigator.credentials`, typed only as far as the kit uses it.
    type Credentials;

    #[wasm_bindgen(catch, method)]
    fn create(this: &Credentials, options: &Object) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, method)]
    fn get(this: &Credentials, options: &Object) -> Result<Promise, JsValue>;

    #[wasm_bindgen(catch, js_name = setTimeout)]
    fn set_timeout(callback: &Function, ms: u32) -> Result<JsValue, JsValue>;

    #[wasm_bindgen(catch, js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue) -> Result<(), JsValue>;
}

type JsResult<T> = Result<T, JsValue>;

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn set(target: &Object, key: &str, value: &JsValue) {
    // Defining a data property on a fresh plain object cannot fail.
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}

fn object(entries: &[(&str, JsValue)]) -> Object {
    let o = Object::new();
    for (k, v) in entries {
        set(&o, k, v);
    }
    o
}

fn bytes(data: &[u8]) -> JsValue {
    Uint8Array::from(data).into()
}

fn unsupported(what: &str) -> JsValue {
    to_js(Error::new(
        ErrorCode::PasskeyUnsupported,
        format!("this browser has no WebAuthn support ({what}); passkeys need a secure context (https or http://localhost)"),
    ))
}

/// `PublicKeyCredential`, when the platform has it.
fn public_key_credential() -> Option<JsValue> {
    let pkc = get(&js_sys::global(), "PublicKeyCredential");
    pkc.is_function().then_some(pkc)
}

fn credentials() -> JsResult<Credentials> {
    if public_key_credential().is_none() {
        return Err(unsupported("no PublicKeyCredential"));
    }
    let creds = get(&get(&js_sys::global(), "navigator"), "credentials");
    if !get(&creds, "create").is_function() || !get(&creds, "get").is_function() {
        return Err(unsupported("no navigator.credentials"));
    }
    Ok(creds.unchecked_into())
}

/// Whether WebAuthn is available here.
pub fn is_supported() -> bool {
    credentials().is_ok()
}

/// Calls a static async probe of `PublicKeyCredential` and hands back its promise, or
/// `fallback` (resolved) when the browser lacks the method. Rejections are left to the
/// caller: the JS shim maps them to the fallback too.
fn probe(method: &str, fallback: JsValue) -> Promise {
    let call = public_key_credential().and_then(|pkc| {
        let f = get(&pkc, method).dyn_into::<Function>().ok()?;
        f.call0(&pkc).ok()?.dyn_into::<Promise>().ok()
    });
    call.unwrap_or_else(|| Promise::resolve(&fallback))
}

/// Whether a user-verifying platform authenticator (Touch ID, Windows Hello, …) is available.
pub fn platform_authenticator_available() -> Promise {
    probe(
        "isUserVerifyingPlatformAuthenticatorAvailable",
        JsValue::FALSE,
    )
}

/// Whether conditional mediation (passkey autofill) is available.
pub fn conditional_mediation_available() -> Promise {
    probe("isConditionalMediationAvailable", JsValue::FALSE)
}

/// `PublicKeyCredential.getClientCapabilities()` where the browser has it, else a
/// promise of `undefined`. A missing key means "unknown", not "no".
pub fn client_capabilities() -> Promise {
    probe("getClientCapabilities", JsValue::UNDEFINED)
}

/// The ceremony in flight, so a new one (or `cancel()`) can abort it.
struct Active {
    controller: AbortController,
    cancelled: Cell<bool>,
    watchdog_fired: Cell<bool>,
}

impl Active {
    fn abort(&self) {
        self.controller.abort();
    }
}

static CURRENT: SingleThread<RefCell<Option<Rc<Active>>>> = SingleThread::new(RefCell::new(None));

/// Aborts the ceremony in flight, if any; it rejects with `PASSKEY_CANCELLED`.
pub fn cancel() {
    if let Some(active) = CURRENT.with(|c| c.borrow_mut().take()) {
        active.cancelled.set(true);
        active.abort();
    }
}

/// Listeners and timers of one ceremony, removed when it ends whichever way.
struct Guard {
    active: Rc<Active>,
    caller_signal: Option<AbortSignal>,
    on_caller_abort: Option<Closure<dyn FnMut()>>,
    timer: Option<JsValue>,
    _on_watchdog: Option<Closure<dyn FnMut()>>,
}

impl Drop for Guard {
    fn drop(&mut self) {
        if let (Some(signal), Some(listener)) = (&self.caller_signal, &self.on_caller_abort) {
            let _ = signal
                .remove_event_listener_with_callback("abort", listener.as_ref().unchecked_ref());
        }
        if let Some(timer) = &self.timer {
            let _ = clear_timeout(timer);
        }
        CURRENT.with(|c| {
            let mut current = c.borrow_mut();
            if current
                .as_ref()
                .is_some_and(|a| Rc::ptr_eq(a, &self.active))
            {
                *current = None;
            }
        });
    }
}

fn begin(caller_signal: Option<AbortSignal>, timeout_ms: u32) -> JsResult<Guard> {
    if caller_signal.as_ref().is_some_and(AbortSignal::aborted) {
        return Err(to_js(Error::new(
            ErrorCode::PasskeyCancelled,
            "the passkey ceremony was cancelled before it started (the signal was already aborted)",
        )));
    }
    cancel();
    let controller = AbortController::new().map_err(|e| {
        to_js_with_cause(
            Error::new(
                ErrorCode::PasskeyUnsupported,
                "AbortController is unavailable",
            ),
            &e,
        )
    })?;
    let active = Rc::new(Active {
        controller,
        cancelled: Cell::new(false),
        watchdog_fired: Cell::new(false),
    });
    CURRENT.with(|c| *c.borrow_mut() = Some(active.clone()));

    let on_caller_abort = caller_signal.as_ref().map(|signal| {
        let active = active.clone();
        let listener = Closure::<dyn FnMut()>::new(move || {
            active.cancelled.set(true);
            active.abort();
        });
        let _ = signal.add_event_listener_with_callback("abort", listener.as_ref().unchecked_ref());
        listener
    });

    let watchdog = {
        let active = active.clone();
        Closure::<dyn FnMut()>::new(move || {
            active.watchdog_fired.set(true);
            active.abort();
        })
    };
    let timer = set_timeout(
        watchdog.as_ref().unchecked_ref(),
        timeout_ms.saturating_add(WATCHDOG_GRACE_MS),
    )
    .ok();

    Ok(Guard {
        active,
        caller_signal,
        on_caller_abort,
        timer,
        _on_watchdog: Some(watchdog),
    })
}

fn error_name(error: &JsValue) -> Option<String> {
    // DOMException and TypeError both carry a string `name`; abort reasons may be anything.
    if error.is_object() {
        get(error, "name").as_string()
    } else {
        None
    }
}

fn rejection(
    ceremony: Ceremony,
    error: JsValue,
    guard: &Guard,
    started: f64,
    timeout_ms: u32,
) -> JsValue {
    let how = Circumstances {
        watchdog_fired: guard.active.watchdog_fired.get(),
        cancelled: guard.active.cancelled.get(),
        past_deadline: js_sys::Date::now() - started >= f64::from(timeout_ms),
    };
    let (code, message) = classify(ceremony, error_name(&error).as_deref(), how);
    to_js_with_cause(Error::new(code, message), &error)
}

async fn run(
    ceremony: Ceremony,
    public_key: Object,
    caller_signal: Option<AbortSignal>,
    timeout_ms: u32,
) -> JsResult<JsValue> {
    let creds = credentials()?;
    let guard = begin(caller_signal, timeout_ms)?;
    let options = object(&[
        ("publicKey", public_key.into()),
        ("signal", guard.active.controller.signal().into()),
    ]);
    let started = js_sys::Date::now();
    let promise = match ceremony {
        Ceremony::Register => creds.create(&options),
        Ceremony::Authenticate => creds.get(&options),
    };
    let settled = match promise {
        Ok(p) => JsFuture::from(settle_or_abort(p, &guard.active.controller.signal())).await,
        Err(e) => Err(e),
    };
    match settled {
        Ok(credential) if credential.is_object() => Ok(credential),
        Ok(_) => Err(to_js(Error::new(
            ErrorCode::PasskeyFailed,
            "the browser returned no credential",
        ))),
        Err(e) => Err(rejection(ceremony, e, &guard, started, timeout_ms)),
    }
}

/// The browser's promise, raced against the ceremony's own abort: a `navigator.credentials`
/// that ignores the signal (some extensions and polyfills) must not keep the caller
/// waiting after a cancel, an abort or the watchdog.
fn settle_or_abort(browser: Promise, signal: &AbortSignal) -> Promise {
    let aborted = Promise::new(&mut |_resolve, reject| {
        let _ = signal.add_event_listener_with_callback("abort", &reject);
    });
    Promise::race(&Array::of2(&browser, &aborted))
}

/// Bytes of an ArrayBuffer (or view) member; `None` when absent or of another type.
fn buffer(target: &JsValue, key: &str) -> Option<Vec<u8>> {
    let value = get(target, key);
    if value.is_instance_of::<js_sys::ArrayBuffer>() {
        Some(Uint8Array::new(&value).to_vec())
    } else if js_sys::ArrayBuffer::is_view(&value) {
        view_bytes(&value)
    } else {
        None
    }
}

/// The bytes a view (a DataView or any typed array, at any offset) covers. Not
/// `new Uint8Array(view)`: that copies elements, none at all for a DataView. `None` when
/// its buffer/byteOffset/byteLength do not describe a range of an ArrayBuffer.
fn view_bytes(view: &JsValue) -> Option<Vec<u8>> {
    let buffer = get(view, "buffer").dyn_into::<js_sys::ArrayBuffer>().ok()?;
    let offset = get(view, "byteOffset").as_f64()?;
    let length = get(view, "byteLength").as_f64()?;
    let whole = f64::from(buffer.byte_length());
    // (`as u64` is exact for a whole number in range; core has no `f64::fract`)
    let in_range = |n: f64| (0.0..=whole).contains(&n) && n as u64 as f64 == n;
    if !in_range(offset) || !in_range(length) || offset + length > whole {
        return None;
    }
    // In range of a u32 byte length, so both casts are exact.
    Some(
        Uint8Array::new_with_byte_offset_and_length(&buffer, offset as u32, length as u32).to_vec(),
    )
}

fn required_buffer(target: &JsValue, key: &str) -> JsResult<Vec<u8>> {
    buffer(target, key).ok_or_else(|| {
        to_js(Error::new(
            ErrorCode::PasskeyFailed,
            format!("the browser's credential has no {key}"),
        ))
    })
}

fn transports(response: &JsValue) -> Vec<String> {
    // getTransports is missing in old browsers and in some extension-made objects.
    let Ok(f) = get(response, "getTransports").dyn_into::<Function>() else {
        return Vec::new();
    };
    match f.call0(response) {
        Ok(list) if Array::is_array(&list) => Array::from(&list)
            .iter()
            .filter_map(|t| t.as_string())
            .collect(),
        _ => Vec::new(),
    }
}

/// `navigator.credentials.create` for a validated registration.
pub async fn register(reg: &Registration, signal: Option<AbortSignal>) -> JsResult<Attestation> {
    let params: Array = PUB_KEY_CRED_ALGS
        .iter()
        .map(|alg| {
            JsValue::from(object(&[
                ("type", "public-key".into()),
                ("alg", JsValue::from(*alg)),
            ]))
        })
        .collect();
    let exclude: Array = reg
        .exclude_credentials
        .iter()
        .map(|id| JsValue::from(object(&[("type", "public-key".into()), ("id", bytes(id))])))
        .collect();
    let selection = object(&[
        ("residentKey", reg.resident_key.as_str().into()),
        (
            "requireResidentKey",
            JsValue::from(reg.resident_key == embedded_wallet_kit::passkey::ResidentKey::Required),
        ),
        ("userVerification", reg.user_verification.as_str().into()),
    ]);
    if let Some(attachment) = reg.attachment {
        set(
            &selection,
            "authenticatorAttachment",
            &attachment.as_str().into(),
        );
    }
    let public_key = object(&[
        ("challenge", bytes(&reg.challenge_bytes)),
        (
            "rp",
            object(&[
                ("id", reg.rp_id.as_str().into()),
                ("name", reg.rp_name.as_str().into()),
            ])
            .into(),
        ),
        (
            "user",
            object(&[
                ("id", bytes(&reg.user_id)),
                ("name", reg.user_name.as_str().into()),
                ("displayName", reg.user_display_name.as_str().into()),
            ])
            .into(),
        ),
        ("pubKeyCredParams", params.into()),
        ("excludeCredentials", exclude.into()),
        ("authenticatorSelection", selection.into()),
        ("attestation", "none".into()),
        ("timeout", JsValue::from(reg.timeout_ms)),
    ]);
    let credential = run(Ceremony::Register, public_key, signal, reg.timeout_ms).await?;
    let response = get(&credential, "response");
    Ok(Attestation::from_bytes(
        &required_buffer(&credential, "rawId")?,
        &required_buffer(&response, "clientDataJSON")?,
        &required_buffer(&response, "attestationObject")?,
        transports(&response),
    ))
}

/// `navigator.credentials.get` for a validated authentication.
pub async fn authenticate(
    auth: &Authentication,
    signal: Option<AbortSignal>,
) -> JsResult<Assertion> {
    let allow = Array::of1(&object(&[
        ("type", "public-key".into()),
        ("id", bytes(&auth.credential_id_bytes)),
    ]));
    let public_key = object(&[
        ("challenge", bytes(auth.challenge_bytes())),
        ("allowCredentials", allow.into()),
        ("userVerification", auth.user_verification.as_str().into()),
        ("timeout", JsValue::from(auth.timeout_ms)),
    ]);
    if let Some(rp_id) = &auth.rp_id {
        set(&public_key, "rpId", &rp_id.as_str().into());
    }
    let credential = run(Ceremony::Authenticate, public_key, signal, auth.timeout_ms).await?;
    let response = get(&credential, "response");
    let raw_id = required_buffer(&credential, "rawId")?;
    if raw_id != auth.credential_id_bytes {
        return Err(to_js(Error::new(
            ErrorCode::PasskeyFailed,
            "the browser answered with a credential other than the one allowed",
        )));
    }
    Ok(Assertion::from_bytes(
        &raw_id,
        &required_buffer(&response, "clientDataJSON")?,
        &required_buffer(&response, "authenticatorData")?,
        &required_buffer(&response, "signature")?,
        buffer(&response, "userHandle").as_deref(),
    ))
}

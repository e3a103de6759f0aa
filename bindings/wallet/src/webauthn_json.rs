//! WebAuthn's JS shapes (wasm32 only): the `publicKey` options handed to
//! `navigator.credentials.create/get`, the credential the browser answers with, and its
//! rejections as KitErrors. Synchronous only: npm/passkey.js makes the call itself, so that
//! nothing stands between the caller's click and `navigator.credentials` (and the module
//! needs no futures or closures). Reads go through `Reflect` with a fallback, so odd
//! objects (extensions that replace `navigator.credentials`) give typed errors, not panics.

use ewk_common::prelude::*;
use js_sys::{Array, Function, Object, Reflect, Uint8Array};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use embedded_wallet_kit::passkey::{classify, Ceremony, Circumstances};
use embedded_wallet_kit::passkey::{Assertion, Attestation};
use embedded_wallet_kit::passkey::{Authentication, Registration, PUB_KEY_CRED_ALGS};
use embedded_wallet_kit::{Error, ErrorCode};
use ewk_common::{to_js, to_js_with_cause};

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

/// The `publicKey` member of `navigator.credentials.create`'s options.
pub fn creation_options(reg: &Registration) -> Object {
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
    object(&[
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
    ])
}

/// The `publicKey` member of `navigator.credentials.get`'s options.
pub fn request_options(auth: &Authentication) -> Object {
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
    public_key
}

/// The bytes of an ArrayBuffer or view; `None` for anything else.
pub fn bytes_of(value: &JsValue) -> Option<Vec<u8>> {
    if value.is_instance_of::<js_sys::ArrayBuffer>() {
        Some(Uint8Array::new(value).to_vec())
    } else if js_sys::ArrayBuffer::is_view(value) {
        view_bytes(value)
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
    bytes_of(&get(target, key)).ok_or_else(|| {
        to_js(Error::new(
            ErrorCode::PasskeyFailed,
            ["the browser's credential has no ", key].concat(),
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

/// The attestation in the credential `navigator.credentials.create` resolved to.
pub fn attestation(credential: &JsValue) -> JsResult<Attestation> {
    let response = get(credential, "response");
    Ok(Attestation::from_bytes(
        &required_buffer(credential, "rawId")?,
        &required_buffer(&response, "clientDataJSON")?,
        &required_buffer(&response, "attestationObject")?,
        transports(&response),
    ))
}

/// The assertion in the credential `navigator.credentials.get` resolved to, which must be
/// the one credential allowed (`allowed_id`).
pub fn assertion(credential: &JsValue, allowed_id: &[u8]) -> JsResult<Assertion> {
    let response = get(credential, "response");
    let raw_id = required_buffer(credential, "rawId")?;
    if raw_id != allowed_id {
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
        bytes_of(&get(&response, "userHandle")).as_deref(),
    ))
}

fn error_name(error: &JsValue) -> Option<String> {
    // DOMException and TypeError both carry a string `name`; abort reasons may be anything.
    if error.is_object() {
        get(error, "name").as_string()
    } else {
        None
    }
}

/// The KitError for a ceremony's rejection `error`, with it as the cause.
pub fn rejection(ceremony: Ceremony, error: &JsValue, how: Circumstances) -> JsValue {
    let (code, message) = classify(ceremony, error_name(error).as_deref(), how);
    to_js_with_cause(Error::new(code, message), error)
}

//! The session store's wasm side (npm/session-store.js is the public part): importing a
//! key into WebCrypto as non-extractable, the guards and stamps of a session whose key
//! lives there, and opening a bundle with a WebCrypto ECDH result.

use ewk_common::prelude::*;
use js_sys::{Array, Object, Promise};
use wasm_bindgen::prelude::*;

use embedded_wallet_kit::parse_public_key_hex;
use embedded_wallet_kit::SignedRequestIds;
use embedded_wallet_kit::{Error, ErrorCode};
use ewk_common::js::object_or_json;
use ewk_common::js::set;
use ewk_common::scrubbed;
use ewk_common::{subtle_import_key, to_js};
use ewk_signing::signing::{boxed, pending_from_js, quote_from_js};
use ewk_signing::{JsClientKey, JsSession};

type JsResult<T> = Result<T, JsValue>;

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

// The store's bindings are module functions of the glue, not members of the classes: the
// package's entries do not export them, so page script does not find them on a ClientKey
// or Session (npm/session-store-impl.js imports them from the glue).

/// The client key as a non-extractable WebCrypto ECDH key (kept across an OAUTH redirect).
#[wasm_bindgen(js_name = storeImportClientKey)]
pub fn import_client_key(key: &JsClientKey) -> JsResult<Promise> {
    scrubbed(|| {
        key.handle().write(|k| {
            let der = k.key_pkcs8().map_err(to_js)?;
            import_non_extractable(&der, "ECDH", "deriveBits")
        })
    })
}

/// The session key as a non-extractable WebCrypto ECDSA signing key.
#[wasm_bindgen(js_name = storeImportSessionKey)]
pub fn import_session_key(session: &JsSession) -> JsResult<Promise> {
    scrubbed(|| {
        session.handle().write(|s| {
            let der = s.key_pkcs8().map_err(to_js)?;
            import_non_extractable(&der, "ECDSA", "sign")
        })
    })
}

/// A session restored from a store record (`id`, `accountId`, `type`, `expiresAt`)
/// whose key is in WebCrypto; `publicKeyHex` is that key's public half.
#[wasm_bindgen(js_name = storeExternalSession)]
pub fn external_session(record: &JsValue, public_key_hex: &str) -> JsResult<JsSession> {
    scrubbed(|| {
        let fields = object_or_json(record, ErrorCode::InvalidSession, "stored session")?;
        let public =
            parse_public_key_hex(public_key_hex, "stored session publicKeyHex").map_err(to_js)?;
        embedded_wallet_kit::Session::external(&fields, public)
            .map(|s| JsSession::from_boxed(Box::new(s)))
            .map_err(to_js)
    })
}

/// Checks the session may stamp now; returns the exact payload to sign.
#[wasm_bindgen(js_name = storeAuthorizeStamp)]
pub fn authorize_stamp(session: &JsSession, payload: &JsValue) -> JsResult<String> {
    scrubbed(|| {
        let payload =
            ewk_common::js::exact_string(payload, "payloadToSign", ErrorCode::InvalidInput)?;
        session.handle().write(|s| {
            s.authorize_stamp(&payload, ewk_common::now_ms())
                .map_err(to_js)
        })?;
        Ok(payload)
    })
}

/// The guards of `signRetry` (the requestId is then spent); returns
/// `{ payloadToSign, requestId }`.
#[wasm_bindgen(
    js_name = storeAuthorizeRetry,
    unchecked_return_type = "{ payloadToSign: string; requestId: string }"
)]
pub fn authorize_retry(session: &JsSession, pending: &JsValue) -> JsResult<Object> {
    scrubbed(|| {
        let pending = pending_from_js(pending)?;
        session.handle().write(|s| {
            s.authorize_retry(&pending, ewk_common::now_ms())
                .map_err(to_js)
        })?;
        let out = Object::new();
        set(&out, "payloadToSign", &pending.payload_to_sign);
        set(&out, "requestId", &pending.request_id);
        Ok(out)
    })
}

/// The guards of `signQuote`; returns the payload to sign.
#[wasm_bindgen(js_name = storeAuthorizeQuote)]
pub fn authorize_quote(session: &JsSession, quote: &JsValue) -> JsResult<String> {
    scrubbed(|| {
        let quote = quote_from_js(quote)?;
        session.handle().write(|s| {
            s.authorize_quote(&quote, ewk_common::now_ms())
                .map_err(to_js)
        })?;
        Ok(quote.payload_to_sign)
    })
}

/// The stamp from WebCrypto's signature (64-byte `r ‖ s`) of an authorized payload, once
/// it verifies under the session's public key (`ENGINE_FAULT` when it does not).
#[wasm_bindgen(js_name = storeStampFromP1363)]
pub fn stamp_from_p1363(session: &JsSession, payload: &str, signature: &[u8]) -> JsResult<String> {
    scrubbed(|| {
        session
            .handle()
            .write(|s| s.stamp_from_p1363(payload, signature).map_err(to_js))
    })
}

/// The uncompressed encapsulated key of a verify/refresh response's bundle.
#[wasm_bindgen(js_name = storeEncapsulatedKey)]
pub fn encapsulated_key(response: &JsValue) -> JsResult<Vec<u8>> {
    scrubbed(|| {
        let fields = object_or_json(response, ErrorCode::InvalidSession, "session response")?;
        embedded_wallet_kit::Session::encapsulated_key(&fields).map_err(to_js)
    })
}

/// Opens a verify/refresh response with the ECDH result `dh` of a WebCrypto-kept client
/// key (public half `publicKeyHex`) and the bundle's encapsulated key.
#[wasm_bindgen(js_name = storeOpenWithDh)]
pub fn open_with_dh(response: &JsValue, dh: Vec<u8>, public_key_hex: &str) -> JsResult<JsSession> {
    scrubbed(|| {
        // Owned, so this copy of the ECDH result is wiped here (JS wipes its own).
        let dh = zeroize::Zeroizing::new(dh);
        let fields = object_or_json(response, ErrorCode::InvalidSession, "session response")?;
        let public = parse_public_key_hex(public_key_hex, "client publicKeyHex").map_err(to_js)?;
        let session = boxed(|| embedded_wallet_kit::Session::open_with_dh(&fields, &dh, &public));
        session.map(JsSession::from_boxed)
    })
}

fn ids_to_js(ids: &SignedRequestIds) -> Array {
    ids.entries()
        .iter()
        .map(|(id, signed_at)| {
            Array::of2(
                &JsValue::from_str(id),
                &JsValue::from_f64(*signed_at as f64),
            )
        })
        .collect()
}

/// A stored record's `signed` list: `[[requestId, signedAtMs], …]`.
fn ids_from_js(signed: &JsValue) -> JsResult<SignedRequestIds> {
    let malformed = || {
        to_js(Error::new(
            ErrorCode::InvalidSession,
            "the stored session's record of signed requestIds is malformed",
        ))
    };
    if !Array::is_array(signed) {
        return Err(malformed());
    }
    let mut entries = Vec::new();
    for entry in Array::from(signed).iter() {
        let pair = Array::from(&entry);
        match (
            Array::is_array(&entry),
            pair.get(0).as_string(),
            pair.get(1).as_f64(),
        ) {
            (true, Some(id), Some(at)) if at.is_finite() => entries.push((id, at as i64)),
            _ => return Err(malformed()),
        }
    }
    Ok(SignedRequestIds::from_entries(entries))
}

/// The requestIds a session already signed, for the record `save()` writes: a session
/// signs no id twice, whether it signed it before or after being stored.
#[wasm_bindgen(js_name = storeSignedRequestIds)]
pub fn signed_request_ids(session: &JsSession) -> JsResult<Array> {
    scrubbed(|| session.handle().read(|s| ids_to_js(s.signed_request_ids())))
}

/// Records `request_id` in a stored record's `signed` list by the core's rule (canonical
/// ids; kept for the session's life; at the cap only ids signed an hour ago or more go)
/// and returns the new list; `REQUEST_ALREADY_SIGNED` or `RATE_LIMITED` otherwise.
#[wasm_bindgen(js_name = storeRecordRequestId)]
pub fn record_request_id(signed: &JsValue, request_id: &str) -> JsResult<Array> {
    scrubbed(|| {
        let mut ids = ids_from_js(signed)?;
        ids.record(request_id, ewk_common::now_ms())
            .map_err(to_js)?;
        Ok(ids_to_js(&ids))
    })
}

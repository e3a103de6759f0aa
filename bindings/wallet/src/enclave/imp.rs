//! What `encryptOtp` and `openWalletExport` do with the `enclave` feature.

use ewk_common::prelude::*;
use wasm_bindgen::prelude::*;
use zeroize::Zeroizing;

use embedded_wallet_kit::enclave::{encrypt_otp, unquote_target_bundle};
use embedded_wallet_kit::enclave::{
    open_export, SignerPin, VerifiedEnvelope, PRODUCTION_SIGNER_PUBLIC_KEY,
    PRODUCTION_TLS_FETCHER_PUBLIC_KEY,
};
use embedded_wallet_kit::ErrorCode;
use ewk_common::js::{exact_string, own};
use ewk_common::js::{object_or_json, JsFields};
use ewk_common::{invalid_input, to_js};
use ewk_signing::JsClientKey;

use super::JsResult;

/// An optional member of `options` (absent, undefined and null are all "not given").
fn option(options: &JsValue, name: &str) -> Option<JsValue> {
    own(options, name).filter(|v| !v.is_undefined() && !v.is_null())
}

/// `options.pin` and `options.sandbox`, read from JS; what they mean is the core's
/// [`SignerPin::choose`].
fn signer_pin(options: &JsValue, production: &str) -> JsResult<SignerPin> {
    if options.is_undefined() || options.is_null() {
        return SignerPin::choose(None, false, production).map_err(to_js);
    }
    if !options.is_object() {
        return Err(invalid_input("options must be an object"));
    }
    let pin = match option(options, "pin") {
        None => None,
        Some(v) => Some(v.as_string().ok_or_else(|| {
            invalid_input(
                "options.pin must be \"production\", \"sandbox\" or a signer public key in hex",
            )
        })?),
    };
    let sandbox = match option(options, "sandbox") {
        None => false,
        Some(v) => v
            .as_bool()
            .ok_or_else(|| invalid_input("options.sandbox must be a boolean"))?,
    };
    SignerPin::choose(pin.as_deref(), sandbox, production).map_err(to_js)
}

/// Verifies a signed envelope and reads its data as an object.
fn verified_data(envelope: &JsFields, pin: &SignerPin, what: &str) -> JsResult<JsFields> {
    let verified = VerifiedEnvelope::verify(envelope, pin, what).map_err(to_js)?;
    let text = verified.data_text().map_err(to_js)?;
    object_or_json(&JsValue::from_str(text), ErrorCode::InvalidBundle, what)
}

/// `encryptOtp`'s work (documented there).
pub(super) fn encrypt_otp_js(
    target_bundle: &JsValue,
    otp_code: &JsValue,
    key: &JsClientKey,
    options: &JsValue,
) -> JsResult<String> {
    const WHAT: &str = "OTP target bundle";
    let pin = signer_pin(options, PRODUCTION_TLS_FETCHER_PUBLIC_KEY)?;
    let otp = Zeroizing::new(exact_string(otp_code, "otpCode", ErrorCode::InvalidInput)?);
    key.handle().read(|k| k.check_unused())?.map_err(to_js)?;
    let bundle = match target_bundle.as_string() {
        Some(text) => JsValue::from_str(unquote_target_bundle(&text)),
        None => target_bundle.clone(),
    };
    let envelope = object_or_json(&bundle, ErrorCode::InvalidBundle, WHAT)?;
    let data = verified_data(&envelope, &pin, WHAT)?;

    key.handle()
        .write(|k| encrypt_otp(&data, &otp, k).map_err(to_js))
}

/// `openWalletExport`'s work (documented there).
pub(super) fn open_wallet_export(
    response: &JsValue,
    key: &JsClientKey,
    options: &JsValue,
) -> JsResult<JsValue> {
    const WHAT: &str = "export bundle";
    let pin = signer_pin(options, PRODUCTION_SIGNER_PUBLIC_KEY)?;
    let organization_id = match option(options, "organizationId") {
        None => None,
        Some(v) => Some(
            v.as_string()
                .ok_or_else(|| invalid_input("options.organizationId must be a string"))?,
        ),
    };
    key.handle().read(|k| k.check_unused())?.map_err(to_js)?;
    let mut envelope = object_or_json(response, ErrorCode::InvalidBundle, WHAT)?;
    if let Some(inner) = own(&envelope.0, "encryptedWalletCredentials") {
        envelope = object_or_json(&inner, ErrorCode::InvalidBundle, WHAT)?;
    }
    let data = verified_data(&envelope, &pin, WHAT)?;
    // Copied into a JS string (which cannot be wiped); the Rust copy is zeroized on drop.
    let opened = key.handle().write(|k| {
        open_export(&data, k, organization_id.as_deref())
            .map(|m| JsValue::from_str(&m))
            .map_err(to_js)
    });
    opened
}

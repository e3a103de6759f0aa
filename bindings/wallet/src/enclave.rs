//! Newer deployments (DESIGN §3): `encryptOtp` and `openWalletExport` (their third part,
//! `ClientKey.signRetry`, is ewk-signing's: a method of its class). Conversions only; the
//! envelope checks and HPKE are in `enclave`/`otp`.

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
use ewk_common::scrubbed;
use ewk_common::{invalid_input, to_js};
use ewk_signing::JsClientKey;

type JsResult<T> = Result<T, JsValue>;

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

/// The encrypted OTP login. Verifies the `otpEncryptionTargetBundle` of a `/challenge`
/// response (object or JSON text; the documented single-quoted form is tolerated) under
/// `options.pin`, and HPKE-seals `{"otp_code":…,"public_key":…}` to its enclave key,
/// binding `key`'s public key (the TEK) in its compressed form, `key.compressedPublicKeyHex`
/// (production refuses the uncompressed one). Returns the `encryptedOtpBundle` string to send
/// in `{type, encryptedOtpBundle}`. `key` is not consumed: it stamps the 202
/// ({@link ClientKey.signRetry}) and then becomes the session key
/// ({@link Session.fromClientKey}). The code never appears in error messages.
/// Throws `INVALID_INPUT` (code, options), `INVALID_BUNDLE`, `INVALID_PUBLIC_KEY`,
/// `DECRYPTION_FAILED` (signature does not verify, or another signer than the pin),
/// `KEY_CONSUMED`.
#[wasm_bindgen(js_name = encryptOtp)]
pub fn encrypt_otp_js(
    #[wasm_bindgen(js_name = targetBundle, unchecked_param_type = "EnclaveEnvelope | string")]
    target_bundle: &JsValue,
    #[wasm_bindgen(js_name = otpCode, unchecked_param_type = "string")] otp_code: &JsValue,
    key: &JsClientKey,
    #[wasm_bindgen(unchecked_optional_param_type = "EnclaveOptions")] options: &JsValue,
) -> JsResult<String> {
    scrubbed(|| {
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
    })
}

/// Opens a wallet export (the 200 response, or its `encryptedWalletCredentials` envelope;
/// object or JSON text) with the ClientKey whose `publicKeyHex` was sent, after checking
/// the envelope's signature under `options.pin`. Returns the BIP-39 mnemonic and consumes
/// the key. The mnemonic is handed out once, as a JS string, which JavaScript cannot
/// zeroize: keep it no longer than needed. The kit's own copy in wasm memory is zeroized.
/// Throws `INVALID_INPUT` (options), `INVALID_BUNDLE`, `INVALID_PUBLIC_KEY`,
/// `DECRYPTION_FAILED`, `KEY_CONSUMED`.
#[wasm_bindgen(js_name = openWalletExport, unchecked_return_type = "string")]
pub fn open_wallet_export(
    #[wasm_bindgen(unchecked_param_type = "WalletExportResponse | EnclaveEnvelope | string")]
    response: &JsValue,
    key: &JsClientKey,
    #[wasm_bindgen(unchecked_optional_param_type = "WalletExportOptions")] options: &JsValue,
) -> JsResult<JsValue> {
    scrubbed(|| {
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
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use embedded_wallet_kit::p256::SecretKey;
    use js_sys::Reflect;
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn code(err: JsValue) -> String {
        Reflect::get(&err, &"code".into())
            .unwrap()
            .as_string()
            .unwrap()
    }

    // The published vector's key cannot be imported from JS (by design), so the binding
    // is checked with it here; the JS tests use throwaway keys.
    #[test]
    fn the_published_export_vector_opens_through_the_binding() {
        let v: serde_json::Value = serde_json::from_str(include_str!(
            "../../../tests/vectors/turnkey/export-bundles.json"
        ))
        .unwrap();
        let hex = |text: &str| embedded_wallet_kit::encoding::hex_decode(text).unwrap();
        let c = &v["vectors"][0];
        let key = || {
            JsClientKey::from_key(embedded_wallet_kit::ClientKey::from_secret(
                SecretKey::from_slice(&hex(c["embeddedPrivateKeyHex"].as_str().unwrap())).unwrap(),
            ))
        };
        let bundle = JsValue::from_str(c["exportBundle"].as_str().unwrap());
        let k = key();
        let mnemonic = open_wallet_export(&bundle, &k, &JsValue::UNDEFINED).unwrap();
        assert_eq!(
            mnemonic.as_string().unwrap(),
            c["expectedPlaintextUtf8"].as_str().unwrap()
        );
        assert!(k.handle().read(|k| k.is_consumed()).unwrap());
        assert_eq!(
            code(open_wallet_export(&bundle, &k, &JsValue::UNDEFINED).unwrap_err()),
            "KEY_CONSUMED"
        );

        // Wrapped in a response object, with the organization checked.
        let response = js_sys::Object::new();
        Reflect::set(&response, &"encryptedWalletCredentials".into(), &bundle).unwrap();
        let options = js_sys::Object::new();
        let org = c["organizationId"].as_str().unwrap();
        Reflect::set(&options, &"organizationId".into(), &org.into()).unwrap();
        assert!(open_wallet_export(&response, &key(), &options).is_ok());
        Reflect::set(&options, &"organizationId".into(), &"other".into()).unwrap();
        assert_eq!(
            code(open_wallet_export(&response, &key(), &options).unwrap_err()),
            "INVALID_BUNDLE"
        );
        // The OTP signer key is not the export signer: pinned to it, refused.
        let options = js_sys::Object::new();
        let pin = JsValue::from_str(PRODUCTION_TLS_FETCHER_PUBLIC_KEY);
        Reflect::set(&options, &"pin".into(), &pin).unwrap();
        assert_eq!(
            code(open_wallet_export(&bundle, &key(), &options).unwrap_err()),
            "DECRYPTION_FAILED"
        );
    }
}

//! Newer deployments: `encryptOtp` and `openWalletExport` (their third part,
//! `ClientKey.signRetry`, is ewk-signing's: a method of its class). Conversions only; the
//! envelope checks and HPKE are in `enclave`/`otp`.
//!
//! Without the `enclave` feature both are exported with the same signatures but throw
//! `NOT_INITIALIZED`: that build (a plain `init()`'s) then runs under
//! the glue of the build with them (scripts/check-no-enclave.mjs checks it can).

use ewk_common::prelude::*;
use ewk_common::scrubbed;
use ewk_signing::JsClientKey;
use wasm_bindgen::prelude::*;

type JsResult<T> = Result<T, JsValue>;

#[cfg(feature = "enclave")]
mod imp;

/// The build without the `enclave` feature: the same exports, throwing.
#[cfg(not(feature = "enclave"))]
mod imp {
    use super::JsResult;
    use embedded_wallet_kit::{Error, ErrorCode};
    use ewk_common::prelude::*;
    use ewk_common::to_js;
    use ewk_signing::JsClientKey;
    use wasm_bindgen::JsValue;

    /// `NOT_INITIALIZED`, naming the export and how to load it.
    fn without_enclave(name: &str) -> JsValue {
        to_js(Error::new(
            ErrorCode::NotInitialized,
            [
                name,
                "() is in the module that init({ enclave: true }) loads; this page's init() loaded the one without the enclave exports",
            ]
            .concat(),
        ))
    }

    pub(super) fn encrypt_otp_js(
        _: &JsValue,
        _: &JsValue,
        _: &JsClientKey,
        _: &JsValue,
    ) -> JsResult<String> {
        Err(without_enclave("encryptOtp"))
    }

    pub(super) fn open_wallet_export(
        _: &JsValue,
        _: &JsClientKey,
        _: &JsValue,
    ) -> JsResult<JsValue> {
        Err(without_enclave("openWalletExport"))
    }
}

/// The `encryptedOtpBundle`: `otpCode` sealed to the enclave key of `targetBundle` (its
/// signature checked under `options.pin`), binding `key`'s compressed public key.
#[wasm_bindgen(js_name = encryptOtp)]
pub fn encrypt_otp_js(
    #[wasm_bindgen(js_name = targetBundle, unchecked_param_type = "EnclaveEnvelope | string")]
    target_bundle: &JsValue,
    #[wasm_bindgen(js_name = otpCode, unchecked_param_type = "string")] otp_code: &JsValue,
    key: &JsClientKey,
    #[wasm_bindgen(unchecked_optional_param_type = "EnclaveOptions")] options: &JsValue,
) -> JsResult<String> {
    scrubbed(|| imp::encrypt_otp_js(target_bundle, otp_code, key, options))
}

/// Opens a wallet export with `key` (consumed) after checking the envelope's signature
/// under `options.pin`: the mnemonic.
#[wasm_bindgen(js_name = openWalletExport, unchecked_return_type = "string")]
pub fn open_wallet_export(
    #[wasm_bindgen(unchecked_param_type = "WalletExportResponse | EnclaveEnvelope | string")]
    response: &JsValue,
    key: &JsClientKey,
    #[wasm_bindgen(unchecked_optional_param_type = "WalletExportOptions")] options: &JsValue,
) -> JsResult<JsValue> {
    scrubbed(|| imp::open_wallet_export(response, key, options))
}

#[cfg(all(test, feature = "enclave"))]
mod tests {
    use super::*;
    use embedded_wallet_kit::enclave::PRODUCTION_TLS_FETCHER_PUBLIC_KEY;
    use embedded_wallet_kit::SecretKey;
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
        let hex = |text: &str| embedded_wallet_kit::service::hex_decode(text).unwrap();
        let c = &v["vectors"][0];
        let key = || {
            JsClientKey::from_key(
                embedded_wallet_kit::ClientKey::from_secret(
                    SecretKey::from_slice(&hex(c["embeddedPrivateKeyHex"].as_str().unwrap()))
                        .unwrap(),
                )
                .unwrap(),
            )
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

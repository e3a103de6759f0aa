//! Passkey exports. The JS shim groups them as `passkey.*`.

use ewk_common::prelude::*;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

use crate::browser;
use embedded_wallet_kit::encoding::base64url_decode;
use embedded_wallet_kit::passkey;
use embedded_wallet_kit::ErrorCode;
use ewk_common::js::{array_items, exact_string};
use ewk_common::passkey_input::{
    assertion_object, attestation_object, authentication_input, member, opt_string,
    registration_input, set,
};
use ewk_common::scrubbed;
use ewk_common::{invalid_input, to_js};

type JsResult<T> = Result<T, JsValue>;

fn opt_signal(target: &JsValue) -> JsResult<Option<AbortSignal>> {
    let v = member(target, "signal");
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    // A real AbortSignal answers `aborted` with a boolean; a Proxy or lookalike that only
    // passes instanceof throws or answers something else (read with a catching get).
    let genuine = Reflect::get(&v, &"aborted".into()).is_ok_and(|a| a.as_bool().is_some());
    match v.dyn_into::<AbortSignal>() {
        Ok(signal) if genuine => Ok(Some(signal)),
        _ => Err(invalid_input("signal must be an AbortSignal")),
    }
}

/// Registers a passkey; resolves to `{credentialId, clientDataJson, attestationObject, transports}`.
#[wasm_bindgen(js_name = passkeyRegister)]
pub async fn register(options: JsValue) -> JsResult<Object> {
    let registration = registration_input(&options)?.validate().map_err(to_js)?;
    let signal = opt_signal(&options)?;
    let attestation = browser::register(&registration, signal).await?;
    Ok(attestation_object(&attestation))
}

/// Asserts with one passkey; resolves to
/// `{credentialId, clientDataJson, authenticatorData, signature, userHandle?}`.
#[wasm_bindgen(js_name = passkeyAuthenticate)]
pub async fn authenticate(options: JsValue) -> JsResult<Object> {
    let authentication = authentication_input(&options)?.validate().map_err(to_js)?;
    let signal = opt_signal(&options)?;
    let assertion = browser::authenticate(&authentication, signal).await?;
    Ok(assertion_object(&assertion))
}

/// Whether WebAuthn is available.
#[wasm_bindgen(js_name = passkeyIsSupported)]
pub fn is_supported() -> bool {
    scrubbed(browser::is_supported)
}

/// Whether a user-verifying platform authenticator is available (a promise of a boolean;
/// the JS shim maps a rejection to false).
#[wasm_bindgen(js_name = passkeyPlatformAuthenticatorAvailable)]
pub fn platform_authenticator_available() -> js_sys::Promise {
    scrubbed(browser::platform_authenticator_available)
}

/// Whether passkey autofill (conditional mediation) is available.
#[wasm_bindgen(js_name = passkeyConditionalMediationAvailable)]
pub fn conditional_mediation_available() -> js_sys::Promise {
    scrubbed(browser::conditional_mediation_available)
}

/// The browser's client capabilities, or `undefined` where it cannot tell.
#[wasm_bindgen(js_name = passkeyClientCapabilities)]
pub fn client_capabilities() -> js_sys::Promise {
    scrubbed(browser::client_capabilities)
}

/// Aborts the ceremony in flight (it rejects with `PASSKEY_CANCELLED`).
#[wasm_bindgen(js_name = passkeyCancel)]
pub fn cancel() {
    scrubbed(|| {
        browser::cancel();
    })
}

/// The `POST /auth/credentials` PASSKEY body `{accountId, nickname, challenge, attestation}`.
#[wasm_bindgen(js_name = passkeyRegistrationBody)]
pub fn registration_body(
    account_id: JsValue,
    nickname: JsValue,
    challenge: JsValue,
    attestation: JsValue,
) -> JsResult<Object> {
    scrubbed(|| {
        let text = |v: &JsValue, name: &str| exact_string(v, name, ErrorCode::InvalidInput);
        let account_id = text(&account_id, "accountId")?;
        let nickname = text(&nickname, "nickname")?;
        let challenge = text(&challenge, "challenge")?;
        passkey::validate_account_id(&account_id).map_err(to_js)?;
        passkey::validate_nickname(&nickname).map_err(to_js)?;
        passkey::registration_challenge_bytes(&challenge).map_err(to_js)?;
        if !attestation.is_object() {
            return Err(invalid_input(
                "attestation must be the object passkey.register resolved to",
            ));
        }
        let mut fields = Vec::new();
        for key in ["credentialId", "clientDataJson", "attestationObject"] {
            let value = opt_string(&attestation, key, &format!("attestation.{key}"))?
                .filter(|v| base64url_decode(v).is_some_and(|b| !b.is_empty()))
                .ok_or_else(|| {
                    invalid_input(&format!("attestation.{key} must be a base64url string"))
                })?;
            fields.push((key, value));
        }
        let transports: Array = array_items(&member(&attestation, "transports"))
            .ok()
            .filter(|items| items.iter().all(JsValue::is_string))
            .ok_or_else(|| invalid_input("attestation.transports must be an array of strings"))?
            .into_iter()
            .collect();
        let att = Object::new();
        for (key, value) in fields {
            set(&att, key, &value.into());
        }
        set(&att, "transports", &transports.into());
        let body = Object::new();
        set(&body, "accountId", &account_id.into());
        set(&body, "nickname", &nickname.into());
        set(&body, "challenge", &challenge.into());
        set(&body, "attestation", &att.into());
        Ok(body)
    })
}

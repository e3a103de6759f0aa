//! Passkey exports. The JS shim groups them as `passkey.*`.

use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;
use web_sys::AbortSignal;

use super::{invalid_input, to_js};
use crate::encoding::base64url_decode;
use crate::error::{Error, ErrorCode};
use crate::passkey::{
    self, browser, Assertion, Attestation, AuthenticationInput, RegistrationInput,
};

type JsResult<T> = Result<T, JsValue>;

fn member(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

fn opt_string(target: &JsValue, key: &str, name: &str) -> JsResult<Option<String>> {
    let v = member(target, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_string()
        .map(Some)
        .ok_or_else(|| invalid_input(&format!("{name} must be a string")))
}

fn opt_number(target: &JsValue, key: &str) -> JsResult<Option<f64>> {
    let v = member(target, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_f64()
        .map(Some)
        .ok_or_else(|| invalid_input(&format!("{key} must be a number")))
}

fn opt_signal(target: &JsValue) -> JsResult<Option<AbortSignal>> {
    let v = member(target, "signal");
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.dyn_into::<AbortSignal>()
        .map(Some)
        .map_err(|_| invalid_input("signal must be an AbortSignal"))
}

fn options_object(options: &JsValue) -> JsResult<()> {
    if options.is_object() {
        Ok(())
    } else {
        Err(invalid_input("passkey options must be an object"))
    }
}

fn set(target: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}

fn attestation_object(a: &Attestation) -> Object {
    let o = Object::new();
    set(&o, "credentialId", &a.credential_id.as_str().into());
    set(&o, "clientDataJson", &a.client_data_json.as_str().into());
    set(
        &o,
        "attestationObject",
        &a.attestation_object.as_str().into(),
    );
    let transports: Array = a.transports.iter().map(|t| JsValue::from_str(t)).collect();
    set(&o, "transports", &transports.into());
    o
}

fn assertion_object(a: &Assertion) -> Object {
    let o = Object::new();
    set(&o, "credentialId", &a.credential_id.as_str().into());
    set(&o, "clientDataJson", &a.client_data_json.as_str().into());
    set(
        &o,
        "authenticatorData",
        &a.authenticator_data.as_str().into(),
    );
    set(&o, "signature", &a.signature.as_str().into());
    if let Some(handle) = &a.user_handle {
        set(&o, "userHandle", &handle.as_str().into());
    }
    o
}

fn registration_input(options: &JsValue) -> JsResult<RegistrationInput> {
    options_object(options)?;
    let user = member(options, "user");
    if !user.is_object() {
        return Err(invalid_input(
            "user must be an object {id, name, displayName}",
        ));
    }
    let exclude = member(options, "excludeCredentialIds");
    let exclude_credential_ids = if exclude.is_undefined() || exclude.is_null() {
        Vec::new()
    } else if Array::is_array(&exclude) {
        Array::from(&exclude)
            .iter()
            .enumerate()
            .map(|(i, id)| {
                id.as_string().ok_or_else(|| {
                    invalid_input(&format!("excludeCredentialIds[{i}] must be a string"))
                })
            })
            .collect::<JsResult<Vec<_>>>()?
    } else {
        return Err(invalid_input(
            "excludeCredentialIds must be an array of base64url strings",
        ));
    };
    Ok(RegistrationInput {
        challenge: opt_string(options, "challenge", "challenge")?,
        rp_id: opt_string(options, "rpId", "rpId")?,
        rp_name: opt_string(options, "rpName", "rpName")?,
        user_id: opt_string(&user, "id", "user.id")?,
        user_name: opt_string(&user, "name", "user.name")?,
        user_display_name: opt_string(&user, "displayName", "user.displayName")?,
        exclude_credential_ids,
        resident_key: opt_string(options, "residentKey", "residentKey")?,
        user_verification: opt_string(options, "userVerification", "userVerification")?,
        attachment: opt_string(options, "attachment", "attachment")?,
        timeout_ms: opt_number(options, "timeoutMs")?,
    })
}

fn authentication_input(options: &JsValue) -> JsResult<AuthenticationInput> {
    options_object(options)?;
    Ok(AuthenticationInput {
        challenge: opt_string(options, "challenge", "challenge")?,
        credential_id: opt_string(options, "credentialId", "credentialId")?,
        rp_id: opt_string(options, "rpId", "rpId")?,
        user_verification: opt_string(options, "userVerification", "userVerification")?,
        timeout_ms: opt_number(options, "timeoutMs")?,
    })
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
    browser::is_supported()
}

/// Whether a user-verifying platform authenticator is available (a promise of a boolean;
/// the JS shim maps a rejection to false).
#[wasm_bindgen(js_name = passkeyPlatformAuthenticatorAvailable)]
pub fn platform_authenticator_available() -> js_sys::Promise {
    browser::platform_authenticator_available()
}

/// Whether passkey autofill (conditional mediation) is available.
#[wasm_bindgen(js_name = passkeyConditionalMediationAvailable)]
pub fn conditional_mediation_available() -> js_sys::Promise {
    browser::conditional_mediation_available()
}

/// The browser's client capabilities, or `undefined` where it cannot tell.
#[wasm_bindgen(js_name = passkeyClientCapabilities)]
pub fn client_capabilities() -> js_sys::Promise {
    browser::client_capabilities()
}

/// Aborts the ceremony in flight (it rejects with `PASSKEY_CANCELLED`).
#[wasm_bindgen(js_name = passkeyCancel)]
pub fn cancel() {
    browser::cancel();
}

/// The `POST /auth/credentials` PASSKEY body `{accountId, nickname, challenge, attestation}`.
#[wasm_bindgen(js_name = passkeyRegistrationBody)]
pub fn registration_body(
    account_id: JsValue,
    nickname: JsValue,
    challenge: JsValue,
    attestation: JsValue,
) -> JsResult<Object> {
    let text = |v: &JsValue, name: &str| {
        v.as_string()
            .ok_or_else(|| invalid_input(&format!("{name} must be a string")))
    };
    let account_id = text(&account_id, "accountId")?;
    let nickname = text(&nickname, "nickname")?;
    let challenge = text(&challenge, "challenge")?;
    passkey::validate_account_id(&account_id).map_err(to_js)?;
    passkey::validate_nickname(&nickname).map_err(to_js)?;
    if base64url_decode(&challenge).is_none_or(|b| b.is_empty()) {
        return Err(to_js(Error::new(
            ErrorCode::InvalidInput,
            "challenge is not base64url",
        )));
    }
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
    let transports = member(&attestation, "transports");
    let transports =
        if Array::is_array(&transports) && Array::from(&transports).iter().all(|t| t.is_string()) {
            Array::from(&transports)
        } else {
            return Err(invalid_input(
                "attestation.transports must be an array of strings",
            ));
        };
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
}

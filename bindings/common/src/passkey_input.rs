//! Passkey options from JS objects and results to JS objects, shared by the passkey
//! module and the testing module. Conversions only: validation is in `embedded_wallet_kit::passkey`.

use crate::prelude::*;
use embedded_wallet_kit::text::Decimal;
use js_sys::{Array, Object, Reflect};
use wasm_bindgen::prelude::*;

use crate::invalid_input;
use crate::js::array_items;
use embedded_wallet_kit::passkey::{
    Assertion, Attestation, AuthenticationInput, RegistrationInput,
};

pub type JsResult<T> = Result<T, JsValue>;

pub fn member(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

pub fn opt_string(target: &JsValue, key: &str, name: &str) -> JsResult<Option<String>> {
    let v = member(target, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_string()
        .map(Some)
        .ok_or_else(|| invalid_input(&[name, " must be a string"].concat()))
}

pub fn opt_number(target: &JsValue, key: &str) -> JsResult<Option<f64>> {
    let v = member(target, key);
    if v.is_undefined() || v.is_null() {
        return Ok(None);
    }
    v.as_f64()
        .map(Some)
        .ok_or_else(|| invalid_input(&[key, " must be a number"].concat()))
}

pub fn options_object(options: &JsValue) -> JsResult<()> {
    if options.is_object() {
        Ok(())
    } else {
        Err(invalid_input("passkey options must be an object"))
    }
}

pub fn set(target: &Object, key: &str, value: &JsValue) {
    let _ = Reflect::set(target, &JsValue::from_str(key), value);
}

pub fn attestation_object(a: &Attestation) -> Object {
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

pub fn assertion_object(a: &Assertion) -> Object {
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

pub fn registration_input(options: &JsValue) -> JsResult<RegistrationInput> {
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
    } else {
        array_items(&exclude)
            .map_err(|_| {
                invalid_input("excludeCredentialIds must be an array of base64url strings")
            })?
            .into_iter()
            .enumerate()
            .map(|(i, id)| {
                id.as_string().ok_or_else(|| {
                    invalid_input(
                        &[
                            "excludeCredentialIds[",
                            &Decimal::from(i),
                            "] must be a string",
                        ]
                        .concat(),
                    )
                })
            })
            .collect::<JsResult<Vec<_>>>()?
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

pub fn authentication_input(options: &JsValue) -> JsResult<AuthenticationInput> {
    options_object(options)?;
    Ok(AuthenticationInput {
        challenge: opt_string(options, "challenge", "challenge")?,
        credential_id: opt_string(options, "credentialId", "credentialId")?,
        rp_id: opt_string(options, "rpId", "rpId")?,
        user_verification: opt_string(options, "userVerification", "userVerification")?,
        timeout_ms: opt_number(options, "timeoutMs")?,
    })
}

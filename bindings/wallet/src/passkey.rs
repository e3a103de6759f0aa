//! Passkey exports. The JS shim groups them as `passkey.*`. They are synchronous:
//! npm/passkey.js drives the ceremony (the call to `navigator.credentials`, cancel, the
//! caller's signal, the watchdog) and asks these for the options, the result and the error.

use ewk_common::prelude::*;
use js_sys::{Array, Object};
use wasm_bindgen::prelude::*;

use crate::webauthn_json;
use embedded_wallet_kit::encoding::base64url_decode;
use embedded_wallet_kit::passkey::{self, Ceremony, Circumstances};
use embedded_wallet_kit::ErrorCode;
use ewk_common::js::{array_items, exact_string};
use ewk_common::passkey_input::{
    assertion_object, attestation_object, authentication_input, member, opt_string,
    registration_input, set,
};
use ewk_common::scrubbed;
use ewk_common::{invalid_input, to_js};

type JsResult<T> = Result<T, JsValue>;

/// The `publicKey` options of `navigator.credentials.create` for `passkey.register`'s
/// options (validated: `INVALID_INPUT` names the field at fault).
#[wasm_bindgen(js_name = passkeyCreationOptions)]
pub fn creation_options(options: JsValue) -> JsResult<Object> {
    scrubbed(|| {
        let registration = registration_input(&options)?.validate().map_err(to_js)?;
        Ok(webauthn_json::creation_options(&registration))
    })
}

/// The `publicKey` options of `navigator.credentials.get` for `passkey.authenticate`'s
/// options (validated: `INVALID_INPUT` names the field at fault).
#[wasm_bindgen(js_name = passkeyRequestOptions)]
pub fn request_options(options: JsValue) -> JsResult<Object> {
    scrubbed(|| {
        let authentication = authentication_input(&options)?.validate().map_err(to_js)?;
        Ok(webauthn_json::request_options(&authentication))
    })
}

/// `{credentialId, clientDataJson, attestationObject, transports}` from the credential
/// `navigator.credentials.create` resolved to (`PASSKEY_FAILED` when a member is missing).
#[wasm_bindgen(js_name = passkeyAttestation)]
pub fn attestation(credential: JsValue) -> JsResult<Object> {
    scrubbed(|| {
        Ok(attestation_object(&webauthn_json::attestation(
            &credential,
        )?))
    })
}

/// `{credentialId, clientDataJson, authenticatorData, signature, userHandle?}` from the
/// credential `navigator.credentials.get` resolved to, which must be the allowed one
/// (`allowedId`, its raw id bytes; `PASSKEY_FAILED` otherwise or when a member is missing).
#[wasm_bindgen(js_name = passkeyAssertion)]
pub fn assertion(credential: JsValue, allowed_id: JsValue) -> JsResult<Object> {
    scrubbed(|| {
        let allowed = webauthn_json::bytes_of(&allowed_id)
            .ok_or_else(|| invalid_input("allowedId must be the allowed credential id's bytes"))?;
        Ok(assertion_object(&webauthn_json::assertion(
            &credential,
            &allowed,
        )?))
    })
}

/// The KitError for a rejection of `navigator.credentials.create` (`register`) or `.get`,
/// by the DOMException's name and what the shim did: its watchdog fired, the ceremony was
/// cancelled (`passkey.cancel()`, the caller's signal, a newer ceremony), the rejection
/// came at or after the requested timeout. The rejection is its cause.
#[wasm_bindgen(js_name = passkeyRejection)]
pub fn rejection(
    register: bool,
    error: JsValue,
    watchdog_fired: bool,
    cancelled: bool,
    past_deadline: bool,
) -> JsValue {
    scrubbed(|| {
        let ceremony = if register {
            Ceremony::Register
        } else {
            Ceremony::Authenticate
        };
        let how = Circumstances {
            watchdog_fired,
            cancelled,
            past_deadline,
        };
        webauthn_json::rejection(ceremony, &error, how)
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
            let value = opt_string(&attestation, key, &["attestation.", key].concat())?
                .filter(|v| base64url_decode(v).is_some_and(|b| !b.is_empty()))
                .ok_or_else(|| {
                    invalid_input(&["attestation.", key, " must be a base64url string"].concat())
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

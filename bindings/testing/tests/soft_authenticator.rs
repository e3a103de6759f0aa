//! The software authenticator through its JS class (feature `testing`). Runs in Node and,
//! with `WASM_BINDGEN_USE_BROWSER=1`, in Chromium.
#![cfg(target_arch = "wasm32")]
// Tests may format (clippy.toml bans it in the library code only).
#![allow(clippy::disallowed_macros)]

use ewk_testing::JsSoftAuthenticator;
use js_sys::{Object, Reflect, JSON};
use wasm_bindgen::JsValue;
use wasm_bindgen_test::wasm_bindgen_test;

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &key.into()).unwrap()
}

fn keys(value: &JsValue) -> Vec<String> {
    Object::keys(&Object::from(value.clone()))
        .iter()
        .map(|k| k.as_string().unwrap())
        .collect()
}

#[wasm_bindgen_test]
fn register_and_authenticate_in_the_api_shapes() {
    let mut authenticator = JsSoftAuthenticator::new("http://localhost:8787").unwrap();
    let attestation: JsValue = authenticator
        .register(JSON::parse(r#"{"challenge":"AAECAw","rpId":"localhost","rpName":"W","user":{"id":"u1","name":"alice"}}"#).unwrap())
        .unwrap()
        .into();
    assert_eq!(
        keys(&attestation),
        [
            "credentialId",
            "clientDataJson",
            "attestationObject",
            "transports"
        ]
    );
    let id = get(&attestation, "credentialId").as_string().unwrap();
    let login = format!(
        r#"{{"challenge":"{}","credentialId":"{id}"}}"#,
        "ab".repeat(32)
    );
    let assertion: JsValue = authenticator
        .authenticate(JSON::parse(&login).unwrap())
        .unwrap()
        .into();
    assert_eq!(
        keys(&assertion),
        [
            "credentialId",
            "clientDataJson",
            "authenticatorData",
            "signature",
            "userHandle"
        ]
    );
    assert_eq!(get(&assertion, "credentialId").as_string().unwrap(), id);
    assert_eq!(get(&assertion, "userHandle"), "dTE");

    let unknown = JSON::parse(r#"{"challenge":"c","credentialId":"AAAA"}"#).unwrap();
    let err = authenticator.authenticate(unknown).unwrap_err();
    assert_eq!(get(&err, "code"), "PASSKEY_CANCELLED");
    let err = JsSoftAuthenticator::new("localhost").err().unwrap();
    assert_eq!(get(&err, "code"), "INVALID_INPUT");
}

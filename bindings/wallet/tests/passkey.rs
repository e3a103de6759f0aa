//! The passkey exports of the wallet module: the synchronous pieces npm/passkey.js drives a
//! ceremony with (the `publicKey` options, the credential read back into the API's JSON,
//! rejections named by code). Runs in Node by default and in headless browsers with
//! `WASM_BINDGEN_USE_BROWSER=1` (see the Makefile). The ceremonies themselves (the call to
//! navigator.credentials, cancel, signals, the watchdog) are tested through the package:
//! tests/js/passkey-ceremony.test.mjs (a scripted navigator.credentials) and
//! tests/passkey/ (every engine, virtual authenticators, @simplewebauthn/server).
#![cfg(target_arch = "wasm32")]
// Tests may format (clippy.toml bans it in the library code only).
#![allow(clippy::disallowed_macros)]

use ewk_wallet::passkey;
use js_sys::{Array, DataView, Function, Object, Reflect, Uint8Array, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

fn options(json: &str) -> JsValue {
    JSON::parse(json).unwrap()
}

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &key.into()).unwrap()
}

fn put(target: &JsValue, key: &str, value: &JsValue) {
    Reflect::set(target, &key.into(), value).unwrap();
}

fn code(err: &JsValue) -> String {
    assert_eq!(get(err, "name"), "KitError");
    get(err, "code").as_string().unwrap()
}

fn message(err: &JsValue) -> String {
    get(err, "message").as_string().unwrap()
}

/// The bytes of a Uint8Array member (the options hand WebAuthn Uint8Arrays).
fn bytes_at(target: &JsValue, key: &str) -> Vec<u8> {
    get(target, key).dyn_into::<Uint8Array>().unwrap().to_vec()
}

fn keys(target: &JsValue) -> Vec<String> {
    Object::keys(target.unchecked_ref::<Object>())
        .iter()
        .map(|k| k.as_string().unwrap())
        .collect()
}

const REGISTER: &str = r#"{"challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","rpId":"localhost","rpName":"Wallet","user":{"id":"InternalAccount:1","name":"alice"},"timeoutMs":5000}"#;

#[wasm_bindgen_test]
fn creation_options_are_the_webauthn_public_key_options() {
    let full = REGISTER.replace(
        "\"timeoutMs\":5000",
        r#""timeoutMs":5000,"excludeCredentialIds":["AQID","BAUG"],"residentKey":"required","userVerification":"discouraged","attachment":"cross-platform","user":{"id":"Zoë","name":"zoe","displayName":"Zoë Example"}"#,
    );
    let pk: JsValue = passkey::creation_options(options(&full)).unwrap().into();
    assert_eq!(
        keys(&pk),
        [
            "challenge",
            "rp",
            "user",
            "pubKeyCredParams",
            "excludeCredentials",
            "authenticatorSelection",
            "attestation",
            "timeout"
        ]
    );
    assert_eq!(bytes_at(&pk, "challenge"), (0u8..32).collect::<Vec<_>>());
    assert_eq!(
        JSON::stringify(&get(&pk, "rp")).unwrap(),
        r#"{"id":"localhost","name":"Wallet"}"#
    );
    let user = get(&pk, "user");
    assert_eq!(bytes_at(&user, "id"), "Zoë".as_bytes());
    assert_eq!(get(&user, "name"), "zoe");
    assert_eq!(get(&user, "displayName"), "Zoë Example");
    assert_eq!(
        JSON::stringify(&get(&pk, "pubKeyCredParams")).unwrap(),
        r#"[{"type":"public-key","alg":-7},{"type":"public-key","alg":-257}]"#
    );
    let excluded: Vec<(JsValue, Vec<u8>)> = Array::from(&get(&pk, "excludeCredentials"))
        .iter()
        .map(|c| (get(&c, "type"), bytes_at(&c, "id")))
        .collect();
    assert_eq!(
        excluded,
        [
            (JsValue::from("public-key"), vec![1, 2, 3]),
            (JsValue::from("public-key"), vec![4, 5, 6])
        ]
    );
    assert_eq!(
        JSON::stringify(&get(&pk, "authenticatorSelection")).unwrap(),
        r#"{"residentKey":"required","requireResidentKey":true,"userVerification":"discouraged","authenticatorAttachment":"cross-platform"}"#
    );
    assert_eq!(get(&pk, "attestation"), "none");
    assert_eq!(get(&pk, "timeout"), 5000);

    let defaults: JsValue = passkey::creation_options(options(REGISTER)).unwrap().into();
    assert_eq!(
        JSON::stringify(&get(&defaults, "authenticatorSelection")).unwrap(),
        r#"{"residentKey":"preferred","requireResidentKey":false,"userVerification":"required"}"#
    );
    assert_eq!(
        Array::from(&get(&defaults, "excludeCredentials")).length(),
        0
    );
    assert_eq!(get(&get(&defaults, "user"), "displayName"), "alice");
}

#[wasm_bindgen_test]
fn request_options_carry_the_login_challenge_as_utf8_and_the_one_allowed_id() {
    let challenge = "ab".repeat(32);
    let json = format!(
        r#"{{"challenge":"{challenge}","credentialId":"AQID","rpId":"localhost","userVerification":"preferred","timeoutMs":7000}}"#
    );
    let pk: JsValue = passkey::request_options(options(&json)).unwrap().into();
    assert_eq!(
        keys(&pk),
        [
            "challenge",
            "allowCredentials",
            "userVerification",
            "timeout",
            "rpId"
        ]
    );
    assert_eq!(bytes_at(&pk, "challenge"), challenge.as_bytes());
    let allowed = Array::from(&get(&pk, "allowCredentials"));
    assert_eq!(allowed.length(), 1);
    assert_eq!(get(&allowed.get(0), "type"), "public-key");
    assert_eq!(bytes_at(&allowed.get(0), "id"), [1, 2, 3]);
    assert_eq!(get(&pk, "userVerification"), "preferred");
    assert_eq!(get(&pk, "timeout"), 7000);
    assert_eq!(get(&pk, "rpId"), "localhost");

    let plain: JsValue =
        passkey::request_options(options(r#"{"challenge":"c","credentialId":"AQID"}"#))
            .unwrap()
            .into();
    assert!(!keys(&plain).contains(&"rpId".to_owned()));
    assert_eq!(get(&plain, "userVerification"), "required");
    assert_eq!(get(&plain, "timeout"), 60_000);
}

#[wasm_bindgen_test]
fn bad_options_are_invalid_input_naming_the_field() {
    let cases = [
        (
            r#"{"challenge":"not base64!","rpId":"localhost","rpName":"W","user":{"id":"u","name":"n"}}"#,
            "challenge",
        ),
        (
            r#"{"challenge":"AAEC","rpId":"localhost","rpName":"W"}"#,
            "user",
        ),
        (
            r#"{"challenge":"AAEC","rpId":"localhost","rpName":"W","user":{"id":"u","name":"n"},"excludeCredentialIds":"AQID"}"#,
            "excludeCredentialIds",
        ),
        (
            r#"{"challenge":"AAEC","rpId":"localhost","rpName":"W","user":{"id":"u","name":"n"},"timeoutMs":"5s"}"#,
            "timeoutMs",
        ),
    ];
    for (json, field) in cases {
        let err = passkey::creation_options(options(json)).unwrap_err();
        assert_eq!(code(&err), "INVALID_INPUT", "{json}");
        assert!(message(&err).contains(field), "{json}: {}", message(&err));
    }
    let err = passkey::creation_options(JsValue::from_str("x")).unwrap_err();
    assert_eq!(code(&err), "INVALID_INPUT");
    let err = passkey::request_options(options(r#"{"challenge":"c"}"#)).unwrap_err();
    assert_eq!(code(&err), "INVALID_INPUT");
    assert!(message(&err).contains("credentialId"));
    let err = passkey::request_options(JsValue::UNDEFINED).unwrap_err();
    assert_eq!(code(&err), "INVALID_INPUT");
}

fn buffer(bytes: &[u8]) -> JsValue {
    Uint8Array::from(bytes).buffer().into()
}

fn data_view(bytes: &[u8]) -> JsValue {
    DataView::new(&Uint8Array::from(bytes).buffer(), 0, bytes.len()).into()
}

/// A Uint8Array over `bytes` at offset 4 of a larger buffer filled with 0xee.
fn offset_view(bytes: &[u8]) -> JsValue {
    let larger = Uint8Array::new_with_length(bytes.len() as u32 + 8);
    larger.fill(0xee, 0, bytes.len() as u32 + 8);
    larger.set(&Uint8Array::from(bytes), 4);
    larger.subarray(4, 4 + bytes.len() as u32).into()
}

/// A credential as the browser resolves it: `rawId` and `response.<member>` wrapped by `wrap`.
fn credential(wrap: fn(&[u8]) -> JsValue, raw_id: &[u8], members: &[(&str, &[u8])]) -> JsValue {
    let response: JsValue = Object::new().into();
    for (key, bytes) in members {
        put(&response, key, &wrap(bytes));
    }
    let credential: JsValue = Object::new().into();
    put(&credential, "rawId", &wrap(raw_id));
    put(&credential, "response", &response);
    credential
}

const ATTESTATION_MEMBERS: &[(&str, &[u8])] =
    &[("clientDataJSON", b"{}"), ("attestationObject", &[0xa0, 1])];

#[wasm_bindgen_test]
fn the_attestation_reads_buffers_and_views_alike() {
    let wraps: [fn(&[u8]) -> JsValue; 3] = [buffer, data_view, offset_view];
    for wrap in wraps {
        let cred = credential(wrap, &[1, 2, 3], ATTESTATION_MEMBERS);
        let transports = Function::new_no_args("return ['internal', 7, 'hybrid']");
        put(&get(&cred, "response"), "getTransports", &transports);
        let att: JsValue = passkey::attestation(cred).unwrap().into();
        assert_eq!(
            JSON::stringify(&att).unwrap(),
            r#"{"credentialId":"AQID","clientDataJson":"e30","attestationObject":"oAE","transports":["internal","hybrid"]}"#
        );
    }
    // No getTransports (old browsers, extension-made objects): no transports.
    let att: JsValue = passkey::attestation(credential(buffer, &[1], ATTESTATION_MEMBERS))
        .unwrap()
        .into();
    assert_eq!(Array::from(&get(&att, "transports")).length(), 0);
}

#[wasm_bindgen_test]
fn a_credential_missing_a_member_is_passkey_failed_naming_it() {
    let err =
        passkey::attestation(credential(buffer, &[1], &[("clientDataJSON", b"{}")])).unwrap_err();
    assert_eq!(code(&err), "PASSKEY_FAILED");
    assert_eq!(
        message(&err),
        "the browser's credential has no attestationObject"
    );
    let not_bytes = credential(buffer, &[1], ATTESTATION_MEMBERS);
    put(&not_bytes, "rawId", &"AQ".into());
    let err = passkey::attestation(not_bytes).unwrap_err();
    assert_eq!(message(&err), "the browser's credential has no rawId");
    let err = passkey::attestation(JsValue::NULL).unwrap_err();
    assert_eq!(code(&err), "PASSKEY_FAILED");
}

const ASSERTION_MEMBERS: &[(&str, &[u8])] = &[
    ("clientDataJSON", b"{}"),
    ("authenticatorData", &[7; 37]),
    ("signature", &[0x30, 2]),
    ("userHandle", b"user"),
];

#[wasm_bindgen_test]
fn the_assertion_is_of_the_allowed_credential_with_its_user_handle_if_any() {
    let allowed = buffer(&[1, 2, 3]);
    let a: JsValue = passkey::assertion(
        credential(offset_view, &[1, 2, 3], ASSERTION_MEMBERS),
        allowed.clone(),
    )
    .unwrap()
    .into();
    assert_eq!(
        JSON::stringify(&a).unwrap(),
        r#"{"credentialId":"AQID","clientDataJson":"e30","authenticatorData":"BwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBwcHBw","signature":"MAI","userHandle":"dXNlcg"}"#
    );
    for handle in [JsValue::NULL, buffer(&[])] {
        let cred = credential(buffer, &[1, 2, 3], ASSERTION_MEMBERS);
        put(&get(&cred, "response"), "userHandle", &handle);
        let a: JsValue = passkey::assertion(cred, allowed.clone()).unwrap().into();
        assert_eq!(
            keys(&a),
            [
                "credentialId",
                "clientDataJson",
                "authenticatorData",
                "signature"
            ]
        );
    }
    let err = passkey::assertion(credential(buffer, &[9], ASSERTION_MEMBERS), allowed).unwrap_err();
    assert_eq!(code(&err), "PASSKEY_FAILED");
    assert_eq!(
        message(&err),
        "the browser answered with a credential other than the one allowed"
    );
    let err = passkey::assertion(
        credential(buffer, &[1], ASSERTION_MEMBERS),
        JsValue::from_str("AQ"),
    )
    .unwrap_err();
    assert_eq!(code(&err), "INVALID_INPUT");
}

fn dom_error(name: &str) -> JsValue {
    let error: JsValue = js_sys::Error::new("the browser's message").into();
    put(&error, "name", &name.into());
    error
}

#[wasm_bindgen_test]
fn rejections_are_named_by_code_with_the_browser_error_as_cause() {
    let cases = [
        (true, "SecurityError", "PASSKEY_INVALID_DOMAIN"),
        (false, "SecurityError", "PASSKEY_INVALID_DOMAIN"),
        (true, "InvalidStateError", "PASSKEY_ALREADY_REGISTERED"),
        (false, "InvalidStateError", "PASSKEY_FAILED"),
        (true, "NotAllowedError", "PASSKEY_CANCELLED"),
        (false, "AbortError", "PASSKEY_CANCELLED"),
        (true, "NotSupportedError", "PASSKEY_UNSUPPORTED"),
        (true, "TypeError", "INVALID_INPUT"),
        (false, "OperationError", "PASSKEY_FAILED"),
        (true, "SomethingNew", "PASSKEY_FAILED"),
    ];
    for (register, name, expected) in cases {
        let error = dom_error(name);
        let err = passkey::rejection(register, error.clone(), false, false, false);
        assert_eq!(code(&err), expected, "{name}");
        assert!(
            js_sys::Object::is(&get(&err, "cause"), &error),
            "{name}: the cause"
        );
    }
    // What the shim knows comes first: its watchdog, then a cancel; NotAllowedError at the
    // deadline is the browser's own timeout.
    let not_allowed = dom_error("NotAllowedError");
    let watchdog = passkey::rejection(true, not_allowed.clone(), true, true, true);
    assert_eq!(code(&watchdog), "PASSKEY_TIMEOUT");
    assert_eq!(
        message(&watchdog),
        "the passkey ceremony timed out: no authenticator answered in time"
    );
    let cancelled = passkey::rejection(false, dom_error("SecurityError"), false, true, false);
    assert_eq!(code(&cancelled), "PASSKEY_CANCELLED");
    let late = passkey::rejection(true, not_allowed, false, false, true);
    assert_eq!(code(&late), "PASSKEY_TIMEOUT");
    let odd = passkey::rejection(true, JsValue::from(42), false, false, false);
    assert_eq!(code(&odd), "PASSKEY_FAILED");
    assert_eq!(get(&odd, "cause"), 42);
}

#[wasm_bindgen_test]
fn registration_body_has_exactly_the_api_fields() {
    let attestation = options(
        r#"{"credentialId":"AQID","clientDataJson":"e30","attestationObject":"oA","transports":["internal"],"extra":1}"#,
    );
    let body: JsValue = passkey::registration_body(
        "InternalAccount:1".into(),
        "My phone".into(),
        "AAEC".into(),
        attestation.clone(),
    )
    .unwrap()
    .into();
    assert_eq!(
        JSON::stringify(&body).unwrap(),
        r#"{"accountId":"InternalAccount:1","nickname":"My phone","challenge":"AAEC","attestation":{"credentialId":"AQID","clientDataJson":"e30","attestationObject":"oA","transports":["internal"]}}"#
    );
    let long = "x".repeat(101);
    let err = passkey::registration_body(
        "a".into(),
        long.as_str().into(),
        "AAEC".into(),
        attestation.clone(),
    )
    .unwrap_err();
    assert_eq!(code(&err), "INVALID_INPUT");
    let err = passkey::registration_body("a".into(), "n".into(), "AAEC".into(), JsValue::NULL)
        .unwrap_err();
    assert_eq!(code(&err), "INVALID_INPUT");
    let _ = attestation.dyn_into::<Object>().unwrap();
}

//! The wasm-bindgen layer, through the same functions JS calls. Runs in Node by default
//! and in headless Chromium with `WASM_BINDGEN_USE_BROWSER=1` (see the Makefile).
#![cfg(target_arch = "wasm32")]
// Tests may format (clippy.toml bans it in the library code only).
#![allow(clippy::disallowed_macros)]

use embedded_wallet_kit::parse_public_key_hex;
use embedded_wallet_kit::service::seal;
use embedded_wallet_kit::service::verify_stamp;
use embedded_wallet_kit::SecretKey;
use ewk_signing::{JsClientKey, JsSession};
use js_sys::{Object, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

const REQUEST: &str = "Request:123e4567-e89b-12d3-a456-426614174000";

fn response_text(bundle: &str, expires_at: &str) -> String {
    format!(
        r#"{{"id":"Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b","accountId":"InternalAccount:7f3e9b1c-2a4d-4c8e-b6f1-9d0e2a3b4c5d","type":"OAUTH","nickname":"a@b.c","expiresAt":"{expires_at}","encryptedSessionSigningKey":"{bundle}"}}"#
    )
}

fn sealed_for(key: &JsClientKey, scalar: [u8; 32]) -> String {
    let public = parse_public_key_hex(&key.public_key_hex().unwrap(), "key").unwrap();
    seal(&public, &scalar).unwrap()
}

fn code_of(err: &JsValue) -> String {
    assert!(
        err.is_instance_of::<js_sys::Error>(),
        "errors are Error instances"
    );
    assert_eq!(Reflect::get(err, &"name".into()).unwrap(), "KitError");
    Reflect::get(err, &"code".into())
        .unwrap()
        .as_string()
        .unwrap()
}

fn get(obj: &JsValue, key: &str) -> JsValue {
    Reflect::get(obj, &key.into()).unwrap()
}

#[wasm_bindgen_test]
fn open_from_object_and_from_text_give_the_same_key() {
    let scalar = [0x11u8; 32];
    let expected = SecretKey::from_slice(&scalar).unwrap().public_key();
    let expected = embedded_wallet_kit::service::compressed_hex(&expected);

    let key = JsClientKey::generate().unwrap();
    let text = response_text(&sealed_for(&key, scalar), "2999-01-01T00:00:00Z");
    let from_text = JsSession::open(&JsValue::from_str(&text), &key).unwrap();
    assert_eq!(from_text.public_key_hex().unwrap().unwrap(), expected);
    assert!(key.consumed().unwrap());
    let again = JsSession::open(&JsValue::from_str(&text), &key)
        .err()
        .unwrap();
    assert_eq!(code_of(&again), "KEY_CONSUMED");

    let key = JsClientKey::generate().unwrap();
    let object = JSON::parse(&response_text(
        &sealed_for(&key, scalar),
        "2999-01-01T00:00:00Z",
    ))
    .unwrap();
    let from_object = JsSession::open(&object, &key).unwrap();
    assert_eq!(from_object.public_key_hex().unwrap().unwrap(), expected);
    assert_eq!(from_object.kind().unwrap(), "OAUTH");
    assert_eq!(
        from_object.expires_at().unwrap().get_time(),
        32_472_144_000_000.0
    );
    // Hedged nonces: two stamps of one payload differ; both verify, by the same key.
    let (a, b) = (
        from_object.stamp(&"p".into()).unwrap(),
        from_text.stamp(&"p".into()).unwrap(),
    );
    assert_ne!(a, b);
    for stamp in [a, b] {
        assert_eq!(verify_stamp(&stamp, "p").unwrap().public_key, expected);
    }
}

#[wasm_bindgen_test]
fn sign_retry_returns_exactly_the_two_headers() {
    let session = JsSession::sandbox(&JsValue::from_str(&response_text(
        "stub",
        "2999-01-01T00:00:00Z",
    )))
    .unwrap();
    assert!(session.sandboxed().unwrap());
    assert!(session.public_key_hex().unwrap().is_none());
    let pending = JSON::parse(&format!(
        r#"{{"payloadToSign":"x","requestId":"{REQUEST}","expiresAt":"2999-01-01T00:00:00Z"}}"#
    ))
    .unwrap();
    let headers: JsValue = session.sign_retry(&pending).unwrap().into();
    let keys: Vec<String> = Object::keys(headers.unchecked_ref::<Object>())
        .iter()
        .map(|k| k.as_string().unwrap())
        .collect();
    assert_eq!(keys, ["Service-Wallet-Signature", "Request-Id"]);
    assert_eq!(
        get(&headers, "Service-Wallet-Signature"),
        "sandbox-valid-signature"
    );
    assert_eq!(get(&headers, "Request-Id"), REQUEST);
    let again = session.sign_retry(&pending).err().unwrap();
    assert_eq!(code_of(&again), "REQUEST_ALREADY_SIGNED");

    let quote =
        JSON::parse(r#"{"id":"Quote:1","payloadToSign":"q","expiresAt":"2999-01-01T00:00:00Z"}"#)
            .unwrap();
    let header: JsValue = session.sign_quote(&quote).unwrap().into();
    let keys = Object::keys(header.unchecked_ref::<Object>());
    assert_eq!(keys.length(), 1);
    assert_eq!(
        get(&header, "Service-Wallet-Signature"),
        "sandbox-valid-signature"
    );
}

#[wasm_bindgen_test]
fn errors_are_kit_errors_with_stable_codes() {
    let key = JsClientKey::generate().unwrap();
    let cases: Vec<(JsValue, &str)> = vec![
        (JsValue::from_str("not json"), "INVALID_SESSION"),
        (JsValue::from_f64(5.0), "INVALID_SESSION"),
        (JsValue::NULL, "INVALID_SESSION"),
        (JSON::parse("[]").unwrap(), "INVALID_SESSION"),
        (
            JsValue::from_str(&response_text("0OIl", "2999-01-01T00:00:00Z")),
            "INVALID_BUNDLE",
        ),
        (
            JsValue::from_str(&response_text("x", "soon")),
            "INVALID_TIMESTAMP",
        ),
    ];
    for (input, code) in cases {
        let err = JsSession::open(&input, &key).err().unwrap();
        assert_eq!(code_of(&err), code);
        let message = get(&err, "message").as_string().unwrap();
        assert!(!message.is_empty());
    }
    assert!(
        !key.consumed().unwrap(),
        "failed opens leave the key usable"
    );

    let session = JsSession::sandbox(&JsValue::from_str(&response_text(
        "",
        "2999-01-01T00:00:00Z",
    )))
    .unwrap();
    assert_eq!(
        code_of(&session.stamp(&JsValue::from_f64(1.0)).err().unwrap()),
        "INVALID_INPUT"
    );
    assert_eq!(
        code_of(&session.sign_retry(&JsValue::from_str("{}")).err().unwrap()),
        "INVALID_PENDING_SIGNATURE"
    );
    assert_eq!(
        code_of(&session.sign_quote(&JsValue::from_str("{}")).err().unwrap()),
        "INVALID_INPUT"
    );
    assert_eq!(
        code_of(&session.is_expired(&JsValue::from_str("x")).err().unwrap()),
        "INVALID_INPUT"
    );
    session.close();
    assert_eq!(
        code_of(&session.stamp(&"p".into()).err().unwrap()),
        "SESSION_CLOSED"
    );
}

#[wasm_bindgen_test]
fn lone_surrogates_are_refused_not_silently_replaced() {
    let key = JsClientKey::generate().unwrap();
    let text = response_text(&sealed_for(&key, [0x22u8; 32]), "2999-01-01T00:00:00Z");
    let session = JsSession::open(&JsValue::from_str(&text), &key).unwrap();
    let lone: JsValue = js_sys::JsString::from_char_code1(0xD800).into();
    assert_eq!(
        code_of(&session.stamp(&lone).err().unwrap()),
        "INVALID_INPUT"
    );
    let pair: JsValue = js_sys::JsString::from_char_code2(0xD83D, 0xDE00).into();
    // The pair is the emoji: its stamp verifies over the emoji's UTF-8 bytes.
    verify_stamp(&session.stamp(&pair).unwrap(), "😀").unwrap();
}

#[wasm_bindgen_test]
fn is_expired_takes_a_date_or_milliseconds() {
    let session = JsSession::sandbox(&JsValue::from_str(&response_text(
        "",
        "2025-10-13T12:15:00Z",
    )))
    .unwrap();
    let at = 1_760_357_700_000.0;
    assert!(!session.is_expired(&JsValue::from_f64(at - 1.0)).unwrap());
    assert!(session.is_expired(&JsValue::from_f64(at)).unwrap());
    assert!(session
        .is_expired(&js_sys::Date::new(&JsValue::from_f64(at)).into())
        .unwrap());
    assert!(
        session.is_expired(&JsValue::UNDEFINED).unwrap(),
        "2025 is in the past"
    );
    let err = session.stamp(&"p".into()).err().unwrap();
    assert_eq!(code_of(&err), "SESSION_EXPIRED");
}

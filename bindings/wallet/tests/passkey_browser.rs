//! The passkey driver in a headless browser (Chromium, Firefox, WebKitGTK: `make
//! test-wasm` runs every engine), on the paths that need no authenticator. WebKitGTK has
//! no WebAuthn, so there every ceremony must be PASSKEY_UNSUPPORTED instead.
//! wasm-bindgen-test serves the page from http://127.0.0.1, an origin WebAuthn refuses
//! as a relying party, which is exactly what the invalid-domain path needs. Ceremonies
//! that succeed run under Playwright with a virtual authenticator (tests/passkey/).
#![cfg(target_arch = "wasm32")]

use ewk_wallet::passkey;
use js_sys::{Object, Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use wasm_bindgen_test::{wasm_bindgen_test, wasm_bindgen_test_configure};

wasm_bindgen_test_configure!(run_in_browser);

fn options(json: &str) -> JsValue {
    JSON::parse(json).unwrap()
}

fn get(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &key.into()).unwrap()
}

fn code(err: &JsValue) -> String {
    assert_eq!(get(err, "name"), "KitError");
    get(err, "code").as_string().unwrap()
}

const REGISTER: &str = r#"{"challenge":"AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8","rpId":"localhost","rpName":"Wallet","user":{"id":"InternalAccount:1","name":"alice"},"timeoutMs":5000}"#;

/// The engine the tests run in, from the user agent: WebKitGTK's has neither "Chrome/"
/// nor "Firefox/".
#[derive(Debug, PartialEq)]
enum Engine {
    Chromium,
    Firefox,
    WebKit,
}

fn engine() -> Engine {
    let ua = get(&get(&js_sys::global(), "navigator"), "userAgent")
        .as_string()
        .unwrap();
    if ua.contains("Firefox/") {
        Engine::Firefox
    } else if ua.contains("Chrome/") {
        Engine::Chromium
    } else {
        assert!(ua.contains("AppleWebKit/"), "unknown engine: {ua}");
        Engine::WebKit
    }
}

#[wasm_bindgen_test]
fn webauthn_is_supported_except_in_webkitgtk() {
    let has_pkc = get(&js_sys::global(), "PublicKeyCredential").is_function();
    assert_eq!(has_pkc, engine() != Engine::WebKit, "{:?}", engine());
    assert_eq!(passkey::is_supported(), has_pkc);
}

#[wasm_bindgen_test]
async fn detection_promises_resolve_to_booleans() {
    let uvpaa = JsFuture::from(passkey::platform_authenticator_available())
        .await
        .unwrap();
    assert!(uvpaa.as_bool().is_some());
    let conditional = JsFuture::from(passkey::conditional_mediation_available())
        .await
        .unwrap();
    assert!(conditional.as_bool().is_some());
    let capabilities = JsFuture::from(passkey::client_capabilities())
        .await
        .unwrap();
    // Chromium and Firefox have getClientCapabilities; without WebAuthn it is unknown.
    if engine() == Engine::WebKit {
        assert!(capabilities.is_undefined());
    } else {
        assert!(capabilities.is_object(), "{:?}", engine());
    }
}

#[wasm_bindgen_test]
async fn an_ip_origin_is_an_invalid_domain_with_the_browser_error_as_cause() {
    if engine() == Engine::WebKit {
        // No WebAuthn: every ceremony is unsupported, at once, whatever the origin.
        let started = js_sys::Date::now();
        let err = passkey::register(options(REGISTER)).await.unwrap_err();
        assert_eq!(code(&err), "PASSKEY_UNSUPPORTED");
        let auth = options(
            r#"{"challenge":"abc","credentialId":"AQID","rpId":"localhost","timeoutMs":5000}"#,
        );
        let err = passkey::authenticate(auth).await.unwrap_err();
        assert_eq!(code(&err), "PASSKEY_UNSUPPORTED");
        let elapsed = js_sys::Date::now() - started;
        assert!(elapsed < 1000.0, "took {elapsed} ms");
        return;
    }
    let err = passkey::register(options(REGISTER)).await.unwrap_err();
    assert_eq!(code(&err), "PASSKEY_INVALID_DOMAIN");
    let cause = get(&err, "cause");
    assert_eq!(get(&cause, "name"), "SecurityError");
    assert!(
        !get(&cause, "message").as_string().unwrap().is_empty(),
        "the browser's message is kept"
    );

    let auth =
        options(r#"{"challenge":"abc","credentialId":"AQID","rpId":"localhost","timeoutMs":5000}"#);
    let err = passkey::authenticate(auth).await.unwrap_err();
    assert_eq!(code(&err), "PASSKEY_INVALID_DOMAIN");
}

#[wasm_bindgen_test]
async fn bad_options_fail_before_the_browser_is_asked() {
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
        (
            r#"{"challenge":"AAEC","rpId":"localhost","rpName":"W","user":{"id":"u","name":"n"},"signal":{}}"#,
            "signal",
        ),
    ];
    for (json, field) in cases {
        let err = passkey::register(options(json)).await.unwrap_err();
        assert_eq!(code(&err), "INVALID_INPUT", "{json}");
        assert!(
            get(&err, "message").as_string().unwrap().contains(field),
            "{json}"
        );
    }
    let err = passkey::register(JsValue::from_str("x")).await.unwrap_err();
    assert_eq!(code(&err), "INVALID_INPUT");
    let err = passkey::authenticate(options(r#"{"challenge":"c"}"#))
        .await
        .unwrap_err();
    assert!(get(&err, "message")
        .as_string()
        .unwrap()
        .contains("credentialId"));
}

#[wasm_bindgen_test]
async fn an_aborted_signal_cancels_at_once() {
    let controller = web_sys::AbortController::new().unwrap();
    controller.abort();
    let opts = options(REGISTER);
    Reflect::set(&opts, &"signal".into(), &controller.signal()).unwrap();
    let err = passkey::register(opts).await.unwrap_err();
    // Without WebAuthn there is nothing to cancel: unsupported comes first.
    let expected = match engine() {
        Engine::WebKit => "PASSKEY_UNSUPPORTED",
        _ => "PASSKEY_CANCELLED",
    };
    assert_eq!(code(&err), expected);
    // Nothing in flight: cancel is a no-op.
    passkey::cancel();
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

/// Replaces `navigator.credentials.create` with one that never settles (as some
/// extensions and polyfills do when they ignore the AbortSignal), runs `f`, restores it.
async fn with_hanging_create<F: std::future::Future<Output = ()>>(f: impl FnOnce() -> F) {
    let creds = get(&get(&js_sys::global(), "navigator"), "credentials");
    let original = get(&creds, "create");
    let hang = js_sys::Function::new_no_args("return new Promise(() => {})");
    Reflect::set(&creds, &"create".into(), &hang).unwrap();
    f().await;
    Reflect::set(&creds, &"create".into(), &original).unwrap();
}

#[wasm_bindgen_test]
async fn the_watchdog_and_cancel_end_a_ceremony_the_browser_never_settles() {
    if engine() == Engine::WebKit {
        // WebKitGTK has not even navigator.credentials: nothing can hang, it is unsupported.
        let navigator = get(&js_sys::global(), "navigator");
        assert!(get(&navigator, "credentials").is_undefined());
        let err = passkey::register(options(REGISTER)).await.unwrap_err();
        assert_eq!(code(&err), "PASSKEY_UNSUPPORTED");
        return;
    }
    with_hanging_create(|| async {
        let opts = REGISTER.replace("\"timeoutMs\":5000", "\"timeoutMs\":300");
        let started = js_sys::Date::now();
        let err = passkey::register(options(&opts)).await.unwrap_err();
        let elapsed = js_sys::Date::now() - started;
        assert_eq!(code(&err), "PASSKEY_TIMEOUT");
        assert!(
            elapsed >= 300.0,
            "not before the requested timeout ({elapsed} ms)"
        );

        let pending = passkey::register(options(REGISTER));
        let cancel = js_sys::Function::new_no_args("globalThis.__kitCancel()");
        let cancel_now = wasm_bindgen::closure::Closure::once_into_js(passkey::cancel);
        Reflect::set(&js_sys::global(), &"__kitCancel".into(), &cancel_now).unwrap();
        let timer = js_sys::Function::new_with_args("f", "setTimeout(f, 50)");
        timer.call1(&JsValue::NULL, &cancel).unwrap();
        let err = pending.await.unwrap_err();
        assert_eq!(code(&err), "PASSKEY_CANCELLED");
    })
    .await;
}

//! The flow drivers of the wallet module with ewk-signing's Session signing what they
//! hand out, as the JS WalletClient uses them (moved here from tests/bindings.rs
//! with the split into one crate per module). Runs in Node by default and in headless
//! browsers with `WASM_BINDGEN_USE_BROWSER=1` (see the Makefile).
#![cfg(target_arch = "wasm32")]
// Tests may format (clippy.toml bans it in the library code only).
#![allow(clippy::disallowed_macros)]

use ewk_signing::{JsClientKey, JsSession};
use js_sys::{Reflect, JSON};
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_test::wasm_bindgen_test;

const REQUEST: &str = "Request:123e4567-e89b-12d3-a456-426614174000";

fn response_text(bundle: &str, expires_at: &str) -> String {
    format!(
        r#"{{"id":"Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b","accountId":"InternalAccount:7f3e9b1c-2a4d-4c8e-b6f1-9d0e2a3b4c5d","type":"OAUTH","nickname":"a@b.c","expiresAt":"{expires_at}","encryptedSessionSigningKey":"{bundle}"}}"#
    )
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
fn signed_retry_flow_drives_202s_and_types_errors() {
    use ewk_wallet::{JsQuoteExecution, JsSignedRetryFlow};
    let session = JsSession::sandbox(&JsValue::from_str(&response_text(
        "",
        "2999-01-01T00:00:00Z",
    )))
    .unwrap();
    let request =
        JSON::parse(r#"{"method":"delete","path":"/auth/sessions/Session:x","body":{"a":1}}"#)
            .unwrap();
    let mut flow = JsSignedRetryFlow::new(&request).unwrap();
    let first: JsValue = flow.first_request().into();
    assert_eq!(get(&first, "method"), "DELETE");
    assert_eq!(get(&first, "body"), r#"{"a":1}"#);
    let pending = format!(
        r#"{{"status":202,"headers":{{}},"body":"{{\"payloadToSign\":\"p\",\"requestId\":\"{REQUEST}\",\"expiresAt\":\"2999-01-01T00:00:00Z\"}}"}}"#
    );
    // The flow hands out what to sign; the session (the signing module's) signs it.
    let step: JsValue = flow
        .on_response(&JSON::parse(&pending).unwrap())
        .unwrap()
        .unwrap()
        .into();
    let to_sign = get(&step, "sign");
    assert_eq!(get(&to_sign, "payloadToSign"), "p");
    assert_eq!(get(&to_sign, "expiresAt"), "2999-01-01T00:00:00.000Z");
    let signed: JsValue = session.sign_retry(&to_sign).unwrap().into();
    let retry: JsValue = flow
        .signed(
            get(&signed, "Service-Wallet-Signature")
                .as_string()
                .unwrap(),
            get(&signed, "Request-Id").as_string().unwrap(),
        )
        .unwrap()
        .into();
    assert_eq!(
        get(&retry, "body"),
        r#"{"a":1}"#,
        "the retry repeats the body bytes"
    );
    let headers = get(&retry, "headers");
    assert_eq!(
        get(&headers, "Service-Wallet-Signature"),
        "sandbox-valid-signature"
    );
    assert_eq!(get(&headers, "Request-Id"), REQUEST);
    let done = flow
        .on_response(&JSON::parse(r#"{"status":204}"#).unwrap())
        .unwrap();
    assert!(done.is_none());
    // An expired 202 restarts the request once; other refusals are thrown on unchanged.
    let mut flow = JsSignedRetryFlow::new(&request).unwrap();
    let expired: JsValue = js_sys::Error::new("expired").into();
    js_sys::Reflect::set(&expired, &"code".into(), &"REQUEST_EXPIRED".into()).unwrap();
    let again: JsValue = flow.sign_failed(expired.clone()).unwrap().into();
    assert_eq!(get(&again, "method"), "DELETE");
    assert!(flow.sign_failed(expired.clone()).is_err(), "only once");
    let other: JsValue = js_sys::Error::new("closed").into();
    let thrown = JsSignedRetryFlow::new(&request)
        .unwrap()
        .sign_failed(other.clone());
    assert!(js_sys::Object::is(&thrown.err().unwrap(), &other));

    let mut flow = JsSignedRetryFlow::new(&request).unwrap();
    let unauthorized = JSON::parse(
        r#"{"status":401,"body":{"code":"UNAUTHORIZED","reason":"Request id already used"}}"#,
    )
    .unwrap();
    let err = flow.on_response(&unauthorized).err().unwrap();
    assert_eq!(code_of(&err), "UNAUTHORIZED");
    assert_eq!(get(&err, "reason"), "Request id already used");
    assert_eq!(get(&err, "status"), 401);
    let limited =
        JSON::parse(r#"{"status":429,"headers":{"Retry-After":"2"},"body":"<html>"}"#).unwrap();
    let err = flow.on_response(&limited).err().unwrap();
    assert_eq!(code_of(&err), "RATE_LIMITED");
    assert_eq!(get(&err, "retryAfterMs"), 2000);
    // A transport's malformed response is the service's problem, not the caller's input.
    let bad = JSON::parse(r#"{"status":"ok"}"#).unwrap();
    assert_eq!(
        code_of(&flow.on_response(&bad).err().unwrap()),
        "SERVICE_ERROR"
    );

    let quote = r#"{"id":"Quote:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e5f","payloadToSign":"q","expiresAt":"2999-01-01T00:00:00Z"}"#;
    let execution = JsQuoteExecution::new(&JsValue::from_str(quote)).unwrap();
    let sign = |execution: &JsQuoteExecution| -> JsValue {
        let signed: JsValue = session
            .sign_quote(&execution.to_sign().into())
            .unwrap()
            .into();
        let signature = get(&signed, "Service-Wallet-Signature")
            .as_string()
            .unwrap();
        execution.request(signature).into()
    };
    let (a, b) = (sign(&execution), sign(&execution));
    assert_eq!(
        get(&get(&a, "headers"), "Service-Wallet-Signature"),
        "sandbox-valid-signature"
    );
    let key = execution.idempotency_key();
    assert_eq!(get(&get(&a, "headers"), "Idempotency-Key"), key.as_str());
    assert_eq!(get(&get(&b, "headers"), "Idempotency-Key"), key.as_str());
    assert_eq!(
        get(&a, "path"),
        "/quotes/Quote:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e5f/execute"
    );
    assert!(execution
        .on_response(&JSON::parse(r#"{"status":200,"body":{}}"#).unwrap())
        .is_ok());
}

#[wasm_bindgen_test]
fn wallet_operations_by_name_and_passkey_challenges() {
    use ewk_wallet::{wallet_flow, JsPasskeyChallenge};
    const CRED: &str = "AuthMethod:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b";
    const SESSION: &str = "Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b";
    let key = JsClientKey::generate().unwrap();
    let flow = wallet_flow(
        "verifyEmailOtp",
        CRED,
        Some("123456".into()),
        None,
        None,
        Some(key.public_key_hex().unwrap()),
        Some(key.compressed_public_key_hex().unwrap()),
        false,
    )
    .unwrap();
    assert!(!flow.client_held());
    let first: JsValue = flow.first_request().into();
    assert_eq!(
        get(&first, "path"),
        format!("/auth/credentials/{CRED}/verify")
    );
    let body = JSON::parse(&get(&first, "body").as_string().unwrap()).unwrap();
    assert_eq!(
        get(&body, "clientPublicKey"),
        key.public_key_hex().unwrap().as_str()
    );
    // The names are parsed here (the core's Operation is typed): what an operation
    // needs is named when missing, and an unknown name is refused. (Moved from the core's
    // operations test when the operation became an enum.)
    let public = key.public_key_hex().unwrap();
    for (name, needs, with_key) in [
        ("refresh", "a session", true),
        ("revokeSession", "a session", true),
        ("verifyEmailOtp", "a ClientKey", false),
        ("exportWallet", "a ClientKey", false),
    ] {
        let err = wallet_flow(
            name,
            "InternalAccount:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e5f",
            Some("1".into()),
            None,
            None,
            with_key.then(|| public.clone()),
            None,
            false,
        )
        .err()
        .unwrap();
        assert_eq!(code_of(&err), "INVALID_INPUT", "{name}");
        assert_eq!(
            Reflect::get(&err, &"message".into()).unwrap(),
            format!("{name} needs {needs}").as_str()
        );
    }
    let err = wallet_flow("nope", CRED, None, None, None, None, None, false)
        .err()
        .unwrap();
    assert_eq!(code_of(&err), "INVALID_INPUT");
    assert_eq!(
        Reflect::get(&err, &"message".into()).unwrap(),
        "unknown wallet operation"
    );
    // A plain request answered 202 needs a session it was not given.
    let mut flow = wallet_flow(
        "createEmailOtp",
        "InternalAccount:1",
        None,
        None,
        None,
        None,
        None,
        false,
    )
    .unwrap();
    let err = flow
        .on_unsigned_response(&JSON::parse(r#"{"status":202,"body":{}}"#).unwrap())
        .err()
        .unwrap();
    assert_eq!(code_of(&err), "SERVICE_ERROR");
    assert!(flow
        .on_unsigned_response(&JSON::parse(r#"{"status":201}"#).unwrap())
        .unwrap()
        .is_none());
    // Still processing: `{ resend: { request, delayMs, attempt } }`, the same request.
    let step = flow
        .on_unsigned_response(
            &JSON::parse(r#"{"status":200,"body":{"status":"PROCESSING"}}"#).unwrap(),
        )
        .unwrap()
        .unwrap();
    let resend = Reflect::get(&step, &"resend".into()).unwrap();
    assert_eq!(Reflect::get(&resend, &"attempt".into()).unwrap(), 1);
    let request = Reflect::get(&resend, &"request".into()).unwrap();
    assert_eq!(
        JSON::stringify(&request).unwrap(),
        JSON::stringify(&flow.first_request()).unwrap()
    );
    let err = wallet_flow("refresh", "", None, None, None, None, None, false)
        .err()
        .unwrap();
    assert_eq!(code_of(&err), "INVALID_INPUT");

    // A session issued by a credential may not revoke it.
    let by = |name: &str, id: &str| {
        wallet_flow(
            name,
            id,
            None,
            Some(SESSION.into()),
            Some(CRED.into()),
            None,
            None,
            false,
        )
    };
    // Client-held mode: the passkey challenge binds the compressed key, and says so;
    // the plaintext-OTP verify stays sealed.
    let held = |name: &str, text: Option<String>| {
        wallet_flow(
            name,
            CRED,
            text,
            None,
            None,
            Some(key.public_key_hex().unwrap()),
            Some(key.compressed_public_key_hex().unwrap()),
            true,
        )
        .unwrap()
    };
    let challenge = held("challenge", None);
    assert!(challenge.client_held());
    let first: JsValue = challenge.first_request().into();
    let body = JSON::parse(&get(&first, "body").as_string().unwrap()).unwrap();
    assert_eq!(
        get(&body, "clientPublicKey"),
        key.compressed_public_key_hex().unwrap().as_str()
    );
    assert!(!held("verifyEmailOtp", Some("123456".into())).client_held());
    assert_eq!(
        code_of(&by("revokeCredential", CRED).err().unwrap()),
        "INVALID_INPUT"
    );
    assert!(by("revokeSession", "").is_ok());

    let challenged = JSON::parse(r#"{"status":200,"headers":{},"body":{"credentialId":"AQID","challenge":"ab","requestId":"Request:123e4567-e89b-12d3-a456-426614174000","expiresAt":"2999-01-01T00:00:00Z"}}"#).unwrap();
    let challenge = JsPasskeyChallenge::new(CRED, &challenged).unwrap();
    let input: JsValue = challenge
        .authentication_input(Some("localhost".into()))
        .into();
    assert_eq!(get(&input, "challenge"), "ab");
    assert_eq!(get(&input, "credentialId"), "AQID");
    assert_eq!(get(&input, "rpId"), "localhost");
    let assertion = JSON::parse(r#"{"credentialId":"AQID","clientDataJson":"e30","authenticatorData":"BA","signature":"BQ"}"#).unwrap();
    let verify: JsValue = challenge.verify(&assertion).unwrap().first_request().into();
    assert_eq!(
        get(&get(&verify, "headers"), "Request-Id"),
        "Request:123e4567-e89b-12d3-a456-426614174000"
    );
    let err = challenge.verify(&JSON::parse("{}").unwrap()).err().unwrap();
    assert_eq!(code_of(&err), "INVALID_INPUT");
}

/// Every operation name the JS WalletClient sends builds its own request (method and
/// path) and key mode: a swap of two names in the binding's parser fails here. (The
/// core's table-driven test covers the typed `Operation`; this one, the names.)
#[wasm_bindgen_test]
fn every_operation_name_builds_its_request_in_both_key_modes() {
    use ewk_wallet::wallet_flow;
    const ACCOUNT: &str = "InternalAccount:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e5f";
    const CUSTOMER: &str = "Customer:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e60";
    const CRED: &str = "AuthMethod:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b";
    const OTHER_CRED: &str = "AuthMethod:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e5f";
    const SESSION: &str = "Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b";
    let key = JsClientKey::generate().unwrap();
    // (name, id, text, method, path, follows the client's key mode)
    let cases = [
        (
            "createEmailOtp",
            ACCOUNT,
            None,
            "POST",
            "/auth/credentials".to_owned(),
            false,
        ),
        (
            "addCredential",
            "",
            Some("{\"x\":1}"),
            "POST",
            "/auth/credentials".to_owned(),
            false,
        ),
        (
            "challenge",
            CRED,
            None,
            "POST",
            format!("/auth/credentials/{CRED}/challenge"),
            true,
        ),
        (
            "verifyEmailOtp",
            CRED,
            Some("123456"),
            "POST",
            format!("/auth/credentials/{CRED}/verify"),
            false,
        ),
        (
            "verifyOauth",
            CRED,
            Some("a.b.c"),
            "POST",
            format!("/auth/credentials/{CRED}/verify"),
            true,
        ),
        (
            "refresh",
            "",
            None,
            "POST",
            format!("/auth/sessions/{SESSION}/refresh"),
            true,
        ),
        (
            "revokeSession",
            "",
            None,
            "DELETE",
            format!("/auth/sessions/{SESSION}"),
            false,
        ),
        (
            "revokeCredential",
            OTHER_CRED,
            None,
            "DELETE",
            format!("/auth/credentials/{OTHER_CRED}"),
            false,
        ),
        (
            "exportWallet",
            ACCOUNT,
            None,
            "POST",
            format!("/internal-accounts/{ACCOUNT}/export"),
            false,
        ),
        (
            "updateAccount",
            ACCOUNT,
            Some("{}"),
            "PATCH",
            format!("/internal-accounts/{ACCOUNT}"),
            false,
        ),
        (
            "updateCustomer",
            CUSTOMER,
            Some(r#"{"email":"a@b.co"}"#),
            "PATCH",
            format!("/customers/{CUSTOMER}"),
            false,
        ),
    ];
    for client_held in [false, true] {
        for (name, id, text, method, path, follows_mode) in &cases {
            let flow = wallet_flow(
                name,
                id,
                text.map(str::to_owned),
                Some(SESSION.into()),
                Some(CRED.into()),
                Some(key.public_key_hex().unwrap()),
                Some(key.compressed_public_key_hex().unwrap()),
                client_held,
            )
            .unwrap_or_else(|e| panic!("{name}: {}", code_of(&e)));
            let first: JsValue = flow.first_request().into();
            assert_eq!(get(&first, "method"), *method, "{name}");
            assert_eq!(get(&first, "path"), path.as_str(), "{name}");
            assert_eq!(
                flow.client_held(),
                client_held && *follows_mode,
                "{name} (client-held client: {client_held})"
            );
        }
    }
}

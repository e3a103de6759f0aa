//! Sandbox mode: the sandbox's magic values exactly (docs/protocol.md, Sandbox).

mod common;

use common::{assertion_body, register_body, start};
use embedded_wallet_kit::encoding::base64url_encode;
use embedded_wallet_kit::passkey::{AuthenticationInput, SoftAuthenticator};
use embedded_wallet_kit::service::base58check_decode;
use embedded_wallet_kit::service::SANDBOX_SIGNATURE;
use embedded_wallet_kit::system_now;
use embedded_wallet_kit::{ClientKey, ErrorCode, PendingSignature, Session};
use emulator::Mode;
use serde_json::{json, Value};

/// EMAIL_OTP create and verify with the magic OTP; returns (session, raw response).
fn sandbox_login(emu: &common::Emu, account: &str) -> (Session, String, String) {
    let r = emu.post(
        "/auth/credentials",
        &json!({"type": "EMAIL_OTP", "accountId": account}),
    );
    r.expect(201);
    let cred_id = r.json()["id"].as_str().unwrap().to_owned();
    let key = ClientKey::generate().unwrap();
    let r = emu.post(
        &format!("/auth/credentials/{cred_id}/verify"),
        &json!({"type": "EMAIL_OTP", "otp": "000000", "clientPublicKey": key.public_key_hex()}),
    );
    r.expect(200);
    (Session::sandbox_json(&r.body).unwrap(), r.body, cred_id)
}

#[test]
fn magic_otp_stub_bundle_and_magic_signature() {
    let emu = start(Mode::Sandbox);
    assert_eq!(emu.config()["mode"], "sandbox");
    let (account, _) = emu.new_account();
    let r = emu.post(
        "/auth/credentials",
        &json!({"type": "EMAIL_OTP", "accountId": account}),
    );
    r.expect(201);
    let cred_id = r.json()["id"].as_str().unwrap().to_owned();
    // Delivery is skipped.
    let outbox = emu.raw(
        "GET",
        &format!("/emulator/outbox?accountId={account}"),
        &[],
        "",
    );
    assert_eq!(outbox.json(), json!([]));

    let verify = format!("/auth/credentials/{cred_id}/verify");
    let mut key = ClientKey::generate().unwrap();
    let r = emu.post(
        &verify,
        &json!({"type": "EMAIL_OTP", "otp": "123456", "clientPublicKey": key.public_key_hex()}),
    );
    assert_eq!((r.status, r.reason().as_str()), (401, "Invalid OTP code"));
    assert_eq!(r.json()["code"], "UNAUTHORIZED");
    let r = emu.post(
        &verify,
        &json!({"type": "EMAIL_OTP", "otp": "000000", "clientPublicKey": "04"}),
    );
    r.expect(400);
    let r = emu.post(
        &verify,
        &json!({"type": "EMAIL_OTP", "otp": "000000", "clientPublicKey": key.public_key_hex()}),
    );
    r.expect(200);

    // The stub bundle: base58check(0x02 ‖ 32 ‖ 48), which does not open.
    let bundle = r.json()["encryptedSessionSigningKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let payload = base58check_decode(&bundle).unwrap();
    assert_eq!((payload.len(), payload[0]), (81, 0x02));
    let err = Session::open_json(&r.body, &mut key).unwrap_err();
    assert!(
        matches!(
            err.code(),
            ErrorCode::DecryptionFailed | ErrorCode::InvalidBundle
        ),
        "{err:?}"
    );
    // The stub's x is random: about half are not on P-256, and such an open consumes the
    // key (an invalid-curve probe, to an honest production service); any other does not.
    let off_curve = err.code() == ErrorCode::InvalidBundle && err.message().contains("not a point");
    assert_eq!(key.is_consumed(), off_curve, "{err:?}");
    let mut session = Session::sandbox_json(&r.body).unwrap();

    // Signed retries: only the magic value.
    let path = format!("/internal-accounts/{account}");
    let body = r#"{"privacyEnabled":true}"#;
    let first = emu.api("PATCH", &path, &[], body);
    first.expect(202);
    let pending = PendingSignature::from_json(&first.body).unwrap();
    let real_stamp = {
        // A well-formed stamp from a real key is still not the magic value.
        let mut k = ClientKey::generate().unwrap();
        let fake = json!({"id": "Session:00000000-0000-4000-8000-000000000000", "accountId": account,
            "type": "EMAIL_OTP", "expiresAt": "2999-01-01T00:00:00Z",
            "encryptedSessionSigningKey": embedded_wallet_kit::service::seal(k.public_key(), &[7u8; 32]).unwrap()});
        Session::open_json(&fake.to_string(), &mut k)
            .unwrap()
            .stamp(&pending.payload_to_sign, system_now())
            .unwrap()
    };
    for wrong in [real_stamp.as_str(), "Sandbox-Valid-Signature", "nope"] {
        let r = emu.retry_with("PATCH", &path, wrong, &pending.request_id, body);
        assert_eq!(
            (r.status, r.reason().as_str()),
            (401, "Invalid Service-Wallet-Signature"),
            "{wrong}"
        );
    }
    let headers = session.sign_retry(&pending, system_now()).unwrap();
    assert_eq!(headers.signature, SANDBOX_SIGNATURE);
    let r = emu.retry_with(
        "PATCH",
        &path,
        &headers.signature,
        &headers.request_id,
        body,
    );
    r.expect(200);
    assert_eq!(r.json()["privacyEnabled"], true);
    let r = emu.retry_with(
        "PATCH",
        &path,
        &headers.signature,
        &headers.request_id,
        body,
    );
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "Request id already used")
    );

    // Refresh returns another stub; DELETE session works with the magic signature.
    let session_id = session.info().id.clone();
    let new_key = ClientKey::generate().unwrap();
    let r = emu.signed(
        &mut session,
        "POST",
        &format!("/auth/sessions/{session_id}/refresh"),
        &json!({"clientPublicKey": new_key.public_key_hex()}).to_string(),
    );
    r.expect(201);
    assert_eq!(
        base58check_decode(r.json()["encryptedSessionSigningKey"].as_str().unwrap())
            .unwrap()
            .len(),
        81
    );
    emu.signed(
        &mut session,
        "DELETE",
        &format!("/auth/sessions/{session_id}"),
        "",
    )
    .expect(204);
}

#[test]
fn magic_oidc_token_and_passkey_signature() {
    let emu = start(Mode::Sandbox);
    let (account, _) = emu.new_account();
    let (mut session, _, _) = sandbox_login(&emu, &account);

    // OAUTH create: the magic token does not work; a JWT-shaped token with a known iss does.
    let r = emu.post(
        "/auth/credentials",
        &json!({"type": "OAUTH", "accountId": account, "oidcToken": "sandbox-valid-oidc-token"}),
    );
    assert_eq!((r.status, r.reason().as_str()), (401, "Invalid OIDC token"));
    let jwt = |iss: &str| {
        format!(
            "{}.{}.{}",
            base64url_encode(br#"{"alg":"RS256"}"#),
            base64url_encode(
                json!({"iss": iss, "aud": "app", "sub": "g-123", "email": "g@example.com"})
                    .to_string()
                    .as_bytes()
            ),
            base64url_encode(b"dummy")
        )
    };
    let r = emu.post(
        "/auth/credentials",
        &json!({"type": "OAUTH", "accountId": account, "oidcToken": jwt("https://issuer.invalid")}),
    );
    assert_eq!((r.status, r.reason().as_str()), (401, "Invalid OIDC token"));
    let body = json!({"type": "OAUTH", "accountId": account, "oidcToken": jwt("https://accounts.google.com")});
    let r = emu.signed(&mut session, "POST", "/auth/credentials", &body.to_string());
    r.expect(201);
    assert_eq!(r.json()["nickname"], "g@example.com");
    let oauth = r.json()["id"].as_str().unwrap().to_owned();
    let key = ClientKey::generate().unwrap();
    let verify = |token: &str| {
        emu.post(
            &format!("/auth/credentials/{oauth}/verify"),
            &json!({"type": "OAUTH", "oidcToken": token, "clientPublicKey": key.public_key_hex()}),
        )
    };
    verify("sandbox-valid-oidc-token").expect(200);
    let r = verify(&jwt("https://accounts.google.com"));
    assert_eq!((r.status, r.reason().as_str()), (401, "Invalid OIDC token"));

    // PASSKEY: registration accepted structurally, login with the magic signature.
    let mut authenticator = SoftAuthenticator::new("http://localhost:3000").unwrap();
    let body = register_body(&mut authenticator, &account, "Key");
    let r = emu.signed(&mut session, "POST", "/auth/credentials", &body.to_string());
    r.expect(201);
    let passkey = r.json()["id"].as_str().unwrap().to_owned();
    let credential_id = r.json()["credentialId"].as_str().unwrap().to_owned();
    let challenge = format!("/auth/credentials/{passkey}/challenge");
    emu.post(&challenge, &json!({})).expect(400);
    let c = emu.post(
        &challenge,
        &json!({"clientPublicKey": key.public_key_hex()}),
    );
    c.expect(200);
    let c = c.json();
    let assertion = authenticator
        .authenticate(
            &AuthenticationInput {
                challenge: Some(c["challenge"].as_str().unwrap().to_owned()),
                credential_id: Some(credential_id),
                rp_id: Some("localhost".into()),
                ..Default::default()
            }
            .validate()
            .unwrap(),
        )
        .unwrap();
    let rid = c["requestId"].as_str().unwrap();
    let verify_path = format!("/auth/credentials/{passkey}/verify");
    // A real assertion is not the magic value.
    let r = emu.api(
        "POST",
        &verify_path,
        &[("Request-Id", rid)],
        &assertion_body(&assertion).to_string(),
    );
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "Invalid passkey signature")
    );
    let mut magic = assertion_body(&assertion);
    magic["assertion"]["signature"] = json!("sandbox-valid-passkey-signature");
    let r = emu.api(
        "POST",
        &verify_path,
        &[("Request-Id", rid)],
        &magic.to_string(),
    );
    r.expect(200);
    assert_eq!(r.json()["type"], "PASSKEY");
    Session::sandbox_json(&r.body).unwrap();
}

#[test]
fn sandbox_quotes_and_export() {
    let emu = start(Mode::Sandbox);
    let merchant = emu.config()["merchantAccountId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (account, _) = emu.new_account();
    let (mut session, _, _) = sandbox_login(&emu, &account);
    emu.post(
        &format!("/sandbox/internal-accounts/{account}/fund"),
        &json!({"amount": 500}),
    )
    .expect(200);
    let q = emu.post(
        "/quotes",
        &json!({
            "source": {"sourceType": "ACCOUNT", "accountId": account},
            "destination": {"destinationType": "ACCOUNT", "accountId": merchant},
            "lockedCurrencySide": "RECEIVING", "lockedCurrencyAmount": 200,
        }),
    );
    q.expect(201);
    let execute = format!("/quotes/{}/execute", q.json()["id"].as_str().unwrap());
    let r = emu.api(
        "POST",
        &execute,
        &[("Service-Wallet-Signature", "sandbox-invalid")],
        "",
    );
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "Invalid Service-Wallet-Signature")
    );
    let stamp = session
        .sign_quote(
            &embedded_wallet_kit::QuoteToSign::from_json(&q.body).unwrap(),
            system_now(),
        )
        .unwrap();
    assert_eq!(stamp, SANDBOX_SIGNATURE);
    emu.api(
        "POST",
        &execute,
        &[("Service-Wallet-Signature", stamp.as_str())],
        "",
    )
    .expect(200);
    assert_eq!((emu.balance(&account), emu.balance(&merchant)), (300, 200));

    let key = ClientKey::generate().unwrap();
    let r = emu.signed(
        &mut session,
        "POST",
        &format!("/internal-accounts/{account}/export"),
        &json!({"clientPublicKey": key.public_key_hex()}).to_string(),
    );
    r.expect(200);
    let envelope: Value =
        serde_json::from_str(r.json()["encryptedWalletCredentials"].as_str().unwrap()).unwrap();
    assert_eq!(envelope["dataSignature"], "");
    assert_eq!(envelope["enclaveQuorumPublic"], "");
    assert!(!envelope["data"].as_str().unwrap().is_empty());
}

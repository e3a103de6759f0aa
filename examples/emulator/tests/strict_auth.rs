//! Strict mode: credentials, sessions and signed retries, with the kit as the client.

mod common;

use embedded_wallet_kit::system_now;
use std::time::Duration;

use common::{assert_id, assertion_body, register_body, stamp_json, start, start_with};
use embedded_wallet_kit::passkey::{AuthenticationInput, SoftAuthenticator};
use embedded_wallet_kit::{ClientKey, ErrorCode, PendingSignature, Session};
use emulator::Mode;
use serde_json::{json, Value};

#[test]
fn email_otp_session_opens_and_revokes_itself_with_a_signed_retry() {
    let emu = start(Mode::Strict);
    let (account, email) = emu.new_account();
    let created = emu.post(
        "/auth/credentials",
        &json!({"type": "EMAIL_OTP", "accountId": account}),
    );
    created.expect(201);
    let cred = created.json();
    assert_id(cred["id"].as_str().unwrap(), "AuthMethod");
    assert_eq!(cred["nickname"], email.as_str());
    assert_eq!(cred["type"], "EMAIL_OTP");
    let cred_id = cred["id"].as_str().unwrap().to_owned();

    // One EMAIL_OTP per account.
    let again = emu.post(
        "/auth/credentials",
        &json!({"type": "EMAIL_OTP", "accountId": account}),
    );
    again.expect(400);
    assert_eq!(again.json()["code"], "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS");

    let otp = emu.last_otp(&account);
    assert_eq!(otp.len(), 6);
    let verify_path = format!("/auth/credentials/{cred_id}/verify");
    let mut key = ClientKey::generate().unwrap();
    let wrong = if otp == "000000" { "111111" } else { "000000" };
    let r = emu.post(
        &verify_path,
        &json!({"type": "EMAIL_OTP", "otp": wrong, "clientPublicKey": key.public_key_hex()}),
    );
    r.expect(401);
    assert_eq!(r.json()["code"], "UNAUTHORIZED");
    assert_eq!(r.reason(), "Invalid OTP code");

    for bad in [
        key.compressed_public_key_hex(),
        format!("04{}", "00".repeat(64)), // right pattern, not a point
        "04abc".to_owned(),
    ] {
        let r = emu.post(
            &verify_path,
            &json!({"type": "EMAIL_OTP", "otp": otp, "clientPublicKey": bad}),
        );
        r.expect(400);
        assert!(r.json()["message"]
            .as_str()
            .unwrap()
            .contains("clientPublicKey"));
    }

    let r = emu.post(
        &verify_path,
        &json!({"type": "EMAIL_OTP", "otp": otp, "clientPublicKey": key.public_key_hex()}),
    );
    r.expect(200);
    let body = r.json();
    assert_id(body["id"].as_str().unwrap(), "Session");
    assert_eq!(body["accountId"], account.as_str());
    assert_eq!(body["nickname"], email.as_str());
    for field in [
        "createdAt",
        "updatedAt",
        "expiresAt",
        "encryptedSessionSigningKey",
    ] {
        assert!(body[field].is_string(), "{field}");
    }
    let mut session = Session::open_json(&r.body, &mut key).unwrap();
    assert_eq!(session.info().kind, "EMAIL_OTP");

    // The OTP is single-use.
    let mut key2 = ClientKey::generate().unwrap();
    let r = emu.post(
        &verify_path,
        &json!({"type": "EMAIL_OTP", "otp": otp, "clientPublicKey": key2.public_key_hex()}),
    );
    assert_eq!((r.status, r.reason().as_str()), (401, "Invalid OTP code"));
    // A session key sealed to one client key does not open with another.
    assert!(Session::open_json(&body.to_string(), &mut key2).is_err());

    // DELETE the session, signed by itself.
    let path = format!("/auth/sessions/{}", session.info().id);
    let first = emu.api("DELETE", &path, &[], "");
    first.expect(202);
    let pending = first.json();
    assert_id(pending["requestId"].as_str().unwrap(), "Request");
    let payload: Value = serde_json::from_str(pending["payloadToSign"].as_str().unwrap()).unwrap();
    assert_eq!(payload["type"], "ACTIVITY_TYPE_DELETE_API_KEYS");
    assert_eq!(
        payload["parameters"]["sessionId"],
        session.info().id.as_str()
    );
    assert!(payload["organizationId"].is_string() && payload["timestampMs"].is_string());
    let headers = session
        .sign_retry(
            &PendingSignature::from_json(&first.body).unwrap(),
            system_now(),
        )
        .unwrap();
    assert_eq!(
        stamp_json(&headers.signature)["publicKey"],
        session.public_key_hex().unwrap().as_str()
    );
    let done = emu.retry_with("DELETE", &path, &headers.signature, &headers.request_id, "");
    done.expect(204);
    assert!(done.body.is_empty());

    // Reusing the request id: 401.
    let reused = emu.retry_with("DELETE", &path, &headers.signature, &headers.request_id, "");
    assert_eq!(
        (reused.status, reused.reason().as_str()),
        (401, "Request id already used")
    );
    // The revoked session's stamps are refused.
    let patch = format!("/internal-accounts/{account}");
    let r = emu.signed(&mut session, "PATCH", &patch, r#"{"privacyEnabled":true}"#);
    assert_eq!((r.status, r.reason().as_str()), (401, "Session revoked"));

    // Re-authentication: challenge sends a new OTP, then verify.
    let r = emu.post(
        &format!("/auth/credentials/{cred_id}/challenge"),
        &json!({}),
    );
    r.expect(200);
    assert_eq!(r.json()["id"], cred_id.as_str());
    let mut session = emu.email_verify(&account, &cred_id);
    emu.signed(&mut session, "PATCH", &patch, r#"{"privacyEnabled":true}"#)
        .expect(200);
}

#[test]
fn signed_retries_refuse_tampering_reuse_and_strangers() {
    let emu = start(Mode::Strict);
    let (account, _) = emu.new_account();
    let (mut session, _) = emu.email_login(&account);
    let path = format!("/internal-accounts/{account}");
    let body = r#"{"privacyEnabled":true}"#;

    let first = emu.api("PATCH", &path, &[], body);
    first.expect(202);
    let pending = PendingSignature::from_json(&first.body).unwrap();
    let rid = pending.request_id.clone();

    // A stamp over another payload.
    let tampered = session
        .stamp(
            &pending.payload_to_sign.replace("true", "false"),
            system_now(),
        )
        .unwrap();
    let r = emu.retry_with("PATCH", &path, &tampered, &rid, body);
    r.expect(401);
    assert!(
        r.reason().starts_with("Invalid Service-Wallet-Signature"),
        "{}",
        r.body
    );
    // Not a stamp at all.
    let r = emu.retry_with("PATCH", &path, "not-a-stamp", &rid, body);
    assert_eq!(r.status, 401);
    assert!(r.reason().contains("malformed"), "{}", r.body);

    let good = session.sign_retry(&pending, system_now()).unwrap();
    // Same headers, other body bytes (even an equivalent JSON).
    let r = emu.retry_with(
        "PATCH",
        &path,
        &good.signature,
        &rid,
        r#"{"privacyEnabled": true}"#,
    );
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "WALLET_SIGNATURE_BODY_MISMATCH")
    );
    // Headers missing.
    let r = emu.api(
        "PATCH",
        &path,
        &[("Service-Wallet-Signature", &good.signature)],
        body,
    );
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "Request-Id header missing")
    );
    let r = emu.api("PATCH", &path, &[("Request-Id", &rid)], body);
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "Service-Wallet-Signature header missing")
    );
    let r = emu.retry_with(
        "PATCH",
        &path,
        &good.signature,
        "Request:00000000-0000-4000-8000-000000000000",
        body,
    );
    assert_eq!((r.status, r.reason().as_str()), (401, "Unknown Request-Id"));
    // A stamp by a session of another account.
    let (other_account, _) = emu.new_account();
    let (stranger, _) = emu.email_login(&other_account);
    let r = emu.retry_with(
        "PATCH",
        &path,
        &stranger
            .stamp(&pending.payload_to_sign, system_now())
            .unwrap(),
        &rid,
        body,
    );
    r.expect(401);
    assert!(r.reason().contains("another account"), "{}", r.body);

    // The right one, after all those failures (they did not burn the request id).
    let r = emu.retry_with("PATCH", &path, &good.signature, &rid, body);
    r.expect(200);
    assert_eq!(r.json()["privacyEnabled"], true);
    let r = emu.retry_with("PATCH", &path, &good.signature, &rid, body);
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "Request id already used")
    );
    // A request id issued for another operation.
    let other_path = format!("/auth/sessions/{}", session.info().id);
    let r = emu.retry_with("DELETE", &other_path, &good.signature, &rid, "");
    assert_eq!(r.status, 401);
}

#[test]
fn expired_sessions_are_refused_by_the_client_and_by_the_service() {
    let emu = start_with(Mode::Strict, |c| c.session_ttl = Duration::from_secs(1));
    let (account, _) = emu.new_account();
    let (mut session, _) = emu.email_login(&account);
    let path = format!("/internal-accounts/{account}");
    let body = r#"{"privacyEnabled":true}"#;
    let first = emu.api("PATCH", &path, &[], body);
    first.expect(202);
    let pending = PendingSignature::from_json(&first.body).unwrap();
    let signed = session.sign_retry(&pending, system_now()).unwrap(); // still valid now
    std::thread::sleep(Duration::from_millis(1100));

    assert!(session.is_expired(system_now()));
    assert_eq!(
        session.stamp("anything", system_now()).unwrap_err().code(),
        ErrorCode::SessionExpired
    );
    let r = emu.retry_with("PATCH", &path, &signed.signature, &signed.request_id, body);
    assert_eq!((r.status, r.reason().as_str()), (401, "Session expired"));
    let refresh = format!("/auth/sessions/{}/refresh", session.info().id);
    let key = ClientKey::generate().unwrap();
    let r = emu.post(&refresh, &json!({"clientPublicKey": key.public_key_hex()}));
    assert_eq!((r.status, r.reason().as_str()), (401, "Session expired"));
}

fn login_assertion(
    emu: &common::Emu,
    authenticator: &mut SoftAuthenticator,
    cred_id: &str,
    credential_id: &str,
    key: &ClientKey,
) -> (String, String, embedded_wallet_kit::passkey::Assertion) {
    let r = emu.post(
        &format!("/auth/credentials/{cred_id}/challenge"),
        &json!({"clientPublicKey": key.public_key_hex()}),
    );
    r.expect(200);
    let c = r.json();
    let challenge = c["challenge"].as_str().unwrap().to_owned();
    let request_id = c["requestId"].as_str().unwrap().to_owned();
    let assertion = authenticator
        .authenticate(
            &AuthenticationInput {
                challenge: Some(challenge.clone()),
                credential_id: Some(credential_id.to_owned()),
                rp_id: Some("localhost".into()),
                ..Default::default()
            }
            .validate()
            .unwrap(),
        )
        .unwrap();
    (challenge, request_id, assertion)
}

#[test]
fn passkey_registration_and_login_with_a_software_authenticator() {
    let emu = start_with(Mode::Strict, |c| c.challenge_interval = Duration::ZERO);
    let (account, _) = emu.new_account();
    let (mut email_session, _) = emu.email_login(&account);
    let mut authenticator = SoftAuthenticator::new(&emu.origin).unwrap();

    // Adding a credential to an account that has one: 202, signed retry, 201.
    let body = register_body(&mut authenticator, &account, "Laptop").to_string();
    let r = emu.signed(&mut email_session, "POST", "/auth/credentials", &body);
    r.expect(201);
    let cred = r.json();
    assert_eq!(cred["type"], "PASSKEY");
    assert_eq!(cred["nickname"], "Laptop");
    let credential_id = cred["credentialId"].as_str().unwrap().to_owned();
    let cred_id = cred["id"].as_str().unwrap().to_owned();
    let listed = emu
        .get(&format!("/auth/credentials?accountId={account}"))
        .json();
    assert_eq!(listed["data"].as_array().unwrap().len(), 2);
    assert!(listed.get("hasMore").is_none());

    let dup = emu.post(
        "/auth/credentials",
        &register_body(&mut authenticator, &account, "Phone"),
    );
    dup.expect(400);
    assert_eq!(dup.json()["code"], "PASSKEY_CREDENTIAL_ALREADY_EXISTS");

    // The challenge needs a clientPublicKey.
    let challenge_path = format!("/auth/credentials/{cred_id}/challenge");
    emu.post(&challenge_path, &json!({})).expect(400);
    emu.post(&challenge_path, &json!({"clientPublicKey": "04zz"}))
        .expect(400);

    let verify_path = format!("/auth/credentials/{cred_id}/verify");
    let mut key = ClientKey::generate().unwrap();
    let (challenge, request_id, assertion) =
        login_assertion(&emu, &mut authenticator, &cred_id, &credential_id, &key);
    assert_eq!(challenge.len(), 64);
    assert!(challenge
        .bytes()
        .all(|c| c.is_ascii_hexdigit() && !c.is_ascii_uppercase()));
    assert_id(&request_id, "Request");
    let verify_body = assertion_body(&assertion).to_string();
    let r = emu.api("POST", &verify_path, &[], &verify_body);
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "Request-Id header missing")
    );
    let r = emu.api(
        "POST",
        &verify_path,
        &[("Request-Id", &request_id)],
        &verify_body,
    );
    r.expect(200);
    assert_eq!(r.json()["credentialId"], credential_id.as_str());
    let session = Session::open_json(&r.body, &mut key).unwrap();
    assert_eq!(session.info().kind, "PASSKEY");
    // Single use.
    let r = emu.api(
        "POST",
        &verify_path,
        &[("Request-Id", &request_id)],
        &verify_body,
    );
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "Request id already used")
    );

    // An assertion over another challenge.
    let key = ClientKey::generate().unwrap();
    let (_, request_id, _) =
        login_assertion(&emu, &mut authenticator, &cred_id, &credential_id, &key);
    let other = authenticator
        .authenticate(
            &AuthenticationInput {
                challenge: Some(embedded_wallet_kit::service::sha256_hex(b"something else")),
                credential_id: Some(credential_id.clone()),
                rp_id: Some("localhost".into()),
                ..Default::default()
            }
            .validate()
            .unwrap(),
        )
        .unwrap();
    let r = emu.api(
        "POST",
        &verify_path,
        &[("Request-Id", &request_id)],
        &assertion_body(&other).to_string(),
    );
    r.expect(401);
    assert!(r.reason().contains("challenge"), "{}", r.body);

    // A counter that does not increase: sign two challenges, verify the later first.
    let (k3, k4) = (
        ClientKey::generate().unwrap(),
        ClientKey::generate().unwrap(),
    );
    let (_, rid3, a3) = login_assertion(&emu, &mut authenticator, &cred_id, &credential_id, &k3);
    let (_, rid4, a4) = login_assertion(&emu, &mut authenticator, &cred_id, &credential_id, &k4);
    emu.api(
        "POST",
        &verify_path,
        &[("Request-Id", &rid4)],
        &assertion_body(&a4).to_string(),
    )
    .expect(200);
    let r = emu.api(
        "POST",
        &verify_path,
        &[("Request-Id", &rid3)],
        &assertion_body(&a3).to_string(),
    );
    r.expect(401);
    assert!(r.reason().contains("counter"), "{}", r.body);

    // A tampered signature.
    let key = ClientKey::generate().unwrap();
    let (_, rid, mut a) = login_assertion(&emu, &mut authenticator, &cred_id, &credential_id, &key);
    a.signature = a4.signature.clone();
    let r = emu.api(
        "POST",
        &verify_path,
        &[("Request-Id", &rid)],
        &assertion_body(&a).to_string(),
    );
    r.expect(401);
    assert!(
        r.reason().starts_with("Invalid passkey signature"),
        "{}",
        r.body
    );
}

#[test]
fn passkey_registration_checks_origin_and_challenge() {
    let emu = start(Mode::Strict);
    let (account, _) = emu.new_account();
    // A page on another origin (its rp id is still localhost).
    let mut elsewhere = SoftAuthenticator::new("http://evil.localhost:9999").unwrap();
    let r = emu.post(
        "/auth/credentials",
        &register_body(&mut elsewhere, &account, "Laptop"),
    );
    r.expect(400);
    assert_eq!(r.json()["code"], "INVALID_PASSKEY_ATTESTATION");
    assert!(r.reason().contains("origin"), "{}", r.body);

    let mut authenticator = SoftAuthenticator::new(&emu.origin).unwrap();
    let mut body = register_body(&mut authenticator, &account, "Laptop");
    body["challenge"] = json!("AAAA");
    let r = emu.post("/auth/credentials", &body);
    r.expect(400);
    assert!(r.reason().contains("challenge"), "{}", r.body);
    body["challenge"] = json!("not base64url!");
    emu.post("/auth/credentials", &body).expect(400);
    let mut body = register_body(&mut authenticator, &account, "");
    emu.post("/auth/credentials", &body).expect(400);
    body["nickname"] = json!("x".repeat(101));
    emu.post("/auth/credentials", &body).expect(400);

    // A passkey as the account's first credential: no signed retry.
    let r = emu.post(
        "/auth/credentials",
        &register_body(&mut authenticator, &account, "Laptop"),
    );
    r.expect(201);
}

#[test]
fn challenge_reissue_is_rate_limited_with_retry_after() {
    let emu = start_with(Mode::Strict, |c| {
        c.challenge_interval = Duration::from_millis(1500)
    });
    let (account, _) = emu.new_account();
    let (_, cred_id) = emu.email_login(&account);
    let path = format!("/auth/credentials/{cred_id}/challenge");
    emu.post(&path, &json!({})).expect(200);
    let r = emu.post(&path, &json!({}));
    r.expect(429);
    assert_eq!(r.json()["code"], "RATE_LIMITED");
    let wait: u64 = r.header("Retry-After").unwrap().parse().unwrap();
    assert!((1..=2).contains(&wait), "Retry-After {wait}");
    std::thread::sleep(Duration::from_secs(wait));
    emu.post(&path, &json!({})).expect(200);
    // The latest OTP logs in.
    emu.email_verify(&account, &cred_id);
}

#[test]
fn oauth_with_the_built_in_issuer() {
    let emu = start(Mode::Strict);
    let (account, _) = emu.new_account();
    let token = |query: &str| -> String {
        let r = emu.raw("GET", &format!("/emulator/oidc/token?{query}"), &[], "");
        r.expect(200);
        r.json()["idToken"].as_str().unwrap().to_owned()
    };
    let jwks = emu.raw("GET", "/emulator/oidc/jwks", &[], "").json();
    assert_eq!(jwks["keys"][0]["alg"], "ES256");

    let created = emu.post(
        "/auth/credentials",
        &json!({"type": "OAUTH", "accountId": account, "oidcToken": token("email=ann%40example.com&sub=ann")}),
    );
    created.expect(201);
    assert_eq!(created.json()["nickname"], "ann@example.com");
    let cred_id = created.json()["id"].as_str().unwrap().to_owned();
    let verify_path = format!("/auth/credentials/{cred_id}/verify");
    let verify = |key: &ClientKey, token: &str| {
        emu.post(
            &verify_path,
            &json!({"type": "OAUTH", "oidcToken": token, "clientPublicKey": key.public_key_hex()}),
        )
    };

    let mut key = ClientKey::generate().unwrap();
    let good = token(&format!("sub=ann&nonce={}", key.oidc_nonce()));
    let r = verify(&key, &good);
    r.expect(200);
    Session::open_json(&r.body, &mut key).unwrap();

    let key = ClientKey::generate().unwrap();
    let other = ClientKey::generate().unwrap();
    let cases = [
        (
            token(&format!("sub=ann&nonce={}", other.oidc_nonce())),
            "nonce",
        ),
        (token("sub=ann"), "nonce"),
        (
            token(&format!(
                "sub=ann&nonce={}&iatOffsetSecs=-120",
                key.oidc_nonce()
            )),
            "iat",
        ),
        (
            token(&format!("sub=bob&nonce={}", key.oidc_nonce())),
            "identity",
        ),
        ("a.b.c".to_owned(), "Invalid OIDC token"),
    ];
    for (t, why) in cases {
        let r = verify(&key, &t);
        r.expect(401);
        assert!(r.reason().starts_with("Invalid OIDC token"), "{}", r.body);
        assert!(r.reason().contains(why), "{why}: {}", r.body);
    }
    // A token whose claims were edited after signing.
    let fresh = token(&format!("sub=ann&nonce={}", key.oidc_nonce()));
    let mut parts: Vec<String> = fresh.split('.').map(str::to_owned).collect();
    let mut claims: Value = serde_json::from_slice(
        &embedded_wallet_kit::encoding::base64url_decode(&parts[1]).unwrap(),
    )
    .unwrap();
    claims["email"] = json!("mallory@example.com");
    parts[1] = embedded_wallet_kit::encoding::base64url_encode(claims.to_string().as_bytes());
    let r = verify(&key, &parts.join("."));
    r.expect(401);
    assert!(r.reason().contains("signature"), "{}", r.body);

    // OAUTH has no challenge step.
    let r = emu.post(
        &format!("/auth/credentials/{cred_id}/challenge"),
        &json!({"clientPublicKey": key.public_key_hex()}),
    );
    r.expect(400);
}

#[test]
fn credential_revocation_needs_another_credentials_session_and_keeps_one() {
    let emu = start(Mode::Strict);
    let (account, _) = emu.new_account();
    let (mut email_session, email_cred) = emu.email_login(&account);

    // Add OAUTH (signed by the EMAIL_OTP session), then log in with it.
    let r = emu.raw("GET", "/emulator/oidc/token?sub=ann", &[], "");
    let body = json!({"type": "OAUTH", "accountId": account, "oidcToken": r.json()["idToken"]});
    let first = emu.post("/auth/credentials", &body);
    first.expect(202);
    assert_eq!(first.json()["type"], "OAUTH");
    let added = emu.signed(
        &mut email_session,
        "POST",
        "/auth/credentials",
        &body.to_string(),
    );
    added.expect(201);
    let oauth_cred = added.json()["id"].as_str().unwrap().to_owned();
    let mut key = ClientKey::generate().unwrap();
    let t = emu.raw(
        "GET",
        &format!("/emulator/oidc/token?sub=ann&nonce={}", key.oidc_nonce()),
        &[],
        "",
    );
    let r = emu.post(
        &format!("/auth/credentials/{oauth_cred}/verify"),
        &json!({"type": "OAUTH", "oidcToken": t.json()["idToken"], "clientPublicKey": key.public_key_hex()}),
    );
    r.expect(200);
    let mut oauth_session = Session::open_json(&r.body, &mut key).unwrap();

    // A credential cannot be revoked by its own session.
    let path = format!("/auth/credentials/{email_cred}");
    let r = emu.signed(&mut email_session, "DELETE", &path, "");
    r.expect(401);
    assert!(r.reason().contains("different credential"), "{}", r.body);
    // By the other credential's session it can; its sessions go with it.
    emu.signed(&mut oauth_session, "DELETE", &path, "")
        .expect(204);
    let listed = emu
        .get(&format!("/auth/credentials?accountId={account}"))
        .json();
    assert_eq!(listed["data"].as_array().unwrap().len(), 1);
    let patch = format!("/internal-accounts/{account}");
    let r = emu.signed(
        &mut email_session,
        "PATCH",
        &patch,
        r#"{"privacyEnabled":true}"#,
    );
    assert_eq!((r.status, r.reason().as_str()), (401, "Session revoked"));

    // The last credential stays.
    let r = emu.api(
        "DELETE",
        &format!("/auth/credentials/{oauth_cred}"),
        &[],
        "",
    );
    r.expect(400);
    assert_eq!(r.json()["code"], "LAST_CREDENTIAL");
}

//! Newer deployments against the strict emulator, with the kit's flows as the
//! client: the encrypted EMAIL_OTP login (the TEK becomes the session key), client-held
//! refresh (compressed key, no bundle), and a client-held OAUTH verify.

mod common;

use embedded_wallet_kit::system_now;
use std::time::Duration;

use common::wallet;
use common::{body, drive, send, start_with, view, Emu};
use embedded_wallet_kit::enclave::encrypt_otp_json;
use embedded_wallet_kit::enclave::{
    open_export_json, SignerPin, PRODUCTION_TLS_FETCHER_PUBLIC_KEY,
};
use embedded_wallet_kit::flows::{target_bundle, OtpLogin, OtpNext};
use embedded_wallet_kit::{ClientKey, ErrorCode, Result, Session, SIGNATURE_HEADER};
use emulator::Mode;
use serde_json::{json, Value};

fn emu() -> Emu {
    // Several challenges per test: no rate limit between them.
    start_with(Mode::Strict, |c| c.challenge_interval = Duration::ZERO)
}

fn otp_login(emu: &Emu, mut login: OtpLogin, tek: &mut ClientKey) -> Result<Session> {
    let mut request = login.first_request();
    loop {
        let resp = send(emu, &request);
        let parsed = body(&resp);
        match login.on_response(tek, &view(&resp, &parsed), system_now())? {
            OtpNext::Send(next) => request = next,
            OtpNext::Resend(resend) => {
                std::thread::sleep(Duration::from_millis(resend.delay_ms.into()));
                request = resend.request;
            }
            OtpNext::Session(session) => return Ok(session),
            OtpNext::Sign(_) | OtpNext::Done => unreachable!("on_response has the TEK"),
        }
    }
}

/// An account with an EMAIL_OTP credential; a fresh challenge's target bundle.
fn account_with_otp(emu: &Emu) -> (String, String) {
    let (account, _) = emu.new_account();
    let created = send(emu, &wallet::create_email_otp(&account).unwrap());
    created.expect(201);
    let cred = body(&created).unwrap()["id"].as_str().unwrap().to_owned();
    (account, cred)
}

fn challenge(emu: &Emu, cred: &str) -> String {
    let resp = send(emu, &wallet::challenge(cred, None).unwrap());
    resp.expect(200);
    target_bundle(&view(&resp, &body(&resp))).unwrap()
}

fn otp_pin(emu: &Emu) -> SignerPin {
    SignerPin::Key(
        emu.config()["otpSignerPublicKey"]
            .as_str()
            .unwrap()
            .to_owned(),
    )
}

#[test]
fn encrypted_otp_login_then_client_held_refresh_and_export() {
    let emu = emu();
    let (account, cred) = account_with_otp(&emu);
    let target = challenge(&emu, &cred);
    let otp = emu.last_otp(&account);
    let pin = otp_pin(&emu);

    // The emulator's enclave is not production: the production pin refuses its bundle.
    let mut tek = ClientKey::generate().unwrap();
    let production = SignerPin::Key(PRODUCTION_TLS_FETCHER_PUBLIC_KEY.into());
    let err = encrypt_otp_json(&target, &otp, &tek, &production).unwrap_err();
    assert_eq!(err.code(), ErrorCode::DecryptionFailed);

    // A wrong code is refused on the first leg, as production's enclave refuses it (400
    // INVALID_INPUT "Invalid wallet request."), and does not spend the right one.
    let wrong = if otp == "000000" { "111111" } else { "000000" };
    let sealed = encrypt_otp_json(&target, wrong, &tek, &pin).unwrap();
    let err = otp_login(
        &emu,
        OtpLogin::new(&cred, "EMAIL_OTP", &sealed).unwrap(),
        &mut tek,
    )
    .unwrap_err();
    let service = err.service().unwrap();
    assert_eq!(
        (
            service.status,
            service.service_code.as_deref(),
            service.reason.as_deref()
        ),
        (400, Some("INVALID_INPUT"), Some("Invalid wallet request."))
    );
    assert!(!tek.is_consumed());

    // The second leg must be stamped by the TEK sealed in the bundle: another key is 401.
    let sealed = encrypt_otp_json(&target, &otp, &tek, &pin).unwrap();
    let mut login = OtpLogin::new(&cred, "EMAIL_OTP", &sealed).unwrap();
    let first = send(&emu, &login.first_request());
    first.expect(202);
    assert_eq!(first.json()["type"], "EMAIL_OTP");
    let mut impostor = ClientKey::generate().unwrap();
    let OtpNext::Send(forged) = login
        .on_response(&mut impostor, &view(&first, &body(&first)), system_now())
        .unwrap()
    else {
        panic!("expected a retry")
    };
    let refused = send(&emu, &forged);
    refused.expect(401);
    assert!(
        refused.reason().contains("encryptedOtpBundle"),
        "{}",
        refused.reason()
    );
    // The kit signs one 202 per login; a fresh login object retries with the TEK.
    let mut login = OtpLogin::new(&cred, "EMAIL_OTP", &sealed).unwrap();
    let OtpNext::Send(retry) = login
        .on_response(&mut tek, &view(&first, &body(&first)), system_now())
        .unwrap()
    else {
        panic!("expected a retry")
    };
    let done = send(&emu, &retry);
    done.expect(200);
    assert!(
        done.json().get("encryptedSessionSigningKey").is_none(),
        "a client-held session carries no bundle"
    );
    let tek_pub = tek.compressed_public_key_hex();
    let OtpNext::Session(mut session) = login
        .on_response(&mut tek, &view(&done, &body(&done)), system_now())
        .unwrap()
    else {
        panic!("expected the session")
    };
    assert_eq!(session.public_key_hex(), Some(tek_pub));
    assert_eq!(session.credential_id(), Some(cred.as_str()));
    send(&emu, &retry).expect(401); // the request id is spent
                                    // The code is single use: the same sealed bundle cannot log in twice.
    let mut again = ClientKey::generate().unwrap();
    let err = otp_login(
        &emu,
        OtpLogin::new(&cred, "EMAIL_OTP", &sealed).unwrap(),
        &mut again,
    )
    .unwrap_err();
    assert_eq!(err.service().unwrap().status, 400);

    // The TEK session signs wallet operations.
    let flow = wallet::update_account(&account, r#"{"privacyEnabled":true}"#.into()).unwrap();
    drive(&emu, &mut session, flow).unwrap().expect(200);

    // Client-held refresh: the compressed key goes out, the old session stamps, the 201
    // carries no bundle and the new key is the new session's key.
    let mut new_key = ClientKey::generate().unwrap();
    let new_pub = new_key.compressed_public_key_hex();
    let flow = wallet::refresh_client_held(&session, &new_key).unwrap();
    let refreshed = drive(&emu, &mut session, flow).unwrap();
    refreshed.expect(201);
    let parsed = body(&refreshed);
    // Session::open on it is refused (nothing to open): the mode is never guessed.
    let mut probe = ClientKey::generate().unwrap();
    let err = wallet::open_session(&view(&refreshed, &parsed), &mut probe, None).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidSession);
    let mut refreshed_session =
        wallet::open_client_held_session(&view(&refreshed, &parsed), &mut new_key, Some(&cred))
            .unwrap();
    assert_eq!(refreshed_session.public_key_hex(), Some(new_pub));
    assert!(new_key.is_consumed());

    // Export with the refreshed session: the envelope opens under the emulator's pin.
    let mut export_key = ClientKey::generate().unwrap();
    let flow = wallet::export_wallet(&account, &export_key).unwrap();
    let exported = drive(&emu, &mut refreshed_session, flow).unwrap();
    exported.expect(200);
    let envelope = exported.json()["encryptedWalletCredentials"]
        .as_str()
        .unwrap()
        .to_owned();
    let signer = emu.config()["exportSignerPublicKey"]
        .as_str()
        .unwrap()
        .to_owned();
    let mnemonic =
        open_export_json(&envelope, &mut export_key, &SignerPin::Key(signer), None).unwrap();
    assert_eq!(mnemonic.as_str(), emulator::crypto::TEST_MNEMONIC);

    // A legacy refresh (uncompressed key) from a client-held session still gets a bundle.
    let mut legacy_key = ClientKey::generate().unwrap();
    let flow = wallet::refresh(&refreshed_session, &legacy_key).unwrap();
    let legacy = drive(&emu, &mut refreshed_session, flow).unwrap();
    legacy.expect(201);
    wallet::open_session(&view(&legacy, &body(&legacy)), &mut legacy_key, None).unwrap();
}

#[test]
fn encrypted_otp_refusals() {
    let emu = emu();
    let (account, cred) = account_with_otp(&emu);
    let target = challenge(&emu, &cred);
    let otp = emu.last_otp(&account);
    let path = format!("/auth/credentials/{cred}/verify");

    // Not sealed to the enclave's key, or not JSON: 400 naming the field.
    let stranger = ClientKey::generate().unwrap();
    let tek = ClientKey::generate().unwrap();
    let elsewhere = format!(
        r#"{{"version":"v1.0.0","data":"{}","dataSignature":"","enclaveQuorumPublic":""}}"#,
        embedded_wallet_kit::service::hex_encode(
            format!(r#"{{"targetPublic":"{}"}}"#, stranger.public_key_hex()).as_bytes()
        )
    );
    let misdirected = encrypt_otp_json(&elsewhere, &otp, &tek, &SignerPin::Sandbox).unwrap();
    for sealed in [misdirected.as_str(), "123456"] {
        let r = emu.post(
            &path,
            &json!({"type": "EMAIL_OTP", "encryptedOtpBundle": sealed}),
        );
        r.expect(400);
        assert!(r.json()["message"]
            .as_str()
            .unwrap()
            .contains("encryptedOtpBundle"));
    }
    // The target bundle's signature is checked by the kit: a flipped data byte fails.
    let mut envelope: Value = serde_json::from_str(&target).unwrap();
    let data = envelope["data"].as_str().unwrap().to_owned();
    envelope["data"] = json!(data.replacen("7b", "7c", 1));
    let err = encrypt_otp_json(&envelope.to_string(), &otp, &tek, &otp_pin(&emu)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::DecryptionFailed);

    // The sandbox runs the encrypted flow too (its enclave signs the target bundle; the
    // kit skips the check under the sandbox pin): the kit's login with the magic code.
    let sandbox = start_with(Mode::Sandbox, |_| {});
    let (account, _) = sandbox.new_account();
    let created = send(&sandbox, &wallet::create_email_otp(&account).unwrap());
    let cred = body(&created).unwrap()["id"].as_str().unwrap().to_owned();
    let resp = send(&sandbox, &wallet::challenge(&cred, None).unwrap());
    resp.expect(200);
    let target = target_bundle(&view(&resp, &body(&resp))).unwrap();
    let mut tek = ClientKey::generate().unwrap();
    let tek_pub = tek.compressed_public_key_hex();
    let sealed = encrypt_otp_json(&target, "000000", &tek, &SignerPin::Sandbox).unwrap();
    let session = otp_login(
        &sandbox,
        OtpLogin::new(&cred, "EMAIL_OTP", &sealed).unwrap(),
        &mut tek,
    )
    .unwrap();
    assert_eq!(session.public_key_hex(), Some(tek_pub));
    // Any other code is the sandbox's 401.
    let tek = ClientKey::generate().unwrap();
    let sealed = encrypt_otp_json(&target, "123456", &tek, &SignerPin::Sandbox).unwrap();
    let r = sandbox.post(
        &format!("/auth/credentials/{cred}/verify"),
        &json!({"type": "EMAIL_OTP", "encryptedOtpBundle": sealed}),
    );
    assert_eq!((r.status, r.reason().as_str()), (401, "Invalid OTP code"));
}

#[test]
fn client_held_oauth_verify_and_key_reuse() {
    let emu = emu();
    let (account, _) = emu.new_account();
    let token = |nonce: &str| {
        let r = emu.raw(
            "GET",
            &format!("/emulator/oidc/token?sub=bob&email=bob%40example.com&nonce={nonce}"),
            &[],
            "",
        );
        r.json()["idToken"].as_str().unwrap().to_owned()
    };
    let created = emu.post(
        "/auth/credentials",
        &json!({"type": "OAUTH", "accountId": account, "oidcToken": token("x")}),
    );
    created.expect(201);
    let cred = created.json()["id"].as_str().unwrap().to_owned();

    // The nonce binds the clientPublicKey string as sent: here the compressed form.
    let mut key = ClientKey::generate().unwrap();
    let compressed = key.compressed_public_key_hex();
    let nonce = embedded_wallet_kit::service::oidc_nonce_for(&compressed);
    let verify_body =
        json!({"type": "OAUTH", "oidcToken": token(&nonce), "clientPublicKey": compressed});
    let r = emu.post(&format!("/auth/credentials/{cred}/verify"), &verify_body);
    r.expect(200);
    assert!(r.json().get("encryptedSessionSigningKey").is_none());
    let mut session =
        wallet::open_client_held_session(&view(&r, &body(&r)), &mut key, Some(&cred)).unwrap();
    let flow = wallet::update_account(&account, r#"{"privacyEnabled":false}"#.into()).unwrap();
    drive(&emu, &mut session, flow).unwrap().expect(200);

    // One key, one session: verifying again with the same key is refused.
    let verify_body =
        json!({"type": "OAUTH", "oidcToken": token(&nonce), "clientPublicKey": compressed});
    let r = emu.post(&format!("/auth/credentials/{cred}/verify"), &verify_body);
    r.expect(400);
    assert_eq!(r.reason(), "clientPublicKey reused");

    // A stamp by a key that is no session's is refused as before.
    let stranger = ClientKey::generate().unwrap();
    let forged = wallet::refresh_client_held(&session, &stranger).unwrap();
    let first = send(&emu, &forged.first_request());
    first.expect(202);
    let resp = emu.api(
        "POST",
        &forged.first_request().path,
        &[
            (SIGNATURE_HEADER, "x"),
            ("Request-Id", first.json()["requestId"].as_str().unwrap()),
        ],
        forged.first_request().body.as_deref().unwrap(),
    );
    resp.expect(401);
}

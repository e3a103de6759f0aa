//! The kit's own flow drivers (`embedded_wallet_kit::flows`) against the strict emulator:
//! every request the wallet makes comes from the kit, the test only carries it over HTTP.

mod common;

use common::wallet;
use common::{body, drive, register_body, send, start, view};
use embedded_wallet_kit::enclave::{open_export_json, SignerPin};
use embedded_wallet_kit::flows::wallet::PasskeyChallenge;
use embedded_wallet_kit::flows::QuoteExecution;
use embedded_wallet_kit::passkey::SoftAuthenticator;
use embedded_wallet_kit::system_now;
use embedded_wallet_kit::{ClientKey, ErrorCode};
use emulator::Mode;
use serde_json::json;

#[test]
fn a_whole_wallet_through_the_kits_flows() {
    let emu = start(Mode::Strict);
    let (account, _) = emu.new_account();

    // EMAIL_OTP: create, then verify with the emailed code.
    let created = send(&emu, &wallet::create_email_otp(&account).unwrap());
    created.expect(201);
    let email_cred = body(&created).unwrap()["id"].as_str().unwrap().to_owned();
    let mut key = ClientKey::generate().unwrap();
    let verified = send(
        &emu,
        &wallet::verify_email_otp(&email_cred, &emu.last_otp(&account), &key).unwrap(),
    );
    let mut email_session = wallet::open_session(
        &view(&verified, &body(&verified)),
        &mut key,
        Some(&email_cred),
    )
    .unwrap();
    assert_eq!(email_session.credential_id(), Some(email_cred.as_str()));

    // Add a passkey: a signed retry because the account has a credential.
    let mut authenticator =
        SoftAuthenticator::new(&format!("http://localhost:{}", emu.port)).unwrap();
    let registration = register_body(&mut authenticator, &account, "Laptop").to_string();
    let added = drive(
        &emu,
        &mut email_session,
        wallet::add_credential(registration),
    )
    .unwrap();
    added.expect(201);
    let passkey_cred = added.json()["id"].as_str().unwrap().to_owned();

    // Passkey login: challenge bound to a fresh key, assertion, verify with Request-Id.
    let mut key = ClientKey::generate().unwrap();
    let challenged = send(&emu, &wallet::challenge(&passkey_cred, Some(&key)).unwrap());
    let challenge =
        PasskeyChallenge::from_response(&passkey_cred, &view(&challenged, &body(&challenged)))
            .unwrap();
    let input = challenge
        .authentication_input(Some("localhost"))
        .validate()
        .unwrap();
    let assertion = authenticator.authenticate(&input).unwrap();
    let verified = send(&emu, &challenge.verify_request(&assertion).unwrap());
    let mut passkey_session = wallet::open_session(
        &view(&verified, &body(&verified)),
        &mut key,
        Some(&passkey_cred),
    )
    .unwrap();
    assert_eq!(passkey_session.info().kind, "PASSKEY");

    // A session cannot revoke its own credential: refused before any request.
    let err = wallet::revoke_credential(&passkey_session, &passkey_cred).unwrap_err();
    assert_eq!(err.code(), ErrorCode::InvalidInput);

    // Refresh: the payload names the new key; the old session stamps; the new bundle opens.
    let mut new_key = ClientKey::generate().unwrap();
    let flow = wallet::refresh(&passkey_session, &new_key).unwrap();
    let refreshed = drive(&emu, &mut passkey_session, flow).unwrap();
    refreshed.expect(201);
    let mut session = wallet::open_session(
        &view(&refreshed, &body(&refreshed)),
        &mut new_key,
        Some(&passkey_cred),
    )
    .unwrap();
    assert_ne!(session.public_key_hex(), passkey_session.public_key_hex());

    // Fund, then execute a quote with one Idempotency-Key across two attempts.
    emu.post(
        &format!("/sandbox/internal-accounts/{account}/fund"),
        &json!({"amount": 10_000}),
    )
    .expect(200);
    let merchant = emu.config()["merchantAccountId"]
        .as_str()
        .unwrap()
        .to_owned();
    let quote = emu.api(
        "POST",
        "/quotes",
        &[("Idempotency-Key", "kit-flows-1")],
        &json!({
            "source": {"sourceType": "ACCOUNT", "accountId": account},
            "destination": {"destinationType": "ACCOUNT", "accountId": merchant},
            "lockedCurrencySide": "SENDING",
            "lockedCurrencyAmount": 2_500,
        })
        .to_string(),
    );
    quote.expect(201);
    let execution = QuoteExecution::new(&body(&quote).unwrap()).unwrap();
    for _attempt in 0..2 {
        let resp = send(&emu, &execution.request(&session, system_now()).unwrap());
        execution.on_response(&view(&resp, &body(&resp))).unwrap();
    }
    assert_eq!(
        emu.balance(&account),
        7_500,
        "the retried execution moved money once"
    );

    // Export the wallet: the envelope is signed by the emulator's enclave key (pinned
    // here as production would pin its own) and opens to the mnemonic with the export key.
    let mut export_key = ClientKey::generate().unwrap();
    let flow = wallet::export_wallet(&account, &export_key).unwrap();
    let exported = drive(&emu, &mut session, flow).unwrap();
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
    let mut other_key = ClientKey::generate().unwrap();
    let wrong_pin =
        SignerPin::Key(embedded_wallet_kit::enclave::PRODUCTION_SIGNER_PUBLIC_KEY.into());
    assert_eq!(
        open_export_json(&envelope, &mut other_key, &wrong_pin, None)
            .unwrap_err()
            .code(),
        ErrorCode::DecryptionFailed
    );

    // Revoke the session; its stamps are then refused by the service.
    let flow = wallet::revoke_session(&session).unwrap();
    drive(&emu, &mut session, flow).unwrap().expect(204);
    let flow = wallet::update_account(&account, r#"{"privacyEnabled":true}"#.into()).unwrap();
    let err = drive(&emu, &mut session, flow).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Unauthorized);
    assert!(err.service().unwrap().reason.is_some());

    // Revoke the passkey with the email session (a session of a different credential).
    let flow = wallet::revoke_credential(&email_session, &passkey_cred).unwrap();
    drive(&emu, &mut email_session, flow).unwrap().expect(204);
    let listed = emu.get(&format!("/auth/credentials?accountId={account}"));
    assert_eq!(listed.json()["data"].as_array().unwrap().len(), 1);
}

#[test]
fn oauth_verify_binds_the_nonce_of_the_client_key() {
    let emu = start(Mode::Strict);
    let (account, _) = emu.new_account();
    let token = |nonce: &str| {
        let r = emu.raw(
            "GET",
            &format!("/emulator/oidc/token?sub=ann&email=ann%40example.com&nonce={nonce}"),
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

    let mut key = ClientKey::generate().unwrap();
    let other = ClientKey::generate().unwrap();
    let wrong = send(
        &emu,
        &wallet::verify_oauth(&cred, &token(&other.oidc_nonce()), &key).unwrap(),
    );
    let err =
        wallet::open_session(&view(&wrong, &body(&wrong)), &mut key, Some(&cred)).unwrap_err();
    assert_eq!(err.code(), ErrorCode::Unauthorized);
    assert!(!key.is_consumed(), "a failed verify leaves the key usable");

    let ok = send(
        &emu,
        &wallet::verify_oauth(&cred, &token(&key.oidc_nonce()), &key).unwrap(),
    );
    let session = wallet::open_session(&view(&ok, &body(&ok)), &mut key, Some(&cred)).unwrap();
    assert_eq!(session.info().kind, "OAUTH");
}

//! Strict mode refuses what production refuses, and the sandbox stays as
//! lenient as the real sandbox. The encrypted-OTP plaintexts are built here by hand and
//! sealed with the kit's HPKE (`service::seal_raw`), so that both key forms are exercised
//! explicitly, whatever form the kit's `encrypt_otp` puts in `public_key`.

mod common;

use embedded_wallet_kit::system_now;
use std::time::Duration;

use common::{start_with, Emu, Resp};
use embedded_wallet_kit::encoding::base64url_encode;
use embedded_wallet_kit::service::seal_raw;
use embedded_wallet_kit::service::SANDBOX_SIGNATURE;
use embedded_wallet_kit::service::{compressed_hex, uncompressed_hex};
use embedded_wallet_kit::service::{hex_decode, hex_encode};
use embedded_wallet_kit::service::{sign_der, stamp};
use embedded_wallet_kit::{ClientKey, PendingSignature};
use emulator::Mode;
use p256::ecdsa::SigningKey;
use p256::elliptic_curve::sec1::ToSec1Point;
use p256::{PublicKey, SecretKey};
use serde_json::{json, Value};

const WALLET_REQUEST: &str = "Invalid wallet request.";

fn strict() -> Emu {
    start_with(Mode::Strict, |c| c.challenge_interval = Duration::ZERO)
}

/// A test TEK: a key whose scalar the test holds, so it can stamp by hand.
struct Tek {
    secret: SecretKey,
}

impl Tek {
    fn new() -> Self {
        Self {
            secret: emulator::crypto::generate_secret(),
        }
    }
    fn compressed(&self) -> String {
        compressed_hex(&self.secret.public_key())
    }
    fn uncompressed(&self) -> String {
        uncompressed_hex(&self.secret.public_key())
    }
    fn signing_key(&self) -> SigningKey {
        SigningKey::from(self.secret.to_nonzero_scalar())
    }
    /// A stamp whose `publicKey` is spelled `public_key_text`.
    fn stamp_spelled(&self, payload: &str, public_key_text: &str) -> String {
        let der = sign_der(&self.signing_key(), payload).unwrap();
        base64url_encode(
            format!(
                r#"{{"publicKey":"{public_key_text}","scheme":"SIGNATURE_SCHEME_TK_API_P256","signature":"{}"}}"#,
                hex_encode(der.as_bytes())
            )
            .as_bytes(),
        )
    }
}

/// An account with an EMAIL_OTP credential: (account, credential id).
fn account_with_otp(emu: &Emu) -> (String, String) {
    let (account, _) = emu.new_account();
    let r = emu.post(
        "/auth/credentials",
        &json!({"type": "EMAIL_OTP", "accountId": account}),
    );
    r.expect(201);
    (account, r.json()["id"].as_str().unwrap().to_owned())
}

/// `/challenge` → the enclave's `targetPublic` from `otpEncryptionTargetBundle`.
fn challenge_target(emu: &Emu, cred: &str) -> PublicKey {
    let r = emu.post(&format!("/auth/credentials/{cred}/challenge"), &json!({}));
    r.expect(200);
    let bundle = r.json()["otpEncryptionTargetBundle"]
        .as_str()
        .unwrap_or_else(|| panic!("no otpEncryptionTargetBundle: {}", r.body))
        .to_owned();
    let envelope: Value = serde_json::from_str(&bundle).unwrap();
    let data: Value =
        serde_json::from_slice(&hex_decode(envelope["data"].as_str().unwrap()).unwrap()).unwrap();
    let target = hex_decode(data["targetPublic"].as_str().unwrap()).unwrap();
    PublicKey::from_sec1_bytes(&target).unwrap()
}

/// `encryptedOtpBundle` for `plaintext`, its `encappedPublic` uncompressed (as documented)
/// or, with `compressed_enc`, in the 33-byte form.
fn seal_otp(target: &PublicKey, plaintext: &str, compressed_enc: bool) -> String {
    let (enc, ciphertext) = seal_raw(target, plaintext.as_bytes()).unwrap();
    format!(
        r#"{{"encappedPublic":"{}","ciphertext":"{}"}}"#,
        hex_encode(enc.to_sec1_point(compressed_enc).as_bytes()),
        hex_encode(&ciphertext)
    )
}

fn plaintext(code: &str, public_key: &str) -> String {
    format!(r#"{{"otp_code":"{code}","public_key":"{public_key}"}}"#)
}

fn verify_body(sealed: &str) -> String {
    json!({"type": "EMAIL_OTP", "encryptedOtpBundle": sealed}).to_string()
}

fn first_leg(emu: &Emu, cred: &str, sealed: &str) -> Resp {
    emu.api(
        "POST",
        &format!("/auth/credentials/{cred}/verify"),
        &[],
        &verify_body(sealed),
    )
}

#[track_caller]
fn assert_wallet_request_refused(r: &Resp) {
    r.expect(400);
    let body = r.json();
    assert_eq!(body["code"], "INVALID_INPUT", "{}", r.body);
    assert_eq!(body["reason"], WALLET_REQUEST, "{}", r.body);
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
}

#[test]
fn strict_encrypted_otp_takes_only_the_compressed_tek_and_answers_like_production() {
    let emu = strict();
    let (account, cred) = account_with_otp(&emu);
    let target = challenge_target(&emu, &cred);
    let otp = emu.last_otp(&account);
    let wrong = if otp == "000000" { "111111" } else { "000000" };
    let tek = Tek::new();

    // The right code with the uncompressed key: production's 400, not a session.
    let r = first_leg(
        &emu,
        &cred,
        &seal_otp(&target, &plaintext(&otp, &tek.uncompressed()), false),
    );
    assert_wallet_request_refused(&r);
    // A mistyped code gets the same answer (in the encrypted flow the enclave refuses it).
    let r = first_leg(
        &emu,
        &cred,
        &seal_otp(&target, &plaintext(wrong, &tek.compressed()), false),
    );
    assert_wallet_request_refused(&r);
    // Anything else in public_key, or the code in the wrong place, likewise.
    for bad in [
        plaintext(&otp, "not a key"),
        plaintext(&otp, &tek.compressed().to_uppercase().replacen("0", "x", 1)),
        plaintext(&otp, &tek.compressed()[..64]),
        format!(
            r#"{{"otp_code":{otp},"public_key":"{}"}}"#,
            tek.compressed()
        ),
    ] {
        let r = first_leg(&emu, &cred, &seal_otp(&target, &bad, false));
        assert_wallet_request_refused(&r);
    }
    // encappedPublic is the 65-byte uncompressed point on the wire.
    let r = first_leg(
        &emu,
        &cred,
        &seal_otp(&target, &plaintext(&otp, &tek.compressed()), true),
    );
    assert_wallet_request_refused(&r);
    // Not sealed to the enclave at all: the same answer.
    let stranger = emulator::crypto::generate_secret().public_key();
    let r = first_leg(
        &emu,
        &cred,
        &seal_otp(&stranger, &plaintext(&otp, &tek.compressed()), false),
    );
    assert_wallet_request_refused(&r);

    // None of the refusals spent the code: the compressed TEK with it logs in.
    let sealed = seal_otp(&target, &plaintext(&otp, &tek.compressed()), false);
    let first = first_leg(&emu, &cred, &sealed);
    first.expect(202);
    let pending = PendingSignature::from_json(&first.body).unwrap();
    let path = format!("/auth/credentials/{cred}/verify");
    let body = verify_body(&sealed);
    // The stamp names the TEK in its compressed form only (the service keys API keys by it).
    let spelled_long = tek.stamp_spelled(&pending.payload_to_sign, &tek.uncompressed());
    let r = emu.retry_with("POST", &path, &spelled_long, &pending.request_id, &body);
    r.expect(401);
    assert!(r.reason().contains("compressed"), "{}", r.body);
    let good = stamp(&tek.signing_key(), &pending.payload_to_sign).unwrap();
    let done = emu.retry_with("POST", &path, &good, &pending.request_id, &body);
    done.expect(200);
    assert!(done.json().get("encryptedSessionSigningKey").is_none());

    // The code was spent by that login (single use): the same bundle is refused again.
    let r = first_leg(&emu, &cred, &sealed);
    assert_wallet_request_refused(&r);

    // The TEK is the session key: a stamp spelling it uncompressed is refused there too.
    let patch = format!("/internal-accounts/{account}");
    let first = emu.api("PATCH", &patch, &[], r#"{"privacyEnabled":true}"#);
    first.expect(202);
    let pending = PendingSignature::from_json(&first.body).unwrap();
    let spelled_long = tek.stamp_spelled(&pending.payload_to_sign, &tek.uncompressed());
    let r = emu.retry_with(
        "PATCH",
        &patch,
        &spelled_long,
        &pending.request_id,
        r#"{"privacyEnabled":true}"#,
    );
    r.expect(401);
    let good = stamp(&tek.signing_key(), &pending.payload_to_sign).unwrap();
    emu.retry_with(
        "PATCH",
        &patch,
        &good,
        &pending.request_id,
        r#"{"privacyEnabled":true}"#,
    )
    .expect(200);
}

#[test]
fn strict_encrypted_otp_refuses_an_expired_code_like_a_wrong_one() {
    let emu = start_with(Mode::Strict, |c| {
        c.challenge_interval = Duration::ZERO;
        c.otp_ttl = Duration::from_millis(300);
    });
    let (account, cred) = account_with_otp(&emu);
    let target = challenge_target(&emu, &cred);
    let otp = emu.last_otp(&account);
    std::thread::sleep(Duration::from_millis(400));
    let tek = Tek::new();
    let r = first_leg(
        &emu,
        &cred,
        &seal_otp(&target, &plaintext(&otp, &tek.compressed()), false),
    );
    assert_wallet_request_refused(&r);
}

#[test]
fn the_default_otp_lifetime_is_productions_five_minutes() {
    assert_eq!(
        emulator::Config::default().otp_ttl,
        Duration::from_secs(300)
    );
}

#[test]
fn sandbox_runs_the_encrypted_otp_with_the_magic_code_and_either_key_form() {
    let emu = start_with(Mode::Sandbox, |_| {});
    let (account, cred) = account_with_otp(&emu);
    let target = challenge_target(&emu, &cred);
    // The sandbox enclave signs its target bundle too (with the key /emulator/config names).
    let signer = emu.config()["otpSignerPublicKey"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(signer.len(), 130, "{signer}");

    // Any other code: the sandbox's 401.
    let tek = Tek::new();
    let r = first_leg(
        &emu,
        &cred,
        &seal_otp(&target, &plaintext("123456", &tek.compressed()), false),
    );
    assert_eq!((r.status, r.reason().as_str()), (401, "Invalid OTP code"));

    let path = format!("/auth/credentials/{cred}/verify");
    for uncompressed in [true, false] {
        let tek = Tek::new();
        let key_text = if uncompressed {
            tek.uncompressed()
        } else {
            tek.compressed()
        };
        let sealed = seal_otp(&target, &plaintext("000000", &key_text), false);
        let first = first_leg(&emu, &cred, &sealed);
        first.expect(202);
        assert_eq!(first.json()["type"], "EMAIL_OTP");
        let pending = PendingSignature::from_json(&first.body).unwrap();
        // The kit signs the second leg with the TEK: a real stamp by it is accepted...
        let mut client_key = ClientKey::from_secret(tek.secret.clone()).unwrap();
        let headers = embedded_wallet_kit::enclave::sign_with_tek(
            &mut client_key,
            &pending,
            emulator::util::now_ms(),
        )
        .unwrap();
        // ...and another key's is not.
        let other = Tek::new();
        let r = emu.retry_with(
            "POST",
            &path,
            &stamp(&other.signing_key(), &pending.payload_to_sign).unwrap(),
            &pending.request_id,
            &verify_body(&sealed),
        );
        assert_eq!(
            (r.status, r.reason().as_str()),
            (401, "Invalid Service-Wallet-Signature")
        );
        let done = emu.retry_with(
            "POST",
            &path,
            &headers.signature,
            &headers.request_id,
            &verify_body(&sealed),
        );
        done.expect(200);
        let session = done.json();
        assert!(session.get("encryptedSessionSigningKey").is_none());
        assert_eq!(session["accountId"], account.as_str());
    }
    // The magic signature also completes a sandbox OTP login.
    let tek = Tek::new();
    let sealed = seal_otp(&target, &plaintext("000000", &tek.compressed()), false);
    let first = first_leg(&emu, &cred, &sealed);
    first.expect(202);
    let rid = first.json()["requestId"].as_str().unwrap().to_owned();
    emu.retry_with(
        "POST",
        &path,
        SANDBOX_SIGNATURE,
        &rid,
        &verify_body(&sealed),
    )
    .expect(200);
}

/// Sleeps past the session's expiry (`session_ttl` 1 s).
fn outlive(session_created: std::time::Instant) {
    let lived = session_created.elapsed();
    if lived < Duration::from_millis(1150) {
        std::thread::sleep(Duration::from_millis(1150) - lived);
    }
}

#[test]
fn refresh_of_an_expired_session_is_refused_on_every_leg_and_in_both_key_modes() {
    let emu = start_with(Mode::Strict, |c| {
        c.session_ttl = Duration::from_secs(1);
        c.challenge_interval = Duration::ZERO;
    });
    for client_held in [false, true] {
        let (account, _) = emu.new_account();
        let (mut session, _) = emu.email_login(&account);
        let born = std::time::Instant::now();
        let path = format!("/auth/sessions/{}/refresh", session.info().id);
        let key = ClientKey::generate().unwrap();
        let key_text = if client_held {
            key.compressed_public_key_hex()
        } else {
            key.public_key_hex()
        };
        let body = json!({"clientPublicKey": key_text}).to_string();
        // The 202 is issued while the session lives, and signed while it lives...
        let first = emu.api("POST", &path, &[], &body);
        first.expect(202);
        let pending = PendingSignature::from_json(&first.body).unwrap();
        let headers = session.sign_retry(&pending, system_now()).unwrap();
        outlive(born);
        // ...but the retry after the expiry is refused,
        let r = emu.retry_with(
            "POST",
            &path,
            &headers.signature,
            &headers.request_id,
            &body,
        );
        assert_eq!(
            (r.status, r.reason().as_str()),
            (401, "Session expired"),
            "client_held {client_held}"
        );
        // and so is a new first leg.
        let r = emu.api("POST", &path, &[], &body);
        assert_eq!(
            (r.status, r.reason().as_str()),
            (401, "Session expired"),
            "client_held {client_held}"
        );
    }

    // A client-held session (itself from a client-held refresh) expires the same way.
    let (account, _) = emu.new_account();
    let (mut session, _) = emu.email_login(&account);
    let mut key = ClientKey::generate().unwrap();
    let path = format!("/auth/sessions/{}/refresh", session.info().id);
    let body = json!({"clientPublicKey": key.compressed_public_key_hex()}).to_string();
    let r = emu.signed(&mut session, "POST", &path, &body);
    r.expect(201);
    let born = std::time::Instant::now();
    let parsed = common::body(&r);
    let held = embedded_wallet_kit::flows::wallet::open_client_held_session(
        &common::view(&r, &parsed),
        &mut key,
        None,
    )
    .unwrap();
    let path = format!("/auth/sessions/{}/refresh", held.info().id);
    let next = ClientKey::generate().unwrap();
    let body = json!({"clientPublicKey": next.compressed_public_key_hex()}).to_string();
    outlive(born);
    let r = emu.api("POST", &path, &[], &body);
    assert_eq!((r.status, r.reason().as_str()), (401, "Session expired"));
}

fn quote_body(source: &str, destination: &str) -> String {
    json!({
        "source": {"sourceType": "ACCOUNT", "accountId": source},
        "destination": {"destinationType": "ACCOUNT", "accountId": destination},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": 500,
    })
    .to_string()
}

#[track_caller]
fn assert_forbidden(r: &Resp) {
    r.expect(403);
    let body = r.json();
    assert_eq!(body["code"], "FORBIDDEN", "{}", r.body);
    assert!(
        body["reason"]
            .as_str()
            .unwrap_or_default()
            .contains("TRANSACT permission"),
        "{}",
        r.body
    );
    assert!(body["message"].as_str().is_some_and(|m| !m.is_empty()));
}

fn set_transact(emu: &Emu, allowed: bool) -> Resp {
    emu.raw(
        "POST",
        "/emulator/permissions",
        &[],
        &json!({"transact": allowed}).to_string(),
    )
}

#[test]
fn quotes_are_forbidden_without_the_transact_permission() {
    // Configured at start (--forbid-transact).
    let emu = start_with(Mode::Strict, |c| c.forbid_transact = true);
    assert_eq!(emu.config()["permissions"], json!({"transact": false}));
    let (account, _) = emu.new_account();
    emu.post(
        &format!("/sandbox/internal-accounts/{account}/fund"),
        &json!({"amount": 10_000}),
    )
    .expect(200);
    let merchant = emu.config()["merchantAccountId"]
        .as_str()
        .unwrap()
        .to_owned();
    let r = emu.api(
        "POST",
        "/quotes",
        &[("Idempotency-Key", "q1")],
        &quote_body(&account, &merchant),
    );
    assert_forbidden(&r);
    // Through the integrator backend as well.
    let r = emu.raw(
        "POST",
        "/backend/quotes",
        &[],
        &quote_body(&account, &merchant),
    );
    assert_forbidden(&r);

    // Toggled at run time (a browser test's switch): quotes work again...
    let r = set_transact(&emu, true);
    r.expect(200);
    assert_eq!(r.json(), json!({"transact": true}));
    assert_eq!(
        emu.raw("GET", "/emulator/permissions", &[], "").json(),
        json!({"transact": true})
    );
    let (session, _) = emu.email_login(&account);
    let r = emu.api(
        "POST",
        "/quotes",
        &[("Idempotency-Key", "q1")],
        &quote_body(&account, &merchant),
    );
    r.expect(201);
    let quote = embedded_wallet_kit::QuoteToSign::from_json(&r.body).unwrap();
    let quote_id = r.json()["id"].as_str().unwrap().to_owned();
    let signature = session.sign_quote(&quote, system_now()).unwrap();

    // ...until the permission is withdrawn: execute is refused and no money moves.
    set_transact(&emu, false).expect(200);
    let execute = format!("/quotes/{quote_id}/execute");
    let headers = [
        ("Idempotency-Key", "x1"),
        (embedded_wallet_kit::SIGNATURE_HEADER, signature.as_str()),
    ];
    assert_forbidden(&emu.api("POST", &execute, &headers, ""));
    assert_eq!(emu.balance(&account), 10_000);
    // Creating one is refused too, even replaying an Idempotency-Key that succeeded.
    assert_forbidden(&emu.api(
        "POST",
        "/quotes",
        &[("Idempotency-Key", "q1")],
        &quote_body(&account, &merchant),
    ));

    set_transact(&emu, true).expect(200);
    emu.api("POST", &execute, &headers, "").expect(200);
    assert_eq!(emu.balance(&account), 9_500);

    // The switch takes exactly a boolean.
    for bad in [r#"{"transact":"no"}"#, "{}", "[]"] {
        emu.raw("POST", "/emulator/permissions", &[], bad)
            .expect(400);
    }
    // Both modes honour it.
    let sandbox = start_with(Mode::Sandbox, |c| c.forbid_transact = true);
    let (account, _) = sandbox.new_account();
    let merchant = sandbox.config()["merchantAccountId"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_forbidden(&sandbox.api("POST", "/quotes", &[], &quote_body(&account, &merchant)));
}

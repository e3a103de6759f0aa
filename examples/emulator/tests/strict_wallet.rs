//! Strict mode: refresh, quotes and execution, export.

mod common;

use embedded_wallet_kit::system_now;
use std::time::Duration;

use common::{assert_id, stamp_json, start, start_with};
use embedded_wallet_kit::service::hex_decode;
use embedded_wallet_kit::service::uncompressed_hex;
use embedded_wallet_kit::service::Bundle;
use embedded_wallet_kit::PublicKey;
use embedded_wallet_kit::{ClientKey, ErrorCode, PendingSignature, QuoteToSign, Session};
use emulator::Mode;
use p256::ecdsa::signature::Verifier as _;
use p256::ecdsa::{Signature, VerifyingKey};
use p256::elliptic_curve::sec1::ToSec1Point;
use serde_json::{json, Value};

#[test]
fn refresh_seals_a_new_session_to_the_new_key_signed_by_the_old_one() {
    let emu = start(Mode::Strict);
    let (account, _) = emu.new_account();
    let (mut old, cred_id) = emu.email_login(&account);
    let path = format!("/auth/sessions/{}/refresh", old.info().id);
    let mut new_key = ClientKey::generate().unwrap();
    let body = json!({"clientPublicKey": new_key.public_key_hex()}).to_string();

    let first = emu.api("POST", &path, &[], &body);
    first.expect(202);
    let pending = PendingSignature::from_json(&first.body).unwrap();
    let payload: Value = serde_json::from_str(&pending.payload_to_sign).unwrap();
    assert_eq!(
        payload["type"],
        "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2"
    );
    assert_eq!(
        payload["parameters"]["targetPublicKey"],
        new_key.public_key_hex().as_str()
    );
    // Canonical compact JSON: sorted keys, no spaces.
    assert!(pending
        .payload_to_sign
        .starts_with(r#"{"organizationId":""#));
    assert!(!pending.payload_to_sign.contains(' '));
    let headers = old.sign_retry(&pending, system_now()).unwrap();
    assert_eq!(
        stamp_json(&headers.signature)["publicKey"],
        old.public_key_hex().unwrap().as_str()
    );

    // Another key in the retry body: mismatch.
    let other = ClientKey::generate().unwrap();
    let r = emu.retry_with(
        "POST",
        &path,
        &headers.signature,
        &headers.request_id,
        &json!({"clientPublicKey": other.public_key_hex()}).to_string(),
    );
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "WALLET_SIGNATURE_BODY_MISMATCH")
    );

    // Signed by another session of the same account: refused.
    let mut sibling = emu.email_verify_after_challenge(&account, &cred_id);
    let r = emu.retry_with(
        "POST",
        &path,
        &sibling
            .stamp(&pending.payload_to_sign, system_now())
            .unwrap(),
        &headers.request_id,
        &body,
    );
    r.expect(401);
    assert!(r.reason().contains("session being refreshed"), "{}", r.body);

    let r = emu.retry_with(
        "POST",
        &path,
        &headers.signature,
        &headers.request_id,
        &body,
    );
    r.expect(201);
    let new_id = r.json()["id"].as_str().unwrap().to_owned();
    assert_id(&new_id, "Session");
    assert_ne!(new_id, old.info().id);
    // The new bundle opens with the new key only.
    let mut wrong = ClientKey::generate().unwrap();
    assert!(Session::open_json(&r.body, &mut wrong).is_err());
    let mut new = Session::open_json(&r.body, &mut new_key).unwrap();
    assert_ne!(new.public_key_hex(), old.public_key_hex());

    let patch = format!("/internal-accounts/{account}");
    emu.signed(&mut new, "PATCH", &patch, r#"{"privacyEnabled":true}"#)
        .expect(200);
    // The old session stays valid until its own expiry.
    emu.signed(&mut old, "PATCH", &patch, r#"{"privacyEnabled":false}"#)
        .expect(200);
    emu.signed(&mut sibling, "PATCH", &patch, r#"{"privacyEnabled":true}"#)
        .expect(200);
}

fn quote_body(source: &str, destination: &str, amount: i64) -> Value {
    json!({
        "source": {"sourceType": "ACCOUNT", "accountId": source},
        "destination": {"destinationType": "ACCOUNT", "accountId": destination},
        "lockedCurrencySide": "SENDING",
        "lockedCurrencyAmount": amount,
        "description": "test transfer",
    })
}

#[test]
fn quote_execution_moves_money_exactly_once() {
    let emu = start(Mode::Strict);
    let merchant = emu.config()["merchantAccountId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (account, _) = emu.new_account();
    let (session, _) = emu.email_login(&account);
    let fund = format!("/sandbox/internal-accounts/{account}/fund");
    let r = emu.post(&fund, &json!({"amount": 10_000}));
    r.expect(200);
    assert_eq!(r.json()["balance"]["amount"], 10_000);
    emu.post(&fund, &json!({"amount": 0})).expect(400);

    let body = quote_body(&account, &merchant, 2_500).to_string();
    let created = emu.api("POST", "/quotes", &[("Idempotency-Key", "q-1")], &body);
    created.expect(201);
    let quote = created.json();
    assert_id(quote["id"].as_str().unwrap(), "Quote");
    assert_id(quote["transactionId"].as_str().unwrap(), "Transaction");
    assert_eq!(quote["status"], "PENDING");
    assert_eq!(quote["totalSendingAmount"], 2_500);
    assert_eq!(quote["totalReceivingAmount"], 2_500);
    assert_eq!(quote["feesIncluded"], 0);
    assert_eq!(quote["exchangeRate"], 1.0);
    assert_eq!(quote["sendingCurrency"]["code"], "USD");
    let payload: Value = serde_json::from_str(quote["payloadToSign"].as_str().unwrap()).unwrap();
    assert_eq!(payload["type"], "ACTIVITY_TYPE_SIGN_TRANSACTION_V2");
    assert_eq!(payload["parameters"]["quoteId"], quote["id"]);
    assert_eq!(payload["parameters"]["amount"], "2500");
    assert_eq!(
        payload["parameters"]["destinationAccountId"],
        merchant.as_str()
    );
    // Same Idempotency-Key: the same quote.
    let again = emu.api("POST", "/quotes", &[("Idempotency-Key", "q-1")], &body);
    assert_eq!(again.json(), quote);

    let id = quote["id"].as_str().unwrap();
    let execute = format!("/quotes/{id}/execute");
    let r = emu.api("POST", &execute, &[("Idempotency-Key", "x-0")], "");
    assert_eq!(
        (r.status, r.reason().as_str()),
        (401, "Service-Wallet-Signature header missing")
    );
    let stamp = session
        .sign_quote(
            &QuoteToSign::from_json(&created.body).unwrap(),
            system_now(),
        )
        .unwrap();
    let (stranger_account, _) = emu.new_account();
    let (stranger, _) = emu.email_login(&stranger_account);
    let forged = stranger
        .stamp(quote["payloadToSign"].as_str().unwrap(), system_now())
        .unwrap();
    let r = emu.api(
        "POST",
        &execute,
        &[
            ("Idempotency-Key", "x-0"),
            ("Service-Wallet-Signature", &forged),
        ],
        "",
    );
    r.expect(401);
    assert!(r.reason().contains("another account"), "{}", r.body);

    let headers = [
        ("Idempotency-Key", "x-1"),
        ("Service-Wallet-Signature", stamp.as_str()),
    ];
    let done = emu.api("POST", &execute, &headers, "");
    done.expect(200);
    let tx = done.json();
    assert_eq!(tx["id"], quote["transactionId"]);
    assert_eq!(tx["status"], "COMPLETED");
    assert_eq!(tx["quoteId"], quote["id"]);
    assert_eq!(
        (emu.balance(&account), emu.balance(&merchant)),
        (7_500, 2_500)
    );

    // The same Idempotency-Key: the same response, no second transfer.
    let replay = emu.api("POST", &execute, &headers, "");
    replay.expect(200);
    assert_eq!(replay.json(), tx);
    assert_eq!(
        (emu.balance(&account), emu.balance(&merchant)),
        (7_500, 2_500)
    );
    // Another key: the quote already executed.
    let r = emu.api(
        "POST",
        &execute,
        &[
            ("Idempotency-Key", "x-2"),
            ("Service-Wallet-Signature", stamp.as_str()),
        ],
        "",
    );
    r.expect(400);
    assert_eq!(r.json()["code"], "QUOTE_ALREADY_EXECUTED");
    assert_eq!(
        (emu.balance(&account), emu.balance(&merchant)),
        (7_500, 2_500)
    );

    // Not enough money.
    let big = emu.post("/quotes", &quote_body(&account, &merchant, 1_000_000));
    big.expect(201);
    let stamp = session
        .sign_quote(&QuoteToSign::from_json(&big.body).unwrap(), system_now())
        .unwrap();
    let r = emu.api(
        "POST",
        &format!("/quotes/{}/execute", big.json()["id"].as_str().unwrap()),
        &[("Service-Wallet-Signature", stamp.as_str())],
        "",
    );
    r.expect(400);
    assert_eq!(r.json()["code"], "INSUFFICIENT_FUNDS");
    assert_eq!(emu.balance(&account), 7_500);

    // Body rules.
    let mut immediate = quote_body(&account, &merchant, 100);
    immediate["immediatelyExecute"] = json!(true);
    let r = emu.post("/quotes", &immediate);
    r.expect(400);
    assert_eq!(r.json()["code"], "IMMEDIATE_EXECUTION_NOT_SUPPORTED");
    for amount in [0i64, -1, 9_000_000_000_000_001] {
        emu.post("/quotes", &quote_body(&account, &merchant, amount))
            .expect(400);
    }
    emu.post(
        "/quotes",
        &quote_body(&account, &merchant, 9_000_000_000_000_000),
    )
    .expect(201);
    emu.post("/quotes", &quote_body(&account, &account, 1))
        .expect(400);

    // The transactions list envelope.
    let list = emu.get(&format!("/transactions?accountIdentifier={account}"));
    list.expect(200);
    let list = list.json();
    assert_eq!(list["data"].as_array().unwrap().len(), 1);
    assert_eq!(list["hasMore"], false);
    assert!(list.get("nextCursor").is_none());
    emu.get("/transactions?limit=0").expect(400);
    emu.get("/transactions?limit=101").expect(400);
    emu.get("/transactions?limit=100").expect(200);
}

#[test]
fn transaction_list_pages_with_cursors() {
    let emu = start(Mode::Strict);
    let merchant = emu.config()["merchantAccountId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (account, _) = emu.new_account();
    let (session, _) = emu.email_login(&account);
    emu.post(
        &format!("/sandbox/internal-accounts/{account}/fund"),
        &json!({"amount": 300}),
    )
    .expect(200);
    let mut ids = Vec::new();
    for _ in 0..3 {
        let q = emu.post("/quotes", &quote_body(&account, &merchant, 100));
        let stamp = session
            .sign_quote(&QuoteToSign::from_json(&q.body).unwrap(), system_now())
            .unwrap();
        let id = q.json()["id"].as_str().unwrap().to_owned();
        let r = emu.api(
            "POST",
            &format!("/quotes/{id}/execute"),
            &[("Service-Wallet-Signature", stamp.as_str())],
            "",
        );
        r.expect(200);
        ids.push(r.json()["id"].as_str().unwrap().to_owned());
    }
    assert_eq!(emu.balance(&account), 0);
    let mut seen = Vec::new();
    let mut path = "/transactions?limit=2".to_owned();
    loop {
        let page = emu.get(&path).json();
        seen.extend(
            page["data"]
                .as_array()
                .unwrap()
                .iter()
                .map(|t| t["id"].as_str().unwrap().to_owned()),
        );
        assert_eq!(page["totalCount"], 3);
        if page["hasMore"] == false {
            break;
        }
        path = format!(
            "/transactions?limit=2&cursor={}",
            page["nextCursor"].as_str().unwrap()
        );
    }
    ids.reverse(); // newest first
    assert_eq!(seen, ids);
    emu.get("/transactions?cursor=bogus").expect(400);
}

#[test]
fn expired_quotes_are_refused_by_the_client_and_the_service() {
    let emu = start_with(Mode::Strict, |c| c.quote_ttl = Duration::from_millis(300));
    let merchant = emu.config()["merchantAccountId"]
        .as_str()
        .unwrap()
        .to_owned();
    let (account, _) = emu.new_account();
    let (session, _) = emu.email_login(&account);
    emu.post(
        &format!("/sandbox/internal-accounts/{account}/fund"),
        &json!({"amount": 100}),
    )
    .expect(200);
    let q = emu.post("/quotes", &quote_body(&account, &merchant, 100));
    q.expect(201);
    let quote = QuoteToSign::from_json(&q.body).unwrap();
    let stamp = session.stamp(&quote.payload_to_sign, system_now()).unwrap();
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(
        session.sign_quote(&quote, system_now()).unwrap_err().code(),
        ErrorCode::QuoteExpired
    );
    let r = emu.api(
        "POST",
        &format!("/quotes/{}/execute", q.json()["id"].as_str().unwrap()),
        &[("Service-Wallet-Signature", stamp.as_str())],
        "",
    );
    r.expect(400);
    assert_eq!(r.json()["code"], "QUOTE_EXPIRED");
    assert_eq!(emu.balance(&account), 100);
}

#[test]
fn export_envelope_is_signed_and_opens_to_the_mnemonic() {
    let emu = start(Mode::Strict);
    let (account, _) = emu.new_account();
    let (mut session, _) = emu.email_login(&account);
    let path = format!("/internal-accounts/{account}/export");
    let export_key = emulator::crypto::generate_secret();
    let export_hex = uncompressed_hex(&export_key.public_key());

    let bad = ClientKey::generate().unwrap().compressed_public_key_hex();
    emu.post(&path, &json!({"clientPublicKey": bad}))
        .expect(400);

    let body = json!({"clientPublicKey": export_hex}).to_string();
    let first = emu.api("POST", &path, &[], &body);
    first.expect(202);
    let pending = PendingSignature::from_json(&first.body).unwrap();
    let payload: Value = serde_json::from_str(&pending.payload_to_sign).unwrap();
    assert_eq!(payload["type"], "ACTIVITY_TYPE_EXPORT_WALLET");
    assert_eq!(
        payload["parameters"]["targetPublicKey"],
        export_hex.as_str()
    );
    let headers = session.sign_retry(&pending, system_now()).unwrap();
    let r = emu.retry_with(
        "POST",
        &path,
        &headers.signature,
        &headers.request_id,
        &body,
    );
    r.expect(200);
    let text = r.json()["encryptedWalletCredentials"]
        .as_str()
        .unwrap()
        .to_owned();
    let envelope: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(envelope["version"], "v1.0.0");

    // The signature verifies with the announced signer key.
    let quorum = envelope["enclaveQuorumPublic"].as_str().unwrap();
    assert_eq!(
        quorum,
        emu.config()["exportSignerPublicKey"].as_str().unwrap()
    );
    let data = hex_decode(envelope["data"].as_str().unwrap()).unwrap();
    let signature =
        Signature::from_der(&hex_decode(envelope["dataSignature"].as_str().unwrap()).unwrap())
            .unwrap();
    let signer = VerifyingKey::from_sec1_bytes(&hex_decode(quorum).unwrap()).unwrap();
    signer.verify(&data, &signature).unwrap();
    let mut altered = data.clone();
    altered[5] ^= 1;
    assert!(signer.verify(&altered, &signature).is_err());

    // It opens (HPKE, the session-bundle suite) to the mnemonic.
    let inner: Value = serde_json::from_slice(&data).unwrap();
    assert_eq!(inner["organizationId"], payload["organizationId"]);
    let enc = hex_decode(inner["encappedPublic"].as_str().unwrap()).unwrap();
    assert_eq!(enc.len(), 65);
    let enc = PublicKey::from_sec1_bytes(&enc).unwrap();
    let sealed = [
        enc.to_sec1_point(true).as_bytes(),
        hex_decode(inner["ciphertext"].as_str().unwrap())
            .unwrap()
            .as_slice(),
    ]
    .concat();
    let mnemonic = Bundle::from_payload(&sealed)
        .unwrap()
        .open(&export_key)
        .unwrap();
    let mnemonic = std::str::from_utf8(&mnemonic).unwrap();
    assert_eq!(mnemonic.split(' ').count(), 12);
    assert_eq!(mnemonic, emulator::crypto::TEST_MNEMONIC);
    // Not to another key.
    let other = emulator::crypto::generate_secret();
    assert!(Bundle::from_payload(&sealed).unwrap().open(&other).is_err());
}

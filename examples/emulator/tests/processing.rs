//! The live service's `200 {"status":"PROCESSING"}` on signed retries (protocol notes
//! §12), as the emulator models it: N answers before the operation runs, re-sends checked
//! byte for byte, the terminal answer repeated, and an operation that settles on its own;
//! and the kit's flows (`embedded_wallet_kit::flows`) re-sending through it.

mod common;

use embedded_wallet_kit::system_now;
use std::time::Duration;

use common::wallet;
use common::{body, drive, register_body, send, start_with, view, Emu, Resp};
use embedded_wallet_kit::flows::{Next, ProcessingPolicy};
use embedded_wallet_kit::passkey::SoftAuthenticator;
use embedded_wallet_kit::{
    ClientKey, PendingSignature, Session, SignedRetryHeaders, REQUEST_ID_HEADER,
};
use emulator::Mode;
use serde_json::{json, Value};

fn strict() -> Emu {
    start_with(Mode::Strict, |c| c.challenge_interval = Duration::ZERO)
}

fn plan(emu: &Emu, body: Value) -> Value {
    let r = emu.raw("POST", "/emulator/processing", &[], &body.to_string());
    r.expect(200);
    r.json()
}

fn resend(emu: &Emu, method: &str, path: &str, headers: &SignedRetryHeaders, body: &str) -> Resp {
    emu.retry_with(method, path, &headers.signature, &headers.request_id, body)
}

fn assert_processing(r: &Resp) {
    assert_eq!(r.status, 200, "{}", r.body);
    assert_eq!(r.json()["status"], "PROCESSING", "{}", r.body);
}

/// A re-send that differs from the held request: 401 `WALLET_SIGNATURE_BODY_MISMATCH`,
/// its reason naming `what` differs.
fn mismatch(r: Resp, what: &str) {
    assert_eq!(r.status, 401, "{what}: {}", r.body);
    assert_eq!(
        r.json()["code"],
        "WALLET_SIGNATURE_BODY_MISMATCH",
        "{}",
        r.body
    );
    assert!(r.reason().contains(what), "{what}: {}", r.body);
}

/// A refresh's first leg and its signed retry's headers.
fn refresh_headers(
    emu: &Emu,
    session: &mut Session,
    body: &str,
) -> (String, PendingSignature, SignedRetryHeaders) {
    let path = format!("/auth/sessions/{}/refresh", session.info().id);
    let first = emu.api("POST", &path, &[], body);
    first.expect(202);
    let pending = PendingSignature::from_json(&first.body).unwrap();
    let headers = session.sign_retry(&pending, system_now()).unwrap();
    (path, pending, headers)
}

/// A signed retry's first leg (202) and the headers `session` signs it with.
fn signed_retry(
    emu: &Emu,
    session: &mut Session,
    method: &str,
    path: &str,
    body: &str,
) -> SignedRetryHeaders {
    let first = emu.api(method, path, &[], body);
    first.expect(202);
    let pending = PendingSignature::from_json(&first.body).unwrap();
    session.sign_retry(&pending, system_now()).unwrap()
}

#[test]
fn a_refresh_answers_processing_n_times_then_its_session_and_repeats_it() {
    let emu = strict();
    assert_eq!(
        plan(&emu, json!({"count": 2, "operations": ["session.refresh"]}))["operations"]
            ["session.refresh"],
        2
    );
    let (account, _) = emu.new_account();
    let (mut session, _) = emu.email_login(&account);
    let mut key = ClientKey::generate().unwrap();
    let body = json!({"clientPublicKey": key.public_key_hex()}).to_string();
    let (path, _, headers) = refresh_headers(&emu, &mut session, &body);

    assert_processing(&resend(&emu, "POST", &path, &headers, &body));
    assert_processing(&resend(&emu, "POST", &path, &headers, &body));
    let done = resend(&emu, "POST", &path, &headers, &body);
    done.expect(201);
    let refreshed = Session::open_json(&done.body, &mut key).expect("the new session opens");
    assert_ne!(refreshed.info().id, session.info().id);
    // A re-send after the terminal answer gets the same answer, not a second session.
    let again = resend(&emu, "POST", &path, &headers, &body);
    again.expect(201);
    assert_eq!(again.body, done.body);
}

#[test]
fn a_resend_that_differs_in_one_byte_is_refused() {
    let emu = strict();
    let (account, _) = emu.new_account();
    let (mut session, _) = emu.email_login(&account);
    plan(&emu, json!({"count": 1}));
    let key = ClientKey::generate().unwrap();
    let body = json!({"clientPublicKey": key.public_key_hex()}).to_string();
    let (path, pending, headers) = refresh_headers(&emu, &mut session, &body);
    assert_processing(&resend(&emu, "POST", &path, &headers, &body));

    // The body with one byte changed: the spaced spelling of the same JSON.
    let spaced = body.replacen(':', ": ", 1);
    mismatch(resend(&emu, "POST", &path, &headers, &spaced), "");
    // A fresh stamp of the same payload (another valid signature): a re-stamp.
    let restamped = SignedRetryHeaders {
        signature: session
            .stamp(&pending.payload_to_sign, system_now())
            .unwrap(),
        request_id: headers.request_id.clone(),
    };
    mismatch(
        resend(&emu, "POST", &path, &restamped, &body),
        "Service-Wallet-Signature",
    );
    // The identical re-send still completes.
    resend(&emu, "POST", &path, &headers, &body).expect(201);
}

#[test]
fn a_held_operation_settles_on_its_own_and_a_lookup_shows_it() {
    let emu = strict();
    plan(
        &emu,
        json!({"count": 5, "operations": ["auth_credential.create"], "settleMs": 1000}),
    );
    let (account, _) = emu.new_account();
    let (mut session, _) = emu.email_login(&account);
    let mut authenticator = SoftAuthenticator::new(&emu.origin).unwrap();
    let body = register_body(&mut authenticator, &account, "Laptop").to_string();
    let first = emu.api("POST", "/auth/credentials", &[], &body);
    first.expect(202);
    let pending = PendingSignature::from_json(&first.body).unwrap();
    let headers = session.sign_retry(&pending, system_now()).unwrap();
    assert_processing(&resend(&emu, "POST", "/auth/credentials", &headers, &body));

    let passkeys = |emu: &Emu| {
        let list = emu.get(&format!("/auth/credentials?accountId={account}"));
        list.expect(200);
        list.json()["data"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|c| c["type"] == "PASSKEY")
            .count()
    };
    assert_eq!(passkeys(&emu), 0, "nothing added while processing");
    std::thread::sleep(Duration::from_millis(1100));
    assert_eq!(passkeys(&emu), 1, "settled on its own: the lookup shows it");
    // The client that comes back with the identical re-send gets the credential.
    let done = resend(&emu, "POST", "/auth/credentials", &headers, &body);
    done.expect(201);
    assert_eq!(done.json()["type"], "PASSKEY");
    assert_eq!(passkeys(&emu), 1, "and no second one");
}

#[test]
fn every_signed_retry_endpoint_can_answer_processing() {
    let emu = strict();
    let (account, _) = emu.new_account();
    let (mut session, credential) = emu.email_login(&account);
    plan(&emu, json!({"count": 1}));
    // PATCH /internal-accounts/{id}, then DELETE /auth/sessions/{id}.
    let patch = format!("/internal-accounts/{account}");
    let body = r#"{"privacyEnabled":true}"#;
    let headers = signed_retry(&emu, &mut session, "PATCH", &patch, body);
    assert_processing(&resend(&emu, "PATCH", &patch, &headers, body));
    resend(&emu, "PATCH", &patch, &headers, body).expect(200);

    let revoke = format!("/auth/sessions/{}", session.info().id);
    let first = emu.api("DELETE", &revoke, &[], "");
    first.expect(202);
    let headers = session
        .sign_retry(
            &PendingSignature::from_json(&first.body).unwrap(),
            system_now(),
        )
        .unwrap();
    assert_processing(&resend(&emu, "DELETE", &revoke, &headers, ""));
    resend(&emu, "DELETE", &revoke, &headers, "").expect(204);
    // Off again: the next signed retry runs at once.
    plan(&emu, json!({"count": 0}));
    let mut other = emu.email_verify_after_challenge(&account, &credential);
    emu.signed(&mut other, "PATCH", &patch, body).expect(200);
}

/// The login legs carry no Request-Id: the challenge and the session-issuing verify
/// answer PROCESSING, run once on the identical re-send, and refuse one that differs.
#[test]
fn the_login_legs_answer_processing_in_both_modes_and_run_once() {
    for mode in [Mode::Strict, Mode::Sandbox] {
        let emu = start_with(mode, |c| c.challenge_interval = Duration::ZERO);
        let (account, credential) = emu.new_account_with_email_otp();
        let codes = |emu: &Emu| {
            let r = emu.get(&format!("/emulator/outbox?accountId={account}"));
            r.expect(200);
            r.json().as_array().unwrap().len()
        };
        let sent_before = codes(&emu);
        plan(
            &emu,
            json!({"count": 2, "operations": ["auth_credential.challenge", "auth_credential.verify"]}),
        );
        let challenge = format!("/auth/credentials/{credential}/challenge");
        assert_processing(&emu.api("POST", &challenge, &[], "{}"));
        mismatch(emu.api("POST", &challenge, &[], "{ }"), "body");
        mismatch(
            emu.api(
                "POST",
                &challenge,
                &[(REQUEST_ID_HEADER, "Request:x")],
                "{}",
            ),
            "Request-Id",
        );
        assert_processing(&emu.api("POST", &challenge, &[], "{}"));
        assert_eq!(
            codes(&emu),
            sent_before,
            "{mode:?}: nothing sent while processing"
        );
        let done = emu.api("POST", &challenge, &[], "{}");
        done.expect(200);
        assert_eq!(done.json()["id"], credential.as_str(), "{}", done.body);
        if mode == Mode::Strict {
            assert_eq!(codes(&emu), sent_before + 1, "one code, sent once");
        }

        let otp = match mode {
            Mode::Strict => emu.last_otp(&account),
            _ => "000000".to_owned(),
        };
        let mut key = ClientKey::generate().unwrap();
        let verify = format!("/auth/credentials/{credential}/verify");
        let body =
            json!({"type": "EMAIL_OTP", "otp": otp, "clientPublicKey": key.public_key_hex()})
                .to_string();
        assert_processing(&emu.api("POST", &verify, &[], &body));
        mismatch(
            emu.api(
                "POST",
                &verify,
                &[(embedded_wallet_kit::SIGNATURE_HEADER, "stamp")],
                &body,
            ),
            "Service-Wallet-Signature",
        );
        assert_processing(&emu.api("POST", &verify, &[], &body));
        let session = emu.api("POST", &verify, &[], &body);
        session.expect(200);
        if mode == Mode::Strict {
            let opened = Session::open_json(&session.body, &mut key).expect("the session opens");
            assert!(opened.info().id.starts_with("Session:"));
        } else {
            assert!(session.json()["id"].as_str().is_some(), "{}", session.body);
        }
        // Ran once: the next identical request is a new login (run at once with the plan
        // off), whose code is spent (strict).
        plan(&emu, json!({"count": 0}));
        let again = emu.api("POST", &verify, &[], &body);
        assert_eq!(again.json().get("status"), None, "{}", again.body);
        if mode == Mode::Strict {
            again.expect(401);
        }
    }
}

#[test]
fn a_held_login_settles_on_its_own_and_the_identical_resend_gets_its_session() {
    let emu = strict();
    let (account, credential) = emu.new_account_with_email_otp();
    plan(
        &emu,
        json!({"count": 9, "operations": ["auth_credential.verify"], "settleMs": 500}),
    );
    let mut key = ClientKey::generate().unwrap();
    let verify = format!("/auth/credentials/{credential}/verify");
    let body = json!({"type": "EMAIL_OTP", "otp": emu.last_otp(&account), "clientPublicKey": key.public_key_hex()})
        .to_string();
    assert_processing(&emu.api("POST", &verify, &[], &body));
    let sessions = |emu: &Emu| {
        let r = emu.get(&format!("/auth/sessions?accountId={account}"));
        r.expect(200);
        r.json()["data"].as_array().unwrap().clone()
    };
    assert!(sessions(&emu).is_empty(), "no session while processing");
    std::thread::sleep(Duration::from_millis(600));
    let settled = sessions(&emu);
    assert_eq!(settled.len(), 1, "settled on its own: the lookup shows it");
    assert_eq!(settled[0].get("encryptedSessionSigningKey"), None);
    let done = emu.api("POST", &verify, &[], &body);
    done.expect(200);
    let session = Session::open_json(&done.body, &mut key).expect("the settled session opens");
    assert_eq!(settled[0]["id"], session.info().id.as_str());
    // Given once: the next identical request is a new login with a spent code.
    plan(&emu, json!({"count": 0}));
    emu.api("POST", &verify, &[], &body).expect(401);

    // A client that gave up (a reload) signs in again with a new code once the held
    // login settled: a request that differs from a settled login is a new login.
    plan(
        &emu,
        json!({"count": 9, "operations": ["auth_credential.verify"], "settleMs": 300}),
    );
    emu.post(
        &format!("/auth/credentials/{credential}/challenge"),
        &json!({}),
    )
    .expect(200);
    let abandoned = json!({"type": "EMAIL_OTP", "otp": emu.last_otp(&account), "clientPublicKey": ClientKey::generate().unwrap().public_key_hex()})
        .to_string();
    assert_processing(&emu.api("POST", &verify, &[], &abandoned));
    std::thread::sleep(Duration::from_millis(400));
    assert_eq!(sessions(&emu).len(), 2, "the abandoned login settled");
    plan(&emu, json!({"count": 0}));
    emu.post(
        &format!("/auth/credentials/{credential}/challenge"),
        &json!({}),
    )
    .expect(200);
    let mut again = ClientKey::generate().unwrap();
    let fresh = json!({"type": "EMAIL_OTP", "otp": emu.last_otp(&account), "clientPublicKey": again.public_key_hex()})
        .to_string();
    let signed_in = emu.api("POST", &verify, &[], &fresh);
    signed_in.expect(200);
    Session::open_json(&signed_in.body, &mut again).expect("the new login's session opens");
}

/// The export never settles on its own nor stores its answer: only the re-send that
/// delivers the credentials consumes the request id.
#[test]
fn an_export_is_delivered_once_by_the_resend_that_completes_it() {
    let emu = strict();
    let (account, _) = emu.new_account();
    let (mut session, _) = emu.email_login(&account);
    plan(
        &emu,
        json!({"count": 3, "operations": ["wallet.export"], "settleMs": 100}),
    );
    let key = ClientKey::generate().unwrap();
    let path = format!("/internal-accounts/{account}/export");
    let body = json!({"clientPublicKey": key.public_key_hex()}).to_string();
    let first = emu.api("POST", &path, &[], &body);
    first.expect(202);
    let headers = session
        .sign_retry(
            &PendingSignature::from_json(&first.body).unwrap(),
            system_now(),
        )
        .unwrap();
    assert_processing(&resend(&emu, "POST", &path, &headers, &body));
    std::thread::sleep(Duration::from_millis(200));
    emu.get(&format!("/auth/sessions?accountId={account}"))
        .expect(200);
    // Past its settle time, it is still processing: it did not run on its own.
    assert_processing(&resend(&emu, "POST", &path, &headers, &body));
    assert_processing(&resend(&emu, "POST", &path, &headers, &body));
    let done = resend(&emu, "POST", &path, &headers, &body);
    done.expect(200);
    assert!(
        done.json()["encryptedWalletCredentials"].is_string(),
        "{}",
        done.body
    );
    let again = resend(&emu, "POST", &path, &headers, &body);
    assert_eq!(again.status, 401, "delivered once: {}", again.body);
    assert!(again.reason().contains("already used"), "{}", again.body);
}

/// `PATCH /customers/{id}`: strict input checks, then a signed retry by a session of the
/// customer's wallet, which may answer PROCESSING.
#[test]
fn a_customer_update_is_a_checked_signed_retry_that_can_answer_processing() {
    let emu = strict();
    let created = emu.raw("POST", "/emulator/accounts", &[], "{}");
    created.expect(201);
    let account = created.json()["accountId"].as_str().unwrap().to_owned();
    let customer = created.json()["customerId"].as_str().unwrap().to_owned();
    let (mut session, _) = emu.email_login(&account);
    let path = format!("/customers/{customer}");
    for (body, named) in [
        ("{}", "exactly one"),
        (
            r#"{"email":"a@b.co","phoneNumber":"+15550100"}"#,
            "exactly one",
        ),
        (r#"{"email":"nope"}"#, "email"),
        (r#"{"email":7}"#, "email"),
        (r#"{"phoneNumber":"5550100"}"#, "E.164"),
        (r#"{"nickname":"x"}"#, "nickname"),
    ] {
        let r = emu.api("PATCH", &path, &[], body);
        assert_eq!(r.status, 400, "{body}: {}", r.body);
        assert_eq!(r.json()["code"], "INVALID_INPUT", "{}", r.body);
        assert!(r.body.contains(named), "{named}: {}", r.body);
    }
    emu.api(
        "PATCH",
        "/customers/Customer:nobody",
        &[],
        r#"{"email":"a@b.co"}"#,
    )
    .expect(404);
    // Another account's session cannot sign it.
    let (other_account, _) = emu.new_account();
    let (mut other, _) = emu.email_login(&other_account);
    let r = emu.signed(&mut other, "PATCH", &path, r#"{"email":"x@y.co"}"#);
    assert_eq!(r.status, 401, "{}", r.body);

    plan(&emu, json!({"count": 1, "operations": ["customer.update"]}));
    let body = r#"{"phoneNumber":"+15555550100"}"#;
    let headers = signed_retry(&emu, &mut session, "PATCH", &path, body);
    assert_processing(&resend(&emu, "PATCH", &path, &headers, body));
    let done = resend(&emu, "PATCH", &path, &headers, body);
    done.expect(200);
    assert_eq!(done.json()["id"], customer.as_str());
    assert_eq!(done.json()["phoneNumber"], "+15555550100");
    plan(&emu, json!({"count": 0}));
    let email = emu.signed(
        &mut session,
        "PATCH",
        &path,
        r#"{"email":"new@example.com"}"#,
    );
    email.expect(200);
    assert_eq!(email.json()["email"], "new@example.com");
    assert_eq!(email.json()["phoneNumber"], "+15555550100");
}

#[test]
fn get_auth_sessions_lists_the_live_sessions_of_an_account() {
    let emu = strict();
    let r = emu.get("/auth/sessions");
    r.expect(400);
    assert!(r.body.contains("accountId"), "{}", r.body);
    emu.get("/auth/sessions?accountId=InternalAccount:nobody")
        .expect(404);
    let (account, _) = emu.new_account();
    let (mut session, _) = emu.email_login(&account);
    let new_key = ClientKey::generate().unwrap();
    let body = json!({"clientPublicKey": new_key.public_key_hex()}).to_string();
    let path = format!("/auth/sessions/{}/refresh", session.info().id);
    let refreshed = emu.signed(&mut session, "POST", &path, &body);
    refreshed.expect(201);
    let revoke = format!("/auth/sessions/{}", session.info().id);
    emu.signed(&mut session, "DELETE", &revoke, "").expect(204);
    let listed = emu.get(&format!("/auth/sessions?accountId={account}"));
    listed.expect(200);
    let ids: Vec<Value> = listed.json()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].clone())
        .collect();
    assert_eq!(
        ids,
        [refreshed.json()["id"].clone()],
        "the refreshed one, not the revoked one"
    );
}

#[test]
fn the_plan_names_only_known_operations() {
    let emu = strict();
    let r = emu.raw(
        "POST",
        "/emulator/processing",
        &[],
        r#"{"count":1,"operations":["session.explode"]}"#,
    );
    r.expect(400);
    assert!(r.json()["message"]
        .as_str()
        .unwrap()
        .contains("session.explode"));
    let shown = emu.raw("GET", "/emulator/processing", &[], "");
    shown.expect(200);
    assert_eq!(shown.json()["operations"]["wallet.export"], 0);
    assert_eq!(shown.json()["operations"]["auth_credential.challenge"], 0);
}

/// Fast re-sends for tests: the emulator's count, not the waits, is what is under test.
const QUICK: ProcessingPolicy = ProcessingPolicy {
    max_resends: 6,
    first_delay_ms: 5,
    max_delay_ms: 20,
};

#[test]
fn the_kits_flows_resend_through_processing_and_finish_in_both_key_modes() {
    for times in [0u32, 1, 4] {
        let emu = strict();
        let (account, credential) = emu.new_account_with_email_otp();
        let mut session = emu.email_verify(&account, &credential);
        plan(&emu, json!({"count": times}));

        // Sealed refresh, then a client-held one, each through `times` PROCESSING answers.
        let new_key = ClientKey::generate().unwrap();
        let mut flow = wallet::refresh(&session, &new_key).unwrap();
        flow.set_processing_policy(QUICK);
        let refreshed = drive(&emu, &mut session, flow).unwrap();
        refreshed.expect(201);
        let mut new_key = new_key;
        let mut sealed = Session::open_json(&refreshed.body, &mut new_key).unwrap();
        let held_key = ClientKey::generate().unwrap();
        let mut flow = wallet::refresh_client_held(&sealed, &held_key).unwrap();
        flow.set_processing_policy(QUICK);
        drive(&emu, &mut sealed, flow).unwrap().expect(201);

        // An account update and the session's own revocation.
        let mut flow =
            wallet::update_account(&account, r#"{"privacyEnabled":true}"#.into()).unwrap();
        flow.set_processing_policy(QUICK);
        drive(&emu, &mut session, flow).unwrap().expect(200);
        let mut flow = wallet::revoke_session(&session).unwrap();
        flow.set_processing_policy(QUICK);
        drive(&emu, &mut session, flow).unwrap().expect(204);
        let flow = wallet::update_account(&account, r#"{"privacyEnabled":false}"#.into()).unwrap();
        let refused = drive(&emu, &mut session, flow).unwrap_err();
        assert_eq!(
            refused.code(),
            embedded_wallet_kit::ErrorCode::Unauthorized,
            "{times}: revoked"
        );
    }
}

#[test]
fn the_bound_reached_is_still_processing_with_the_request_id_and_sends_nothing_more() {
    let emu = strict();
    plan(
        &emu,
        json!({"count": 50, "operations": ["session.revoke"], "settleMs": 60000}),
    );
    let (account, credential) = emu.new_account_with_email_otp();
    let mut session = emu.email_verify(&account, &credential);
    let mut flow = wallet::revoke_session(&session).unwrap();
    flow.set_processing_policy(QUICK);
    let mut request = flow.first_request();
    let mut sent = 0;
    let err = loop {
        let resp = send(&emu, &request);
        sent += 1;
        let parsed = body(&resp);
        match flow.on_response(&mut session, &view(&resp, &parsed), system_now()) {
            Ok(Next::Send(next)) => request = next,
            Ok(Next::Resend(resend)) => {
                assert_eq!(
                    resend.request, request,
                    "the identical request, never re-stamped"
                );
                request = resend.request;
            }
            Ok(Next::Done) => panic!("done while the service is still processing"),
            Ok(Next::Sign(_)) => unreachable!("on_response signs with the session"),
            Err(e) => break e,
        }
    };
    assert_eq!(err.code(), embedded_wallet_kit::ErrorCode::StillProcessing);
    let request_id = err.service().unwrap().request_id.clone().unwrap();
    assert!(request_id.starts_with("Request:"), "{request_id}");
    assert_eq!(request.header(REQUEST_ID_HEADER), Some(request_id.as_str()));
    // The first leg, the signed retry, and QUICK's 6 re-sends: nothing after the bound.
    assert_eq!(sent, 2 + 6);
}

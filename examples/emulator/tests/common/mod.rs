//! Test harness: an emulator on a free port, a tiny blocking HTTP/1.1 client, and the
//! flows driven with the kit as the client.

#![allow(dead_code)]

use embedded_wallet_kit::system_now;
use std::io::{Read as _, Write as _};
use std::net::TcpStream;
use std::time::Duration;

use base64::Engine as _;
use embedded_wallet_kit::flows::{Next, Request, Response, SignedRetryFlow};
use embedded_wallet_kit::passkey::{RegistrationInput, SoftAuthenticator};
use embedded_wallet_kit::{
    ClientKey, Fields, PendingSignature, Result, Session, REQUEST_ID_HEADER, SIGNATURE_HEADER,
};
use emulator::{Config, Mode};
use serde_json::{json, Map, Value};

pub struct Emu {
    pub port: u16,
    pub origin: String,
}

#[derive(Debug)]
pub struct Resp {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Resp {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {:?}", self.body))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// The 401 `reason`.
    pub fn reason(&self) -> String {
        self.json()["reason"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    }

    #[track_caller]
    pub fn expect(&self, status: u16) -> &Self {
        assert_eq!(self.status, status, "body: {}", self.body);
        self
    }
}

pub fn start(mode: Mode) -> Emu {
    start_with(mode, |_| {})
}

pub fn start_with(mode: Mode, tweak: impl FnOnce(&mut Config)) -> Emu {
    let mut config = Config {
        mode,
        port: 0,
        quiet: true,
        ..Config::default()
    };
    tweak(&mut config);
    let addr = emulator::spawn(config).expect("emulator starts");
    Emu {
        port: addr.port(),
        origin: format!("http://localhost:{}", addr.port()),
    }
}

pub fn basic() -> String {
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode("emulator-token:emulator-secret")
    )
}

fn decode_chunked(mut body: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    loop {
        let line_end = body.windows(2).position(|w| w == b"\r\n").unwrap();
        let size = usize::from_str_radix(
            std::str::from_utf8(&body[..line_end])
                .unwrap()
                .split(';')
                .next()
                .unwrap()
                .trim(),
            16,
        )
        .unwrap();
        body = &body[line_end + 2..];
        if size == 0 {
            return out;
        }
        out.extend_from_slice(&body[..size]);
        body = &body[size + 2..];
    }
}

impl Emu {
    /// A request without Basic auth.
    pub fn raw(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Resp {
        let mut stream = TcpStream::connect(("127.0.0.1", self.port)).unwrap();
        stream
            .set_read_timeout(Some(Duration::from_secs(20)))
            .unwrap();
        let mut head = format!(
            "{method} {path} HTTP/1.1\r\nHost: localhost:{}\r\nConnection: close\r\nContent-Length: {}\r\n",
            self.port,
            body.len()
        );
        if !body.is_empty() {
            head.push_str("Content-Type: application/json\r\n");
        }
        for (k, v) in headers {
            head.push_str(&format!("{k}: {v}\r\n"));
        }
        head.push_str("\r\n");
        stream.write_all(head.as_bytes()).unwrap();
        stream.write_all(body.as_bytes()).unwrap();
        let mut raw = Vec::new();
        stream.read_to_end(&mut raw).unwrap();
        let split = raw
            .windows(4)
            .position(|w| w == b"\r\n\r\n")
            .expect("response head");
        let head = std::str::from_utf8(&raw[..split]).unwrap();
        let mut lines = head.split("\r\n");
        let status: u16 = lines
            .next()
            .unwrap()
            .split(' ')
            .nth(1)
            .unwrap()
            .parse()
            .unwrap();
        let headers: Vec<(String, String)> = lines
            .filter_map(|l| l.split_once(':'))
            .map(|(k, v)| (k.trim().to_owned(), v.trim().to_owned()))
            .collect();
        let mut body = raw[split + 4..].to_vec();
        if headers
            .iter()
            .any(|(k, v)| k.eq_ignore_ascii_case("transfer-encoding") && v.contains("chunked"))
        {
            body = decode_chunked(&body);
        }
        Resp {
            status,
            headers,
            body: String::from_utf8(body).unwrap(),
        }
    }

    /// A request with Basic auth.
    pub fn api(&self, method: &str, path: &str, headers: &[(&str, &str)], body: &str) -> Resp {
        let auth = basic();
        let mut all = vec![("Authorization", auth.as_str())];
        all.extend_from_slice(headers);
        self.raw(method, path, &all, body)
    }

    pub fn post(&self, path: &str, body: &Value) -> Resp {
        self.api("POST", path, &[], &body.to_string())
    }

    pub fn get(&self, path: &str) -> Resp {
        self.api("GET", path, &[], "")
    }

    /// `POST /emulator/accounts`: (accountId, email).
    pub fn new_account(&self) -> (String, String) {
        let r = self.raw("POST", "/emulator/accounts", &[], "{}");
        r.expect(201);
        let v = r.json();
        (
            v["accountId"].as_str().unwrap().to_owned(),
            v["email"].as_str().unwrap().to_owned(),
        )
    }

    pub fn config(&self) -> Value {
        self.raw("GET", "/emulator/config", &[], "").json()
    }

    /// The last OTP emailed for the account.
    pub fn last_otp(&self, account: &str) -> String {
        let r = self.raw(
            "GET",
            &format!("/emulator/outbox?accountId={account}"),
            &[],
            "",
        );
        let list = r.json();
        list.as_array()
            .and_then(|l| l.last())
            .and_then(|m| m["otp"].as_str())
            .unwrap_or_else(|| panic!("no OTP in the outbox: {}", r.body))
            .to_owned()
    }

    pub fn balance(&self, account: &str) -> i64 {
        let list = self.get("/internal-accounts?limit=100").json();
        list["data"]
            .as_array()
            .unwrap()
            .iter()
            .find(|a| a["id"] == account)
            .unwrap()["balance"]["amount"]
            .as_i64()
            .unwrap()
    }

    /// A new account with an EMAIL_OTP credential: (account, credential id).
    pub fn new_account_with_email_otp(&self) -> (String, String) {
        let (account, _) = self.new_account();
        let cred = self.post(
            "/auth/credentials",
            &json!({"type": "EMAIL_OTP", "accountId": account}),
        );
        cred.expect(201);
        (account, cred.json()["id"].as_str().unwrap().to_owned())
    }

    /// EMAIL_OTP create (first credential) → outbox → verify → Session (strict).
    pub fn email_login(&self, account: &str) -> (Session, String) {
        let cred = self.post(
            "/auth/credentials",
            &json!({"type": "EMAIL_OTP", "accountId": account}),
        );
        cred.expect(201);
        let cred_id = cred.json()["id"].as_str().unwrap().to_owned();
        let session = self.email_verify(account, &cred_id);
        (session, cred_id)
    }

    /// Verify an EMAIL_OTP credential with the last OTP and a fresh ClientKey.
    pub fn email_verify(&self, account: &str, cred_id: &str) -> Session {
        let otp = self.last_otp(account);
        let mut key = ClientKey::generate().unwrap();
        let r = self.post(
            &format!("/auth/credentials/{cred_id}/verify"),
            &json!({"type": "EMAIL_OTP", "otp": otp, "clientPublicKey": key.public_key_hex()}),
        );
        r.expect(200);
        Session::open_json(&r.body, &mut key).expect("the sealed session key opens")
    }

    /// Re-authentication: challenge (a new OTP), then verify with it.
    pub fn email_verify_after_challenge(&self, account: &str, cred_id: &str) -> Session {
        let r = self.post(
            &format!("/auth/credentials/{cred_id}/challenge"),
            &json!({}),
        );
        r.expect(200);
        self.email_verify(account, cred_id)
    }

    /// The two legs of a signed retry, signed by `session`.
    pub fn signed(&self, session: &mut Session, method: &str, path: &str, body: &str) -> Resp {
        let first = self.api(method, path, &[], body);
        first.expect(202);
        let pending = PendingSignature::from_json(&first.body).unwrap();
        let headers = session.sign_retry(&pending, system_now()).unwrap();
        self.api(
            method,
            path,
            &[
                (SIGNATURE_HEADER, &headers.signature),
                (REQUEST_ID_HEADER, &headers.request_id),
            ],
            body,
        )
    }

    /// Retry headers for a 202 body, with an explicit signature.
    pub fn retry_with(
        &self,
        method: &str,
        path: &str,
        signature: &str,
        request_id: &str,
        body: &str,
    ) -> Resp {
        self.api(
            method,
            path,
            &[
                (SIGNATURE_HEADER, signature),
                (REQUEST_ID_HEADER, request_id),
            ],
            body,
        )
    }
}

/// A registration on `authenticator` for `account`, with a fresh challenge.
pub fn register_body(
    authenticator: &mut SoftAuthenticator,
    account: &str,
    nickname: &str,
) -> Value {
    let challenge =
        embedded_wallet_kit::encoding::base64url_encode(&emulator::util::random_bytes::<32>());
    let registration = RegistrationInput {
        challenge: Some(challenge.clone()),
        rp_id: Some("localhost".into()),
        rp_name: Some("Emulator tests".into()),
        user_id: Some(account.to_owned()),
        user_name: Some("user@example.com".into()),
        ..Default::default()
    }
    .validate()
    .unwrap();
    let a = authenticator.register(&registration).unwrap();
    json!({
        "type": "PASSKEY",
        "accountId": account,
        "nickname": nickname,
        "challenge": challenge,
        "attestation": {
            "credentialId": a.credential_id,
            "clientDataJson": a.client_data_json,
            "attestationObject": a.attestation_object,
            "transports": a.transports,
        },
    })
}

/// The verify body for an assertion.
pub fn assertion_body(a: &embedded_wallet_kit::passkey::Assertion) -> Value {
    let mut assertion = json!({
        "credentialId": a.credential_id,
        "clientDataJson": a.client_data_json,
        "authenticatorData": a.authenticator_data,
        "signature": a.signature,
    });
    if let Some(h) = &a.user_handle {
        assertion["userHandle"] = json!(h);
    }
    json!({"type": "PASSKEY", "assertion": assertion})
}

/// The decoded JSON of a stamp header.
pub fn stamp_json(header: &str) -> Value {
    let bytes = embedded_wallet_kit::encoding::base64url_decode(header).unwrap();
    serde_json::from_slice(&bytes).unwrap()
}

/// Asserts `text` is `<Kind>:<uuid v4>`.
#[track_caller]
pub fn assert_id(text: &str, kind: &str) {
    let uuid = text
        .strip_prefix(kind)
        .and_then(|r| r.strip_prefix(':'))
        .unwrap_or_else(|| panic!("{text} is not a {kind} id"));
    let parts: Vec<&str> = uuid.split('-').collect();
    assert_eq!(
        parts.iter().map(|p| p.len()).collect::<Vec<_>>(),
        [8, 4, 4, 4, 12],
        "{text}"
    );
    assert!(parts[2].starts_with('4'), "{text} is not a v4 uuid");
    assert!(uuid.bytes().all(|c| c == b'-' || c.is_ascii_hexdigit()));
}

// ---- the kit's sans-IO flows over this client ----------------------------------------

/// The transport: the integrator backend's job (it adds Basic auth).
pub fn send(emu: &Emu, request: &Request) -> Resp {
    let headers: Vec<(&str, &str)> = request
        .headers
        .iter()
        .map(|(k, v)| (k.as_str(), v.as_str()))
        .collect();
    emu.api(
        &request.method,
        &request.path,
        &headers,
        request.body.as_deref().unwrap_or(""),
    )
}

pub fn body(resp: &Resp) -> Option<Map<String, Value>> {
    serde_json::from_str(&resp.body).ok()
}

pub fn view<'a>(resp: &'a Resp, body: &'a Option<Map<String, Value>>) -> Response<'a> {
    Response {
        status: resp.status,
        retry_after: resp.header("retry-after"),
        body: body.as_ref().map(|b| b as &dyn Fields),
    }
}

/// Drives a signed-retry flow to the end; returns the last response.
pub fn drive(emu: &Emu, session: &mut Session, mut flow: SignedRetryFlow) -> Result<Resp> {
    let mut request = flow.first_request();
    loop {
        let resp = send(emu, &request);
        let parsed = body(&resp);
        match flow.on_response(session, &view(&resp, &parsed), system_now())? {
            Next::Send(next) => request = next,
            Next::Resend(resend) => {
                std::thread::sleep(std::time::Duration::from_millis(resend.delay_ms.into()));
                request = resend.request;
            }
            Next::Done => return Ok(resp),
            Next::Sign(_) => unreachable!("on_response signs with the session"),
        }
    }
}

/// The wallet operations with a `ClientKey` or a `Session` in hand, as the tests drive
/// them: each is the kit's one entry point, [`Operation::flow`], over the key's or the
/// session's public parts (the key checked unused first, as a client would).
pub mod wallet {
    #[allow(unused_imports)]
    pub use embedded_wallet_kit::flows::wallet::{open_client_held_session, open_session};
    use embedded_wallet_kit::flows::wallet::{KeyMode, KeyRef, Operation};
    use embedded_wallet_kit::flows::{Request, SignedRetryFlow};
    use embedded_wallet_kit::{ClientKey, Result, Session};

    fn flow(operation: Operation<'_>, mode: KeyMode) -> Result<SignedRetryFlow> {
        operation.flow(mode)
    }

    fn with_key<T>(key: &ClientKey, f: impl FnOnce(KeyRef<'_>) -> Result<T>) -> Result<T> {
        key.check_unused()?;
        let (public_key_hex, compressed_public_key_hex) =
            (key.public_key_hex(), key.compressed_public_key_hex());
        f(KeyRef {
            public_key_hex: &public_key_hex,
            compressed_public_key_hex: &compressed_public_key_hex,
        })
    }

    pub fn create_email_otp(account_id: &str) -> Result<Request> {
        flow(Operation::CreateEmailOtp { account_id }, KeyMode::Sealed).map(|f| f.first_request())
    }

    pub fn add_credential(body: String) -> SignedRetryFlow {
        flow(Operation::AddCredential { body: &body }, KeyMode::Sealed).unwrap()
    }

    pub fn challenge(credential_id: &str, key: Option<&ClientKey>) -> Result<Request> {
        fn plain(credential_id: &str, key: Option<KeyRef<'_>>) -> Result<Request> {
            let op = Operation::Challenge { credential_id, key };
            flow(op, KeyMode::Sealed).map(|f| f.first_request())
        }
        match key {
            Some(key) => with_key(key, |k| plain(credential_id, Some(k))),
            None => plain(credential_id, None),
        }
    }

    pub fn verify_email_otp(credential_id: &str, otp: &str, key: &ClientKey) -> Result<Request> {
        with_key(key, |key| {
            let op = Operation::VerifyEmailOtp {
                credential_id,
                otp,
                key,
            };
            flow(op, KeyMode::Sealed).map(|f| f.first_request())
        })
    }

    pub fn verify_oauth(credential_id: &str, oidc_token: &str, key: &ClientKey) -> Result<Request> {
        with_key(key, |key| {
            let op = Operation::VerifyOauth {
                credential_id,
                oidc_token,
                key,
            };
            flow(op, KeyMode::Sealed).map(|f| f.first_request())
        })
    }

    pub fn refresh(session: &Session, new_key: &ClientKey) -> Result<SignedRetryFlow> {
        refresh_in(session, new_key, KeyMode::Sealed)
    }

    pub fn refresh_client_held(session: &Session, new_key: &ClientKey) -> Result<SignedRetryFlow> {
        refresh_in(session, new_key, KeyMode::ClientHeld)
    }

    fn refresh_in(
        session: &Session,
        new_key: &ClientKey,
        mode: KeyMode,
    ) -> Result<SignedRetryFlow> {
        with_key(new_key, |new_key| {
            flow(
                Operation::Refresh {
                    session: session.into(),
                    new_key,
                },
                mode,
            )
        })
    }

    pub fn revoke_session(session: &Session) -> Result<SignedRetryFlow> {
        flow(
            Operation::RevokeSession {
                session: session.into(),
            },
            KeyMode::Sealed,
        )
    }

    pub fn revoke_credential(session: &Session, credential_id: &str) -> Result<SignedRetryFlow> {
        let op = Operation::RevokeCredential {
            session: session.into(),
            credential_id,
        };
        flow(op, KeyMode::Sealed)
    }

    pub fn export_wallet(account_id: &str, key: &ClientKey) -> Result<SignedRetryFlow> {
        with_key(key, |key| {
            flow(Operation::ExportWallet { account_id, key }, KeyMode::Sealed)
        })
    }

    pub fn update_account(account_id: &str, patch: String) -> Result<SignedRetryFlow> {
        flow(
            Operation::UpdateAccount {
                account_id,
                patch: &patch,
            },
            KeyMode::Sealed,
        )
    }
}

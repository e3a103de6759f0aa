//! The generic signed-retry driver, sans-IO: it says what to send next and
//! reads what came back; the caller's transport does the sending. First call → 202 →
//! sign → retry with the same method, path and body bytes; repeated 202s (multi-leg
//! operations) are signed in turn; a 202 that expired before it could be signed
//! restarts the request once; a `200 PROCESSING` is answered by re-sending the identical
//! request (`processing`); anything else unexpected is a typed error.

use super::http::{expect_result, response_error, Request, Response};
use super::processing::{is_processing, ProcessingPolicy, Resend, Resends};
use crate::error::{Error, ErrorCode, Result};
use crate::message::{PendingSignature, SignedRetryHeaders, REQUEST_ID_HEADER, SIGNATURE_HEADER};
use crate::prelude::*;
use crate::session::Session;
use crate::timestamp::UnixMillis;

/// More 202s than any operation has legs means something is wrong: stop.
pub(crate) const MAX_SIGNED_LEGS: u8 = 8;
// The error message spells the bound out (no formatting code in the wasm for it).
const _: () = assert!(MAX_SIGNED_LEGS == 8);

/// What to do next in a [`SignedRetryFlow`]. [`SignedRetryFlow::on_response`] signs with
/// the session in hand, so it never answers `Sign`; [`SignedRetryFlow::next_step`] leaves
/// the signing to the caller, so it answers `Sign` where the other answers `Send`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Next {
    /// Send this request and report its response.
    Send(Request),
    /// Sign this 202 (its payload already checked) with the session, then hand the
    /// result to [`SignedRetryFlow::after_signing`] for the request to send.
    Sign(PendingSignature),
    /// The service is still processing: wait, then send the identical request again.
    Resend(Resend),
    /// The operation succeeded; the last response is its result.
    Done,
}

/// One signed-retry operation in progress.
#[derive(Clone, Debug)]
pub struct SignedRetryFlow {
    request: Request,
    legs: u8,
    restarted: bool,
    /// The signed retry last built: what a PROCESSING answer is answered with.
    last_signed: Option<Request>,
    resends: Resends,
    /// Both hex forms of the key a refresh authorizes, when the payload must name it.
    target_key: Option<[String; 2]>,
}

impl SignedRetryFlow {
    /// Starts an operation: [`SignedRetryFlow::first_request`] is sent first.
    pub fn new(request: Request) -> Self {
        Self {
            request,
            legs: 0,
            restarted: false,
            last_signed: None,
            resends: Resends::default(),
            target_key: None,
        }
    }

    /// How often and how long a PROCESSING answer is answered by re-sending
    /// ([`ProcessingPolicy::default`] unless set).
    pub fn set_processing_policy(&mut self, policy: ProcessingPolicy) {
        self.resends = Resends::with_policy(policy);
    }

    /// Refuses to sign a payload unless it is a JSON object naming `key` as every
    /// `targetPublicKey` in it, in any letter case (the refresh payload names the key it
    /// authorizes: signing one that names another key would hand the session to whoever
    /// holds that key; a payload that cannot be read cannot be checked).
    pub fn expecting_target_key(self, key: &crate::ClientKey) -> Self {
        self.expecting_target_keys(&key.public_key_hex(), &key.compressed_public_key_hex())
    }

    /// [`SignedRetryFlow::expecting_target_key`] from the key's two hex forms.
    pub fn expecting_target_keys(mut self, uncompressed: &str, compressed: &str) -> Self {
        self.target_key = Some([uncompressed.to_owned(), compressed.to_owned()]);
        self
    }

    fn check_target_key(&self, payload: &str) -> Result<()> {
        let Some(expected) = &self.target_key else {
            return Ok(());
        };
        let inspection = crate::inspect::inspect_payload(payload)
            .map_err(|e| Error::new(ErrorCode::InvalidPendingSignature, e.message()))?;
        if !inspection.json {
            return Err(Error::new(
                ErrorCode::InvalidPendingSignature,
                "the payload to sign is not a JSON object, so its key cannot be checked: not signed",
            ));
        }
        let named = inspection.target_public_keys;
        if named.is_empty() {
            return Err(Error::new(
                ErrorCode::InvalidPendingSignature,
                "the payload to sign does not name the new key (no targetPublicKey): not signed",
            ));
        }
        if named
            .iter()
            .all(|k| expected.iter().any(|e| e.eq_ignore_ascii_case(k)))
        {
            Ok(())
        } else {
            Err(Error::new(
                ErrorCode::InvalidPendingSignature,
                "the payload to sign authorizes a key other than the new ClientKey: not signed",
            ))
        }
    }

    /// The first call: the request as given, without signature headers.
    pub fn first_request(&self) -> Request {
        self.request.clone()
    }

    /// Reads a response and says what to send next, signing 202s with `session` at `now`.
    pub fn on_response(
        &mut self,
        session: &mut Session,
        response: &Response<'_>,
        now: UnixMillis,
    ) -> Result<Next> {
        match self.next_step(response)? {
            Next::Sign(pending) => self
                .after_signing(session.sign_retry(&pending, now))
                .map(Next::Send),
            next => Ok(next),
        }
    }

    /// Reads a response and says what to do next, leaving a 202's signature to the
    /// caller (whose session may live elsewhere, e.g. in another wasm module). The 202
    /// is parsed, bounded and its payload checked here; only the signing is left out.
    pub fn next_step(&mut self, response: &Response<'_>) -> Result<Next> {
        if is_processing(response) {
            return self.resend(response).map(Next::Resend);
        }
        match response.status {
            202 => {}
            200..=299 => return Ok(Next::Done),
            _ => return Err(response_error(response)),
        }
        self.legs += 1;
        if self.legs > MAX_SIGNED_LEGS {
            return Err(Error::new(
                ErrorCode::ServiceError,
                "the service asked for more than 8 signatures for one request",
            ));
        }
        let pending = super::http::pending_signature(response)?;
        self.check_target_key(&pending.payload_to_sign)?;
        Ok(Next::Sign(pending))
    }

    /// Reads the response to a request sent without a session (a login step): a 202 is
    /// an error then, not something to sign; `Some` re-sends a request still processing.
    pub fn on_unsigned_response(&mut self, response: &Response<'_>) -> Result<Option<Resend>> {
        if is_processing(response) {
            return self.resend(response).map(Some);
        }
        expect_result(response).map(|()| None)
    }

    /// The identical request again: the signed retry last built, or the first request.
    fn resend(&mut self, response: &Response<'_>) -> Result<Resend> {
        self.resends
            .after(self.last_signed.as_ref(), &self.request, response)
    }

    /// The request after a [`Next::Sign`]: the retry with both headers, or, when the 202
    /// expired before it could be signed, the first request again (once).
    pub fn after_signing(&mut self, signed: Result<SignedRetryHeaders>) -> Result<Request> {
        self.resends.reset();
        match signed {
            Ok(headers) => {
                let retry = self
                    .request
                    .clone()
                    .with_header(SIGNATURE_HEADER, headers.signature)
                    .with_header(REQUEST_ID_HEADER, headers.request_id);
                self.last_signed = Some(retry.clone());
                Ok(retry)
            }
            Err(e) if e.code() == ErrorCode::RequestExpired && !self.restarted => {
                // The window closed before we could sign (a slow network or a sleeping
                // tab): ask again once, for a fresh requestId.
                self.restarted = true;
                self.legs = 0;
                self.last_signed = None;
                Ok(self.first_request())
            }
            Err(e) => Err(e),
        }
    }
}

#[cfg(all(test, feature = "json"))]
mod tests {
    use super::*;
    use crate::bundle::seal;
    use crate::client_key::ClientKey;
    use crate::fields::test_support::TestFields;
    use crate::public_key::compressed_hex;
    use crate::stamp::verify_stamp;
    use p256::SecretKey;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const NOW: i64 = 1_760_356_800_000;

    fn respond(status: u16, body: Option<&TestFields>) -> Response<'_> {
        Response {
            status,
            retry_after: None,
            body: body.map(|b| b as &dyn crate::Fields),
        }
    }

    fn session() -> (Session, String) {
        let secret = SecretKey::from_slice(&[0x31; 32]).unwrap();
        let mut key = ClientKey::generate().unwrap();
        let bundle = seal(key.public_key(), &secret.to_bytes()).unwrap();
        let resp = TestFields::default()
            .with("id", "Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b")
            .with("accountId", "InternalAccount:1")
            .with("type", "EMAIL_OTP")
            .with("expiresAt", "2025-10-13T12:15:00Z")
            .with("encryptedSessionSigningKey", &bundle);
        let s = Session::open(&resp, &mut key).unwrap();
        (s, compressed_hex(&secret.public_key()))
    }

    fn pending(n: u32, expires: &str) -> TestFields {
        TestFields::default()
            .with("payloadToSign", &format!("{{\"leg\":{n}}}"))
            .with(
                "requestId",
                &format!("Request:00000000-0000-4000-8000-{n:012}"),
            )
            .with("expiresAt", expires)
    }

    /// A fake service: a 202 for every unsigned call and for signed ones until `legs`
    /// were issued, each retry's stamp verified; then 201.
    fn run(legs: u32, expiries: &[&str]) -> Result<(Vec<Request>, u32)> {
        let (mut s, public) = session();
        let original = Request::new(
            "DELETE",
            "/auth/sessions/Session:x",
            Some("{\"a\": 1}".into()),
        );
        let mut flow = SignedRetryFlow::new(original.clone());
        let mut sent = vec![flow.first_request()];
        let mut issued = 0u32;
        let empty = TestFields::default();
        loop {
            let req = sent.last().unwrap().clone();
            assert_eq!(req.body, original.body, "every leg repeats the body bytes");
            assert_eq!(
                (req.method.as_str(), req.path.as_str()),
                ("DELETE", "/auth/sessions/Session:x")
            );
            if let Some(stamp) = req.header(SIGNATURE_HEADER) {
                let payload = format!("{{\"leg\":{issued}}}");
                let verified = verify_stamp(stamp, &payload).unwrap();
                assert_eq!(verified.public_key, public);
                assert_eq!(
                    req.header(REQUEST_ID_HEADER).unwrap(),
                    format!("Request:00000000-0000-4000-8000-{issued:012}")
                );
            }
            let body;
            let response = if req.header(SIGNATURE_HEADER).is_none() || issued < legs {
                issued += 1;
                let expires = expiries
                    .get(issued as usize - 1)
                    .copied()
                    .unwrap_or("2025-10-13T12:05:00Z");
                body = pending(issued, expires);
                Response {
                    status: 202,
                    retry_after: None,
                    body: Some(&body),
                }
            } else {
                Response {
                    status: 201,
                    retry_after: None,
                    body: Some(&empty),
                }
            };
            match flow.on_response(&mut s, &response, NOW)? {
                Next::Send(next) => sent.push(next),
                Next::Resend(resend) => sent.push(resend.request),
                Next::Done => return Ok((sent, issued)),
                Next::Sign(_) => unreachable!("on_response signs with the session"),
            }
        }
    }

    #[test]
    fn processing_is_answered_by_the_identical_signed_retry_never_a_new_signature() {
        let (mut s, _) = session();
        let mut flow = SignedRetryFlow::new(Request::new(
            "DELETE",
            "/auth/sessions/Session:x",
            Some("{}".into()),
        ));
        let leg = pending(1, "2025-10-13T12:05:00Z");
        let processing = TestFields::default().with("status", "PROCESSING");
        let Next::Send(signed) = flow
            .on_response(&mut s, &respond(202, Some(&leg)), NOW)
            .unwrap()
        else {
            panic!("a 202 is signed");
        };
        for attempt in 1..=3u16 {
            let Next::Resend(resend) = flow
                .on_response(&mut s, &respond(200, Some(&processing)), NOW)
                .unwrap()
            else {
                panic!("PROCESSING is re-sent");
            };
            assert_eq!(
                resend.request, signed,
                "byte for byte, with the same signature"
            );
            assert_eq!(resend.attempt, attempt);
            assert_eq!(
                resend.request_id.as_deref(),
                Some("Request:00000000-0000-4000-8000-000000000001")
            );
        }
        let done = TestFields::default().with("id", "x");
        assert_eq!(
            flow.on_response(&mut s, &respond(204, Some(&done)), NOW)
                .unwrap(),
            Next::Done
        );
        // Without a session (a login step), PROCESSING re-sends the first request.
        let mut login = SignedRetryFlow::new(Request::new("POST", "/x", Some("{}".into())));
        let resend = login
            .on_unsigned_response(&respond(200, Some(&processing)))
            .unwrap()
            .unwrap();
        assert_eq!(resend.request, login.first_request());
        assert_eq!(resend.request_id, None);
        assert_eq!(
            login.on_unsigned_response(&respond(200, Some(&done))),
            Ok(None)
        );
    }

    #[test]
    fn one_and_several_legs() {
        let (sent, issued) = run(1, &[]).unwrap();
        assert_eq!((sent.len(), issued), (2, 1));
        assert!(sent[0].header(SIGNATURE_HEADER).is_none());
        let (sent, issued) = run(3, &[]).unwrap();
        assert_eq!((sent.len(), issued), (4, 3));
    }

    #[test]
    fn an_expired_202_restarts_once() {
        // The first 202 expired before it arrived: the request is sent again unsigned.
        let (sent, issued) = run(2, &["2025-10-13T11:00:00Z"]).unwrap();
        assert_eq!(issued, 2);
        assert!(
            sent[1].header(SIGNATURE_HEADER).is_none(),
            "restart resends the first call"
        );
        assert!(sent[2].header(SIGNATURE_HEADER).is_some());
        // Twice expired: give up with the typed error.
        let err = run(2, &["2025-10-13T11:00:00Z", "2025-10-13T11:00:00Z"]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::RequestExpired);
    }

    #[test]
    fn refresh_payloads_must_name_the_new_key() {
        let (mut s, _) = session();
        let new_key = ClientKey::generate().unwrap();
        let flow = || {
            SignedRetryFlow::new(Request::new("POST", "/r", Some("{}".into())))
                .expecting_target_key(&new_key)
        };
        let pending = |payload: &str| {
            TestFields::default()
                .with("payloadToSign", payload)
                .with(
                    "requestId",
                    &format!("Request:00000000-0000-4000-8000-{:012}", payload.len()),
                )
                .with("expiresAt", "2025-10-13T12:05:00Z")
        };
        let ok = format!(
            r#"{{"parameters":{{"targetPublicKey" : "{}"}},"type":"ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2"}}"#,
            new_key.public_key_hex().to_uppercase()
        );
        let other = ClientKey::generate().unwrap().public_key_hex();
        let cases = [
            (ok.clone(), None),
            (
                format!(
                    r#"{{"parameters":{{"targetPublicKey":"{}"}}}}"#,
                    new_key.compressed_public_key_hex()
                ),
                None,
            ),
            (
                format!(
                    r#"{{"parameters":{{"TARGETPUBLICKEY":"{}"}}}}"#,
                    new_key.public_key_hex()
                ),
                None,
            ),
            // What cannot be read cannot be checked.
            ("bm90IGpzb24=".to_owned(), Some("not a JSON object")),
            (
                format!(r#"[{{"targetPublicKey":"{}"}}]"#, new_key.public_key_hex()),
                Some("not a JSON object"),
            ),
            (
                format!(
                    r#"{{"parameters":{{"targetPublicKey":"{}"}}"#,
                    new_key.public_key_hex()
                ),
                Some("not valid JSON"),
            ),
            // Ours, then another key a case-insensitive reader takes instead.
            (
                format!(
                    r#"{{"parameters":{{"targetPublicKey":"{}","TargetPublicKey":"{other}"}}}}"#,
                    new_key.public_key_hex()
                ),
                Some("letter case"),
            ),
            (
                format!(r#"{{"parameters":{{"TargetPublicKey":"{other}"}}}}"#),
                Some("other than"),
            ),
            (
                format!(r#"{{"parameters":{{"targetPublicKey":"{other}"}}}}"#),
                Some("other than"),
            ),
            (
                format!(
                    r#"{{"a":{{"targetPublicKey":"{}"}},"b":{{"targetPublicKey":"{other}"}}}}"#,
                    new_key.public_key_hex()
                ),
                Some("other than"),
            ),
            (r#"{"parameters":{}}"#.to_owned(), Some("does not name")),
        ];
        for (payload, refused) in cases {
            let body = pending(&payload);
            let result = flow().on_response(&mut s, &respond(202, Some(&body)), NOW);
            match refused {
                None => assert!(matches!(result.unwrap(), Next::Send(_)), "{payload}"),
                Some(needle) => {
                    let err = result.unwrap_err();
                    assert_eq!(err.code(), ErrorCode::InvalidPendingSignature);
                    assert!(err.message().contains(needle), "{payload}: {err}");
                }
            }
        }
    }

    #[test]
    fn too_many_legs_stop() {
        let err = run(u32::from(MAX_SIGNED_LEGS) + 1, &[]).unwrap_err();
        assert_eq!(err.code(), ErrorCode::ServiceError);
    }

    #[test]
    fn errors_and_bad_202s() {
        let (mut s, _) = session();
        let mut flow = SignedRetryFlow::new(Request::new("POST", "/x", None));
        let reason = TestFields::default().with("reason", "WALLET_SIGNATURE_BODY_MISMATCH");
        let err = flow
            .on_response(&mut s, &respond(401, Some(&reason)), NOW)
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Unauthorized);
        assert!(err.message().contains("WALLET_SIGNATURE_BODY_MISMATCH"));
        let err = flow
            .on_response(&mut s, &respond(202, None), NOW)
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidPendingSignature);
        let bad = TestFields::default().with("payloadToSign", "p");
        let err = flow
            .on_response(&mut s, &respond(202, Some(&bad)), NOW)
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidPendingSignature);
        // The same requestId twice is refused by the session, not signed again.
        let p = pending(1, "2025-10-13T12:05:00Z");
        assert!(matches!(
            flow.on_response(&mut s, &respond(202, Some(&p)), NOW)
                .unwrap(),
            Next::Send(_)
        ));
        let err = flow
            .on_response(&mut s, &respond(202, Some(&p)), NOW)
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::RequestAlreadySigned);
        // The signed retry refused for a missing permission (quote creation without
        // TRANSACT): FORBIDDEN with the service's code and reason.
        let denied = TestFields::default()
            .with("code", "FORBIDDEN")
            .with("reason", "Missing TRANSACT permission");
        let err = flow
            .on_response(&mut s, &respond(403, Some(&denied)), NOW)
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Forbidden);
        let service = err.service().unwrap();
        assert_eq!(
            (
                service.status,
                service.service_code.as_deref(),
                service.reason.as_deref()
            ),
            (403, Some("FORBIDDEN"), Some("Missing TRANSACT permission"))
        );
    }
}

//! The encrypted EMAIL_OTP / SMS_OTP login of newer deployments (research
//! notes §5), sans-IO: `/challenge` returns `otpEncryptionTargetBundle`; the client seals
//! `{otp_code, public_key}` to it ([`crate::enclave::encrypt_otp`]); verify answers 202, whose
//! payload the TEK stamps; the retry answers 200 with a session that carries no bundle:
//! the TEK is the session key.

use super::http::{body_string, expect_success, response_error, Request, Response};
use super::processing::{is_processing, ProcessingPolicy, Resend, Resends};
use super::wallet::path_id;
use crate::client_key::ClientKey;
use crate::enclave::sign_with_tek;
use crate::error::{Error, ErrorCode, Result};
use crate::json::json_object;
use crate::message::{PendingSignature, SignedRetryHeaders, REQUEST_ID_HEADER, SIGNATURE_HEADER};
use crate::prelude::*;
use crate::session::Session;
use crate::timestamp::UnixMillis;

/// The `otpEncryptionTargetBundle` of a `/challenge` response (JSON text, to verify and
/// seal to with [`crate::enclave::encrypt_otp`]).
pub fn target_bundle(response: &Response<'_>) -> Result<String> {
    expect_success(response)?;
    body_string(response, "otpEncryptionTargetBundle").ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidBundle,
            "the challenge response has no otpEncryptionTargetBundle (a deployment without the encrypted OTP flow?)",
        )
    })
}

/// What to do next in an [`OtpLogin`]. [`OtpLogin::on_response`] has the TEK in hand: it
/// answers `Send`, `Resend` or `Session`. [`OtpLogin::next_step`] leaves the TEK to the
/// caller (it may live elsewhere, e.g. in the signing wasm module): it answers `Sign`,
/// `Resend` or `Done`.
#[derive(Debug)]
pub enum OtpNext {
    /// Send this request and report its response.
    Send(Request),
    /// Stamp this 202 with the TEK (it is unexpired and checked), then hand the headers
    /// to [`OtpLogin::after_signing`] for the request to send.
    Sign(PendingSignature),
    /// The service is still processing: wait, then send the identical request again.
    Resend(Resend),
    /// The verify succeeded: open its body with the TEK ([`Session::from_client_key`]).
    Done,
    /// Logged in: the TEK became this session's key.
    Session(Session),
}

/// One encrypted-OTP verify in progress.
pub struct OtpLogin {
    request: Request,
    credential_id: String,
    signed: bool,
    /// The signed retry, once built: what a PROCESSING answer is answered with.
    last_signed: Option<Request>,
    resends: Resends,
}

impl core::fmt::Debug for OtpLogin {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        // The body holds only the sealed code; still, nothing of it is printed.
        f.debug_struct("OtpLogin")
            .field("credential_id", &self.credential_id)
            .field("signed", &self.signed)
            .finish_non_exhaustive()
    }
}

impl OtpLogin {
    /// `POST /auth/credentials/{id}/verify {type, encryptedOtpBundle}`; `encrypted_otp_bundle`
    /// is the string [`crate::enclave::encrypt_otp`] returned (sent single-encoded, as a string
    /// member). `kind` is `EMAIL_OTP` or `SMS_OTP`.
    pub fn new(credential_id: &str, kind: &str, encrypted_otp_bundle: &str) -> Result<Self> {
        let id = path_id(credential_id, "AuthMethod", "credential id")?;
        if kind != "EMAIL_OTP" && kind != "SMS_OTP" {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "the OTP credential type must be EMAIL_OTP or SMS_OTP",
            ));
        }
        if !encrypted_otp_bundle.starts_with('{') {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "encryptedOtpBundle must be the JSON text encryptOtp returned",
            ));
        }
        let body = json_object(&[("type", kind), ("encryptedOtpBundle", encrypted_otp_bundle)]);
        Ok(Self {
            request: Request::new(
                "POST",
                ["/auth/credentials/", &id, "/verify"].concat(),
                Some(body),
            ),
            credential_id: id,
            signed: false,
            last_signed: None,
            resends: Resends::default(),
        })
    }

    /// How often and how long a PROCESSING answer is answered by re-sending
    /// ([`ProcessingPolicy::default`] unless set).
    pub fn set_processing_policy(&mut self, policy: ProcessingPolicy) {
        self.resends = Resends::with_policy(policy);
    }

    /// The AuthMethod logged in to (for [`Session::with_credential_id`]).
    pub fn credential_id(&self) -> &str {
        &self.credential_id
    }

    /// The first call, without signature headers.
    pub fn first_request(&self) -> Request {
        self.request.clone()
    }

    /// Reads a response, leaving the TEK's stamp to the caller. The OTP was spent on the
    /// first leg, so an expired 202 is `REQUEST_EXPIRED` rather than a silent restart
    /// (a restart would send a spent code); a second 202 is `SERVICE_ERROR`. The 202's
    /// expiry is checked against `now`.
    pub fn next_step(&mut self, response: &Response<'_>, now: UnixMillis) -> Result<OtpNext> {
        if is_processing(response) {
            return self
                .resends
                .after(self.last_signed.as_ref(), &self.request, response)
                .map(OtpNext::Resend);
        }
        match response.status {
            202 => {}
            200..=299 => return Ok(OtpNext::Done),
            _ if !self.signed => return Err(first_leg_error(response)),
            _ => return Err(response_error(response)),
        }
        if self.signed {
            return Err(Error::new(
                ErrorCode::ServiceError,
                "the service asked twice for the OTP login's signature",
            ));
        }
        let pending = super::http::pending_signature(response)?;
        if now >= pending.expires_at_ms {
            return Err(expired());
        }
        self.signed = true;
        Ok(OtpNext::Sign(pending))
    }

    /// The retry after an [`OtpNext::Sign`]: the same body with the TEK's headers. A
    /// signing failure is passed on unchanged (no restart: the code is spent).
    pub fn after_signing(&mut self, signed: Result<SignedRetryHeaders>) -> Result<Request> {
        let headers = signed?;
        let retry = self
            .request
            .clone()
            .with_header(SIGNATURE_HEADER, headers.signature)
            .with_header(REQUEST_ID_HEADER, headers.request_id);
        self.last_signed = Some(retry.clone());
        self.resends.reset();
        Ok(retry)
    }

    /// Reads a response with the TEK at hand, at `now`: a 202 is stamped with `tek` (the
    /// key whose public half is in the sealed bundle) and retried with the same body; the
    /// 200 opens the session with `tek` as its key (consuming it).
    pub fn on_response(
        &mut self,
        tek: &mut ClientKey,
        response: &Response<'_>,
        now: UnixMillis,
    ) -> Result<OtpNext> {
        match self.next_step(response, now)? {
            OtpNext::Sign(pending) => {
                let signed = sign_with_tek(tek, &pending, now);
                self.after_signing(signed).map(OtpNext::Send)
            }
            OtpNext::Done => {
                let body = response.body.ok_or_else(|| {
                    Error::new(
                        ErrorCode::InvalidSession,
                        "the session response has no JSON body",
                    )
                })?;
                let session = Session::from_client_key(body, tek)?;
                Ok(OtpNext::Session(
                    session.with_credential_id(&self.credential_id),
                ))
            }
            // Resend; next_step answers neither Send nor Session.
            next => Ok(next),
        }
    }
}

/// The enclave's one refusal of a sealed code (protocol notes §5, #1001: 400
/// `INVALID_INPUT`, reason `Invalid wallet request.`) is what a wrong or spent code gets:
/// `UNAUTHORIZED`, as the plaintext login's 401, the service's answer kept.
fn first_leg_error(response: &Response<'_>) -> Error {
    let error = response_error(response);
    if response.status == 400
        && error.service().and_then(|s| s.reason.as_deref()) == Some("Invalid wallet request.")
    {
        return error.with_code(ErrorCode::Unauthorized);
    }
    error
}

fn expired() -> Error {
    Error::new(
        ErrorCode::RequestExpired,
        "the OTP login's 202 expired before the TEK could sign it; the code is spent: request a new one (challenge) and verify again",
    )
}

#[cfg(all(test, feature = "json"))]
mod tests {
    use super::*;
    use crate::fields::test_support::TestFields;
    use crate::stamp::verify_stamp;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const CRED: &str = "AuthMethod:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b";
    const REQ: &str = "Request:123e4567-e89b-12d3-a456-426614174000";
    const SEALED: &str = r#"{"encappedPublic":"04ab","ciphertext":"cd"}"#;

    fn respond(status: u16, body: &TestFields) -> Response<'_> {
        Response {
            status,
            retry_after: None,
            body: Some(body),
        }
    }

    fn pending(payload: &str) -> TestFields {
        TestFields::default()
            .with("type", "EMAIL_OTP")
            .with("payloadToSign", payload)
            .with("requestId", REQ)
            .with("expiresAt", "2025-10-13T12:05:00Z")
    }

    fn session(bundle: Option<&str>) -> TestFields {
        let fields = TestFields::default()
            .with("id", "Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4c")
            .with("accountId", "InternalAccount:1")
            .with("type", "EMAIL_OTP")
            .with("expiresAt", "2025-10-13T12:15:00Z");
        match bundle {
            Some(b) => fields.with("encryptedSessionSigningKey", b),
            None => fields,
        }
    }

    const BEFORE: UnixMillis = 1_760_356_800_000; // 2025-10-13T12:00:00Z

    #[test]
    fn the_tek_stamps_the_second_leg_and_becomes_the_session_key() {
        let mut tek = ClientKey::generate().unwrap();
        let tek_pub = tek.compressed_public_key_hex();
        let mut login = OtpLogin::new(CRED, "EMAIL_OTP", SEALED).unwrap();
        let first = login.first_request();
        assert_eq!(first.path, format!("/auth/credentials/{CRED}/verify"));
        let body = first.body.clone().unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&body).unwrap();
        assert_eq!(parsed["type"], "EMAIL_OTP");
        assert_eq!(
            parsed["encryptedOtpBundle"], SEALED,
            "a string member, single-encoded"
        );

        let payload = "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJ4In0.sig";
        let OtpNext::Send(retry) = login
            .on_response(&mut tek, &respond(202, &pending(payload)), BEFORE)
            .unwrap()
        else {
            panic!("expected a retry")
        };
        assert_eq!(retry.body, first.body, "the same body bytes");
        assert_eq!(retry.header("Request-Id"), Some(REQ));
        let stamp = verify_stamp(retry.header(SIGNATURE_HEADER).unwrap(), payload).unwrap();
        assert_eq!(stamp.public_key, tek_pub);
        assert!(!tek.is_consumed());

        // A bundle in the answer means this is not the client-held flow: refused.
        let err = login
            .on_response(&mut tek, &respond(200, &session(Some("x"))), BEFORE)
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidSession);
        let OtpNext::Session(s) = login
            .on_response(&mut tek, &respond(200, &session(None)), BEFORE)
            .unwrap()
        else {
            panic!("expected the session")
        };
        assert_eq!(s.public_key_hex(), Some(tek_pub));
        assert_eq!(s.credential_id(), Some(CRED));
        assert!(tek.is_consumed(), "the TEK now lives in the session");
    }

    #[test]
    fn the_signing_can_happen_elsewhere_and_an_expired_202_is_never_restarted() {
        let mut tek = ClientKey::generate().unwrap();
        let mut login = OtpLogin::new(CRED, "EMAIL_OTP", SEALED).unwrap();
        assert_eq!(login.credential_id(), CRED);
        let first = login.first_request();
        let OtpNext::Sign(pending202) = login
            .next_step(&respond(202, &pending("p")), BEFORE)
            .unwrap()
        else {
            panic!("expected a 202 to sign")
        };
        assert_eq!(pending202.request_id, REQ);
        let headers = sign_with_tek(&mut tek, &pending202, BEFORE).unwrap();
        let retry = login.after_signing(Ok(headers)).unwrap();
        assert_eq!(retry.body, first.body);
        assert_eq!(retry.header("Request-Id"), Some(REQ));
        let stamp = verify_stamp(retry.header(SIGNATURE_HEADER).unwrap(), "p").unwrap();
        assert_eq!(stamp.public_key, tek.compressed_public_key_hex());
        assert!(matches!(
            login
                .next_step(&respond(200, &session(None)), BEFORE)
                .unwrap(),
            OtpNext::Done
        ));
        // The signer's own expiry refusal is passed on, never turned into a restart.
        let refused = Error::new(ErrorCode::RequestExpired, "expired");
        assert_eq!(
            login.after_signing(Err(refused)).unwrap_err().code(),
            ErrorCode::RequestExpired
        );
        // Expired when it arrives: refused before anything is signed, with the reason.
        let mut late = OtpLogin::new(CRED, "EMAIL_OTP", SEALED).unwrap();
        let err = late
            .next_step(&respond(202, &pending("p")), BEFORE + 300_000)
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::RequestExpired);
        assert!(err.message().contains("the code is spent"), "{err}");
    }

    #[test]
    fn refusals() {
        let mut tek = ClientKey::generate().unwrap();
        assert_eq!(
            OtpLogin::new("x/../y", "EMAIL_OTP", SEALED)
                .unwrap_err()
                .code(),
            ErrorCode::InvalidInput
        );
        assert_eq!(
            OtpLogin::new(CRED, "OAUTH", SEALED).unwrap_err().code(),
            ErrorCode::InvalidInput
        );
        assert_eq!(
            OtpLogin::new(CRED, "SMS_OTP", "123456").unwrap_err().code(),
            ErrorCode::InvalidInput
        );
        // Expired 202: no restart (the code is spent).
        let mut login = OtpLogin::new(CRED, "SMS_OTP", SEALED).unwrap();
        assert_eq!(
            login
                .on_response(&mut tek, &respond(202, &pending("p")), BEFORE + 3_600_000)
                .unwrap_err()
                .code(),
            ErrorCode::RequestExpired
        );
        // A second 202, and a 401.
        let mut login = OtpLogin::new(CRED, "EMAIL_OTP", SEALED).unwrap();
        login
            .on_response(&mut tek, &respond(202, &pending("p")), BEFORE)
            .unwrap();
        assert_eq!(
            login
                .on_response(&mut tek, &respond(202, &pending("p")), BEFORE)
                .unwrap_err()
                .code(),
            ErrorCode::ServiceError
        );
        let denied = TestFields::default().with("reason", "Invalid OTP code");
        assert_eq!(
            login
                .on_response(&mut tek, &respond(401, &denied), BEFORE)
                .unwrap_err()
                .code(),
            ErrorCode::Unauthorized
        );
        // A consumed TEK cannot sign.
        let mut used = ClientKey::generate().unwrap();
        used.consume();
        let mut login = OtpLogin::new(CRED, "EMAIL_OTP", SEALED).unwrap();
        assert_eq!(
            login
                .on_response(&mut used, &respond(202, &pending("p")), BEFORE)
                .unwrap_err()
                .code(),
            ErrorCode::KeyConsumed
        );
        // The challenge response must carry the target bundle.
        let plain = TestFields::default().with("id", CRED);
        assert_eq!(
            target_bundle(&respond(200, &plain)).unwrap_err().code(),
            ErrorCode::InvalidBundle
        );
        let with = plain.with("otpEncryptionTargetBundle", "{}");
        assert_eq!(target_bundle(&respond(200, &with)).unwrap(), "{}");
    }

    #[test]
    fn a_refused_sealed_code_is_unauthorized_as_in_the_plaintext_login() {
        let refused = TestFields::default()
            .with("code", "INVALID_INPUT")
            .with("reason", "Invalid wallet request.")
            .with("message", "Invalid wallet request.");
        let mut login = OtpLogin::new(CRED, "EMAIL_OTP", SEALED).unwrap();
        let err = login
            .next_step(&respond(400, &refused), BEFORE)
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Unauthorized, "{err}");
        let service = err.service().unwrap();
        assert_eq!(service.status, 400);
        assert_eq!(service.service_code.as_deref(), Some("INVALID_INPUT"));
        assert_eq!(service.reason.as_deref(), Some("Invalid wallet request."));
        // Any other 400 stays what it was.
        let other = TestFields::default()
            .with("code", "INVALID_INPUT")
            .with("reason", "type");
        let mut login = OtpLogin::new(CRED, "EMAIL_OTP", SEALED).unwrap();
        let err = login.next_step(&respond(400, &other), BEFORE).unwrap_err();
        assert_eq!(err.code(), ErrorCode::ServiceError);
    }
}

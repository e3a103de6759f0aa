//! Executing a quote from an embedded wallet: `POST /quotes/{id}/execute` with the stamp
//! over the quote's payloadToSign and an Idempotency-Key made once and reused on every
//! retry of the same execution, so a retried request can never move money twice.

use super::http::{expect_success, uuid_v4, uuid_v4_from, Request, Response};
use crate::error::{Error, ErrorCode, Result};
use crate::fields::{is_kind_uuid, required, Fields};
use crate::message::{QuoteToSign, SIGNATURE_HEADER};
use crate::prelude::*;
use crate::session::Session;
use crate::timestamp::UnixMillis;

/// The header that makes a request idempotent.
pub(crate) const IDEMPOTENCY_KEY_HEADER: &str = "Idempotency-Key";

/// One execution of one quote.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuoteExecution {
    quote_id: String,
    quote: QuoteToSign,
    idempotency_key: String,
}

impl QuoteExecution {
    /// Reads the quote (`id`, `payloadToSign`, `expiresAt`) and makes the idempotency key
    /// from fresh randomness: [`QuoteExecution::with_random`] with 16 random bytes.
    pub fn new(quote: &dyn Fields) -> Result<Self> {
        let mut execution = Self::with_random(quote, [0; 16])?;
        execution.idempotency_key = uuid_v4()?;
        Ok(execution)
    }

    /// Reads the quote, with the idempotency key made from `random` (16 bytes the caller
    /// drew; a UUID v4 of them). [`QuoteExecution::new`] draws them itself.
    pub fn with_random(quote: &dyn Fields, random: [u8; 16]) -> Result<Self> {
        let quote_id = required(quote, "id", ErrorCode::InvalidInput, "quote")?;
        if !is_kind_uuid(&quote_id, "Quote") {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "quote id is not of the form Quote:<uuid>",
            ));
        }
        Ok(Self {
            quote_id,
            quote: QuoteToSign::from_fields(quote)?,
            idempotency_key: uuid_v4_from(random),
        })
    }

    /// The key sent with every attempt of this execution.
    pub fn idempotency_key(&self) -> &str {
        &self.idempotency_key
    }

    /// The execute request, signed at `now` (so `QUOTE_EXPIRED` / `SESSION_EXPIRED` are checked
    /// at each attempt). Retrying after a network failure sends this again: same key.
    pub fn request(&self, session: &Session, now: UnixMillis) -> Result<Request> {
        Ok(self.request_with_signature(session.sign_quote(&self.quote, now)?))
    }

    /// What the session signs: the quote's payload and expiry, as read once here.
    pub fn to_sign(&self) -> &QuoteToSign {
        &self.quote
    }

    /// The execute request with a signature made elsewhere (the caller's session signed
    /// [`QuoteExecution::to_sign`]).
    pub fn request_with_signature(&self, signature: String) -> Request {
        Request::new(
            "POST",
            ["/quotes/", &self.quote_id, "/execute"].concat(),
            None,
        )
        .with_header(IDEMPOTENCY_KEY_HEADER, self.idempotency_key.clone())
        .with_header(SIGNATURE_HEADER, signature)
    }

    /// Checks the execute response.
    pub fn on_response(&self, response: &Response<'_>) -> Result<()> {
        expect_success(response)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::test_support::TestFields;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn quote() -> TestFields {
        TestFields::default()
            .with("id", "Quote:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e5f")
            .with(
                "payloadToSign",
                "{\"type\":\"ACTIVITY_TYPE_SIGN_TRANSACTION_V2\"}",
            )
            .with("expiresAt", "2025-10-13T12:02:00Z")
    }

    fn sandbox() -> Session {
        let resp = TestFields::default()
            .with("id", "Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b")
            .with("accountId", "InternalAccount:1")
            .with("type", "EMAIL_OTP")
            .with("expiresAt", "2025-10-13T12:15:00Z");
        Session::sandbox(&resp).unwrap()
    }

    #[test]
    fn the_idempotency_key_is_made_once_and_reused() {
        let exec = QuoteExecution::new(&quote()).unwrap();
        let s = sandbox();
        let now = 1_760_356_800_000;
        let first = exec.request(&s, now).unwrap();
        let retry = exec.request(&s, now).unwrap();
        assert_eq!(
            first.path,
            "/quotes/Quote:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e5f/execute"
        );
        assert_eq!(first.method, "POST");
        assert_eq!(
            first.header(IDEMPOTENCY_KEY_HEADER),
            retry.header(IDEMPOTENCY_KEY_HEADER)
        );
        assert_eq!(
            first.header(IDEMPOTENCY_KEY_HEADER),
            Some(exec.idempotency_key())
        );
        assert_eq!(
            first.header(SIGNATURE_HEADER),
            Some("sandbox-valid-signature")
        );
        assert!(
            first.header("Request-Id").is_none(),
            "execute sends no Request-Id"
        );
        let other = QuoteExecution::new(&quote()).unwrap();
        assert_ne!(other.idempotency_key(), exec.idempotency_key());
    }

    #[test]
    fn the_idempotency_key_is_a_uuid_v4_of_the_random_bytes_given() {
        let exec = QuoteExecution::with_random(&quote(), [0xff; 16]).unwrap();
        assert_eq!(
            exec.idempotency_key(),
            "ffffffff-ffff-4fff-bfff-ffffffffffff"
        );
        let again = QuoteExecution::with_random(&quote(), [0xff; 16]).unwrap();
        assert_eq!(again, exec, "the same bytes, the same execution");
        let zero = QuoteExecution::with_random(&quote(), [0; 16]).unwrap();
        assert_eq!(
            zero.idempotency_key(),
            "00000000-0000-4000-8000-000000000000"
        );
    }

    #[test]
    fn expired_quotes_and_bad_quotes() {
        let exec = QuoteExecution::new(&quote()).unwrap();
        let late = 1_760_356_920_000;
        assert_eq!(
            exec.request(&sandbox(), late).unwrap_err().code(),
            ErrorCode::QuoteExpired
        );
        let err = QuoteExecution::new(&quote().with("id", "Transaction:1")).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        let err = QuoteExecution::new(&quote().without("payloadToSign")).unwrap_err();
        assert!(err.message().contains("EMBEDDED_WALLET"));
        let body = TestFields::default().with("code", "QUOTE_EXPIRED");
        let err = exec
            .on_response(&Response {
                status: 400,
                retry_after: None,
                body: Some(&body),
            })
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::ServiceError);
        // A token without the TRANSACT permission.
        let body = TestFields::default()
            .with("code", "FORBIDDEN")
            .with("reason", "Missing TRANSACT permission");
        let err = exec
            .on_response(&Response {
                status: 403,
                retry_after: None,
                body: Some(&body),
            })
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::Forbidden);
        assert_eq!(
            err.service().unwrap().reason.as_deref(),
            Some("Missing TRANSACT permission")
        );
        assert!(exec
            .on_response(&Response {
                status: 200,
                retry_after: None,
                body: None
            })
            .is_ok());
    }
}

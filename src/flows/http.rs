//! The requests the flows ask the integrator's transport to send, and what they read
//! back. The kit never sends anything itself: the transport (the integrator backend,
//! which adds the API credentials) does, so the API secret never enters the browser.

use crate::codec::hex_encode;
use crate::error::{Error, ErrorCode, Result, ServiceDetails};
use crate::fields::{Field, Fields};
use crate::message::PendingSignature;
use crate::prelude::*;
use crate::text::Decimal;

/// One HTTP request for the transport to send, path relative to the API base URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Request {
    /// `GET`, `POST`, `PATCH`, `DELETE`.
    pub method: String,
    /// Path and query, e.g. `/auth/sessions/Session:…/refresh`.
    pub path: String,
    /// Headers to add (besides the transport's own).
    pub headers: Vec<(String, String)>,
    /// The exact body text; a signed retry repeats it byte for byte.
    pub body: Option<String>,
}

impl Request {
    /// A request with no headers.
    pub fn new(method: &str, path: impl Into<String>, body: Option<String>) -> Self {
        Self {
            method: method.to_owned(),
            path: path.into(),
            headers: Vec::new(),
            body,
        }
    }

    /// Sets a header, replacing one of the same name (case-insensitive).
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.retain(|(n, _)| !n.eq_ignore_ascii_case(name));
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    /// A header's value.
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }
}

/// What the flows need of a response: its status, `Retry-After`, and its body's fields
/// (`None` when the body is empty or not a JSON object).
pub struct Response<'a> {
    /// HTTP status.
    pub status: u16,
    /// The `Retry-After` header.
    pub retry_after: Option<&'a str>,
    /// The parsed body.
    pub body: Option<&'a dyn Fields>,
}

/// A non-empty string member of the response body (ids, the service's `code`/`reason`).
pub(crate) fn body_string(response: &Response<'_>, name: &str) -> Option<String> {
    match response.body?.field(name) {
        Field::Str(s) if !s.is_empty() => Some(s),
        _ => None,
    }
}

/// `Retry-After` as milliseconds: delay-seconds only (the service sends seconds).
fn retry_after_ms(value: Option<&str>) -> Option<u64> {
    value?
        .trim()
        .parse::<u64>()
        .ok()
        .map(|s| s.saturating_mul(1_000))
}

/// The PendingSignature of a 202 response.
pub(crate) fn pending_signature(response: &Response<'_>) -> Result<PendingSignature> {
    let body = response.body.ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidPendingSignature,
            "the 202 has no JSON object body",
        )
    })?;
    PendingSignature::from_fields(body)
}

/// The typed error for a response the flow did not expect: `UNAUTHORIZED` (401, with
/// the service's reason), `FORBIDDEN` (403, e.g. a token without the `TRANSACT`
/// permission), `RATE_LIMITED` (429, with the wait), else `SERVICE_ERROR`.
pub(crate) fn response_error(response: &Response<'_>) -> Error {
    let details = ServiceDetails {
        status: response.status,
        service_code: body_string(response, "code"),
        reason: body_string(response, "reason"),
        retry_after_ms: retry_after_ms(response.retry_after),
        request_id: None,
    };
    let said = details
        .reason
        .clone()
        .or_else(|| body_string(response, "message"))
        .or_else(|| details.service_code.clone());
    let refused = |code| {
        let reason = said.as_deref().unwrap_or("no reason given");
        let message = [
            "the service answered ",
            &Decimal::from(response.status),
            ": ",
            reason,
        ]
        .concat();
        (code, message)
    };
    let (code, message) = match response.status {
        401 => refused(ErrorCode::Unauthorized),
        403 => refused(ErrorCode::Forbidden),
        429 => (
            ErrorCode::RateLimited,
            match details.retry_after_ms {
                Some(ms) => [
                    "the service is rate limiting this request; retry in ",
                    &Decimal::new(ms / 1_000),
                    " s",
                ]
                .concat(),
                None => "the service is rate limiting this request".to_owned(),
            },
        ),
        status => (
            ErrorCode::ServiceError,
            match said {
                Some(s) => ["the service answered ", &Decimal::from(status), ": ", &s].concat(),
                None => ["the service answered ", &Decimal::from(status)].concat(),
            },
        ),
    };
    Error::from_service(code, message, details)
}

/// `Ok` for a 2xx status, the typed error otherwise.
pub(crate) fn expect_success(response: &Response<'_>) -> Result<()> {
    if (200..300).contains(&response.status) {
        Ok(())
    } else {
        Err(response_error(response))
    }
}

/// `Ok` for a final 2xx answer. A 202 asks for a signature: a request sent without a
/// session cannot give one, so it is an error here rather than a result to read.
pub(crate) fn expect_result(response: &Response<'_>) -> Result<()> {
    if response.status == 202 {
        return Err(Error::new(
            ErrorCode::ServiceError,
            "the service asked for a signature (202): this operation needs a session",
        ));
    }
    expect_success(response)
}

/// A random (version 4) UUID, for idempotency keys: [`uuid_v4_from`] of 16 bytes from
/// the platform's secure random number generator.
pub fn uuid_v4() -> Result<String> {
    let mut b = [0u8; 16];
    getrandom::fill(&mut b).map_err(|_| {
        Error::new(
            ErrorCode::RandomnessUnavailable,
            "the platform's secure random number generator failed",
        )
    })?;
    Ok(uuid_v4_from(b))
}

/// The version 4 UUID of 16 random bytes (the caller draws them: replay, tests).
pub fn uuid_v4_from(mut b: [u8; 16]) -> String {
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    // 8-4-4-4-12 hex digits. The byte array is split, not a hex string: slicing a str
    // checks char boundaries, which links core's slice_error_fail.
    [
        hex_encode(&b[..4]),
        hex_encode(&b[4..6]),
        hex_encode(&b[6..8]),
        hex_encode(&b[8..10]),
        hex_encode(&b[10..]),
    ]
    .join("-")
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::fields::test_support::TestFields;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    pub(crate) fn respond(status: u16, body: &TestFields) -> Response<'_> {
        Response {
            status,
            retry_after: None,
            body: Some(body),
        }
    }

    /// Every 401 code the live service defines (protocol notes §12) is `UNAUTHORIZED`,
    /// its own code kept as `service_code` and its reason in the message.
    #[test]
    fn each_401_code_of_the_live_service_is_unauthorized_with_its_service_code() {
        for code in [
            "UNAUTHORIZED",
            "INVALID_SIGNATURE",
            "WALLET_SIGNATURE_MISSING",
            "WALLET_SIGNATURE_MALFORMED",
            "WALLET_SIGNATURE_BODY_MISMATCH",
            "WALLET_SIGNATURE_INVALID",
            "REQUEST_ID_MISSING",
        ] {
            let body = TestFields::default()
                .with("code", code)
                .with("reason", "the check that failed");
            let e = response_error(&respond(401, &body));
            assert_eq!(e.code(), ErrorCode::Unauthorized, "{code}");
            let service = e.service().unwrap();
            assert_eq!(service.service_code.as_deref(), Some(code));
            assert_eq!(service.status, 401);
            assert!(e.message().contains("the check that failed"), "{code}");
        }
    }

    #[test]
    fn errors_carry_what_the_service_said() {
        let body = TestFields::default()
            .with("code", "UNAUTHORIZED")
            .with("reason", "Invalid OTP code");
        let e = response_error(&respond(401, &body));
        assert_eq!(e.code(), ErrorCode::Unauthorized);
        assert!(e.message().contains("Invalid OTP code"));
        assert_eq!(
            e.service().unwrap().reason.as_deref(),
            Some("Invalid OTP code")
        );
        assert_eq!(e.service().unwrap().status, 401);

        let limited = Response {
            status: 429,
            retry_after: Some("3"),
            body: None,
        };
        let e = response_error(&limited);
        assert_eq!(e.code(), ErrorCode::RateLimited);
        assert_eq!(e.service().unwrap().retry_after_ms, Some(3_000));
        assert!(e.message().contains("3 s"));

        let body = TestFields::default()
            .with("code", "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS")
            .with("message", "exists");
        let e = response_error(&respond(400, &body));
        assert_eq!(e.code(), ErrorCode::ServiceError);
        assert_eq!(
            e.service().unwrap().service_code.as_deref(),
            Some("EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS")
        );
        assert!(e.message().contains("400: exists"));
        let bare = Response {
            status: 500,
            retry_after: Some("soon"),
            body: None,
        };
        let e = response_error(&bare);
        assert_eq!(e.message(), "the service answered 500");
        assert_eq!(e.service().unwrap().retry_after_ms, None);
        assert!(expect_success(&Response {
            status: 204,
            retry_after: None,
            body: None
        })
        .is_ok());
        let unsigned = Response {
            status: 202,
            retry_after: None,
            body: None,
        };
        assert!(expect_success(&unsigned).is_ok());
        let e = expect_result(&unsigned).unwrap_err();
        assert_eq!(e.code(), ErrorCode::ServiceError);
        assert!(e.message().contains("needs a session"));
        assert!(expect_result(&respond(201, &TestFields::default())).is_ok());
        let e = expect_result(&respond(401, &TestFields::default())).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Unauthorized);
    }

    #[test]
    fn a_403_is_forbidden_with_the_reason() {
        // Quote creation and execution, when the platform's token lacks TRANSACT.
        let body = TestFields::default()
            .with("code", "FORBIDDEN")
            .with("reason", "Missing TRANSACT permission");
        let e = response_error(&respond(403, &body));
        assert_eq!(e.code(), ErrorCode::Forbidden);
        assert_eq!(e.code().as_str(), "FORBIDDEN");
        assert_eq!(
            e.message(),
            "the service answered 403: Missing TRANSACT permission"
        );
        let service = e.service().unwrap();
        assert_eq!(service.status, 403);
        assert_eq!(service.service_code.as_deref(), Some("FORBIDDEN"));
        assert_eq!(
            service.reason.as_deref(),
            Some("Missing TRANSACT permission")
        );
        let bare = Response {
            status: 403,
            retry_after: None,
            body: None,
        };
        let e = expect_result(&bare).unwrap_err();
        assert_eq!(e.code(), ErrorCode::Forbidden);
        assert_eq!(e.message(), "the service answered 403: no reason given");
    }

    #[test]
    fn uuid_v4_from_keeps_byte_order_and_sets_version_and_variant() {
        let bytes: [u8; 16] = core::array::from_fn(|i| i as u8);
        assert_eq!(uuid_v4_from(bytes), "00010203-0405-4607-8809-0a0b0c0d0e0f");
    }

    proptest::proptest! {
        #[test]
        fn uuid_v4_from_matches_the_formatted_hex(bytes in proptest::prelude::any::<[u8; 16]>()) {
            let mut b = bytes;
            b[6] = (b[6] & 0x0f) | 0x40;
            b[8] = (b[8] & 0x3f) | 0x80;
            let h: String = b.iter().map(|x| format!("{x:02x}")).collect();
            let expected = format!("{}-{}-{}-{}-{}", &h[..8], &h[8..12], &h[12..16], &h[16..20], &h[20..]);
            proptest::prop_assert_eq!(uuid_v4_from(bytes), expected);
        }
    }

    #[test]
    fn uuids_are_version_4() {
        let a = uuid_v4().unwrap();
        assert!(crate::fields::is_kind_uuid(&format!("X:{a}"), "X"), "{a}");
        assert_eq!(&a[14..15], "4");
        assert!(matches!(&a[19..20], "8" | "9" | "a" | "b"));
        assert_ne!(a, uuid_v4().unwrap());
    }

    #[test]
    fn headers_replace_case_insensitively() {
        let r = Request::new("POST", "/x", None)
            .with_header("Request-Id", "a")
            .with_header("request-id", "b");
        assert_eq!(r.headers.len(), 1);
        assert_eq!(r.header("REQUEST-ID"), Some("b"));
    }
}

//! The signed-retry exchange: a 202 PendingSignature carries `payloadToSign`,
//! a single-use `requestId` and an `expiresAt`; the retry repeats the request with the
//! `Service-Wallet-Signature` and `Request-Id` headers. Quotes from an embedded wallet
//! carry `payloadToSign` too and are executed with the signature header alone.

use crate::error::{Error, ErrorCode, Result};
use crate::fields::{is_kind_uuid, optional, required, Fields};
use crate::prelude::*;
use crate::timestamp::{parse_rfc3339, UnixMillis};

/// Name of the stamp header.
pub const SIGNATURE_HEADER: &str = "Service-Wallet-Signature";
/// Name of the request-id header.
pub const REQUEST_ID_HEADER: &str = "Request-Id";

/// A parsed 202 PendingSignature body.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PendingSignature {
    /// The exact text to sign.
    pub payload_to_sign: String,
    /// `Request:<uuid>`, single-use.
    pub request_id: String,
    /// End of the retry window.
    pub expires_at_ms: UnixMillis,
}

impl PendingSignature {
    /// Reads `payloadToSign`, `requestId` and `expiresAt` from a 202 body.
    pub fn from_fields(body: &dyn Fields) -> Result<Self> {
        const WHAT: &str = "202 PendingSignature";
        let code = ErrorCode::InvalidPendingSignature;
        let payload_to_sign = required(body, "payloadToSign", code, WHAT)?;
        let request_id = required(body, "requestId", code, WHAT)?;
        if !is_kind_uuid(&request_id, "Request") {
            return Err(Error::new(
                code,
                [WHAT, " requestId is not of the form Request:<uuid>"].concat(),
            ));
        }
        let expires_at = required(body, "expiresAt", code, WHAT)?;
        let expires_at_ms = parse_rfc3339(&expires_at, "202 PendingSignature expiresAt")?;
        Ok(Self {
            payload_to_sign,
            request_id,
            expires_at_ms,
        })
    }

    /// Parses a 202 body from JSON text.
    #[cfg(feature = "json")]
    pub fn from_json(text: &str) -> Result<Self> {
        let map = crate::fields::parse_object(
            text,
            ErrorCode::InvalidPendingSignature,
            "202 PendingSignature",
        )?;
        Self::from_fields(&map)
    }
}

/// What `signQuote` reads of a quote: its payload and its expiry, nothing else.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuoteToSign {
    /// The exact text to sign.
    pub payload_to_sign: String,
    /// The quote's expiry.
    pub expires_at_ms: UnixMillis,
}

impl QuoteToSign {
    /// Reads `payloadToSign` and `expiresAt` from a quote.
    pub fn from_fields(quote: &dyn Fields) -> Result<Self> {
        const WHAT: &str = "quote";
        let code = ErrorCode::InvalidInput;
        let payload_to_sign = optional(quote, "payloadToSign", code, WHAT)?.ok_or_else(|| {
            Error::new(
                code,
                "quote has no payloadToSign: its source is not an EMBEDDED_WALLET internal account, so it is executed without a signature",
            )
        })?;
        let expires_at = required(quote, "expiresAt", code, WHAT)?;
        let expires_at_ms = parse_rfc3339(&expires_at, "quote expiresAt")?;
        Ok(Self {
            payload_to_sign,
            expires_at_ms,
        })
    }

    /// Parses a quote from JSON text.
    #[cfg(feature = "json")]
    pub fn from_json(text: &str) -> Result<Self> {
        let map = crate::fields::parse_object(text, ErrorCode::InvalidInput, "quote")?;
        Self::from_fields(&map)
    }
}

/// The two headers of a signed retry.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SignedRetryHeaders {
    /// `Service-Wallet-Signature`: the stamp.
    pub signature: String,
    /// `Request-Id`: the requestId of the 202.
    pub request_id: String,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::test_support::TestFields;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    pub(crate) fn pending() -> TestFields {
        TestFields::default()
            .with("payloadToSign", "{\"type\":\"ACTIVITY\"}")
            .with("requestId", "Request:123e4567-e89b-12d3-a456-426614174000")
            .with("expiresAt", "2025-10-13T12:05:00Z")
    }

    #[test]
    fn parses_a_202() {
        let p = PendingSignature::from_fields(&pending()).unwrap();
        assert_eq!(p.payload_to_sign, "{\"type\":\"ACTIVITY\"}");
        assert_eq!(p.request_id, "Request:123e4567-e89b-12d3-a456-426614174000");
        assert_eq!(p.expires_at_ms, 1_760_357_100_000);
    }

    #[test]
    fn malformed_202s_name_the_field() {
        let cases = [
            (
                pending().without("payloadToSign"),
                ErrorCode::InvalidPendingSignature,
                "payloadToSign",
            ),
            (
                pending().non_string("payloadToSign"),
                ErrorCode::InvalidPendingSignature,
                "payloadToSign",
            ),
            (
                pending().without("requestId"),
                ErrorCode::InvalidPendingSignature,
                "requestId",
            ),
            (
                pending().with("requestId", "123"),
                ErrorCode::InvalidPendingSignature,
                "requestId",
            ),
            (
                pending().without("expiresAt"),
                ErrorCode::InvalidPendingSignature,
                "expiresAt",
            ),
            (
                pending().with("expiresAt", "soon"),
                ErrorCode::InvalidTimestamp,
                "expiresAt",
            ),
        ];
        for (fields, code, needle) in cases {
            let err = PendingSignature::from_fields(&fields).unwrap_err();
            assert_eq!(err.code(), code, "{err}");
            assert!(err.message().contains(needle), "{err}");
        }
    }

    #[test]
    fn empty_payload_is_a_payload() {
        let p = PendingSignature::from_fields(&pending().with("payloadToSign", "")).unwrap();
        assert_eq!(p.payload_to_sign, "");
    }

    #[test]
    fn quote_reads_payload_and_expiry_only() {
        let quote = TestFields::default()
            .with("payloadToSign", "p")
            .with("expiresAt", "2025-10-13T12:05:00Z")
            .non_string("totalSendingAmount");
        let q = QuoteToSign::from_fields(&quote).unwrap();
        assert_eq!(q.payload_to_sign, "p");
        let err = QuoteToSign::from_fields(&quote.clone().without("payloadToSign")).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        assert!(err.message().contains("EMBEDDED_WALLET"));
        let err = QuoteToSign::from_fields(&quote.without("expiresAt")).unwrap_err();
        assert!(err.message().contains("expiresAt"));
    }

    #[cfg(feature = "json")]
    #[test]
    fn from_json_text() {
        let p = PendingSignature::from_json(
            r#"{"type":"EMAIL_OTP","payloadToSign":"x","requestId":"Request:123e4567-e89b-12d3-a456-426614174000","expiresAt":"2025-10-13T12:05:00.000+00:00"}"#,
        )
        .unwrap();
        assert_eq!(p.payload_to_sign, "x");
        let err = PendingSignature::from_json("not json").unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidPendingSignature);
        let err = QuoteToSign::from_json("{}").unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput);
    }
}

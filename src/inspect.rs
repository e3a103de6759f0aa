//! What a `payloadToSign` authorizes, read before signing so a wallet UI can show it and
//! the flows can refuse a payload that authorizes something else (refresh checks the
//! target key with it). The payloads are Turnkey activity JSON
//! (`{organizationId, parameters, timestampMs, type}`); other payloads (a JWT-shaped
//! verification token, base64) are opaque and reported as such.

use crate::error::{Error, ErrorCode, Result};
use crate::json::{parse, Json};
use crate::prelude::*;
use crate::text::Decimal;

/// The readable parts of a payload. Every field is `None` (or empty) for opaque text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PayloadInspection {
    /// Whether the payload is a JSON object (an activity); `false` for opaque text.
    pub json: bool,
    /// The activity `type`, e.g. `ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2`.
    pub activity_type: Option<String>,
    /// `organizationId`.
    pub organization_id: Option<String>,
    /// `timestampMs`.
    pub timestamp_ms: Option<String>,
    /// Every `targetPublicKey`, at any depth: the keys the activity would empower.
    pub target_public_keys: Vec<String>,
    /// `parameters.amount` (a number's text or a string).
    pub amount: Option<String>,
    /// `parameters.currency`.
    pub currency: Option<String>,
    /// `parameters.sourceAccountId`.
    pub source: Option<String>,
    /// `parameters.destinationAccountId` (or `parameters.destination`).
    pub destination: Option<String>,
    /// `parameters.quoteId`.
    pub quote_id: Option<String>,
    /// `parameters.walletId`.
    pub wallet_id: Option<String>,
}

/// Reads `payload`. A payload that starts (after whitespace) with `{` must be strict JSON
/// (duplicate names refused: the service and this reader could pick different ones);
/// anything else is opaque text.
pub fn inspect_payload(payload: &str) -> Result<PayloadInspection> {
    if !payload.trim_start().starts_with('{') {
        return Ok(PayloadInspection::default());
    }
    let invalid = |message: String| Error::new(ErrorCode::InvalidInput, message);
    let value = parse(payload).map_err(|e| {
        invalid(
            [
                "payloadToSign is not valid JSON: ",
                e.reason,
                " at byte ",
                &Decimal::from(e.offset),
            ]
            .concat(),
        )
    })?;
    let mut target_public_keys = Vec::new();
    collect_target_keys(&value, &mut target_public_keys)
        .map_err(|()| invalid("payloadToSign has a targetPublicKey that is not a string".into()))?;
    let text = |value: Option<&Json>| match value {
        Some(Json::String(s) | Json::Number(s)) => Some(s.clone()),
        _ => None,
    };
    let parameters = value.get("parameters");
    let parameter = |name: &str| text(parameters.and_then(|p| p.get(name)));
    Ok(PayloadInspection {
        json: true,
        activity_type: text(value.get("type")),
        organization_id: text(value.get("organizationId")),
        timestamp_ms: text(value.get("timestampMs")),
        target_public_keys,
        amount: parameter("amount"),
        currency: parameter("currency"),
        source: parameter("sourceAccountId"),
        destination: parameter("destinationAccountId").or_else(|| parameter("destination")),
        quote_id: parameter("quoteId"),
        wallet_id: parameter("walletId"),
    })
}

fn collect_target_keys(value: &Json, out: &mut Vec<String>) -> core::result::Result<(), ()> {
    match value {
        Json::Object(members) => {
            for (name, member) in members {
                if name == "targetPublicKey" {
                    out.push(member.as_str().ok_or(())?.to_owned());
                } else {
                    collect_target_keys(member, out)?;
                }
            }
        }
        Json::Array(items) => {
            for item in items {
                collect_target_keys(item, out)?;
            }
        }
        _ => {}
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn reads_a_refresh_activity() {
        let p = inspect_payload(
            r#"{"organizationId":"org-1","parameters":{"apiKeyName":"s","expirationSeconds":"900","targetPublicKey":"04ab"},"timestampMs":"1760357700000","type":"ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2"}"#,
        )
        .unwrap();
        assert!(p.json);
        assert_eq!(
            p.activity_type.as_deref(),
            Some("ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2")
        );
        assert_eq!(p.organization_id.as_deref(), Some("org-1"));
        assert_eq!(p.timestamp_ms.as_deref(), Some("1760357700000"));
        assert_eq!(p.target_public_keys, ["04ab"]);
        assert_eq!(p.amount, None);
    }

    #[test]
    fn reads_what_a_quote_moves() {
        let p = inspect_payload(
            r#"{"organizationId":"o","parameters":{"amount":"1250","currency":"USD","destinationAccountId":"InternalAccount:2","quoteId":"Quote:1","sourceAccountId":"InternalAccount:1","walletId":"w"},"timestampMs":"1","type":"ACTIVITY_TYPE_SIGN_TRANSACTION_V2"}"#,
        )
        .unwrap();
        assert_eq!(p.amount.as_deref(), Some("1250"));
        assert_eq!(p.currency.as_deref(), Some("USD"));
        assert_eq!(p.source.as_deref(), Some("InternalAccount:1"));
        assert_eq!(p.destination.as_deref(), Some("InternalAccount:2"));
        assert_eq!(p.quote_id.as_deref(), Some("Quote:1"));
        assert_eq!(p.wallet_id.as_deref(), Some("w"));
        let numeric =
            inspect_payload(r#"{"parameters":{"amount":12.5,"destination":"x"}}"#).unwrap();
        assert_eq!(numeric.amount.as_deref(), Some("12.5"));
        assert_eq!(numeric.destination.as_deref(), Some("x"));
    }

    #[test]
    fn finds_every_target_key_and_refuses_ambiguity() {
        let p = inspect_payload(r#"{"a":[{"targetPublicKey":"k1"}],"b":{"c":{"targetPublicKey":"k2"}},"s":"\"targetPublicKey\":\"k3\""}"#)
            .unwrap();
        assert_eq!(p.target_public_keys, ["k1", "k2"]);
        for bad in [
            r#"{"parameters":{"targetPublicKey":"a","targetPublicKey":"b"}}"#,
            r#"{"parameters":{"targetPublicKey":7}}"#,
            r#"{"type":"x",}"#,
            r#"{"type":"x"} trailing"#,
        ] {
            assert_eq!(
                inspect_payload(bad).unwrap_err().code(),
                ErrorCode::InvalidInput,
                "{bad}"
            );
        }
    }

    #[test]
    fn opaque_payloads_are_reported_as_such() {
        for opaque in [
            "eyJhbGciOiJFUzI1NiJ9.e30.sig",
            "",
            "[1,2]",
            "\"text\"",
            "AAEC",
        ] {
            assert_eq!(
                inspect_payload(opaque).unwrap(),
                PayloadInspection::default(),
                "{opaque}"
            );
        }
    }
}

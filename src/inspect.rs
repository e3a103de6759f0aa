//! What a `payloadToSign` authorizes, read before signing so a wallet UI can show it and
//! the flows can refuse a payload that authorizes something else (refresh checks the
//! target key with it). The payloads are Turnkey activity JSON
//! (`{organizationId, parameters, timestampMs, type}`); other payloads (a JWT-shaped
//! verification token, base64) are opaque and reported as such. Every signing path
//! refuses, with [`check_signable`], the JSON that this reader refuses.

use crate::error::{Error, ErrorCode, Result};
use crate::json::{fold_name, parse, Json, CASE_FOLDED_NAME, DUPLICATE_NAME};
use crate::prelude::*;
use crate::text::Decimal;

/// The readable parts of a payload. Every field is `None` (or empty) for opaque text.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct PayloadInspection {
    /// Whether the payload is a JSON object (an activity); `false` for opaque text and a
    /// JSON array.
    pub json: bool,
    /// The activity `type`, e.g. `ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2`.
    pub activity_type: Option<String>,
    /// `organizationId`.
    pub organization_id: Option<String>,
    /// `timestampMs`.
    pub timestamp_ms: Option<String>,
    /// Every `targetPublicKey` (in any letter case), at any depth: the keys the activity
    /// would empower.
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

/// Whether `payload` is read as JSON: its first character after JSON whitespace (or a
/// byte order mark, which some readers skip) is `{` or `[`. Anything else is opaque text.
fn is_json_text(payload: &str) -> bool {
    let mut rest = payload.as_bytes();
    loop {
        match rest {
            [b' ' | b'\t' | b'\n' | b'\r', tail @ ..] | [0xEF, 0xBB, 0xBF, tail @ ..] => {
                rest = tail
            }
            [first, ..] => return matches!(first, b'{' | b'['),
            [] => return false,
        }
    }
}

/// `payload` read as JSON, or `None` for opaque text. JSON text must be strict and name
/// each member of an object once, in any letter case: readers disagree on which of two
/// members counts (Go's `encoding/json` takes the last in any case), and a lenient one
/// reads text this reader refuses. Refused with `code`, naming what and at which byte.
fn read(payload: &str, code: ErrorCode) -> Result<Option<Json>> {
    if !is_json_text(payload) {
        return Ok(None);
    }
    parse(payload).map(Some).map_err(|e| {
        let what = if e.reason == DUPLICATE_NAME || e.reason == CASE_FOLDED_NAME {
            "payloadToSign is ambiguous: "
        } else {
            "payloadToSign is not valid JSON: "
        };
        Error::new(
            code,
            [what, e.reason, " at byte ", &Decimal::from(e.offset)].concat(),
        )
    })
}

/// Refuses with `code` what [`inspect_payload`] refuses: JSON text (starting with `{` or
/// `[`) that is not strict or repeats a member name in any letter case. Opaque text
/// passes. Every signing path runs it before signing; without the `payload-guard`
/// feature (the signing module) it lets everything through.
pub(crate) fn check_signable(payload: &str, code: ErrorCode) -> Result<()> {
    #[cfg(feature = "payload-guard")]
    read(payload, code)?;
    #[cfg(not(feature = "payload-guard"))]
    let _ = (payload, code);
    Ok(())
}

/// Reads `payload`. A payload that starts (after whitespace) with `{` or `[` must be
/// strict JSON naming each member once in any letter case (else `INVALID_INPUT`, as
/// every signing path refuses it); anything else is opaque text.
pub fn inspect_payload(payload: &str) -> Result<PayloadInspection> {
    let invalid = |message: String| Error::new(ErrorCode::InvalidInput, message);
    let Some(value) = read(payload, ErrorCode::InvalidInput)? else {
        return Ok(PayloadInspection::default());
    };
    let mut target_public_keys = Vec::new();
    collect_target_keys(&value, &mut target_public_keys)
        .map_err(|()| invalid("payloadToSign has a targetPublicKey that is not a string".into()))?;
    if !matches!(value, Json::Object(_)) {
        // An array is no activity; the keys in it are still reported.
        return Ok(PayloadInspection {
            target_public_keys,
            ..PayloadInspection::default()
        });
    }
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
                if fold_name(name) == "targetpublickey" {
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
    fn a_target_key_in_any_letter_case_is_a_target_key() {
        let p = inspect_payload(
            r#"{"parameters":{"TargetPublicKey":"k1"},"x":[{"TARGETPUBLICKEY":"k2"}]}"#,
        )
        .unwrap();
        assert_eq!(p.target_public_keys, ["k1", "k2"]);
        // So are the activity's fields, as a case-insensitive reader finds them.
        let p = inspect_payload(r#"{"Type":"T","Parameters":{"AMOUNT":"5"}}"#).unwrap();
        assert_eq!(
            (p.activity_type.as_deref(), p.amount.as_deref()),
            (Some("T"), Some("5"))
        );
        // An array is no activity, but the keys in it are reported.
        let p = inspect_payload(r#"[{"targetPublicKey":"k3"}]"#).unwrap();
        assert_eq!(
            (p.json, p.target_public_keys),
            (false, vec!["k3".to_owned()])
        );
    }

    #[test]
    fn names_equal_but_for_letter_case_are_refused_saying_so() {
        for (bad, byte) in [
            (
                r#"{"parameters":{"targetPublicKey":"ours","TargetPublicKey":"theirs"}}"#,
                "40",
            ),
            (r#"[{"a":{"Type":"x","type":"y"}}]"#, "18"),
        ] {
            let err = inspect_payload(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{bad}");
            assert_eq!(
                err.message(),
                [
                    "payloadToSign is ambiguous: member names equal but for letter case at byte ",
                    byte
                ]
                .concat()
            );
        }
    }

    #[test]
    fn text_read_as_json_must_be_strict_json() {
        // An array, or an object after whitespace or a byte order mark, is read as JSON:
        // text a lenient reader takes is not passed through as opaque.
        for bad in [
            "[{\"a\":1,\"a\":2}]",
            "[1,]",
            " \n{\"a\":1,}",
            "\u{feff}{\"a\":1}",
        ] {
            let err = inspect_payload(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{bad:?}");
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

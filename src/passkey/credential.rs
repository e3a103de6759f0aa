//! The JSON shapes the API takes: every binary field base64url without
//! padding, `clientDataJson` with a lowercase "json", `userHandle` omitted when absent.
//! Also the `POST /auth/credentials` PASSKEY body.

use crate::codec::base64url_encode;
use crate::error::{Error, ErrorCode, Result};
use crate::prelude::*;
use crate::text::Decimal;

/// A registration result: `{credentialId, clientDataJson, attestationObject, transports}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Attestation {
    /// base64url of the raw credential id.
    pub credential_id: String,
    /// base64url of clientDataJSON.
    pub client_data_json: String,
    /// base64url of the CBOR attestation object.
    pub attestation_object: String,
    /// Transport hints as the browser reported them (unknown values kept).
    pub transports: Vec<String>,
}

impl Attestation {
    /// From the raw bytes the browser returned.
    pub fn from_bytes(
        raw_id: &[u8],
        client_data_json: &[u8],
        attestation_object: &[u8],
        transports: Vec<String>,
    ) -> Self {
        Self {
            credential_id: base64url_encode(raw_id),
            client_data_json: base64url_encode(client_data_json),
            attestation_object: base64url_encode(attestation_object),
            transports,
        }
    }
}

/// An authentication result:
/// `{credentialId, clientDataJson, authenticatorData, signature, userHandle?}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Assertion {
    /// base64url of the raw credential id.
    pub credential_id: String,
    /// base64url of clientDataJSON.
    pub client_data_json: String,
    /// base64url of the authenticator data.
    pub authenticator_data: String,
    /// base64url of the DER signature.
    pub signature: String,
    /// base64url user handle; `None` (omitted) when the authenticator returned none.
    pub user_handle: Option<String>,
}

impl Assertion {
    /// From the raw bytes the browser returned. An empty user handle counts as absent.
    pub fn from_bytes(
        raw_id: &[u8],
        client_data_json: &[u8],
        authenticator_data: &[u8],
        signature: &[u8],
        user_handle: Option<&[u8]>,
    ) -> Self {
        Self {
            credential_id: base64url_encode(raw_id),
            client_data_json: base64url_encode(client_data_json),
            authenticator_data: base64url_encode(authenticator_data),
            signature: base64url_encode(signature),
            user_handle: user_handle.filter(|h| !h.is_empty()).map(base64url_encode),
        }
    }
}

/// Checks a passkey nickname: 1 to 100 characters, no control characters.
pub fn validate_nickname(nickname: &str) -> Result<()> {
    let count = crate::codec::char_count(nickname.as_bytes());
    if !(1..=100).contains(&count) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            [
                "nickname is ",
                &Decimal::from(count),
                " characters; it must be 1 to 100",
            ]
            .concat(),
        ));
    }
    if nickname.chars().any(char::is_control) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "nickname contains a control character",
        ));
    }
    if nickname.trim().is_empty() {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "nickname is only white space",
        ));
    }
    Ok(())
}

/// Checks an `accountId` for the credential body.
pub fn validate_account_id(account_id: &str) -> Result<()> {
    if account_id.is_empty() {
        return Err(Error::new(ErrorCode::InvalidInput, "accountId is required"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn attestation_fields_are_base64url_without_padding() {
        let a = Attestation::from_bytes(
            &[0xfb, 0xff],
            b"{\"type\":\"webauthn.create\"}",
            &[1],
            vec!["internal".into(), "hybrid".into()],
        );
        assert_eq!(a.credential_id, "-_8");
        assert_eq!(a.client_data_json, "eyJ0eXBlIjoid2ViYXV0aG4uY3JlYXRlIn0");
        assert_eq!(a.attestation_object, "AQ");
        assert_eq!(a.transports, ["internal", "hybrid"]);
    }

    #[test]
    fn user_handle_is_omitted_when_absent_or_empty() {
        let with = Assertion::from_bytes(&[1], b"{}", &[2], &[3], Some(b"user"));
        assert_eq!(with.user_handle.as_deref(), Some("dXNlcg"));
        assert_eq!(
            Assertion::from_bytes(&[1], b"{}", &[2], &[3], None).user_handle,
            None
        );
        assert_eq!(
            Assertion::from_bytes(&[1], b"{}", &[2], &[3], Some(b"")).user_handle,
            None
        );
    }

    #[test]
    fn nicknames() {
        assert!(validate_nickname("My phone").is_ok());
        assert!(validate_nickname(&"é".repeat(100)).is_ok());
        for (bad, needle) in [
            ("", "0 characters"),
            (&*"x".repeat(101), "101 characters"),
            ("a\nb", "control"),
            ("   ", "white space"),
        ] {
            let err = validate_nickname(bad).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput);
            assert!(err.message().contains(needle), "{err}");
        }
        assert!(validate_account_id("").is_err());
    }
}

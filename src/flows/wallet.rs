//! The wallet's operations as requests and response readers (spec §4.3, §4.2): the
//! credential flows (EMAIL_OTP, OAUTH, PASSKEY), sessions (refresh, revoke), credential
//! add/revoke, account export and update. Each is sans-IO, like the signed-retry driver.

pub use super::http::body_string;
use super::http::{expect_success, Request, Response};
use super::signed_retry::SignedRetryFlow;
use crate::client_key::ClientKey;
use crate::error::{Error, ErrorCode, Result};
use crate::fields::{is_kind_uuid, required};
use crate::passkey::{Assertion, AuthenticationInput};
use crate::session::Session;
use crate::timestamp::{parse_rfc3339, UnixMillis};

/// A JSON string literal (quotes included) with the escapes RFC 8259 requires.
pub fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A compact JSON object of string members, in the order given.
pub(crate) fn json_object(members: &[(&str, &str)]) -> String {
    let body: Vec<String> = members
        .iter()
        .map(|(k, v)| format!("{}:{}", json_string(k), json_string(v)))
        .collect();
    format!("{{{}}}", body.join(","))
}

/// An id to put in a path: `<kind>:<uuid>`, so it can never change the path's meaning.
pub(crate) fn path_id(id: &str, kind: &str, name: &str) -> Result<String> {
    if is_kind_uuid(id, kind) {
        Ok(id.to_owned())
    } else {
        Err(Error::new(
            ErrorCode::InvalidInput,
            format!("{name} is not of the form {kind}:<uuid>"),
        ))
    }
}

fn non_empty(value: &str, name: &str) -> Result<()> {
    if value.is_empty() {
        Err(Error::new(
            ErrorCode::InvalidInput,
            format!("{name} is required"),
        ))
    } else {
        Ok(())
    }
}

/// `POST /auth/credentials` for an EMAIL_OTP credential. On an account that already has
/// a credential the service answers 202: run it through [`add_credential`] instead.
pub fn create_email_otp(account_id: &str) -> Result<Request> {
    non_empty(account_id, "accountId")?;
    Ok(Request::new(
        "POST",
        "/auth/credentials",
        Some(json_object(&[
            ("type", "EMAIL_OTP"),
            ("accountId", account_id),
        ])),
    ))
}

/// Adding a credential to an account that has one: a signed retry of `POST
/// /auth/credentials` with `body` (the JSON text of any create variant).
pub fn add_credential(body: String) -> SignedRetryFlow {
    SignedRetryFlow::new(Request::new("POST", "/auth/credentials", Some(body)))
}

/// `POST /auth/credentials/{id}/challenge`: a new OTP (EMAIL_OTP, no key) or a passkey
/// challenge bound to `key` (PASSKEY).
pub fn challenge(credential_id: &str, key: Option<&ClientKey>) -> Result<Request> {
    let id = path_id(credential_id, "AuthMethod", "credential id")?;
    let body = match key {
        Some(key) => {
            key.check_unused()?;
            json_object(&[("clientPublicKey", &key.public_key_hex())])
        }
        None => "{}".to_owned(),
    };
    Ok(Request::new(
        "POST",
        format!("/auth/credentials/{id}/challenge"),
        Some(body),
    ))
}

/// `POST /auth/credentials/{id}/verify` with an OTP.
pub fn verify_email_otp(credential_id: &str, otp: &str, key: &ClientKey) -> Result<Request> {
    let id = path_id(credential_id, "AuthMethod", "credential id")?;
    non_empty(otp, "otp")?;
    key.check_unused()?;
    Ok(Request::new(
        "POST",
        format!("/auth/credentials/{id}/verify"),
        Some(json_object(&[
            ("type", "EMAIL_OTP"),
            ("otp", otp),
            ("clientPublicKey", &key.public_key_hex()),
        ])),
    ))
}

/// `POST /auth/credentials/{id}/verify` with a fresh OIDC token whose `nonce` is
/// `key.oidc_nonce()`.
pub fn verify_oauth(credential_id: &str, oidc_token: &str, key: &ClientKey) -> Result<Request> {
    let id = path_id(credential_id, "AuthMethod", "credential id")?;
    non_empty(oidc_token, "oidcToken")?;
    key.check_unused()?;
    Ok(Request::new(
        "POST",
        format!("/auth/credentials/{id}/verify"),
        Some(json_object(&[
            ("type", "OAUTH"),
            ("oidcToken", oidc_token),
            ("clientPublicKey", &key.public_key_hex()),
        ])),
    ))
}

/// What `POST /auth/credentials/{id}/challenge` answers for a passkey.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PasskeyChallenge {
    /// The AuthMethod the challenge is for.
    pub credential_id: String,
    /// The WebAuthn credential id (base64url).
    pub webauthn_credential_id: String,
    /// The challenge string (its UTF-8 bytes go to WebAuthn).
    pub challenge: String,
    /// `Request:<uuid>` for the verify call.
    pub request_id: String,
    /// When the challenge expires.
    pub expires_at_ms: UnixMillis,
}

impl PasskeyChallenge {
    /// Reads a PasskeyAuthChallenge body.
    pub fn from_response(credential_id: &str, response: &Response<'_>) -> Result<Self> {
        expect_success(response)?;
        const WHAT: &str = "passkey challenge";
        let code = ErrorCode::ServiceError;
        let body = response
            .body
            .ok_or_else(|| Error::new(code, "the passkey challenge response has no JSON body"))?;
        let request_id = required(body, "requestId", code, WHAT)?;
        if !is_kind_uuid(&request_id, "Request") {
            return Err(Error::new(
                code,
                "passkey challenge requestId is not of the form Request:<uuid>",
            ));
        }
        Ok(Self {
            credential_id: credential_id.to_owned(),
            webauthn_credential_id: required(body, "credentialId", code, WHAT)?,
            challenge: required(body, "challenge", code, WHAT)?,
            request_id,
            expires_at_ms: parse_rfc3339(
                &required(body, "expiresAt", code, WHAT)?,
                "passkey challenge expiresAt",
            )?,
        })
    }

    /// The options for `passkey.authenticate` (allowCredentials is exactly this credential).
    pub fn authentication_input(&self, rp_id: Option<&str>) -> AuthenticationInput {
        AuthenticationInput {
            challenge: Some(self.challenge.clone()),
            credential_id: Some(self.webauthn_credential_id.clone()),
            rp_id: rp_id.map(str::to_owned),
            ..Default::default()
        }
    }

    /// `POST /auth/credentials/{id}/verify` with the assertion and the challenge's Request-Id.
    pub fn verify_request(&self, assertion: &Assertion) -> Result<Request> {
        let id = path_id(&self.credential_id, "AuthMethod", "credential id")?;
        let mut members = vec![
            ("credentialId", assertion.credential_id.as_str()),
            ("clientDataJson", assertion.client_data_json.as_str()),
            ("authenticatorData", assertion.authenticator_data.as_str()),
            ("signature", assertion.signature.as_str()),
        ];
        if let Some(handle) = &assertion.user_handle {
            members.push(("userHandle", handle));
        }
        let body = format!(
            r#"{{"type":"PASSKEY","assertion":{}}}"#,
            json_object(&members)
        );
        Ok(
            Request::new("POST", format!("/auth/credentials/{id}/verify"), Some(body)).with_header(
                crate::signed_retry::REQUEST_ID_HEADER,
                self.request_id.clone(),
            ),
        )
    }
}

/// Opens the session of a verify (or refresh) response with `key`, remembering which
/// credential it came from (so revoking that credential with it can be refused).
pub fn open_session(
    response: &Response<'_>,
    key: &mut ClientKey,
    credential_id: Option<&str>,
) -> Result<Session> {
    expect_success(response)?;
    let body = response.body.ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidSession,
            "the session response has no JSON body",
        )
    })?;
    let session = Session::open(body, key)?;
    Ok(match credential_id {
        Some(id) => session.with_credential_id(id),
        None => session,
    })
}

/// Refresh (spec §4.2 item 8): a signed retry of `POST /auth/sessions/{id}/refresh` with
/// the new key, stamped by the current session; the payload must name the new key.
pub fn refresh(session: &Session, new_key: &ClientKey) -> Result<SignedRetryFlow> {
    new_key.check_unused()?;
    let id = path_id(&session.info().id, "Session", "session id")?;
    let body = json_object(&[("clientPublicKey", &new_key.public_key_hex())]);
    Ok(SignedRetryFlow::new(Request::new(
        "POST",
        format!("/auth/sessions/{id}/refresh"),
        Some(body),
    ))
    .expecting_target_key(new_key))
}

/// Refresh in client-held mode (newer deployments, DESIGN §3): the new key's
/// *compressed* public key is sent, which asks for no bundle: the new key itself becomes
/// the session key. The old session stamps, as in [`refresh`]; open the 201 with
/// [`open_client_held_session`].
pub fn refresh_client_held(session: &Session, new_key: &ClientKey) -> Result<SignedRetryFlow> {
    new_key.check_unused()?;
    let id = path_id(&session.info().id, "Session", "session id")?;
    let body = json_object(&[("clientPublicKey", &new_key.compressed_public_key_hex())]);
    Ok(SignedRetryFlow::new(Request::new(
        "POST",
        format!("/auth/sessions/{id}/refresh"),
        Some(body),
    ))
    .expecting_target_key(new_key))
}

/// The session of a client-held-key response (verify or refresh with a compressed
/// `clientPublicKey`): `key` becomes the session key (consumed). A response carrying
/// `encryptedSessionSigningKey` is `INVALID_SESSION`: the service did not take the
/// client-held flow, so the key must not be trusted as the session key.
pub fn open_client_held_session(
    response: &Response<'_>,
    key: &mut ClientKey,
    credential_id: Option<&str>,
) -> Result<Session> {
    expect_success(response)?;
    let body = response.body.ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidSession,
            "the session response has no JSON body",
        )
    })?;
    let session = Session::from_client_key(body, key)?;
    Ok(match credential_id {
        Some(id) => session.with_credential_id(id),
        None => session,
    })
}

/// `DELETE /auth/sessions/{id}` as a signed retry.
pub fn revoke_session(session: &Session) -> Result<SignedRetryFlow> {
    let id = path_id(&session.info().id, "Session", "session id")?;
    Ok(SignedRetryFlow::new(Request::new(
        "DELETE",
        format!("/auth/sessions/{id}"),
        None,
    )))
}

/// `DELETE /auth/credentials/{id}` as a signed retry. Refused here when `session` came
/// from that very credential: the service requires a session of a different one.
pub fn revoke_credential(session: &Session, credential_id: &str) -> Result<SignedRetryFlow> {
    let id = path_id(credential_id, "AuthMethod", "credential id")?;
    if session.credential_id() == Some(id.as_str()) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "a credential cannot be revoked with a session it issued; sign with a session of another credential",
        ));
    }
    Ok(SignedRetryFlow::new(Request::new(
        "DELETE",
        format!("/auth/credentials/{id}"),
        None,
    )))
}

/// `POST /internal-accounts/{id}/export` as a signed retry; the envelope is sealed to `key`.
pub fn export_wallet(account_id: &str, key: &ClientKey) -> Result<SignedRetryFlow> {
    let id = path_id(account_id, "InternalAccount", "account id")?;
    key.check_unused()?;
    let body = json_object(&[("clientPublicKey", &key.public_key_hex())]);
    Ok(SignedRetryFlow::new(Request::new(
        "POST",
        format!("/internal-accounts/{id}/export"),
        Some(body),
    )))
}

/// `PATCH /internal-accounts/{id}` with `patch` (JSON text) as a signed retry.
pub fn update_account(account_id: &str, patch: String) -> Result<SignedRetryFlow> {
    let id = path_id(account_id, "InternalAccount", "account id")?;
    Ok(SignedRetryFlow::new(Request::new(
        "PATCH",
        format!("/internal-accounts/{id}"),
        Some(patch),
    )))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::test_support::TestFields;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const CRED: &str = "AuthMethod:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b";

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n\u{1}é"), r#""a\"b\\c\n\u0001é""#);
        let parsed: serde_json::Value =
            serde_json::from_str(&json_object(&[("k", "v\"\u{7f}\u{2028}")])).unwrap();
        assert_eq!(parsed["k"], "v\"\u{7f}\u{2028}");
    }

    #[test]
    fn request_shapes() {
        let key = ClientKey::generate().unwrap();
        let r = verify_email_otp(CRED, "123456", &key).unwrap();
        assert_eq!(r.path, format!("/auth/credentials/{CRED}/verify"));
        let body: serde_json::Value = serde_json::from_str(r.body.as_deref().unwrap()).unwrap();
        assert_eq!(body["type"], "EMAIL_OTP");
        assert_eq!(body["clientPublicKey"], key.public_key_hex());
        let r = verify_oauth(CRED, "a.b.c", &key).unwrap();
        assert!(r
            .body
            .unwrap()
            .starts_with(r#"{"type":"OAUTH","oidcToken":"a.b.c""#));
        assert_eq!(challenge(CRED, None).unwrap().body.as_deref(), Some("{}"));
        assert!(challenge(CRED, Some(&key))
            .unwrap()
            .body
            .unwrap()
            .contains(&key.public_key_hex()));
        assert_eq!(
            create_email_otp("InternalAccount:1").unwrap().body.unwrap(),
            r#"{"type":"EMAIL_OTP","accountId":"InternalAccount:1"}"#
        );
    }

    #[test]
    fn client_held_refresh_sends_the_compressed_key_and_opens_without_a_bundle() {
        let session = Session::sandbox(
            &TestFields::default()
                .with("id", "Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4c")
                .with("accountId", "InternalAccount:1")
                .with("type", "EMAIL_OTP")
                .with("expiresAt", "2999-01-01T00:00:00Z"),
        )
        .unwrap();
        let mut key = ClientKey::generate().unwrap();
        let flow = refresh_client_held(&session, &key).unwrap();
        let body: serde_json::Value =
            serde_json::from_str(flow.first_request().body.as_deref().unwrap()).unwrap();
        assert_eq!(body["clientPublicKey"], key.compressed_public_key_hex());
        let fields = TestFields::default()
            .with("id", "Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4d")
            .with("accountId", "InternalAccount:1")
            .with("type", "EMAIL_OTP")
            .with("expiresAt", "2999-01-01T00:00:00Z");
        let respond = |fields| Response {
            status: 201,
            retry_after: None,
            body: Some(fields),
        };
        let with_bundle = fields.clone().with("encryptedSessionSigningKey", "x");
        let err = open_client_held_session(&respond(&with_bundle), &mut key, None).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidSession);
        assert!(!key.is_consumed());
        let expected = key.compressed_public_key_hex();
        let opened = open_client_held_session(&respond(&fields), &mut key, Some(CRED)).unwrap();
        assert_eq!(opened.public_key_hex(), Some(expected));
        assert!(key.is_consumed());
        assert_eq!(
            refresh_client_held(&session, &key).unwrap_err().code(),
            ErrorCode::KeyConsumed
        );
    }

    #[test]
    fn ids_cannot_change_the_path() {
        let key = ClientKey::generate().unwrap();
        for bad in [
            "AuthMethod:x/../../quotes",
            "../x",
            "",
            "AuthMethod:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b?x=1",
        ] {
            let err = verify_email_otp(bad, "1", &key).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{bad}");
        }
        assert_eq!(
            export_wallet("Session:1", &key).unwrap_err().code(),
            ErrorCode::InvalidInput
        );
    }

    #[test]
    fn consumed_keys_are_refused_before_any_request() {
        let mut key = ClientKey::generate().unwrap();
        key.consume();
        assert_eq!(
            verify_email_otp(CRED, "1", &key).unwrap_err().code(),
            ErrorCode::KeyConsumed
        );
        assert_eq!(
            challenge(CRED, Some(&key)).unwrap_err().code(),
            ErrorCode::KeyConsumed
        );
    }

    #[test]
    fn passkey_challenge_and_verify() {
        let body = TestFields::default()
            .with("credentialId", "AQID")
            .with("challenge", "ab")
            .with("requestId", "Request:123e4567-e89b-12d3-a456-426614174000")
            .with("expiresAt", "2025-10-13T12:05:00Z");
        let c = PasskeyChallenge::from_response(
            CRED,
            &Response {
                status: 200,
                retry_after: None,
                body: Some(&body),
            },
        )
        .unwrap();
        let input = c
            .authentication_input(Some("localhost"))
            .validate()
            .unwrap();
        assert_eq!(input.challenge_bytes(), b"ab");
        let assertion = Assertion::from_bytes(&[1, 2, 3], b"{}", &[4], &[5], None);
        let r = c.verify_request(&assertion).unwrap();
        assert_eq!(
            r.header("Request-Id"),
            Some("Request:123e4567-e89b-12d3-a456-426614174000")
        );
        let v: serde_json::Value = serde_json::from_str(r.body.as_deref().unwrap()).unwrap();
        assert_eq!(v["assertion"]["clientDataJson"], "e30");
        assert!(
            v["assertion"].get("userHandle").is_none(),
            "omitted when absent"
        );
        let limited = Response {
            status: 429,
            retry_after: Some("2"),
            body: None,
        };
        assert_eq!(
            PasskeyChallenge::from_response(CRED, &limited)
                .unwrap_err()
                .code(),
            ErrorCode::RateLimited
        );
    }
}

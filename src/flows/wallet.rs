//! The wallet's operations as requests and response readers: the
//! credential flows (EMAIL_OTP, OAUTH, PASSKEY), sessions (refresh, revoke), credential
//! add/revoke, account export and update. Each is sans-IO, like the signed-retry driver.

use super::http::{expect_success, Request, Response};
use super::signed_retry::SignedRetryFlow;
use crate::client_key::ClientKey;
use crate::error::{Error, ErrorCode, Result};
use crate::fields::{is_kind_uuid, optional, required, Fields};
use crate::json::json_object;
use crate::passkey::{Assertion, AuthenticationInput};
use crate::prelude::*;
use crate::session::Session;
use crate::timestamp::{parse_rfc3339, UnixMillis};

/// An id to put in a path: `<kind>:<uuid>`, so it can never change the path's meaning.
pub(crate) fn path_id(id: &str, kind: &str, name: &str) -> Result<String> {
    if is_kind_uuid(id, kind) {
        Ok(id.to_owned())
    } else {
        Err(Error::new(
            ErrorCode::InvalidInput,
            [name, " is not of the form ", kind, ":<uuid>"].concat(),
        ))
    }
}

fn non_empty(value: &str, name: &str) -> Result<()> {
    if value.is_empty() {
        Err(Error::new(
            ErrorCode::InvalidInput,
            [name, " is required"].concat(),
        ))
    } else {
        Ok(())
    }
}

// The operations are built through [`Operation::flow`], the one entry point. The forms
// below taking a `ClientKey` or a `Session` in hand (and checking the key unused) are
// crate-private; those only the tests call are compiled for them alone.

/// `POST /auth/credentials` for an EMAIL_OTP credential. On an account that already has
/// a credential the service answers 202: run it through [`add_credential`] instead.
pub(crate) fn create_email_otp(account_id: &str) -> Result<Request> {
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
pub(crate) fn add_credential(body: String) -> SignedRetryFlow {
    SignedRetryFlow::new(Request::new("POST", "/auth/credentials", Some(body)))
}

#[cfg(test)]
/// `POST /auth/credentials/{id}/challenge`: a new OTP (EMAIL_OTP, no key) or a passkey
/// challenge bound to `key` (PASSKEY).
pub(crate) fn challenge(credential_id: &str, key: Option<&ClientKey>) -> Result<Request> {
    match key {
        Some(key) => {
            key.check_unused()?;
            challenge_for(credential_id, Some(&key.public_key_hex()))
        }
        None => challenge_for(credential_id, None),
    }
}

/// [`challenge`] with the key's public half as given.
fn challenge_for(credential_id: &str, client_public_key: Option<&str>) -> Result<Request> {
    let id = path_id(credential_id, "AuthMethod", "credential id")?;
    let body = match client_public_key {
        Some(public) => json_object(&[("clientPublicKey", public)]),
        None => "{}".to_owned(),
    };
    Ok(Request::new(
        "POST",
        ["/auth/credentials/", &id, "/challenge"].concat(),
        Some(body),
    ))
}

#[cfg(test)]
/// `POST /auth/credentials/{id}/verify` with an OTP.
pub(crate) fn verify_email_otp(credential_id: &str, otp: &str, key: &ClientKey) -> Result<Request> {
    key.check_unused()?;
    verify_for(
        "EMAIL_OTP",
        credential_id,
        ("otp", otp),
        &key.public_key_hex(),
    )
}

/// A verify request of `kind` carrying `secret` (the OTP or the OIDC token) and the
/// client key's public half.
fn verify_for(
    kind: &str,
    credential_id: &str,
    (name, secret): (&str, &str),
    client_public_key: &str,
) -> Result<Request> {
    let id = path_id(credential_id, "AuthMethod", "credential id")?;
    non_empty(secret, name)?;
    Ok(Request::new(
        "POST",
        ["/auth/credentials/", &id, "/verify"].concat(),
        Some(json_object(&[
            ("type", kind),
            (name, secret),
            ("clientPublicKey", client_public_key),
        ])),
    ))
}

#[cfg(test)]
/// `POST /auth/credentials/{id}/verify` with a fresh OIDC token whose `nonce` is
/// `key.oidc_nonce()`.
pub(crate) fn verify_oauth(
    credential_id: &str,
    oidc_token: &str,
    key: &ClientKey,
) -> Result<Request> {
    key.check_unused()?;
    verify_for(
        "OAUTH",
        credential_id,
        ("oidcToken", oidc_token),
        &key.public_key_hex(),
    )
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
        let body = [
            r#"{"type":"PASSKEY","assertion":"#,
            &json_object(&members),
            "}",
        ]
        .concat();
        Ok(Request::new(
            "POST",
            ["/auth/credentials/", &id, "/verify"].concat(),
            Some(body),
        )
        .with_header(crate::message::REQUEST_ID_HEADER, self.request_id.clone()))
    }
}

/// Reads a `passkey.authenticate` result (or anything of its shape) for
/// [`PasskeyChallenge::verify_request`]; an empty `userHandle` counts as absent.
pub fn assertion_from_fields(fields: &dyn Fields) -> Result<Assertion> {
    const WHAT: &str = "assertion";
    let code = ErrorCode::InvalidInput;
    let field = |name| required(fields, name, code, WHAT);
    Ok(Assertion {
        credential_id: field("credentialId")?,
        client_data_json: field("clientDataJson")?,
        authenticator_data: field("authenticatorData")?,
        signature: field("signature")?,
        user_handle: optional(fields, "userHandle", code, WHAT)?.filter(|h| !h.is_empty()),
    })
}

/// What an operation needs of a session: its id, and the credential that issued it (so
/// revoking that credential with it can be refused).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SessionRef<'a> {
    /// `Session:<uuid>`.
    pub id: &'a str,
    /// The AuthMethod that issued the session, when known.
    pub credential_id: Option<&'a str>,
}

impl<'a> From<&'a Session> for SessionRef<'a> {
    fn from(session: &'a Session) -> Self {
        Self {
            id: &session.info().id,
            credential_id: session.credential_id(),
        }
    }
}

/// What an operation needs of a ClientKey: its public half in both hex forms.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct KeyRef<'a> {
    /// Uncompressed SEC1, 130 hex chars.
    pub public_key_hex: &'a str,
    /// Compressed SEC1, 66 hex chars.
    pub compressed_public_key_hex: &'a str,
}

/// Which session-key flow a client asks for, chosen once per client.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyMode {
    /// The spec's flow: an uncompressed `clientPublicKey`; the session key comes back
    /// sealed to it (`encryptedSessionSigningKey`, opened with [`Session::open`]).
    #[default]
    Sealed,
    /// Newer deployments: a *compressed* `clientPublicKey`; no bundle comes back, the
    /// client key itself becomes the session key ([`Session::from_client_key`]).
    ClientHeld,
}

impl KeyMode {
    /// The `clientPublicKey` this mode sends for `key`.
    pub fn client_public_key<'a>(self, key: KeyRef<'a>) -> &'a str {
        match self {
            Self::Sealed => key.public_key_hex,
            Self::ClientHeld => key.compressed_public_key_hex,
        }
    }

    /// The OAUTH `nonce` for a login with `key` in this mode: the hash of the exact
    /// `clientPublicKey` string the verify sends (compressed in client-held mode).
    pub fn oidc_nonce(self, key: KeyRef<'_>) -> String {
        // The OAUTH verify sends the key in the mode's own form (see Operation::key_mode).
        crate::client_key::oidc_nonce_for(self.client_public_key(key))
    }
}

/// The body of a session-issuing response, once its status says it is one.
fn session_body<'a>(response: &Response<'a>) -> Result<&'a dyn Fields> {
    expect_success(response)?;
    response.body.ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidSession,
            "the session response has no JSON body",
        )
    })
}

fn issued_by(session: Session, credential_id: Option<&str>) -> Session {
    match credential_id {
        Some(id) => session.with_credential_id(id),
        None => session,
    }
}

/// Opens the session of a verify (or refresh) response with `key`, remembering which
/// credential it came from (so revoking that credential with it can be refused).
pub fn open_session(
    response: &Response<'_>,
    key: &mut ClientKey,
    credential_id: Option<&str>,
) -> Result<Session> {
    let session = Session::open(session_body(response)?, key)?;
    Ok(issued_by(session, credential_id))
}

#[cfg(test)]
/// [`open_session`] against the API 2025-10-13 sandbox, whose bundle is a stub: a
/// [`Session::sandbox`] (explicit, never guessed from a failed decryption).
pub(crate) fn open_sandbox_session(
    response: &Response<'_>,
    credential_id: Option<&str>,
) -> Result<Session> {
    let session = Session::sandbox(session_body(response)?)?;
    Ok(issued_by(session, credential_id))
}

/// Refresh: a signed retry of `POST /auth/sessions/{id}/refresh` with
/// the new key, stamped by the current session; the payload must name the new key (in
/// [`KeyMode::ClientHeld`], its compressed form).
fn refresh_for(
    session: SessionRef<'_>,
    new_key: KeyRef<'_>,
    mode: KeyMode,
) -> Result<SignedRetryFlow> {
    let id = path_id(session.id, "Session", "session id")?;
    let body = json_object(&[("clientPublicKey", mode.client_public_key(new_key))]);
    Ok(SignedRetryFlow::new(Request::new(
        "POST",
        ["/auth/sessions/", &id, "/refresh"].concat(),
        Some(body),
    ))
    .expecting_target_keys(new_key.public_key_hex, new_key.compressed_public_key_hex))
}

#[cfg(test)]
/// Refresh in client-held mode (newer deployments): the new key's
/// *compressed* public key is sent, which asks for no bundle: the new key itself becomes
/// the session key. The old session stamps, as in [`refresh_for`]; open the 201 with
/// [`open_client_held_session`].
pub(crate) fn refresh_client_held(
    session: &Session,
    new_key: &ClientKey,
) -> Result<SignedRetryFlow> {
    refresh_with(session, new_key, KeyMode::ClientHeld)
}

#[cfg(test)]
fn refresh_with(session: &Session, new_key: &ClientKey, mode: KeyMode) -> Result<SignedRetryFlow> {
    new_key.check_unused()?;
    let (public, compressed) = (
        new_key.public_key_hex(),
        new_key.compressed_public_key_hex(),
    );
    refresh_for(
        session.into(),
        KeyRef {
            public_key_hex: &public,
            compressed_public_key_hex: &compressed,
        },
        mode,
    )
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
pub(crate) fn revoke_session<'a>(session: impl Into<SessionRef<'a>>) -> Result<SignedRetryFlow> {
    let id = path_id(session.into().id, "Session", "session id")?;
    Ok(SignedRetryFlow::new(Request::new(
        "DELETE",
        ["/auth/sessions/", &id].concat(),
        None,
    )))
}

/// `DELETE /auth/credentials/{id}` as a signed retry. Refused here when `session` came
/// from that very credential: the service requires a session of a different one.
pub(crate) fn revoke_credential<'a>(
    session: impl Into<SessionRef<'a>>,
    credential_id: &str,
) -> Result<SignedRetryFlow> {
    let id = path_id(credential_id, "AuthMethod", "credential id")?;
    if session.into().credential_id == Some(id.as_str()) {
        return Err(Error::new(
            ErrorCode::InvalidInput,
            "a credential cannot be revoked with a session it issued; sign with a session of another credential",
        ));
    }
    Ok(SignedRetryFlow::new(Request::new(
        "DELETE",
        ["/auth/credentials/", &id].concat(),
        None,
    )))
}

#[cfg(test)]
/// `POST /internal-accounts/{id}/export` as a signed retry; the envelope is sealed to `key`.
pub(crate) fn export_wallet(account_id: &str, key: &ClientKey) -> Result<SignedRetryFlow> {
    key.check_unused()?;
    export_wallet_for(account_id, &key.public_key_hex())
}

/// [`export_wallet`] with the key's public half (uncompressed hex) as given.
fn export_wallet_for(account_id: &str, client_public_key: &str) -> Result<SignedRetryFlow> {
    let id = path_id(account_id, "InternalAccount", "account id")?;
    let body = json_object(&[("clientPublicKey", client_public_key)]);
    Ok(SignedRetryFlow::new(Request::new(
        "POST",
        ["/internal-accounts/", &id, "/export"].concat(),
        Some(body),
    )))
}

/// `PATCH /internal-accounts/{id}` with `patch` (JSON text) as a signed retry.
pub(crate) fn update_account(account_id: &str, patch: String) -> Result<SignedRetryFlow> {
    let id = path_id(account_id, "InternalAccount", "account id")?;
    non_empty(&patch, "patch")?;
    Ok(SignedRetryFlow::new(Request::new(
        "PATCH",
        ["/internal-accounts/", &id].concat(),
        Some(patch),
    )))
}

/// `PATCH /customers/{id}` with `patch` (JSON text: the email or phone number an OTP
/// credential is tied to) as a signed retry.
fn update_customer(customer_id: &str, patch: &str) -> Result<SignedRetryFlow> {
    let id = path_id(customer_id, "Customer", "customer id")?;
    non_empty(patch, "patch")?;
    Ok(SignedRetryFlow::new(Request::new(
        "PATCH",
        ["/customers/", &id].concat(),
        Some(patch.to_owned()),
    )))
}

/// A wallet operation with what it needs, as one value: the one entry point to every
/// operation, natively and in the wasm `WalletClient` (which parses the operation's JS
/// name into this). A session and a key are given by their public parts
/// (`SessionRef::from(&session)`, a [`KeyRef`] of `ClientKey::public_key_hex` and
/// `compressed_public_key_hex`), so the flows need neither in hand; [`Operation::flow`]
/// builds the request (a plain one is a flow whose first request is all there is).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operation<'a> {
    /// `POST /auth/credentials` creating an EMAIL_OTP credential. On an account that
    /// already has a credential the service answers 202: use `AddCredential` instead.
    CreateEmailOtp {
        /// `InternalAccount:<uuid>`.
        account_id: &'a str,
    },
    /// `POST /auth/credentials` with a credential body, signed.
    AddCredential {
        /// The credential body, JSON text.
        body: &'a str,
    },
    /// `POST /auth/credentials/{id}/challenge`.
    Challenge {
        /// `AuthMethod:<uuid>`.
        credential_id: &'a str,
        /// The key the challenge binds (PASSKEY), if any.
        key: Option<KeyRef<'a>>,
    },
    /// The verify of an EMAIL_OTP credential.
    VerifyEmailOtp {
        /// `AuthMethod:<uuid>`.
        credential_id: &'a str,
        /// The code the user typed.
        otp: &'a str,
        /// The client key the session is sealed to.
        key: KeyRef<'a>,
    },
    /// The verify of an OAUTH credential.
    VerifyOauth {
        /// `AuthMethod:<uuid>`.
        credential_id: &'a str,
        /// The OIDC token, whose `nonce` is the key's ([`KeyMode::oidc_nonce`]).
        oidc_token: &'a str,
        /// The client key.
        key: KeyRef<'a>,
    },
    /// A signed refresh of `session` to `new_key`; the payload must
    /// name the new key. In [`KeyMode::ClientHeld`] the compressed key is sent and the
    /// new key itself becomes the session key ([`open_client_held_session`]).
    Refresh {
        /// The session that signs.
        session: SessionRef<'a>,
        /// The key of the new session.
        new_key: KeyRef<'a>,
    },
    /// `DELETE /auth/sessions/{id}`, signed.
    RevokeSession {
        /// The session revoked (it signs its own revocation).
        session: SessionRef<'a>,
    },
    /// `DELETE /auth/credentials/{id}`, signed by `session`.
    RevokeCredential {
        /// The session that signs (not one `credential_id` issued).
        session: SessionRef<'a>,
        /// `AuthMethod:<uuid>`.
        credential_id: &'a str,
    },
    /// `POST /internal-accounts/{id}/export`, signed.
    ExportWallet {
        /// `InternalAccount:<uuid>`.
        account_id: &'a str,
        /// The key the export envelope is sealed to.
        key: KeyRef<'a>,
    },
    /// `PATCH /internal-accounts/{id}`, signed.
    UpdateAccount {
        /// `InternalAccount:<uuid>`.
        account_id: &'a str,
        /// The patch, JSON text.
        patch: &'a str,
    },
    /// `PATCH /customers/{id}`, signed: the customer's email or phone number.
    UpdateCustomer {
        /// `Customer:<uuid>`.
        customer_id: &'a str,
        /// The patch, JSON text: `{"email":…}` or `{"phoneNumber":…}`.
        patch: &'a str,
    },
}

impl Operation<'_> {
    /// The mode this operation actually runs in when the client's mode is `mode`. Only the
    /// PASSKEY challenge, OAUTH verify and refresh take the compressed key; the
    /// plaintext-OTP verify and export take only the uncompressed one (the encrypted OTP
    /// login is [`super::OtpLogin`]). Open the operation's session accordingly.
    pub fn key_mode(&self, mode: KeyMode) -> KeyMode {
        match self {
            Self::Challenge { .. } | Self::VerifyOauth { .. } | Self::Refresh { .. } => mode,
            _ => KeyMode::Sealed,
        }
    }

    /// The flow that sends this operation (a plain request is a flow whose response is
    /// read without a session), with the `clientPublicKey` form [`Operation::key_mode`]
    /// picks.
    pub fn flow(&self, mode: KeyMode) -> Result<SignedRetryFlow> {
        let mode = self.key_mode(mode);
        let plain = |request: Result<Request>| request.map(SignedRetryFlow::new);
        match *self {
            Self::CreateEmailOtp { account_id } => plain(create_email_otp(account_id)),
            Self::AddCredential { body } => {
                non_empty(body, "the credential body")?;
                Ok(add_credential(body.to_owned()))
            }
            Self::Challenge { credential_id, key } => plain(challenge_for(
                credential_id,
                key.map(|k| mode.client_public_key(k)),
            )),
            Self::VerifyEmailOtp {
                credential_id,
                otp,
                key,
            } => plain(verify_for(
                "EMAIL_OTP",
                credential_id,
                ("otp", otp),
                key.public_key_hex,
            )),
            Self::VerifyOauth {
                credential_id,
                oidc_token,
                key,
            } => plain(verify_for(
                "OAUTH",
                credential_id,
                ("oidcToken", oidc_token),
                mode.client_public_key(key),
            )),
            Self::Refresh { session, new_key } => refresh_for(session, new_key, mode),
            Self::RevokeSession { session } => revoke_session(session),
            Self::RevokeCredential {
                session,
                credential_id,
            } => revoke_credential(session, credential_id),
            Self::ExportWallet { account_id, key } => {
                export_wallet_for(account_id, key.public_key_hex)
            }
            Self::UpdateAccount { account_id, patch } => {
                update_account(account_id, patch.to_owned())
            }
            Self::UpdateCustomer { customer_id, patch } => update_customer(customer_id, patch),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fields::test_support::TestFields;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const CRED: &str = "AuthMethod:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b";

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

    fn sandbox_response() -> TestFields {
        TestFields::default()
            .with("id", "Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b")
            .with("accountId", "InternalAccount:1")
            .with("type", "EMAIL_OTP")
            .with("expiresAt", "2999-10-13T12:15:00Z")
    }

    #[test]
    fn operations_build_their_requests() {
        const ACCOUNT: &str = "InternalAccount:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e5f";
        const CUSTOMER: &str = "Customer:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e60";
        const OTHER_CRED: &str = "AuthMethod:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e5f";
        let key = ClientKey::generate().unwrap();
        let body = sandbox_response();
        let ok = Response {
            status: 200,
            retry_after: None,
            body: Some(&body),
        };
        let session = open_sandbox_session(&ok, Some(CRED)).unwrap();
        assert_eq!(session.credential_id(), Some(CRED));
        let (public, compressed) = (key.public_key_hex(), key.compressed_public_key_hex());
        let key = KeyRef {
            public_key_hex: &public,
            compressed_public_key_hex: &compressed,
        };
        let session = SessionRef::from(&session);
        let first = |operation: Operation<'_>| {
            operation
                .flow(KeyMode::Sealed)
                .map(|flow| flow.first_request())
                .map(|r| (r.method, r.path, r.body))
        };
        use Operation as Op;
        let cases: [(Operation<'_>, Option<&str>, &str, String); 11] = [
            (
                Op::CreateEmailOtp {
                    account_id: ACCOUNT,
                },
                None,
                "POST",
                "/auth/credentials".into(),
            ),
            (
                Op::AddCredential { body: "{\"x\":1}" },
                Some("{\"x\":1}"),
                "POST",
                "/auth/credentials".into(),
            ),
            (
                Op::Challenge {
                    credential_id: CRED,
                    key: Some(key),
                },
                None,
                "POST",
                format!("/auth/credentials/{CRED}/challenge"),
            ),
            (
                Op::VerifyEmailOtp {
                    credential_id: CRED,
                    otp: "123456",
                    key,
                },
                Some("123456"),
                "POST",
                format!("/auth/credentials/{CRED}/verify"),
            ),
            (
                Op::VerifyOauth {
                    credential_id: CRED,
                    oidc_token: "a.b.c",
                    key,
                },
                Some("a.b.c"),
                "POST",
                format!("/auth/credentials/{CRED}/verify"),
            ),
            (
                Op::Refresh {
                    session,
                    new_key: key,
                },
                None,
                "POST",
                format!("/auth/sessions/{}/refresh", session.id),
            ),
            (
                Op::RevokeSession { session },
                None,
                "DELETE",
                format!("/auth/sessions/{}", session.id),
            ),
            (
                Op::RevokeCredential {
                    session,
                    credential_id: OTHER_CRED,
                },
                None,
                "DELETE",
                format!("/auth/credentials/{OTHER_CRED}"),
            ),
            (
                Op::ExportWallet {
                    account_id: ACCOUNT,
                    key,
                },
                None,
                "POST",
                format!("/internal-accounts/{ACCOUNT}/export"),
            ),
            (
                Op::UpdateAccount {
                    account_id: ACCOUNT,
                    patch: "{}",
                },
                Some("{}"),
                "PATCH",
                format!("/internal-accounts/{ACCOUNT}"),
            ),
            (
                Op::UpdateCustomer {
                    customer_id: CUSTOMER,
                    patch: r#"{"email":"a@b.co"}"#,
                },
                Some(r#"{"email":"a@b.co"}"#),
                "PATCH",
                format!("/customers/{CUSTOMER}"),
            ),
        ];
        for (operation, text, method, path) in cases {
            let (m, p, b) = first(operation).unwrap();
            assert_eq!(
                (m.as_str(), p.as_str()),
                (method, path.as_str()),
                "{operation:?}"
            );
            if let Some(text) = text {
                assert!(
                    b.unwrap().contains(text.trim_matches(['{', '}'])),
                    "{operation:?}"
                );
            }
        }
        // An empty text is named; nothing is built without it. (A missing session or key
        // cannot be expressed here; the binding that parses names reports those.)
        for (operation, needle) in [
            (
                Op::AddCredential { body: "" },
                "credential body is required",
            ),
            (
                Op::UpdateAccount {
                    account_id: ACCOUNT,
                    patch: "",
                },
                "patch is required",
            ),
            (
                Op::UpdateCustomer {
                    customer_id: CUSTOMER,
                    patch: "",
                },
                "patch is required",
            ),
            (
                Op::UpdateCustomer {
                    customer_id: ACCOUNT,
                    patch: "{}",
                },
                "customer id is not of the form Customer:<uuid>",
            ),
            (
                Op::VerifyEmailOtp {
                    credential_id: CRED,
                    otp: "",
                    key,
                },
                "otp is required",
            ),
            (
                Op::VerifyOauth {
                    credential_id: CRED,
                    oidc_token: "",
                    key,
                },
                "oidcToken is required",
            ),
        ] {
            let err = first(operation).unwrap_err();
            assert!(err.message().contains(needle), "{operation:?}: {err}");
        }
        // The session issued by a credential may not revoke it (checked before any request).
        let err = first(Op::RevokeCredential {
            session,
            credential_id: CRED,
        })
        .unwrap_err();
        assert!(err.message().contains("cannot be revoked"), "{err}");
    }

    #[test]
    fn client_held_mode_sends_the_compressed_key_where_the_service_takes_it() {
        const ACCOUNT: &str = "InternalAccount:5d2c8f3e-1a4b-4c6d-8e9f-0a1b2c3d4e5f";
        let key = ClientKey::generate().unwrap();
        let (public, compressed) = (key.public_key_hex(), key.compressed_public_key_hex());
        let key = KeyRef {
            public_key_hex: &public,
            compressed_public_key_hex: &compressed,
        };
        let session = SessionRef {
            id: "Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4c",
            credential_id: None,
        };
        let sent = |operation: Operation<'_>, mode| {
            let body = operation.flow(mode).unwrap().first_request().body.unwrap();
            let v: serde_json::Value = serde_json::from_str(&body).unwrap();
            v["clientPublicKey"].as_str().unwrap().to_owned()
        };
        use Operation as Op;
        for (operation, client_held_form) in [
            (
                Op::Challenge {
                    credential_id: CRED,
                    key: Some(key),
                },
                &compressed,
            ),
            (
                Op::VerifyOauth {
                    credential_id: CRED,
                    oidc_token: "a.b.c",
                    key,
                },
                &compressed,
            ),
            (
                Op::Refresh {
                    session,
                    new_key: key,
                },
                &compressed,
            ),
            // The plaintext-OTP verify and export take only the uncompressed key.
            (
                Op::VerifyEmailOtp {
                    credential_id: CRED,
                    otp: "123456",
                    key,
                },
                &public,
            ),
            (
                Op::ExportWallet {
                    account_id: ACCOUNT,
                    key,
                },
                &public,
            ),
        ] {
            assert_eq!(sent(operation, KeyMode::Sealed), public, "{operation:?}");
            assert_eq!(
                sent(operation, KeyMode::ClientHeld),
                *client_held_form,
                "{operation:?}"
            );
            let held = operation.key_mode(KeyMode::ClientHeld) == KeyMode::ClientHeld;
            assert_eq!(held, client_held_form == &compressed, "{operation:?}");
        }
        // The client-held refresh still signs only a payload naming the new key.
        let mut flow = Op::Refresh {
            session,
            new_key: key,
        }
        .flow(KeyMode::ClientHeld)
        .unwrap();
        let other = ClientKey::generate().unwrap().compressed_public_key_hex();
        let payload = format!(r#"{{"parameters":{{"targetPublicKey":"{other}"}}}}"#);
        let pending = TestFields::default()
            .with("payloadToSign", &payload)
            .with("requestId", "Request:123e4567-e89b-12d3-a456-426614174000")
            .with("expiresAt", "2999-01-01T00:00:00Z");
        let asked = Response {
            status: 202,
            retry_after: None,
            body: Some(&pending),
        };
        assert_eq!(
            flow.next_step(&asked).unwrap_err().code(),
            ErrorCode::InvalidPendingSignature
        );
    }

    #[test]
    fn the_oidc_nonce_hashes_the_form_the_mode_sends() {
        use sha2::{Digest, Sha256};
        let hex_sha256 = |text: &str| {
            Sha256::digest(text.as_bytes())
                .iter()
                .map(|b| format!("{b:02x}"))
                .collect::<String>()
        };
        // The research notes' worked example (§4) for the uncompressed form.
        const DOC_KEY: &str = "04f45f2a22c908b9ce09a7150e514afd24627c401c38a4afc164e1ea783adaaa31d4245acfb88c2ebd42b47628d63ecabf345484f0a9f665b63c54c897d5578be2";
        let doc = crate::public_key::parse_public_key_hex(DOC_KEY, "k").unwrap();
        let compressed = crate::public_key::compressed_hex(&doc);
        let key = KeyRef {
            public_key_hex: DOC_KEY,
            compressed_public_key_hex: &compressed,
        };
        assert_eq!(
            KeyMode::Sealed.oidc_nonce(key),
            "4b291f88b726d517661ed1a509fd2d8f7a006d1c377d876fec09de6997ba8066"
        );
        assert_eq!(KeyMode::ClientHeld.oidc_nonce(key), hex_sha256(&compressed));
        assert_eq!(compressed.len(), 66);
    }

    #[test]
    fn sessions_from_responses() {
        let body = sandbox_response();
        let pending = Response {
            status: 401,
            retry_after: None,
            body: Some(&body),
        };
        assert_eq!(
            open_sandbox_session(&pending, None).unwrap_err().code(),
            ErrorCode::Unauthorized
        );
        let empty = Response {
            status: 200,
            retry_after: None,
            body: None,
        };
        assert_eq!(
            open_sandbox_session(&empty, None).unwrap_err().code(),
            ErrorCode::InvalidSession
        );
        let mut key = ClientKey::generate().unwrap();
        assert_eq!(
            open_session(&empty, &mut key, None).unwrap_err().code(),
            ErrorCode::InvalidSession
        );
        assert!(!key.is_consumed(), "a failed open leaves the key usable");
        let s = open_sandbox_session(
            &Response {
                status: 201,
                retry_after: None,
                body: Some(&body),
            },
            None,
        )
        .unwrap();
        assert!(s.is_sandbox() && s.credential_id().is_none());
    }

    #[test]
    fn assertions_from_fields() {
        let fields = TestFields::default()
            .with("credentialId", "AQID")
            .with("clientDataJson", "e30")
            .with("authenticatorData", "BA")
            .with("signature", "BQ")
            .with("userHandle", "");
        let a = assertion_from_fields(&fields).unwrap();
        assert_eq!(
            a,
            Assertion::from_bytes(&[1, 2, 3], b"{}", &[4], &[5], None)
        );
        let a = assertion_from_fields(&fields.clone().with("userHandle", "Bg")).unwrap();
        assert_eq!(a.user_handle.as_deref(), Some("Bg"));
        let err = assertion_from_fields(&fields.without("signature")).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidInput);
        assert_eq!(err.message(), "assertion has no signature");
    }
}

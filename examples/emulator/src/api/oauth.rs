//! OAUTH credentials: create (one per identity `(iss, sub)`) and verify with a fresh
//! `oidcToken` (no challenge step: `login::challenge` answers 400). Strict vs sandbox:
//! strict verifies ES256 tokens from the built-in issuer (on verify with `nonce` = the
//! SHA-256 hex of `clientPublicKey`); sandbox checks a create token's structure and `iss`,
//! and takes only `sandbox-valid-oidc-token` on verify.

use embedded_wallet_kit::service::oidc_nonce_for;
use embedded_wallet_kit::PublicKey;
use serde_json::{Map, Value};

use super::credentials::NewCredential;
use super::http::{not_found_credential, req_str};
use super::sessions::client_key_any;
use super::{App, SANDBOX_OIDC_TOKEN};
use crate::crypto::{decode_jwt, SANDBOX_ISSUERS};
use crate::error::{ApiError, ApiResult};
use crate::state::State;

/// OAUTH create: strict verifies the token against the built-in issuer (no nonce: there
/// is no clientPublicKey on create); sandbox checks structure and a recognised `iss`.
fn check_oauth_create(app: &App, token: &str, now: i64) -> ApiResult<Value> {
    const INVALID: &str = "Invalid OIDC token";
    if app.strict() {
        return app
            .issuer
            .verify(token, now, None)
            .map_err(|why| ApiError::unauthorized(format!("{INVALID}: {why}")));
    }
    let jwt = decode_jwt(token).map_err(|_| ApiError::unauthorized(INVALID))?;
    let claims = jwt.claims;
    let iss = claims
        .get("iss")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let known = SANDBOX_ISSUERS.contains(&iss) || iss == app.issuer.iss;
    let sub_ok = claims
        .get("sub")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty());
    if known && sub_ok {
        Ok(claims)
    } else {
        Err(ApiError::unauthorized(INVALID))
    }
}

/// OAUTH create `{oidcToken}`: one credential per identity on an account; the nickname is
/// the token's email, else its `sub`.
pub(super) fn new_credential(
    app: &App,
    st: &State,
    body: &Map<String, Value>,
    account_id: &str,
    now: i64,
) -> ApiResult<NewCredential> {
    let token = req_str(body, "oidcToken")?;
    let claims = check_oauth_create(app, token, now)?;
    let iss = claims["iss"].as_str().unwrap_or_default().to_owned();
    let sub = claims["sub"].as_str().unwrap_or_default().to_owned();
    if st
        .active_credentials(account_id)
        .any(|c| c.oauth.as_ref() == Some(&(iss.clone(), sub.clone())))
    {
        return Err(ApiError::bad_request(
            "OAUTH_CREDENTIAL_ALREADY_EXISTS",
            "the account already has an OAUTH credential for this identity (iss, sub)",
        ));
    }
    let nickname = claims
        .get("email")
        .and_then(Value::as_str)
        .unwrap_or(&sub)
        .to_owned();
    Ok(NewCredential {
        nickname,
        oauth: Some((iss, sub)),
        passkey: None,
    })
}

/// OAUTH verify `{oidcToken, clientPublicKey}`: `(key, client_held)` for the session.
pub(super) fn verify(
    app: &App,
    st: &State,
    body: &Map<String, Value>,
    id: &str,
    now: i64,
) -> ApiResult<(PublicKey, bool)> {
    let cred = st.credential(id).ok_or_else(|| not_found_credential(id))?;
    let token = req_str(body, "oidcToken")?;
    let (client_hex, client, client_held) = client_key_any(st, body)?;
    if app.strict() {
        let claims = app
            .issuer
            .verify(token, now, Some(&oidc_nonce_for(&client_hex)))
            .map_err(|why| ApiError::unauthorized(format!("Invalid OIDC token: {why}")))?;
        let identity = (
            claims["iss"].as_str().unwrap_or_default().to_owned(),
            claims["sub"].as_str().unwrap_or_default().to_owned(),
        );
        if cred.oauth.as_ref() != Some(&identity) {
            return Err(ApiError::unauthorized(
                "Invalid OIDC token: iss/sub is not the identity registered on this credential",
            ));
        }
    } else if token != SANDBOX_OIDC_TOKEN {
        return Err(ApiError::unauthorized("Invalid OIDC token"));
    }
    Ok((client, client_held))
}

//! Sessions: `GET /auth/sessions?accountId=`, `POST /auth/sessions/{id}/refresh` and
//! `DELETE /auth/sessions/{id}`, plus
//! what every session-issuing endpoint shares: reading `clientPublicKey` (either key form
//! for client-held sessions) and `issue_session`. Strict vs sandbox: `issue_session`
//! (a sealed session key vs the stub bundle).

use std::collections::HashMap;

use axum::extract::{Path, Query, State as AxumState};
use axum::http::StatusCode;
use axum::response::Response;
use embedded_wallet_kit::parse_public_key_hex;
use embedded_wallet_kit::service::compressed_hex;
use embedded_wallet_kit::PublicKey;
use embedded_wallet_kit::REQUEST_ID_HEADER;
use serde_json::{json, Map, Value};

use super::http::{account_query, json_response, no_content, not_found_credential, req_str, Req};
use super::signed_retry::{signed_retry, Leg, RetrySpec};
use super::{App, Shared};
use crate::crypto::{seal_session_key, stub_bundle};
use crate::error::{ApiError, ApiResult};
use crate::state::{Purpose, SessionRec, State};
use crate::util::{matches_any_client_key_pattern, matches_client_key_pattern, new_id, now_ms};

/// `clientPublicKey`: a string that `pattern_ok` accepts (else 400 naming `pattern`),
/// then a point on P-256.
fn read_client_key<'a>(
    m: &'a Map<String, Value>,
    pattern_ok: fn(&str) -> bool,
    pattern: &str,
) -> ApiResult<(&'a str, PublicKey)> {
    let text = req_str(m, "clientPublicKey")?;
    if !pattern_ok(text) {
        return Err(
            ApiError::invalid(format!("clientPublicKey must be {pattern}"))
                .with_reason("clientPublicKey pattern"),
        );
    }
    let key = parse_public_key_hex(text, "clientPublicKey").map_err(|_| {
        ApiError::invalid("clientPublicKey is not a point on P-256")
            .with_reason("clientPublicKey point")
    })?;
    Ok((text, key))
}

/// A `clientPublicKey`: the spec pattern, then a point on P-256.
pub(super) fn client_key(m: &Map<String, Value>) -> ApiResult<(String, PublicKey)> {
    let (text, key) = read_client_key(
        m,
        matches_client_key_pattern,
        "an uncompressed P-256 key in hex: ^04[0-9a-fA-F]{128}$",
    )?;
    Ok((text.to_owned(), key))
}

/// A `clientPublicKey` where newer deployments also take the compressed form (challenge,
/// OAUTH verify, refresh; research notes §9): `(hex, key, client_held)`, where a
/// compressed key asks for the client-held flow (no bundle; the key is the session key).
pub(super) fn client_key_any(
    st: &State,
    m: &Map<String, Value>,
) -> ApiResult<(String, PublicKey, bool)> {
    let (text, key) = read_client_key(
        m,
        matches_any_client_key_pattern,
        "a P-256 key in hex: ^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$",
    )?;
    let client_held = text.len() == 66;
    if client_held {
        fresh_session_key(st, &key)?;
    }
    Ok((text.to_owned(), key, client_held))
}

/// A client-held key becomes a session key: stamps find their session by key, so one
/// key must never belong to two sessions.
pub(super) fn fresh_session_key(st: &State, key: &PublicKey) -> ApiResult<()> {
    let hex = compressed_hex(key);
    if st
        .sessions
        .iter()
        .any(|s| s.public_key.as_deref() == Some(hex.as_str()))
    {
        return Err(ApiError::invalid(
            "this key is already the key of a session; generate a new one",
        )
        .with_reason("clientPublicKey reused"));
    }
    Ok(())
}

/// Creates a session for `credential_id`, its key sealed to `client` (strict) or a stub
/// bundle (sandbox); returns the response body.
pub(super) fn issue_session(
    app: &App,
    st: &mut State,
    credential_id: &str,
    client: &PublicKey,
    client_held: bool,
    now: i64,
) -> ApiResult<Value> {
    let cred = st
        .credential(credential_id)
        .ok_or_else(|| not_found_credential(credential_id))?;
    let (bundle, public_key) = if client_held {
        // Newer deployments: no bundle; the client's key is the session key.
        (None, Some(compressed_hex(client)))
    } else if app.strict() {
        let (bundle, public) = seal_session_key(client)
            .map_err(|e| ApiError::invalid(format!("cannot seal to clientPublicKey: {e}")))?;
        (Some(bundle), Some(public))
    } else {
        (Some(stub_bundle()), None)
    };
    let session = SessionRec {
        id: new_id("Session"),
        account_id: cred.account_id.clone(),
        credential_id: cred.id.clone(),
        kind: cred.kind,
        nickname: cred.nickname.clone(),
        passkey_credential_id: cred.passkey.as_ref().map(|p| p.credential_id.clone()),
        created_ms: now,
        expires_ms: now + App::ms(app.config.session_ttl),
        public_key,
        revoked: false,
    };
    let mut json = session.to_json();
    if let Some(bundle) = bundle {
        json["encryptedSessionSigningKey"] = json!(bundle);
    }
    st.sessions.push(session);
    Ok(json)
}

/// 401 for a session that was revoked (or whose credential was), or has expired.
pub(super) fn ensure_live(st: &State, session: &SessionRec, now: i64) -> ApiResult<()> {
    if session.revoked || st.credential(&session.credential_id).is_none() {
        return Err(ApiError::unauthorized("Session revoked"));
    }
    if now >= session.expires_ms {
        return Err(ApiError::unauthorized("Session expired"));
    }
    Ok(())
}

/// `GET /auth/sessions?accountId=`: the account's live sessions (a login or refresh that
/// settled while its client was away shows here).
pub async fn list_sessions(
    AxumState(app): AxumState<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let now = now_ms();
    let st = app.lock();
    let account_id = account_query(&st, &query)?;
    let data: Vec<Value> = st
        .sessions
        .iter()
        .filter(|s| s.account_id == account_id && ensure_live(&st, s, now).is_ok())
        .map(SessionRec::to_json)
        .collect();
    Ok(json_response(StatusCode::OK, &json!({ "data": data })))
}

pub(super) fn active_session<'a>(st: &'a State, id: &str, now: i64) -> ApiResult<&'a SessionRec> {
    let session = st
        .session(id)
        .ok_or_else(|| ApiError::not_found(format!("session {id} not found")))?;
    ensure_live(st, session, now)?;
    Ok(session)
}

/// `POST /auth/sessions/{id}/refresh`.
pub async fn refresh(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json()?;
    let now = now_ms();
    let mut st = app.lock();
    let (client_hex, client, client_held) = client_key_any(&st, &body)?;
    let session = active_session(&st, &id, now)?;
    let (account_id, credential_id) = (session.account_id.clone(), session.credential_id.clone());
    let spec = RetrySpec::new(
        &account_id,
        Purpose::Refresh,
        "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
        json!({
            "expirationSeconds": app.config.session_ttl.as_secs().to_string(),
            "sessionId": id,
            "targetPublicKey": client_hex,
        }),
    );
    let authorized = match signed_retry(&app, &mut st, &req, spec, now)? {
        Leg::Issued(response) => return Ok(response),
        Leg::Authorized(a) => a,
    };
    if let Some(signer) = &authorized.signer {
        if signer.session_id != id {
            return Err(ApiError::unauthorized(
                "Invalid Service-Wallet-Signature: a refresh must be signed by the session being refreshed",
            ));
        }
    }
    let new = issue_session(&app, &mut st, &credential_id, &client, client_held, now)?;
    authorized.consume(&mut st);
    Ok(json_response(StatusCode::CREATED, &new))
}

/// `DELETE /auth/sessions/{id}`.
pub async fn revoke_session(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let now = now_ms();
    let mut st = app.lock();
    let retrying = req.header(REQUEST_ID_HEADER).is_some();
    let session = st
        .session(&id)
        .filter(|s| !s.revoked || retrying)
        .ok_or_else(|| ApiError::not_found(format!("session {id} not found")))?;
    let account_id = session.account_id.clone();
    let spec = RetrySpec::new(
        &account_id,
        Purpose::RevokeSession,
        "ACTIVITY_TYPE_DELETE_API_KEYS",
        json!({"sessionId": id}),
    );
    let authorized = match signed_retry(&app, &mut st, &req, spec, now)? {
        Leg::Issued(response) => return Ok(response),
        Leg::Authorized(a) => a,
    };
    for s in st.sessions.iter_mut().filter(|s| s.id == id) {
        s.revoked = true;
    }
    authorized.consume(&mut st);
    Ok(no_content())
}

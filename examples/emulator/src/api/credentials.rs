//! Credentials: `POST /auth/credentials` (a signed retry once the account has one),
//! `GET /auth/credentials?accountId=` and `DELETE /auth/credentials/{id}` (a signed retry,
//! by a session of a different credential). Each kind's create checks live in its module
//! (`otp`, `oauth`, `passkey`), with their strict/sandbox differences.

use std::collections::HashMap;

use axum::extract::{Path, Query, State as AxumState};
use axum::http::StatusCode;
use axum::response::Response;
use embedded_wallet_kit::REQUEST_ID_HEADER;
use serde_json::{json, Map, Value};

use super::http::{
    account_query, json_response, no_content, not_found_account, not_found_credential, opt_str,
    req_str, Req,
};
use super::signed_retry::{signed_retry, Leg, RetrySpec};
use super::{oauth, otp, passkey, App, Shared};
use crate::error::{ApiError, ApiResult};
use crate::state::{CredKind, Credential, Passkey, Purpose, State};
use crate::util::{new_id, now_ms};

/// A validated `POST /auth/credentials` body, ready to become a credential.
pub(super) struct NewCredential {
    pub(super) nickname: String,
    pub(super) oauth: Option<(String, String)>,
    pub(super) passkey: Option<Passkey>,
}

/// 400 `code` when the account already has an active credential of `kind` (EMAIL_OTP
/// and PASSKEY: one per account).
pub(super) fn ensure_none_of_kind(
    st: &State,
    account_id: &str,
    kind: CredKind,
    code: &str,
    message: &str,
) -> ApiResult<()> {
    if st.active_credentials(account_id).any(|c| c.kind == kind) {
        return Err(ApiError::bad_request(code, message));
    }
    Ok(())
}

fn validate_new_credential(
    app: &App,
    st: &State,
    body: &Map<String, Value>,
    kind: CredKind,
    account_id: &str,
    now: i64,
) -> ApiResult<NewCredential> {
    match kind {
        CredKind::EmailOtp => otp::new_credential(st, account_id),
        CredKind::Oauth => oauth::new_credential(app, st, body, account_id, now),
        CredKind::Passkey => passkey::new_credential(app, st, body, account_id),
    }
}

fn add_activity(kind: CredKind) -> &'static str {
    match kind {
        CredKind::Passkey => "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
        CredKind::Oauth => "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
        CredKind::EmailOtp => "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
    }
}

fn revoke_activity(kind: CredKind) -> &'static str {
    match kind {
        CredKind::Passkey => "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
        CredKind::Oauth => "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
        CredKind::EmailOtp => "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
    }
}

/// `POST /auth/credentials`.
pub async fn create_credential(AxumState(app): AxumState<Shared>, req: Req) -> ApiResult<Response> {
    let body = req.json()?;
    let kind = match opt_str(&body, "type")? {
        Some(t) => CredKind::parse(t)
            .ok_or_else(|| ApiError::invalid("type must be EMAIL_OTP, OAUTH or PASSKEY"))?,
        None if body.contains_key("attestation") => CredKind::Passkey,
        None => return Err(ApiError::invalid("type is required")),
    };
    let account_id = req_str(&body, "accountId")?.to_owned();
    let now = now_ms();
    let mut st = app.lock();
    let account = st
        .account(&account_id)
        .ok_or_else(|| not_found_account(&account_id))?;
    if account.kind != "EMBEDDED_WALLET" {
        return Err(ApiError::invalid(
            "credentials belong to EMBEDDED_WALLET internal accounts only",
        ));
    }
    let new = validate_new_credential(&app, &st, &body, kind, &account_id, now)?;
    let mut authorized = None;
    if st.active_credentials(&account_id).next().is_some() {
        let mut parameters = json!({"credentialType": kind.as_str(), "nickname": new.nickname});
        if let Some(p) = &new.passkey {
            parameters["credentialId"] = json!(p.credential_id);
        }
        let spec = RetrySpec {
            kind: Some(kind),
            ..RetrySpec::new(
                &account_id,
                Purpose::AddCredential,
                add_activity(kind),
                parameters,
            )
        };
        match signed_retry(&app, &mut st, &req, spec, now)? {
            Leg::Issued(response) => return Ok(response),
            Leg::Authorized(a) => authorized = Some(a),
        }
    }
    let credential = Credential {
        id: new_id("AuthMethod"),
        account_id,
        kind,
        nickname: new.nickname,
        created_ms: now,
        updated_ms: now,
        revoked: false,
        otp: None,
        oauth: new.oauth,
        passkey: new.passkey,
        last_challenge_ms: None,
    };
    let id = credential.id.clone();
    let json = credential.to_json();
    st.credentials.push(credential);
    if kind == CredKind::EmailOtp {
        otp::send_otp(&app, &mut st, &id, now);
    }
    if let Some(a) = authorized {
        a.consume(&mut st);
    }
    Ok(json_response(StatusCode::CREATED, &json))
}

/// `GET /auth/credentials?accountId=`.
pub async fn list_credentials(
    AxumState(app): AxumState<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let st = app.lock();
    let account_id = account_query(&st, &query)?;
    let data: Vec<Value> = st
        .active_credentials(account_id)
        .map(Credential::to_json)
        .collect();
    Ok(json_response(StatusCode::OK, &json!({ "data": data })))
}

/// `DELETE /auth/credentials/{id}`.
pub async fn revoke_credential(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let now = now_ms();
    let mut st = app.lock();
    // A retry of a revocation that already happened still reaches the request-id check
    // (so it is a 401 "already used", not a 404).
    let retrying = req.header(REQUEST_ID_HEADER).is_some();
    let cred = st
        .credentials
        .iter()
        .find(|c| c.id == id && (!c.revoked || retrying))
        .ok_or_else(|| not_found_credential(&id))?;
    let (account_id, kind, revoked) = (cred.account_id.clone(), cred.kind, cred.revoked);
    if !revoked && st.active_credentials(&account_id).count() <= 1 {
        return Err(ApiError::bad_request(
            "LAST_CREDENTIAL",
            "an account must keep at least one credential; add another before revoking this one",
        ));
    }
    let spec = RetrySpec {
        kind: Some(kind),
        ..RetrySpec::new(
            &account_id,
            Purpose::RevokeCredential,
            revoke_activity(kind),
            json!({"credentialId": id, "credentialType": kind.as_str()}),
        )
    };
    let authorized = match signed_retry(&app, &mut st, &req, spec, now)? {
        Leg::Issued(response) => return Ok(response),
        Leg::Authorized(a) => a,
    };
    if let Some(signer) = &authorized.signer {
        if signer.credential_id == id {
            return Err(ApiError::unauthorized(
                "Invalid Service-Wallet-Signature: a credential must be revoked by a session of a different credential",
            ));
        }
    }
    for c in st.credentials.iter_mut().filter(|c| c.id == id) {
        c.revoked = true;
        c.updated_ms = now;
    }
    for s in st.sessions.iter_mut().filter(|s| s.credential_id == id) {
        s.revoked = true;
    }
    authorized.consume(&mut st);
    Ok(no_content())
}

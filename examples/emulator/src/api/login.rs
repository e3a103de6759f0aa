//! Logging in with a credential: `POST /auth/credentials/{id}/challenge` and
//! `POST /auth/credentials/{id}/verify`, dispatched by credential kind to `otp`, `oauth`
//! and `passkey` (each names its strict/sandbox differences); verify ends in
//! `sessions::issue_session`. Strict only: challenges are rate limited per credential.
//! Both legs may answer PROCESSING (`processing::hold_login`) once the request is known
//! to name a credential of the right kind; the kind's own checks run when it settles.

use axum::extract::{Path, State as AxumState};
use axum::http::StatusCode;
use axum::response::Response;

use super::http::{json_response, not_found_credential, req_str, Req};
use super::sessions::{client_key_any, issue_session};
use super::{oauth, otp, passkey, processing, App, Shared};
use crate::error::{ApiError, ApiResult};
use crate::state::CredKind;
use crate::util::now_ms;

/// `POST /auth/credentials/{id}/challenge`.
pub async fn challenge(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json_or_empty()?;
    let now = now_ms();
    let mut st = app.lock();
    let cred = st
        .credential(&id)
        .ok_or_else(|| not_found_credential(&id))?;
    let kind = cred.kind;
    let client = match kind {
        CredKind::Oauth => {
            return Err(ApiError::bad_request(
                "CHALLENGE_NOT_SUPPORTED",
                "OAUTH credentials have no challenge step: verify with a fresh oidcToken",
            ))
        }
        CredKind::Passkey => Some(client_key_any(&st, &body)?),
        CredKind::EmailOtp => None,
    };
    if app.strict() {
        if let Some(last) = cred.last_challenge_ms {
            let interval = App::ms(app.config.challenge_interval);
            let wait = interval - (now - last);
            if wait > 0 {
                let secs = (wait as u64).div_ceil(1000).max(1);
                return Err(ApiError::rate_limited(
                    secs,
                    format!("challenges for this credential are rate limited; retry in {secs} s"),
                ));
            }
        }
    }
    let account_id = cred.account_id.clone();
    let mut response = cred.to_json();
    if let Some(answer) = processing::hold_login(&mut st, "auth_credential.challenge", &req, now)? {
        return Ok(answer);
    }
    if let Some(c) = st.credential_mut(&id) {
        c.last_challenge_ms = Some(now);
    }
    match client {
        None => otp::challenge(&app, &mut st, &id, &account_id, &mut response, now),
        Some((client_hex, _, _)) => passkey::challenge(
            &app,
            &mut st,
            &id,
            &account_id,
            client_hex,
            &mut response,
            now,
        ),
    }
    Ok(json_response(StatusCode::OK, &response))
}

/// `POST /auth/credentials/{id}/verify`.
pub async fn verify(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json()?;
    let now = now_ms();
    let mut st = app.lock();
    let cred = st
        .credential(&id)
        .ok_or_else(|| not_found_credential(&id))?;
    let kind = cred.kind;
    let given = req_str(&body, "type")?;
    if given != kind.as_str() {
        return Err(ApiError::invalid(format!(
            "type is {given} but credential {id} is {}",
            kind.as_str()
        )));
    }
    if kind == CredKind::EmailOtp && body.contains_key("encryptedOtpBundle") {
        return otp::verify_encrypted(&app, &mut st, &req, &body, &id, now);
    }
    // The encrypted OTP login's signed leg is held as a signed retry; this one by its path.
    if let Some(answer) = processing::hold_login(&mut st, "auth_credential.verify", &req, now)? {
        return Ok(answer);
    }
    let (client, client_held) = match kind {
        CredKind::EmailOtp => (otp::verify(&app, &mut st, &body, &id, now)?, false),
        CredKind::Oauth => oauth::verify(&app, &st, &body, &id, now)?,
        CredKind::Passkey => passkey::verify(&app, &mut st, &req, &body, &id, now)?,
    };
    let session = issue_session(&app, &mut st, &id, &client, client_held, now)?;
    Ok(json_response(StatusCode::OK, &session))
}

//! EMAIL_OTP credentials: create (one per account), the challenge (a new code plus the
//! enclave's `otpEncryptionTargetBundle`) and both verify forms, the plain `{otp}` and the
//! newer deployments' `{encryptedOtpBundle}` (202, then a TEK-stamped retry). Strict vs
//! sandbox: strict sends random single-use codes to the outbox (`send_otp`), sandbox
//! takes only `000000`; strict refuses a bad sealed code with one 400
//! (`wallet_request_refused`), sandbox with 401 `Invalid OTP code`.

use axum::http::StatusCode;
use axum::response::Response;
use embedded_wallet_kit::parse_public_key_hex;
use embedded_wallet_kit::service::compressed_hex;
use embedded_wallet_kit::PublicKey;
use embedded_wallet_kit::{REQUEST_ID_HEADER, SIGNATURE_HEADER};
use serde_json::{json, Map, Value};

use super::credentials::{ensure_none_of_kind, NewCredential};
use super::http::{json_response, not_found_credential, req_str, Req};
use super::sessions::{client_key, fresh_session_key, issue_session};
use super::signed_retry::{signed_retry, Leg, RetrySpec};
use super::{App, SANDBOX_OTP};
use crate::crypto::{open_otp_bundle, otp_target_bundle, verification_token};
use crate::error::{ApiError, ApiResult};
use crate::state::{CredKind, Credential, OutboxEntry, Purpose, State};
use crate::util::random_digits;

/// 401 unless `attempt` is the credential's current, unexpired code (the caller then
/// spends it: codes are single use).
pub(super) fn check_otp(cred: &Credential, attempt: &str, now: i64) -> ApiResult<()> {
    match &cred.otp {
        Some((code, _)) if code != attempt => Err(ApiError::unauthorized("Invalid OTP code")),
        Some((_, until)) if now >= *until => Err(ApiError::unauthorized("OTP code expired")),
        Some(_) => Ok(()),
        None => Err(ApiError::unauthorized("Invalid OTP code")),
    }
}

/// A new code for `credential_id` (strict: "emailed" to the outbox; sandbox: none, the
/// code is `000000`).
pub(super) fn send_otp(app: &App, st: &mut State, credential_id: &str, now: i64) {
    let ttl = App::ms(app.config.otp_ttl);
    let strict = app.strict();
    let Some(cred) = st.credential_mut(credential_id) else {
        return;
    };
    if !strict {
        // Sandbox: delivery is skipped; 000000 is the code.
        cred.otp = None;
        return;
    }
    let code = random_digits(6);
    cred.otp = Some((code.clone(), now + ttl));
    let account_id = cred.account_id.clone();
    let email = st.account_email(&account_id);
    st.outbox.push(OutboxEntry {
        account_id,
        email,
        otp: code,
        sent_ms: now,
    });
}

/// EMAIL_OTP create: one per account; the nickname is the account's email.
pub(super) fn new_credential(st: &State, account_id: &str) -> ApiResult<NewCredential> {
    ensure_none_of_kind(
        st,
        account_id,
        CredKind::EmailOtp,
        "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS",
        "the account already has an EMAIL_OTP credential",
    )?;
    Ok(NewCredential {
        nickname: st.account_email(account_id),
        oauth: None,
        passkey: None,
    })
}

/// The EMAIL_OTP challenge: a new code, and the enclave key to seal it to.
pub(super) fn challenge(
    app: &App,
    st: &mut State,
    id: &str,
    account_id: &str,
    response: &mut Value,
    now: i64,
) {
    send_otp(app, st, id, now);
    // Newer deployments: the enclave key to seal the code to (the real sandbox
    // signs it with a sandbox enclave key). Additive, so clients of the plain-OTP
    // verify just ignore it.
    let organization_id = st.account_organization_id(account_id);
    response["otpEncryptionTargetBundle"] = json!(otp_target_bundle(
        &app.otp_enclave.public_key(),
        &organization_id,
        &app.otp_signer
    ));
}

/// The plain EMAIL_OTP verify `{otp, clientPublicKey}`: the session is sealed to the key.
pub(super) fn verify(
    app: &App,
    st: &mut State,
    body: &Map<String, Value>,
    id: &str,
    now: i64,
) -> ApiResult<PublicKey> {
    let otp = req_str(body, "otp")?.to_owned();
    let (_, client) = client_key(body)?;
    if app.strict() {
        let cred = st.credential(id).ok_or_else(|| not_found_credential(id))?;
        check_otp(cred, &otp, now)?;
        if let Some(c) = st.credential_mut(id) {
            c.otp = None; // single use
        }
    } else if otp != SANDBOX_OTP {
        return Err(ApiError::unauthorized("Invalid OTP code"));
    }
    Ok(client)
}

/// Production's answer to an encrypted OTP request its enclave refuses: 400 INVALID_INPUT,
/// reason `Invalid wallet request.`; the message names the check (emulator only).
fn wallet_request_refused(why: impl std::fmt::Display) -> ApiError {
    ApiError::invalid(format!("Invalid wallet request: {why}"))
        .with_reason("Invalid wallet request.")
}

/// EMAIL_OTP verify of newer deployments: the first leg opens `encryptedOtpBundle` with
/// the enclave key, checks the code (strict: single use; sandbox: `000000`) and answers
/// 202 with a verification token; the retry must be stamped by the key named in the
/// bundle (`public_key`, the TEK), which then becomes the session key (200, no bundle).
pub(super) fn verify_encrypted(
    app: &App,
    st: &mut State,
    req: &Req,
    body: &Map<String, Value>,
    id: &str,
    now: i64,
) -> ApiResult<Response> {
    let sealed = req_str(body, "encryptedOtpBundle")?;
    let account_id = st
        .credential(id)
        .ok_or_else(|| not_found_credential(id))?
        .account_id
        .clone();
    let retrying =
        req.header(SIGNATURE_HEADER).is_some() || req.header(REQUEST_ID_HEADER).is_some();
    let (payload, signer_key) = if retrying {
        (None, None) // the pending request holds both
    } else {
        // Strict: production's enclave takes only the compressed TEK, and refuses every
        // sealed request it cannot accept, a mistyped or expired code included, with one
        // 400. The sandbox reads either key form and takes only its magic code.
        let attempt = open_otp_bundle(&app.otp_enclave, sealed, app.strict())
            .map_err(wallet_request_refused)?;
        if app.strict() {
            let cred = st.credential(id).ok_or_else(|| not_found_credential(id))?;
            check_otp(cred, &attempt.otp_code, now).map_err(|refused| {
                wallet_request_refused(format!(
                    "the sealed otp_code was refused ({})",
                    refused.reason.unwrap_or_default()
                ))
            })?;
        } else if attempt.otp_code != SANDBOX_OTP {
            return Err(ApiError::unauthorized("Invalid OTP code"));
        }
        fresh_session_key(st, &attempt.public_key)?;
        if let Some(c) = st.credential_mut(id) {
            c.otp = None; // single use: spent on the first leg (a refusal spends nothing)
        }
        let tek = compressed_hex(&attempt.public_key);
        let token = verification_token(
            &app.otp_signer,
            id,
            &tek,
            now,
            App::ms(app.config.request_ttl),
        );
        (Some(token), Some(tek))
    };
    let spec = RetrySpec {
        account_id: &account_id,
        purpose: Purpose::OtpLogin,
        activity: "",
        parameters: json!({}),
        kind: Some(CredKind::EmailOtp),
        payload,
        signer_key,
    };
    let authorized = match signed_retry(app, st, req, spec, now)? {
        Leg::Issued(response) => return Ok(response),
        Leg::Authorized(a) => a,
    };
    // The first leg issued this 202 naming the TEK; the retry was checked against it.
    let tek = authorized
        .signer_key
        .as_deref()
        .and_then(|k| parse_public_key_hex(k, "TEK").ok())
        .ok_or_else(|| ApiError::unauthorized("Request-Id was issued for a different request"))?;
    let session = issue_session(app, st, id, &tek, true, now)?;
    authorized.consume(st);
    Ok(json_response(StatusCode::OK, &session))
}

//! Internal accounts: `GET /internal-accounts`, `PATCH /internal-accounts/{id}` (a signed
//! retry for an EMBEDDED_WALLET) and `POST /sandbox/internal-accounts/{id}/fund` (both
//! modes). No strict/sandbox difference here.

use std::collections::HashMap;

use axum::extract::{Path, Query, State as AxumState};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{json, Value};

use super::http::{amount, json_response, limit, not_found_account, Req};
use super::signed_retry::{signed_retry, Leg, RetrySpec};
use super::{Shared, MAX_AMOUNT};
use crate::error::{ApiError, ApiResult};
use crate::state::Purpose;
use crate::util::now_ms;

/// `GET /internal-accounts`: `{data}` only; filters customerId, type,
/// currency; `limit` 1..100.
pub async fn list_accounts(
    AxumState(app): AxumState<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let limit = limit(&query)?;
    let st = app.lock();
    let data: Vec<Value> = st
        .accounts
        .iter()
        .filter(|a| query.get("customerId").is_none_or(|c| *c == a.customer_id))
        .filter(|a| query.get("type").is_none_or(|t| t == a.kind))
        .filter(|_| query.get("currency").is_none_or(|c| c == "USD"))
        .take(limit)
        .map(|a| a.to_json())
        .collect();
    Ok(json_response(StatusCode::OK, &json!({ "data": data })))
}

/// `PATCH /internal-accounts/{id}`: `{privacyEnabled}` (alias `privateEnabled`); a signed
/// retry for an EMBEDDED_WALLET.
pub async fn patch_account(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json()?;
    let mut privacy = None;
    for (key, value) in &body {
        match key.as_str() {
            "privacyEnabled" | "privateEnabled" => {
                privacy = Some(
                    value
                        .as_bool()
                        .ok_or_else(|| ApiError::invalid(format!("{key} must be a boolean")))?,
                )
            }
            other => {
                return Err(ApiError::invalid(format!(
                    "{other} cannot be updated (the emulator supports privacyEnabled)"
                )))
            }
        }
    }
    let privacy = privacy.ok_or_else(|| ApiError::invalid("privacyEnabled is required"))?;
    let now = now_ms();
    let mut st = app.lock();
    let account = st.account(&id).ok_or_else(|| not_found_account(&id))?;
    let mut authorized = None;
    if account.kind == "EMBEDDED_WALLET" {
        let spec = RetrySpec::new(
            &id,
            Purpose::PatchAccount,
            "ACTIVITY_TYPE_UPDATE_WALLET",
            json!({"privacyEnabled": privacy, "walletId": account.wallet_id}),
        );
        match signed_retry(&app, &mut st, &req, spec, now)? {
            Leg::Issued(response) => return Ok(response),
            Leg::Authorized(a) => authorized = Some(a),
        }
    }
    let account = st.account_mut(&id).expect("looked up above");
    account.privacy_enabled = privacy;
    account.updated_ms = now;
    let json = account.to_json();
    if let Some(a) = authorized {
        a.consume(&mut st);
    }
    Ok(json_response(StatusCode::OK, &json))
}

/// `POST /sandbox/internal-accounts/{id}/fund {amount}` (both modes).
pub async fn fund(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json()?;
    let amount = amount(&body, "amount")?;
    let mut st = app.lock();
    let account = st.account_mut(&id).ok_or_else(|| not_found_account(&id))?;
    account.balance = account
        .balance
        .checked_add(amount)
        .filter(|b| *b <= MAX_AMOUNT)
        .ok_or_else(|| ApiError::invalid("the balance would exceed the largest amount"))?;
    account.updated_ms = now_ms();
    Ok(json_response(StatusCode::OK, &account.to_json()))
}

//! `PATCH /customers/{customerId}`: the customer's email or phone number, which an OTP
//! credential is tied to, so the change is a signed retry by a session of the customer's
//! wallet (the live service's contract; the spec does not document its shape:
//! it follows the other signed retries, and answers the customer). No strict/sandbox
//! difference here beyond the signature check.

use axum::extract::{Path, State as AxumState};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

use super::http::{json_response, Req};
use super::signed_retry::{signed_retry, Leg, RetrySpec};
use super::Shared;
use crate::error::{ApiError, ApiResult};
use crate::state::Purpose;
use crate::util::now_ms;

/// What a patch changes: exactly one of the two contact fields.
enum Change {
    Email(String),
    Phone(String),
}

fn read_change(req: &Req) -> ApiResult<Change> {
    let body = req.json()?;
    let mut fields = body.iter();
    let (Some((name, value)), None) = (fields.next(), fields.next()) else {
        return Err(ApiError::invalid(
            "the body must have exactly one of email and phoneNumber",
        ));
    };
    let text = value
        .as_str()
        .ok_or_else(|| ApiError::invalid(format!("{name} must be a string")))?;
    match name.as_str() {
        "email" if valid_email(text) => Ok(Change::Email(text.to_owned())),
        "email" => Err(ApiError::invalid("email must be an address (local@domain)")),
        "phoneNumber" if valid_phone(text) => Ok(Change::Phone(text.to_owned())),
        "phoneNumber" => Err(ApiError::invalid(
            "phoneNumber must be E.164: + and 7 to 15 digits",
        )),
        other => Err(ApiError::invalid(format!(
            "{other} cannot be updated here (email or phoneNumber)"
        ))),
    }
}

fn valid_email(text: &str) -> bool {
    text.split_once('@').is_some_and(|(local, domain)| {
        !local.is_empty() && domain.contains('.') && !text.contains(char::is_whitespace)
    })
}

fn valid_phone(text: &str) -> bool {
    text.strip_prefix('+').is_some_and(|digits| {
        (7..=15).contains(&digits.len())
            && digits.bytes().all(|b| b.is_ascii_digit())
            && !digits.starts_with('0')
    })
}

/// `PATCH /customers/{customerId}` `{email}` or `{phoneNumber}` → 200 customer.
pub async fn update_customer(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let change = read_change(&req)?;
    let now = now_ms();
    let mut st = app.lock();
    if st.customer(&id).is_none() {
        return Err(ApiError::not_found(format!("customer {id} not found")));
    }
    let wallet = st
        .accounts
        .iter()
        .find(|a| a.customer_id == id && a.kind == "EMBEDDED_WALLET")
        .ok_or_else(|| ApiError::invalid(format!("customer {id} has no embedded wallet")))?;
    let account_id = wallet.id.clone();
    let (activity, parameters) = match &change {
        Change::Email(email) => (
            "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
            json!({"userEmail": email}),
        ),
        Change::Phone(phone) => (
            "ACTIVITY_TYPE_UPDATE_USER_PHONE_NUMBER",
            json!({"userPhoneNumber": phone}),
        ),
    };
    let spec = RetrySpec::new(&account_id, Purpose::UpdateCustomer, activity, parameters);
    let authorized = match signed_retry(&app, &mut st, &req, spec, now)? {
        Leg::Issued(response) => return Ok(response),
        Leg::Authorized(a) => a,
    };
    let customer = st.customer_mut(&id).expect("looked up above");
    match change {
        Change::Email(email) => customer.email = email,
        Change::Phone(phone) => customer.phone_number = Some(phone),
    }
    customer.updated_ms = now;
    let json = customer.to_json();
    authorized.consume(&mut st);
    Ok(json_response(StatusCode::OK, &json))
}

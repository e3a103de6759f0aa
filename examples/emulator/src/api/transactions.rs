//! Transactions: `GET /transactions` (the list envelope) and `GET /transactions/{id}`, and
//! `settle`, which an executed quote calls to move the money and record the transaction.
//! No strict/sandbox difference here.

use std::collections::HashMap;

use axum::extract::{Path, Query, State as AxumState};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::{json, Value};

use super::http::{json_response, limit};
use super::{Shared, MAX_AMOUNT};
use crate::error::{ApiError, ApiResult};
use crate::state::{usd, State};
use crate::util::rfc3339;

/// Moves the quote's amount and records the transaction; returns the transaction.
pub(super) fn settle(st: &mut State, quote_index: usize, now: i64) -> ApiResult<Value> {
    let (source, destination, amount) = {
        let q = &st.quotes[quote_index];
        (
            q.source_account.clone(),
            q.destination_account.clone(),
            q.amount,
        )
    };
    let balance = st.account(&source).map_or(0, |a| a.balance);
    if balance < amount {
        return Err(ApiError::bad_request(
            "INSUFFICIENT_FUNDS",
            format!("the source account holds {balance} but the quote needs {amount}"),
        ));
    }
    let credit = st.account(&destination).map_or(0, |a| a.balance);
    if credit.checked_add(amount).is_none_or(|b| b > MAX_AMOUNT) {
        return Err(ApiError::invalid(
            "the destination balance would exceed the largest amount",
        ));
    }
    for (account, delta) in [(&source, -amount), (&destination, amount)] {
        if let Some(a) = st.account_mut(account) {
            a.balance += delta;
            a.updated_ms = now;
        }
    }
    let customer_id = st
        .account(&source)
        .map(|a| a.customer_id.clone())
        .unwrap_or_default();
    let q = &mut st.quotes[quote_index];
    q.status = "COMPLETED";
    q.json["status"] = json!("COMPLETED");
    let money = json!({"amount": amount, "currency": usd()});
    let transaction = json!({
        "id": q.transaction_id,
        "status": "COMPLETED",
        "type": "OUTGOING",
        "quoteId": q.id,
        "source": q.json["source"],
        "destination": q.json["destination"],
        "customerId": customer_id,
        "platformCustomerId": customer_id,
        "sentAmount": money,
        "receivedAmount": money,
        "description": q.json.get("description").cloned().unwrap_or(Value::Null),
        "reconciliationInstructions": {"reference": format!("EMU-{}", &q.transaction_id[12..20])},
        "createdAt": rfc3339(now),
        "updatedAt": rfc3339(now),
        "settledAt": rfc3339(now),
    });
    st.transactions.push(transaction.clone());
    Ok(transaction)
}

/// `GET /transactions`: the list envelope, newest first by default; filters
/// accountIdentifier (source or destination account), customerId, status, type.
pub async fn list_transactions(
    AxumState(app): AxumState<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let limit = limit(&query)?;
    let offset = match query.get("cursor") {
        None => 0,
        Some(c) => c
            .strip_prefix("offset-")
            .and_then(|n| n.parse::<usize>().ok())
            .ok_or_else(|| ApiError::invalid("cursor is not a cursor this service returned"))?,
    };
    let ascending = match query.get("sortOrder").map(String::as_str) {
        None | Some("desc") => false,
        Some("asc") => true,
        Some(_) => return Err(ApiError::invalid("sortOrder must be asc or desc")),
    };
    let st = app.lock();
    let matches = |t: &&Value| {
        let field = |path: &[&str]| {
            path.iter()
                .try_fold(*t, |v, k| v.get(k))
                .and_then(Value::as_str)
                .map(str::to_owned)
        };
        query.get("accountIdentifier").is_none_or(|a| {
            field(&["source", "accountId"]).as_ref() == Some(a)
                || field(&["destination", "accountId"]).as_ref() == Some(a)
        }) && query
            .get("customerId")
            .is_none_or(|c| field(&["customerId"]).as_ref() == Some(c))
            && query
                .get("status")
                .is_none_or(|s| field(&["status"]).as_ref() == Some(s))
            && query
                .get("type")
                .is_none_or(|s| field(&["type"]).as_ref() == Some(s))
    };
    let mut all: Vec<&Value> = st.transactions.iter().filter(matches).collect();
    if !ascending {
        all.reverse();
    }
    let total = all.len();
    let page: Vec<Value> = all
        .iter()
        .skip(offset)
        .take(limit)
        .map(|v| (*v).clone())
        .collect();
    let has_more = offset + page.len() < total;
    let mut body = json!({"data": page, "hasMore": has_more, "totalCount": total});
    if has_more {
        body["nextCursor"] = json!(format!("offset-{}", offset + limit));
    }
    Ok(json_response(StatusCode::OK, &body))
}

/// `GET /transactions/{id}`.
pub async fn get_transaction(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let st = app.lock();
    st.transactions
        .iter()
        .find(|t| t["id"] == id.as_str())
        .map(|t| json_response(StatusCode::OK, t))
        .ok_or_else(|| ApiError::not_found(format!("transaction {id} not found")))
}

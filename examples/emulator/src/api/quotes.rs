//! Quotes: `POST /quotes`, `GET /quotes/{id}` and `POST /quotes/{id}/execute`, with
//! `Idempotency-Key` replays and the TRANSACT permission check. Strict vs sandbox: an
//! embedded-wallet source's execute is checked by `signed_retry::check_wallet_signature`.

use axum::extract::{Path, State as AxumState};
use axum::http::StatusCode;
use axum::response::Response;
use embedded_wallet_kit::SIGNATURE_HEADER;
use serde_json::{json, Map, Value};

use super::http::{amount, json_response, nested_str, opt_str, req_obj, Req};
use super::signed_retry::{activity, check_wallet_signature};
use super::transactions::settle;
use super::{App, Shared};
use crate::error::{ApiError, ApiResult};
use crate::state::{usd, Quote, State, StoredResponse};
use crate::util::{new_id, now_ms, rfc3339};

/// 403 when the platform's API token lacks the TRANSACT permission (`--forbid-transact`,
/// `POST /emulator/permissions`): checked before anything else, idempotent replays too.
fn ensure_transact(st: &State) -> ApiResult<()> {
    if st.transact_forbidden {
        return Err(ApiError::new(
            StatusCode::FORBIDDEN,
            "FORBIDDEN",
            "the platform's API token does not have the TRANSACT permission: quotes cannot be created or executed",
        )
        .with_reason("API token lacks the TRANSACT permission"));
    }
    Ok(())
}

fn idempotency_key(req: &Req) -> Option<String> {
    req.header("Idempotency-Key")
        .filter(|k| !k.is_empty())
        .map(str::to_owned)
}

fn stored(st: &State, scope: &str, key: &Option<String>) -> Option<Response> {
    let key = key.as_ref()?;
    st.idempotent
        .get(&(scope.to_owned(), key.clone()))
        .map(|r| json_response(r.status, &r.body))
}

fn remember(st: &mut State, scope: &str, key: Option<String>, status: StatusCode, body: &Value) {
    if let Some(key) = key {
        st.idempotent.insert(
            (scope.to_owned(), key),
            StoredResponse {
                status,
                body: body.clone(),
            },
        );
    }
}

fn quote_account<'a>(
    st: &'a State,
    side: &Map<String, Value>,
    what: &str,
    type_field: &str,
) -> ApiResult<&'a crate::state::Account> {
    match side.get(type_field).and_then(Value::as_str) {
        Some("ACCOUNT") => {}
        _ => {
            return Err(ApiError::invalid(format!(
                "{what}.{type_field} must be ACCOUNT (other {what} types are not emulated)"
            )))
        }
    }
    let id = nested_str(side, what, "accountId")?;
    if let Some(c) = side.get("currency") {
        if c != "USD" {
            return Err(ApiError::invalid(format!(
                "{what}.currency must be USD (the emulator has USD accounts only)"
            )));
        }
    }
    st.account(id)
        .ok_or_else(|| ApiError::invalid(format!("{what}.accountId {id} does not exist")))
}

/// `POST /quotes`.
pub async fn create_quote(AxumState(app): AxumState<Shared>, req: Req) -> ApiResult<Response> {
    const SCOPE: &str = "POST /quotes";
    let key = idempotency_key(&req);
    let now = now_ms();
    let mut st = app.lock();
    ensure_transact(&st)?;
    if let Some(response) = stored(&st, SCOPE, &key) {
        return Ok(response);
    }
    let body = req.json()?;
    let source = quote_account(&st, req_obj(&body, "source")?, "source", "sourceType")?;
    let destination = quote_account(
        &st,
        req_obj(&body, "destination")?,
        "destination",
        "destinationType",
    )?;
    if source.id == destination.id {
        return Err(ApiError::invalid(
            "source and destination are the same account",
        ));
    }
    match body.get("lockedCurrencySide").and_then(Value::as_str) {
        Some("SENDING" | "RECEIVING") => {}
        _ => {
            return Err(ApiError::invalid(
                "lockedCurrencySide must be SENDING or RECEIVING",
            ))
        }
    }
    let amount = amount(&body, "lockedCurrencyAmount")?;
    let immediately = match body.get("immediatelyExecute") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(_) => return Err(ApiError::invalid("immediatelyExecute must be a boolean")),
    };
    let embedded = source.kind == "EMBEDDED_WALLET";
    if immediately && embedded {
        return Err(ApiError::bad_request(
            "IMMEDIATE_EXECUTION_NOT_SUPPORTED",
            "immediatelyExecute is unsupported for an EMBEDDED_WALLET source: create the quote, then execute it with Service-Wallet-Signature",
        ));
    }
    let description = opt_str(&body, "description")?.map(str::to_owned);
    let id = new_id("Quote");
    let transaction_id = new_id("Transaction");
    let expires_ms = now + App::ms(app.config.quote_ttl);
    let source_json = json!({"sourceType": "ACCOUNT", "accountId": source.id, "customerId": source.customer_id, "currency": "USD"});
    let destination_json =
        json!({"destinationType": "ACCOUNT", "accountId": destination.id, "currency": "USD"});
    let payload = embedded.then(|| {
        activity(
            "ACTIVITY_TYPE_SIGN_TRANSACTION_V2",
            &source.organization_id,
            json!({
                "amount": amount.to_string(),
                "currency": "USD",
                "destinationAccountId": destination.id,
                "quoteId": id,
                "sourceAccountId": source.id,
                "transactionId": transaction_id,
                "walletId": source.wallet_id,
            }),
            now,
        )
    });
    let mut json = json!({
        "id": id,
        "status": "PENDING",
        "createdAt": rfc3339(now),
        "expiresAt": rfc3339(expires_ms),
        "source": source_json,
        "destination": destination_json,
        "sendingCurrency": usd(),
        "receivingCurrency": usd(),
        "totalSendingAmount": amount,
        "totalReceivingAmount": amount,
        "exchangeRate": 1.0,
        "feesIncluded": 0,
        "transactionId": transaction_id,
        "rateDetails": {
            "serviceApiMultiplier": 1.0, "serviceApiFixedFee": 0, "serviceApiVariableFeeRate": 0,
            "serviceApiVariableFeeAmount": 0, "counterpartyMultiplier": 1.0, "counterpartyFixedFee": 0,
        },
    });
    if let Some(d) = &description {
        json["description"] = json!(d);
    }
    if let Some(p) = &payload {
        json["payloadToSign"] = json!(p);
    }
    let (source_id, destination_id) = (source.id.clone(), destination.id.clone());
    st.quotes.push(Quote {
        id,
        json,
        source_account: source_id,
        destination_account: destination_id,
        amount,
        payload,
        expires_ms,
        transaction_id,
        status: "PENDING",
    });
    let index = st.quotes.len() - 1;
    if immediately {
        if let Err(e) = settle(&mut st, index, now) {
            st.quotes.pop();
            return Err(e);
        }
    }
    let json = st.quotes[index].json.clone();
    remember(&mut st, SCOPE, key, StatusCode::CREATED, &json);
    Ok(json_response(StatusCode::CREATED, &json))
}

/// `GET /quotes/{id}`.
pub async fn get_quote(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
) -> ApiResult<Response> {
    let st = app.lock();
    let q = st
        .quotes
        .iter()
        .find(|q| q.id == id)
        .ok_or_else(|| ApiError::not_found(format!("quote {id} not found")))?;
    let mut json = q.json.clone();
    if q.status == "PENDING" && now_ms() >= q.expires_ms {
        json["status"] = json!("EXPIRED");
    }
    Ok(json_response(StatusCode::OK, &json))
}

/// `POST /quotes/{id}/execute`: Idempotency-Key, and Service-Wallet-Signature (no
/// Request-Id) when the source is an embedded wallet.
pub async fn execute_quote(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let scope = format!("POST /quotes/{id}/execute");
    let key = idempotency_key(&req);
    let now = now_ms();
    let mut st = app.lock();
    ensure_transact(&st)?;
    if let Some(response) = stored(&st, &scope, &key) {
        return Ok(response);
    }
    let index = st
        .quotes
        .iter()
        .position(|q| q.id == id)
        .ok_or_else(|| ApiError::not_found(format!("quote {id} not found")))?;
    let quote = &st.quotes[index];
    match quote.status {
        "PENDING" => {}
        "EXPIRED" => {
            return Err(ApiError::bad_request(
                "QUOTE_EXPIRED",
                "the quote has expired",
            ))
        }
        other => {
            return Err(ApiError::bad_request(
                "QUOTE_ALREADY_EXECUTED",
                format!("the quote is {other}; a quote executes once"),
            ))
        }
    }
    if now >= quote.expires_ms {
        st.quotes[index].status = "EXPIRED";
        st.quotes[index].json["status"] = json!("EXPIRED");
        return Err(ApiError::bad_request(
            "QUOTE_EXPIRED",
            "the quote has expired; create a new one",
        ));
    }
    if let Some(payload) = &quote.payload {
        let signature = req
            .header(SIGNATURE_HEADER)
            .ok_or_else(|| ApiError::unauthorized("Service-Wallet-Signature header missing"))?;
        check_wallet_signature(
            &app,
            &st,
            signature,
            payload,
            &quote.source_account,
            None,
            now,
        )?;
    }
    let transaction = settle(&mut st, index, now)?;
    remember(&mut st, &scope, key, StatusCode::OK, &transaction);
    Ok(json_response(StatusCode::OK, &transaction))
}

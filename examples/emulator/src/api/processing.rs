//! The live service's still-processing answer (protocol notes §12): a signed retry that
//! passed every check may answer `200 {"status":"PROCESSING"}` instead of its terminal
//! answer; the client re-sends the identical signed request (same method, path, body,
//! `Service-Wallet-Signature` and `Request-Id`) until the terminal answer comes.
//!
//! Off by default. `--processing N` (or `POST /emulator/processing`) makes each operation
//! answer PROCESSING N times before it runs. A re-send that differs from the first signed
//! attempt in any byte is refused with 401 `WALLET_SIGNATURE_BODY_MISMATCH`, as
//! production refuses it. An operation left processing settles on its own once its
//! settle time has passed (checked at the next request of any kind), so a later `GET`
//! shows its result; a re-send after that answers the stored terminal answer.

use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State as AxumState};
use axum::http::{header, HeaderValue, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use embedded_wallet_kit::{REQUEST_ID_HEADER, SIGNATURE_HEADER};
use serde_json::{json, Value};
use tower::ServiceExt as _;

use super::http::{json_response, Req};
use super::{App, Shared};
use crate::error::{ApiError, ApiResult};
use crate::state::{Held, Purpose, State, OPERATIONS};
use crate::util::now_ms;

/// The operation a signed retry of `purpose` performs.
fn operation(purpose: Purpose) -> &'static str {
    match purpose {
        Purpose::AddCredential => "auth_credential.create",
        Purpose::RevokeCredential => "auth_credential.delete",
        Purpose::OtpLogin => "auth_credential.verify",
        Purpose::Refresh => "session.refresh",
        Purpose::RevokeSession => "session.revoke",
        Purpose::PatchAccount => "account.update",
        Purpose::Export => "wallet.export",
    }
}

/// Marks a PROCESSING answer, so the tracking layer does not store it as terminal.
#[derive(Clone, Copy)]
struct StillProcessing;

fn processing_response(operation: &str) -> Response {
    let mut response = json_response(
        StatusCode::OK,
        &json!({
            "status": "PROCESSING",
            "message": format!(
                "This operation ({operation}) is still being processed. Retry the same request in a moment."
            ),
        }),
    );
    response.extensions_mut().insert(StillProcessing);
    response
}

/// Whether `req`, signed with `signature`, repeats the first attempt byte for byte.
fn same_request(held: &Held, req: &Req, signature: &str) -> bool {
    held.method == req.method
        && held.path == req.path
        && held.body == req.body
        && held.signature == signature
}

/// The service's 401 code for a signed request whose bytes are not the ones it issued or
/// first received.
pub(super) const BODY_MISMATCH: &str = "WALLET_SIGNATURE_BODY_MISMATCH";

fn mismatch(what: &str) -> ApiError {
    ApiError::unauthorized_as(
        BODY_MISMATCH,
        format!("re-sent request differs from the first attempt: {what}"),
    )
}

fn difference(held: &Held, req: &Req, signature: &str) -> &'static str {
    if held.method != req.method || held.path != req.path {
        "method or path"
    } else if held.body != req.body {
        "body"
    } else if held.signature != signature {
        "Service-Wallet-Signature"
    } else {
        "nothing"
    }
}

/// A re-send of an operation that already ran answers what it answered then (identical
/// re-sends only), before any of the handler's checks: the operation changed what they
/// would find.
fn answered(
    st: &State,
    req: &Req,
    request_id: &str,
    signature: &str,
) -> ApiResult<Option<Response>> {
    let Some(held) = st.processing.held.get(request_id) else {
        return Ok(None);
    };
    let Some((status, body)) = &held.terminal else {
        return Ok(None);
    };
    if !same_request(held, req, signature) {
        return Err(mismatch(difference(held, req, signature)));
    }
    let mut response = Response::new(Body::from(body.clone()));
    *response.status_mut() = *status;
    if !body.is_empty() {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
    }
    Ok(Some(response))
}

/// After a signed retry passed every check, before its operation runs: `Some` answers
/// PROCESSING (or refuses a re-send that differs), `None` lets the operation run.
pub(super) fn hold(
    st: &mut State,
    purpose: Purpose,
    req: &Req,
    request_id: &str,
    signature: &str,
    now: i64,
) -> ApiResult<Option<Response>> {
    let operation = operation(purpose);
    let book = &mut st.processing;
    if let Some(held) = book.held.get_mut(request_id) {
        if !same_request(held, req, signature) {
            return Err(mismatch(difference(held, req, signature)));
        }
        if held.remaining > 0 {
            held.remaining -= 1;
            return Ok(Some(processing_response(operation)));
        }
        held.running = true;
        return Ok(None);
    }
    let count = book.plan.counts.get(operation).copied().unwrap_or(0);
    if count == 0 {
        return Ok(None);
    }
    book.held.insert(
        request_id.to_owned(),
        Held {
            operation,
            method: req.method.clone(),
            path: req.path.clone(),
            body: req.body.clone(),
            signature: signature.to_owned(),
            remaining: count - 1,
            started_ms: now,
            running: false,
            terminal: None,
        },
    );
    Ok(Some(processing_response(operation)))
}

/// The layer on the API routes: first settles the operations whose settle time passed
/// (each runs once, through the API as its own re-send would), then stores the terminal
/// answer of an operation that ran.
pub async fn track(AxumState(app): AxumState<Shared>, request: Request, next: Next) -> Response {
    settle_due(&app).await;
    let request_id = request
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let Some(request_id) = request_id else {
        return next.run(request).await;
    };
    let ended = app
        .lock()
        .processing
        .held
        .get(&request_id)
        .is_some_and(|h| h.terminal.is_some());
    let request = if ended {
        let (parts, body) = request.into_parts();
        let body = axum::body::to_bytes(body, 1 << 20)
            .await
            .unwrap_or_default();
        let req = Req {
            method: parts.method.clone(),
            path: parts.uri.path().to_owned(),
            headers: parts.headers.clone(),
            body: body.clone(),
        };
        let signature = req.header(SIGNATURE_HEADER).unwrap_or_default();
        match answered(&app.lock(), &req, &request_id, signature) {
            Ok(Some(answer)) => return answer,
            Err(refused) => return refused.into_response(),
            Ok(None) => Request::from_parts(parts, Body::from(body)),
        }
    } else {
        request
    };
    let response = next.run(request).await;
    if response.extensions().get::<StillProcessing>().is_some() {
        return response;
    }
    let ran = app
        .lock()
        .processing
        .held
        .get(&request_id)
        .is_some_and(|h| h.running && h.terminal.is_none());
    if !ran {
        return response;
    }
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    if let Some(held) = app.lock().processing.held.get_mut(&request_id) {
        held.terminal = Some((parts.status, bytes.clone()));
    }
    Response::from_parts(parts, Body::from(bytes))
}

async fn settle_due(app: &Shared) {
    let now = now_ms();
    let due: Vec<Request> = {
        let mut st = app.lock();
        let settle_ms = App::ms(st.processing.plan.settle_after);
        st.processing
            .held
            .iter_mut()
            .filter(|(_, h)| !h.running && h.started_ms + settle_ms <= now)
            .map(|(request_id, h)| {
                // Marked before it runs: the replay passes through `track` again.
                h.remaining = 0;
                h.running = true;
                let mut request = Request::new(Body::from(h.body.clone()));
                *request.method_mut() = h.method.clone();
                *request.uri_mut() = h.path.parse().unwrap_or_default();
                let headers = request.headers_mut();
                for (name, value) in [
                    (SIGNATURE_HEADER, h.signature.as_str()),
                    (REQUEST_ID_HEADER, request_id.as_str()),
                    ("content-type", "application/json"),
                ] {
                    if let Ok(value) = HeaderValue::from_str(value) {
                        headers.insert(name, value);
                    }
                }
                request
            })
            .collect()
    };
    let Some(api) = app.settle_router.get() else {
        return;
    };
    for request in due {
        // The answer is stored by `track` on the way out (or the operation failed its
        // checks by now, e.g. an expired session, which is what a later look-up shows).
        let _ = api.clone().oneshot(request).await;
    }
}

/// `GET /emulator/processing`: the plan in force.
pub(crate) async fn get_plan(AxumState(app): AxumState<Shared>) -> Response {
    json_response(StatusCode::OK, &app.lock().processing.plan.to_json())
}

/// `POST /emulator/processing {count, operations?, settleMs?}`: each named operation (all
/// when `operations` is absent) answers PROCESSING `count` times from now on; answers
/// the plan in force.
pub(crate) async fn set_plan(AxumState(app): AxumState<Shared>, req: Req) -> ApiResult<Response> {
    let body = req.json()?;
    let count = body
        .get("count")
        .and_then(Value::as_u64)
        .and_then(|n| u32::try_from(n).ok())
        .ok_or_else(|| ApiError::invalid("count must be a whole number"))?;
    let operations: Vec<&'static str> = match body.get("operations") {
        None | Some(Value::Null) => OPERATIONS.to_vec(),
        Some(Value::Array(names)) => names
            .iter()
            .map(|name| {
                OPERATIONS
                    .iter()
                    .find(|op| name.as_str() == Some(**op))
                    .copied()
                    .ok_or_else(|| {
                        ApiError::invalid(format!(
                            "operations: {name} is not one of {}",
                            OPERATIONS.join(", ")
                        ))
                    })
            })
            .collect::<ApiResult<_>>()?,
        Some(_) => return Err(ApiError::invalid("operations must be an array of names")),
    };
    let settle = match body.get("settleMs") {
        None | Some(Value::Null) => None,
        Some(v) => {
            Some(Duration::from_millis(v.as_u64().ok_or_else(|| {
                ApiError::invalid("settleMs must be a whole number")
            })?))
        }
    };
    let mut st = app.lock();
    let plan = &mut st.processing.plan;
    for op in operations {
        plan.counts.insert(op, count);
    }
    if let Some(settle) = settle {
        plan.settle_after = settle;
    }
    Ok(json_response(StatusCode::OK, &plan.to_json()))
}

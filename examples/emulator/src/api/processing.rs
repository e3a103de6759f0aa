//! The live service's still-processing answer (protocol notes §12): a signed retry that
//! passed every check may answer `200 {"status":"PROCESSING"}` instead of its terminal
//! answer; the client re-sends the identical signed request (same method, path, body,
//! `Service-Wallet-Signature` and `Request-Id`) until the terminal answer comes.
//!
//! The login legs (`POST /auth/credentials/{id}/challenge` and the session-issuing
//! `/verify`) may answer it too, told apart from their terminal 200 by the body; they
//! carry no Request-Id, so a held one is known by its method and path.
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
use axum::http::{header, HeaderValue, Method, StatusCode};
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
        Purpose::UpdateCustomer => "customer.update",
        Purpose::Export => "wallet.export",
    }
}

/// The wallet export (PR #854): it never settles on its own and its answer is never
/// stored; only the re-send that delivers the credentials consumes the request id, so a
/// later re-send is refused as any used id is.
const EXPORT: &str = "wallet.export";

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

/// The service's 401 code for a signed request whose bytes are not the ones it issued or
/// first received.
pub(super) const BODY_MISMATCH: &str = "WALLET_SIGNATURE_BODY_MISMATCH";

fn mismatch(what: &str) -> ApiError {
    ApiError::unauthorized_as(
        BODY_MISMATCH,
        format!("re-sent request differs from the first attempt: {what}"),
    )
}

/// What `req` changed from the first attempt (signature headers included), if anything.
fn difference(held: &Held, req: &Req) -> Option<&'static str> {
    if held.method != req.method || held.path != req.path {
        Some("method or path")
    } else if held.body != req.body {
        Some("body")
    } else if held.signature.as_deref() != req.header(SIGNATURE_HEADER) {
        Some("Service-Wallet-Signature")
    } else if held.request_id.as_deref() != req.header(REQUEST_ID_HEADER) {
        Some("Request-Id")
    } else {
        None
    }
}

/// A login leg has no Request-Id of its own: it is held by its method and path (the credential).
fn login_key(method: &Method, path: &str) -> String {
    format!("{method} {path}")
}

/// The held operation a request re-sends: by its Request-Id, else a login leg's.
fn held_key(st: &State, request_id: Option<&str>, method: &Method, path: &str) -> Option<String> {
    let held = &st.processing.held;
    match request_id {
        Some(id) if held.contains_key(id) => Some(id.to_owned()),
        _ => Some(login_key(method, path)).filter(|key| held.contains_key(key)),
    }
}

/// A re-send of an operation that already ran answers what it answered then (identical
/// re-sends only), before any of the handler's checks: the operation changed what they
/// would find. A login leg's answer is given once, and a login request that differs from
/// a settled one is a new login (with no Request-Id, nothing else tells them apart).
fn answered(st: &mut State, req: &Req, key: &str) -> ApiResult<Option<Response>> {
    let Some(held) = st.processing.held.get(key) else {
        return Ok(None);
    };
    let Some((status, body)) = &held.terminal else {
        return Ok(None);
    };
    if let Some(what) = difference(held, req) {
        if held.login {
            st.processing.held.remove(key);
            return Ok(None);
        }
        return Err(mismatch(what));
    }
    let mut response = Response::new(Body::from(body.clone()));
    *response.status_mut() = *status;
    if !body.is_empty() {
        response.headers_mut().insert(
            header::CONTENT_TYPE,
            HeaderValue::from_static("application/json"),
        );
    }
    if held.login {
        st.processing.held.remove(key);
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
    now: i64,
) -> ApiResult<Option<Response>> {
    hold_as(
        st,
        operation(purpose),
        request_id.to_owned(),
        false,
        req,
        now,
    )
}

/// `hold` for a login leg (`auth_credential.challenge`, `auth_credential.verify`), known
/// by method and path (a passkey verify's Request-Id names its challenge, not this
/// request): a re-send that changes its body or headers differs from it.
pub(super) fn hold_login(
    st: &mut State,
    operation: &'static str,
    req: &Req,
    now: i64,
) -> ApiResult<Option<Response>> {
    hold_as(
        st,
        operation,
        login_key(&req.method, &req.path),
        true,
        req,
        now,
    )
}

fn hold_as(
    st: &mut State,
    operation: &'static str,
    key: String,
    login: bool,
    req: &Req,
    now: i64,
) -> ApiResult<Option<Response>> {
    let book = &mut st.processing;
    if let Some(held) = book.held.get_mut(&key) {
        if let Some(what) = difference(held, req) {
            return Err(mismatch(what));
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
        key,
        Held {
            operation,
            method: req.method.clone(),
            path: req.path.clone(),
            body: req.body.clone(),
            signature: req.header(SIGNATURE_HEADER).map(str::to_owned),
            request_id: req.header(REQUEST_ID_HEADER).map(str::to_owned),
            login,
            remaining: count - 1,
            started_ms: now,
            running: false,
            terminal: None,
        },
    );
    Ok(Some(processing_response(operation)))
}

/// Marks the request `settle_due` replays: its answer is stored for the client's re-send.
#[derive(Clone, Copy)]
struct Settling;

/// The layer on the API routes: first settles the operations whose settle time passed
/// (each runs once, through the API as its own re-send would), then stores the terminal
/// answer of an operation that ran (a login leg's only when it settled on its own: a
/// client's re-send that ran it has its answer; an export's never).
pub async fn track(AxumState(app): AxumState<Shared>, request: Request, next: Next) -> Response {
    settle_due(&app).await;
    let request_id = request
        .headers()
        .get(REQUEST_ID_HEADER)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let method = request.method().clone();
    let path = request.uri().path().to_owned();
    let settling = request.extensions().get::<Settling>().is_some();
    let ended = {
        let st = app.lock();
        held_key(&st, request_id.as_deref(), &method, &path)
            .filter(|key| st.processing.held[key].terminal.is_some())
    };
    let request = if let Some(key) = ended {
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
        let answer = answered(&mut app.lock(), &req, &key);
        match answer {
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
    let ran = {
        let st = app.lock();
        held_key(&st, request_id.as_deref(), &method, &path).filter(|key| {
            let held = &st.processing.held[key];
            held.running && held.terminal.is_none()
        })
    };
    let Some(key) = ran else {
        return response;
    };
    {
        let mut st = app.lock();
        let held = &st.processing.held[&key];
        if (held.login && !settling) || held.operation == EXPORT {
            st.processing.held.remove(&key);
            return response;
        }
    }
    let (parts, body) = response.into_parts();
    let bytes = axum::body::to_bytes(body, 1 << 20)
        .await
        .unwrap_or_default();
    if let Some(held) = app.lock().processing.held.get_mut(&key) {
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
            .filter(|(_, h)| !h.running && h.operation != EXPORT && h.started_ms + settle_ms <= now)
            .map(|(_, h)| {
                // Marked before it runs: the replay passes through `track` again.
                h.remaining = 0;
                h.running = true;
                let mut request = Request::new(Body::from(h.body.clone()));
                *request.method_mut() = h.method.clone();
                *request.uri_mut() = h.path.parse().unwrap_or_default();
                request.extensions_mut().insert(Settling);
                let headers = request.headers_mut();
                for (name, value) in [
                    (SIGNATURE_HEADER, h.signature.as_deref()),
                    (REQUEST_ID_HEADER, h.request_id.as_deref()),
                    ("content-type", Some("application/json")),
                ] {
                    if let Some(Ok(value)) = value.map(HeaderValue::from_str) {
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

//! Shared request and response plumbing: the raw-body request every handler takes, JSON
//! responses, and the readers of body fields and query parameters.

use std::collections::HashMap;

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Request};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::{Map, Value};

use super::MAX_AMOUNT;
use crate::error::{ApiError, ApiResult};

/// A request with its raw body (signed retries compare body bytes).
pub struct Req {
    pub method: Method,
    pub path: String,
    pub headers: HeaderMap,
    pub body: Bytes,
}

impl<S: Send + Sync> FromRequest<S> for Req {
    type Rejection = ApiError;

    async fn from_request(req: Request, _: &S) -> Result<Self, ApiError> {
        let (parts, body) = req.into_parts();
        let body = axum::body::to_bytes(body, 1 << 20)
            .await
            .map_err(|_| ApiError::invalid("request body is unreadable or larger than 1 MiB"))?;
        Ok(Self {
            method: parts.method,
            path: parts.uri.path().to_owned(),
            headers: parts.headers,
            body,
        })
    }
}

impl Req {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    /// The body as a JSON object.
    pub fn json(&self) -> ApiResult<Map<String, Value>> {
        match serde_json::from_slice::<Value>(&self.body) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(ApiError::invalid("request body must be a JSON object")),
            Err(_) if self.body.iter().all(u8::is_ascii_whitespace) => {
                Err(ApiError::invalid("request body must be a JSON object"))
            }
            Err(e) => Err(ApiError::invalid(format!("request body is not JSON: {e}"))),
        }
    }

    /// The body as a JSON object; an empty body counts as `{}`.
    pub fn json_or_empty(&self) -> ApiResult<Map<String, Value>> {
        if self.body.iter().all(u8::is_ascii_whitespace) {
            Ok(Map::new())
        } else {
            self.json()
        }
    }
}

/// A JSON response.
pub fn json_response(status: StatusCode, body: &Value) -> Response {
    let mut response = Response::new(Body::from(body.to_string()));
    *response.status_mut() = status;
    response.headers_mut().insert(
        header::CONTENT_TYPE,
        HeaderValue::from_static("application/json"),
    );
    response
}

pub(super) fn no_content() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

pub(super) fn req_str<'a>(m: &'a Map<String, Value>, field: &str) -> ApiResult<&'a str> {
    match m.get(field) {
        None | Some(Value::Null) => Err(ApiError::invalid(format!("{field} is required"))),
        Some(Value::String(s)) if s.is_empty() => {
            Err(ApiError::invalid(format!("{field} is empty")))
        }
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(ApiError::invalid(format!("{field} must be a string"))),
    }
}

/// `req_str` for a field of the nested object `parent`: errors name `parent.field`.
pub(super) fn nested_str<'a>(
    m: &'a Map<String, Value>,
    parent: &str,
    field: &str,
) -> ApiResult<&'a str> {
    req_str(m, field).map_err(|e| ApiError::invalid(format!("{parent}.{}", e.message)))
}

pub(super) fn opt_str<'a>(m: &'a Map<String, Value>, field: &str) -> ApiResult<Option<&'a str>> {
    match m.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::invalid(format!("{field} must be a string"))),
    }
}

pub(super) fn req_obj<'a>(
    m: &'a Map<String, Value>,
    field: &str,
) -> ApiResult<&'a Map<String, Value>> {
    match m.get(field) {
        Some(Value::Object(o)) => Ok(o),
        None | Some(Value::Null) => Err(ApiError::invalid(format!("{field} is required"))),
        Some(_) => Err(ApiError::invalid(format!("{field} must be an object"))),
    }
}

pub(super) fn amount(m: &Map<String, Value>, field: &str) -> ApiResult<i64> {
    let value = m
        .get(field)
        .ok_or_else(|| ApiError::invalid(format!("{field} is required")))?;
    match value.as_i64() {
        Some(n) if (1..=MAX_AMOUNT).contains(&n) => Ok(n),
        _ => Err(ApiError::invalid(format!(
            "{field} must be an integer from 1 to {MAX_AMOUNT} (smallest currency unit)"
        ))),
    }
}

/// `limit`: 1..100, default 20.
pub(super) fn limit(query: &HashMap<String, String>) -> ApiResult<usize> {
    match query.get("limit") {
        None => Ok(20),
        Some(text) => match text.parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => Ok(n),
            _ => Err(ApiError::invalid("limit must be an integer from 1 to 100")),
        },
    }
}

/// The `accountId` query parameter of the per-account listings: required, and an
/// account that exists (else 404).
pub(super) fn account_query<'a>(
    st: &crate::state::State,
    query: &'a HashMap<String, String>,
) -> ApiResult<&'a str> {
    let account_id = query
        .get("accountId")
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ApiError::invalid("accountId is required"))?;
    if st.account(account_id).is_none() {
        return Err(not_found_account(account_id));
    }
    Ok(account_id)
}

pub(super) fn not_found_account(id: &str) -> ApiError {
    ApiError::not_found(format!("internal account {id} not found"))
}

pub(super) fn not_found_credential(id: &str) -> ApiError {
    ApiError::not_found(format!("credential {id} not found"))
}

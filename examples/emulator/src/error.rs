//! Error bodies: always JSON `{code, message}`, plus `reason` naming the failed check
//! (always on 401, and on other errors where one check failed).

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// An error response.
#[derive(Debug, Clone)]
pub struct ApiError {
    pub status: StatusCode,
    pub code: String,
    pub message: String,
    pub reason: Option<String>,
    pub retry_after_secs: Option<u64>,
}

/// Handlers' result.
pub type ApiResult<T> = Result<T, ApiError>;

impl ApiError {
    /// Any status and code.
    pub fn new(status: StatusCode, code: &str, message: impl Into<String>) -> Self {
        Self {
            status,
            code: code.into(),
            message: message.into(),
            reason: None,
            retry_after_secs: None,
        }
    }

    /// 400 with a specific code.
    pub fn bad_request(code: &str, message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, code, message)
    }

    /// 400 INVALID_INPUT.
    pub fn invalid(message: impl Into<String>) -> Self {
        Self::bad_request("INVALID_INPUT", message)
    }

    /// 401 UNAUTHORIZED; `reason` names the failed check.
    pub fn unauthorized(reason: impl Into<String>) -> Self {
        let reason = reason.into();
        Self {
            status: StatusCode::UNAUTHORIZED,
            code: "UNAUTHORIZED".into(),
            message: format!("Unauthorized: {reason}"),
            reason: Some(reason),
            retry_after_secs: None,
        }
    }

    /// 401 with one of the service's specific 401 codes (`WALLET_SIGNATURE_BODY_MISMATCH`,
    /// ...); `reason` names the failed check.
    pub fn unauthorized_as(code: &str, reason: impl Into<String>) -> Self {
        Self {
            code: code.into(),
            ..Self::unauthorized(reason)
        }
    }

    /// 404 NOT_FOUND.
    pub fn not_found(message: impl Into<String>) -> Self {
        Self::new(StatusCode::NOT_FOUND, "NOT_FOUND", message)
    }

    /// 429 RATE_LIMITED with Retry-After.
    pub fn rate_limited(secs: u64, message: impl Into<String>) -> Self {
        let mut e = Self::new(StatusCode::TOO_MANY_REQUESTS, "RATE_LIMITED", message);
        e.retry_after_secs = Some(secs.max(1));
        e
    }

    /// Adds a reason.
    pub fn with_reason(mut self, reason: impl Into<String>) -> Self {
        self.reason = Some(reason.into());
        self
    }
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut body = json!({"code": self.code, "message": self.message});
        if let Some(reason) = &self.reason {
            body["reason"] = json!(reason);
        }
        if let Some(secs) = self.retry_after_secs {
            body["retryAfterSeconds"] = json!(secs);
        }
        let mut response = crate::api::json_response(self.status, &body);
        if let Some(secs) = self.retry_after_secs {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from_str(&secs.to_string()).expect("digits"),
            );
        }
        response
    }
}

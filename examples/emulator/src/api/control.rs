//! The emulator's control endpoints under `/emulator/` (no auth: they exist for the demo
//! page and tests): `POST /accounts`, `GET /outbox`, `GET /config`,
//! `POST /registration-challenge`, `GET`/`POST /permissions`, and the built-in OIDC
//! issuer's `GET /oidc/token`, `/oidc/jwks` and `/oidc/.well-known/openid-configuration`.
//! Strict vs sandbox: the outbox fills in strict mode only; `/config` names the export
//! signer's key in strict mode only.

use std::collections::HashMap;

use axum::extract::{Query, State as AxumState};
use axum::http::StatusCode;
use axum::response::Response;
use embedded_wallet_kit::encoding::base64url_encode;
use embedded_wallet_kit::service::uncompressed_hex;
use embedded_wallet_kit::PublicKey;
use serde_json::{json, Value};

use super::http::{json_response, Req};
use super::{App, Shared};
use crate::crypto::OIDC_AUDIENCE;
use crate::error::{ApiError, ApiResult};
use crate::util::{now_ms, random_bytes, rfc3339};

/// `POST /emulator/accounts {email?}`: a customer and its EMBEDDED_WALLET account.
pub(crate) async fn create_account(
    AxumState(app): AxumState<Shared>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json_or_empty()?;
    let email = match body.get("email") {
        None | Some(Value::Null) => format!(
            "user-{}@example.com",
            &embedded_wallet_kit::service::hex_encode(&random_bytes::<4>())
        ),
        Some(Value::String(e)) if e.contains('@') && e.len() <= 254 => e.clone(),
        Some(_) => return Err(ApiError::invalid("email must be an email address")),
    };
    let (customer_id, account_id) = app
        .lock()
        .create_customer_account(&email, "EMBEDDED_WALLET");
    Ok(json_response(
        StatusCode::CREATED,
        &json!({"accountId": account_id, "customerId": customer_id, "email": email}),
    ))
}

/// `GET /emulator/outbox?accountId=`: the OTP emails sent (strict mode).
pub(crate) async fn outbox(
    AxumState(app): AxumState<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> Response {
    let st = app.lock();
    let data: Vec<Value> = st
        .outbox
        .iter()
        .filter(|m| query.get("accountId").is_none_or(|a| *a == m.account_id))
        .map(|m| {
            json!({"accountId": m.account_id, "email": m.email, "otp": m.otp, "sentAt": rfc3339(m.sent_ms)})
        })
        .collect();
    json_response(StatusCode::OK, &Value::Array(data))
}

/// `GET /emulator/config`: what a client needs to know about this emulator.
pub(crate) async fn config(AxumState(app): AxumState<Shared>) -> Response {
    let c = &app.config;
    json_response(
        StatusCode::OK,
        &json!({
            "mode": c.mode.as_str(),
            "baseUrl": app.base_url,
            "backendUrl": format!("{}/backend", app.base_url),
            "rpId": c.rp_id,
            "oidcIssuer": app.issuer.iss,
            "oidcAudience": OIDC_AUDIENCE,
            "merchantAccountId": app.merchant_account_id,
            "exportSignerPublicKey": if app.strict() {
                uncompressed_hex(&PublicKey::from(app.export_signer.verifying_key()))
            } else {
                String::new()
            },
            // Both modes: the real sandbox signs its OTP target bundles too.
            "otpSignerPublicKey": uncompressed_hex(&PublicKey::from(app.otp_signer.verifying_key())),
            "permissions": permissions_json(&app),
            "sessionTtlSecs": c.session_ttl.as_secs(),
            "challengeIntervalMs": c.challenge_interval.as_millis() as u64,
        }),
    )
}

fn permissions_json(app: &App) -> Value {
    json!({"transact": !app.lock().transact_forbidden})
}

/// `GET /emulator/permissions`: the API token's permissions, `{transact}`.
pub(crate) async fn permissions(AxumState(app): AxumState<Shared>) -> Response {
    json_response(StatusCode::OK, &permissions_json(&app))
}

/// `POST /emulator/permissions {transact}`: grants or withdraws the TRANSACT permission
/// at run time (a browser test's switch); answers the permissions now in force.
pub(crate) async fn set_permissions(
    AxumState(app): AxumState<Shared>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json()?;
    let transact = match body.get("transact") {
        Some(Value::Bool(b)) => *b,
        _ => return Err(ApiError::invalid("transact must be a boolean")),
    };
    app.lock().transact_forbidden = !transact;
    Ok(json_response(StatusCode::OK, &permissions_json(&app)))
}

/// `POST /emulator/registration-challenge`: a base64url registration challenge, as an
/// integrator backend would issue (not tracked: the emulator checks only that
/// clientDataJSON echoes the body's challenge).
pub(crate) async fn registration_challenge() -> Response {
    json_response(
        StatusCode::OK,
        &json!({"challenge": base64url_encode(&random_bytes::<32>())}),
    )
}

/// `GET /emulator/oidc/token?nonce=&email=&sub=&iatOffsetSecs=`: an ES256 ID token from
/// the built-in issuer.
pub(crate) async fn oidc_token(
    AxumState(app): AxumState<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let email = query
        .get("email")
        .cloned()
        .unwrap_or_else(|| "user@example.com".into());
    let sub = query
        .get("sub")
        .cloned()
        .unwrap_or_else(|| format!("emulator|{email}"));
    let offset = match query.get("iatOffsetSecs") {
        None => 0,
        Some(t) => t
            .parse::<i64>()
            .map_err(|_| ApiError::invalid("iatOffsetSecs must be an integer"))?,
    };
    let iat = now_ms() / 1000 + offset;
    let mut claims = json!({
        "iss": app.issuer.iss,
        "aud": OIDC_AUDIENCE,
        "sub": sub,
        "email": email,
        "email_verified": true,
        "iat": iat,
        "exp": iat + 600,
    });
    if let Some(nonce) = query.get("nonce") {
        claims["nonce"] = json!(nonce);
    }
    Ok(json_response(
        StatusCode::OK,
        &json!({"idToken": app.issuer.mint(&claims)}),
    ))
}

pub(crate) async fn oidc_jwks(AxumState(app): AxumState<Shared>) -> Response {
    json_response(StatusCode::OK, &app.issuer.jwks())
}

pub(crate) async fn oidc_configuration(AxumState(app): AxumState<Shared>) -> Response {
    json_response(
        StatusCode::OK,
        &json!({
            "issuer": app.issuer.iss,
            "jwks_uri": format!("{}/jwks", app.issuer.iss),
            "id_token_signing_alg_values_supported": ["ES256"],
            "response_types_supported": ["id_token"],
            "subject_types_supported": ["public"],
        }),
    )
}

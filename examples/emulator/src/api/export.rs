//! Wallet export: `POST /internal-accounts/{id}/export {clientPublicKey}`, a signed retry
//! answered with the sealed export envelope. Strict vs sandbox: strict signs the envelope
//! with the emulator's export key; sandbox leaves `dataSignature` and
//! `enclaveQuorumPublic` empty (`crypto::export_envelope`).

use axum::extract::{Path, State as AxumState};
use axum::http::StatusCode;
use axum::response::Response;
use serde_json::json;

use super::http::{json_response, not_found_account, Req};
use super::sessions::client_key;
use super::signed_retry::{signed_retry, Leg, RetrySpec};
use super::Shared;
use crate::crypto::export_envelope;
use crate::error::{ApiError, ApiResult};
use crate::state::Purpose;
use crate::util::now_ms;

/// `POST /internal-accounts/{id}/export {clientPublicKey}`.
pub async fn export(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json()?;
    let (client_hex, client) = client_key(&body)?;
    let now = now_ms();
    let mut st = app.lock();
    let account = st.account(&id).ok_or_else(|| not_found_account(&id))?;
    if account.kind != "EMBEDDED_WALLET" {
        return Err(ApiError::invalid(
            "only an EMBEDDED_WALLET internal account can be exported",
        ));
    }
    let organization_id = account.organization_id.clone();
    let spec = RetrySpec::new(
        &id,
        Purpose::Export,
        "ACTIVITY_TYPE_EXPORT_WALLET",
        json!({"targetPublicKey": client_hex, "walletId": account.wallet_id}),
    );
    let authorized = match signed_retry(&app, &mut st, &req, spec, now)? {
        Leg::Issued(response) => return Ok(response),
        Leg::Authorized(a) => a,
    };
    let signer = app.strict().then_some(&app.export_signer);
    let envelope = export_envelope(&client, &organization_id, signer)
        .map_err(|e| ApiError::invalid(format!("cannot seal to clientPublicKey: {e}")))?;
    authorized.consume(&mut st);
    Ok(json_response(
        StatusCode::OK,
        &json!({"id": id, "encryptedWalletCredentials": envelope}),
    ))
}

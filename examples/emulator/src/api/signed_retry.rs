//! Wallet signatures (`Service-Wallet-Signature`) and the signed-retry exchange of spec
//! §4.2 (202 PendingSignature, then the stamped retry with `Request-Id`), which every
//! wallet request goes through. Strict vs sandbox: `check_wallet_signature`.

use axum::http::StatusCode;
use axum::response::Response;
use embedded_wallet_kit::parse_public_key_hex;
use embedded_wallet_kit::service::compressed_hex;
use embedded_wallet_kit::service::sha256_hex;
use embedded_wallet_kit::service::SANDBOX_SIGNATURE;
use embedded_wallet_kit::service::{decode_stamp, verify_stamp};
use embedded_wallet_kit::{REQUEST_ID_HEADER, SIGNATURE_HEADER};
use serde_json::{json, Value};

use super::http::{json_response, Req};
use super::processing::{self, BODY_MISMATCH};
use super::sessions::ensure_live;
use super::App;
use crate::error::{ApiError, ApiResult};
use crate::state::{CredKind, Pending, Purpose, State};
use crate::util::{canonical_json, matches_compressed_key_pattern, new_id, rfc3339};

/// A Turnkey-style activity: canonical compact JSON with sorted keys.
pub(super) fn activity(kind: &str, organization_id: &str, parameters: Value, now: i64) -> String {
    canonical_json(&json!({
        "organizationId": organization_id,
        "parameters": parameters,
        "timestampMs": now.to_string(),
        "type": kind,
    }))
}

/// Who signed, in strict mode.
pub struct Signer {
    pub session_id: String,
    pub credential_id: String,
}

/// Checks a `Service-Wallet-Signature` over `payload` for `account_id`. Sandbox: only the
/// magic value. Strict: a stamp that verifies over the exact payload, by the key of an
/// active session of the account.
pub(super) fn check_wallet_signature(
    app: &App,
    st: &State,
    signature: &str,
    payload: &str,
    account_id: &str,
    signer_key: Option<&str>,
    now: i64,
) -> ApiResult<Option<Signer>> {
    const INVALID: &str = "Invalid Service-Wallet-Signature";
    if !app.strict() {
        if signature == SANDBOX_SIGNATURE {
            return Ok(None);
        }
        // The sandbox's encrypted OTP login: the kit stamps its second leg with the TEK,
        // and the real sandbox verifies real stamps, so one by the sealed key passes too.
        let by_tek = signer_key.is_some_and(|expected| {
            verify_stamp(signature, payload).is_ok_and(|stamp| stamp.public_key == expected)
        });
        return if by_tek {
            Ok(None)
        } else {
            Err(ApiError::unauthorized(INVALID))
        };
    }
    // The service finds the signer by the stamp's publicKey as sent, and API keys are
    // compressed keys: an uncompressed spelling names no key.
    let spelled = decode_stamp(signature)
        .map(|stamp| stamp.public_key)
        .unwrap_or_default();
    if !spelled.is_empty() && !matches_compressed_key_pattern(&spelled) {
        return Err(ApiError::unauthorized(format!(
            "{INVALID}: the stamp's publicKey must be the compressed key (66 hex, 02/03)"
        )));
    }
    let stamp = verify_stamp(signature, payload).map_err(|e| {
        let detail = if e.code() == embedded_wallet_kit::ErrorCode::Unauthorized {
            "the stamp does not verify over payloadToSign".to_owned()
        } else {
            format!("malformed stamp ({})", e.message())
        };
        ApiError::unauthorized(format!("{INVALID}: {detail}"))
    })?;
    let key = parse_public_key_hex(&stamp.public_key, "publicKey")
        .map_err(|_| ApiError::unauthorized(format!("{INVALID}: bad publicKey")))?;
    let key = compressed_hex(&key);
    if let Some(expected) = signer_key {
        // The OTP login's second leg: signed by the TEK from the sealed bundle, which
        // is no session's key yet.
        return if key == expected {
            Ok(None)
        } else {
            Err(ApiError::unauthorized(format!(
                "{INVALID}: the stamp is not by the key sealed in encryptedOtpBundle"
            )))
        };
    }
    let session = st
        .sessions
        .iter()
        .find(|s| s.public_key.as_deref() == Some(key.as_str()))
        .ok_or_else(|| {
            ApiError::unauthorized(format!(
                "{INVALID}: the signing key is not the key of any session"
            ))
        })?;
    if session.account_id != account_id {
        return Err(ApiError::unauthorized(format!(
            "{INVALID}: the signing session belongs to another account"
        )));
    }
    ensure_live(st, session, now)?;
    Ok(Some(Signer {
        session_id: session.id.clone(),
        credential_id: session.credential_id.clone(),
    }))
}

pub(super) enum Leg {
    /// An answer to give as it is: the first call's 202 PendingSignature, or a signed
    /// retry's `200 PROCESSING` (or, re-sent, the answer it ended with): `processing`.
    Issued(Response),
    /// A retry that passed every check. Call `consume` once the operation succeeded.
    Authorized(Authorized),
}

pub(super) struct Authorized {
    pub(super) request_id: String,
    pub(super) signer: Option<Signer>,
    /// The key the retry had to be stamped with, when the 202 named one (the OTP TEK).
    pub(super) signer_key: Option<String>,
}

impl Authorized {
    pub(super) fn consume(self, st: &mut State) {
        if let Some(p) = st.pending.get_mut(&self.request_id) {
            p.used = true;
        }
    }
}

pub(super) struct RetrySpec<'a> {
    pub(super) account_id: &'a str,
    pub(super) purpose: Purpose,
    pub(super) activity: &'a str,
    pub(super) parameters: Value,
    pub(super) kind: Option<CredKind>,
    /// The payload to sign, when it is not an activity built from `activity`/`parameters`.
    pub(super) payload: Option<String>,
    /// The compressed key that must sign the retry, instead of an account's session.
    pub(super) signer_key: Option<String>,
}

impl<'a> RetrySpec<'a> {
    /// The usual wallet request: the activity `activity` with `parameters`, signed by a
    /// session of `account_id`, with no `type` in the 202.
    pub(super) fn new(
        account_id: &'a str,
        purpose: Purpose,
        activity: &'a str,
        parameters: Value,
    ) -> Self {
        Self {
            account_id,
            purpose,
            activity,
            parameters,
            kind: None,
            payload: None,
            signer_key: None,
        }
    }
}

/// The signed-retry exchange (docs/protocol.md).
pub(super) fn signed_retry(
    app: &App,
    st: &mut State,
    req: &Req,
    spec: RetrySpec,
    now: i64,
) -> ApiResult<Leg> {
    let signature = req.header(SIGNATURE_HEADER);
    let request_id = req.header(REQUEST_ID_HEADER);
    let (signature, request_id) = match (signature, request_id) {
        (None, None) => {
            let organization_id = st.account_organization_id(spec.account_id);
            let payload = spec.payload.unwrap_or_else(|| {
                let mut parameters = spec.parameters;
                parameters["requestBodySha256"] = json!(sha256_hex(&req.body));
                activity(spec.activity, &organization_id, parameters, now)
            });
            let id = new_id("Request");
            let expires_ms = now + App::ms(app.config.request_ttl);
            st.pending.insert(
                id.clone(),
                Pending {
                    method: req.method.clone(),
                    path: req.path.clone(),
                    body: req.body.clone(),
                    payload: payload.clone(),
                    account_id: spec.account_id.to_owned(),
                    expires_ms,
                    purpose: spec.purpose,
                    signer_key: spec.signer_key,
                    used: false,
                },
            );
            let mut body = json!({
                "payloadToSign": payload,
                "requestId": id,
                "expiresAt": rfc3339(expires_ms),
            });
            if let Some(kind) = spec.kind {
                body["type"] = json!(kind.as_str());
            }
            return Ok(Leg::Issued(json_response(StatusCode::ACCEPTED, &body)));
        }
        (None, Some(_)) => {
            return Err(ApiError::unauthorized(
                "Service-Wallet-Signature header missing",
            ))
        }
        (Some(_), None) => return Err(ApiError::unauthorized("Request-Id header missing")),
        (Some(s), Some(r)) => (s, r),
    };
    let pending = st
        .pending
        .get(request_id)
        .ok_or_else(|| ApiError::unauthorized("Unknown Request-Id"))?;
    if pending.used {
        return Err(ApiError::unauthorized("Request id already used"));
    }
    if now >= pending.expires_ms {
        return Err(ApiError::unauthorized("Request id expired"));
    }
    if pending.method != req.method || pending.path != req.path || pending.purpose != spec.purpose {
        return Err(ApiError::unauthorized(
            "Request-Id was issued for a different request",
        ));
    }
    if pending.account_id != spec.account_id {
        return Err(ApiError::unauthorized(
            "Request-Id was issued for a different account",
        ));
    }
    if pending.body != req.body {
        return Err(ApiError::unauthorized_as(
            BODY_MISMATCH,
            "WALLET_SIGNATURE_BODY_MISMATCH",
        ));
    }
    let signer_key = pending.signer_key.clone();
    let signer = check_wallet_signature(
        app,
        st,
        signature,
        &pending.payload,
        &pending.account_id,
        signer_key.as_deref(),
        now,
    )?;
    if let Some(answer) = processing::hold(st, spec.purpose, req, request_id, now)? {
        return Ok(Leg::Issued(answer));
    }
    Ok(Leg::Authorized(Authorized {
        request_id: request_id.to_owned(),
        signer,
        signer_key,
    }))
}

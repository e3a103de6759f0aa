//! The API handlers (spec paths, mounted at `/` behind Basic auth and at `/backend/`).

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use axum::body::{Body, Bytes};
use axum::extract::{FromRequest, Path, Query, Request, State as AxumState};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use embedded_wallet_kit::encoding::{base64url_decode, sha256_hex};
use embedded_wallet_kit::p256::ecdsa::SigningKey;
use embedded_wallet_kit::p256::{PublicKey, SecretKey};
use embedded_wallet_kit::stamp::{decode_stamp, verify_stamp};
use embedded_wallet_kit::{compressed_hex, oidc_nonce_for, parse_public_key_hex};
use embedded_wallet_kit::{REQUEST_ID_HEADER, SANDBOX_SIGNATURE, SIGNATURE_HEADER};
use serde_json::{json, Map, Value};

use crate::config::{Config, Mode};
use crate::crypto::{
    decode_jwt, export_envelope, open_otp_bundle, otp_target_bundle, seal_session_key, stub_bundle,
    verification_token, verify_assertion, verify_registration, Issuer, RelyingParty,
    SANDBOX_ISSUERS,
};
use crate::error::{ApiError, ApiResult};
use crate::state::{
    usd, CredKind, Credential, OutboxEntry, Passkey, PasskeyChallenge, Pending, Purpose, Quote,
    SessionRec, State, StoredResponse,
};
use crate::util::{
    canonical_json, matches_any_client_key_pattern, matches_client_key_pattern,
    matches_compressed_key_pattern, new_id, now_ms, random_digits, rfc3339,
};

/// The spec's accepted OTP in sandbox mode.
pub const SANDBOX_OTP: &str = "000000";
/// The spec's accepted passkey signature in sandbox mode.
pub const SANDBOX_PASSKEY_SIGNATURE: &str = "sandbox-valid-passkey-signature";
/// The spec's accepted OIDC token on OAUTH verify in sandbox mode.
pub const SANDBOX_OIDC_TOKEN: &str = "sandbox-valid-oidc-token";
/// Largest amount anywhere (spec §8).
pub const MAX_AMOUNT: i64 = 9_000_000_000_000_000;

/// Everything the handlers share.
pub struct App {
    pub config: Config,
    /// `http://localhost:PORT`, PORT the one actually bound.
    pub base_url: String,
    pub issuer: Issuer,
    pub export_signer: SigningKey,
    /// Encrypted OTP (both modes): the enclave's HPKE key, which `encryptedOtpBundle`s
    /// are sealed to, and the key that signs `otpEncryptionTargetBundle`s.
    pub otp_enclave: SecretKey,
    pub otp_signer: SigningKey,
    /// The seeded destination account for quotes.
    pub merchant_account_id: String,
    pub state: Mutex<State>,
}

pub type Shared = Arc<App>;

impl App {
    pub fn strict(&self) -> bool {
        self.config.mode == Mode::Strict
    }

    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// WebAuthn origins: any `http://localhost[:port]`, plus `--origin`s.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        if let Some(rest) = origin.strip_prefix("http://localhost") {
            if rest.is_empty()
                || (rest.len() > 1
                    && rest.starts_with(':')
                    && rest[1..].bytes().all(|c| c.is_ascii_digit()))
            {
                return true;
            }
        }
        self.config.origins.iter().any(|o| o == origin)
    }

    fn ms(d: std::time::Duration) -> i64 {
        i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
    }
}

// ---------------------------------------------------------------------------------------
// Request and response plumbing

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

fn no_content() -> Response {
    StatusCode::NO_CONTENT.into_response()
}

fn req_str<'a>(m: &'a Map<String, Value>, field: &str) -> ApiResult<&'a str> {
    match m.get(field) {
        None | Some(Value::Null) => Err(ApiError::invalid(format!("{field} is required"))),
        Some(Value::String(s)) if s.is_empty() => {
            Err(ApiError::invalid(format!("{field} is empty")))
        }
        Some(Value::String(s)) => Ok(s),
        Some(_) => Err(ApiError::invalid(format!("{field} must be a string"))),
    }
}

fn opt_str<'a>(m: &'a Map<String, Value>, field: &str) -> ApiResult<Option<&'a str>> {
    match m.get(field) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(ApiError::invalid(format!("{field} must be a string"))),
    }
}

fn req_obj<'a>(m: &'a Map<String, Value>, field: &str) -> ApiResult<&'a Map<String, Value>> {
    match m.get(field) {
        Some(Value::Object(o)) => Ok(o),
        None | Some(Value::Null) => Err(ApiError::invalid(format!("{field} is required"))),
        Some(_) => Err(ApiError::invalid(format!("{field} must be an object"))),
    }
}

/// A `clientPublicKey`: the spec pattern, then a point on P-256.
fn client_key(m: &Map<String, Value>) -> ApiResult<(String, PublicKey)> {
    let text = req_str(m, "clientPublicKey")?;
    if !matches_client_key_pattern(text) {
        return Err(ApiError::invalid(
            "clientPublicKey must be an uncompressed P-256 key in hex: ^04[0-9a-fA-F]{128}$",
        )
        .with_reason("clientPublicKey pattern"));
    }
    let key = parse_public_key_hex(text, "clientPublicKey").map_err(|_| {
        ApiError::invalid("clientPublicKey is not a point on P-256")
            .with_reason("clientPublicKey point")
    })?;
    Ok((text.to_owned(), key))
}

/// A `clientPublicKey` where newer deployments also take the compressed form (challenge,
/// OAUTH verify, refresh; research notes §9): `(hex, key, client_held)`, where a
/// compressed key asks for the client-held flow (no bundle; the key is the session key).
fn client_key_any(st: &State, m: &Map<String, Value>) -> ApiResult<(String, PublicKey, bool)> {
    let text = req_str(m, "clientPublicKey")?;
    if !matches_any_client_key_pattern(text) {
        return Err(ApiError::invalid(
            "clientPublicKey must be a P-256 key in hex: ^(0[23][0-9a-fA-F]{64}|04[0-9a-fA-F]{128})$",
        )
        .with_reason("clientPublicKey pattern"));
    }
    let key = parse_public_key_hex(text, "clientPublicKey").map_err(|_| {
        ApiError::invalid("clientPublicKey is not a point on P-256")
            .with_reason("clientPublicKey point")
    })?;
    let client_held = text.len() == 66;
    if client_held {
        fresh_session_key(st, &key)?;
    }
    Ok((text.to_owned(), key, client_held))
}

/// A client-held key becomes a session key: stamps find their session by key, so one
/// key must never belong to two sessions.
fn fresh_session_key(st: &State, key: &PublicKey) -> ApiResult<()> {
    let hex = compressed_hex(key);
    if st
        .sessions
        .iter()
        .any(|s| s.public_key.as_deref() == Some(hex.as_str()))
    {
        return Err(ApiError::invalid(
            "this key is already the key of a session; generate a new one",
        )
        .with_reason("clientPublicKey reused"));
    }
    Ok(())
}

fn amount(m: &Map<String, Value>, field: &str) -> ApiResult<i64> {
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
fn limit(query: &HashMap<String, String>) -> ApiResult<usize> {
    match query.get("limit") {
        None => Ok(20),
        Some(text) => match text.parse::<usize>() {
            Ok(n) if (1..=100).contains(&n) => Ok(n),
            _ => Err(ApiError::invalid("limit must be an integer from 1 to 100")),
        },
    }
}

/// A Turnkey-style activity: canonical compact JSON with sorted keys.
fn activity(kind: &str, organization_id: &str, parameters: Value, now: i64) -> String {
    canonical_json(&json!({
        "organizationId": organization_id,
        "parameters": parameters,
        "timestampMs": now.to_string(),
        "type": kind,
    }))
}

fn not_found_account(id: &str) -> ApiError {
    ApiError::not_found(format!("internal account {id} not found"))
}

fn not_found_credential(id: &str) -> ApiError {
    ApiError::not_found(format!("credential {id} not found"))
}

// ---------------------------------------------------------------------------------------
// Wallet signatures and the signed-retry exchange

/// Who signed, in strict mode.
pub struct Signer {
    pub session_id: String,
    pub credential_id: String,
}

/// Checks a `Service-Wallet-Signature` over `payload` for `account_id`. Sandbox: only the
/// magic value. Strict: a stamp that verifies over the exact payload, by the key of an
/// active session of the account.
fn check_wallet_signature(
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

enum Leg {
    /// The first call: a 202 PendingSignature.
    Issued(Response),
    /// A retry that passed every check. Call `consume` once the operation succeeded.
    Authorized(Authorized),
}

struct Authorized {
    request_id: String,
    signer: Option<Signer>,
    /// The key the retry had to be stamped with, when the 202 named one (the OTP TEK).
    signer_key: Option<String>,
}

impl Authorized {
    fn consume(self, st: &mut State) {
        if let Some(p) = st.pending.get_mut(&self.request_id) {
            p.used = true;
        }
    }
}

struct RetrySpec<'a> {
    account_id: &'a str,
    purpose: Purpose,
    activity: &'a str,
    parameters: Value,
    kind: Option<CredKind>,
    /// The payload to sign, when it is not an activity built from `activity`/`parameters`.
    payload: Option<String>,
    /// The compressed key that must sign the retry, instead of an account's session.
    signer_key: Option<String>,
}

/// The signed-retry exchange of spec §4.2.
fn signed_retry(app: &App, st: &mut State, req: &Req, spec: RetrySpec, now: i64) -> ApiResult<Leg> {
    let signature = req.header(SIGNATURE_HEADER);
    let request_id = req.header(REQUEST_ID_HEADER);
    let (signature, request_id) = match (signature, request_id) {
        (None, None) => {
            let organization_id = st
                .account(spec.account_id)
                .map(|a| a.organization_id.clone())
                .unwrap_or_default();
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
        return Err(ApiError::unauthorized("WALLET_SIGNATURE_BODY_MISMATCH"));
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
    Ok(Leg::Authorized(Authorized {
        request_id: request_id.to_owned(),
        signer,
        signer_key,
    }))
}

// ---------------------------------------------------------------------------------------
// Credentials

/// 401 unless `attempt` is the credential's current, unexpired code (the caller then
/// spends it: codes are single use).
fn check_otp(cred: &Credential, attempt: &str, now: i64) -> ApiResult<()> {
    match &cred.otp {
        Some((code, _)) if code != attempt => Err(ApiError::unauthorized("Invalid OTP code")),
        Some((_, until)) if now >= *until => Err(ApiError::unauthorized("OTP code expired")),
        Some(_) => Ok(()),
        None => Err(ApiError::unauthorized("Invalid OTP code")),
    }
}

fn send_otp(app: &App, st: &mut State, credential_id: &str, now: i64) {
    let ttl = App::ms(app.config.otp_ttl);
    let strict = app.strict();
    let Some(cred) = st.credential_mut(credential_id) else {
        return;
    };
    if !strict {
        // Sandbox: delivery is skipped; 000000 is the code.
        cred.otp = None;
        return;
    }
    let code = random_digits(6);
    cred.otp = Some((code.clone(), now + ttl));
    let account_id = cred.account_id.clone();
    let email = st.account_email(&account_id);
    st.outbox.push(OutboxEntry {
        account_id,
        email,
        otp: code,
        sent_ms: now,
    });
}

/// OAUTH create: strict verifies the token against the built-in issuer (no nonce: there
/// is no clientPublicKey on create); sandbox checks structure and a recognised `iss`.
fn check_oauth_create(app: &App, token: &str, now: i64) -> ApiResult<Value> {
    const INVALID: &str = "Invalid OIDC token";
    if app.strict() {
        return app
            .issuer
            .verify(token, now, None)
            .map_err(|why| ApiError::unauthorized(format!("{INVALID}: {why}")));
    }
    let jwt = decode_jwt(token).map_err(|_| ApiError::unauthorized(INVALID))?;
    let claims = jwt.claims;
    let iss = claims
        .get("iss")
        .and_then(Value::as_str)
        .unwrap_or_default();
    let known = SANDBOX_ISSUERS.contains(&iss) || iss == app.issuer.iss;
    let sub_ok = claims
        .get("sub")
        .and_then(Value::as_str)
        .is_some_and(|s| !s.is_empty());
    if known && sub_ok {
        Ok(claims)
    } else {
        Err(ApiError::unauthorized(INVALID))
    }
}

struct NewCredential {
    nickname: String,
    oauth: Option<(String, String)>,
    passkey: Option<Passkey>,
}

fn validate_new_credential(
    app: &App,
    st: &State,
    body: &Map<String, Value>,
    kind: CredKind,
    account_id: &str,
    now: i64,
) -> ApiResult<NewCredential> {
    let has = |k: CredKind| st.active_credentials(account_id).any(|c| c.kind == k);
    match kind {
        CredKind::EmailOtp => {
            if has(CredKind::EmailOtp) {
                return Err(ApiError::bad_request(
                    "EMAIL_OTP_CREDENTIAL_ALREADY_EXISTS",
                    "the account already has an EMAIL_OTP credential",
                ));
            }
            Ok(NewCredential {
                nickname: st.account_email(account_id),
                oauth: None,
                passkey: None,
            })
        }
        CredKind::Oauth => {
            let token = req_str(body, "oidcToken")?;
            let claims = check_oauth_create(app, token, now)?;
            let iss = claims["iss"].as_str().unwrap_or_default().to_owned();
            let sub = claims["sub"].as_str().unwrap_or_default().to_owned();
            if st
                .active_credentials(account_id)
                .any(|c| c.oauth.as_ref() == Some(&(iss.clone(), sub.clone())))
            {
                return Err(ApiError::bad_request(
                    "OAUTH_CREDENTIAL_ALREADY_EXISTS",
                    "the account already has an OAUTH credential for this identity (iss, sub)",
                ));
            }
            let nickname = claims
                .get("email")
                .and_then(Value::as_str)
                .unwrap_or(&sub)
                .to_owned();
            Ok(NewCredential {
                nickname,
                oauth: Some((iss, sub)),
                passkey: None,
            })
        }
        CredKind::Passkey => {
            let nickname = req_str(body, "nickname")?.trim().to_owned();
            embedded_wallet_kit::passkey::validate_nickname(&nickname)
                .map_err(|e| ApiError::invalid(e.message().to_owned()))?;
            let challenge = req_str(body, "challenge")?;
            if base64url_decode(challenge).is_none_or(|b| b.is_empty()) {
                return Err(ApiError::invalid(
                    "challenge must be the base64url registration challenge",
                ));
            }
            let attestation = req_obj(body, "attestation")?;
            let credential_id = req_str(attestation, "credentialId")
                .map_err(|e| ApiError::invalid(format!("attestation.{}", e.message)))?;
            let client_data = req_str(attestation, "clientDataJson")
                .map_err(|e| ApiError::invalid(format!("attestation.{}", e.message)))?;
            let object = req_str(attestation, "attestationObject")
                .map_err(|e| ApiError::invalid(format!("attestation.{}", e.message)))?;
            let transports = match attestation.get("transports") {
                None | Some(Value::Null) => Vec::new(),
                Some(Value::Array(items)) => items
                    .iter()
                    .map(|t| t.as_str().map(str::to_owned))
                    .collect::<Option<Vec<_>>>()
                    .ok_or_else(|| {
                        ApiError::invalid("attestation.transports must be an array of strings")
                    })?,
                Some(_) => {
                    return Err(ApiError::invalid(
                        "attestation.transports must be an array of strings",
                    ))
                }
            };
            if has(CredKind::Passkey) {
                return Err(ApiError::bad_request(
                    "PASSKEY_CREDENTIAL_ALREADY_EXISTS",
                    "the account already has a PASSKEY credential",
                ));
            }
            let origin_allowed = |o: &str| app.origin_allowed(o);
            let rp = RelyingParty {
                rp_id: &app.config.rp_id,
                origin_allowed: &origin_allowed,
            };
            let registered = verify_registration(
                credential_id,
                client_data,
                object,
                challenge,
                &rp,
                app.strict(),
            )
            .map_err(|why| {
                ApiError::bad_request(
                    "INVALID_PASSKEY_ATTESTATION",
                    format!("the passkey attestation was rejected: {why}"),
                )
                .with_reason(why)
            })?;
            let taken = st.credentials.iter().any(|c| {
                !c.revoked
                    && c.passkey
                        .as_ref()
                        .is_some_and(|p| p.credential_id == credential_id)
            });
            if taken {
                return Err(ApiError::bad_request(
                    "PASSKEY_CREDENTIAL_ALREADY_EXISTS",
                    "this WebAuthn credential id is already registered",
                ));
            }
            Ok(NewCredential {
                nickname,
                oauth: None,
                passkey: Some(Passkey {
                    credential_id: credential_id.to_owned(),
                    public_key: registered.public_key,
                    counter: registered.counter,
                    transports,
                }),
            })
        }
    }
}

fn add_activity(kind: CredKind) -> &'static str {
    match kind {
        CredKind::Passkey => "ACTIVITY_TYPE_CREATE_AUTHENTICATORS_V2",
        CredKind::Oauth => "ACTIVITY_TYPE_CREATE_OAUTH_PROVIDERS",
        CredKind::EmailOtp => "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
    }
}

fn revoke_activity(kind: CredKind) -> &'static str {
    match kind {
        CredKind::Passkey => "ACTIVITY_TYPE_DELETE_AUTHENTICATORS",
        CredKind::Oauth => "ACTIVITY_TYPE_DELETE_OAUTH_PROVIDERS",
        CredKind::EmailOtp => "ACTIVITY_TYPE_UPDATE_USER_EMAIL",
    }
}

/// `POST /auth/credentials`.
pub async fn create_credential(AxumState(app): AxumState<Shared>, req: Req) -> ApiResult<Response> {
    let body = req.json()?;
    let kind = match opt_str(&body, "type")? {
        Some(t) => CredKind::parse(t)
            .ok_or_else(|| ApiError::invalid("type must be EMAIL_OTP, OAUTH or PASSKEY"))?,
        None if body.contains_key("attestation") => CredKind::Passkey,
        None => return Err(ApiError::invalid("type is required")),
    };
    let account_id = req_str(&body, "accountId")?.to_owned();
    let now = now_ms();
    let mut st = app.lock();
    let account = st
        .account(&account_id)
        .ok_or_else(|| not_found_account(&account_id))?;
    if account.kind != "EMBEDDED_WALLET" {
        return Err(ApiError::invalid(
            "credentials belong to EMBEDDED_WALLET internal accounts only",
        ));
    }
    let new = validate_new_credential(&app, &st, &body, kind, &account_id, now)?;
    let mut authorized = None;
    if st.active_credentials(&account_id).next().is_some() {
        let mut parameters = json!({"credentialType": kind.as_str(), "nickname": new.nickname});
        if let Some(p) = &new.passkey {
            parameters["credentialId"] = json!(p.credential_id);
        }
        let spec = RetrySpec {
            account_id: &account_id,
            purpose: Purpose::AddCredential,
            activity: add_activity(kind),
            parameters,
            kind: Some(kind),
            payload: None,
            signer_key: None,
        };
        match signed_retry(&app, &mut st, &req, spec, now)? {
            Leg::Issued(response) => return Ok(response),
            Leg::Authorized(a) => authorized = Some(a),
        }
    }
    let credential = Credential {
        id: new_id("AuthMethod"),
        account_id,
        kind,
        nickname: new.nickname,
        created_ms: now,
        updated_ms: now,
        revoked: false,
        otp: None,
        oauth: new.oauth,
        passkey: new.passkey,
        last_challenge_ms: None,
    };
    let id = credential.id.clone();
    let json = credential.to_json();
    st.credentials.push(credential);
    if kind == CredKind::EmailOtp {
        send_otp(&app, &mut st, &id, now);
    }
    if let Some(a) = authorized {
        a.consume(&mut st);
    }
    Ok(json_response(StatusCode::CREATED, &json))
}

/// `GET /auth/credentials?accountId=`.
pub async fn list_credentials(
    AxumState(app): AxumState<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let account_id = query
        .get("accountId")
        .filter(|s| !s.is_empty())
        .ok_or_else(|| ApiError::invalid("accountId is required"))?;
    let st = app.lock();
    if st.account(account_id).is_none() {
        return Err(not_found_account(account_id));
    }
    let data: Vec<Value> = st
        .active_credentials(account_id)
        .map(Credential::to_json)
        .collect();
    Ok(json_response(StatusCode::OK, &json!({ "data": data })))
}

/// `DELETE /auth/credentials/{id}`.
pub async fn revoke_credential(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let now = now_ms();
    let mut st = app.lock();
    // A retry of a revocation that already happened still reaches the request-id check
    // (so it is a 401 "already used", not a 404).
    let retrying = req.header(REQUEST_ID_HEADER).is_some();
    let cred = st
        .credentials
        .iter()
        .find(|c| c.id == id && (!c.revoked || retrying))
        .ok_or_else(|| not_found_credential(&id))?;
    let (account_id, kind, revoked) = (cred.account_id.clone(), cred.kind, cred.revoked);
    if !revoked && st.active_credentials(&account_id).count() <= 1 {
        return Err(ApiError::bad_request(
            "LAST_CREDENTIAL",
            "an account must keep at least one credential; add another before revoking this one",
        ));
    }
    let spec = RetrySpec {
        account_id: &account_id,
        purpose: Purpose::RevokeCredential,
        activity: revoke_activity(kind),
        parameters: json!({"credentialId": id, "credentialType": kind.as_str()}),
        kind: Some(kind),
        payload: None,
        signer_key: None,
    };
    let authorized = match signed_retry(&app, &mut st, &req, spec, now)? {
        Leg::Issued(response) => return Ok(response),
        Leg::Authorized(a) => a,
    };
    if let Some(signer) = &authorized.signer {
        if signer.credential_id == id {
            return Err(ApiError::unauthorized(
                "Invalid Service-Wallet-Signature: a credential must be revoked by a session of a different credential",
            ));
        }
    }
    for c in st.credentials.iter_mut().filter(|c| c.id == id) {
        c.revoked = true;
        c.updated_ms = now;
    }
    for s in st.sessions.iter_mut().filter(|s| s.credential_id == id) {
        s.revoked = true;
    }
    authorized.consume(&mut st);
    Ok(no_content())
}

/// `POST /auth/credentials/{id}/challenge`.
pub async fn challenge(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json_or_empty()?;
    let now = now_ms();
    let mut st = app.lock();
    let cred = st
        .credential(&id)
        .ok_or_else(|| not_found_credential(&id))?;
    let kind = cred.kind;
    let client = match kind {
        CredKind::Oauth => {
            return Err(ApiError::bad_request(
                "CHALLENGE_NOT_SUPPORTED",
                "OAUTH credentials have no challenge step: verify with a fresh oidcToken",
            ))
        }
        CredKind::Passkey => Some(client_key_any(&st, &body)?),
        CredKind::EmailOtp => None,
    };
    if app.strict() {
        if let Some(last) = cred.last_challenge_ms {
            let interval = App::ms(app.config.challenge_interval);
            let wait = interval - (now - last);
            if wait > 0 {
                let secs = (wait as u64).div_ceil(1000).max(1);
                return Err(ApiError::rate_limited(
                    secs,
                    format!("challenges for this credential are rate limited; retry in {secs} s"),
                ));
            }
        }
    }
    let account_id = cred.account_id.clone();
    let mut response = cred.to_json();
    let passkey_id = cred.passkey.as_ref().map(|p| p.credential_id.clone());
    if let Some(c) = st.credential_mut(&id) {
        c.last_challenge_ms = Some(now);
    }
    match client {
        None => {
            send_otp(&app, &mut st, &id, now);
            // Newer deployments: the enclave key to seal the code to (the real sandbox
            // signs it with a sandbox enclave key). Additive, so clients of the plain-OTP
            // verify just ignore it.
            let organization_id = st
                .account(&account_id)
                .map(|a| a.organization_id.clone())
                .unwrap_or_default();
            response["otpEncryptionTargetBundle"] = json!(otp_target_bundle(
                &app.otp_enclave.public_key(),
                &organization_id,
                &app.otp_signer
            ));
        }
        Some((client_hex, _, _)) => {
            let request_id = new_id("Request");
            let expires_ms = now + App::ms(app.config.request_ttl);
            let organization_id = st
                .account(&account_id)
                .map(|a| a.organization_id.clone())
                .unwrap_or_default();
            let credential_id = passkey_id.unwrap_or_default();
            let payload = activity(
                "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
                &organization_id,
                json!({
                    "credentialId": credential_id,
                    "expirationSeconds": app.config.session_ttl.as_secs().to_string(),
                    "requestId": request_id,
                    "targetPublicKey": client_hex,
                }),
                now,
            );
            let challenge = sha256_hex(payload.as_bytes());
            st.challenges.insert(
                request_id.clone(),
                PasskeyChallenge {
                    credential_id: id.clone(),
                    challenge: challenge.clone(),
                    client_public_key: client_hex,
                    expires_ms,
                    used: false,
                },
            );
            response["credentialId"] = json!(credential_id);
            response["challenge"] = json!(challenge);
            response["requestId"] = json!(request_id);
            response["expiresAt"] = json!(rfc3339(expires_ms));
        }
    }
    Ok(json_response(StatusCode::OK, &response))
}

/// Creates a session for `credential_id`, its key sealed to `client` (strict) or a stub
/// bundle (sandbox); returns the response body.
fn issue_session(
    app: &App,
    st: &mut State,
    credential_id: &str,
    client: &PublicKey,
    client_held: bool,
    now: i64,
) -> ApiResult<Value> {
    let cred = st
        .credential(credential_id)
        .ok_or_else(|| not_found_credential(credential_id))?;
    let (bundle, public_key) = if client_held {
        // Newer deployments: no bundle; the client's key is the session key.
        (None, Some(compressed_hex(client)))
    } else if app.strict() {
        let (bundle, public) = seal_session_key(client)
            .map_err(|e| ApiError::invalid(format!("cannot seal to clientPublicKey: {e}")))?;
        (Some(bundle), Some(public))
    } else {
        (Some(stub_bundle()), None)
    };
    let session = SessionRec {
        id: new_id("Session"),
        account_id: cred.account_id.clone(),
        credential_id: cred.id.clone(),
        kind: cred.kind,
        nickname: cred.nickname.clone(),
        passkey_credential_id: cred.passkey.as_ref().map(|p| p.credential_id.clone()),
        created_ms: now,
        expires_ms: now + App::ms(app.config.session_ttl),
        public_key,
        revoked: false,
    };
    let mut json = session.to_json();
    if let Some(bundle) = bundle {
        json["encryptedSessionSigningKey"] = json!(bundle);
    }
    st.sessions.push(session);
    Ok(json)
}

/// `POST /auth/credentials/{id}/verify`.
pub async fn verify(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json()?;
    let now = now_ms();
    let mut st = app.lock();
    let cred = st
        .credential(&id)
        .ok_or_else(|| not_found_credential(&id))?;
    let kind = cred.kind;
    let given = req_str(&body, "type")?;
    if given != kind.as_str() {
        return Err(ApiError::invalid(format!(
            "type is {given} but credential {id} is {}",
            kind.as_str()
        )));
    }
    if kind == CredKind::EmailOtp && body.contains_key("encryptedOtpBundle") {
        return verify_encrypted_otp(&app, &mut st, &req, &body, &id, now);
    }
    let (client, client_held) = match kind {
        CredKind::EmailOtp => {
            let otp = req_str(&body, "otp")?.to_owned();
            let (_, client) = client_key(&body)?;
            if app.strict() {
                check_otp(cred, &otp, now)?;
                if let Some(c) = st.credential_mut(&id) {
                    c.otp = None; // single use
                }
            } else if otp != SANDBOX_OTP {
                return Err(ApiError::unauthorized("Invalid OTP code"));
            }
            (client, false)
        }
        CredKind::Oauth => {
            let token = req_str(&body, "oidcToken")?;
            let (client_hex, client, client_held) = client_key_any(&st, &body)?;
            if app.strict() {
                let claims = app
                    .issuer
                    .verify(token, now, Some(&oidc_nonce_for(&client_hex)))
                    .map_err(|why| ApiError::unauthorized(format!("Invalid OIDC token: {why}")))?;
                let identity = (
                    claims["iss"].as_str().unwrap_or_default().to_owned(),
                    claims["sub"].as_str().unwrap_or_default().to_owned(),
                );
                if cred.oauth.as_ref() != Some(&identity) {
                    return Err(ApiError::unauthorized(
                        "Invalid OIDC token: iss/sub is not the identity registered on this credential",
                    ));
                }
            } else if token != SANDBOX_OIDC_TOKEN {
                return Err(ApiError::unauthorized("Invalid OIDC token"));
            }
            (client, client_held)
        }
        CredKind::Passkey => {
            let request_id = req
                .header(REQUEST_ID_HEADER)
                .ok_or_else(|| ApiError::unauthorized("Request-Id header missing"))?
                .to_owned();
            let assertion = req_obj(&body, "assertion")?;
            let field = |name: &str| {
                req_str(assertion, name)
                    .map_err(|e| ApiError::invalid(format!("assertion.{}", e.message)))
            };
            let (credential_id, client_data, auth_data, signature) = (
                field("credentialId")?,
                field("clientDataJson")?,
                field("authenticatorData")?,
                field("signature")?,
            );
            let issued = st
                .challenges
                .get(&request_id)
                .filter(|c| c.credential_id == id)
                .ok_or_else(|| ApiError::unauthorized("Unknown Request-Id"))?;
            if issued.used {
                return Err(ApiError::unauthorized("Request id already used"));
            }
            if now >= issued.expires_ms {
                return Err(ApiError::unauthorized("Request id expired"));
            }
            let passkey = cred.passkey.as_ref().expect("PASSKEY credential");
            if app.strict() {
                const INVALID: &str = "Invalid passkey signature";
                if credential_id != passkey.credential_id {
                    return Err(ApiError::unauthorized(format!(
                        "{INVALID}: assertion.credentialId is not this credential's"
                    )));
                }
                let key = passkey.public_key.as_ref().ok_or_else(|| {
                    ApiError::unauthorized(format!(
                        "{INVALID}: this credential was registered without a usable public key"
                    ))
                })?;
                let origin_allowed = |o: &str| app.origin_allowed(o);
                let rp = RelyingParty {
                    rp_id: &app.config.rp_id,
                    origin_allowed: &origin_allowed,
                };
                let counter = verify_assertion(
                    client_data,
                    auth_data,
                    signature,
                    &issued.challenge,
                    key,
                    passkey.counter,
                    &rp,
                )
                .map_err(|why| ApiError::unauthorized(format!("{INVALID}: {why}")))?;
                if let Some(p) = st.credential_mut(&id).and_then(|c| c.passkey.as_mut()) {
                    p.counter = counter;
                }
            } else if signature != SANDBOX_PASSKEY_SIGNATURE {
                return Err(ApiError::unauthorized("Invalid passkey signature"));
            }
            let issued = st.challenges.get_mut(&request_id).expect("looked up above");
            issued.used = true;
            let client = parse_public_key_hex(&issued.client_public_key, "clientPublicKey")
                .expect("validated at challenge");
            let client_held = issued.client_public_key.len() == 66;
            if client_held {
                fresh_session_key(&st, &client)?;
            }
            (client, client_held)
        }
    };
    let session = issue_session(&app, &mut st, &id, &client, client_held, now)?;
    Ok(json_response(StatusCode::OK, &session))
}

/// Production's answer to an encrypted OTP request its enclave refuses: 400 INVALID_INPUT,
/// reason `Invalid wallet request.`; the message names the check (emulator only).
fn wallet_request_refused(why: impl std::fmt::Display) -> ApiError {
    ApiError::invalid(format!("Invalid wallet request: {why}"))
        .with_reason("Invalid wallet request.")
}

/// EMAIL_OTP verify of newer deployments: the first leg opens `encryptedOtpBundle` with
/// the enclave key, checks the code (strict: single use; sandbox: `000000`) and answers
/// 202 with a verification token; the retry must be stamped by the key named in the
/// bundle (`public_key`, the TEK), which then becomes the session key (200, no bundle).
fn verify_encrypted_otp(
    app: &App,
    st: &mut State,
    req: &Req,
    body: &Map<String, Value>,
    id: &str,
    now: i64,
) -> ApiResult<Response> {
    let sealed = req_str(body, "encryptedOtpBundle")?;
    let account_id = st
        .credential(id)
        .ok_or_else(|| not_found_credential(id))?
        .account_id
        .clone();
    let retrying =
        req.header(SIGNATURE_HEADER).is_some() || req.header(REQUEST_ID_HEADER).is_some();
    let (payload, signer_key) = if retrying {
        (None, None) // the pending request holds both
    } else {
        // Strict: production's enclave takes only the compressed TEK, and refuses every
        // sealed request it cannot accept, a mistyped or expired code included, with one
        // 400. The sandbox reads either key form and takes only its magic code.
        let attempt = open_otp_bundle(&app.otp_enclave, sealed, app.strict())
            .map_err(wallet_request_refused)?;
        if app.strict() {
            let cred = st.credential(id).ok_or_else(|| not_found_credential(id))?;
            check_otp(cred, &attempt.otp_code, now).map_err(|refused| {
                wallet_request_refused(format!(
                    "the sealed otp_code was refused ({})",
                    refused.reason.unwrap_or_default()
                ))
            })?;
        } else if attempt.otp_code != SANDBOX_OTP {
            return Err(ApiError::unauthorized("Invalid OTP code"));
        }
        fresh_session_key(st, &attempt.public_key)?;
        if let Some(c) = st.credential_mut(id) {
            c.otp = None; // single use: spent on the first leg (a refusal spends nothing)
        }
        let tek = compressed_hex(&attempt.public_key);
        let token = verification_token(
            &app.otp_signer,
            id,
            &tek,
            now,
            App::ms(app.config.request_ttl),
        );
        (Some(token), Some(tek))
    };
    let spec = RetrySpec {
        account_id: &account_id,
        purpose: Purpose::OtpLogin,
        activity: "",
        parameters: json!({}),
        kind: Some(CredKind::EmailOtp),
        payload,
        signer_key,
    };
    let authorized = match signed_retry(app, st, req, spec, now)? {
        Leg::Issued(response) => return Ok(response),
        Leg::Authorized(a) => a,
    };
    // The first leg issued this 202 naming the TEK; the retry was checked against it.
    let tek = authorized
        .signer_key
        .as_deref()
        .and_then(|k| parse_public_key_hex(k, "TEK").ok())
        .ok_or_else(|| ApiError::unauthorized("Request-Id was issued for a different request"))?;
    let session = issue_session(app, st, id, &tek, true, now)?;
    authorized.consume(st);
    Ok(json_response(StatusCode::OK, &session))
}

// ---------------------------------------------------------------------------------------
// Sessions

/// 401 for a session that was revoked (or whose credential was), or has expired.
fn ensure_live(st: &State, session: &SessionRec, now: i64) -> ApiResult<()> {
    if session.revoked || st.credential(&session.credential_id).is_none() {
        return Err(ApiError::unauthorized("Session revoked"));
    }
    if now >= session.expires_ms {
        return Err(ApiError::unauthorized("Session expired"));
    }
    Ok(())
}

fn active_session<'a>(st: &'a State, id: &str, now: i64) -> ApiResult<&'a SessionRec> {
    let session = st
        .session(id)
        .ok_or_else(|| ApiError::not_found(format!("session {id} not found")))?;
    ensure_live(st, session, now)?;
    Ok(session)
}

/// `POST /auth/sessions/{id}/refresh`.
pub async fn refresh(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json()?;
    let now = now_ms();
    let mut st = app.lock();
    let (client_hex, client, client_held) = client_key_any(&st, &body)?;
    let session = active_session(&st, &id, now)?;
    let (account_id, credential_id) = (session.account_id.clone(), session.credential_id.clone());
    let spec = RetrySpec {
        account_id: &account_id,
        purpose: Purpose::Refresh,
        activity: "ACTIVITY_TYPE_CREATE_READ_WRITE_SESSION_V2",
        parameters: json!({
            "expirationSeconds": app.config.session_ttl.as_secs().to_string(),
            "sessionId": id,
            "targetPublicKey": client_hex,
        }),
        kind: None,
        payload: None,
        signer_key: None,
    };
    let authorized = match signed_retry(&app, &mut st, &req, spec, now)? {
        Leg::Issued(response) => return Ok(response),
        Leg::Authorized(a) => a,
    };
    if let Some(signer) = &authorized.signer {
        if signer.session_id != id {
            return Err(ApiError::unauthorized(
                "Invalid Service-Wallet-Signature: a refresh must be signed by the session being refreshed",
            ));
        }
    }
    let new = issue_session(&app, &mut st, &credential_id, &client, client_held, now)?;
    authorized.consume(&mut st);
    Ok(json_response(StatusCode::CREATED, &new))
}

/// `DELETE /auth/sessions/{id}`.
pub async fn revoke_session(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let now = now_ms();
    let mut st = app.lock();
    let retrying = req.header(REQUEST_ID_HEADER).is_some();
    let session = st
        .session(&id)
        .filter(|s| !s.revoked || retrying)
        .ok_or_else(|| ApiError::not_found(format!("session {id} not found")))?;
    let account_id = session.account_id.clone();
    let spec = RetrySpec {
        account_id: &account_id,
        purpose: Purpose::RevokeSession,
        activity: "ACTIVITY_TYPE_DELETE_API_KEYS",
        parameters: json!({"sessionId": id}),
        kind: None,
        payload: None,
        signer_key: None,
    };
    let authorized = match signed_retry(&app, &mut st, &req, spec, now)? {
        Leg::Issued(response) => return Ok(response),
        Leg::Authorized(a) => a,
    };
    for s in st.sessions.iter_mut().filter(|s| s.id == id) {
        s.revoked = true;
    }
    authorized.consume(&mut st);
    Ok(no_content())
}

// ---------------------------------------------------------------------------------------
// Internal accounts

/// `GET /internal-accounts`: `{data}` only (spec §2.1); filters customerId, type,
/// currency; `limit` 1..100.
pub async fn list_accounts(
    AxumState(app): AxumState<Shared>,
    Query(query): Query<HashMap<String, String>>,
) -> ApiResult<Response> {
    let limit = limit(&query)?;
    let st = app.lock();
    let data: Vec<Value> = st
        .accounts
        .iter()
        .filter(|a| query.get("customerId").is_none_or(|c| *c == a.customer_id))
        .filter(|a| query.get("type").is_none_or(|t| t == a.kind))
        .filter(|_| query.get("currency").is_none_or(|c| c == "USD"))
        .take(limit)
        .map(|a| a.to_json())
        .collect();
    Ok(json_response(StatusCode::OK, &json!({ "data": data })))
}

/// `PATCH /internal-accounts/{id}`: `{privacyEnabled}` (alias `privateEnabled`); a signed
/// retry for an EMBEDDED_WALLET.
pub async fn patch_account(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json()?;
    let mut privacy = None;
    for (key, value) in &body {
        match key.as_str() {
            "privacyEnabled" | "privateEnabled" => {
                privacy = Some(
                    value
                        .as_bool()
                        .ok_or_else(|| ApiError::invalid(format!("{key} must be a boolean")))?,
                )
            }
            other => {
                return Err(ApiError::invalid(format!(
                    "{other} cannot be updated (the emulator supports privacyEnabled)"
                )))
            }
        }
    }
    let privacy = privacy.ok_or_else(|| ApiError::invalid("privacyEnabled is required"))?;
    let now = now_ms();
    let mut st = app.lock();
    let account = st.account(&id).ok_or_else(|| not_found_account(&id))?;
    let mut authorized = None;
    if account.kind == "EMBEDDED_WALLET" {
        let spec = RetrySpec {
            account_id: &id,
            purpose: Purpose::PatchAccount,
            activity: "ACTIVITY_TYPE_UPDATE_WALLET",
            parameters: json!({"privacyEnabled": privacy, "walletId": account.wallet_id}),
            kind: None,
            payload: None,
            signer_key: None,
        };
        match signed_retry(&app, &mut st, &req, spec, now)? {
            Leg::Issued(response) => return Ok(response),
            Leg::Authorized(a) => authorized = Some(a),
        }
    }
    let account = st.account_mut(&id).expect("looked up above");
    account.privacy_enabled = privacy;
    account.updated_ms = now;
    let json = account.to_json();
    if let Some(a) = authorized {
        a.consume(&mut st);
    }
    Ok(json_response(StatusCode::OK, &json))
}

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
    let spec = RetrySpec {
        account_id: &id,
        purpose: Purpose::Export,
        activity: "ACTIVITY_TYPE_EXPORT_WALLET",
        parameters: json!({"targetPublicKey": client_hex, "walletId": account.wallet_id}),
        kind: None,
        payload: None,
        signer_key: None,
    };
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

/// `POST /sandbox/internal-accounts/{id}/fund {amount}` (both modes).
pub async fn fund(
    AxumState(app): AxumState<Shared>,
    Path(id): Path<String>,
    req: Req,
) -> ApiResult<Response> {
    let body = req.json()?;
    let amount = amount(&body, "amount")?;
    let mut st = app.lock();
    let account = st.account_mut(&id).ok_or_else(|| not_found_account(&id))?;
    account.balance = account
        .balance
        .checked_add(amount)
        .filter(|b| *b <= MAX_AMOUNT)
        .ok_or_else(|| ApiError::invalid("the balance would exceed the largest amount"))?;
    account.updated_ms = now_ms();
    Ok(json_response(StatusCode::OK, &account.to_json()))
}

// ---------------------------------------------------------------------------------------
// Quotes and transactions

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

/// Moves the quote's amount and records the transaction; returns the transaction.
fn settle(st: &mut State, quote_index: usize, now: i64) -> ApiResult<Value> {
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
    let id = req_str(side, "accountId")
        .map_err(|e| ApiError::invalid(format!("{what}.{}", e.message)))?;
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

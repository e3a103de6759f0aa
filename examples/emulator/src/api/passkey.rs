//! PASSKEY credentials: create (a WebAuthn registration), the challenge (the session
//! activity's SHA-256, bound to `clientPublicKey` and a `Request-Id`) and verify (a
//! WebAuthn assertion over it). Strict vs sandbox: strict runs the full WebAuthn checks
//! (`crypto::verify_registration` and `verify_assertion`, rp id and origins); sandbox
//! accepts a registration structurally and only the assertion signature
//! `sandbox-valid-passkey-signature`.

use embedded_wallet_kit::encoding::base64url_decode;
use embedded_wallet_kit::parse_public_key_hex;
use embedded_wallet_kit::service::sha256_hex;
use embedded_wallet_kit::PublicKey;
use embedded_wallet_kit::REQUEST_ID_HEADER;
use serde_json::{json, Map, Value};

use super::credentials::{ensure_none_of_kind, NewCredential};
use super::http::{nested_str, not_found_credential, req_obj, req_str, Req};
use super::sessions::fresh_session_key;
use super::signed_retry::activity;
use super::{App, SANDBOX_PASSKEY_SIGNATURE};
use crate::crypto::{verify_assertion, verify_registration, RelyingParty};
use crate::error::{ApiError, ApiResult};
use crate::state::{CredKind, Passkey, PasskeyChallenge, State};
use crate::util::{new_id, rfc3339};

/// Runs a WebAuthn check as this emulator's relying party: `--rp-id`, and the origins
/// `App::origin_allowed` accepts.
fn with_relying_party<T>(app: &App, check: impl FnOnce(&RelyingParty) -> T) -> T {
    let origin_allowed = |o: &str| app.origin_allowed(o);
    check(&RelyingParty {
        rp_id: &app.config.rp_id,
        origin_allowed: &origin_allowed,
    })
}

/// PASSKEY create `{nickname, challenge, attestation}`: one passkey per account, and a
/// WebAuthn credential id registered once.
pub(super) fn new_credential(
    app: &App,
    st: &State,
    body: &Map<String, Value>,
    account_id: &str,
) -> ApiResult<NewCredential> {
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
    let credential_id = nested_str(attestation, "attestation", "credentialId")?;
    let client_data = nested_str(attestation, "attestation", "clientDataJson")?;
    let object = nested_str(attestation, "attestation", "attestationObject")?;
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
    ensure_none_of_kind(
        st,
        account_id,
        CredKind::Passkey,
        "PASSKEY_CREDENTIAL_ALREADY_EXISTS",
        "the account already has a PASSKEY credential",
    )?;
    let registered = with_relying_party(app, |rp| {
        verify_registration(
            credential_id,
            client_data,
            object,
            challenge,
            rp,
            app.strict(),
        )
    })
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

/// The PASSKEY challenge `{clientPublicKey}`: adds `credentialId`, `challenge`,
/// `requestId` and `expiresAt` to `response`.
pub(super) fn challenge(
    app: &App,
    st: &mut State,
    id: &str,
    account_id: &str,
    client_hex: String,
    response: &mut Value,
    now: i64,
) {
    let passkey_id = st
        .credential(id)
        .and_then(|c| c.passkey.as_ref())
        .map(|p| p.credential_id.clone());
    let request_id = new_id("Request");
    let expires_ms = now + App::ms(app.config.request_ttl);
    let organization_id = st.account_organization_id(account_id);
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
            credential_id: id.to_owned(),
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

/// PASSKEY verify `{assertion}` with the challenge's `Request-Id`: `(key, client_held)`
/// for the session, the key the one given at the challenge.
pub(super) fn verify(
    app: &App,
    st: &mut State,
    req: &Req,
    body: &Map<String, Value>,
    id: &str,
    now: i64,
) -> ApiResult<(PublicKey, bool)> {
    let cred = st.credential(id).ok_or_else(|| not_found_credential(id))?;
    let request_id = req
        .header(REQUEST_ID_HEADER)
        .ok_or_else(|| ApiError::unauthorized("Request-Id header missing"))?
        .to_owned();
    let assertion = req_obj(body, "assertion")?;
    let field = |name: &str| nested_str(assertion, "assertion", name);
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
        let counter = with_relying_party(app, |rp| {
            verify_assertion(
                client_data,
                auth_data,
                signature,
                &issued.challenge,
                key,
                passkey.counter,
                rp,
            )
        })
        .map_err(|why| ApiError::unauthorized(format!("{INVALID}: {why}")))?;
        if let Some(p) = st.credential_mut(id).and_then(|c| c.passkey.as_mut()) {
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
        fresh_session_key(st, &client)?;
    }
    Ok((client, client_held))
}

//! The flow drivers for the JS `WalletClient`: sans-IO, so the module stays synchronous
//! (no async runtime in wasm); the shim's loop hands each request to the integrator's
//! transport and each response back here.
//!
//! They ship in the lazily loaded module (with the passkey ceremonies), not in the
//! signing module `init()` loads: pages that only sign never download them. Keys and
//! sessions live in the signing module, so a flow never signs: it says what to sign (a
//! 202 it has parsed and checked, a quote), the shim has the session sign it, and the
//! flow builds the retry from the signature.

use ewk_common::prelude::*;
use js_sys::{Object, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use embedded_wallet_kit::flows::wallet::{
    self, KeyMode, KeyRef, Operation, PasskeyChallenge, SessionRef,
};
use embedded_wallet_kit::flows::{
    Next, OtpLogin, OtpNext, ProcessingPolicy, QuoteExecution, Request, Resend, Response,
    SignedRetryFlow,
};
use embedded_wallet_kit::format_rfc3339;
use embedded_wallet_kit::Fields;
use embedded_wallet_kit::{Error, ErrorCode};
use embedded_wallet_kit::{PendingSignature, QuoteToSign, SignedRetryHeaders};
use ewk_common::js::{object_or_json, own, set, string_entries, JsFields};
use ewk_common::scrubbed;
use ewk_common::{invalid_input, to_js};

type JsResult<T> = Result<T, JsValue>;

fn wrap(key: &str, value: &JsValue) -> Object {
    let out = Object::new();
    let _ = Reflect::set(&out, &JsValue::from_str(key), value);
    out
}

/// A fresh plain object of what the session signs, from the values read here once (the
/// session's module reads these, not the transport's object a second time).
fn pending_to_js(pending: &PendingSignature) -> Object {
    let out = Object::new();
    set(&out, "payloadToSign", &pending.payload_to_sign);
    set(&out, "requestId", &pending.request_id);
    set(&out, "expiresAt", &format_rfc3339(pending.expires_at_ms));
    out
}

fn quote_to_js(quote: &QuoteToSign) -> Object {
    let out = Object::new();
    set(&out, "payloadToSign", &quote.payload_to_sign);
    set(&out, "expiresAt", &format_rfc3339(quote.expires_at_ms));
    out
}

fn member(target: &JsValue, key: &str) -> JsValue {
    Reflect::get(target, &JsValue::from_str(key)).unwrap_or(JsValue::UNDEFINED)
}

/// `{method, path, headers?, body?}` → a request. An object body is serialised once here,
/// so every retry repeats the same bytes.
fn request_from_js(value: &JsValue) -> JsResult<Request> {
    if !value.is_object() {
        return Err(invalid_input(
            "request must be an object {method, path, headers?, body?}",
        ));
    }
    let text = |key: &str| {
        member(value, key)
            .as_string()
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                invalid_input(&["request.", key, " must be a non-empty string"].concat())
            })
    };
    let method = text("method")?.to_ascii_uppercase();
    let path = text("path")?;
    if !path.starts_with('/') {
        return Err(invalid_input("request.path must start with /"));
    }
    let body = member(value, "body");
    let body = if body.is_undefined() || body.is_null() {
        None
    } else if let Some(s) = body.as_string() {
        Some(s)
    } else {
        Some(
            JSON::stringify(&body)
                .ok()
                .and_then(|s| s.as_string())
                .ok_or_else(|| {
                    invalid_input("request.body must be JSON text or a JSON-serialisable object")
                })?,
        )
    };
    let mut request = Request::new(&method, path, body);
    let headers = member(value, "headers");
    if headers.is_object() {
        let entries = string_entries(&headers)
            .map_err(|_| invalid_input("request.headers could not be read"))?;
        for (name, v) in entries {
            request = request.with_header(&name, v);
        }
    }
    Ok(request)
}

fn request_to_js(request: &Request) -> Object {
    let out = Object::new();
    set(&out, "method", &request.method);
    set(&out, "path", &request.path);
    let headers = Object::new();
    for (name, value) in &request.headers {
        set(&headers, name, value);
    }
    let _ = Reflect::set(&out, &"headers".into(), &headers);
    if let Some(body) = &request.body {
        set(&out, "body", body);
    }
    out
}

/// The policy both flows' `setProcessingPolicy` take.
fn policy(max_resends: u16, first_delay_ms: u32, max_delay_ms: u32) -> ProcessingPolicy {
    ProcessingPolicy {
        max_resends,
        first_delay_ms,
        max_delay_ms,
    }
}

/// `{ request, delayMs, attempt, requestId? }`: send `request` again, unchanged, after
/// `delayMs` (the service answered PROCESSING).
fn resend_to_js(resend: &Resend) -> Object {
    let out = Object::new();
    let _ = Reflect::set(&out, &"request".into(), &request_to_js(&resend.request));
    let _ = Reflect::set(&out, &"delayMs".into(), &JsValue::from(resend.delay_ms));
    let _ = Reflect::set(&out, &"attempt".into(), &JsValue::from(resend.attempt));
    if let Some(id) = &resend.request_id {
        set(&out, "requestId", id);
    }
    out
}

/// A transport's `{status, headers?, body?}`: the body as JSON text or an object. What
/// the transport returned is the service's answer as far as the kit can tell, so a
/// malformed one is `SERVICE_ERROR`.
struct JsResponse {
    status: u16,
    retry_after: Option<String>,
    body: Option<JsFields>,
}

impl JsResponse {
    fn read(value: &JsValue) -> JsResult<Self> {
        let status = member(value, "status")
            .as_f64()
            .filter(|s| (100.0..600.0).contains(s) && *s as u16 as f64 == *s)
            .ok_or_else(|| {
                to_js(Error::new(
                    ErrorCode::ServiceError,
                    "the transport's response has no HTTP status (response.status must be an integer 100-599)",
                ))
            })? as u16;
        let headers = member(value, "headers");
        let retry_after = if let Some(get) = member(&headers, "get").dyn_ref::<js_sys::Function>() {
            get.call1(&headers, &"retry-after".into())
                .ok()
                .and_then(|v| v.as_string())
        } else {
            string_entries(&headers)
                .unwrap_or_default()
                .into_iter()
                .find(|(name, _)| name.eq_ignore_ascii_case("retry-after"))
                .map(|(_, value)| value)
        };
        let body = member(value, "body");
        let body = if body.is_undefined()
            || body.is_null()
            || body.as_string().is_some_and(|s| s.is_empty())
        {
            None
        } else {
            // A body that is not a JSON object is simply not read (e.g. an HTML error page).
            object_or_json(&body, ErrorCode::ServiceError, "response body").ok()
        };
        Ok(Self {
            status,
            retry_after,
            body,
        })
    }

    fn view(&self) -> Response<'_> {
        Response {
            status: self.status,
            retry_after: self.retry_after.as_deref(),
            body: self.body.as_ref().map(|b| b as &dyn Fields),
        }
    }
}

/// One signed-retry operation: `firstRequest()`, then `onResponse(response)` until it
/// returns undefined (done) or throws. `{ send }` is the next request; `{ sign }` a 202
/// for the session's `signRetry`, whose headers go to `signed` (or its error to
/// `signFailed`) for the next request.
#[wasm_bindgen(js_name = SignedRetryFlow)]
pub struct JsSignedRetryFlow(SignedRetryFlow, KeyMode);

#[wasm_bindgen(js_class = SignedRetryFlow)]
impl JsSignedRetryFlow {
    /// Starts an operation for `{method, path, headers?, body?}`.
    #[wasm_bindgen(constructor)]
    pub fn new(request: &JsValue) -> JsResult<JsSignedRetryFlow> {
        scrubbed(|| {
            Ok(Self(
                SignedRetryFlow::new(request_from_js(request)?),
                KeyMode::Sealed,
            ))
        })
    }

    /// Whether the session this flow's answer issues is client-held (open it with
    /// `Session.fromClientKey`) rather than sealed (`Session.open`).
    #[wasm_bindgen(getter, js_name = clientHeld)]
    pub fn client_held(&self) -> bool {
        scrubbed(|| self.1 == KeyMode::ClientHeld)
    }

    /// The first call, without signature headers.
    #[wasm_bindgen(js_name = firstRequest)]
    pub fn first_request(&self) -> Object {
        scrubbed(|| request_to_js(&self.0.first_request()))
    }

    /// How a PROCESSING answer is answered: at most `max_resends` re-sends, waits from
    /// `first_delay_ms` doubling up to `max_delay_ms`.
    #[wasm_bindgen(js_name = setProcessingPolicy)]
    pub fn set_processing_policy(
        &mut self,
        max_resends: u16,
        first_delay_ms: u32,
        max_delay_ms: u32,
    ) {
        scrubbed(|| {
            self.0
                .set_processing_policy(policy(max_resends, first_delay_ms, max_delay_ms))
        })
    }

    /// Reads a response: undefined when done, `{ send: request }` or `{ sign: pending }`.
    #[wasm_bindgen(js_name = onResponse)]
    pub fn on_response(&mut self, response: &JsValue) -> JsResult<Option<Object>> {
        scrubbed(|| {
            let response = JsResponse::read(response)?;
            match self.0.next_step(&response.view()).map_err(to_js)? {
                Next::Done => Ok(None),
                Next::Send(request) => Ok(Some(wrap("send", &request_to_js(&request)))),
                Next::Sign(pending) => Ok(Some(wrap("sign", &pending_to_js(&pending)))),
                Next::Resend(resend) => Ok(Some(wrap("resend", &resend_to_js(&resend)))),
            }
        })
    }

    /// The retry carrying the session's signature of the last `{ sign }`.
    pub fn signed(&mut self, signature: String, request_id: String) -> JsResult<Object> {
        scrubbed(|| {
            let headers = SignedRetryHeaders {
                signature,
                request_id,
            };
            self.0
                .after_signing(Ok(headers))
                .map(|r| request_to_js(&r))
                .map_err(to_js)
        })
    }

    /// After the session refused to sign: an expired 202 restarts the request once (the
    /// first request again); any other error is thrown on unchanged.
    #[wasm_bindgen(js_name = signFailed)]
    pub fn sign_failed(&mut self, error: JsValue) -> JsResult<Object> {
        scrubbed(|| {
            let expired = own(&error, "code").and_then(|c| c.as_string());
            if expired.as_deref() != Some(ErrorCode::RequestExpired.as_str()) {
                return Err(error);
            }
            let failure = Error::new(ErrorCode::RequestExpired, "the 202 expired");
            self.0
                .after_signing(Err(failure))
                .map(|r| request_to_js(&r))
                .map_err(|_| error)
        })
    }

    /// Reads the response to a request sent without a session: a 202 is an error then,
    /// not something to sign; `{ resend }` when the service is still processing.
    #[wasm_bindgen(js_name = onUnsignedResponse)]
    pub fn on_unsigned_response(&mut self, response: &JsValue) -> JsResult<Option<Object>> {
        scrubbed(|| {
            let response = JsResponse::read(response)?;
            match self
                .0
                .on_unsigned_response(&response.view())
                .map_err(to_js)?
            {
                Some(resend) => Ok(Some(wrap("resend", &resend_to_js(&resend)))),
                None => Ok(None),
            }
        })
    }
}

/// One execution of one quote, with its Idempotency-Key made once.
#[wasm_bindgen(js_name = QuoteExecution)]
pub struct JsQuoteExecution(QuoteExecution);

#[wasm_bindgen(js_class = QuoteExecution)]
impl JsQuoteExecution {
    /// Reads the quote (object or JSON text).
    #[wasm_bindgen(constructor)]
    pub fn new(quote: &JsValue) -> JsResult<JsQuoteExecution> {
        scrubbed(|| {
            let fields = object_or_json(quote, ErrorCode::InvalidInput, "quote")?;
            QuoteExecution::new(&fields).map(Self).map_err(to_js)
        })
    }

    /// The Idempotency-Key every attempt of this execution sends.
    #[wasm_bindgen(getter, js_name = idempotencyKey)]
    pub fn idempotency_key(&self) -> String {
        scrubbed(|| self.0.idempotency_key().to_owned())
    }

    /// `{ payloadToSign, expiresAt }` for the session's `signQuote`.
    #[wasm_bindgen(js_name = toSign)]
    pub fn to_sign(&self) -> Object {
        scrubbed(|| quote_to_js(self.0.to_sign()))
    }

    /// The execute request with the session's signature of `toSign()`.
    pub fn request(&self, signature: String) -> Object {
        scrubbed(|| request_to_js(&self.0.request_with_signature(signature)))
    }

    /// Checks the execute response (throws the typed error on failure).
    #[wasm_bindgen(js_name = onResponse)]
    pub fn on_response(&self, response: &JsValue) -> JsResult<()> {
        scrubbed(|| {
            let response = JsResponse::read(response)?;
            self.0.on_response(&response.view()).map_err(to_js)
        })
    }
}

fn key_mode(client_held: bool) -> KeyMode {
    if client_held {
        KeyMode::ClientHeld
    } else {
        KeyMode::Sealed
    }
}

/// A wallet operation by its JS name, with the flat arguments of `walletFlow`, as the
/// core's typed [`Operation`]. `id` is the path id (account, credential); `text` the OTP,
/// OIDC token, credential body or account patch. What an operation needs is named when
/// it is missing.
fn operation<'a>(
    name: &str,
    id: &'a str,
    text: &'a str,
    session: Option<SessionRef<'a>>,
    key: Option<KeyRef<'a>>,
) -> JsResult<Operation<'a>> {
    let missing = |what| invalid_input(&[name, " needs ", what].concat());
    let session = || session.ok_or_else(|| missing("a session"));
    let key = || key.ok_or_else(|| missing("a ClientKey"));
    Ok(match name {
        "createEmailOtp" => Operation::CreateEmailOtp { account_id: id },
        "addCredential" => Operation::AddCredential { body: text },
        "challenge" => Operation::Challenge {
            credential_id: id,
            key: key().ok(),
        },
        "verifyEmailOtp" => Operation::VerifyEmailOtp {
            credential_id: id,
            otp: text,
            key: key()?,
        },
        "verifyOauth" => Operation::VerifyOauth {
            credential_id: id,
            oidc_token: text,
            key: key()?,
        },
        "refresh" => Operation::Refresh {
            session: session()?,
            new_key: key()?,
        },
        "revokeSession" => Operation::RevokeSession {
            session: session()?,
        },
        "revokeCredential" => Operation::RevokeCredential {
            session: session()?,
            credential_id: id,
        },
        "exportWallet" => Operation::ExportWallet {
            account_id: id,
            key: key()?,
        },
        "updateAccount" => Operation::UpdateAccount {
            account_id: id,
            patch: text,
        },
        "updateCustomer" => Operation::UpdateCustomer {
            customer_id: id,
            patch: text,
        },
        _ => return Err(invalid_input("unknown wallet operation")),
    })
}

/// A wallet operation by name (the core's [`Operation`]), as the flow that sends it. A
/// session and a key are given by their public parts: the session's id and issuing
/// credential, the key's two public hex forms. `clientHeld`: the client's key mode
/// (the flow's `clientHeld` says whether this operation's session is client-held).
#[allow(clippy::too_many_arguments)] // one flat export is smaller than an options object
#[wasm_bindgen(js_name = walletFlow)]
pub fn wallet_flow(
    name: &str,
    id: &str,
    text: Option<String>,
    session_id: Option<String>,
    session_credential_id: Option<String>,
    key_public_hex: Option<String>,
    key_compressed_hex: Option<String>,
    client_held: bool,
) -> JsResult<JsSignedRetryFlow> {
    scrubbed(|| {
        let session = session_id.as_deref().map(|id| SessionRef {
            id,
            credential_id: session_credential_id.as_deref(),
        });
        let key = key_public_hex.as_deref().map(|public| KeyRef {
            public_key_hex: public,
            compressed_public_key_hex: key_compressed_hex.as_deref().unwrap_or_default(),
        });
        let operation = operation(name, id, text.as_deref().unwrap_or_default(), session, key)?;
        let mode = key_mode(client_held);
        operation
            .flow(mode)
            .map(|flow| JsSignedRetryFlow(flow, operation.key_mode(mode)))
            .map_err(to_js)
    })
}

/// The encrypted OTP login's verify (`flows::OtpLogin`), driven like a
/// `SignedRetryFlow` whose 202 the TEK signs (`ClientKey.signRetry`): `onResponse` gives
/// `{ sign }` once, then undefined on the 200, whose body the TEK opens
/// (`Session.fromClientKey`). A signing failure is thrown on: the code is spent, so an
/// expired 202 is `REQUEST_EXPIRED`, never a restart.
#[wasm_bindgen(js_name = OtpLoginFlow)]
pub struct JsOtpLoginFlow(OtpLogin);

#[wasm_bindgen(js_class = OtpLoginFlow)]
impl JsOtpLoginFlow {
    /// For the credential `credentialId` (`EMAIL_OTP` or `SMS_OTP` `kind`) and the
    /// `encryptedOtpBundle` string `encryptOtp` returned.
    #[wasm_bindgen(constructor)]
    pub fn new(
        credential_id: &str,
        kind: &str,
        encrypted_otp_bundle: &str,
    ) -> JsResult<JsOtpLoginFlow> {
        scrubbed(|| {
            OtpLogin::new(credential_id, kind, encrypted_otp_bundle)
                .map(Self)
                .map_err(to_js)
        })
    }

    /// The first call, without signature headers.
    #[wasm_bindgen(js_name = firstRequest)]
    pub fn first_request(&self) -> Object {
        scrubbed(|| request_to_js(&self.0.first_request()))
    }

    /// How a PROCESSING answer is answered: at most `max_resends` re-sends, waits from
    /// `first_delay_ms` doubling up to `max_delay_ms`.
    #[wasm_bindgen(js_name = setProcessingPolicy)]
    pub fn set_processing_policy(
        &mut self,
        max_resends: u16,
        first_delay_ms: u32,
        max_delay_ms: u32,
    ) {
        scrubbed(|| {
            self.0
                .set_processing_policy(policy(max_resends, first_delay_ms, max_delay_ms))
        })
    }

    /// Always true: the TEK becomes the session key.
    #[wasm_bindgen(getter, js_name = clientHeld)]
    pub fn client_held(&self) -> bool {
        scrubbed(|| true)
    }

    /// Reads a response: undefined when done, `{ sign: pending }` for the TEK.
    #[wasm_bindgen(js_name = onResponse)]
    pub fn on_response(&mut self, response: &JsValue) -> JsResult<Option<Object>> {
        scrubbed(|| {
            let response = JsResponse::read(response)?;
            match self
                .0
                .next_step(&response.view(), ewk_common::now_ms())
                .map_err(to_js)?
            {
                OtpNext::Done => Ok(None),
                OtpNext::Sign(pending) => Ok(Some(wrap("sign", &pending_to_js(&pending)))),
                OtpNext::Resend(resend) => Ok(Some(wrap("resend", &resend_to_js(&resend)))),
                // next_step leaves the TEK to the caller: it never sends a signed retry
                // itself nor opens a session (on_response does, with the TEK in hand).
                OtpNext::Send(request) => Ok(Some(wrap("send", &request_to_js(&request)))),
                OtpNext::Session(_) => Ok(None),
            }
        })
    }

    /// The retry carrying the TEK's signature of the `{ sign }`.
    pub fn signed(&mut self, signature: String, request_id: String) -> JsResult<Object> {
        scrubbed(|| {
            let headers = SignedRetryHeaders {
                signature,
                request_id,
            };
            self.0
                .after_signing(Ok(headers))
                .map(|r| request_to_js(&r))
                .map_err(to_js)
        })
    }

    /// The TEK refused to sign: its error is thrown on (no restart).
    #[wasm_bindgen(js_name = signFailed)]
    pub fn sign_failed(&mut self, error: JsValue) -> JsResult<Object> {
        scrubbed(|| Err(error))
    }
}

/// A passkey login's challenge: what WebAuthn signs, then the verify request.
#[wasm_bindgen(js_name = PasskeyChallenge)]
pub struct JsPasskeyChallenge(PasskeyChallenge);

#[wasm_bindgen(js_class = PasskeyChallenge)]
impl JsPasskeyChallenge {
    /// Reads the challenge response for the credential `credentialId` (AuthMethod).
    #[wasm_bindgen(constructor)]
    pub fn new(credential_id: &str, response: &JsValue) -> JsResult<JsPasskeyChallenge> {
        scrubbed(|| {
            let response = JsResponse::read(response)?;
            PasskeyChallenge::from_response(credential_id, &response.view())
                .map(Self)
                .map_err(to_js)
        })
    }

    /// `{challenge, credentialId, rpId?}` for `passkey.authenticate`.
    #[wasm_bindgen(js_name = authenticationInput)]
    pub fn authentication_input(&self, rp_id: Option<String>) -> Object {
        scrubbed(|| {
            let input = self.0.authentication_input(rp_id.as_deref());
            let out = Object::new();
            for (name, value) in [
                ("challenge", input.challenge),
                ("credentialId", input.credential_id),
                ("rpId", input.rp_id),
            ] {
                if let Some(value) = value {
                    set(&out, name, &value);
                }
            }
            out
        })
    }

    /// The verify call for an assertion (object or JSON text), with the challenge's
    /// Request-Id.
    pub fn verify(&self, assertion: &JsValue) -> JsResult<JsSignedRetryFlow> {
        scrubbed(|| {
            let fields = object_or_json(assertion, ErrorCode::InvalidInput, "assertion")?;
            wallet::assertion_from_fields(&fields)
                .and_then(|a| self.0.verify_request(&a))
                .map(|r| JsSignedRetryFlow(SignedRetryFlow::new(r), KeyMode::Sealed))
                .map_err(to_js)
        })
    }
}

//! The flow drivers for the JS `WalletClient`: sans-IO, so the module stays synchronous
//! (no async runtime in wasm); the shim's loop hands each request to the integrator's
//! transport and each response back here.

use js_sys::{Object, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use super::js::{scrub_stack, string_entries};
use super::signing::{object_or_json, set, JsClientKey, JsFields, JsSession};
use super::{invalid_input, to_js};
use crate::error::{Error, ErrorCode};
use crate::fields::Fields;
use crate::flows::wallet::{self, PasskeyChallenge};
use crate::flows::{expect_result, Next, QuoteExecution, Request, Response, SignedRetryFlow};

type JsResult<T> = Result<T, JsValue>;

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
            .ok_or_else(|| invalid_input(&format!("request.{key} must be a non-empty string")))
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
            .filter(|s| (100.0..600.0).contains(s) && s.fract() == 0.0)
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

/// One signed-retry operation: `firstRequest()`, then `onResponse(session, response)`
/// until it returns null (done) or throws.
#[wasm_bindgen(js_name = SignedRetryFlow)]
pub struct JsSignedRetryFlow(SignedRetryFlow);

#[wasm_bindgen(js_class = SignedRetryFlow)]
impl JsSignedRetryFlow {
    /// Starts an operation for `{method, path, headers?, body?}`.
    #[wasm_bindgen(constructor)]
    pub fn new(request: &JsValue) -> JsResult<JsSignedRetryFlow> {
        Ok(Self(SignedRetryFlow::new(request_from_js(request)?)))
    }

    /// The first call, without signature headers.
    #[wasm_bindgen(js_name = firstRequest)]
    pub fn first_request(&self) -> Object {
        request_to_js(&self.0.first_request())
    }

    /// Reads a response; returns the next request to send, or undefined when done.
    #[wasm_bindgen(js_name = onResponse)]
    pub fn on_response(
        &mut self,
        session: &mut JsSession,
        response: &JsValue,
    ) -> JsResult<Option<Object>> {
        let response = JsResponse::read(response)?;
        let next = self.0.on_response(&mut session.0, &response.view());
        scrub_stack(); // signing left the scalar in dead frames
        match next.map_err(to_js)? {
            Next::Send(request) => Ok(Some(request_to_js(&request))),
            Next::Done => Ok(None),
        }
    }

    /// Reads the response to a request sent without a session: a 202 is an error then,
    /// not something to sign.
    #[wasm_bindgen(js_name = onUnsignedResponse)]
    pub fn on_unsigned_response(&self, response: &JsValue) -> JsResult<()> {
        let response = JsResponse::read(response)?;
        expect_result(&response.view()).map_err(to_js)
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
        let fields = object_or_json(quote, ErrorCode::InvalidInput, "quote")?;
        QuoteExecution::new(&fields).map(Self).map_err(to_js)
    }

    /// The Idempotency-Key every attempt of this execution sends.
    #[wasm_bindgen(getter, js_name = idempotencyKey)]
    pub fn idempotency_key(&self) -> String {
        self.0.idempotency_key().to_owned()
    }

    /// The execute request, signed now with `session`.
    pub fn request(&self, session: &JsSession) -> JsResult<Object> {
        let request = self.0.request(&session.0);
        scrub_stack();
        request.map(|r| request_to_js(&r)).map_err(to_js)
    }

    /// Checks the execute response (throws the typed error on failure).
    #[wasm_bindgen(js_name = onResponse)]
    pub fn on_response(&self, response: &JsValue) -> JsResult<()> {
        let response = JsResponse::read(response)?;
        self.0.on_response(&response.view()).map_err(to_js)
    }
}

fn operation(
    name: &str,
    session: Option<&JsSession>,
    id: &str,
    text: Option<String>,
    key: Option<&JsClientKey>,
) -> JsResult<JsSignedRetryFlow> {
    wallet::operation(
        name,
        session.map(|s| &s.0),
        id,
        text.as_deref(),
        key.map(|k| &k.0),
    )
    .map(JsSignedRetryFlow)
    .map_err(to_js)
}

// Wallet operations by name (`flows::wallet::operation`), as the flow that sends them:
// a few exports rather than one per operation keep the module small. wasm-bindgen takes
// no `Option<&T>` of an exported class, hence one export per combination of session and
// key.

/// An operation that needs neither a session nor a key to build.
#[wasm_bindgen(js_name = walletFlow)]
pub fn wallet_flow(name: &str, id: &str, text: Option<String>) -> JsResult<JsSignedRetryFlow> {
    operation(name, None, id, text, None)
}

/// An operation built with a ClientKey (challenge, verify, export).
#[wasm_bindgen(js_name = keyFlow)]
pub fn key_flow(
    name: &str,
    key: &JsClientKey,
    id: &str,
    text: Option<String>,
) -> JsResult<JsSignedRetryFlow> {
    operation(name, None, id, text, Some(key))
}

/// An operation built with a session (revoking the session or a credential).
#[wasm_bindgen(js_name = sessionFlow)]
pub fn session_flow(name: &str, session: &JsSession, id: &str) -> JsResult<JsSignedRetryFlow> {
    operation(name, Some(session), id, None, None)
}

/// Refreshing `session` to the new `key`.
#[wasm_bindgen(js_name = refreshFlow)]
pub fn refresh_flow(session: &JsSession, key: &JsClientKey) -> JsResult<JsSignedRetryFlow> {
    operation("refresh", Some(session), "", None, Some(key))
}

/// The session of a verify or refresh response, opened with `key` (consuming it); it
/// remembers the credential that issued it.
#[wasm_bindgen(js_name = openSession)]
pub fn open_session(
    response: &JsValue,
    key: &mut JsClientKey,
    credential_id: Option<String>,
) -> JsResult<JsSession> {
    let response = JsResponse::read(response)?;
    let session = wallet::open_session(&response.view(), &mut key.0, credential_id.as_deref());
    scrub_stack(); // decryption left copies of the scalar in dead frames
    session.map(JsSession).map_err(to_js)
}

/// The sandbox's session of a verify or refresh response (its bundle is a stub).
#[wasm_bindgen(js_name = openSandboxSession)]
pub fn open_sandbox_session(
    response: &JsValue,
    credential_id: Option<String>,
) -> JsResult<JsSession> {
    let response = JsResponse::read(response)?;
    wallet::open_sandbox_session(&response.view(), credential_id.as_deref())
        .map(JsSession)
        .map_err(to_js)
}

/// A passkey login's challenge: what WebAuthn signs, then the verify request.
#[wasm_bindgen(js_name = PasskeyChallenge)]
pub struct JsPasskeyChallenge(PasskeyChallenge);

#[wasm_bindgen(js_class = PasskeyChallenge)]
impl JsPasskeyChallenge {
    /// Reads the challenge response for the credential `credentialId` (AuthMethod).
    #[wasm_bindgen(constructor)]
    pub fn new(credential_id: &str, response: &JsValue) -> JsResult<JsPasskeyChallenge> {
        let response = JsResponse::read(response)?;
        PasskeyChallenge::from_response(credential_id, &response.view())
            .map(Self)
            .map_err(to_js)
    }

    /// `{challenge, credentialId, rpId?}` for `passkey.authenticate`.
    #[wasm_bindgen(js_name = authenticationInput)]
    pub fn authentication_input(&self, rp_id: Option<String>) -> Object {
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
    }

    /// The verify call for an assertion (object or JSON text), with the challenge's
    /// Request-Id.
    pub fn verify(&self, assertion: &JsValue) -> JsResult<JsSignedRetryFlow> {
        let fields = object_or_json(assertion, ErrorCode::InvalidInput, "assertion")?;
        wallet::assertion_from_fields(&fields)
            .and_then(|a| self.0.verify_request(&a))
            .map(|r| JsSignedRetryFlow(SignedRetryFlow::new(r)))
            .map_err(to_js)
    }
}

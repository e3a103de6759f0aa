#![no_main]
//! 202 bodies: parse, sign with a real session, and drive the signed-retry flow. The
//! real session (a key derivation) is made only for bodies that parse.
use embedded_wallet_kit::flows::{Request, Response, SignedRetryFlow};
use embedded_wallet_kit::{Fields, PendingSignature};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: (u16, &str)| {
    let (status, text) = data;
    let body = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text).ok();
    let mut session = match PendingSignature::from_json(text) {
        Ok(pending) => {
            let mut session = common::session();
            let _ = session.sign_retry(&pending, common::NOW);
            session
        }
        Err(_) => common::sandbox_session(),
    };
    let response = Response { status, retry_after: Some(text), body: body.as_ref().map(|b| b as &dyn Fields) };
    let mut flow = SignedRetryFlow::new(Request::new("DELETE", "/auth/sessions/x", Some(text.to_owned())));
    if let Ok(embedded_wallet_kit::flows::Next::Send(retry)) = flow.on_response(&mut session, &response, common::NOW) {
        assert_eq!(retry.body.as_deref(), Some(text), "a retry repeats the body bytes");
    }
});

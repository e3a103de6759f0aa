#![no_main]
//! Quotes: the fields signQuote reads, and the execute request.
use embedded_wallet_kit::flows::QuoteExecution;
use embedded_wallet_kit::QuoteToSign;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|text: &str| {
    let Ok(quote) = QuoteToSign::from_json(text) else { return };
    let session = common::session();
    let _ = session.sign_quote(&quote, common::NOW);
    if let Ok(map) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text) {
        if let Ok(execution) = QuoteExecution::new(&map) {
            let _ = execution.request(&session, common::NOW);
        }
    }
});

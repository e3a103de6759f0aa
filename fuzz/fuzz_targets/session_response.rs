#![no_main]
//! Session responses as JSON text: open (real bundle path), sandbox and client-held.
//! Keys are derived only for inputs that get past the cheap checks, to keep it fast.
use embedded_wallet_kit::Session;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|text: &str| {
    if let Ok(session) = Session::sandbox_json(text) {
        let _ = session.stamp("p", common::NOW);
    } else {
        return; // open and fromClientKey read the same fields first
    }
    let mut key = common::client_key();
    if let Ok(session) = Session::open_json(text, &mut key) {
        let _ = session.stamp("p", common::NOW);
    }
    if let Ok(map) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text) {
        let mut key = common::client_key();
        let _ = Session::from_client_key(&map, &mut key);
    }
});

#![no_main]
//! Signed enclave envelopes (wallet export, OTP target bundles) and the passkey challenge
//! response: parse, verify, open, under every pin.
use embedded_wallet_kit::enclave::{open_export_json, SignerPin, PRODUCTION_SIGNER_PUBLIC_KEY};
use embedded_wallet_kit::flows::{PasskeyChallenge, Response};
use embedded_wallet_kit::enclave::encrypt_otp_json;
use embedded_wallet_kit::Fields;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|text: &str| {
    // Key derivations are slow: spend them only on texts that get past the envelope's
    // own cheap checks (the same text, unquoted, must name version v1.0.0).
    let unquoted = embedded_wallet_kit::enclave::unquote_target_bundle(text);
    let looks_like_envelope = serde_json::from_str::<serde_json::Value>(unquoted)
        .is_ok_and(|v| v.get("version").and_then(|v| v.as_str()) == Some("v1.0.0"));
    if looks_like_envelope {
        let key = common::client_key();
        for pin in [SignerPin::Sandbox, SignerPin::Unpinned, SignerPin::Key(PRODUCTION_SIGNER_PUBLIC_KEY.into())] {
            let _ = encrypt_otp_json(text, "123456", &key, &pin);
            let mut export_key = common::client_key();
            let _ = open_export_json(text, &mut export_key, &pin, None);
        }
    }
    if let Ok(map) = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(text) {
        let response = Response { status: 200, retry_after: None, body: Some(&map as &dyn Fields) };
        if let Ok(challenge) = PasskeyChallenge::from_response("AuthMethod:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b", &response) {
            let _ = challenge.authentication_input(Some("localhost")).validate();
        }
    }
});

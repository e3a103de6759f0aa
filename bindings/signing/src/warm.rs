//! `warmUp()`: runs, once, what the first keygen and open would otherwise run cold: p256's
//! basepoint table (a lazily built static, about 4 ms in code the engine has not optimised
//! yet), a key generation (crypto.getRandomValues, the SEC1 hex) and a variable-base
//! multiplication (the ECDH of an open). js/browser.js calls it in idle time after
//! `init()` resolves, never inside it.

use embedded_wallet_kit::p256::{ProjectivePoint, Scalar};
use embedded_wallet_kit::ClientKey;
use ewk_common::js::scrubbed;
use wasm_bindgen::prelude::*;

/// Idempotent. The throwaway key is zeroized when dropped, and the scrub clears its stack.
#[wasm_bindgen(js_name = warmUp)]
pub fn warm_up() {
    scrubbed(|| {
        if let Ok(key) = ClientKey::generate() {
            core::hint::black_box(key.public_key_hex());
        }
        core::hint::black_box(core::hint::black_box(ProjectivePoint::GENERATOR) * Scalar::ONE);
    })
}

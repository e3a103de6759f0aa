//! `warmUp()`: runs, once, what the first keygen and open would otherwise run cold: p256's
//! basepoint table (a lazily built static, about 4 ms in code the engine has not optimised
//! yet), a key generation (crypto.getRandomValues, the SEC1 hex) and the HPKE open of a
//! bundle sealed to a public throwaway key (point decompression, ECDH, HKDF, AES-GCM).
//! js/browser.js calls it in idle time after `init()` resolves, never inside it.

use embedded_wallet_kit::bundle::{seal_raw, Bundle};
use embedded_wallet_kit::p256::elliptic_curve::sec1::ToSec1Point;
use embedded_wallet_kit::p256::SecretKey;
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
        core::hint::black_box(open_a_bundle());
    })
}

/// Seals 32 zero bytes to the scalar 1 (a public key, nothing secret) and opens them.
fn open_a_bundle() -> Option<usize> {
    let mut one = [0u8; 32];
    one[31] = 1;
    let recipient = SecretKey::from_slice(&one).ok()?;
    let (enc, ciphertext) = seal_raw(&recipient.public_key(), &[0; 32]).ok()?;
    let payload = [enc.to_sec1_point(true).as_bytes(), &ciphertext[..]].concat();
    let opened = Bundle::from_payload(&payload).ok()?.open(&recipient).ok()?;
    Some(opened.len())
}

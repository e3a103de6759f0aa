//! `warmUp()`: runs, through the exports themselves, what the first keygen, open and stamp
//! would otherwise run cold: the kit's basepoint table (src/basepoint.rs, a lazily built
//! static, milliseconds in code the engine has not optimised yet), a key generation, the
//! open of a session response (the response object's fields, base58check, point
//! decompression, ECDH, HKDF, AES-GCM) and a stamp (ECDSA, DER, the stamp's JSON and
//! base64url). npm/browser.js calls it a few times in idle time after `init()` resolves,
//! never inside it: the engine optimises a function once it has run enough, and one open
//! is not enough.

use crate::signing::{JsClientKey, JsSession};
use embedded_wallet_kit::ClientKey;
use embedded_wallet_kit::SecretKey;
use ewk_common::js::{scrubbed, set};
use wasm_bindgen::prelude::*;

/// A session key sealed to the throwaway key whose scalar is 1 (a public key: nothing here
/// is secret); `the_warm_up_opens_and_stamps` checks that it opens.
const BUNDLE: &str = "s3V2usU9TCVdFH4arMaYEpSXFr8YzLiBHqumj4JfnKTD4k4nyGjLZt5dkdZnucNXnFXtgwSzxs9jnqWxRdy45B2uP7sJ6CzdkNywiawrqd1VE4tUxut";

/// One round (the first also builds the table): whether it went through. The throwaway
/// keys are zeroized when dropped, and the scrub clears the stack.
#[wasm_bindgen(js_name = warmUp)]
pub fn warm_up() -> bool {
    scrubbed(|| core::hint::black_box(open_and_stamp()).is_some())
}

/// `selfTest()`: the core's start-up self-test (`embedded_wallet_kit::self_test`), which
/// every entry (and the isolated signer's Worker) runs before its `init()` resolves;
/// throws KitError `ENGINE_FAULT` on an engine that computes the kit's arithmetic wrong.
/// Here, beside the warm-up, so that both modules that hold keys export it.
#[wasm_bindgen(js_name = selfTest)]
pub fn self_test() -> Result<(), JsValue> {
    scrubbed(|| embedded_wallet_kit::self_test().map_err(ewk_common::to_js))
}

/// Generates a key, opens the throwaway response and stamps with its session.
fn open_and_stamp() -> Option<usize> {
    core::hint::black_box(JsClientKey::generate().ok()?);
    let mut one = [0u8; 32];
    one[31] = 1;
    let key =
        JsClientKey::from_key(ClientKey::from_secret(SecretKey::from_slice(&one).ok()?).ok()?);
    let response = js_sys::Object::new();
    for (name, value) in [
        ("id", "Session:00000000-0000-4000-8000-000000000000"),
        (
            "accountId",
            "InternalAccount:00000000-0000-4000-8000-000000000000",
        ),
        ("type", "EMAIL_OTP"),
        ("expiresAt", "9999-12-31T23:59:59Z"),
        ("encryptedSessionSigningKey", BUNDLE),
    ] {
        set(&response, name, value);
    }
    let session = JsSession::open(&response.into(), &key).ok()?;
    let stamp = session
        .stamp(&JsValue::from_str("{\"warm\":\"up\"}"))
        .ok()?;
    Some(stamp.len())
}

#[cfg(test)]
mod tests {
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn the_warm_up_opens_and_stamps() {
        assert!(super::open_and_stamp().is_some());
    }
}

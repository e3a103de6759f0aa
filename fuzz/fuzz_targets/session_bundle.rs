#![no_main]
//! base58check decoding, point validation and HPKE open of arbitrary bundle text.
use embedded_wallet_kit::service::Bundle;
use embedded_wallet_kit::SecretKey;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(bundle) = Bundle::decode(text) {
        let key = SecretKey::from_slice(&[0x42; 32]).expect("valid scalar");
        let _ = bundle.open(&key);
    }
});

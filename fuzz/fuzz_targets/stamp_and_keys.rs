#![no_main]
//! Stamp verification (the emulator's side) and public-key parsing; and, when the header
//! is "sign", our own stamp of the payload, which must verify.
use embedded_wallet_kit::parse_public_key_hex;
use embedded_wallet_kit::service::verify_stamp;
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;

fuzz_target!(|data: (&str, &str)| {
    let (header, payload) = data;
    let _ = verify_stamp(header, payload);
    let _ = parse_public_key_hex(header, "k");
    if header == "sign" {
        let stamp = common::session().stamp(payload, common::NOW).expect("live session");
        assert!(verify_stamp(&stamp, payload).is_ok());
    }
});

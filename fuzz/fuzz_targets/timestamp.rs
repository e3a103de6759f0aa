#![no_main]
//! RFC 3339 parsing: never panics, and accepted instants are stable under re-parsing.
use embedded_wallet_kit::service::parse_rfc3339;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|text: &str| {
    if let Ok(ms) = parse_rfc3339(text, "t") {
        assert_eq!(parse_rfc3339(text, "t").ok(), Some(ms));
    }
});

//! Loads the known-answer vectors kept in `tests/vectors/turnkey/` (copied from the
//! shared research set; sources are listed in that folder's README). Compiled into the
//! test binary with `include_str!`, so the same tests run natively and on wasm32.

use serde_json::Value;

/// The parsed JSON of one vector file.
pub(crate) fn vectors(name: &str) -> Value {
    let text = match name {
        "api-key-stamps.json" => include_str!("../tests/vectors/turnkey/api-key-stamps.json"),
        "credential-bundles.json" => {
            include_str!("../tests/vectors/turnkey/credential-bundles.json")
        }
        "encodings.json" => include_str!("../tests/vectors/turnkey/encodings.json"),
        "export-bundles.json" => include_str!("../tests/vectors/turnkey/export-bundles.json"),
        "webauthn-challenges.json" => {
            include_str!("../tests/vectors/turnkey/webauthn-challenges.json")
        }
        other => panic!("no vector file {other}"),
    };
    serde_json::from_str(text).expect("vector file is JSON")
}

/// Hex to bytes, for test data.
pub(crate) fn hex(text: &str) -> Vec<u8> {
    crate::codec::hex_decode(text).expect("test hex")
}

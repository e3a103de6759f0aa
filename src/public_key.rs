//! P-256 public keys as the API writes them: SEC1 hex, compressed or uncompressed.

use crate::prelude::*;
use crate::text::Decimal;
use p256::elliptic_curve::sec1::ToSec1Point;
use p256::PublicKey;

use crate::codec::{hex_decode, hex_encode};
use crate::error::{Error, ErrorCode, Result};

/// Uncompressed SEC1 lowercase hex (130 characters).
pub fn uncompressed_hex(key: &PublicKey) -> String {
    hex_encode(key.to_sec1_point(false).as_bytes())
}

/// Compressed SEC1 lowercase hex (66 characters).
pub fn compressed_hex(key: &PublicKey) -> String {
    hex_encode(key.to_sec1_point(true).as_bytes())
}

/// Decodes SEC1 bytes to a point on P-256 other than the identity. Decided once: a
/// refusal is final (retrying one would give a fault more chances to accept a point that
/// is not on the curve).
pub(crate) fn decode_sec1(bytes: &[u8]) -> Option<PublicKey> {
    PublicKey::from_sec1_bytes(bytes).ok()
}

/// Parses a SEC1 public key from hex (compressed or uncompressed, either case), checking
/// that it is a point on P-256 other than the identity. `field` names it in errors.
pub fn parse_public_key_hex(text: &str, field: &str) -> Result<PublicKey> {
    let invalid = |why: &str| Error::new(ErrorCode::InvalidPublicKey, [field, " ", why].concat());
    let bytes = hex_decode(text).ok_or_else(|| invalid("is not hex"))?;
    match (bytes.len(), bytes.first()) {
        (65, Some(0x04)) | (33, Some(0x02 | 0x03)) => {}
        (65 | 33, _) => return Err(invalid("has a wrong SEC1 prefix byte")),
        (n, _) => {
            return Err(invalid(
                &[
                    "is ",
                    &Decimal::from(n),
                    " bytes; expected 33 (compressed) or 65 (uncompressed)",
                ]
                .concat(),
            ))
        }
    }
    decode_sec1(&bytes).ok_or_else(|| invalid("is not a point on P-256"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_vectors::vectors;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn compress_and_uncompress_vectors() {
        let v = vectors("encodings.json");
        for p in v["points"].as_array().unwrap() {
            let c = p["compressed"].as_str().unwrap();
            let u = p["uncompressed"].as_str().unwrap();
            let from_c = parse_public_key_hex(c, "key").unwrap();
            let from_u = parse_public_key_hex(u, "key").unwrap();
            assert_eq!(uncompressed_hex(&from_c), u);
            assert_eq!(compressed_hex(&from_u), c);
        }
    }

    #[test]
    fn invalid_point_vectors_are_rejected() {
        let v = vectors("encodings.json");
        let cases = v["invalidPoints"].as_array().unwrap();
        assert!(!cases.is_empty());
        for p in cases {
            let err =
                parse_public_key_hex(p["hex"].as_str().unwrap(), "clientPublicKey").unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidPublicKey);
            assert!(err.message().starts_with("clientPublicKey "));
        }
    }

    #[test]
    fn parse_public_key_errors_name_the_problem() {
        let e = parse_public_key_hex("zz", "k").unwrap_err();
        assert_eq!(e.message(), "k is not hex");
        let e = parse_public_key_hex("0400", "k").unwrap_err();
        assert!(e.message().contains("2 bytes"), "{}", e.message());
        let e = parse_public_key_hex(&format!("05{}", "00".repeat(64)), "k").unwrap_err();
        assert!(e.message().contains("prefix"));
        // Identity / all-zero coordinates are not on the curve.
        let e = parse_public_key_hex(&format!("04{}", "00".repeat(64)), "k").unwrap_err();
        assert!(e.message().contains("not a point"));
    }
}

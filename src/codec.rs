//! Hex, base64url and base58check: wrappers over `base16ct` and `bs58`, and base64url by
//! hand (the `base64` crate's generic engine was 5.5 KB of wasm for what is 0.6 KB here;
//! a differential test below holds both to the same answers, the crate a dev-dependency).
//!
//! The base58check checksum (first 4 bytes of SHA-256(SHA-256(payload)), no version byte)
//! is computed with the same `sha2` the curve code already links, rather than through
//! `bs58`'s `check` feature, which would link a second SHA-256 implementation into the wasm.

use crate::prelude::*;
use sha2::{Digest, Sha256};

/// Lowercase hex of `bytes`.
pub fn hex_encode(bytes: &[u8]) -> String {
    base16ct::lower::encode_string(bytes)
}

/// Decodes hex in either case. `None` when a character is not hex or the length is odd.
pub fn hex_decode(text: &str) -> Option<Vec<u8>> {
    base16ct::mixed::decode_vec(text).ok()
}

const BASE64URL: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/// base64url without padding, as WebAuthn and the stamp use.
pub fn base64url_encode(bytes: &[u8]) -> String {
    let mut out = String::with_capacity((bytes.len() * 4).div_ceil(3));
    for chunk in bytes.chunks(3) {
        let byte = |i: usize| u32::from(chunk.get(i).copied().unwrap_or(0));
        let group = byte(0) << 16 | byte(1) << 8 | byte(2);
        // 3 bytes are 4 characters; the last 1 or 2 bytes are 2 or 3.
        for i in 0..=chunk.len() {
            out.push(char::from(BASE64URL[(group >> (18 - 6 * i)) as usize & 63]));
        }
    }
    out
}

/// The 6-bit value of a base64url character.
fn base64url_value(c: u8) -> Option<u32> {
    let value = match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'-' => 62,
        b'_' => 63,
        _ => return None,
    };
    Some(u32::from(value))
}

/// Decodes base64url, with or without `=` padding. `None` on any other character, on
/// padding that is not exactly what the length calls for, on a length no encoding has,
/// and on non-zero bits after the last byte (one spelling per byte string).
pub fn base64url_decode(text: &str) -> Option<Vec<u8>> {
    let text = text.as_bytes();
    let body = match text.iter().position(|&c| c == b'=') {
        None => text,
        Some(at) => {
            let padding = text.len() - at;
            let canonical = text.len() % 4 == 0
                && (1..=2).contains(&padding)
                && text[at..].iter().all(|&c| c == b'=');
            if !canonical {
                return None;
            }
            &text[..at]
        }
    };
    if body.len() % 4 == 1 {
        return None;
    }
    let mut out = Vec::with_capacity(body.len() * 3 / 4);
    let (mut bits, mut pending) = (0u32, 0u32);
    for &c in body {
        bits = bits << 6 | base64url_value(c)?;
        pending += 6;
        if pending >= 8 {
            pending -= 8;
            out.push((bits >> pending) as u8);
            bits &= (1 << pending) - 1;
        }
    }
    (bits == 0).then_some(out)
}

/// Lowercase hex of SHA-256 over `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    hex_encode(&Sha256::digest(bytes))
}

fn checksum(payload: &[u8]) -> [u8; 4] {
    let twice = Sha256::digest(Sha256::digest(payload));
    [twice[0], twice[1], twice[2], twice[3]]
}

/// Why a base58check string did not decode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Base58CheckError {
    /// A character outside the Bitcoin base58 alphabet, at this character index.
    InvalidCharacter {
        /// The character's index in the input.
        index: usize,
    },
    /// Fewer than the 4 checksum bytes.
    TooShort,
    /// The checksum does not match the payload.
    Checksum,
}

/// The number of characters in UTF-8 `bytes` (those that are not continuation bytes):
/// what `str::chars().count()` returns, without core's chunked counter (about 0.5 KB of
/// wasm) or a str slice's panic path.
pub(crate) fn char_count(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| (b as i8) >= -0x40).count()
}

#[cfg(any(test, feature = "service"))]
/// Bitcoin-alphabet base58 of `payload ‖ checksum`, no version byte.
pub fn base58check_encode(payload: &[u8]) -> String {
    let mut data = Vec::with_capacity(payload.len() + 4);
    data.extend_from_slice(payload);
    data.extend_from_slice(&checksum(payload));
    bs58::encode(data).into_string()
}

/// Decodes base58check (no version byte) and returns the payload without its checksum.
pub fn base58check_decode(text: &str) -> Result<Vec<u8>, Base58CheckError> {
    let mut data = bs58::decode(text).into_vec().map_err(|e| match e {
        bs58::decode::Error::InvalidCharacter { index, .. }
        | bs58::decode::Error::NonAsciiCharacter { index } => {
            // bs58 reports a byte index; report the character index the caller can see.
            Base58CheckError::InvalidCharacter {
                index: text.as_bytes().get(..index).map_or(0, char_count),
            }
        }
        _ => Base58CheckError::InvalidCharacter { index: 0 },
    })?;
    if data.len() < 4 {
        return Err(Base58CheckError::TooShort);
    }
    let split = data.len() - 4;
    if data[split..] != checksum(&data[..split]) {
        return Err(Base58CheckError::Checksum);
    }
    data.truncate(split);
    Ok(data)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_vectors::{hex, vectors};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn base58check_vectors_behave_as_listed() {
        let v = vectors("encodings.json");
        let cases = v["base58check"].as_array().unwrap();
        assert_eq!(cases.len(), 4);
        for case in cases {
            let encoded = case["encoded"].as_str().unwrap();
            match (case["decodedPayloadHex"].as_str(), case["expect"].as_str()) {
                (Some(payload), _) => {
                    let expected = hex(payload);
                    assert_eq!(base58check_decode(encoded).unwrap(), expected, "{encoded}");
                    assert_eq!(base58check_encode(&expected), encoded);
                }
                (None, Some("checksum mismatch")) => {
                    assert_eq!(base58check_decode(encoded), Err(Base58CheckError::Checksum));
                }
                (None, Some("invalid character O")) => {
                    // "NOOOO": the first O is character 1.
                    assert_eq!(
                        base58check_decode(encoded),
                        Err(Base58CheckError::InvalidCharacter { index: 1 })
                    );
                }
                other => panic!("unhandled vector {other:?}"),
            }
        }
    }

    #[test]
    fn base64url_vectors() {
        let v = vectors("encodings.json");
        let cases = v["base64url"].as_array().unwrap();
        assert_eq!(cases.len(), 2);
        for case in cases {
            let input = match (case["input"].as_str(), case["inputHex"].as_str()) {
                (Some(text), _) => text.as_bytes().to_vec(),
                (None, Some(h)) => hex(h),
                other => panic!("unhandled vector {other:?}"),
            };
            let expected = case["base64url"].as_str().unwrap();
            assert_eq!(base64url_encode(&input), expected);
            assert_eq!(base64url_decode(expected).unwrap(), input);
        }
    }

    #[test]
    fn webauthn_login_challenge_vectors() {
        // Login challenge: the UTF-8 bytes of the 64-char hex string, not its decoding.
        let v = vectors("webauthn-challenges.json");
        let cases = v["vectors"].as_array().unwrap();
        assert_eq!(cases.len(), 3);
        for case in cases {
            let digest = sha256_hex(case["payload"].as_str().unwrap().as_bytes());
            assert_eq!(digest, case["sha256Hex"].as_str().unwrap());
            assert_eq!(
                hex_encode(digest.as_bytes()),
                case["challengeBytesHex"].as_str().unwrap()
            );
            assert_eq!(
                digest.len() as u64,
                case["challengeBytesLength"].as_u64().unwrap()
            );
            assert_eq!(
                base64url_encode(digest.as_bytes()),
                case["clientDataJsonChallengeBase64url"].as_str().unwrap()
            );
            assert_eq!(
                base64::Engine::encode(
                    &base64::engine::general_purpose::STANDARD,
                    digest.as_bytes()
                ),
                case["reactNativeChallengeBase64"].as_str().unwrap()
            );
        }
    }

    /// The crate this module's base64url replaced, as the module used it.
    fn crate_decode(text: &str) -> Option<Vec<u8>> {
        use base64::engine::general_purpose::{URL_SAFE, URL_SAFE_NO_PAD};
        use base64::Engine as _;
        if text.contains('=') {
            URL_SAFE.decode(text).ok()
        } else {
            URL_SAFE_NO_PAD.decode(text).ok()
        }
    }

    proptest::proptest! {
        #[test]
        fn base64url_encodes_as_the_base64_crate(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..80)) {
            use base64::Engine as _;
            let ours = base64url_encode(&bytes);
            proptest::prop_assert_eq!(&ours, &base64::engine::general_purpose::URL_SAFE_NO_PAD.encode(&bytes));
            proptest::prop_assert_eq!(base64url_decode(&ours), Some(bytes));
        }

        #[test]
        fn base64url_decodes_as_the_base64_crate(text in "[A-Za-z0-9_=+/ -]{0,12}") {
            proptest::prop_assert_eq!(base64url_decode(&text), crate_decode(&text), "{:?}", text);
        }

        #[test]
        fn base64url_decodes_padded_encodings_as_the_base64_crate(bytes in proptest::collection::vec(proptest::num::u8::ANY, 0..20), cut in 0usize..4) {
            use base64::Engine as _;
            // Padded, and padding cut short or run long: the crate's canonical-padding rule.
            let mut text = base64::engine::general_purpose::URL_SAFE.encode(&bytes);
            match cut {
                0 => {}
                1 => { text.pop(); }
                2 => text.push('='),
                _ => text.insert(0, '='),
            }
            proptest::prop_assert_eq!(base64url_decode(&text), crate_decode(&text), "{:?}", text);
        }
    }

    #[test]
    fn base64url_refuses_trailing_bits_and_impossible_lengths() {
        for text in [
            "aGl", "aGk", "aG", "aH", "a", "aGk==", "aG=", "a===", "====", "aG=k", "=aGk",
        ] {
            assert_eq!(base64url_decode(text), crate_decode(text), "{text}");
        }
        assert_eq!(base64url_decode("aH"), None, "trailing bits");
        assert_eq!(base64url_decode(""), Some(vec![]));
    }

    #[test]
    fn base64url_tolerates_padding_and_rejects_standard_alphabet() {
        assert_eq!(base64url_decode("aGk=").unwrap(), b"hi");
        assert_eq!(base64url_decode("aGk").unwrap(), b"hi");
        assert_eq!(base64url_decode("-_8").unwrap(), [0xfb, 0xff]);
        assert!(base64url_decode("+/8").is_none());
        assert!(base64url_decode("a").is_none());
    }

    #[test]
    fn base58check_rejects_bad_checksum_short_and_bad_characters() {
        let good = base58check_encode(b"payload");
        let mut chars: Vec<char> = good.chars().collect();
        let last = chars.len() - 1;
        chars[last] = if chars[last] == '2' { '3' } else { '2' };
        let bad: String = chars.into_iter().collect();
        assert_eq!(base58check_decode(&bad), Err(Base58CheckError::Checksum));
        assert_eq!(base58check_decode(""), Err(Base58CheckError::TooShort));
        assert_eq!(base58check_decode("2g"), Err(Base58CheckError::TooShort));
        assert_eq!(
            base58check_decode("ab0cd"),
            Err(Base58CheckError::InvalidCharacter { index: 2 })
        );
        assert_eq!(
            base58check_decode("éab"),
            Err(Base58CheckError::InvalidCharacter { index: 0 })
        );
        assert_eq!(
            base58check_decode("abOé"),
            Err(Base58CheckError::InvalidCharacter { index: 2 })
        );
        // The index counts characters, not bytes: "é€😀" is 2 + 3 + 4 bytes.
        assert_eq!(
            base58check_decode("é€😀ab0"),
            Err(Base58CheckError::InvalidCharacter { index: 0 })
        );
        assert_eq!(
            base58check_decode("abc\u{e9}"),
            Err(Base58CheckError::InvalidCharacter { index: 3 })
        );
    }

    #[test]
    fn char_count_is_chars_count() {
        let texts = [
            "",
            "a",
            "é",
            "aé€😀b",
            "\u{7f}\u{80}\u{7ff}\u{800}\u{ffff}\u{10000}\u{10ffff}",
        ];
        for text in texts {
            assert_eq!(
                char_count(text.as_bytes()),
                text.chars().count(),
                "{text:?}"
            );
        }
        // A prefix cut inside a character counts that character.
        assert_eq!(char_count(&"ab€".as_bytes()[..3]), 3);
    }

    #[test]
    fn hex_round_trip_and_case() {
        assert_eq!(hex_encode(&[0x00, 0xab, 0xff]), "00abff");
        assert_eq!(hex_decode("00ABff").unwrap(), [0x00, 0xab, 0xff]);
        assert!(hex_decode("abc").is_none());
        assert!(hex_decode("zz").is_none());
    }

    #[test]
    fn sha256_hex_known_answer() {
        assert_eq!(
            sha256_hex(b"abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
    }
}

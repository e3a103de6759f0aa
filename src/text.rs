//! Numbers as text without `core::fmt`. Error messages are built from `&str` pieces
//! (`[a, b, c].concat()`) and these, never with `format!`: a single `format!` links
//! `core::fmt`'s machinery (`fmt::write`, `Formatter::pad_integral`, the `Display`
//! impls), a few KB of every wasm module. Public for the binding crates, which build
//! their messages the same way; useful to any caller that keeps `core::fmt` out.

/// The decimal digits of a `u64` in a stack buffer; derefs to `str` (what `{}` prints).
#[derive(Clone, Copy)]
pub struct Decimal {
    buf: [u8; 20], // u64::MAX has 20 digits
    start: u8,
}

impl Decimal {
    /// The digits of `n`, most significant first, no sign, no leading zeros ("0" for 0).
    pub fn new(n: u64) -> Self {
        let mut buf = [b'0'; 20];
        let mut start = buf.len();
        let mut rest = n;
        loop {
            start -= 1;
            buf[start] = b'0' + (rest % 10) as u8;
            rest /= 10;
            if rest == 0 {
                break;
            }
        }
        Self {
            buf,
            start: start as u8,
        }
    }

    /// The digits as text.
    pub fn as_str(&self) -> &str {
        // Only ASCII digits are ever written, so this never takes the fallback.
        core::str::from_utf8(&self.buf[usize::from(self.start)..]).unwrap_or_default()
    }
}

impl core::ops::Deref for Decimal {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl From<usize> for Decimal {
    fn from(n: usize) -> Self {
        // usize is at most 64 bits on every target this builds for.
        Self::new(n as u64)
    }
}

impl From<u16> for Decimal {
    fn from(n: u16) -> Self {
        Self::new(u64::from(n))
    }
}

impl From<u32> for Decimal {
    fn from(n: u32) -> Self {
        Self::new(u64::from(n))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;
    use proptest::prelude::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn decimal_edges() {
        assert_eq!(&*Decimal::new(0), "0");
        assert_eq!(&*Decimal::new(9), "9");
        assert_eq!(&*Decimal::new(10), "10");
        assert_eq!(&*Decimal::new(u64::MAX), "18446744073709551615");
        assert_eq!(&*Decimal::from(usize::MAX), usize::MAX.to_string());
        assert_eq!(&*Decimal::from(u16::MAX), "65535");
        assert_eq!(&*Decimal::from(u32::MAX), "4294967295");
    }

    /// The messages that carry numbers, each against the `format!` template it was built
    /// with before (the templates copied from it, the same arguments): byte-for-byte equal.
    #[test]
    fn messages_with_numbers_read_as_format_wrote_them() {
        use crate::bundle::{Bundle, MAX_BUNDLE_CHARS};
        use crate::passkey::options::MAX_TIMEOUT_MS;
        use crate::passkey::{validate_nickname, RegistrationInput};
        let message = |r: crate::Result<()>| r.unwrap_err().message().to_owned();

        let long = "1".repeat(MAX_BUNDLE_CHARS + 1);
        assert_eq!(
            message(Bundle::decode(&long).map(drop)),
            format!(
                "encryptedSessionSigningKey is {} characters; no real bundle is longer than {MAX_BUNDLE_CHARS}",
                long.len()
            )
        );
        let index = 4;
        assert_eq!(
            message(Bundle::decode("11110").map(drop)),
            format!("encryptedSessionSigningKey is not base58: invalid character at index {index}")
        );
        assert_eq!(
            message(Bundle::from_payload(&[2; 10]).map(drop)),
            format!(
                "bundle payload is {} bytes; expected at least {} (33-byte key and 16-byte tag)",
                10,
                33 + 16
            )
        );
        for prefix in [0x00u8, 0x04, 0x0a, 0xab, 0xff] {
            let mut payload = [2u8; 49];
            payload[0] = prefix;
            assert_eq!(
                message(Bundle::from_payload(&payload).map(drop)),
                format!("bundle encapsulated key has prefix 0x{prefix:02x}; expected a compressed point (0x02 or 0x03)")
            );
        }
        for n in [0usize, 2, 64] {
            assert_eq!(
                message(crate::public_key::parse_public_key_hex(&"00".repeat(n), "k").map(drop)),
                format!("k is {n} bytes; expected 33 (compressed) or 65 (uncompressed)")
            );
        }
        for count in [0usize, 101, 1000] {
            assert_eq!(
                message(validate_nickname(&"n".repeat(count))),
                format!("nickname is {count} characters; it must be 1 to 100")
            );
        }
        let registration = crate::passkey::options::tests::registration;
        let input = RegistrationInput {
            timeout_ms: Some(0.0),
            ..registration()
        };
        assert_eq!(
            message(input.validate().map(drop)),
            format!("timeoutMs must be a number of milliseconds from 1 to {MAX_TIMEOUT_MS}")
        );
        let input = RegistrationInput {
            user_id: Some("u".repeat(65)),
            ..registration()
        };
        assert_eq!(
            message(input.validate().map(drop)),
            format!("user.id is {} bytes in UTF-8; WebAuthn allows 1 to 64", 65)
        );
        let input = RegistrationInput {
            exclude_credential_ids: vec!["AAAA".into(), "AAAA".into(), "!!".into()],
            ..registration()
        };
        // Two templates before: the field's name, then the message naming it.
        let i = 2;
        let name = format!("excludeCredentialIds[{i}]");
        assert_eq!(
            message(input.validate().map(drop)),
            format!("{name} is not a base64url credential id")
        );

        let mut ids = crate::SignedRequestIds::default();
        for i in 0..crate::request_ids::MAX_SIGNED_REQUEST_IDS {
            ids.record(
                &crate::flows::http::uuid_v4_from((i as u128).to_be_bytes()),
                0,
            )
            .unwrap();
        }
        assert_eq!(
            message(ids.record("Request:00000000-0000-4000-8000-ffffffffffff", 0)),
            format!(
                "this key signed {} requestIds within the last hour, more than any real use; refusing more",
                crate::request_ids::MAX_SIGNED_REQUEST_IDS
            )
        );

        let e = crate::inspect_payload("{\"a\": tru}").unwrap_err();
        let json = crate::json::parse("{\"a\": tru}").unwrap_err();
        assert_eq!(
            e.message(),
            format!(
                "payloadToSign is not valid JSON: {} at byte {}",
                json.reason, json.offset
            )
        );

        // Retry-After is in seconds; the message divides the milliseconds back.
        for (header, secs) in [
            ("0", 0),
            ("3", 3),
            ("86400", 86_400),
            ("18446744073709551615", u64::MAX / 1_000),
        ] {
            let limited = crate::flows::Response {
                status: 429,
                retry_after: Some(header),
                body: None,
            };
            assert_eq!(
                crate::flows::http::response_error(&limited).message(),
                format!("the service is rate limiting this request; retry in {secs} s")
            );
        }
        for status in [0u16, 404, 500, u16::MAX] {
            let response = crate::flows::Response {
                status,
                retry_after: None,
                body: None,
            };
            assert_eq!(
                crate::flows::http::response_error(&response).message(),
                format!("the service answered {status}")
            );
        }
    }

    #[cfg(feature = "json")]
    #[test]
    fn json_syntax_error_positions_read_as_format_wrote_them() {
        let text = "{\n  \"a\": [1,\n 2,, 3]}";
        let serde = serde_json::from_str::<serde_json::Value>(text).unwrap_err();
        let e = crate::parse_object(text, crate::ErrorCode::InvalidInput, "body").unwrap_err();
        assert_eq!(
            e.message(),
            format!(
                "body is not valid JSON (line {}, column {})",
                serde.line(),
                serde.column()
            )
        );
    }

    proptest! {
        #[test]
        fn decimal_matches_format(n in any::<u64>()) {
            prop_assert_eq!(Decimal::new(n).as_str().to_owned(), format!("{n}"));
        }

        // Small numbers (the lengths, indexes and statuses the messages carry) and the
        // powers of ten around each digit-count boundary.
        #[test]
        fn decimal_matches_format_near_boundaries(exp in 0u32..20, delta in 0u64..3, below in any::<bool>()) {
            let p = 10u64.pow(exp);
            let n = if below { p.saturating_sub(delta) } else { p.saturating_add(delta) };
            prop_assert_eq!(Decimal::new(n).as_str().to_owned(), format!("{n}"));
        }

        #[test]
        fn decimal_from_narrower_types_matches_format(a in any::<usize>(), b in any::<u32>(), c in any::<u16>()) {
            prop_assert_eq!(Decimal::from(a).as_str().to_owned(), format!("{a}"));
            prop_assert_eq!(Decimal::from(b).as_str().to_owned(), format!("{b}"));
            prop_assert_eq!(Decimal::from(c).as_str().to_owned(), format!("{c}"));
        }
    }
}

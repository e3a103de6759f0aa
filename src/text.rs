//! Numbers as text without `core::fmt`. Error messages are built from `&str` pieces
//! (`[a, b, c].concat()`) and these, never with `format!`: a single `format!` links
//! `core::fmt`'s machinery (`fmt::write`, `Formatter::pad_integral`, the `Display`
//! impls), a few KB of every wasm module. Public but hidden: the binding crates use it
//! for the same reason; it is not part of the API.

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

/// `b` as two lowercase hex digits (what `{:02x}` prints).
pub fn hex_byte(b: u8) -> [u8; 2] {
    const DIGITS: &[u8; 16] = b"0123456789abcdef";
    [DIGITS[usize::from(b >> 4)], DIGITS[usize::from(b & 0x0f)]]
}

/// [`hex_byte`] as text, for concatenating into messages.
pub fn hex_byte_str(b: &[u8; 2]) -> &str {
    // Only hex digits are ever written, so this never takes the fallback.
    core::str::from_utf8(b).unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::prelude::*;
    use proptest::prelude::*;

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

    #[test]
    fn hex_byte_every_byte_matches_format() {
        for b in 0..=u8::MAX {
            assert_eq!(hex_byte_str(&hex_byte(b)), format!("{b:02x}"));
        }
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

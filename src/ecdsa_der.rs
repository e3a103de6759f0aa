//! ECDSA P-256 signatures in ASN.1 DER (`SEQUENCE { r INTEGER, s INTEGER }`), by hand.
//!
//! The only DER the kit reads or writes is this one fixed shape, and the `der` crate's
//! general machinery cost about 11 KB of the wasm module for it. Decoding is strict DER:
//! short-form lengths, minimal non-negative integers, nothing after the sequence; the
//! scalars must then be in `1..n` (checked by `Signature::from_scalars`). A native test
//! and a fuzz target compare both directions with the `der`-based implementation in p256.

use p256::ecdsa::Signature;
use p256::FieldBytes;

/// The longest encoding: two 33-byte integers (a 0x00 before a high bit) and 3 headers.
pub const MAX_LEN: usize = 72;

/// A DER-encoded signature (at most [`MAX_LEN`] bytes).
#[derive(Clone, Copy)]
pub struct DerSignature {
    bytes: [u8; MAX_LEN],
    len: usize,
}

impl DerSignature {
    /// The encoding.
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..self.len]
    }
}

/// Encodes `signature` in DER.
pub fn encode(signature: &Signature) -> DerSignature {
    let (r, s) = signature.split_bytes();
    let mut out = DerSignature {
        bytes: [0; MAX_LEN],
        len: 2,
    };
    for scalar in [r, s] {
        // Minimal big-endian form: drop leading zeros (a scalar of a valid signature is
        // never zero), then a 0x00 keeps a set high bit from reading as negative.
        let skip = scalar.iter().take_while(|&&b| b == 0).count().min(31);
        let digits = &scalar[skip..];
        let pad = usize::from(digits[0] & 0x80 != 0);
        let at = out.len;
        out.bytes[at] = 0x02;
        out.bytes[at + 1] = (pad + digits.len()) as u8;
        out.bytes[at + 2 + pad..at + 2 + pad + digits.len()].copy_from_slice(digits);
        out.len = at + 2 + pad + digits.len();
    }
    out.bytes[0] = 0x30;
    out.bytes[1] = (out.len - 2) as u8;
    out
}

/// Decodes a strict-DER signature; `None` for anything else.
pub fn decode(der: &[u8]) -> Option<Signature> {
    let (&tag, rest) = der.split_first()?;
    let (&len, body) = rest.split_first()?;
    // Content of at most 70 bytes always takes the short length form.
    if tag != 0x30 || len >= 0x80 || usize::from(len) != body.len() {
        return None;
    }
    let (r, body) = integer(body)?;
    let (s, body) = integer(body)?;
    if !body.is_empty() {
        return None;
    }
    Signature::from_scalars(r, s).ok()
}

/// One INTEGER of at most 32 significant bytes, left-padded to 32; and what follows it.
fn integer(input: &[u8]) -> Option<(FieldBytes, &[u8])> {
    let (&tag, rest) = input.split_first()?;
    let (&len, rest) = rest.split_first()?;
    let len = usize::from(len);
    if tag != 0x02 || len == 0 || len > 33 || rest.len() < len {
        return None;
    }
    let (digits, rest) = rest.split_at(len);
    if digits[0] & 0x80 != 0 {
        return None; // negative
    }
    let digits = if digits[0] == 0 && len > 1 {
        if digits[1] & 0x80 == 0 {
            return None; // a leading zero that is not needed: not minimal
        }
        &digits[1..]
    } else {
        digits
    };
    if digits.len() > 32 {
        return None;
    }
    let mut bytes = FieldBytes::default();
    bytes[32 - digits.len()..].copy_from_slice(digits);
    Some((bytes, rest))
}

#[cfg(test)]
mod tests {
    use super::*;
    use p256::ecdsa::signature::Signer as _;
    use p256::ecdsa::SigningKey;
    use proptest::prelude::*;

    fn signature(r: [u8; 32], s: [u8; 32]) -> Option<Signature> {
        Signature::from_scalars(FieldBytes::from(r), FieldBytes::from(s)).ok()
    }

    #[test]
    fn encodes_like_the_der_crate_for_short_and_high_bit_scalars() {
        let mut cases = vec![[1u8; 32], [0x7f; 32], [0x80; 32]];
        let mut short = [0u8; 32];
        short[31] = 0x80; // one significant byte with its high bit set
        cases.push(short);
        short[31] = 1; // the smallest scalar
        cases.push(short);
        let mut leading_zeros = [0xffu8; 32];
        leading_zeros[..3].fill(0);
        cases.push(leading_zeros);
        for r in &cases {
            for s in &cases {
                let sig = signature(*r, *s).unwrap();
                assert_eq!(encode(&sig).as_bytes(), sig.to_der().as_bytes());
                assert_eq!(decode(sig.to_der().as_bytes()), Some(sig));
            }
        }
    }

    #[test]
    fn refuses_what_is_not_strict_der() {
        let sig = SigningKey::from_slice(&[3; 32]).unwrap().sign(b"payload");
        let good = encode(&sig).as_bytes().to_vec();
        assert_eq!(decode(&good), Some(sig));
        let mut trailing = good.clone();
        trailing.push(0);
        let mut long_length = vec![0x30, 0x81, good[1]];
        long_length.extend_from_slice(&good[2..]);
        let mut wrong_tag = good.clone();
        wrong_tag[0] = 0x31;
        let mut short_length = good.clone();
        short_length[1] -= 1;
        // r = 1 written as 02 02 00 01: a needless leading zero.
        let padded_one = [0x30, 0x07, 0x02, 0x02, 0x00, 0x01, 0x02, 0x01, 0x01];
        let negative = [0x30, 0x06, 0x02, 0x01, 0x81, 0x02, 0x01, 0x01];
        let zero = [0x30, 0x06, 0x02, 0x01, 0x00, 0x02, 0x01, 0x01];
        let empty_integer = [0x30, 0x05, 0x02, 0x00, 0x02, 0x01, 0x01];
        let order = hex_literal("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551");
        let mut at_order = vec![0x30, 0x26, 0x02, 0x21, 0x00];
        at_order.extend_from_slice(&order);
        at_order.extend_from_slice(&[0x02, 0x01, 0x01]);
        for bad in [
            &trailing[..],
            &long_length,
            &wrong_tag,
            &short_length,
            &good[..good.len() - 1],
            &padded_one,
            &negative,
            &zero,
            &empty_integer,
            &at_order,
            &[],
            &[0x30],
        ] {
            assert_eq!(decode(bad), None, "{}", crate::codec::hex_encode(bad));
            assert!(Signature::from_der(bad).is_err());
        }
    }

    fn hex_literal(hex: &str) -> Vec<u8> {
        crate::codec::hex_decode(hex).unwrap()
    }

    proptest! {
        #[test]
        fn agrees_with_the_der_crate(r in any::<[u8; 32]>(), s in any::<[u8; 32]>(), zeros in 0usize..32) {
            let mut r = r;
            r[..zeros].fill(0);
            if let Some(sig) = signature(r, s) {
                let (ours, theirs) = (encode(&sig), sig.to_der());
                prop_assert_eq!(ours.as_bytes(), theirs.as_bytes());
                prop_assert_eq!(decode(encode(&sig).as_bytes()), Some(sig));
            }
        }

        #[test]
        fn decodes_a_mutated_encoding_exactly_as_the_der_crate_does(
            at in 0usize..72, value in any::<u8>(), cut in 0usize..3, seed in any::<[u8; 32]>()
        ) {
            let key = SigningKey::from_slice(&[9; 32]).unwrap();
            let sig: Signature = key.sign(&seed);
            let mut bytes = encode(&sig).as_bytes().to_vec();
            let at = at % bytes.len();
            bytes[at] = value;
            bytes.truncate(bytes.len() - cut);
            prop_assert_eq!(decode(&bytes), Signature::from_der(&bytes).ok());
        }

        #[test]
        fn decodes_exactly_what_the_der_crate_decodes(bytes in proptest::collection::vec(any::<u8>(), 0..80)) {
            prop_assert_eq!(decode(&bytes), Signature::from_der(&bytes).ok());
        }
    }
}

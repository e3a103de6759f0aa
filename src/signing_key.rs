//! The key that signs stamps: p256's ECDSA signing (RFC 6979 nonces, SHA-256, no low-S
//! normalisation, as `p256::ecdsa::SigningKey` signs), with R = k·G and the public key
//! computed on the kit's basepoint table ([`crate::basepoint`]) instead of p256's.
//!
//! Why not `p256::ecdsa::SigningKey`: it computes both through p256's own table, which
//! the kit leaves out (issue 16: the faster table is paid for by not shipping two). The
//! signature is the same function of the same inputs, and is checked to be: the tests
//! below compare every signature with p256's (random keys and messages, and RFC 6979's
//! vectors), and so does the fuzz target `basepoint_differential`.

use p256::ecdsa::Signature;
use p256::elliptic_curve::ops::{Invert, Reduce};
use p256::elliptic_curve::point::AffineCoordinates;
use p256::elliptic_curve::{Curve, PrimeField};
use p256::{FieldBytes, NistP256, NonZeroScalar, PublicKey, Scalar, SecretKey, U256};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::basepoint;

/// A P-256 signing key and its public key. The secret is zeroized when dropped
/// (`p256::SecretKey` does it).
pub struct SigningKey {
    secret: SecretKey,
    public: PublicKey,
}

impl SigningKey {
    /// The key `secret`, its public key computed on the kit's table.
    pub fn new(secret: SecretKey) -> Self {
        let public = basepoint::public_key(&secret);
        Self { secret, public }
    }

    /// `secret` with the public key it is known to have (a [`crate::ClientKey`]'s, or
    /// p256's `SigningKey`'s), so nothing is computed twice.
    pub fn with_public(secret: SecretKey, public: PublicKey) -> Self {
        Self { secret, public }
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The secret key.
    pub fn secret(&self) -> &SecretKey {
        &self.secret
    }

    /// Deterministic ECDSA over SHA-256 of `message`, exactly as p256's `SigningKey::sign`
    /// (ecdsa's `sign_prehashed_rfc6979`: the same nonces, the same retry on a zero r or s).
    /// The copies of the secret and of the nonce (which gives the secret away as surely)
    /// are zeroized when dropped, as the secret itself is.
    pub fn sign(&self, message: &[u8]) -> Signature {
        let digest = Sha256::digest(message);
        let d = Zeroizing::new(self.secret.to_nonzero_scalar());
        let order = NistP256::ORDER;
        let mut nonces =
            rfc6979::KGenerator::<Sha256, U256>::new(&d.to_repr(), &digest, &[], &order);
        loop {
            let mut k_bytes = Zeroizing::new(FieldBytes::default());
            nonces.fill_next_k(&mut k_bytes);
            let Some(k) = NonZeroScalar::from_repr(*k_bytes)
                .into_option()
                .map(Zeroizing::new)
            else {
                continue;
            };
            // r = x(k·G) mod n; s = k⁻¹(z + r·d) mod n; z is the digest mod n (32 bytes,
            // the order's length: no truncation).
            let r = Scalar::reduce(&basepoint::mul_generator(&k).to_affine().x());
            let z = Scalar::reduce(&digest);
            let s = *k.invert() * (z + r * **d);
            if let Ok(signature) = Signature::from_scalars(r, s) {
                return signature;
            }
        }
    }
}

impl From<&p256::ecdsa::SigningKey> for SigningKey {
    fn from(key: &p256::ecdsa::SigningKey) -> Self {
        Self::with_public(key.as_nonzero_scalar().into(), key.verifying_key().into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_vectors::hex;
    use p256::ecdsa::signature::Signer as _;
    use p256::elliptic_curve::Generate as _;

    fn oracle(secret: &SecretKey, message: &[u8]) -> Signature {
        p256::ecdsa::SigningKey::from(secret).sign(message)
    }

    #[test]
    fn signatures_match_p256() {
        for n in 0..300usize {
            let secret = SecretKey::try_generate_from_rng(&mut getrandom::SysRng).unwrap();
            let message: Vec<u8> = (0..n % 97).map(|i| (i * 31 + n) as u8).collect();
            let key = SigningKey::new(secret.clone());
            assert_eq!(key.sign(&message), oracle(&secret, &message), "n = {n}");
            assert_eq!(key.public_key(), &secret.public_key());
        }
    }

    /// RFC 6979 A.2.5, P-256 with SHA-256: the messages "sample" and "test".
    #[test]
    fn rfc6979_vectors() {
        let secret = SecretKey::from_slice(&hex(
            "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721",
        ))
        .unwrap();
        let key = SigningKey::new(secret);
        for (message, r, s) in [
            (
                "sample",
                "efd48b2aacb6a8fd1140dd9cd45e81d69d2c877b56aaf991c34d0ea84eaf3716",
                "f7cb1c942d657c41d436c7a1b6e29f65f3e900dbb9aff4064dc4ab2f843acda8",
            ),
            (
                "test",
                "f1abb023518351cd71d881567b1ea663ed3efcf6c5132b354f28d3b0b7d38367",
                "019f4113742a2b14bd25926b49c649155f267e60d3814b4c0cc84250e46f0083",
            ),
        ] {
            let signature = key.sign(message.as_bytes());
            assert_eq!(
                signature.r().to_bytes().as_slice(),
                hex(r).as_slice(),
                "{message}"
            );
            assert_eq!(
                signature.s().to_bytes().as_slice(),
                hex(s).as_slice(),
                "{message}"
            );
        }
    }

    #[test]
    fn from_p256_keeps_the_key() {
        let p256_key = p256::ecdsa::SigningKey::from_slice(&[0x42; 32]).unwrap();
        let key = SigningKey::from(&p256_key);
        assert_eq!(key.sign(b"payload"), p256_key.sign(b"payload"));
        assert_eq!(key.public_key(), &PublicKey::from(p256_key.verifying_key()));
    }
}

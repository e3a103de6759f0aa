//! The key that signs stamps: ECDSA P-256 over SHA-256 (no low-S normalisation), with R
//! = k·G and the public key computed on the kit's basepoint table ([`crate::basepoint`])
//! instead of p256's, and every signature checked before it leaves.
//!
//! Why not `p256::ecdsa::SigningKey`: it computes both through p256's own table, which
//! the kit leaves out (the faster table is paid for by not shipping two).
//!
//! Fault-checked: one faulty signature (a wrong table window in k·G,
//! say) next to a correct one of the same payload gives the private key away by
//! arithmetic. So the nonces are hedged (RFC 6979 §3.6: 32 fresh random bytes as the
//! additional data, so no two signatures share a nonce's inputs), and every signature is
//! verified against the public key by p256's `VerifyingKey` (p256's own multiplication,
//! not the kit's table) before it is returned. A signature that does not verify is never
//! returned: the key zeroizes itself and answers `ENGINE_FAULT` from then on.
//!
//! With empty additional data (the test-only [`deterministic`] switch) the signature is
//! exactly p256's `SigningKey::sign`: the tests below compare it with p256's (random keys
//! and messages, and RFC 6979's vectors), and so does the fuzz target
//! `basepoint_differential`.

use core::cell::RefCell;

use p256::ecdsa::signature::hazmat::PrehashVerifier as _;
use p256::ecdsa::{Signature, VerifyingKey};
use p256::elliptic_curve::ops::{Invert, Reduce};
use p256::elliptic_curve::point::AffineCoordinates;
use p256::elliptic_curve::{Curve, PrimeField};
use p256::{FieldBytes, NistP256, NonZeroScalar, PublicKey, Scalar, SecretKey, U256};
use sha2::{Digest, Sha256};
use zeroize::Zeroizing;

use crate::basepoint;
use crate::error::{Error, ErrorCode, Result};

/// The hedge of RFC 6979 §3.6: 32 bytes from the platform's secure randomness (where
/// [`crate::ClientKey::generate`] gets its keys).
fn hedge() -> Result<Zeroizing<[u8; 32]>> {
    let mut bytes = Zeroizing::new([0u8; 32]);
    getrandom::fill(bytes.as_mut()).map_err(|_| {
        Error::new(
            ErrorCode::RandomnessUnavailable,
            "the platform's secure random number generator failed",
        )
    })?;
    Ok(bytes)
}

/// A P-256 signing key and its public key. The secret is zeroized when dropped
/// (`p256::SecretKey` does it), and when a signature it made does not verify: then it is
/// poisoned, and every later use is `ENGINE_FAULT`. (Interior mutability, so that
/// `&self` signing can wipe it: the key is `Send` but not `Sync`.)
pub struct SigningKey {
    secret: RefCell<Option<SecretKey>>,
    public: PublicKey,
}

impl SigningKey {
    /// The key `secret`, its public key computed on the kit's table (`ENGINE_FAULT` if
    /// that computation is faulty).
    pub fn new(secret: SecretKey) -> Result<Self> {
        let public = basepoint::public_key(&secret)?;
        Ok(Self::with_public(secret, public))
    }

    /// `secret` with the public key it is known to have (a [`crate::ClientKey`]'s, or
    /// p256's `SigningKey`'s), so nothing is computed twice.
    pub fn with_public(secret: SecretKey, public: PublicKey) -> Self {
        Self {
            secret: RefCell::new(Some(secret)),
            public,
        }
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// Whether a faulty signature wiped the key.
    pub fn is_poisoned(&self) -> bool {
        self.secret.borrow().is_none()
    }

    /// `f` of the secret key; `ENGINE_FAULT` once poisoned.
    pub fn with_secret<T>(&self, f: impl FnOnce(&SecretKey) -> T) -> Result<T> {
        self.secret
            .borrow()
            .as_ref()
            .map(f)
            .ok_or_else(Error::engine_fault)
    }

    /// Wipes the key: every later use is `ENGINE_FAULT`.
    fn poison(&self) {
        // Assigned: the SecretKey is dropped (zeroized) where it lies, not moved out first
        // (as `replace` or `take` would, which can leave its bytes behind here).
        *self.secret.borrow_mut() = None;
    }

    /// ECDSA over SHA-256 of `message` with a hedged nonce, verified before it is
    /// returned. `RANDOMNESS_UNAVAILABLE` when the platform gives no random bytes;
    /// `ENGINE_FAULT` when the signature does not verify (the key is then wiped) or the key
    /// was wiped before.
    pub fn sign(&self, message: &[u8]) -> Result<Signature> {
        let digest = Sha256::digest(message);
        let hedge = if deterministic::is_on() {
            None
        } else {
            Some(hedge()?)
        };
        let data = hedge.as_deref().map_or(&[][..], |bytes| &bytes[..]);
        let signature = self.with_secret(|secret| sign_prehashed(secret, &digest, data))??;
        if VerifyingKey::from(&self.public)
            .verify_prehash(&digest, &signature)
            .is_err()
        {
            self.poison();
            return Err(Error::engine_fault());
        }
        Ok(signature)
    }
}

/// ECDSA of `digest` with the RFC 6979 nonce for the additional data `data` (p256's
/// `SigningKey::sign` when `data` is empty: ecdsa's `sign_prehashed_rfc6979`, the same
/// retry on a zero r or s). The copies of the secret, of the nonce and of its inverse
/// (each gives the secret away) are zeroized when dropped. rfc6979's HMAC-DRBG state (K
/// and V) is not: the crate (0.6) neither zeroizes it nor lets it be reached.
fn sign_prehashed(secret: &SecretKey, digest: &FieldBytes, data: &[u8]) -> Result<Signature> {
    let d = Zeroizing::new(secret.to_nonzero_scalar());
    let d_bytes = Zeroizing::new(d.to_repr());
    let order = NistP256::ORDER;
    let mut nonces = rfc6979::KGenerator::<Sha256, U256>::new(&d_bytes, digest, data, &order);
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
        let z = Scalar::reduce(digest);
        let k_inv = Zeroizing::new(*k.invert());
        let s = fault::inject(*k_inv * (z + r * **d));
        if let Ok(signature) = Signature::from_scalars(r, s) {
            return Ok(signature);
        }
    }
}

impl From<&p256::ecdsa::SigningKey> for SigningKey {
    fn from(key: &p256::ecdsa::SigningKey) -> Self {
        Self::with_public(key.as_nonzero_scalar().into(), key.verifying_key().into())
    }
}

/// Deterministic nonces (empty additional data) for the tests that pin RFC 6979's and the
/// API's stamp vectors byte for byte, and for the fuzz target that compares signatures
/// with p256's. Test and fuzz builds only: a shipped build always hedges.
#[cfg(any(test, fuzzing))]
pub(crate) mod deterministic {
    use core::cell::Cell;

    std::thread_local! {
        static ON: Cell<bool> = const { Cell::new(false) };
    }

    pub(crate) fn is_on() -> bool {
        ON.with(Cell::get)
    }

    /// Runs `f` with deterministic nonces on this thread.
    pub fn with<T>(f: impl FnOnce() -> T) -> T {
        let before = ON.with(|on| on.replace(true));
        let out = f();
        ON.with(|on| on.set(before));
        out
    }
}

#[cfg(not(any(test, fuzzing)))]
mod deterministic {
    pub(super) const fn is_on() -> bool {
        false
    }
}

/// Test-only fault injection (the `fault-injection` feature, never in a shipped build:
/// scripts/build-pkg.sh refuses it): corrupts the next signatures or shared secrets
/// computed on this thread, as a fault in the arithmetic would.
#[cfg(any(test, feature = "fault-injection"))]
pub(crate) mod fault {
    use core::cell::Cell;
    use p256::Scalar;
    use std::thread::LocalKey;

    std::thread_local! {
        static SIGNATURES: Cell<usize> = const { Cell::new(0) };
        static SHARED_SECRETS: Cell<usize> = const { Cell::new(0) };
    }

    /// Corrupts the next `count` signatures this thread computes (their `s`, before the
    /// check).
    pub fn corrupt_next_signatures(count: usize) {
        SIGNATURES.with(|pending| pending.set(count));
    }

    /// Corrupts the next `count` ECDH multiplications this thread computes (their
    /// accumulator, halfway through; [`crate::ecdh::diffie_hellman`]).
    pub fn corrupt_next_shared_secrets(count: usize) {
        SHARED_SECRETS.with(|pending| pending.set(count));
    }

    /// Whether to corrupt this computation, counting it down.
    fn next(pending: &'static LocalKey<Cell<usize>>) -> bool {
        pending.with(|pending| {
            let left = pending.get();
            pending.set(left.saturating_sub(1));
            left > 0
        })
    }

    pub(super) fn inject(s: Scalar) -> Scalar {
        if next(&SIGNATURES) {
            s + Scalar::ONE
        } else {
            s
        }
    }

    pub(crate) fn corrupts_shared_secret() -> bool {
        next(&SHARED_SECRETS)
    }
}

#[cfg(not(any(test, feature = "fault-injection")))]
pub(crate) mod fault {
    pub(super) fn inject(s: p256::Scalar) -> p256::Scalar {
        s
    }

    pub(crate) fn corrupts_shared_secret() -> bool {
        false
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_vectors::hex;
    use p256::ecdsa::signature::Signer as _;
    use p256::ecdsa::signature::Verifier as _;
    use p256::elliptic_curve::Generate as _;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn oracle(secret: &SecretKey, message: &[u8]) -> Signature {
        p256::ecdsa::SigningKey::from(secret).sign(message)
    }

    fn random_secret() -> SecretKey {
        SecretKey::try_generate_from_rng(&mut getrandom::SysRng).unwrap()
    }

    #[test]
    fn deterministic_signatures_match_p256() {
        deterministic::with(|| {
            for n in 0..300usize {
                let secret = random_secret();
                let message: Vec<u8> = (0..n % 97).map(|i| (i * 31 + n) as u8).collect();
                let key = SigningKey::new(secret.clone()).unwrap();
                assert_eq!(
                    key.sign(&message).unwrap(),
                    oracle(&secret, &message),
                    "n = {n}"
                );
                assert_eq!(key.public_key(), &secret.public_key());
            }
        });
    }

    /// Hedged (the shipped path): two signatures of one message differ, and both verify
    /// with p256 (an independent verifier).
    #[test]
    fn hedged_signatures_differ_and_verify() {
        for n in 0..50usize {
            let secret = random_secret();
            let key = SigningKey::new(secret.clone()).unwrap();
            let message = [n as u8; 40];
            let (a, b) = (key.sign(&message).unwrap(), key.sign(&message).unwrap());
            assert_ne!(a, b, "n = {n}");
            assert_ne!(a, oracle(&secret, &message), "n = {n}");
            let verifier = VerifyingKey::from(&secret.public_key());
            assert!(verifier.verify(&message, &a).is_ok());
            assert!(verifier.verify(&message, &b).is_ok());
        }
    }

    /// RFC 6979 A.2.5, P-256 with SHA-256: the messages "sample" and "test".
    #[test]
    fn rfc6979_vectors() {
        let secret = SecretKey::from_slice(&hex(
            "c9afa9d845ba75166b5c215767b1d6934e50c3db36e89b127b8a622b120f6721",
        ))
        .unwrap();
        let key = SigningKey::new(secret).unwrap();
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
            let signature = deterministic::with(|| key.sign(message.as_bytes())).unwrap();
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
        assert_eq!(
            deterministic::with(|| key.sign(b"payload")).unwrap(),
            p256_key.sign(b"payload")
        );
        assert_eq!(key.public_key(), &PublicKey::from(p256_key.verifying_key()));
    }

    /// A faulty signature is never returned: `ENGINE_FAULT`, the key wiped, and every
    /// later signature refused.
    #[test]
    fn a_faulty_signature_poisons_the_key() {
        let key = SigningKey::new(random_secret()).unwrap();
        assert!(key.sign(b"before").is_ok());
        fault::corrupt_next_signatures(1);
        let err = key.sign(b"payload").unwrap_err();
        assert_eq!(err.code(), ErrorCode::EngineFault);
        assert!(err.message().contains("reload"), "{err}");
        assert!(key.is_poisoned());
        assert_eq!(
            key.with_secret(|_| ()).unwrap_err().code(),
            ErrorCode::EngineFault
        );
        // No fault pending any more, and still refused: the key is gone.
        assert_eq!(
            key.sign(b"payload").unwrap_err().code(),
            ErrorCode::EngineFault
        );
    }
}

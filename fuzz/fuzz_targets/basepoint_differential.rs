#![no_main]
//! The kit's k·G (src/basepoint.rs: an affine table, mixed additions) and its ECDSA
//! signing on it (src/signing_key.rs) against p256's on libFuzzer-chosen scalars and
//! messages: the point for every scalar, and for every non-zero one the public key, the
//! RFC 6979 signature with deterministic nonces (byte for byte p256's) and the shipped,
//! hedged one (verified by p256). Scalars near 0 and near
//! the group order (where the sums meet the identity or equal points) are reached by
//! `Secret::Small` and `Secret::BelowOrder` (n - k).
use embedded_wallet_kit::fuzzing::{mul_generator, with_deterministic_nonces, SigningKey};
use p256::ecdsa::signature::{Signer as _, Verifier as _};
use p256::ecdsa::Signature;
use p256::{NonZeroScalar, ProjectivePoint, SecretKey};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
use common::Secret;

#[derive(Arbitrary, Debug)]
struct Input {
    secret: Secret,
    message: Vec<u8>,
}

fuzz_target!(|input: Input| {
    let k = input.secret.scalar();
    assert_eq!(
        mul_generator(&k).to_affine(),
        (ProjectivePoint::GENERATOR * k).to_affine()
    );
    let Some(k) = Option::<NonZeroScalar>::from(NonZeroScalar::new(k)) else {
        return;
    };
    let secret = SecretKey::from(k);
    let theirs = p256::ecdsa::SigningKey::from(&secret);
    let ours = SigningKey::new(secret).expect("no engine fault");
    assert_eq!(
        ours.public_key(),
        &embedded_wallet_kit::PublicKey::from(theirs.verifying_key())
    );
    let signature: Signature = theirs.sign(&input.message);
    let deterministic = with_deterministic_nonces(|| ours.sign(&input.message));
    assert_eq!(deterministic.expect("verified"), signature);
    let hedged = ours.sign(&input.message).expect("verified");
    assert!(theirs
        .verifying_key()
        .verify(&input.message, &hedged)
        .is_ok());
});

#![no_main]
//! The kit's P-256 ECDH (src/ecdh.rs: Jacobian doublings, complete projective additions)
//! against p256's on libFuzzer-chosen scalars and points. The point is a multiple of the
//! generator, so every byte string gives a valid one; scalars near 0 and near the group
//! order (where the loop's additions meet the identity or equal points) are reached by
//! `Secret::Small` and `Secret::BelowOrder` (n - k).
use embedded_wallet_kit::fuzzing::diffie_hellman;
use p256::elliptic_curve::ops::Reduce;
use p256::{NonZeroScalar, ProjectivePoint, Scalar, U256};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

#[path = "common.rs"]
mod common;
use common::Secret;

#[derive(Arbitrary, Debug)]
struct Input {
    secret: Secret,
    point: [u8; 32],
}

fuzz_target!(|input: Input| {
    let secret = input.secret.scalar();
    let (Some(secret), Some(point)) = (
        Option::<NonZeroScalar>::from(NonZeroScalar::new(secret)),
        Option::<NonZeroScalar>::from(NonZeroScalar::new(<Scalar as Reduce<U256>>::reduce(
            &U256::from_be_slice(&input.point),
        ))),
    ) else {
        return;
    };
    let public = (ProjectivePoint::GENERATOR * point.as_ref()).to_affine();
    let theirs = p256::ecdh::diffie_hellman(secret, &public);
    assert_eq!(
        &diffie_hellman(&secret, &public).unwrap()[..],
        &theirs.raw_secret_bytes()[..]
    );
});

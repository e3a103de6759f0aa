//! P-256 Diffie-Hellman (the x-coordinate of k·P), faster in wasm than
//! `p256::ecdh::diffie_hellman` for the same constant-time schedule.
//!
//! Why it exists (measured): a bundle open in Chromium spent about 47% of its
//! time in primeorder's complete doubling formula, which costs 10 multiplications and 3
//! squarings on P-256. Doubling in Jacobian coordinates costs 3 and 5, and is complete on
//! a curve of prime order (no point of order 2; the identity, Z = 0, doubles to itself).
//! Additions keep the complete projective formula of Renes, Costello and Batina
//! (eprint 2015/1060, algorithm 4, a = -3), so no input needs a special case: each
//! window converts the accumulator to projective coordinates and back (6 multiplications
//! against the 20 the four Jacobian doublings save).
//!
//! Same schedule as p256's: primeorder's signed radix-16 digits (65 of them), a table of
//! [1..8]P selected in constant time, 4 doublings and one addition per digit. Field
//! arithmetic is p256's own. Checked against p256's ECDH on random and edge scalars and
//! points (tests below) and by the fuzz target `ecdh_differential`; its constant time
//! under valgrind (tests/ct).
//!
//! The scalar's digits, the accumulator and the points selected from the table are
//! zeroized when dropped natively (`basepoint::Wiped`): they give the key away.

use p256::elliptic_curve::hazmat::FieldArithmetic;
use p256::elliptic_curve::point::AffineCoordinates;
use p256::elliptic_curve::subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use p256::elliptic_curve::PrimeField;
use p256::{AffinePoint, FieldBytes, NistP256, NonZeroScalar};
use primeorder::PrimeCurveParams;
use zeroize::{DefaultIsZeroes, Zeroize, Zeroizing};

use crate::basepoint::{radix16, Wiped, DIGITS};
use crate::error::{Error, Result};

type Fe = <NistP256 as FieldArithmetic>::FieldElement;

const B: Fe = <NistP256 as PrimeCurveParams>::EQUATION_B;

/// (X : Y : Z) with x = X/Z, y = Y/Z; the identity is (0 : λ : 0), written (0 : 1 : 0) here.
/// Zeroized (to all zeros) where it holds a secret multiple: `Zeroizing<Projective>`.
#[derive(Clone, Copy, Default)]
struct Projective {
    x: Fe,
    y: Fe,
    z: Fe,
}

/// (X : Y : Z) with x = X/Z², y = Y/Z³; the identity has Z = 0.
#[derive(Zeroize)]
struct Jacobian {
    x: Fe,
    y: Fe,
    z: Fe,
}

impl Projective {
    const IDENTITY: Self = Self {
        x: Fe::ZERO,
        y: Fe::ONE,
        z: Fe::ZERO,
    };

    /// Complete addition for a = -3 (Renes-Costello-Batina, algorithm 4): right for
    /// every pair of inputs, the identity and equal points included.
    fn add(&self, other: &Self) -> Self {
        let xx = self.x * other.x;
        let yy = self.y * other.y;
        let zz = self.z * other.z;
        let xy = (self.x + self.y) * (other.x + other.y) - (xx + yy);
        let yz = (self.y + self.z) * (other.y + other.z) - (yy + zz);
        let xz = (self.x + self.z) * (other.x + other.z) - (xx + zz);

        // RCB steps 19-24: xz - b·zz, tripled.
        let xz_minus_bzz = xz - B * zz;
        let xz_minus_bzz3 = xz_minus_bzz.double() + xz_minus_bzz;
        let yy_minus = yy - xz_minus_bzz3;
        let yy_plus = yy + xz_minus_bzz3;

        let zz3 = zz.double() + zz;
        // Steps 25-31: b·xz - 3zz - xx, tripled.
        let bxz_part = B * xz - (zz3 + xx);
        let bxz_part3 = bxz_part.double() + bxz_part;
        let xx3_minus_zz3 = xx.double() + xx - zz3;

        Self {
            x: yy_plus * xy - yz * bxz_part3,
            y: yy_plus * yy_minus + xx3_minus_zz3 * bxz_part3,
            z: yy_minus * yz + xy * xx3_minus_zz3,
        }
    }

    /// Whether this is a finite point of P-256: Z ≠ 0 and Y²Z = X³ - 3XZ² + bZ³. A fault
    /// in the field arithmetic almost surely leaves the curve; 8 multiplications.
    fn is_finite_on_curve(&self) -> Choice {
        let zz = self.z.square();
        let lhs = self.y.square() * self.z;
        let rhs = self.x * (self.x.square() - (zz.double() + zz)) + B * zz * self.z;
        lhs.ct_eq(&rhs) & !self.z.is_zero()
    }

    fn to_jacobian(self) -> Jacobian {
        // (X·Z, Y·Z², Z): x = XZ/Z² = X/Z, y = YZ²/Z³ = Y/Z. The identity becomes
        // (0, 0, 0), which doubling keeps and `to_projective` maps back.
        let zz = self.z.square();
        Jacobian {
            x: self.x * self.z,
            y: self.y * zz,
            z: self.z,
        }
    }
}

impl DefaultIsZeroes for Projective {}

impl ConditionallySelectable for Projective {
    fn conditional_select(a: &Self, b: &Self, choice: Choice) -> Self {
        Self {
            x: Fe::conditional_select(&a.x, &b.x, choice),
            y: Fe::conditional_select(&a.y, &b.y, choice),
            z: Fe::conditional_select(&a.z, &b.z, choice),
        }
    }
}

impl Jacobian {
    /// dbl-2001-b (a = -3), in place.
    fn double(&mut self) {
        let delta = self.z.square();
        let gamma = self.y.square();
        let beta = self.x * gamma;
        let alpha = (self.x - delta) * (self.x + delta);
        let alpha = alpha.double() + alpha;
        let beta4 = beta.double().double();
        let x = alpha.square() - beta4.double();
        let z = (self.y + self.z).square() - gamma - delta;
        let gamma_sq8 = gamma.square().double().double().double();
        self.y = alpha * (beta4 - x) - gamma_sq8;
        self.x = x;
        self.z = z;
    }

    fn to_projective(&self) -> Projective {
        // (X·Z, Y, Z³); at the identity (Z = 0) the Y of (0 : 1 : 0), in constant time.
        let z3 = self.z.square() * self.z;
        Projective {
            x: self.x * self.z,
            y: Fe::conditional_select(&self.y, &Fe::ONE, self.z.is_zero()),
            z: z3,
        }
    }
}

/// [1..8]·P, read in constant time.
struct Table([Projective; 8]);

impl Table {
    fn new(p: Projective) -> Self {
        let mut points = [p; 8];
        for i in 1..8 {
            points[i] = points[i - 1].add(&p);
        }
        Self(points)
    }

    /// digit·P for digit in [-8, 8], without a branch or an index that depends on it.
    /// Must stay branch-free: it mirrors primeorder's `LookupTable::select`, and review is
    /// what guards its constant time.
    fn select(&self, digit: i8) -> Projective {
        // Digits lie in [-8, 8], so `digit + negative` cannot overflow.
        debug_assert!((-8..=8).contains(&digit));
        let negative = digit >> 7;
        let magnitude = ((digit + negative) ^ negative) as u8;
        let mut point = Projective::IDENTITY;
        for (multiple, entry) in (1u8..).zip(&self.0) {
            point.conditional_assign(entry, magnitude.ct_eq(&multiple));
        }
        let negated = Projective {
            y: -point.y,
            ..point
        };
        point.conditional_assign(&negated, Choice::from((negative & 1) as u8));
        point
    }
}

/// The x-coordinate of `secret`·`public`, big-endian, zeroized when dropped. `public` is
/// never the identity where it comes from (a parsed public key), nor is the product: the
/// group has prime order and the scalar is non-zero. `ENGINE_FAULT` when the product is
/// not a finite point of the curve: the engine computed it wrong, and a wrong shared
/// secret must not pass for a bundle sealed to another key (`DECRYPTION_FAILED`).
// Not inlined into its callers: 160 B less gzip in the signing module, no slower.
#[inline(never)]
pub fn diffie_hellman(
    secret: &NonZeroScalar,
    public: &AffinePoint,
) -> Result<Zeroizing<FieldBytes>> {
    let affine = Projective {
        x: Fe::from_repr(public.x()).unwrap_or(Fe::ZERO),
        y: Fe::from_repr(public.y()).unwrap_or(Fe::ZERO),
        z: Fe::ONE,
    };
    let base = Projective::conditional_select(&affine, &Projective::IDENTITY, public.is_identity());
    let table = Table::new(base);
    let mut digits = Wiped::new([0i8; DIGITS]);
    radix16(secret.as_ref(), &mut digits);
    let top = DIGITS - 1;

    let mut sum = Wiped::new(table.select(digits[top]));
    for i in (0..top).rev() {
        let mut doubled = Wiped::new(sum.to_jacobian());
        for _ in 0..4 {
            doubled.double();
        }
        let selected = Wiped::new(table.select(digits[i]));
        *sum = doubled.to_projective().add(&selected);
        if i == DIGITS / 2 && crate::signing_key::fault::corrupts_shared_secret() {
            sum.x += Fe::ONE;
        }
    }
    Error::fault_unless(sum.is_finite_on_curve())?;
    let x = Wiped::new(sum.x * sum.z.invert().unwrap_or(Fe::ZERO));
    Ok(Zeroizing::new(x.to_repr()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_vectors::hex;
    use p256::elliptic_curve::ops::Reduce;
    use p256::elliptic_curve::sec1::ToSec1Point;
    use p256::{ProjectivePoint, Scalar, U256};
    use proptest::prelude::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn theirs(secret: &NonZeroScalar, public: &AffinePoint) -> FieldBytes {
        *p256::ecdh::diffie_hellman(*secret, public).raw_secret_bytes()
    }

    fn scalar(bytes: [u8; 32]) -> Option<NonZeroScalar> {
        NonZeroScalar::new(<Scalar as Reduce<U256>>::reduce(&U256::from_be_slice(
            &bytes,
        )))
        .into()
    }

    fn point(k: &NonZeroScalar) -> AffinePoint {
        (ProjectivePoint::GENERATOR * k.as_ref()).to_affine()
    }

    fn same(k: &NonZeroScalar, p: &AffinePoint) {
        assert_eq!(
            *diffie_hellman(k, p).unwrap(),
            theirs(k, p),
            "k = {:x?}, P = {:x?}",
            k.to_repr(),
            p.to_sec1_point(false).as_bytes()
        );
    }

    /// The scalars whose digits make the loop's addition meet the identity or equal
    /// points: small ones and ones near the group order (n - 2 adds P to itself in the
    /// last window), on three points; single bits on the generator.
    #[test]
    fn edge_scalars_agree_with_p256() {
        let minus_one = -Scalar::ONE;
        let bases = [
            AffinePoint::GENERATOR,
            (-ProjectivePoint::GENERATOR).to_affine(),
            point(&scalar([0x5a; 32]).unwrap()),
        ];
        for i in 1..=40u64 {
            for k in [Scalar::from(i), minus_one - Scalar::from(i - 1)] {
                let k = NonZeroScalar::new(k).unwrap();
                for p in &bases {
                    same(&k, p);
                }
            }
        }
        for bit in 0..256 {
            let mut bytes = [0u8; 32];
            bytes[31 - bit / 8] = 1 << (bit % 8);
            same(&scalar(bytes).unwrap(), &AffinePoint::GENERATOR);
        }
    }

    /// The published bundles' ECDH results (`dhSharedXHex`): the upstream SDK's and the
    /// deterministic seals of the shared research set.
    #[test]
    fn published_shared_secrets() {
        let v = crate::test_vectors::vectors("credential-bundles.json");
        let cases = v["upstream"]
            .as_array()
            .unwrap()
            .iter()
            .chain(v["deterministicSeals"].as_array().unwrap());
        let mut checked = 0;
        for case in cases {
            let d = &case["derivedIntermediates"];
            let k = hex(case["receiverPrivateKeyHex"].as_str().unwrap());
            let k = NonZeroScalar::try_from(&k[..]).unwrap();
            let enc = hex(d["encappedKeyUncompressedHex"].as_str().unwrap());
            let enc = p256::PublicKey::from_sec1_bytes(&enc).unwrap();
            let expected = hex(d["dhSharedXHex"].as_str().unwrap());
            assert_eq!(
                &diffie_hellman(&k, enc.as_affine()).unwrap()[..],
                &expected[..]
            );
            checked += 1;
        }
        assert_eq!(checked, 6);
    }

    /// A fault halfway through (the test-only injection) leaves the curve: `ENGINE_FAULT`,
    /// not a wrong shared secret; the next multiplication is right again.
    #[test]
    fn a_corrupted_accumulator_is_an_engine_fault() {
        let k = scalar([0x9c; 32]).unwrap();
        crate::signing_key::fault::corrupt_next_shared_secrets(1);
        let err = diffie_hellman(&k, &AffinePoint::GENERATOR).unwrap_err();
        assert_eq!(err.code(), crate::error::ErrorCode::EngineFault);
        same(&k, &AffinePoint::GENERATOR);
    }

    /// Natively, nothing used to clear the secret's digits.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn no_copy_of_the_digits_is_left_on_the_stack() {
        use crate::basepoint::tests::{left_on_stack, primeorder_digits};
        fn k() -> NonZeroScalar {
            scalar([0x9c; 32]).unwrap()
        }
        assert!(!left_on_stack(
            || {
                std::hint::black_box(diffie_hellman(&k(), &AffinePoint::GENERATOR).unwrap());
            },
            || primeorder_digits(&k())
        ));
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn random_scalars_and_points_agree_with_p256(k in any::<[u8; 32]>(), q in any::<[u8; 32]>()) {
            if let (Some(k), Some(q)) = (scalar(k), scalar(q)) {
                same(&k, &point(&q));
            }
        }
    }
}

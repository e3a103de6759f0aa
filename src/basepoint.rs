//! k·G for a secret k: the public half of a key and the R of a signature, faster in wasm
//! than p256's `precomputed-tables` for the same constant-time schedule.
//!
//! Why it exists (measured): a key generation spent 92% of its time in
//! primeorder's `BasepointTable::mul`, 73% of that in its projective additions. This table
//! holds the same multiples of G in affine coordinates, so each of the 65 additions is
//! primeorder's complete *mixed* addition (Renes-Costello-Batina, eprint 2015/1060,
//! algorithm 5: right for every input, the identity included) and each constant-time
//! select reads two coordinates instead of three.
//!
//! Same schedule as primeorder's table: its signed radix-16 digits d₀…d₆₄ of k; window i
//! holds [1..8]·2⁸ⁱG; the even digits add into one sum and the odd ones into another,
//! which is multiplied by 16 at the end. Built once (on first use, or by the bindings'
//! warm-up in idle time) and kept: 33 × 8 public points. The arithmetic is p256's own.
//! Checked against p256 (the tests below, `signing_key`'s, and the fuzz target
//! `basepoint_differential`); its constant time under valgrind (tests/ct).
//!
//! k's digits and the two sums are zeroized when dropped natively ([`Wiped`]): a nonce's
//! give the key away.

use crate::prelude::*;
use once_cell::race::OnceBox;
use p256::elliptic_curve::array::typenum::Unsigned;
use p256::elliptic_curve::group::{Curve as _, Group as _};
use p256::elliptic_curve::subtle::{Choice, ConditionallySelectable, ConstantTimeEq};
use p256::elliptic_curve::PrimeField;
use p256::{AffinePoint, NistP256, ProjectivePoint, PublicKey, Scalar, SecretKey};
use primeorder::Radix16Digits;

/// Signed radix-16 digits of a P-256 scalar: 64 nibbles and a carry.
pub(crate) const DIGITS: usize = <Radix16Digits<NistP256> as Unsigned>::USIZE;
/// One window per pair of digits, and one for the carry.
const WINDOWS: usize = DIGITS / 2 + 1;
/// [1..8] times each window's base.
const MULTIPLES: usize = 8;

/// [1..8]·2⁸ⁱG for each window i, affine.
struct Table([[AffinePoint; MULTIPLES]; WINDOWS]);

static TABLE: OnceBox<Table> = OnceBox::new();

impl Table {
    fn build() -> Self {
        let mut projective = Vec::with_capacity(WINDOWS * MULTIPLES);
        let mut base = ProjectivePoint::GENERATOR;
        for _ in 0..WINDOWS {
            let mut multiple = base;
            for _ in 0..MULTIPLES {
                projective.push(multiple);
                multiple += base;
            }
            for _ in 0..8 {
                base = base.double();
            }
        }
        // One inversion for all of them (Montgomery's trick).
        let mut affine = vec![AffinePoint::IDENTITY; projective.len()];
        ProjectivePoint::batch_normalize(&projective, &mut affine);
        let mut windows = [[AffinePoint::IDENTITY; MULTIPLES]; WINDOWS];
        for (window, points) in windows.iter_mut().zip(affine.chunks_exact(MULTIPLES)) {
            window.copy_from_slice(points);
        }
        Self(windows)
    }

    /// digit·2⁸ⁱG for digit in [-8, 8], without a branch or an index that depends on it.
    /// Must stay branch-free: it mirrors primeorder's `LookupTable::select`, and review is
    /// what guards its constant time.
    fn select(&self, window: usize, digit: i8) -> AffinePoint {
        // Digits lie in [-8, 8], so `digit + negative` cannot overflow.
        debug_assert!((-8..=8).contains(&digit));
        let negative = digit >> 7;
        let magnitude = ((digit + negative) ^ negative) as u8;
        let mut point = AffinePoint::IDENTITY;
        for (multiple, entry) in (1u8..).zip(&self.0[window]) {
            point.conditional_assign(entry, magnitude.ct_eq(&multiple));
        }
        let negated = -point;
        point.conditional_assign(&negated, Choice::from((negative & 1) as u8));
        point
    }
}

fn table() -> &'static Table {
    TABLE.get_or_init(|| Box::new(Table::build()))
}

/// A secret temporary of the scalar multiplications (here and in `ecdh`: the scalar's
/// digits, the sums), zeroized when dropped natively. Not in wasm, where each wipe costs
/// bytes on every page and adds nothing: the bindings' stack scrub
/// (`ewk_common::scrubbed`) wipes the same memory on the same normal return (nothing else
/// runs during the call), and neither runs on a trap.
#[cfg(not(target_arch = "wasm32"))]
pub(crate) type Wiped<T> = zeroize::Zeroizing<T>;
#[cfg(target_arch = "wasm32")]
pub(crate) type Wiped<T> = Unwiped<T>;

/// [`Wiped`] in wasm: the value, as it is.
#[cfg(target_arch = "wasm32")]
pub(crate) struct Unwiped<T>(T);

#[cfg(target_arch = "wasm32")]
impl<T> Unwiped<T> {
    pub(crate) fn new(value: T) -> Self {
        Self(value)
    }
}

#[cfg(target_arch = "wasm32")]
impl<T> core::ops::Deref for Unwiped<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.0
    }
}

#[cfg(target_arch = "wasm32")]
impl<T> core::ops::DerefMut for Unwiped<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.0
    }
}

/// Writes k's signed radix-16 digits into `digits`, least significant first, each in
/// [-8, 8], without a branch: primeorder's `Radix16Decomposition`, which keeps them where
/// nothing can wipe them. Written in place, into the caller's [`Wiped`], so that no copy
/// of them is left behind.
pub(crate) fn radix16(k: &Scalar, digits: &mut [i8; DIGITS]) {
    let bytes = Wiped::new(k.to_repr());
    for i in 0..DIGITS / 2 {
        let byte = bytes[bytes.len() - 1 - i];
        digits[2 * i] = (byte & 0xf) as i8;
        digits[2 * i + 1] = (byte >> 4) as i8;
    }
    digits[DIGITS - 1] = 0;
    // Recentre [0, 16) to [-8, 8): carry 1 into the next digit from every digit >= 8.
    for i in 0..DIGITS - 1 {
        let carry = (digits[i] + 8) >> 4;
        digits[i] -= carry << 4;
        digits[i + 1] += carry;
    }
}

/// k·G, in constant time.
pub fn mul_generator(k: &Scalar) -> ProjectivePoint {
    let table = table();
    let mut digits = Wiped::new([0i8; DIGITS]);
    radix16(k, &mut digits);
    let top = WINDOWS - 1;
    let mut even = Wiped::new(ProjectivePoint::IDENTITY + table.select(top, digits[2 * top]));
    let mut odd = Wiped::new(ProjectivePoint::IDENTITY);
    for i in (0..top).rev() {
        *odd += table.select(i, digits[2 * i + 1]);
        *even += table.select(i, digits[2 * i]);
    }
    for _ in 0..4 {
        *odd = odd.double();
    }
    *even + *odd
}

/// The public key of `secret`. Never the identity (the scalar is not zero and the group
/// has prime order): an identity is a fault in the arithmetic, reported as
/// `ENGINE_FAULT` rather than hidden behind another multiplication.
pub(crate) fn public_key(secret: &SecretKey) -> crate::Result<PublicKey> {
    let point = mul_generator(secret.to_nonzero_scalar().as_ref()).to_affine();
    PublicKey::from_affine(point).map_err(|_| crate::Error::engine_fault())
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use p256::elliptic_curve::ops::Reduce;
    use p256::elliptic_curve::Generate as _;
    use p256::FieldBytes;
    use primeorder::Radix16Decomposition;

    /// primeorder's digits of k, as bytes: what [`radix16`] must compute, and what no
    /// stack frame may keep.
    pub(crate) fn primeorder_digits(k: &Scalar) -> Vec<u8> {
        let digits = Radix16Decomposition::<Radix16Digits<NistP256>>::new(k);
        (0..DIGITS).map(|i| digits[i] as u8).collect()
    }

    /// Whether a stack frame that `run` (never inlined, so its frames lie just below this
    /// one's) left behind still holds `needle(...)`, computed only after the stack is read.
    #[cfg(not(target_arch = "wasm32"))]
    pub(crate) fn left_on_stack(run: fn(), needle: impl FnOnce() -> Vec<u8>) -> bool {
        #[inline(never)]
        fn stack_below() -> Vec<u8> {
            let area = core::mem::MaybeUninit::<[u8; 1 << 16]>::uninit();
            let start = area.as_ptr().cast::<u8>();
            // SAFETY: within `area`; volatile, so the bytes are read as the earlier frames
            // left them (what this test is about) rather than assumed uninitialised.
            (0..1 << 16)
                .map(|i| unsafe { core::ptr::read_volatile(start.add(i)) })
                .collect()
        }
        std::hint::black_box(run)();
        let stack = stack_below();
        let needle = needle();
        stack.windows(needle.len()).any(|w| w == needle)
    }

    fn random_secret() -> SecretKey {
        SecretKey::try_generate_from_rng(&mut getrandom::SysRng).unwrap()
    }

    fn oracle(k: &Scalar) -> AffinePoint {
        (ProjectivePoint::GENERATOR * k).to_affine()
    }

    #[test]
    fn edge_scalars_match_p256() {
        let mut scalars = vec![Scalar::ZERO, Scalar::ONE, -Scalar::ONE, Scalar::from(2u64)];
        // Every digit at its extremes: 0x88…8 makes each signed digit -8 and 0x77…7 +7.
        for byte in [0x88u8, 0x77, 0xff, 0x80, 0x08, 0x01] {
            scalars.push(Scalar::reduce(&FieldBytes::from([byte; 32])));
        }
        // Powers of two (2²⁵⁵ < n), one digit boundary and window boundary each.
        for bit in [1usize, 4, 8, 64, 128, 252, 255] {
            let mut bytes = [0u8; 32];
            bytes[31 - bit / 8] = 1 << (bit % 8);
            scalars.push(Scalar::reduce(&FieldBytes::from(bytes)));
        }
        for k in scalars {
            assert_eq!(mul_generator(&k).to_affine(), oracle(&k), "k = {k:?}");
        }
    }

    #[test]
    fn random_scalars_match_p256() {
        for _ in 0..200 {
            let k = *random_secret().to_nonzero_scalar();
            assert_eq!(mul_generator(&k).to_affine(), oracle(&k));
        }
    }

    #[test]
    fn digits_match_primeorder() {
        let mut scalars = vec![Scalar::ZERO, Scalar::ONE, -Scalar::ONE];
        for byte in [0x88u8, 0x77, 0xff, 0x80, 0x08] {
            scalars.push(Scalar::reduce(&FieldBytes::from([byte; 32])));
        }
        scalars.extend((0..100).map(|_| *random_secret().to_nonzero_scalar()));
        for k in scalars {
            let mut digits = [0i8; DIGITS];
            radix16(&k, &mut digits);
            let ours: Vec<u8> = digits.iter().map(|d| *d as u8).collect();
            assert_eq!(ours, primeorder_digits(&k), "k = {k:?}");
        }
    }

    /// Natively, nothing used to clear k's digits (a nonce's give the key away).
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn no_copy_of_the_digits_is_left_on_the_stack() {
        const K: [u8; 32] = [0x9c; 32];
        fn k() -> Scalar {
            Scalar::reduce(&FieldBytes::from(K))
        }
        assert!(!left_on_stack(
            || {
                std::hint::black_box(mul_generator(&k()));
            },
            || primeorder_digits(&k())
        ));
    }

    #[test]
    fn public_keys_match_p256() {
        for _ in 0..50 {
            let secret = random_secret();
            assert_eq!(public_key(&secret).unwrap(), secret.public_key());
        }
    }
}

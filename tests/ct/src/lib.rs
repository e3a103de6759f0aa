//! Marks memory secret or public for valgrind's memcheck (the ctgrind technique): a byte
//! marked secret is "undefined", so memcheck reports every conditional jump and every
//! memory address that depends on it; the binaries of this crate run the kit's secret
//! operations that way (`make test-ct`, tests/ct/run.sh). Outside valgrind both are no-ops.

// A native test crate: it may format (clippy.toml bans it in the shipped code only).
#![allow(clippy::disallowed_macros)]

use core::mem::size_of_val;

mod shim {
    unsafe extern "C" {
        pub(crate) fn ewk_ct_secret(p: *const u8, n: usize);
        pub(crate) fn ewk_ct_public(p: *const u8, n: usize);
        pub(crate) fn ewk_ct_vbits(p: *const u8, bits: *mut u8, n: usize) -> i32;
    }
}

/// From here on, the bytes of `value` are secret: memcheck reports what depends on them.
pub fn secret<T: ?Sized>(value: &T) {
    // SAFETY: the client request only changes memcheck's shadow state of these bytes; it
    // reads and writes none of them.
    unsafe { shim::ewk_ct_secret((value as *const T).cast(), size_of_val(value)) }
}

/// The bytes of `value` are public (an output the protocol reveals): declassified.
pub fn public<T: ?Sized>(value: &T) {
    // SAFETY: as in `secret`.
    unsafe { shim::ewk_ct_public((value as *const T).cast(), size_of_val(value)) }
}

/// Whether any byte of `value` is secret (derived from a byte marked secret, as memcheck
/// tracks it), without a report: what shows that a secret reached an output. Panics
/// outside valgrind, where nothing can be checked.
pub fn is_secret<T: ?Sized>(value: &T) -> bool {
    let n = size_of_val(value);
    let mut bits = vec![0u8; n];
    // SAFETY: `bits` has room for the n bytes of definedness the request writes; the
    // request reads only memcheck's shadow state of `value`.
    let answer = unsafe { shim::ewk_ct_vbits((value as *const T).cast(), bits.as_mut_ptr(), n) };
    assert_eq!(
        answer, 1,
        "not under valgrind's memcheck: run tests/ct/run.sh"
    );
    bits.iter().any(|b| *b != 0)
}

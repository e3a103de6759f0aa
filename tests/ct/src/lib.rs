//! Marks memory secret or public for valgrind's memcheck (the ctgrind technique): a byte
//! marked secret is "undefined", so memcheck reports every conditional jump and every
//! memory address that depends on it; the binaries of this crate run the kit's secret
//! operations that way (`make test-ct`, tests/ct/run.sh). Outside valgrind both are no-ops.

use core::mem::size_of_val;

mod shim {
    unsafe extern "C" {
        pub(crate) fn ewk_ct_secret(p: *const u8, n: usize);
        pub(crate) fn ewk_ct_public(p: *const u8, n: usize);
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

//! The start-up self-test: before a wasm module's `init()` resolves, it checks
//! on fixed inputs that this engine computes the kit's arithmetic right: a public key
//! (k·G on the kit's table), a bundle opened (ECDH on the kit's code, HKDF, AES-GCM) to the
//! session key it holds, and a signature by that key, verified before release. The fixed
//! answers come from independent peers (@noble/curves for the keys, @turnkey/crypto sealed
//! the bundle); a mismatch is `ENGINE_FAULT`, and the module is not used.

use crate::bundle::Bundle;
use crate::error::{Error, ErrorCode, Result};
use crate::public_key::compressed_hex;
use crate::signing_key::SigningKey;
use p256::SecretKey;

/// SHA-256 of "embedded-wallet-kit self-test key": a throwaway key, public like the rest.
const KEY: [u8; 32] = [
    0xb4, 0x94, 0xc3, 0x75, 0x55, 0x14, 0x21, 0x0f, 0x17, 0x57, 0x5e, 0x06, 0x11, 0x7a, 0x85, 0xf2,
    0x14, 0xd8, 0x2f, 0xbc, 0x47, 0x26, 0x7f, 0x82, 0x8e, 0xab, 0x88, 0xff, 0xc3, 0x4b, 0x20, 0x95,
];
/// Its public key, compressed (@noble/curves).
const KEY_PUBLIC: &str = "032d8691a134daee35c6499ca741539a8f7191230e7e5db1ba75b1647afa74645b";
/// A session key (SHA-256 of "embedded-wallet-kit self-test session") sealed to `KEY` by
/// @turnkey/crypto.
const BUNDLE: &str = "iaeg4P2UeG9dM2pKBjvD9ykHuJzS7DBi5g1MyCunDEm1miM7Qmb1GdwCompjRgrQc8y1utGYm7zAdjR2gd59HChXkwtrUVLhjGnXuNHwYL3c1kxVwq1";
/// The sealed session key's public key, compressed (@noble/curves).
const SESSION_PUBLIC: &str = "03dcf91b32290516cc7c7b97243272ce39b1d337024e60471ae7b93043a287fa73";

/// Runs the self-test: `Ok` when this engine computed every fixed answer, else
/// `ENGINE_FAULT` naming the step that failed.
pub fn self_test() -> Result<()> {
    let fault = |step: &str| {
        Error::new(
            ErrorCode::EngineFault,
            [
                "this engine failed the kit's start-up self-test (",
                step,
                "): its WebAssembly is not computed correctly here; reload the page",
            ]
            .concat(),
        )
    };
    let key = SecretKey::from_slice(&KEY).map_err(|_| fault("the test key"))?;
    let signer = SigningKey::new(key.clone()).map_err(|_| fault("k·G"))?;
    if compressed_hex(signer.public_key()) != KEY_PUBLIC {
        return Err(fault("k·G"));
    }
    let opened = Bundle::decode(BUNDLE)
        .and_then(|bundle| bundle.open_for(&key, signer.public_key()))
        .map_err(|_| fault("opening a bundle"))?;
    let session = SecretKey::from_slice(&opened).map_err(|_| fault("opening a bundle"))?;
    let session = SigningKey::new(session).map_err(|_| fault("k·G"))?;
    if compressed_hex(session.public_key()) != SESSION_PUBLIC {
        return Err(fault("opening a bundle"));
    }
    // Verified before it is released: a wrong signature is ENGINE_FAULT from `sign`.
    session
        .sign(b"embedded-wallet-kit self-test")
        .map_err(|_| fault("a signature"))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn passes_on_a_correct_engine() {
        self_test().unwrap();
    }

    /// The test-only fault injection corrupts the self-test's signature: ENGINE_FAULT.
    #[cfg(not(target_arch = "wasm32"))]
    #[test]
    fn a_wrong_signature_fails_it_with_engine_fault() {
        crate::signing_key::fault::corrupt_next_signatures(1);
        let err = self_test().unwrap_err();
        assert_eq!(err.code(), ErrorCode::EngineFault);
        assert!(err.message().contains("(a signature)"), "{}", err.message());
        self_test().unwrap();
    }

    #[test]
    fn the_fixed_answers_are_p256s() {
        let key = SecretKey::from_slice(&KEY).unwrap();
        assert_eq!(compressed_hex(&key.public_key()), KEY_PUBLIC);
    }
}

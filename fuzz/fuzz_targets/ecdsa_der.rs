#![no_main]
//! The hand-written DER of ECDSA signatures against the `der`-based one in p256: both
//! must accept exactly the same byte strings, decode them to the same signature, and
//! encode every signature to the same bytes.
use embedded_wallet_kit::fuzzing::ecdsa_der;
use p256::ecdsa::Signature;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let ours = ecdsa_der::decode(data);
    assert_eq!(ours, Signature::from_der(data).ok(), "decoders disagree");
    if let Some(signature) = ours {
        assert_eq!(ecdsa_der::encode(&signature).as_bytes(), data, "not canonical");
    }
    // Any 64 bytes that make a signature (P1363, as WebCrypto gives) encode alike.
    if let Some(p1363) = data.get(..64) {
        if let Ok(signature) = Signature::from_slice(p1363) {
            let theirs = signature.to_der();
            assert_eq!(ecdsa_der::encode(&signature).as_bytes(), theirs.as_bytes());
            assert_eq!(ecdsa_der::decode(theirs.as_bytes()), Some(signature));
        }
    }
});

#![no_main]
//! Differential HPKE (DHKEM(P-256, HKDF-SHA256), HKDF-SHA256, AES-256-GCM, base mode):
//! the kit's seal and open against the hpke crate's, on libFuzzer-chosen keys, plaintext,
//! info and aad. Both directions must open to the plaintext (ours seals → hpke opens;
//! hpke seals → ours opens), and after a mutation of enc, ciphertext, info, aad or
//! recipient both must fail, or both succeed with the same plaintext.
use embedded_wallet_kit::fuzzing::{open, seal};
use embedded_wallet_kit::ErrorCode;
use p256::elliptic_curve::sec1::ToSec1Point;
use p256::{PublicKey, SecretKey};
use hpke::{Deserializable, Serializable};
use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;

type Kem = hpke::kem::DhP256HkdfSha256;
type Aead = hpke::aead::AesGcm256;
type Kdf = hpke::kdf::HkdfSha256;

#[derive(Arbitrary, Debug)]
enum Mutation {
    None,
    FlipCiphertextBit { index: u16, bit: u8 },
    TruncateCiphertext { len: u16 },
    ExtendCiphertext(Vec<u8>),
    FlipEncBit { index: u8, bit: u8 },
    ReplaceEnc([u8; 65]),
    Info(Vec<u8>),
    Aad(Option<Vec<u8>>),
    OtherRecipient([u8; 32]),
}

#[derive(Arbitrary, Debug)]
struct Input {
    recipient: [u8; 32],
    ephemeral: [u8; 32],
    hpke_seals: bool,
    plaintext: Vec<u8>,
    /// `None`: the kit's info, `turnkey_hpke`.
    info: Option<Vec<u8>>,
    /// `None`: the wire format's aad, enc ‖ pkR.
    aad: Option<Vec<u8>>,
    mutations: Vec<Mutation>,
}

/// A replayable byte stream for hpke's sender (its ephemeral key is drawn from it), so a
/// crash reproduces from its input alone.
struct SeededRng(u64);
impl rand_core::TryRng for SeededRng {
    type Error = core::convert::Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
        Ok(self.try_next_u64()? as u32)
    }
    fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
        // splitmix64: not for secrets, only a reproducible stream.
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        Ok(z ^ (z >> 31))
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
        for chunk in dst.chunks_mut(8) {
            let word = self.try_next_u64()?.to_le_bytes();
            chunk.copy_from_slice(&word[..chunk.len()]);
        }
        Ok(())
    }
}
impl rand_core::TryCryptoRng for SeededRng {}

fn uncompressed(key: &PublicKey) -> Vec<u8> {
    key.to_sec1_point(false).as_bytes().to_vec()
}

fn hpke_seal(recipient: &PublicKey, plaintext: &[u8], info: &[u8], aad: &[u8], seed: u64) -> (Vec<u8>, Vec<u8>) {
    let pk = <Kem as hpke::Kem>::PublicKey::from_bytes(&uncompressed(recipient)).expect("a valid point");
    let (enc, ct) = hpke::single_shot_seal_with_rng::<Aead, Kdf, Kem>(
        &hpke::OpModeS::Base,
        &pk,
        info,
        plaintext,
        aad,
        &mut SeededRng(seed),
    )
    .expect("hpke seals");
    (enc.to_bytes().to_vec(), ct)
}

fn hpke_open(recipient: &SecretKey, enc: &[u8], ciphertext: &[u8], info: &[u8], aad: &[u8]) -> Option<Vec<u8>> {
    let sk = <Kem as hpke::Kem>::PrivateKey::from_bytes(&recipient.to_bytes()).ok()?;
    let enc = <Kem as hpke::Kem>::EncappedKey::from_bytes(enc).ok()?;
    hpke::single_shot_open::<Aead, Kdf, Kem>(&hpke::OpModeR::Base, &sk, &enc, info, ciphertext, aad).ok()
}

/// Ours, from the raw enc bytes (the same 65-byte uncompressed encoding hpke reads).
fn our_open(recipient: &SecretKey, enc: &[u8], ciphertext: &[u8], info: &[u8], aad: Option<&[u8]>) -> Option<Vec<u8>> {
    if enc.len() != 65 {
        return None; // hpke reads only the uncompressed form; compare like with like
    }
    let enc = PublicKey::from_sec1_bytes(enc).ok()?;
    match open(recipient, &enc, ciphertext, info, aad) {
        Ok(plaintext) => Some(plaintext.to_vec()),
        Err(e) => {
            assert_eq!(e.code(), ErrorCode::DecryptionFailed, "{e}");
            None
        }
    }
}

fuzz_target!(|input: Input| {
    let (Ok(recipient), Ok(eph)) = (SecretKey::from_slice(&input.recipient), SecretKey::from_slice(&input.ephemeral)) else {
        return; // zero or not below the group order: not a key
    };
    // hpke panics on an info of 2^16 - 5 bytes or more; no real info is near that.
    let mut info = input.info.unwrap_or_else(|| b"turnkey_hpke".to_vec());
    info.truncate(4096);
    let recipient_public = recipient.public_key();
    let plaintext = &input.plaintext;
    let aad = input.aad.as_deref();

    let (mut enc, mut ciphertext) = if input.hpke_seals {
        let seed = u64::from_le_bytes(input.ephemeral[..8].try_into().expect("8 bytes"));
        // hpke takes the aad explicitly; the wire format's depends on enc, which the same
        // seed gives again.
        let explicit = match aad {
            Some(a) => a.to_vec(),
            None => [hpke_seal(&recipient_public, b"", &info, b"", seed).0, uncompressed(&recipient_public)].concat(),
        };
        hpke_seal(&recipient_public, plaintext, &info, &explicit, seed)
    } else {
        let (enc, ct) = seal(&eph, &recipient_public, plaintext, &info, aad).expect("ours seals");
        (uncompressed(&enc), ct)
    };

    let wire_aad = [&enc[..], &uncompressed(&recipient_public)].concat();
    assert_eq!(our_open(&recipient, &enc, &ciphertext, &info, aad).as_deref(), Some(&plaintext[..]), "ours opens");
    assert_eq!(
        hpke_open(&recipient, &enc, &ciphertext, &info, aad.unwrap_or(&wire_aad)).as_deref(),
        Some(&plaintext[..]),
        "hpke opens"
    );

    let mut aad = input.aad.clone();
    let mut receiver = recipient;
    let mut mutated = false;
    for m in &input.mutations {
        match m {
            Mutation::None => {}
            Mutation::FlipCiphertextBit { index, bit } => {
                if let Some(len) = core::num::NonZeroUsize::new(ciphertext.len()) {
                    ciphertext[usize::from(*index) % len] ^= 1 << (bit % 8);
                }
            }
            Mutation::TruncateCiphertext { len } => ciphertext.truncate(usize::from(*len)),
            Mutation::ExtendCiphertext(more) => ciphertext.extend_from_slice(more),
            Mutation::FlipEncBit { index, bit } => enc[usize::from(*index) % 65] ^= 1 << (bit % 8),
            Mutation::ReplaceEnc(bytes) => enc = bytes.to_vec(),
            Mutation::Info(other) => info = other.iter().copied().take(4096).collect(),
            Mutation::Aad(other) => aad = other.clone(),
            Mutation::OtherRecipient(seed) => match SecretKey::from_slice(seed) {
                Ok(other) => receiver = other,
                Err(_) => continue,
            },
        }
        mutated |= !matches!(m, Mutation::None);
    }
    // Ours authenticates enc ‖ pkR of what it opens with; hpke is given the same bytes.
    let wire_aad = [&enc[..], &uncompressed(&receiver.public_key())].concat();
    let ours = our_open(&receiver, &enc, &ciphertext, &info, aad.as_deref());
    let theirs = hpke_open(&receiver, &enc, &ciphertext, &info, aad.as_deref().unwrap_or(&wire_aad));
    assert_eq!(ours, theirs, "ours and hpke disagree after {:?}", input.mutations);
    if !mutated {
        assert_eq!(ours.as_deref(), Some(&plaintext[..]));
    }
});

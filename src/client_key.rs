//! The ephemeral P-256 client key whose public half the service seals the session key to.
//!
//! One key per verify/challenge/refresh: opening a bundle consumes it, and a
//! second use is `KEY_CONSUMED`. The private scalar never leaves this type; it is
//! zeroized when the key is consumed or dropped (`p256::SecretKey` zeroizes on drop).

use crate::prelude::*;
use p256::elliptic_curve::Generate;
use p256::{PublicKey, SecretKey};

use crate::codec::sha256_hex;
use crate::error::{Error, ErrorCode, Result};
use crate::public_key::{compressed_hex, uncompressed_hex};
use crate::request_ids::SignedRequestIds;
use crate::timestamp::UnixMillis;

/// Which SEC1 form of the public key is sent as `clientPublicKey`: uncompressed (130 hex,
/// a sealed session bundle) or compressed (66 hex, the client-held session key of newer
/// deployments). The OIDC nonce hashes the string that is sent.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum KeyForm {
    /// `04…`, 130 hex characters.
    #[default]
    Uncompressed,
    /// `02…`/`03…`, 66 hex characters.
    Compressed,
}

/// An ephemeral P-256 key pair, generated from the platform's secure randomness.
pub struct ClientKey {
    secret: Option<SecretKey>,
    public: PublicKey,
    /// The requestIds this key signed as the OTP login's TEK
    /// ([`crate::enclave::sign_with_tek`]); its session inherits them
    /// ([`ClientKey::take_signed_requests`]), so one key signs each id once.
    signed_requests: SignedRequestIds,
    /// A signature made with this key as the TEK did not verify, or its ECDH was faulty:
    /// the secret is gone and every use is `ENGINE_FAULT` (not `KEY_CONSUMED`).
    poisoned: bool,
}

impl core::fmt::Debug for ClientKey {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("ClientKey")
            .field("public_key", &self.public_key_hex())
            .field("consumed", &self.is_consumed())
            .finish_non_exhaustive()
    }
}

impl ClientKey {
    /// Generates a fresh key from the platform CSPRNG (`crypto.getRandomValues` in browsers).
    pub fn generate() -> Result<Self> {
        let secret = SecretKey::try_generate_from_rng(&mut getrandom::SysRng).map_err(|_| {
            Error::new(
                ErrorCode::RandomnessUnavailable,
                "the platform's secure random number generator failed",
            )
        })?;
        Self::from_secret(secret)
    }

    /// Wraps an existing secret key (tests, and keys restored from a store).
    /// `ENGINE_FAULT` if the engine computes a wrong public key for it.
    pub fn from_secret(secret: SecretKey) -> Result<Self> {
        let public = crate::basepoint::public_key(&secret)?;
        Ok(Self {
            secret: Some(secret),
            public,
            signed_requests: SignedRequestIds::default(),
            poisoned: false,
        })
    }

    /// `clientPublicKey`: uncompressed SEC1, lowercase hex, 130 characters, `04…`.
    pub fn public_key_hex(&self) -> String {
        uncompressed_hex(&self.public)
    }

    /// Compressed SEC1, lowercase hex, 66 characters (`02…`/`03…`).
    pub fn compressed_public_key_hex(&self) -> String {
        compressed_hex(&self.public)
    }

    /// The public key.
    pub fn public_key(&self) -> &PublicKey {
        &self.public
    }

    /// The public key as hex in `form`.
    pub fn public_key_hex_for_form(&self, form: KeyForm) -> String {
        match form {
            KeyForm::Uncompressed => self.public_key_hex(),
            KeyForm::Compressed => self.compressed_public_key_hex(),
        }
    }

    /// The OAUTH `nonce`: lowercase hex SHA-256 of the ASCII `publicKeyHex` string
    /// (not of the decoded key bytes).
    pub fn oidc_nonce(&self) -> String {
        self.oidc_nonce_for_form(KeyForm::Uncompressed)
    }

    /// The OAUTH `nonce` when the key is sent in `form`: the hash of that exact string
    /// (the compressed one in the client-held flow).
    pub fn oidc_nonce_for_form(&self, form: KeyForm) -> String {
        oidc_nonce_for(&self.public_key_hex_for_form(form))
    }

    /// Whether a bundle was already opened with this key.
    pub fn is_consumed(&self) -> bool {
        self.secret.is_none()
    }

    /// `KEY_CONSUMED` when the key was already used.
    pub fn check_unused(&self) -> Result<()> {
        self.secret().map(|_| ())
    }

    /// Borrows the secret for a use that may fail; [`ClientKey::consume`] ends its life.
    pub(crate) fn secret(&self) -> Result<&SecretKey> {
        if self.poisoned {
            return Err(crate::Error::engine_fault());
        }
        self.secret.as_ref().ok_or_else(|| {
            Error::new(
                ErrorCode::KeyConsumed,
                "this ClientKey was already used to open a session; generate a new one for each verify, challenge or refresh",
            )
        })
    }

    /// The private key in PKCS#8 DER, for `crypto.subtle.importKey` into a non-extractable
    /// WebCrypto key (the npm package's session store keeps a client key so across an
    /// OAUTH redirect). `KEY_CONSUMED` once used. Secret: wiped when dropped.
    pub fn key_pkcs8(&self) -> Result<zeroize::Zeroizing<Vec<u8>>> {
        self.secret()
            .map(|secret| crate::webcrypto::pkcs8_der(secret, &self.public))
    }

    /// Drops (and so zeroizes) the secret now: the key has done its one job, or is given
    /// up. Later uses get `KEY_CONSUMED`.
    pub fn consume(&mut self) {
        self.secret = None;
    }

    /// Wipes the key after a faulty signature or ECDH: every later use is `ENGINE_FAULT`.
    pub(crate) fn poison(&mut self) {
        self.consume();
        self.poisoned = true;
    }

    /// Records `request_id` as signed by this key at `now` (see [`SignedRequestIds::record`]).
    pub(crate) fn record_signed_request(
        &mut self,
        request_id: &str,
        now: UnixMillis,
    ) -> Result<()> {
        self.signed_requests.record(request_id, now)
    }

    /// Hands the requestIds this key signed to the session it becomes.
    pub(crate) fn take_signed_requests(&mut self) -> SignedRequestIds {
        core::mem::take(&mut self.signed_requests)
    }

    /// Takes the secret out, consuming the key (client-held session keys). A copy, then
    /// [`ClientKey::consume`]: `Option::take` would leave the scalar's bytes behind in this
    /// key's memory, unzeroized, for as long as the key lives.
    pub(crate) fn take_secret(&mut self) -> Result<SecretKey> {
        let secret = self.secret()?.clone();
        self.consume();
        Ok(secret)
    }
}

/// The OIDC nonce for a `clientPublicKey` string: lowercase hex SHA-256 of its ASCII bytes.
pub fn oidc_nonce_for(client_public_key_hex: &str) -> String {
    sha256_hex(client_public_key_hex.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::hex_encode;
    use crate::test_vectors::{hex, vectors};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn generated_key_has_both_forms() {
        let key = ClientKey::generate().unwrap();
        let full = key.public_key_hex();
        let short = key.compressed_public_key_hex();
        assert_eq!(full.len(), 130);
        assert!(full.starts_with("04"));
        assert!(full
            .bytes()
            .all(|c| c.is_ascii_digit() || (b'a'..=b'f').contains(&c)));
        assert_eq!(short.len(), 66);
        assert!(short.starts_with("02") || short.starts_with("03"));
        assert_eq!(full[2..66], short[2..]);
        let other = ClientKey::generate().unwrap();
        assert_ne!(
            other.public_key_hex(),
            full,
            "two keys from the CSPRNG collided"
        );
    }

    #[test]
    fn oidc_nonce_hashes_the_hex_string() {
        let key = ClientKey::generate().unwrap();
        let expected = sha256_hex(key.public_key_hex().as_bytes());
        assert_eq!(key.oidc_nonce(), expected);
        assert_eq!(key.oidc_nonce().len(), 64);
        // Not the hash of the decoded bytes.
        assert_ne!(key.oidc_nonce(), sha256_hex(&hex(&key.public_key_hex())));
    }

    #[test]
    fn oidc_nonce_of_the_published_doc_key() {
        // protocol notes §4: the doc key's nonce, as the service's own snippet computes it.
        assert_eq!(
            oidc_nonce_for("04f45f2a22c908b9ce09a7150e514afd24627c401c38a4afc164e1ea783adaaa31d4245acfb88c2ebd42b47628d63ecabf345484f0a9f665b63c54c897d5578be2"),
            "4b291f88b726d517661ed1a509fd2d8f7a006d1c377d876fec09de6997ba8066"
        );
    }

    #[test]
    fn oidc_nonce_hashes_the_form_that_is_sent() {
        use sha2::Digest as _;
        let key = ClientKey::from_secret(SecretKey::from_slice(&[0x2a; 32]).unwrap()).unwrap();
        // Computed here with sha2 directly, not with the kit's sha256_hex.
        let sha256 = |text: &str| hex_encode(&sha2::Sha256::digest(text.as_bytes()));
        let compressed = key.oidc_nonce_for_form(KeyForm::Compressed);
        assert_eq!(compressed, sha256(&key.compressed_public_key_hex()));
        assert_eq!(
            key.oidc_nonce_for_form(KeyForm::Uncompressed),
            sha256(&key.public_key_hex())
        );
        assert_eq!(
            key.oidc_nonce(),
            key.oidc_nonce_for_form(KeyForm::Uncompressed),
            "the form-less nonce stays the uncompressed one"
        );
        assert_ne!(compressed, key.oidc_nonce());
        assert_eq!(compressed.len(), 64);
        assert_eq!(key.public_key_hex_for_form(KeyForm::Compressed).len(), 66);
    }

    #[test]
    fn pkcs8_vector_holds_the_raw_scalar_and_its_public_key() {
        // WebCrypto's pkcs8 export layout: scalar at 36..68, public point in the last 65 bytes.
        let v = vectors("encodings.json");
        let der = hex(v["pkcs8"]["pkcs8Hex"].as_str().unwrap());
        let raw = hex(v["pkcs8"]["rawPrivateKeyHex"].as_str().unwrap());
        assert_eq!(der[36..68], raw[..]);
        let key = ClientKey::from_secret(SecretKey::from_slice(&raw).unwrap()).unwrap();
        assert_eq!(key.public_key_hex(), hex_encode(&der[der.len() - 65..]));
    }

    #[test]
    fn consumed_key_reports_key_consumed() {
        let mut key = ClientKey::generate().unwrap();
        assert!(!key.is_consumed());
        key.consume();
        assert!(key.is_consumed());
        assert_eq!(key.secret().unwrap_err().code(), ErrorCode::KeyConsumed);
        assert_eq!(
            key.take_secret().unwrap_err().code(),
            ErrorCode::KeyConsumed
        );
        // The public half stays readable for logging the request it was used in.
        assert_eq!(key.public_key_hex().len(), 130);
    }

    #[test]
    fn debug_shows_no_secret() {
        let secret = SecretKey::from_slice(&[7u8; 32]).unwrap();
        let key = ClientKey::from_secret(secret).unwrap();
        let shown = format!("{key:?}");
        assert!(!shown.contains(&"07".repeat(32)));
        assert!(shown.contains(&key.public_key_hex()));
    }
}

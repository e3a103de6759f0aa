//! A software authenticator for tests (feature `testing`): it answers registration and
//! authentication with real ES256 credentials in exactly the JSON shapes
//! `passkey.register` / `passkey.authenticate` return ("none" attestation, correct
//! authenticator data, flags and counter), so a passkey flow can run where there is no
//! browser or virtual authenticator (native tests, Node, `wasm-pack test --node`).
//!
//! Never use it to hold real users' credentials: its keys live in ordinary memory.

use crate::prelude::*;
use p256::ecdsa::signature::Signer as _;
use p256::ecdsa::{Signature, SigningKey};
use p256::elliptic_curve::sec1::ToSec1Point;
use p256::elliptic_curve::Generate;
use sha2::{Digest, Sha256};

use super::credential::{Assertion, Attestation};
use super::options::{Authentication, Registration, UserVerification};
use crate::codec::base64url_encode;
use crate::error::{Error, ErrorCode, Result};

/// Authenticator-data flag: user present.
pub(super) const FLAG_UP: u8 = 0x01;
/// Authenticator-data flag: user verified.
pub(super) const FLAG_UV: u8 = 0x04;
/// Authenticator-data flag: attested credential data included.
pub(super) const FLAG_AT: u8 = 0x40;

struct SoftCredential {
    id: Vec<u8>,
    rp_id: String,
    user_handle: Vec<u8>,
    key: SigningKey,
    sign_count: u32,
}

/// An in-memory authenticator bound to one page origin.
pub struct SoftAuthenticator {
    origin: String,
    host: String,
    credentials: Vec<SoftCredential>,
}

impl core::fmt::Debug for SoftAuthenticator {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("SoftAuthenticator")
            .field("origin", &self.origin)
            .field("credentials", &self.credentials.len())
            .finish()
    }
}

fn random_bytes<const N: usize>() -> Result<[u8; N]> {
    let mut out = [0u8; N];
    getrandom::fill(&mut out).map_err(|_| {
        Error::new(
            ErrorCode::RandomnessUnavailable,
            "the platform's secure random number generator failed",
        )
    })?;
    Ok(out)
}

fn cbor_error<E>(_: E) -> Error {
    Error::new(ErrorCode::PasskeyFailed, "could not encode CBOR")
}

impl SoftAuthenticator {
    /// An authenticator for pages of `origin` (e.g. `http://localhost:8787`).
    pub fn new(origin: &str) -> Result<Self> {
        let rest = origin
            .strip_prefix("https://")
            .or_else(|| origin.strip_prefix("http://"))
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidInput,
                    "origin must start with https:// or http://",
                )
            })?;
        let host = rest.split(':').next().unwrap_or_default();
        let valid = !host.is_empty()
            && !rest.contains('/')
            && origin
                .bytes()
                .all(|c| c.is_ascii_graphic() && c != b'"' && c != b'\\');
        if !valid {
            return Err(Error::new(
                ErrorCode::InvalidInput,
                "origin must be scheme://host[:port] with no path, e.g. http://localhost:8787",
            ));
        }
        let host = host.to_ascii_lowercase();
        // As browsers: no IP-literal relying parties, and plain http only for localhost.
        if host.starts_with('[') || host.bytes().all(|c| c.is_ascii_digit() || c == b'.') {
            return Err(Error::new(
                ErrorCode::PasskeyInvalidDomain,
                "an IP address is not a valid WebAuthn domain; use localhost",
            ));
        }
        // (`*.localhost` is a secure context too.)
        if origin.starts_with("http://") && host != "localhost" && !host.ends_with(".localhost") {
            return Err(Error::new(
                ErrorCode::PasskeyInvalidDomain,
                "WebAuthn needs https, or http://localhost",
            ));
        }
        Ok(Self {
            // The origin as a browser serialises it: lowercase host (ports are kept as given).
            origin: origin.to_ascii_lowercase(),
            host,
            credentials: Vec::new(),
        })
    }

    /// Browsers allow an rpId equal to the origin's host or a registrable suffix of it.
    /// The rpId in canonical (lowercase) form, if this origin may use it: the host itself
    /// or a parent domain of it that is not a bare top-level label.
    fn check_rp_id(&self, rp_id: &str) -> Result<String> {
        let rp_id = rp_id.to_ascii_lowercase();
        let parent = self.host.ends_with(&[".", &rp_id].concat())
            && (rp_id.contains('.') || rp_id == "localhost");
        if self.host == rp_id || parent {
            Ok(rp_id)
        } else {
            Err(Error::new(
                ErrorCode::PasskeyInvalidDomain,
                "the relying-party id does not match this page's origin",
            ))
        }
    }

    fn client_data(&self, kind: &str, challenge: &[u8]) -> Vec<u8> {
        // Values are base64url and a validated origin: nothing needs JSON escaping.
        [
            r#"{"type":""#,
            kind,
            r#"","challenge":""#,
            &base64url_encode(challenge),
            r#"","origin":""#,
            &self.origin,
            r#"","crossOrigin":false}"#,
        ]
        .concat()
        .into_bytes()
    }

    fn flags(user_verification: UserVerification) -> u8 {
        match user_verification {
            UserVerification::Discouraged => FLAG_UP,
            UserVerification::Required | UserVerification::Preferred => FLAG_UP | FLAG_UV,
        }
    }

    /// Creates a credential, as `navigator.credentials.create` with "none" attestation.
    pub fn register(&mut self, reg: &Registration) -> Result<Attestation> {
        let rp_id = self.check_rp_id(&reg.rp_id)?;
        if self
            .credentials
            .iter()
            .any(|c| c.rp_id == rp_id && reg.exclude_credentials.contains(&c.id))
        {
            return Err(Error::new(
                ErrorCode::PasskeyAlreadyRegistered,
                "this authenticator already holds one of the excluded credentials",
            ));
        }
        let key = SigningKey::try_generate_from_rng(&mut getrandom::SysRng).map_err(|_| {
            Error::new(
                ErrorCode::RandomnessUnavailable,
                "the platform's secure random number generator failed",
            )
        })?;
        let id = random_bytes::<32>()?.to_vec();
        let point = key.verifying_key().as_affine().to_sec1_point(false);
        let (x, y) = (
            point.x().expect("uncompressed"),
            point.y().expect("uncompressed"),
        );

        // COSE_Key (RFC 9053): {1: 2 (EC2), 3: -7 (ES256), -1: 1 (P-256), -2: x, -3: y}.
        let mut cose = minicbor::Encoder::new(Vec::new());
        cose.map(5)
            .and_then(|e| e.u8(1))
            .and_then(|e| e.u8(2))
            .and_then(|e| e.u8(3))
            .and_then(|e| e.i8(-7))
            .and_then(|e| e.i8(-1))
            .and_then(|e| e.u8(1))
            .and_then(|e| e.i8(-2))
            .and_then(|e| e.bytes(x))
            .and_then(|e| e.i8(-3))
            .and_then(|e| e.bytes(y))
            .map_err(cbor_error)?;
        let cose = cose.into_writer();

        let mut auth_data = Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(Self::flags(reg.user_verification) | FLAG_AT);
        auth_data.extend_from_slice(&0u32.to_be_bytes());
        auth_data.extend_from_slice(&[0u8; 16]); // AAGUID: none
        auth_data.extend_from_slice(&(id.len() as u16).to_be_bytes());
        auth_data.extend_from_slice(&id);
        auth_data.extend_from_slice(&cose);

        let mut object = minicbor::Encoder::new(Vec::new());
        object
            .map(3)
            .and_then(|e| e.str("fmt"))
            .and_then(|e| e.str("none"))
            .and_then(|e| e.str("attStmt"))
            .and_then(|e| e.map(0))
            .and_then(|e| e.str("authData"))
            .and_then(|e| e.bytes(&auth_data))
            .map_err(cbor_error)?;

        let client_data = self.client_data("webauthn.create", &reg.challenge_bytes);
        self.credentials.push(SoftCredential {
            id: id.clone(),
            rp_id,
            user_handle: reg.user_id.clone(),
            key,
            sign_count: 0,
        });
        Ok(Attestation::from_bytes(
            &id,
            &client_data,
            &object.into_writer(),
            vec!["internal".into()],
        ))
    }

    /// Signs an assertion, as `navigator.credentials.get` with one allowed credential.
    /// The counter goes up by one each time.
    pub fn authenticate(&mut self, auth: &Authentication) -> Result<Assertion> {
        let rp_id = self.check_rp_id(auth.rp_id.as_deref().unwrap_or(&self.host))?;
        let client_data = self.client_data("webauthn.get", auth.challenge_bytes());
        let credential = self
            .credentials
            .iter_mut()
            .find(|c| c.rp_id == rp_id && c.id == auth.credential_id_bytes)
            .ok_or_else(|| {
                // What a browser says when no authenticator holds the credential.
                Error::new(
                    ErrorCode::PasskeyCancelled,
                    "no passkey on this authenticator matched the credential id",
                )
            })?;
        credential.sign_count += 1;
        let mut auth_data = Sha256::digest(rp_id.as_bytes()).to_vec();
        auth_data.push(Self::flags(auth.user_verification));
        auth_data.extend_from_slice(&credential.sign_count.to_be_bytes());
        let signed = [auth_data.as_slice(), &Sha256::digest(&client_data)].concat();
        let signature: Signature = credential.key.sign(&signed);
        let signature = crate::ecdsa_der::encode(&signature);
        Ok(Assertion::from_bytes(
            &credential.id,
            &client_data,
            &auth_data,
            signature.as_bytes(),
            Some(&credential.user_handle),
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::codec::base64url_decode;
    use crate::passkey::options::tests::registration;
    use crate::passkey::AuthenticationInput;
    use p256::ecdsa::signature::Verifier as _;
    use p256::ecdsa::{Signature, VerifyingKey};
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn b64(text: &str) -> Vec<u8> {
        base64url_decode(text).unwrap()
    }

    /// Parses a "none" attestation the way a relying party does; returns the credential
    /// public key and the authenticator data.
    fn parse_attestation(a: &Attestation) -> (VerifyingKey, Vec<u8>) {
        let object = b64(&a.attestation_object);
        let mut d = minicbor::Decoder::new(&object);
        assert_eq!(d.map().unwrap(), Some(3));
        assert_eq!(d.str().unwrap(), "fmt");
        assert_eq!(d.str().unwrap(), "none");
        assert_eq!(d.str().unwrap(), "attStmt");
        assert_eq!(d.map().unwrap(), Some(0));
        assert_eq!(d.str().unwrap(), "authData");
        let auth_data = d.bytes().unwrap().to_vec();
        let id_len = u16::from_be_bytes([auth_data[53], auth_data[54]]) as usize;
        assert_eq!(
            &auth_data[55..55 + id_len],
            b64(&a.credential_id).as_slice()
        );
        let mut k = minicbor::Decoder::new(&auth_data[55 + id_len..]);
        assert_eq!(k.map().unwrap(), Some(5));
        assert_eq!((k.i8().unwrap(), k.i8().unwrap()), (1, 2));
        assert_eq!((k.i8().unwrap(), k.i8().unwrap()), (3, -7));
        assert_eq!((k.i8().unwrap(), k.i8().unwrap()), (-1, 1));
        assert_eq!(k.i8().unwrap(), -2);
        let x = k.bytes().unwrap().to_vec();
        assert_eq!(k.i8().unwrap(), -3);
        let y = k.bytes().unwrap().to_vec();
        let sec1 = [&[4u8][..], &x, &y].concat();
        (VerifyingKey::from_sec1_bytes(&sec1).unwrap(), auth_data)
    }

    #[test]
    fn register_then_authenticate_verifies_like_a_relying_party() {
        let mut authenticator = SoftAuthenticator::new("http://localhost:8787").unwrap();
        let reg = registration().validate().unwrap();
        let attestation = authenticator.register(&reg).unwrap();
        assert_eq!(attestation.transports, ["internal"]);
        let client_data: serde_json::Value =
            serde_json::from_slice(&b64(&attestation.client_data_json)).unwrap();
        assert_eq!(client_data["type"], "webauthn.create");
        assert_eq!(client_data["challenge"], reg.challenge.as_str());
        assert_eq!(client_data["origin"], "http://localhost:8787");
        let (public, auth_data) = parse_attestation(&attestation);
        assert_eq!(auth_data[..32], Sha256::digest(b"localhost")[..]);
        assert_eq!(auth_data[32], FLAG_UP | FLAG_UV | FLAG_AT);
        assert_eq!(auth_data[33..37], [0, 0, 0, 0]);

        let challenge = crate::codec::sha256_hex(b"session-creation payload");
        for expected_count in 1u32..=3 {
            let auth = AuthenticationInput {
                challenge: Some(challenge.clone()),
                credential_id: Some(attestation.credential_id.clone()),
                ..Default::default()
            }
            .validate()
            .unwrap();
            let assertion = authenticator.authenticate(&auth).unwrap();
            assert_eq!(assertion.credential_id, attestation.credential_id);
            assert_eq!(
                assertion.user_handle.as_deref(),
                Some(base64url_encode(b"InternalAccount:1").as_str())
            );
            let client_data_bytes = b64(&assertion.client_data_json);
            let client_data: serde_json::Value =
                serde_json::from_slice(&client_data_bytes).unwrap();
            assert_eq!(client_data["type"], "webauthn.get");
            // The login challenge is signed as the UTF-8 bytes of the hex string.
            assert_eq!(
                client_data["challenge"],
                base64url_encode(challenge.as_bytes())
            );
            let auth_data = b64(&assertion.authenticator_data);
            assert_eq!(auth_data.len(), 37);
            assert_eq!(auth_data[32], FLAG_UP | FLAG_UV);
            assert_eq!(
                u32::from_be_bytes(auth_data[33..37].try_into().unwrap()),
                expected_count
            );
            let signed = [auth_data.as_slice(), &Sha256::digest(&client_data_bytes)].concat();
            let signature = Signature::from_der(&b64(&assertion.signature)).unwrap();
            public.verify(&signed, &signature).unwrap();
            let mut tampered = signed.clone();
            tampered[0] ^= 1;
            assert!(public.verify(&tampered, &signature).is_err());
        }
    }

    #[test]
    fn errors_match_what_browsers_report() {
        let mut authenticator = SoftAuthenticator::new("http://localhost:8787").unwrap();
        let reg = registration().validate().unwrap();
        let attestation = authenticator.register(&reg).unwrap();

        let mut again = reg.clone();
        again.exclude_credentials = vec![b64(&attestation.credential_id)];
        assert_eq!(
            authenticator.register(&again).unwrap_err().code(),
            ErrorCode::PasskeyAlreadyRegistered
        );

        let mut elsewhere = reg.clone();
        elsewhere.rp_id = "example.com".into();
        assert_eq!(
            authenticator.register(&elsewhere).unwrap_err().code(),
            ErrorCode::PasskeyInvalidDomain
        );

        let unknown = AuthenticationInput {
            challenge: Some("c".into()),
            credential_id: Some("AAAA".into()),
            ..Default::default()
        }
        .validate()
        .unwrap();
        assert_eq!(
            authenticator.authenticate(&unknown).unwrap_err().code(),
            ErrorCode::PasskeyCancelled
        );

        for bad in [
            "localhost",
            "ftp://x",
            "http://",
            "http://a/b",
            "http://a\"b",
        ] {
            assert_eq!(
                SoftAuthenticator::new(bad).unwrap_err().code(),
                ErrorCode::InvalidInput,
                "{bad}"
            );
        }
        let sub = SoftAuthenticator::new("https://wallet.example.com").unwrap();
        assert!(sub.check_rp_id("example.com").is_ok());
        assert!(sub.check_rp_id("ample.com").is_err());
    }
}

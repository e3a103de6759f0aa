//! Signed enclave envelopes of newer API versions: `{version:"v1.0.0", data,
//! dataSignature, enclaveQuorumPublic}`, where `data` is hex of UTF-8 JSON and the
//! signature is DER ECDSA-P256-SHA256 over the hex-decoded `data`. In production the signer
//! is pinned to a published key; sandboxes leave both signature fields empty.
//!
//! Used by wallet export (`encryptedWalletCredentials`, opened here to the mnemonic) and by
//! the encrypted OTP flow (`otpEncryptionTargetBundle`, whose enclave the OTP is sealed to
//! here too: [`encrypt_otp`], and the TEK's stamp of the login's 202: [`sign_with_tek`]).

use crate::prelude::*;
use p256::ecdsa::signature::Verifier as _;
use p256::ecdsa::VerifyingKey;
use zeroize::Zeroizing;

use crate::bundle::{open_with, Aad, HPKE_INFO};
use crate::client_key::ClientKey;
use crate::codec::hex_decode;
use crate::error::{Error, ErrorCode, Result};
use crate::fields::{required, Fields};
use crate::public_key::{decode_sec1, parse_public_key_hex};

mod otp;

#[cfg(feature = "json")]
pub use otp::encrypt_otp_json;
pub use otp::{encrypt_otp, sign_with_tek, unquote_target_bundle};

/// The production signer of export bundles (`PRODUCTION_SIGNER_SIGN_PUBLIC_KEY`).
pub const PRODUCTION_SIGNER_PUBLIC_KEY: &str = "04cf288fe433cc4e1aa0ce1632feac4ea26bf2f5a09dcfe5a42c398e06898710330f0572882f4dbdf0f5304b8fc8703acd69adca9a4bbf7f5d00d20a5e364b2569";
/// The production signer of OTP target bundles (`PRODUCTION_TLS_FETCHER_SIGN_PUBLIC_KEY`).
pub const PRODUCTION_TLS_FETCHER_PUBLIC_KEY: &str = "046b4f88421f76b6ba418afc2ea1d8ced671337d7db6b80478a60d8531bf8f17fa9a512f0fef96fc0c9b4cd9dff70b34992e520ce04c79d931f6ff6296b547d201";

/// Who must have signed an envelope.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SignerPin {
    /// `enclaveQuorumPublic` must be this key (hex, either encoding) and the signature
    /// must verify with it: production.
    Key(String),
    /// The signature must verify with whatever `enclaveQuorumPublic` says; it is not
    /// pinned (test deployments with their own enclave keys).
    Unpinned,
    /// No signature check at all: the sandbox of the newer versions sends empty fields.
    Sandbox,
}

impl SignerPin {
    /// The pin a caller chose: `pin` is `"production"` (also what `None` means), `"sandbox"`,
    /// or a signer public key in hex; `sandbox: true` is `pin: "sandbox"`. `production` is
    /// the production signer of the envelope at hand ([`PRODUCTION_SIGNER_PUBLIC_KEY`] for
    /// exports, [`PRODUCTION_TLS_FETCHER_PUBLIC_KEY`] for OTP target bundles). A
    /// `sandbox: true` beside any other pin is `INVALID_INPUT`: a contradiction must not
    /// silently drop the signature check.
    pub fn choose(pin: Option<&str>, sandbox: bool, production: &str) -> Result<Self> {
        Ok(match (pin, sandbox) {
            (None | Some("production"), false) => SignerPin::Key(production.into()),
            (None | Some("sandbox"), true) | (Some("sandbox"), false) => SignerPin::Sandbox,
            (Some(_), true) => {
                return Err(Error::new(
                    ErrorCode::InvalidInput,
                    "options.sandbox: true contradicts options.pin",
                ))
            }
            (Some(key), false) => SignerPin::Key(key.into()),
        })
    }
}

/// A parsed envelope whose signature has been checked as its pin requires.
#[derive(Clone, Debug)]
pub struct VerifiedEnvelope {
    data: Vec<u8>,
}

/// The fix for the usual trap: the default `'production'` pin against another deployment.
fn production_pin_hint(pin: &SignerPin) -> &'static str {
    match pin {
        SignerPin::Key(k) if k == PRODUCTION_SIGNER_PUBLIC_KEY || k == PRODUCTION_TLS_FETCHER_PUBLIC_KEY => {
            " (the default 'production' signer): for another deployment pin its signer with WalletClient's otpSignerPin or the { pin } option of encryptOtp/openWalletExport (the emulator's GET /emulator/config gives otpSignerPublicKey and exportSignerPublicKey)"
        }
        _ => "",
    }
}

impl VerifiedEnvelope {
    /// Reads and checks an envelope. `what` names it in errors (e.g. "export bundle").
    pub fn verify(envelope: &dyn Fields, pin: &SignerPin, what: &str) -> Result<Self> {
        let code = ErrorCode::InvalidBundle;
        let version = required(envelope, "version", code, what)?;
        if version != "v1.0.0" {
            return Err(Error::new(code, [what, " version is not v1.0.0"].concat()));
        }
        let data = hex_decode(&required(envelope, "data", code, what)?)
            .filter(|d| !d.is_empty())
            .ok_or_else(|| Error::new(code, [what, " data is not hex"].concat()))?;
        if *pin != SignerPin::Sandbox {
            let signer_hex = required(envelope, "enclaveQuorumPublic", code, what)?;
            let signer =
                parse_public_key_hex(&signer_hex, &[what, " enclaveQuorumPublic"].concat())?;
            if let SignerPin::Key(pinned) = pin {
                let pinned = parse_public_key_hex(pinned, "pinned signer key")?;
                if signer != pinned {
                    return Err(Error::new(
                        ErrorCode::DecryptionFailed,
                        [
                            what,
                            " is signed by an enclave key other than the pinned one",
                            production_pin_hint(pin),
                        ]
                        .concat(),
                    ));
                }
            }
            let signature = hex_decode(&required(envelope, "dataSignature", code, what)?)
                .and_then(|der| crate::ecdsa_der::decode(&der))
                .ok_or_else(|| {
                    Error::new(
                        code,
                        [what, " dataSignature is not a DER hex signature"].concat(),
                    )
                })?;
            VerifyingKey::from(&signer)
                .verify(&data, &signature)
                .map_err(|_| {
                    Error::new(
                        ErrorCode::DecryptionFailed,
                        [what, " signature does not verify"].concat(),
                    )
                })?;
        }
        Ok(Self { data })
    }

    /// The signed data, as UTF-8 text (JSON).
    pub fn data_text(&self) -> Result<&str> {
        core::str::from_utf8(&self.data)
            .map_err(|_| Error::new(ErrorCode::InvalidBundle, "envelope data is not UTF-8"))
    }
}

/// Opens wallet-export data (`{encappedPublic, ciphertext, organizationId}`, already read
/// from the verified envelope's JSON) with the export key, to the UTF-8 mnemonic. Consumes
/// the key on success. `organization_id`, when given, must match.
pub fn open_export(
    data: &dyn Fields,
    key: &mut ClientKey,
    expected_organization_id: Option<&str>,
) -> Result<Zeroizing<String>> {
    const WHAT: &str = "export bundle data";
    let code = ErrorCode::InvalidBundle;
    let enc_hex = required(data, "encappedPublic", code, WHAT)?;
    let enc = hex_decode(&enc_hex)
        .filter(|b| b.len() == 65 && b[0] == 0x04)
        .and_then(|b| decode_sec1(&b))
        .ok_or_else(|| {
            Error::new(
                code,
                "export encappedPublic is not an uncompressed P-256 point",
            )
        })?;
    let ciphertext = hex_decode(&required(data, "ciphertext", code, WHAT)?)
        .filter(|c| c.len() > 16)
        .ok_or_else(|| Error::new(code, "export ciphertext is not hex of ciphertext and tag"))?;
    if let Some(expected) = expected_organization_id {
        if required(data, "organizationId", code, WHAT)? != expected {
            return Err(Error::new(
                code,
                "export bundle is for another organization",
            ));
        }
    }
    let plaintext = open_with(
        key.secret()?,
        key.public_key(),
        &enc,
        &ciphertext,
        HPKE_INFO,
        Aad::Standard,
    )
    .map_err(|e| match e.code() {
        ErrorCode::EngineFault => {
            key.poison();
            e
        }
        // open_with's own message speaks of session bundles.
        ErrorCode::DecryptionFailed => Error::new(
            ErrorCode::DecryptionFailed,
            "export bundle does not open with this ClientKey (sealed to another key, or altered)",
        ),
        _ => e,
    })?;
    let mnemonic = String::from_utf8(plaintext.to_vec()).map_err(|e| {
        // The rejected bytes are the secret too: wipe them before they are dropped.
        zeroize::Zeroize::zeroize(&mut e.into_bytes());
        Error::new(code, "the exported secret is not UTF-8 text")
    })?;
    key.consume();
    Ok(Zeroizing::new(mnemonic))
}

/// Verifies an `encryptedWalletCredentials` JSON text and opens it (native convenience).
#[cfg(feature = "json")]
pub fn open_export_json(
    envelope: &str,
    key: &mut ClientKey,
    pin: &SignerPin,
    expected_organization_id: Option<&str>,
) -> Result<Zeroizing<String>> {
    key.check_unused()?;
    let envelope =
        crate::fields::parse_object(envelope, ErrorCode::InvalidBundle, "export bundle")?;
    let verified = VerifiedEnvelope::verify(&envelope, pin, "export bundle")?;
    let data = crate::fields::parse_object(
        verified.data_text()?,
        ErrorCode::InvalidBundle,
        "export bundle data",
    )?;
    open_export(&data, key, expected_organization_id)
}

#[cfg(all(test, feature = "json"))]
mod tests {
    use super::*;
    use crate::codec::hex_encode;
    use crate::test_vectors::{hex, vectors};
    use p256::SecretKey;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn a_chosen_pin_defaults_to_production_and_refuses_contradictions() {
        let prod = PRODUCTION_SIGNER_PUBLIC_KEY;
        let key = |k: &str| SignerPin::Key(k.into());
        assert_eq!(SignerPin::choose(None, false, prod).unwrap(), key(prod));
        assert_eq!(
            SignerPin::choose(Some("production"), false, prod).unwrap(),
            key(prod)
        );
        assert_eq!(
            SignerPin::choose(Some("sandbox"), false, prod).unwrap(),
            SignerPin::Sandbox
        );
        assert_eq!(
            SignerPin::choose(None, true, prod).unwrap(),
            SignerPin::Sandbox
        );
        assert_eq!(
            SignerPin::choose(Some("sandbox"), true, prod).unwrap(),
            SignerPin::Sandbox
        );
        assert_eq!(
            SignerPin::choose(Some("04ab"), false, prod).unwrap(),
            key("04ab")
        );
        for pin in ["production", "04ab"] {
            let err = SignerPin::choose(Some(pin), true, prod).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput);
            assert!(err.message().contains("contradicts"), "{err}");
        }
    }

    fn case() -> (String, ClientKey, String, String) {
        let v = vectors("export-bundles.json");
        let c = &v["vectors"][0];
        assert_eq!(
            v["pinnedProductionSignerPublicKeyHex"].as_str().unwrap(),
            PRODUCTION_SIGNER_PUBLIC_KEY
        );
        let key = ClientKey::from_secret(
            SecretKey::from_slice(&hex(c["embeddedPrivateKeyHex"].as_str().unwrap())).unwrap(),
        )
        .unwrap();
        (
            c["exportBundle"].as_str().unwrap().to_owned(),
            key,
            c["organizationId"].as_str().unwrap().to_owned(),
            c["expectedPlaintextUtf8"].as_str().unwrap().to_owned(),
        )
    }

    fn pinned() -> SignerPin {
        SignerPin::Key(PRODUCTION_SIGNER_PUBLIC_KEY.into())
    }

    #[test]
    fn the_published_export_bundle_opens_to_its_mnemonic_under_the_production_pin() {
        let (bundle, mut key, org, mnemonic) = case();
        let opened = open_export_json(&bundle, &mut key, &pinned(), Some(&org)).unwrap();
        assert_eq!(opened.as_str(), mnemonic);
        assert!(key.is_consumed(), "the export key is single-use");
        assert_eq!(
            open_export_json(&bundle, &mut key, &pinned(), None)
                .unwrap_err()
                .code(),
            ErrorCode::KeyConsumed
        );
    }

    #[test]
    fn tampering_a_wrong_pin_or_a_wrong_org_is_refused() {
        let (bundle, _, org, _) = case();
        let fresh = || case().1;
        let mut envelope: serde_json::Value = serde_json::from_str(&bundle).unwrap();

        // Another signer, even with a valid signature of its own, fails the pin.
        let other = ClientKey::generate().unwrap();
        let err = open_export_json(
            &bundle,
            &mut fresh(),
            &SignerPin::Key(other.public_key_hex()),
            None,
        )
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::DecryptionFailed);
        assert!(err.message().contains("pinned"));
        assert!(!err.message().contains("otpSignerPin"), "{err}");
        // The default production pin refusing another signer names the fix (an OTP
        // target bundle of another enclave: enclave::otp's tests).
        let hint = production_pin_hint(&pinned());
        for named in ["'production'", "{ pin }", "exportSignerPublicKey"] {
            assert!(hint.contains(named), "{named}: {hint}");
        }

        // A flipped data byte breaks the signature.
        let mut data = hex(envelope["data"].as_str().unwrap());
        let last = data.len() - 3;
        data[last] ^= 1;
        envelope["data"] = hex_encode(&data).into();
        let err =
            open_export_json(&envelope.to_string(), &mut fresh(), &pinned(), None).unwrap_err();
        assert_eq!(err.code(), ErrorCode::DecryptionFailed);
        // Without the signature (sandbox) the flip goes unnoticed by HPKE (it hit the
        // unauthenticated organizationId), which only the organization check then catches.
        let err = open_export_json(
            &envelope.to_string(),
            &mut fresh(),
            &SignerPin::Sandbox,
            Some(&org),
        )
        .unwrap_err();
        assert!(err.message().contains("another organization"));

        let err =
            open_export_json(&bundle, &mut fresh(), &pinned(), Some("other-org")).unwrap_err();
        assert!(err.message().contains("another organization"));
        let mut wrong_key = ClientKey::generate().unwrap();
        let err = open_export_json(&bundle, &mut wrong_key, &pinned(), Some(&org)).unwrap_err();
        assert_eq!(err.code(), ErrorCode::DecryptionFailed);
        assert!(
            err.message().starts_with("export bundle does not open"),
            "{err}"
        );
        assert!(!wrong_key.is_consumed());
    }

    #[test]
    fn malformed_envelopes() {
        let (bundle, _, _, _) = case();
        let envelope: serde_json::Value = serde_json::from_str(&bundle).unwrap();
        let with = |k: &str, v: serde_json::Value| {
            let mut e = envelope.clone();
            e[k] = v;
            e.to_string()
        };
        for (text, needle) in [
            (with("version", "v2".into()), "version"),
            (with("data", "zz".into()), "data is not hex"),
            (with("dataSignature", "".into()), "dataSignature"),
            (
                with("enclaveQuorumPublic", "04ab".into()),
                "enclaveQuorumPublic",
            ),
            ("[]".to_owned(), "not a JSON object"),
        ] {
            let err = open_export_json(&text, &mut case().1, &pinned(), None).unwrap_err();
            assert!(err.message().contains(needle), "{needle}: {err}");
        }
        // The sandbox sends empty signature fields; only SignerPin::Sandbox accepts that.
        let sandbox = with("dataSignature", "".into());
        let sandbox: serde_json::Value = serde_json::from_str(&sandbox).unwrap();
        let mut sandbox = sandbox;
        sandbox["enclaveQuorumPublic"] = "".into();
        let (_, _, _, mnemonic) = case();
        let opened = open_export_json(
            &sandbox.to_string(),
            &mut case().1,
            &SignerPin::Sandbox,
            None,
        )
        .unwrap();
        assert_eq!(opened.as_str(), mnemonic);
        assert!(open_export_json(
            &sandbox.to_string(),
            &mut case().1,
            &SignerPin::Unpinned,
            None
        )
        .is_err());
    }
}

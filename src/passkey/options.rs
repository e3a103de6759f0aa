//! Passkey ceremony options as the kit's callers give them, validated and
//! decoded into the bytes WebAuthn takes. Pure Rust: the browser calls live in `browser`.

use crate::codec::{base64url_decode, base64url_encode};
use crate::error::{Error, ErrorCode, Result};
use crate::prelude::*;
use crate::text::Decimal;

/// Default ceremony timeout, as most relying parties use.
pub(crate) const DEFAULT_TIMEOUT_MS: u32 = 60_000;
/// Longest timeout accepted (10 minutes): anything longer is almost surely a unit mistake.
pub(crate) const MAX_TIMEOUT_MS: u32 = 600_000;

fn invalid(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

/// `residentKey` preference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ResidentKey {
    /// The authenticator must store a discoverable credential.
    Required,
    /// Discoverable if possible (the default).
    Preferred,
    /// Server-side credential preferred.
    Discouraged,
}

/// `userVerification` preference.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum UserVerification {
    /// The user must be verified (the default: a wallet moves money).
    Required,
    /// Verify if the authenticator can.
    Preferred,
    /// Do not verify.
    Discouraged,
}

/// `authenticatorAttachment`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attachment {
    /// Built into the device (Touch ID, Windows Hello, Android).
    Platform,
    /// Roaming (security keys, phones over hybrid).
    CrossPlatform,
}

macro_rules! string_enum {
    ($ty:ident, $field:literal, $($variant:ident = $text:literal),+) => {
        impl $ty {
            /// The WebAuthn string form.
            pub fn as_str(self) -> &'static str {
                match self { $(Self::$variant => $text),+ }
            }

            fn parse(text: Option<&str>) -> Result<Option<Self>> {
                match text {
                    None => Ok(None),
                    $(Some($text) => Ok(Some(Self::$variant)),)+
                    Some(_) => Err(invalid(concat!(
                        $field, " must be one of: ", $($text, " "),+
                    ).trim_end().to_owned())),
                }
            }
        }
    };
}

string_enum!(
    ResidentKey,
    "residentKey",
    Required = "required",
    Preferred = "preferred",
    Discouraged = "discouraged"
);
string_enum!(
    UserVerification,
    "userVerification",
    Required = "required",
    Preferred = "preferred",
    Discouraged = "discouraged"
);
string_enum!(
    Attachment,
    "attachment",
    Platform = "platform",
    CrossPlatform = "cross-platform"
);

/// `register()` options as given (strings as the caller passed them).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RegistrationInput {
    /// base64url registration challenge from the integrator backend.
    pub challenge: Option<String>,
    /// Relying-party id (a domain, e.g. `wallet.example.com` or `localhost`).
    pub rp_id: Option<String>,
    /// Relying-party name shown by some authenticators.
    pub rp_name: Option<String>,
    /// `user.id`: a string whose UTF-8 bytes (1–64) become the WebAuthn user handle.
    pub user_id: Option<String>,
    /// `user.name`.
    pub user_name: Option<String>,
    /// `user.displayName` (defaults to the name).
    pub user_display_name: Option<String>,
    /// base64url ids of credentials the account already has.
    pub exclude_credential_ids: Vec<String>,
    /// `residentKey`.
    pub resident_key: Option<String>,
    /// `userVerification`.
    pub user_verification: Option<String>,
    /// `attachment`.
    pub attachment: Option<String>,
    /// `timeoutMs`.
    pub timeout_ms: Option<f64>,
}

/// Validated `register()` options, with every binary field decoded.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Registration {
    /// The original challenge string (clientDataJSON must echo exactly this).
    pub challenge: String,
    /// Its decoded bytes, handed to WebAuthn.
    pub challenge_bytes: Vec<u8>,
    /// Relying-party id.
    pub rp_id: String,
    /// Relying-party name.
    pub rp_name: String,
    /// User handle bytes.
    pub user_id: Vec<u8>,
    /// User name.
    pub user_name: String,
    /// Display name.
    pub user_display_name: String,
    /// Excluded credential ids, decoded.
    pub exclude_credentials: Vec<Vec<u8>>,
    /// Resident-key preference.
    pub resident_key: ResidentKey,
    /// User-verification preference.
    pub user_verification: UserVerification,
    /// Attachment, if restricted.
    pub attachment: Option<Attachment>,
    /// Ceremony timeout.
    pub timeout_ms: u32,
}

/// COSE algorithm ids offered, in order of preference: ES256, then RS256.
pub const PUB_KEY_CRED_ALGS: [i32; 2] = [-7, -257];

fn required(value: Option<&String>, name: &str) -> Result<String> {
    match value {
        Some(v) if !v.is_empty() => Ok(v.clone()),
        Some(_) => Err(invalid([name, " is empty"].concat())),
        None => Err(invalid([name, " is required"].concat())),
    }
}

fn timeout(value: Option<f64>) -> Result<u32> {
    match value {
        None => Ok(DEFAULT_TIMEOUT_MS),
        Some(ms) if ms.is_finite() && ms >= 1.0 && ms <= f64::from(MAX_TIMEOUT_MS) => Ok(ms as u32),
        Some(_) => Err(invalid(
            [
                "timeoutMs must be a number of milliseconds from 1 to ",
                &Decimal::from(MAX_TIMEOUT_MS),
            ]
            .concat(),
        )),
    }
}

fn rp_id(value: Option<&String>, name: &str) -> Result<String> {
    let id = required(value, name)?;
    // A bare domain: no scheme, port, path or spaces. The browser does the real check.
    let ok = id.len() <= 253
        && !id.starts_with('.')
        && !id.ends_with('.')
        && id
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || c == b'-' || c == b'.');
    if ok {
        Ok(id)
    } else {
        Err(invalid(
            [
                name,
                " must be a domain such as wallet.example.com (no scheme, port or path)",
            ]
            .concat(),
        ))
    }
}

fn credential_id(text: &str, name: &str) -> Result<Vec<u8>> {
    match base64url_decode(text) {
        Some(bytes) if !bytes.is_empty() && bytes.len() <= 1023 => Ok(bytes),
        _ => Err(invalid(
            [name, " is not a base64url credential id"].concat(),
        )),
    }
}

/// Decodes a registration challenge, which must be canonical base64url without padding:
/// the authenticator writes the challenge into clientDataJSON in exactly that form, so
/// any other spelling (`=` padding, non-zero trailing bits) would no longer equal the
/// string the service checks it against. `INVALID_INPUT` naming `challenge` otherwise.
pub fn registration_challenge_bytes(challenge: &str) -> Result<Vec<u8>> {
    let bytes = if challenge.contains('=') {
        None
    } else {
        base64url_decode(challenge)
    };
    match bytes {
        Some(bytes) if !bytes.is_empty() && base64url_encode(&bytes) == challenge => Ok(bytes),
        _ => Err(invalid(
            "challenge is not canonical base64url without padding (the registration challenge from the integrator backend, exactly as clientDataJSON will carry it)",
        )),
    }
}

impl RegistrationInput {
    /// Validates and decodes. `INVALID_INPUT` names the field at fault.
    pub fn validate(&self) -> Result<Registration> {
        let challenge = required(self.challenge.as_ref(), "challenge")?;
        let challenge_bytes = registration_challenge_bytes(&challenge)?;
        let user_id = required(self.user_id.as_ref(), "user.id")?;
        if user_id.len() > 64 {
            return Err(invalid(
                [
                    "user.id is ",
                    &Decimal::from(user_id.len()),
                    " bytes in UTF-8; WebAuthn allows 1 to 64",
                ]
                .concat(),
            ));
        }
        let user_name = required(self.user_name.as_ref(), "user.name")?;
        let user_display_name = match &self.user_display_name {
            Some(d) => d.clone(),
            None => user_name.clone(),
        };
        let exclude_credentials = self
            .exclude_credential_ids
            .iter()
            .enumerate()
            .map(|(i, id)| {
                credential_id(
                    id,
                    &["excludeCredentialIds[", &Decimal::from(i), "]"].concat(),
                )
            })
            .collect::<Result<Vec<_>>>()?;
        Ok(Registration {
            challenge,
            challenge_bytes,
            rp_id: rp_id(self.rp_id.as_ref(), "rpId")?,
            rp_name: required(self.rp_name.as_ref(), "rpName")?,
            user_id: user_id.into_bytes(),
            user_name,
            user_display_name,
            exclude_credentials,
            resident_key: ResidentKey::parse(self.resident_key.as_deref())?
                .unwrap_or(ResidentKey::Preferred),
            user_verification: UserVerification::parse(self.user_verification.as_deref())?
                .unwrap_or(UserVerification::Required),
            attachment: Attachment::parse(self.attachment.as_deref())?,
            timeout_ms: timeout(self.timeout_ms)?,
        })
    }
}

/// `authenticate()` options as given.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AuthenticationInput {
    /// The `challenge` string from `POST /auth/credentials/{id}/challenge`.
    pub challenge: Option<String>,
    /// base64url id of the one credential allowed.
    pub credential_id: Option<String>,
    /// Relying-party id; the page's host when absent.
    pub rp_id: Option<String>,
    /// `userVerification`.
    pub user_verification: Option<String>,
    /// `timeoutMs`.
    pub timeout_ms: Option<f64>,
}

/// Validated `authenticate()` options.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Authentication {
    /// The challenge string; WebAuthn gets its UTF-8 bytes, not a decoding.
    pub challenge: String,
    /// The allowed credential's id, as given.
    pub credential_id: String,
    /// Its decoded bytes.
    pub credential_id_bytes: Vec<u8>,
    /// Relying-party id, if given.
    pub rp_id: Option<String>,
    /// User-verification preference.
    pub user_verification: UserVerification,
    /// Ceremony timeout.
    pub timeout_ms: u32,
}

impl Authentication {
    /// The bytes WebAuthn signs over as the challenge: the UTF-8 of the string itself.
    pub fn challenge_bytes(&self) -> &[u8] {
        self.challenge.as_bytes()
    }
}

impl AuthenticationInput {
    /// Validates and decodes. `INVALID_INPUT` names the field at fault.
    pub fn validate(&self) -> Result<Authentication> {
        let challenge = required(self.challenge.as_ref(), "challenge")?;
        if challenge.len() > 1024 {
            return Err(invalid(
                "challenge is longer than any service challenge (1024 bytes)",
            ));
        }
        let credential_id = required(self.credential_id.as_ref(), "credentialId")?;
        let credential_id_bytes = self::credential_id(&credential_id, "credentialId")?;
        let rp_id = match &self.rp_id {
            None => None,
            Some(id) => Some(rp_id(Some(id), "rpId")?),
        };
        Ok(Authentication {
            challenge,
            credential_id,
            credential_id_bytes,
            rp_id,
            user_verification: UserVerification::parse(self.user_verification.as_deref())?
                .unwrap_or(UserVerification::Required),
            timeout_ms: timeout(self.timeout_ms)?,
        })
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    pub(crate) fn registration() -> RegistrationInput {
        RegistrationInput {
            challenge: Some("AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8".into()),
            rp_id: Some("localhost".into()),
            rp_name: Some("Wallet".into()),
            user_id: Some("InternalAccount:1".into()),
            user_name: Some("alice@example.com".into()),
            ..Default::default()
        }
    }

    #[test]
    fn registration_defaults_and_decoding() {
        let r = registration().validate().unwrap();
        assert_eq!(r.challenge_bytes, (0u8..32).collect::<Vec<_>>());
        assert_eq!(r.user_id, b"InternalAccount:1");
        assert_eq!(r.user_display_name, "alice@example.com");
        assert_eq!(r.resident_key, ResidentKey::Preferred);
        assert_eq!(r.user_verification, UserVerification::Required);
        assert_eq!(r.attachment, None);
        assert_eq!(r.timeout_ms, DEFAULT_TIMEOUT_MS);
        assert_eq!(PUB_KEY_CRED_ALGS, [-7, -257]);
    }

    #[test]
    fn registration_challenge_must_be_base64url() {
        // Padded or non-canonical forms are refused: clientDataJSON.challenge carries the
        // canonical unpadded form, which would then differ from what the service checks.
        for bad in [
            "not base64!",
            "a+b/",
            "",
            "a",
            "AAECAw==",
            "AAECAw=",
            "AAECAwQ=",
            "AAEC====",
            "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=",
            "=AAEC",
            "AA=EC",
            "AAF",
            "AAECAx",
        ] {
            let input = RegistrationInput {
                challenge: Some(bad.into()),
                ..registration()
            };
            let err = input.validate().unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{bad}");
            assert!(err.message().contains("challenge"), "{bad}: {err}");
        }
        let input = RegistrationInput {
            challenge: Some("AAEC".into()),
            ..registration()
        };
        assert_eq!(input.validate().unwrap().challenge_bytes, [0, 1, 2]);
    }

    #[test]
    fn registration_field_errors_name_the_field() {
        let cases: Vec<(RegistrationInput, &str)> = vec![
            (
                RegistrationInput {
                    rp_id: None,
                    ..registration()
                },
                "rpId is required",
            ),
            (
                RegistrationInput {
                    rp_id: Some("https://x.com".into()),
                    ..registration()
                },
                "rpId must be a domain",
            ),
            (
                RegistrationInput {
                    rp_id: Some("x.com:443".into()),
                    ..registration()
                },
                "rpId must be a domain",
            ),
            (
                RegistrationInput {
                    rp_name: Some(String::new()),
                    ..registration()
                },
                "rpName is empty",
            ),
            (
                RegistrationInput {
                    user_id: None,
                    ..registration()
                },
                "user.id is required",
            ),
            (
                RegistrationInput {
                    user_id: Some("é".repeat(33)),
                    ..registration()
                },
                "66 bytes",
            ),
            (
                RegistrationInput {
                    user_name: None,
                    ..registration()
                },
                "user.name is required",
            ),
            (
                RegistrationInput {
                    exclude_credential_ids: vec!["AAAA".into(), "!!".into()],
                    ..registration()
                },
                "excludeCredentialIds[1]",
            ),
            (
                RegistrationInput {
                    resident_key: Some("yes".into()),
                    ..registration()
                },
                "residentKey must be one of: required preferred discouraged",
            ),
            (
                RegistrationInput {
                    user_verification: Some("Required".into()),
                    ..registration()
                },
                "userVerification must be one of",
            ),
            (
                RegistrationInput {
                    attachment: Some("usb".into()),
                    ..registration()
                },
                "attachment must be one of: platform cross-platform",
            ),
            (
                RegistrationInput {
                    timeout_ms: Some(0.0),
                    ..registration()
                },
                "timeoutMs",
            ),
            (
                RegistrationInput {
                    timeout_ms: Some(f64::NAN),
                    ..registration()
                },
                "timeoutMs",
            ),
            (
                RegistrationInput {
                    timeout_ms: Some(3_600_000.0),
                    ..registration()
                },
                "timeoutMs",
            ),
        ];
        for (input, needle) in cases {
            let err = input.validate().unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput);
            assert!(err.message().contains(needle), "{needle}: {err}");
        }
    }

    #[test]
    fn registration_options_are_kept() {
        let r = RegistrationInput {
            exclude_credential_ids: vec!["AQID".into()],
            resident_key: Some("required".into()),
            user_verification: Some("preferred".into()),
            attachment: Some("cross-platform".into()),
            timeout_ms: Some(1500.0),
            user_display_name: Some("Alice".into()),
            ..registration()
        }
        .validate()
        .unwrap();
        assert_eq!(r.exclude_credentials, [vec![1, 2, 3]]);
        assert_eq!(r.resident_key.as_str(), "required");
        assert_eq!(r.user_verification.as_str(), "preferred");
        assert_eq!(r.attachment.unwrap().as_str(), "cross-platform");
        assert_eq!(r.timeout_ms, 1500);
        assert_eq!(r.user_display_name, "Alice");
    }

    #[test]
    fn authentication_uses_the_utf8_bytes_of_the_challenge() {
        let a = AuthenticationInput {
            challenge: Some(
                "fac65912a90fbaf5d14aa927e9fb1c633ae1e9fd77580bbb2c3dec1586d4742d".into(),
            ),
            credential_id: Some("AQID".into()),
            ..Default::default()
        }
        .validate()
        .unwrap();
        assert_eq!(a.challenge_bytes().len(), 64);
        assert_eq!(a.challenge_bytes(), a.challenge.as_bytes());
        assert_eq!(a.credential_id_bytes, [1, 2, 3]);
        assert_eq!(a.rp_id, None);
        assert_eq!(a.user_verification, UserVerification::Required);
    }

    #[test]
    fn authentication_field_errors() {
        let base = AuthenticationInput {
            challenge: Some("c".into()),
            credential_id: Some("AQID".into()),
            ..Default::default()
        };
        let cases: Vec<(AuthenticationInput, &str)> = vec![
            (
                AuthenticationInput {
                    challenge: None,
                    ..base.clone()
                },
                "challenge is required",
            ),
            (
                AuthenticationInput {
                    challenge: Some("x".repeat(2000)),
                    ..base.clone()
                },
                "challenge is longer",
            ),
            (
                AuthenticationInput {
                    credential_id: None,
                    ..base.clone()
                },
                "credentialId is required",
            ),
            (
                AuthenticationInput {
                    credential_id: Some("a b".into()),
                    ..base.clone()
                },
                "credentialId is not a base64url",
            ),
            (
                AuthenticationInput {
                    rp_id: Some("".into()),
                    ..base.clone()
                },
                "rpId is empty",
            ),
            (
                AuthenticationInput {
                    user_verification: Some("maybe".into()),
                    ..base.clone()
                },
                "userVerification",
            ),
            (
                AuthenticationInput {
                    timeout_ms: Some(-5.0),
                    ..base
                },
                "timeoutMs",
            ),
        ];
        for (input, needle) in cases {
            let err = input.validate().unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput);
            assert!(err.message().contains(needle), "{needle}: {err}");
        }
    }
}

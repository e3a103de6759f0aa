//! A session: the key that signs for an embedded wallet until `expiresAt`, built from a
//! verify/refresh response. It stamps payloads, signs retries (each requestId once, never
//! past the 202's expiry) and quotes, and refuses everything after its own expiry.

use p256::ecdsa::SigningKey;
use p256::elliptic_curve::sec1::ToSec1Point;

use crate::bundle::{Bundle, SESSION_BUNDLE_LEN};
use crate::client_key::ClientKey;
use crate::encoding::hex_encode;
use crate::error::{Error, ErrorCode, Result};
use crate::fields::{is_kind_uuid, optional, required, Fields};
use crate::signed_retry::{PendingSignature, QuoteToSign, SignedRetryHeaders};
use crate::stamp::stamp;
use crate::timestamp::{parse_rfc3339, Clock, SystemClock, UnixMillis};

/// The sandbox's accepted `Service-Wallet-Signature` (spec §5.3).
pub const SANDBOX_SIGNATURE: &str = "sandbox-valid-signature";

const WHAT: &str = "session response";

/// The public fields of a session, as given by verify or refresh.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SessionInfo {
    /// `Session:<uuid>`.
    pub id: String,
    /// The internal account the session acts for.
    pub account_id: String,
    /// The credential type: `EMAIL_OTP`, `OAUTH`, `PASSKEY` (newer versions add more).
    pub kind: String,
    /// `expiresAt` as Unix milliseconds.
    pub expires_at_ms: UnixMillis,
}

impl SessionInfo {
    /// Reads id, accountId, type and expiresAt. `INVALID_SESSION` names the field at fault.
    pub fn from_fields(response: &dyn Fields) -> Result<Self> {
        let code = ErrorCode::InvalidSession;
        let id = required(response, "id", code, WHAT)?;
        if !is_kind_uuid(&id, "Session") {
            return Err(Error::new(
                code,
                format!(
                    "{WHAT} id is not of the form Session:<uuid> (is this a session response?)"
                ),
            ));
        }
        let account_id = required(response, "accountId", code, WHAT)?;
        if account_id.is_empty() {
            return Err(Error::new(code, format!("{WHAT} accountId is empty")));
        }
        let kind = required(response, "type", code, WHAT)?;
        if kind.is_empty() || !kind.bytes().all(|c| c.is_ascii_uppercase() || c == b'_') {
            return Err(Error::new(
                code,
                format!("{WHAT} type is not a credential type such as EMAIL_OTP, OAUTH or PASSKEY"),
            ));
        }
        let expires_at = required(response, "expiresAt", code, WHAT)?;
        let expires_at_ms = parse_rfc3339(&expires_at, "session response expiresAt")?;
        Ok(Self {
            id,
            account_id,
            kind,
            expires_at_ms,
        })
    }
}

enum Signer {
    /// A real session key (zeroized on drop by `SigningKey`).
    Key(SigningKey),
    /// Sandbox: the magic signature, no key.
    Sandbox,
    /// Freed.
    Closed,
}

/// A signing session.
pub struct Session {
    info: SessionInfo,
    signer: Signer,
    /// requestIds this session signed, with their expiry, so none is signed twice. A
    /// handful at most live at once, so a Vec beats a map (and is smaller in wasm).
    signed_requests: Vec<(String, UnixMillis)>,
    clock: Box<dyn Clock + Send + Sync>,
    /// The AuthMethod this session was issued for, when the flow that opened it knows.
    credential_id: Option<String>,
}

impl core::fmt::Debug for Session {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Session")
            .field("info", &self.info)
            .field("public_key", &self.public_key_hex())
            .field("sandbox", &self.is_sandbox())
            .field("closed", &self.is_closed())
            .finish_non_exhaustive()
    }
}

impl Session {
    fn new(info: SessionInfo, signer: Signer) -> Self {
        Self {
            info,
            signer,
            signed_requests: Vec::new(),
            clock: Box::new(SystemClock),
            credential_id: None,
        }
    }

    /// Opens `encryptedSessionSigningKey` of a verify/refresh response with `key`, which
    /// is consumed on success (a failed open leaves it usable, so nothing is lost).
    pub fn open(response: &dyn Fields, key: &mut ClientKey) -> Result<Self> {
        let secret = key.secret()?;
        let info = SessionInfo::from_fields(response)?;
        let bundle_text = optional(response, "encryptedSessionSigningKey", ErrorCode::InvalidSession, WHAT)?
            .ok_or_else(|| {
                Error::new(
                    ErrorCode::InvalidSession,
                    "session response has no encryptedSessionSigningKey (a listing, or a client-held-key response: use fromClientKey)",
                )
            })?;
        let bundle = Bundle::decode(&bundle_text)?;
        if bundle.payload_len() != SESSION_BUNDLE_LEN {
            return Err(Error::new(
                ErrorCode::InvalidBundle,
                format!(
                    "encryptedSessionSigningKey payload is {} bytes; a session key bundle is {SESSION_BUNDLE_LEN}",
                    bundle.payload_len()
                ),
            ));
        }
        let scalar = bundle.open_for(secret, key.public_key())?;
        let signing_key = SigningKey::from_slice(&scalar).map_err(|_| {
            Error::new(
                ErrorCode::InvalidBundle,
                "encryptedSessionSigningKey does not hold a valid P-256 private key",
            )
        })?;
        key.consume();
        Ok(Self::new(info, Signer::Key(signing_key)))
    }

    /// Opens a session from verify/refresh JSON text.
    #[cfg(feature = "json")]
    pub fn open_json(response: &str, key: &mut ClientKey) -> Result<Self> {
        key.secret()?;
        Self::open(&parse_response(response)?, key)
    }

    /// A sandbox session (API version 2025-10-13): signs with the magic value and never
    /// reads `encryptedSessionSigningKey`, which may be absent or a stub.
    pub fn sandbox(response: &dyn Fields) -> Result<Self> {
        Ok(Self::new(
            SessionInfo::from_fields(response)?,
            Signer::Sandbox,
        ))
    }

    /// A sandbox session from JSON text.
    #[cfg(feature = "json")]
    pub fn sandbox_json(response: &str) -> Result<Self> {
        Self::sandbox(&parse_response(response)?)
    }

    /// Newer API versions: the client key itself is the session key and the response
    /// carries no bundle; one that does is `INVALID_SESSION`. Consumes `key`.
    pub fn from_client_key(response: &dyn Fields, key: &mut ClientKey) -> Result<Self> {
        key.secret()?;
        let info = SessionInfo::from_fields(response)?;
        if optional(
            response,
            "encryptedSessionSigningKey",
            ErrorCode::InvalidSession,
            WHAT,
        )?
        .is_some()
        {
            return Err(Error::new(
                ErrorCode::InvalidSession,
                "session response carries encryptedSessionSigningKey: open it with Session.open instead",
            ));
        }
        let secret = key.take_secret()?;
        Ok(Self::new(
            info,
            Signer::Key(SigningKey::from(secret.to_nonzero_scalar())),
        ))
    }

    /// Replaces the clock the expiry guards read (tests, replay).
    pub fn with_clock(mut self, clock: impl Clock + Send + Sync + 'static) -> Self {
        self.clock = Box::new(clock);
        self
    }

    /// Records the AuthMethod (`AuthMethod:<uuid>`) this session was issued for.
    pub fn with_credential_id(mut self, credential_id: &str) -> Self {
        self.credential_id = Some(credential_id.to_owned());
        self
    }

    /// The AuthMethod this session was issued for, if known.
    pub fn credential_id(&self) -> Option<&str> {
        self.credential_id.as_deref()
    }

    /// The session's public fields.
    pub fn info(&self) -> &SessionInfo {
        &self.info
    }

    /// Compressed SEC1 hex of the session public key; `None` for a sandbox session.
    pub fn public_key_hex(&self) -> Option<String> {
        match &self.signer {
            Signer::Key(k) => Some(hex_encode(
                k.verifying_key().as_affine().to_sec1_point(true).as_bytes(),
            )),
            Signer::Sandbox | Signer::Closed => None,
        }
    }

    /// Whether this is a sandbox (magic-signature) session.
    pub fn is_sandbox(&self) -> bool {
        matches!(self.signer, Signer::Sandbox)
    }

    /// Whether [`Session::close`] was called.
    pub fn is_closed(&self) -> bool {
        matches!(self.signer, Signer::Closed)
    }

    /// Whether `now` is at or after `expiresAt`.
    pub fn is_expired_at(&self, now: UnixMillis) -> bool {
        now >= self.info.expires_at_ms
    }

    /// Whether the session's clock is at or after `expiresAt`.
    pub fn is_expired(&self) -> bool {
        self.is_expired_at(self.clock.now_ms())
    }

    /// Zeroizes the key; every later signing call is `SESSION_CLOSED`.
    pub fn close(&mut self) {
        self.signer = Signer::Closed;
        self.signed_requests.clear();
    }

    /// Checks closed and expired, then signs `payload` at `now`.
    fn sign_at(&self, payload: &str, now: UnixMillis) -> Result<String> {
        let signer = match &self.signer {
            Signer::Closed => {
                return Err(Error::new(
                    ErrorCode::SessionClosed,
                    "this session was freed; its key is gone",
                ))
            }
            signer => signer,
        };
        if self.is_expired_at(now) {
            return Err(Error::new(
                ErrorCode::SessionExpired,
                "the session's expiresAt has passed; refresh or re-authenticate",
            ));
        }
        Ok(match signer {
            Signer::Key(key) => stamp(key, payload),
            Signer::Sandbox => SANDBOX_SIGNATURE.to_owned(),
            Signer::Closed => unreachable!("handled above"),
        })
    }

    /// The `Service-Wallet-Signature` value for `payload`, signed byte for byte.
    pub fn stamp(&self, payload: &str) -> Result<String> {
        self.sign_at(payload, self.clock.now_ms())
    }

    /// Signs a 202: both retry headers. Refuses an expired 202 (`REQUEST_EXPIRED`) and a
    /// requestId this session already signed (`REQUEST_ALREADY_SIGNED`).
    pub fn sign_retry(&mut self, pending: &PendingSignature) -> Result<SignedRetryHeaders> {
        let now = self.clock.now_ms();
        if !self.is_closed() && !self.is_expired_at(now) {
            if now >= pending.expires_at_ms {
                return Err(Error::new(
                    ErrorCode::RequestExpired,
                    "the 202's expiresAt has passed; send the request again for a new requestId",
                ));
            }
            if self
                .signed_requests
                .iter()
                .any(|(id, _)| *id == pending.request_id)
            {
                return Err(Error::new(
                    ErrorCode::RequestAlreadySigned,
                    "this session already signed this requestId; request ids are single-use",
                ));
            }
        }
        let signature = self.sign_at(&pending.payload_to_sign, now)?;
        // Expired ids can never be signed again anyway: forget them so the set stays small.
        self.signed_requests.retain(|(_, expires)| *expires > now);
        self.signed_requests
            .push((pending.request_id.clone(), pending.expires_at_ms));
        Ok(SignedRetryHeaders {
            signature,
            request_id: pending.request_id.clone(),
        })
    }

    /// Signs a quote for `POST /quotes/{id}/execute`: the header value alone.
    /// `QUOTE_EXPIRED` after the quote's expiresAt.
    pub fn sign_quote(&self, quote: &QuoteToSign) -> Result<String> {
        let now = self.clock.now_ms();
        if !self.is_closed() && !self.is_expired_at(now) && now >= quote.expires_at_ms {
            return Err(Error::new(
                ErrorCode::QuoteExpired,
                "the quote's expiresAt has passed; create a new quote",
            ));
        }
        self.sign_at(&quote.payload_to_sign, now)
    }
}

#[cfg(feature = "json")]
fn parse_response(text: &str) -> Result<serde_json::Map<String, serde_json::Value>> {
    crate::fields::parse_object(text, ErrorCode::InvalidSession, WHAT)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bundle::seal;
    use crate::encoding::base58check_encode;
    use crate::fields::test_support::TestFields;
    use crate::test_vectors::{hex, vectors};
    use crate::timestamp::FixedClock;
    use p256::SecretKey;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    const EXPIRES: &str = "2025-10-13T12:15:00Z";
    const EXPIRES_MS: UnixMillis = 1_760_357_700_000;
    const REQUEST: &str = "Request:123e4567-e89b-12d3-a456-426614174000";

    fn response(bundle: &str) -> TestFields {
        TestFields::default()
            .with("id", "Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b")
            .with(
                "accountId",
                "InternalAccount:7f3e9b1c-2a4d-4c8e-b6f1-9d0e2a3b4c5d",
            )
            .with("type", "EMAIL_OTP")
            .with("nickname", "user@example.com")
            .with("expiresAt", EXPIRES)
            .with("encryptedSessionSigningKey", bundle)
    }

    fn sealed_session(session_secret: &SecretKey) -> (TestFields, ClientKey) {
        let key = ClientKey::generate().unwrap();
        let bundle = seal(key.public_key(), &session_secret.to_bytes()).unwrap();
        (response(&bundle), key)
    }

    fn pending(expires: &str) -> PendingSignature {
        PendingSignature {
            payload_to_sign: "{\"a\":1}".into(),
            request_id: REQUEST.into(),
            expires_at_ms: parse_rfc3339(expires, "t").unwrap(),
        }
    }

    fn before_expiry() -> FixedClock {
        FixedClock(EXPIRES_MS - 60_000)
    }

    #[test]
    fn upstream_vector_opens_to_the_published_session_key() {
        let v = vectors("credential-bundles.json");
        let case = &v["upstream"][0];
        let secret =
            SecretKey::from_slice(&hex(case["receiverPrivateKeyHex"].as_str().unwrap())).unwrap();
        let mut key = ClientKey::from_secret(secret);
        let session = Session::open(&response(case["bundle"].as_str().unwrap()), &mut key).unwrap();
        assert_eq!(
            session.public_key_hex().unwrap(),
            case["expectedSessionPublicKeyCompressedHex"]
                .as_str()
                .unwrap()
        );
        assert!(key.is_consumed());
        assert_eq!(session.info().kind, "EMAIL_OTP");
        assert_eq!(session.info().expires_at_ms, EXPIRES_MS);
    }

    #[test]
    fn opened_session_stamps_like_the_vectors() {
        let v = vectors("api-key-stamps.json");
        let case = &v["deterministicStamps"][0];
        let session_secret =
            SecretKey::from_slice(&hex(case["privateKeyHex"].as_str().unwrap())).unwrap();
        let (resp, mut key) = sealed_session(&session_secret);
        let session = Session::open(&resp, &mut key)
            .unwrap()
            .with_clock(before_expiry());
        let payload = case["payloadUtf8"].as_str().unwrap();
        assert_eq!(
            session.stamp(payload).unwrap(),
            case["stampHeaderValue"].as_str().unwrap()
        );
    }

    #[test]
    fn key_is_single_use_but_survives_a_failed_open() {
        let session_secret = SecretKey::from_slice(&[3u8; 32]).unwrap();
        let (resp, mut key) = sealed_session(&session_secret);
        let bad = response("not-base58-0OIl");
        assert_eq!(
            Session::open(&bad, &mut key).unwrap_err().code(),
            ErrorCode::InvalidBundle
        );
        assert!(!key.is_consumed());
        Session::open(&resp, &mut key).unwrap();
        let err = Session::open(&resp, &mut key).unwrap_err();
        assert_eq!(err.code(), ErrorCode::KeyConsumed);
        let err = Session::from_client_key(&resp.without("encryptedSessionSigningKey"), &mut key)
            .unwrap_err();
        assert_eq!(err.code(), ErrorCode::KeyConsumed);
    }

    #[test]
    fn wrong_key_is_decryption_failed() {
        let session_secret = SecretKey::from_slice(&[3u8; 32]).unwrap();
        let (resp, _) = sealed_session(&session_secret);
        let mut other = ClientKey::generate().unwrap();
        assert_eq!(
            Session::open(&resp, &mut other).unwrap_err().code(),
            ErrorCode::DecryptionFailed
        );
    }

    #[test]
    fn bundle_of_wrong_length_or_scalar_is_invalid_bundle() {
        let mut key = ClientKey::generate().unwrap();
        let short = seal(key.public_key(), &[1u8; 31]).unwrap();
        let err = Session::open(&response(&short), &mut key).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidBundle);
        assert!(err.message().contains("80 bytes"), "{err}");
        // 32 bytes that are not a scalar (zero, and the group order).
        for bad in [
            [0u8; 32],
            hex("ffffffff00000000ffffffffffffffffbce6faada7179e84f3b9cac2fc632551")
                .try_into()
                .unwrap(),
        ] {
            let sealed = seal(key.public_key(), &bad).unwrap();
            let err = Session::open(&response(&sealed), &mut key).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidBundle);
            assert!(err.message().contains("valid P-256 private key"));
            assert!(!key.is_consumed());
        }
    }

    #[test]
    fn stub_sandbox_bundle_does_not_open_but_sandbox_ignores_it() {
        // The 2025-10-13 sandbox stub: 0x02 ‖ 32 random bytes ‖ 48 random bytes.
        let mut stub = vec![0x02];
        stub.extend((0..80).map(|i| (i * 37 + 11) as u8));
        let stub_text = base58check_encode(&stub);
        let mut key = ClientKey::generate().unwrap();
        let err = Session::open(&response(&stub_text), &mut key).unwrap_err();
        assert!(matches!(
            err.code(),
            ErrorCode::InvalidBundle | ErrorCode::DecryptionFailed
        ));
        for resp in [
            response(&stub_text),
            response("garbage!"),
            response("x").without("encryptedSessionSigningKey"),
        ] {
            let mut s = Session::sandbox(&resp).unwrap().with_clock(before_expiry());
            assert!(s.is_sandbox());
            assert_eq!(s.public_key_hex(), None);
            assert_eq!(s.stamp("anything").unwrap(), SANDBOX_SIGNATURE);
            let h = s.sign_retry(&pending(EXPIRES)).unwrap();
            assert_eq!(h.signature, SANDBOX_SIGNATURE);
            assert_eq!(h.request_id, REQUEST);
        }
    }

    #[test]
    fn malformed_responses_name_the_field() {
        let good = response("x");
        let cases = [
            (good.clone().without("id"), "id"),
            (
                good.clone()
                    .with("id", "AuthMethod:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b"),
                "Session:<uuid>",
            ),
            (good.clone().without("accountId"), "accountId"),
            (good.clone().with("accountId", ""), "accountId"),
            (good.clone().non_string("type"), "type"),
            (good.clone().with("type", "email otp"), "type"),
            (good.clone().without("expiresAt"), "expiresAt"),
        ];
        for (resp, needle) in cases {
            let err = Session::sandbox(&resp).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidSession, "{err}");
            assert!(err.message().contains(needle), "{err}");
        }
        let err = Session::sandbox(&good.clone().with("expiresAt", "tomorrow")).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidTimestamp);
        let mut key = ClientKey::generate().unwrap();
        let err = Session::open(
            &good.clone().without("encryptedSessionSigningKey"),
            &mut key,
        )
        .unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidSession);
        let err =
            Session::open(&good.non_string("encryptedSessionSigningKey"), &mut key).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidSession);
    }

    #[test]
    fn expiry_is_enforced_at_and_after_expires_at() {
        let secret = SecretKey::from_slice(&[5u8; 32]).unwrap();
        let (resp, mut key) = sealed_session(&secret);
        let s = Session::open(&resp, &mut key).unwrap();
        let s = s.with_clock(FixedClock(EXPIRES_MS - 1));
        assert!(!s.is_expired());
        assert!(s.stamp("p").is_ok());
        for now in [EXPIRES_MS, EXPIRES_MS + 1, EXPIRES_MS + 86_400_000] {
            let mut s2 = Session::sandbox(&resp).unwrap().with_clock(FixedClock(now));
            assert!(s2.is_expired());
            assert_eq!(s2.stamp("p").unwrap_err().code(), ErrorCode::SessionExpired);
            assert_eq!(
                s2.sign_retry(&pending("2030-01-01T00:00:00Z"))
                    .unwrap_err()
                    .code(),
                ErrorCode::SessionExpired
            );
            let q = QuoteToSign {
                payload_to_sign: "q".into(),
                expires_at_ms: now + 1,
            };
            assert_eq!(
                s2.sign_quote(&q).unwrap_err().code(),
                ErrorCode::SessionExpired
            );
        }
    }

    #[test]
    fn retry_guards() {
        let secret = SecretKey::from_slice(&[6u8; 32]).unwrap();
        let (resp, mut key) = sealed_session(&secret);
        let mut s = Session::open(&resp, &mut key)
            .unwrap()
            .with_clock(before_expiry());
        let p = pending(EXPIRES);
        let headers = s.sign_retry(&p).unwrap();
        assert_eq!(headers.request_id, REQUEST);
        assert_eq!(headers.signature, s.stamp(&p.payload_to_sign).unwrap());
        assert_eq!(
            s.sign_retry(&p).unwrap_err().code(),
            ErrorCode::RequestAlreadySigned
        );
        let other = PendingSignature {
            request_id: "Request:00000000-0000-4000-8000-000000000000".into(),
            ..p.clone()
        };
        assert!(s.sign_retry(&other).is_ok());
        // At the 202's expiresAt the window is closed.
        let at = PendingSignature {
            expires_at_ms: EXPIRES_MS - 60_000,
            request_id: "Request:00000000-0000-4000-8000-000000000001".into(),
            ..p
        };
        assert_eq!(
            s.sign_retry(&at).unwrap_err().code(),
            ErrorCode::RequestExpired
        );
    }

    #[test]
    fn quote_guards() {
        let s = Session::sandbox(&response("x"))
            .unwrap()
            .with_clock(before_expiry());
        let now = EXPIRES_MS - 60_000;
        let live = QuoteToSign {
            payload_to_sign: "q".into(),
            expires_at_ms: now + 1,
        };
        assert_eq!(s.sign_quote(&live).unwrap(), SANDBOX_SIGNATURE);
        let dead = QuoteToSign {
            expires_at_ms: now,
            ..live
        };
        assert_eq!(
            s.sign_quote(&dead).unwrap_err().code(),
            ErrorCode::QuoteExpired
        );
    }

    #[test]
    fn close_zeroizes_and_refuses() {
        let secret = SecretKey::from_slice(&[8u8; 32]).unwrap();
        let (resp, mut key) = sealed_session(&secret);
        let mut s = Session::open(&resp, &mut key)
            .unwrap()
            .with_clock(before_expiry());
        s.close();
        assert!(s.is_closed());
        assert_eq!(s.public_key_hex(), None);
        assert_eq!(s.stamp("p").unwrap_err().code(), ErrorCode::SessionClosed);
        assert_eq!(
            s.sign_retry(&pending(EXPIRES)).unwrap_err().code(),
            ErrorCode::SessionClosed
        );
        let q = QuoteToSign {
            payload_to_sign: "q".into(),
            expires_at_ms: EXPIRES_MS,
        };
        assert_eq!(
            s.sign_quote(&q).unwrap_err().code(),
            ErrorCode::SessionClosed
        );
    }

    #[test]
    fn from_client_key_uses_the_client_key_and_refuses_bundles() {
        let mut key = ClientKey::generate().unwrap();
        let compressed = key.compressed_public_key_hex();
        let err = Session::from_client_key(&response("bundle"), &mut key).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidSession);
        assert!(!key.is_consumed());
        let s = Session::from_client_key(
            &response("").without("encryptedSessionSigningKey"),
            &mut key,
        )
        .unwrap();
        assert_eq!(s.public_key_hex().unwrap(), compressed);
        assert!(key.is_consumed());
    }

    #[test]
    fn debug_shows_no_secret() {
        let secret = SecretKey::from_slice(&[0x42u8; 32]).unwrap();
        let (resp, mut key) = sealed_session(&secret);
        let s = Session::open(&resp, &mut key).unwrap();
        let shown = format!("{s:?} {key:?}");
        assert!(!shown.contains(&"42".repeat(32)), "{shown}");
    }

    #[cfg(feature = "json")]
    #[test]
    fn json_text_entry_points() {
        let secret = SecretKey::from_slice(&[9u8; 32]).unwrap();
        let mut key = ClientKey::generate().unwrap();
        let bundle = seal(key.public_key(), &secret.to_bytes()).unwrap();
        let text = format!(
            r#"{{"id":"Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b","accountId":"InternalAccount:x","type":"PASSKEY","nickname":"n","createdAt":"2025-10-13T12:00:00Z","updatedAt":"2025-10-13T12:00:00Z","expiresAt":"2025-10-13T12:15:00.000+02:00","credentialId":"abc","encryptedSessionSigningKey":"{bundle}"}}"#
        );
        let s = Session::open_json(&text, &mut key).unwrap();
        assert_eq!(s.info().kind, "PASSKEY");
        assert_eq!(s.info().expires_at_ms, EXPIRES_MS - 7_200_000);
        let err = Session::open_json(&text, &mut key).unwrap_err();
        assert_eq!(err.code(), ErrorCode::KeyConsumed);
        assert_eq!(
            Session::sandbox_json("[]").unwrap_err().code(),
            ErrorCode::InvalidSession
        );
        assert_eq!(
            Session::sandbox_json("{").unwrap_err().code(),
            ErrorCode::InvalidSession
        );
    }
}

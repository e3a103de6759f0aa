//! A session: the key that signs for an embedded wallet until `expiresAt`, built from a
//! verify/refresh response. It stamps payloads, signs retries (each requestId once, never
//! past the 202's expiry) and quotes, and refuses everything after its own expiry.

use crate::prelude::*;
use crate::text::Decimal;
use p256::elliptic_curve::sec1::ToSec1Point;
use p256::PublicKey;
use zeroize::Zeroizing;

use crate::bundle::{is_off_curve, Bundle, SESSION_BUNDLE_LEN};
use crate::client_key::ClientKey;
use crate::error::{Error, ErrorCode, Result};
use crate::fields::{is_kind_uuid, optional, required, Fields};
use crate::inspect::check_signable;
use crate::message::{PendingSignature, QuoteToSign, SignedRetryHeaders};
use crate::request_ids::SignedRequestIds;
#[cfg(test)]
use crate::request_ids::{MAX_SIGNED_REQUEST_IDS, SIGNED_REQUEST_ID_HORIZON_MS};
use crate::signing_key::SigningKey;
use crate::stamp::stamp_with;
use crate::timestamp::{parse_rfc3339, UnixMillis};

/// The sandbox's accepted `Service-Wallet-Signature`.
#[cfg_attr(not(feature = "service"), allow(unreachable_pub))]
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
                [
                    WHAT,
                    " id is not of the form Session:<uuid> (is this a session response?)",
                ]
                .concat(),
            ));
        }
        let account_id = required(response, "accountId", code, WHAT)?;
        if account_id.is_empty() {
            return Err(Error::new(code, [WHAT, " accountId is empty"].concat()));
        }
        let kind = required(response, "type", code, WHAT)?;
        if kind.is_empty() || !kind.bytes().all(|c| c.is_ascii_uppercase() || c == b'_') {
            return Err(Error::new(
                code,
                [
                    WHAT,
                    " type is not a credential type such as EMAIL_OTP, OAUTH or PASSKEY",
                ]
                .concat(),
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
    /// A real session key (its secret zeroized on drop).
    Key(SigningKey),
    /// Sandbox: the magic signature, no key.
    Sandbox,
    /// The key lives in WebCrypto (the session store): this side checks and stamps, the
    /// signature itself comes from `crypto.subtle.sign`.
    External(PublicKey),
    /// Freed.
    Closed,
}

/// A signing session.
pub struct Session {
    info: SessionInfo,
    signer: Signer,
    /// requestIds this session's key signed, so none is signed twice (with those its
    /// client key signed before it became this session's key).
    signed_requests: SignedRequestIds,
    /// The AuthMethod this session was issued for, when the flow that opened it knows.
    credential_id: Option<String>,
    /// How the session key came to this side: kept after [`Session::close`].
    key_mode: KeyMode,
}

/// How a session's key came to this side (the value of [`Session::key_mode`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum KeyMode {
    /// Opened from the service's sealed `encryptedSessionSigningKey`.
    Sealed,
    /// The client's own key became the session key (no bundle).
    ClientHeld,
    /// The sandbox's magic signature; no key.
    Sandbox,
}

impl KeyMode {
    /// The name apps see (`Session.keyMode` in JS; a store record's `keyMode`).
    fn name(self) -> &'static str {
        match self {
            Self::Sealed => "sealed",
            Self::ClientHeld => "client-held",
            Self::Sandbox => "sandbox",
        }
    }
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

/// `SESSION_CLOSED`: every use of a freed session.
fn closed() -> Error {
    Error::new(
        ErrorCode::SessionClosed,
        "this session was freed; its key is gone",
    )
}

impl Session {
    fn new(info: SessionInfo, signer: Signer, key_mode: KeyMode) -> Self {
        Self {
            info,
            signer,
            signed_requests: SignedRequestIds::default(),
            credential_id: None,
            key_mode,
        }
    }

    /// Opens `encryptedSessionSigningKey` of a verify/refresh response with `key`, which
    /// is consumed on success (a failed open leaves it usable, so nothing is lost), and
    /// also when the bundle's encapsulated key is not a point on P-256: an honest service
    /// never sends one, and it is how an invalid-curve probe of the key would begin. On
    /// `ENGINE_FAULT` (a faulty ECDH) the key is poisoned: wiped, and `ENGINE_FAULT` from
    /// then on.
    pub fn open(response: &dyn Fields, key: &mut ClientKey) -> Result<Self> {
        let secret = key.secret()?;
        let opened = Self::open_by(response, |bundle| bundle.open_for(secret, key.public_key()));
        match &opened {
            Err(e) if e.code() == ErrorCode::EngineFault => key.poison(),
            Ok(_) => key.consume(),
            Err(e) if is_off_curve(e) => key.consume(),
            Err(_) => {}
        }
        opened
    }

    /// [`Session::open`] for a client key kept in WebCrypto (the session store): `dh` is
    /// the ECDH result of that key with the bundle's encapsulated key
    /// ([`Session::encapsulated_key`]), `client_public` the key's public half.
    pub fn open_with_dh(
        response: &dyn Fields,
        dh: &[u8],
        client_public: &PublicKey,
    ) -> Result<Self> {
        Self::open_by(response, |bundle| bundle.open_with_dh(dh, client_public))
    }

    /// The encapsulated key of a verify/refresh response's bundle, uncompressed: what
    /// a WebCrypto ECDH needs for [`Session::open_with_dh`].
    pub fn encapsulated_key(response: &dyn Fields) -> Result<Vec<u8>> {
        let bundle = Self::bundle(response)?;
        Ok(bundle
            .encapsulated_key()
            .to_sec1_point(false)
            .as_bytes()
            .to_vec())
    }

    fn bundle(response: &dyn Fields) -> Result<Bundle> {
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
                [
                    "encryptedSessionSigningKey payload is ",
                    &Decimal::from(bundle.payload_len()),
                    " bytes; a session key bundle is ",
                    &Decimal::from(SESSION_BUNDLE_LEN),
                ]
                .concat(),
            ));
        }
        Ok(bundle)
    }

    /// Reads the response, then opens its bundle with `open` into the session key.
    fn open_by(
        response: &dyn Fields,
        open: impl FnOnce(&Bundle) -> Result<Zeroizing<Vec<u8>>>,
    ) -> Result<Self> {
        let info = SessionInfo::from_fields(response)?;
        let scalar = open(&Self::bundle(response)?)?;
        let secret = p256::SecretKey::from_slice(&scalar).map_err(|_| {
            Error::new(
                ErrorCode::InvalidBundle,
                "encryptedSessionSigningKey does not hold a valid P-256 private key",
            )
        })?;
        Ok(Self::new(
            info,
            Signer::Key(SigningKey::new(secret)?),
            KeyMode::Sealed,
        ))
    }

    /// The session key in PKCS#8, for `crypto.subtle.importKey` (the session store).
    /// `SESSION_CLOSED` once freed; `INVALID_INPUT` for a session without a key of its
    /// own (sandbox, or one already kept in WebCrypto). Secret: wiped when dropped.
    /// (The npm package's session store moves a session key into a non-extractable
    /// WebCrypto key with it.)
    pub fn key_pkcs8(&self) -> Result<Zeroizing<Vec<u8>>> {
        match &self.signer {
            Signer::Key(key) => {
                key.with_secret(|secret| crate::webcrypto::pkcs8_der(secret, key.public_key()))
            }
            Signer::Closed => Err(closed()),
            Signer::Sandbox | Signer::External(_) => Err(Error::new(
                ErrorCode::InvalidInput,
                "only a session with a key (not sandbox) has a key to store",
            )),
        }
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
            KeyMode::Sandbox,
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
        let public = *key.public_key();
        let secret = key.take_secret()?;
        let mut session = Self::new(
            info,
            Signer::Key(SigningKey::with_public(secret, public)),
            KeyMode::ClientHeld,
        );
        // The same key: what it signed as the OTP login's TEK stays signed.
        session.signed_requests = key.take_signed_requests();
        Ok(session)
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

    /// The requestIds this session (or the key it came from) signed.
    pub fn signed_request_ids(&self) -> &SignedRequestIds {
        &self.signed_requests
    }

    /// Compressed SEC1 hex of the session public key; `None` for a sandbox session.
    pub fn public_key_hex(&self) -> Option<String> {
        match &self.signer {
            Signer::Key(k) => Some(crate::public_key::compressed_hex(k.public_key())),
            Signer::External(public) => Some(crate::public_key::compressed_hex(public)),
            Signer::Sandbox | Signer::Closed => None,
        }
    }

    /// How the session key came to this side: `"sealed"` (opened from the sealed bundle),
    /// `"client-held"` (the client's own key) or `"sandbox"` (no key); unchanged by
    /// [`Session::close`].
    pub fn key_mode(&self) -> &'static str {
        self.key_mode.name()
    }

    /// Whether this is a sandbox (magic-signature) session.
    pub fn is_sandbox(&self) -> bool {
        matches!(self.signer, Signer::Sandbox)
    }

    /// Whether a signature of this session's did not verify (an engine fault): its key is
    /// wiped and every signing call is `ENGINE_FAULT`.
    pub fn is_poisoned(&self) -> bool {
        matches!(&self.signer, Signer::Key(key) if key.is_poisoned())
    }

    /// Whether [`Session::close`] was called.
    pub fn is_closed(&self) -> bool {
        matches!(self.signer, Signer::Closed)
    }

    /// Whether `now` is at or after `expiresAt`.
    pub fn is_expired(&self, now: UnixMillis) -> bool {
        now >= self.info.expires_at_ms
    }

    /// Zeroizes the key; every later signing call is `SESSION_CLOSED`.
    pub fn close(&mut self) {
        self.signer = Signer::Closed;
        self.signed_requests = SignedRequestIds::default();
    }

    /// A session whose key was imported into WebCrypto (the session store), restored
    /// from its stored fields (`id`, `accountId`, `type`, `expiresAt`) and public key.
    /// Its guards run here; it signs only through [`Session::stamp_from_p1363`].
    /// Its `keyMode` field (as [`Session::key_mode`] names it) is kept; a record without
    /// one is from a sealed session.
    pub fn external(info: &dyn Fields, public: PublicKey) -> Result<Self> {
        let key_mode = match optional(info, "keyMode", ErrorCode::InvalidSession, "stored session")?
            .as_deref()
        {
            None | Some("sealed") => KeyMode::Sealed,
            Some("client-held") => KeyMode::ClientHeld,
            Some(_) => {
                return Err(Error::new(
                    ErrorCode::InvalidSession,
                    "stored session field keyMode is not 'sealed' or 'client-held'",
                ))
            }
        };
        Ok(Self::new(
            SessionInfo::from_fields(info)?,
            Signer::External(public),
            key_mode,
        ))
    }

    /// `ENGINE_FAULT` once a faulty signature wiped the key, `SESSION_CLOSED` once freed,
    /// `SESSION_EXPIRED` at or after `expiresAt`.
    fn check_live(&self, now: UnixMillis) -> Result<()> {
        if self.is_poisoned() {
            return Err(crate::Error::engine_fault());
        }
        if self.is_closed() {
            return Err(closed());
        }
        if self.is_expired(now) {
            return Err(Error::new(
                ErrorCode::SessionExpired,
                "the session's expiresAt has passed; refresh or re-authenticate",
            ));
        }
        Ok(())
    }

    /// Signs `payload`, once a guard has let it through.
    fn sign(&self, payload: &str) -> Result<String> {
        match &self.signer {
            // A signature that does not verify wiped the key (`ENGINE_FAULT`).
            Signer::Key(key) => stamp_with(key, payload),
            Signer::Sandbox => Ok(SANDBOX_SIGNATURE.to_owned()),
            Signer::External(_) => Err(Error::new(
                ErrorCode::InvalidSession,
                "this session's key is in WebCrypto: sign through the session store",
            )),
            Signer::Closed => Err(closed()),
        }
    }

    // The guards take the time as an argument (sans-IO): natively `system_now()`, in the
    // wasm modules the bindings' `Date.now()`.

    /// Whether the session may stamp `payload` at `now`: live, not expired, and (with the
    /// `payload-guard` feature) the payload not JSON that readers could read differently
    /// (`INVALID_INPUT`, see [`crate::inspect_payload`]). Nothing else: no requestId or
    /// 202 expiry is known here, those are [`Session::sign_retry`]'s and
    /// [`Session::sign_quote`]'s.
    pub fn authorize_stamp(&self, payload: &str, now: UnixMillis) -> Result<()> {
        self.check_live(now)?;
        check_signable(payload, ErrorCode::InvalidInput)
    }

    /// The `Service-Wallet-Signature` value for `payload` at `now`, signed byte for byte,
    /// after [`Session::authorize_stamp`].
    pub fn stamp(&self, payload: &str, now: UnixMillis) -> Result<String> {
        self.authorize_stamp(payload, now)?;
        self.sign(payload)
    }

    /// The guards of [`Session::sign_retry`], and the requestId recorded as signed: a
    /// payload readers could read differently `INVALID_PENDING_SIGNATURE` (as in
    /// [`Session::authorize_stamp`]), an expired 202 `REQUEST_EXPIRED`, a requestId
    /// seen before (in any letter case) `REQUEST_ALREADY_SIGNED`, more than
    /// 1024 within an hour `RATE_LIMITED` (see [`SignedRequestIds`]).
    pub fn authorize_retry(&mut self, pending: &PendingSignature, now: UnixMillis) -> Result<()> {
        self.check_live(now)?;
        check_signable(&pending.payload_to_sign, ErrorCode::InvalidPendingSignature)?;
        if now >= pending.expires_at_ms {
            return Err(Error::new(
                ErrorCode::RequestExpired,
                "the 202's expiresAt has passed; send the request again for a new requestId",
            ));
        }
        self.signed_requests.record(&pending.request_id, now)
    }

    /// Signs a 202 at `now`: both retry headers, after [`Session::authorize_retry`].
    pub fn sign_retry(
        &mut self,
        pending: &PendingSignature,
        now: UnixMillis,
    ) -> Result<SignedRetryHeaders> {
        self.authorize_retry(pending, now)?;
        Ok(SignedRetryHeaders {
            signature: self.sign(&pending.payload_to_sign)?,
            request_id: pending.request_id.clone(),
        })
    }

    /// The guards of [`Session::sign_quote`]: a payload readers could read differently
    /// `INVALID_INPUT` (as in [`Session::authorize_stamp`]), `QUOTE_EXPIRED` at or
    /// after the quote's expiresAt.
    pub fn authorize_quote(&self, quote: &QuoteToSign, now: UnixMillis) -> Result<()> {
        self.check_live(now)?;
        check_signable(&quote.payload_to_sign, ErrorCode::InvalidInput)?;
        if now >= quote.expires_at_ms {
            return Err(Error::new(
                ErrorCode::QuoteExpired,
                "the quote's expiresAt has passed; create a new quote",
            ));
        }
        Ok(())
    }

    /// Signs a quote at `now` for `POST /quotes/{id}/execute`: the header value alone.
    pub fn sign_quote(&self, quote: &QuoteToSign, now: UnixMillis) -> Result<String> {
        self.authorize_quote(quote, now)?;
        self.sign(&quote.payload_to_sign)
    }

    /// The stamp of `payload`, which an authorize_* call let through, from the signature
    /// WebCrypto made with this [`Session::external`] session's key (64-byte `r ‖ s`),
    /// once it verifies (`ENGINE_FAULT` when it does not).
    pub fn stamp_from_p1363(&self, payload: &str, p1363: &[u8]) -> Result<String> {
        match &self.signer {
            Signer::External(public) => {
                crate::webcrypto::stamp_from_p1363(public, payload.as_bytes(), p1363)
            }
            Signer::Closed => Err(closed()),
            _ => Err(Error::new(
                ErrorCode::InvalidSession,
                "only a session restored from the session store signs through WebCrypto",
            )),
        }
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
    use crate::codec::base58check_encode;
    use crate::fields::test_support::TestFields;
    use crate::signing_key::{deterministic, fault};
    use crate::stamp::stamp;
    use crate::test_vectors::{hex, vectors};
    use p256::ecdsa::SigningKey;
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

    /// A minute before the sessions of these tests expire.
    const BEFORE_EXPIRY: UnixMillis = EXPIRES_MS - 60_000;

    #[test]
    fn upstream_vector_opens_to_the_published_session_key() {
        let v = vectors("credential-bundles.json");
        let case = &v["upstream"][0];
        let secret =
            SecretKey::from_slice(&hex(case["receiverPrivateKeyHex"].as_str().unwrap())).unwrap();
        let mut key = ClientKey::from_secret(secret).unwrap();
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
        let session = Session::open(&resp, &mut key).unwrap();
        let payload = case["payloadUtf8"].as_str().unwrap();
        // Through the test-only deterministic nonces: byte for byte.
        assert_eq!(
            deterministic::with(|| session.stamp(payload, BEFORE_EXPIRY)).unwrap(),
            case["stampHeaderValue"].as_str().unwrap()
        );
        // Shipped, hedged: two stamps of one payload differ, and both verify.
        let a = session.stamp(payload, BEFORE_EXPIRY).unwrap();
        let b = session.stamp(payload, BEFORE_EXPIRY).unwrap();
        assert_ne!(a, b);
        for header in [a, b] {
            crate::stamp::verify_stamp(&header, payload).unwrap();
        }
    }

    /// A stamp, a signed retry or a quote signature that does not verify is never
    /// returned: `ENGINE_FAULT`, and the session's key is wiped, so every later call on it
    /// is `ENGINE_FAULT` too (not `SESSION_CLOSED`: the app should reload, not re-login).
    #[test]
    fn a_faulty_signature_poisons_the_session() {
        let quote = QuoteToSign {
            payload_to_sign: "q".into(),
            expires_at_ms: EXPIRES_MS,
        };
        for faulty in 0..3 {
            let (resp, mut key) = sealed_session(&SecretKey::from_slice(&[9u8; 32]).unwrap());
            let mut s = Session::open(&resp, &mut key).unwrap();
            s.stamp("p", BEFORE_EXPIRY).unwrap();
            fault::corrupt_next_signatures(1);
            let err = match faulty {
                0 => s.stamp("p", BEFORE_EXPIRY).unwrap_err(),
                1 => s.sign_retry(&pending(EXPIRES), BEFORE_EXPIRY).unwrap_err(),
                _ => s.sign_quote(&quote, BEFORE_EXPIRY).unwrap_err(),
            };
            assert_eq!(err.code(), ErrorCode::EngineFault, "{faulty}");
            assert!(err.message().contains("reload the page"), "{err}");
            assert!(s.is_poisoned());
            assert!(!s.is_closed());
            let codes = [
                s.stamp("p", BEFORE_EXPIRY).unwrap_err().code(),
                s.stamp("p", EXPIRES_MS).unwrap_err().code(),
                s.authorize_stamp("p", BEFORE_EXPIRY).unwrap_err().code(),
                s.sign_quote(&quote, BEFORE_EXPIRY).unwrap_err().code(),
                s.key_pkcs8().unwrap_err().code(),
                s.sign_retry(
                    &PendingSignature {
                        request_id: "Request:00000000-0000-4000-8000-000000000001".into(),
                        ..pending(EXPIRES)
                    },
                    BEFORE_EXPIRY,
                )
                .unwrap_err()
                .code(),
            ];
            assert_eq!(codes, [ErrorCode::EngineFault; 6], "{faulty}");
        }
    }

    /// An encapsulated key that is not a point on P-256 gives up the client key (an
    /// invalid-curve probe of it); any other failed open leaves it usable.
    #[test]
    fn an_off_curve_encapsulated_key_consumes_the_client_key() {
        let mut key = ClientKey::generate().unwrap();
        let mut x = [0u8; 33];
        x[0] = 0x02;
        let off_curve = (0u8..=255)
            .find_map(|b| {
                x[32] = b;
                PublicKey::from_sec1_bytes(&x).is_err().then_some(x)
            })
            .unwrap();
        let payload = [&off_curve[..], &[0u8; 48]].concat();
        let err = Session::open(&response(&base58check_encode(&payload)), &mut key).unwrap_err();
        assert_eq!(err.code(), ErrorCode::InvalidBundle);
        assert!(err.message().contains("not a point on P-256"), "{err}");
        assert!(key.is_consumed());
        assert_eq!(
            Session::open(&response(&base58check_encode(&payload)), &mut key)
                .unwrap_err()
                .code(),
            ErrorCode::KeyConsumed
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
        // Byte-for-byte the message format! built before the kit dropped core::fmt.
        assert_eq!(
            err.message(),
            format!(
                "encryptedSessionSigningKey payload is {} bytes; a session key bundle is {SESSION_BUNDLE_LEN}",
                80
            )
        );
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
            let mut s = Session::sandbox(&resp).unwrap();
            assert!(s.is_sandbox());
            assert_eq!(s.public_key_hex(), None);
            assert_eq!(
                s.stamp("anything", BEFORE_EXPIRY).unwrap(),
                SANDBOX_SIGNATURE
            );
            let h = s.sign_retry(&pending(EXPIRES), BEFORE_EXPIRY).unwrap();
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
        assert!(!s.is_expired(EXPIRES_MS - 1));
        assert!(s.stamp("p", EXPIRES_MS - 1).is_ok());
        for now in [EXPIRES_MS, EXPIRES_MS + 1, EXPIRES_MS + 86_400_000] {
            let mut s2 = Session::sandbox(&resp).unwrap();
            assert!(s2.is_expired(now));
            assert_eq!(
                s2.stamp("p", now).unwrap_err().code(),
                ErrorCode::SessionExpired
            );
            assert_eq!(
                s2.sign_retry(&pending("2030-01-01T00:00:00Z"), now)
                    .unwrap_err()
                    .code(),
                ErrorCode::SessionExpired
            );
            let q = QuoteToSign {
                payload_to_sign: "q".into(),
                expires_at_ms: now + 1,
            };
            assert_eq!(
                s2.sign_quote(&q, now).unwrap_err().code(),
                ErrorCode::SessionExpired
            );
        }
    }

    #[cfg(feature = "std")]
    #[test]
    fn the_system_clock_as_now() {
        // EXPIRES is in 2025: past by the system clock natively, and on wasm32 the core's
        // clock reads as the end of time (failing closed).
        let now = crate::system_now();
        let past = Session::sandbox(&response("")).unwrap();
        assert!(past.is_expired(now));
        assert_eq!(
            past.stamp("p", now).unwrap_err().code(),
            ErrorCode::SessionExpired
        );
        let future =
            Session::sandbox(&response("").with("expiresAt", "2999-01-01T00:00:00Z")).unwrap();
        if cfg!(target_arch = "wasm32") {
            assert!(future.is_expired(now));
        } else {
            assert!(!future.is_expired(now));
            assert_eq!(future.stamp("p", now).unwrap(), SANDBOX_SIGNATURE);
        }
    }

    #[test]
    fn the_guards_judge_by_the_now_they_are_given() {
        // The system clock is past EXPIRES; the guards go by the `now` they are given.
        let s = Session::sandbox(&response("")).unwrap();
        let (before, at) = (EXPIRES_MS - 1, EXPIRES_MS);
        assert!(s.stamp("p", before).is_ok());
        assert_eq!(
            s.stamp("p", at).unwrap_err().code(),
            ErrorCode::SessionExpired
        );
        let mut s = s;
        let p = pending("2025-10-13T12:10:00Z"); // five minutes before the session expires
        let request_expiry = p.expires_at_ms;
        assert_eq!(
            s.sign_retry(&p, request_expiry).unwrap_err().code(),
            ErrorCode::RequestExpired
        );
        assert!(s.sign_retry(&p, request_expiry - 1).is_ok());
        let q = QuoteToSign {
            payload_to_sign: "q".into(),
            expires_at_ms: 1_000,
        };
        assert!(s.sign_quote(&q, 999).is_ok());
        assert_eq!(
            s.sign_quote(&q, 1_000).unwrap_err().code(),
            ErrorCode::QuoteExpired
        );
        assert!(s.authorize_stamp("p", before).is_ok());
        assert!(s.authorize_quote(&q, 999).is_ok());
    }

    #[test]
    fn retry_guards() {
        let secret = SecretKey::from_slice(&[6u8; 32]).unwrap();
        let (resp, mut key) = sealed_session(&secret);
        let mut s = Session::open(&resp, &mut key).unwrap();
        let p = pending(EXPIRES);
        let headers = s.sign_retry(&p, BEFORE_EXPIRY).unwrap();
        assert_eq!(headers.request_id, REQUEST);
        // The retry's signature is a stamp of the payload by the session's key.
        let signed = crate::stamp::verify_stamp(&headers.signature, &p.payload_to_sign).unwrap();
        assert_eq!(Some(signed.public_key), s.public_key_hex());
        assert_eq!(
            s.sign_retry(&p, BEFORE_EXPIRY).unwrap_err().code(),
            ErrorCode::RequestAlreadySigned
        );
        let other = PendingSignature {
            request_id: "Request:00000000-0000-4000-8000-000000000000".into(),
            ..p.clone()
        };
        assert!(s.sign_retry(&other, BEFORE_EXPIRY).is_ok());
        // At the 202's expiresAt the window is closed.
        let at = PendingSignature {
            expires_at_ms: EXPIRES_MS - 60_000,
            request_id: "Request:00000000-0000-4000-8000-000000000001".into(),
            ..p
        };
        assert_eq!(
            s.sign_retry(&at, BEFORE_EXPIRY).unwrap_err().code(),
            ErrorCode::RequestExpired
        );
    }

    #[test]
    fn quote_guards() {
        let s = Session::sandbox(&response("x")).unwrap();
        let now = EXPIRES_MS - 60_000;
        let live = QuoteToSign {
            payload_to_sign: "q".into(),
            expires_at_ms: now + 1,
        };
        assert_eq!(
            s.sign_quote(&live, BEFORE_EXPIRY).unwrap(),
            SANDBOX_SIGNATURE
        );
        let dead = QuoteToSign {
            expires_at_ms: now,
            ..live
        };
        assert_eq!(
            s.sign_quote(&dead, BEFORE_EXPIRY).unwrap_err().code(),
            ErrorCode::QuoteExpired
        );
    }

    #[test]
    fn close_zeroizes_and_refuses() {
        let secret = SecretKey::from_slice(&[8u8; 32]).unwrap();
        let (resp, mut key) = sealed_session(&secret);
        let mut s = Session::open(&resp, &mut key).unwrap();
        s.close();
        assert!(s.is_closed());
        assert_eq!(s.public_key_hex(), None);
        assert_eq!(
            s.stamp("p", BEFORE_EXPIRY).unwrap_err().code(),
            ErrorCode::SessionClosed
        );
        assert_eq!(
            s.sign_retry(&pending(EXPIRES), BEFORE_EXPIRY)
                .unwrap_err()
                .code(),
            ErrorCode::SessionClosed
        );
        let q = QuoteToSign {
            payload_to_sign: "q".into(),
            expires_at_ms: EXPIRES_MS,
        };
        assert_eq!(
            s.sign_quote(&q, BEFORE_EXPIRY).unwrap_err().code(),
            ErrorCode::SessionClosed
        );
    }

    #[test]
    fn a_client_key_kept_in_webcrypto_opens_the_same_session() {
        let secret = SecretKey::from_slice(&[0x31; 32]).unwrap();
        let (resp, mut key) = sealed_session(&secret);
        let enc = Session::encapsulated_key(&resp).unwrap();
        assert_eq!(enc.len(), 65);
        // What crypto.subtle.deriveBits gives: x of the client scalar times enc.
        let enc = PublicKey::from_sec1_bytes(&enc).unwrap();
        let dh =
            p256::ecdh::diffie_hellman(key.secret().unwrap().to_nonzero_scalar(), enc.as_affine());
        let public = *key.public_key();
        let via_dh = Session::open_with_dh(&resp, dh.raw_secret_bytes(), &public).unwrap();
        let direct = Session::open(&resp, &mut key).unwrap();
        assert_eq!(via_dh.public_key_hex(), direct.public_key_hex());
        assert_eq!(via_dh.info(), direct.info());
        let other = ClientKey::generate().unwrap();
        let err =
            Session::open_with_dh(&resp, dh.raw_secret_bytes(), other.public_key()).unwrap_err();
        assert_eq!(err.code(), ErrorCode::DecryptionFailed);
        let listing = TestFields::default().with("id", "x");
        assert_eq!(
            Session::encapsulated_key(&listing).unwrap_err().code(),
            ErrorCode::InvalidSession
        );
    }

    #[test]
    fn the_pkcs8_export_is_the_session_key_and_only_for_real_keys() {
        use p256::pkcs8::DecodePrivateKey as _;
        let secret = SecretKey::from_slice(&[0x32; 32]).unwrap();
        let (resp, mut key) = sealed_session(&secret);
        let mut s = Session::open(&resp, &mut key).unwrap();
        let der = s.key_pkcs8().unwrap();
        assert_eq!(
            SecretKey::from_pkcs8_der(&der).unwrap().to_bytes(),
            secret.to_bytes()
        );
        s.close();
        assert_eq!(s.key_pkcs8().unwrap_err().code(), ErrorCode::SessionClosed);
        let sandbox = Session::sandbox(&resp).unwrap();
        assert_eq!(
            sandbox.key_pkcs8().unwrap_err().code(),
            ErrorCode::InvalidInput
        );
    }

    #[test]
    fn an_external_session_guards_here_and_stamps_a_webcrypto_signature() {
        use p256::ecdsa::signature::Signer as _;
        let signer = SigningKey::from_slice(&[0x33; 32]).unwrap();
        let public = PublicKey::from(signer.verifying_key());
        let mut s = Session::external(&response(""), public).unwrap();
        assert_eq!(
            s.public_key_hex(),
            Some(crate::public_key::compressed_hex(&public))
        );
        let p = pending(EXPIRES);
        s.authorize_retry(&p, BEFORE_EXPIRY).unwrap();
        // What crypto.subtle.sign returns for the payload: r ‖ s.
        let signature: p256::ecdsa::Signature = signer.sign(p.payload_to_sign.as_bytes());
        let header = s
            .stamp_from_p1363(&p.payload_to_sign, &signature.to_bytes())
            .unwrap();
        crate::stamp::verify_stamp(&header, &p.payload_to_sign).unwrap();
        // Deterministic nonces on both sides: the same header as the in-wasm signer's.
        assert_eq!(
            header,
            deterministic::with(|| stamp(&signer, &p.payload_to_sign)).unwrap()
        );
        assert_eq!(
            s.authorize_retry(&p, BEFORE_EXPIRY).unwrap_err().code(),
            ErrorCode::RequestAlreadySigned
        );
        // It never signs by itself.
        assert_eq!(
            s.stamp("x", BEFORE_EXPIRY).unwrap_err().code(),
            ErrorCode::InvalidSession
        );
        assert_eq!(
            s.authorize_stamp("p", EXPIRES_MS).unwrap_err().code(),
            ErrorCode::SessionExpired
        );
        // A key session does not take outside signatures.
        let secret = SecretKey::from_slice(&[8u8; 32]).unwrap();
        let (resp, mut key) = sealed_session(&secret);
        let own = Session::open(&resp, &mut key).unwrap();
        assert_eq!(
            own.stamp_from_p1363(&p.payload_to_sign, &signature.to_bytes())
                .unwrap_err()
                .code(),
            ErrorCode::InvalidSession
        );
    }

    #[test]
    fn a_session_says_how_its_key_came_here_even_once_closed() {
        let (resp, mut key) = sealed_session(&SecretKey::from_slice(&[0x34; 32]).unwrap());
        let mut sealed = Session::open(&resp, &mut key).unwrap();
        assert_eq!(sealed.key_mode(), "sealed");
        sealed.close();
        assert_eq!(sealed.key_mode(), "sealed");
        let mut own = ClientKey::generate().unwrap();
        let held = Session::from_client_key(
            &response("").without("encryptedSessionSigningKey"),
            &mut own,
        )
        .unwrap();
        assert_eq!(held.key_mode(), "client-held");
        assert_eq!(Session::sandbox(&resp).unwrap().key_mode(), "sandbox");
        // A stored session keeps the mode its record names; an old record is a sealed one.
        let public = *ClientKey::generate().unwrap().public_key();
        let stored = |mode: Option<&str>| {
            let record = response("");
            let record = match mode {
                Some(mode) => record.with("keyMode", mode),
                None => record,
            };
            Session::external(&record, public).map(|s| s.key_mode())
        };
        assert_eq!(stored(Some("client-held")).unwrap(), "client-held");
        assert_eq!(stored(Some("sealed")).unwrap(), "sealed");
        assert_eq!(stored(None).unwrap(), "sealed");
        assert_eq!(
            stored(Some("sandbox")).unwrap_err().code(),
            ErrorCode::InvalidSession
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

    fn request(n: u32) -> String {
        format!("Request:00000000-0000-4000-8000-{n:012x}")
    }

    #[test]
    fn a_replayed_202_with_a_later_expires_at_is_still_already_signed() {
        let start = EXPIRES_MS - 600_000;
        let mut now = start;
        let mut key_session = Session::sandbox(&response("x")).unwrap();
        let public = PublicKey::from(SigningKey::from_slice(&[0x34; 32]).unwrap().verifying_key());
        let mut external = Session::external(&response(""), public).unwrap();
        let first = PendingSignature {
            expires_at_ms: start + 60_000,
            ..pending(EXPIRES)
        };
        key_session.sign_retry(&first, now).unwrap();
        external.authorize_retry(&first, now).unwrap();
        // The first 202's window closes; other retries are signed meanwhile.
        now = start + 120_000;
        let other = PendingSignature {
            request_id: request(1),
            expires_at_ms: start + 400_000,
            ..first.clone()
        };
        key_session.sign_retry(&other, now).unwrap();
        external.authorize_retry(&other, now).unwrap();
        // The same 202 again, now claiming a later expiresAt.
        let replay = PendingSignature {
            expires_at_ms: start + 500_000,
            ..first
        };
        assert_eq!(
            key_session.sign_retry(&replay, now).unwrap_err().code(),
            ErrorCode::RequestAlreadySigned
        );
        assert_eq!(
            external.authorize_retry(&replay, now).unwrap_err().code(),
            ErrorCode::RequestAlreadySigned
        );
    }

    #[test]
    fn a_stored_record_of_signed_ids_is_read_in_canonical_form() {
        const ID: &str = "Request:123E4567-E89B-12D3-A456-426614174000";
        let mut ids = SignedRequestIds::from_entries([(ID.to_owned(), 5)]);
        assert_eq!(
            ids.entries(),
            &[(ID.to_ascii_lowercase().replace("request:", "Request:"), 5)]
        );
        let again = ids.record(&ID.to_ascii_lowercase().replace("request:", "Request:"), 6);
        assert_eq!(again.unwrap_err().code(), ErrorCode::RequestAlreadySigned);
        ids.record("Request:00000000-0000-4000-8000-000000000000", 7)
            .unwrap();
        assert_eq!(ids.len(), 2);
    }

    #[test]
    fn request_ids_are_compared_case_insensitively() {
        let mut s = Session::sandbox(&response("x")).unwrap();
        let (prefix, uuid) = REQUEST.split_at("Request:".len());
        let upper = format!("{prefix}{}", uuid.to_ascii_uppercase());
        // The 202 reader takes either case (RFC 9562 hex digits are case-insensitive).
        let body = TestFields::default()
            .with("type", "EMAIL_OTP")
            .with("payloadToSign", "{}")
            .with("requestId", &upper)
            .with("expiresAt", EXPIRES);
        let upper_202 = PendingSignature::from_fields(&body).unwrap();
        assert_eq!(upper_202.request_id, upper);
        s.sign_retry(&pending(EXPIRES), BEFORE_EXPIRY).unwrap();
        assert_eq!(
            s.sign_retry(&upper_202, BEFORE_EXPIRY).unwrap_err().code(),
            ErrorCode::RequestAlreadySigned
        );
        let mixed = PendingSignature {
            request_id: format!("{prefix}123E4567-e89B-12d3-A456-426614174000"),
            ..pending(EXPIRES)
        };
        assert_eq!(
            s.sign_retry(&mixed, BEFORE_EXPIRY).unwrap_err().code(),
            ErrorCode::RequestAlreadySigned
        );
        // Upper case first, lower case after: refused the same way.
        let mut s = Session::sandbox(&response("x")).unwrap();
        let headers = s.sign_retry(&upper_202, BEFORE_EXPIRY).unwrap();
        assert_eq!(
            headers.request_id, upper,
            "the header echoes the 202's id as sent"
        );
        assert_eq!(
            s.sign_retry(&pending(EXPIRES), BEFORE_EXPIRY)
                .unwrap_err()
                .code(),
            ErrorCode::RequestAlreadySigned
        );
    }

    #[test]
    fn signed_ids_are_bounded_by_a_cap_and_a_horizon_from_our_signature() {
        let start = EXPIRES_MS - 7_200_000;
        let mut now = start;
        let mut s = Session::sandbox(&response("x")).unwrap();
        let retry = |n: u32| PendingSignature {
            request_id: request(n),
            // The 202s claim far-off expiries: the cap must not depend on them.
            expires_at_ms: EXPIRES_MS,
            ..pending(EXPIRES)
        };
        let cap = MAX_SIGNED_REQUEST_IDS as u32;
        for n in 0..cap - 1 {
            s.sign_retry(&retry(n), now).unwrap();
        }
        now = start + 1_000;
        s.sign_retry(&retry(cap - 1), now).unwrap();
        let err = s.sign_retry(&retry(cap), now).unwrap_err();
        assert_eq!(err.code(), ErrorCode::RateLimited, "{err}");
        assert!(err.message().contains("requestIds"), "{err}");
        // Still refused just before the horizon; every id is still remembered.
        now = start + SIGNED_REQUEST_ID_HORIZON_MS - 1;
        assert_eq!(
            s.sign_retry(&retry(cap), now).unwrap_err().code(),
            ErrorCode::RateLimited
        );
        assert_eq!(
            s.sign_retry(&retry(0), now).unwrap_err().code(),
            ErrorCode::RequestAlreadySigned
        );
        // At the horizon the ids signed at `start` go; the one signed later stays.
        now = start + SIGNED_REQUEST_ID_HORIZON_MS;
        s.sign_retry(&retry(cap), now).unwrap();
        assert_eq!(
            s.sign_retry(&retry(cap - 1), now).unwrap_err().code(),
            ErrorCode::RequestAlreadySigned
        );
        assert_eq!(
            s.sign_retry(&retry(cap), now).unwrap_err().code(),
            ErrorCode::RequestAlreadySigned
        );
        assert!(s.signed_requests.len() <= MAX_SIGNED_REQUEST_IDS);
    }

    #[cfg(feature = "payload-guard")]
    /// JSON that readers could read differently from the kit: a name twice, exactly or
    /// but for letter case (Go's `encoding/json` takes the last, in any case), or text
    /// the strict reader refuses and a lenient one takes (a lone surrogate escape).
    const AMBIGUOUS: [&str; 4] = [
        r#"{"parameters":{"targetPublicKey":"ours","TargetPublicKey":"theirs"}}"#,
        r#"{"type":"A","type":"B"}"#,
        r#"{"a":"\ud800"}"#,
        "[{\"a\":1},]",
    ];

    #[cfg(feature = "payload-guard")]
    #[test]
    fn no_signing_path_signs_json_that_readers_could_read_differently() {
        let secret = SecretKey::from_slice(&[9u8; 32]).unwrap();
        let (resp, mut key) = sealed_session(&secret);
        let mut s = Session::open(&resp, &mut key).unwrap();
        let webcrypto = SigningKey::from_slice(&[0x34; 32]).unwrap();
        let mut external =
            Session::external(&response(""), PublicKey::from(webcrypto.verifying_key())).unwrap();
        let mut tek = ClientKey::generate().unwrap();
        for payload in AMBIGUOUS {
            let err = s.stamp(payload, BEFORE_EXPIRY).unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidInput, "{payload}");
            // The reason inspectPayload gives.
            assert_eq!(
                err.message(),
                crate::inspect_payload(payload).unwrap_err().message()
            );
            let p = PendingSignature {
                payload_to_sign: payload.into(),
                ..pending(EXPIRES)
            };
            let q = QuoteToSign {
                payload_to_sign: payload.into(),
                expires_at_ms: EXPIRES_MS,
            };
            for (result, code) in [
                (
                    s.sign_retry(&p, BEFORE_EXPIRY).map(|_| ()),
                    ErrorCode::InvalidPendingSignature,
                ),
                (
                    external.authorize_retry(&p, BEFORE_EXPIRY),
                    ErrorCode::InvalidPendingSignature,
                ),
                (
                    crate::enclave::sign_with_tek(&mut tek, &p, BEFORE_EXPIRY).map(|_| ()),
                    ErrorCode::InvalidPendingSignature,
                ),
                (
                    s.sign_quote(&q, BEFORE_EXPIRY).map(|_| ()),
                    ErrorCode::InvalidInput,
                ),
                (
                    external.authorize_quote(&q, BEFORE_EXPIRY),
                    ErrorCode::InvalidInput,
                ),
            ] {
                assert_eq!(result.unwrap_err().code(), code, "{payload}");
            }
        }
        // Refused before the requestId was spent: the 202 with a readable payload signs.
        s.sign_retry(&pending(EXPIRES), BEFORE_EXPIRY).unwrap();
        external
            .authorize_retry(&pending(EXPIRES), BEFORE_EXPIRY)
            .unwrap();
        // Anything else is signed as before, byte for byte: opaque text, and JSON with
        // one member per name in any case (the same name in different objects).
        for payload in [
            "",
            "a\0b",
            "eyJhbGciOiJFUzI1NiJ9.e30.sig",
            r#" {"a":{"b":1},"B":[{"b":2}]}"#,
        ] {
            let header = s.stamp(payload, BEFORE_EXPIRY).unwrap();
            crate::stamp::verify_stamp(&header, payload).unwrap();
        }
    }

    #[cfg(feature = "payload-guard")]
    #[test]
    fn the_session_store_path_checks_the_payload_too() {
        let webcrypto = SigningKey::from_slice(&[0x35; 32]).unwrap();
        let external =
            Session::external(&response(""), PublicKey::from(webcrypto.verifying_key())).unwrap();
        for payload in AMBIGUOUS {
            assert_eq!(
                external
                    .authorize_stamp(payload, BEFORE_EXPIRY)
                    .unwrap_err()
                    .code(),
                ErrorCode::InvalidInput
            );
        }
        external
            .authorize_stamp("{\"a\":1}", BEFORE_EXPIRY)
            .unwrap();
    }

    #[test]
    fn stamp_knows_no_request_id_and_no_202_or_quote_expiry() {
        // The boundary the README states: a requestId is signed once, and nothing after a
        // 202's or a quote's expiresAt, only through sign_retry and sign_quote. stamp
        // signs whatever it is given while the session is live: a 202's payload again,
        // and after the 202's expiresAt, each time a valid signature.
        let secret = SecretKey::from_slice(&[10u8; 32]).unwrap();
        let (resp, mut key) = sealed_session(&secret);
        let mut s = Session::open(&resp, &mut key).unwrap();
        let p = PendingSignature {
            expires_at_ms: BEFORE_EXPIRY + 1,
            ..pending(EXPIRES)
        };
        s.sign_retry(&p, BEFORE_EXPIRY).unwrap();
        assert_eq!(
            s.sign_retry(&p, BEFORE_EXPIRY).unwrap_err().code(),
            ErrorCode::RequestAlreadySigned
        );
        let q = QuoteToSign {
            payload_to_sign: "{\"q\":1}".into(),
            expires_at_ms: BEFORE_EXPIRY + 1,
        };
        let after = BEFORE_EXPIRY + 1;
        assert_eq!(
            s.sign_quote(&q, after).unwrap_err().code(),
            ErrorCode::QuoteExpired
        );
        for payload in [&p.payload_to_sign, &q.payload_to_sign] {
            for now in [BEFORE_EXPIRY, after] {
                let header = s.stamp(payload, now).unwrap();
                crate::stamp::verify_stamp(&header, payload).unwrap();
            }
        }
    }
}

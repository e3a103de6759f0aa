//! The one error type of the kit: a stable machine-readable [`ErrorCode`] plus a message
//! that names what was wrong. Messages never carry key material, OTPs or tokens: they
//! are built only from field names, lengths and positions, never from secret values.

use std::fmt;

/// Stable error codes. The string form (see [`ErrorCode::as_str`]) is part of the public
/// contract (DESIGN §5): JS callers switch on `KitError.code`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorCode {
    /// A public key is not a valid P-256 point in the expected encoding.
    InvalidPublicKey,
    /// A sealed bundle is malformed: bad encoding, wrong length or an invalid point.
    InvalidBundle,
    /// A base58check bundle's 4-byte checksum does not match its payload.
    BundleChecksum,
    /// HPKE open failed: the bundle was not sealed to this key, or was tampered with.
    DecryptionFailed,
    /// The client key was already used to open a session; it is single-use.
    KeyConsumed,
    /// A session (verify/refresh) response is malformed or of the wrong shape.
    InvalidSession,
    /// The session's `expiresAt` has passed; re-authenticate or refresh.
    SessionExpired,
    /// The session was freed; its key is gone.
    SessionClosed,
    /// A 202 PendingSignature body is malformed.
    InvalidPendingSignature,
    /// The signed-retry window (`expiresAt` of the 202) has passed.
    RequestExpired,
    /// This key (a session's, or the TEK that becomes it) already signed this
    /// `requestId`; request ids are single-use.
    RequestAlreadySigned,
    /// The quote's `expiresAt` has passed.
    QuoteExpired,
    /// A timestamp is not an RFC 3339 date-time.
    InvalidTimestamp,
    /// The platform has no WebAuthn support.
    PasskeyUnsupported,
    /// The user or the app cancelled the passkey ceremony.
    PasskeyCancelled,
    /// The passkey ceremony timed out.
    PasskeyTimeout,
    /// The relying-party id does not match the page's origin.
    PasskeyInvalidDomain,
    /// The authenticator already holds one of the excluded credentials.
    PasskeyAlreadyRegistered,
    /// Any other passkey failure.
    PasskeyFailed,
    /// The service answered 401.
    Unauthorized,
    /// The service answered 403: the request is not allowed (e.g. quote creation or
    /// execution when the platform's token lacks the `TRANSACT` permission).
    Forbidden,
    /// The service answered 429; wait as told by Retry-After. Also the kit's own refusal
    /// when one session signed more requestIds within an hour than any real use
    /// ([`crate::session::MAX_SIGNED_REQUEST_IDS`]).
    RateLimited,
    /// The service answered with an unexpected status or body.
    ServiceError,
    /// An argument is missing or malformed.
    InvalidInput,
    /// The platform's secure random number generator failed.
    RandomnessUnavailable,
    /// The kit was used before `init()` (raised by the JS shim).
    NotInitialized,
}

impl ErrorCode {
    /// The stable string form, e.g. `"INVALID_BUNDLE"`.
    pub const fn as_str(self) -> &'static str {
        match self {
            Self::InvalidPublicKey => "INVALID_PUBLIC_KEY",
            Self::InvalidBundle => "INVALID_BUNDLE",
            Self::BundleChecksum => "BUNDLE_CHECKSUM",
            Self::DecryptionFailed => "DECRYPTION_FAILED",
            Self::KeyConsumed => "KEY_CONSUMED",
            Self::InvalidSession => "INVALID_SESSION",
            Self::SessionExpired => "SESSION_EXPIRED",
            Self::SessionClosed => "SESSION_CLOSED",
            Self::InvalidPendingSignature => "INVALID_PENDING_SIGNATURE",
            Self::RequestExpired => "REQUEST_EXPIRED",
            Self::RequestAlreadySigned => "REQUEST_ALREADY_SIGNED",
            Self::QuoteExpired => "QUOTE_EXPIRED",
            Self::InvalidTimestamp => "INVALID_TIMESTAMP",
            Self::PasskeyUnsupported => "PASSKEY_UNSUPPORTED",
            Self::PasskeyCancelled => "PASSKEY_CANCELLED",
            Self::PasskeyTimeout => "PASSKEY_TIMEOUT",
            Self::PasskeyInvalidDomain => "PASSKEY_INVALID_DOMAIN",
            Self::PasskeyAlreadyRegistered => "PASSKEY_ALREADY_REGISTERED",
            Self::PasskeyFailed => "PASSKEY_FAILED",
            Self::Unauthorized => "UNAUTHORIZED",
            Self::Forbidden => "FORBIDDEN",
            Self::RateLimited => "RATE_LIMITED",
            Self::ServiceError => "SERVICE_ERROR",
            Self::InvalidInput => "INVALID_INPUT",
            Self::RandomnessUnavailable => "RANDOMNESS_UNAVAILABLE",
            Self::NotInitialized => "NOT_INITIALIZED",
        }
    }
}

impl fmt::Display for ErrorCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// An error with a stable code and a human-readable message.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Error {
    code: ErrorCode,
    message: String,
    service: Option<Box<ServiceDetails>>,
}

/// What the service said, for errors that come from a response.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ServiceDetails {
    /// HTTP status.
    pub status: u16,
    /// The body's `code`, when it has one.
    pub service_code: Option<String>,
    /// The body's `reason` (401s name the failed check there).
    pub reason: Option<String>,
    /// `Retry-After` of a 429, in milliseconds.
    pub retry_after_ms: Option<u64>,
}

impl Error {
    /// Builds an error. The message must not contain secret values.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            service: None,
        }
    }

    /// Builds an error from a service response.
    pub fn from_service(
        code: ErrorCode,
        message: impl Into<String>,
        details: ServiceDetails,
    ) -> Self {
        Self {
            code,
            message: message.into(),
            service: Some(Box::new(details)),
        }
    }

    /// The service's status, code, reason and wait, when the error came from a response.
    pub fn service(&self) -> Option<&ServiceDetails> {
        self.service.as_deref()
    }

    /// The stable code.
    pub fn code(&self) -> ErrorCode {
        self.code
    }

    /// The message, naming the field or value at fault.
    pub fn message(&self) -> &str {
        &self.message
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// The kit's result type.
pub type Result<T, E = Error> = core::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn display_is_code_then_message() {
        let e = Error::new(ErrorCode::InvalidBundle, "bundle is empty");
        assert_eq!(e.to_string(), "INVALID_BUNDLE: bundle is empty");
        assert_eq!(e.code().as_str(), "INVALID_BUNDLE");
    }

    #[test]
    fn codes_are_screaming_snake_case_and_unique() {
        let all = [
            ErrorCode::InvalidPublicKey,
            ErrorCode::InvalidBundle,
            ErrorCode::BundleChecksum,
            ErrorCode::DecryptionFailed,
            ErrorCode::KeyConsumed,
            ErrorCode::InvalidSession,
            ErrorCode::SessionExpired,
            ErrorCode::SessionClosed,
            ErrorCode::InvalidPendingSignature,
            ErrorCode::RequestExpired,
            ErrorCode::RequestAlreadySigned,
            ErrorCode::QuoteExpired,
            ErrorCode::InvalidTimestamp,
            ErrorCode::PasskeyUnsupported,
            ErrorCode::PasskeyCancelled,
            ErrorCode::PasskeyTimeout,
            ErrorCode::PasskeyInvalidDomain,
            ErrorCode::PasskeyAlreadyRegistered,
            ErrorCode::PasskeyFailed,
            ErrorCode::Unauthorized,
            ErrorCode::Forbidden,
            ErrorCode::RateLimited,
            ErrorCode::ServiceError,
            ErrorCode::InvalidInput,
            ErrorCode::RandomnessUnavailable,
            ErrorCode::NotInitialized,
        ];
        let mut seen = std::collections::BTreeSet::new();
        for code in all {
            let s = code.as_str();
            assert!(s.chars().all(|c| c.is_ascii_uppercase() || c == '_'), "{s}");
            assert!(seen.insert(s), "duplicate {s}");
        }
    }
}

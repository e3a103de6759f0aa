//! WebAuthn rejections mapped to stable codes. Keyed on the DOMException `name` (the
//! contract; messages differ per browser), the ceremony, and what the kit itself did
//! (its own cancel or its watchdog), so that a code only claims what the name proves.

use crate::error::ErrorCode;

/// Which ceremony failed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ceremony {
    /// `navigator.credentials.create`.
    Register,
    /// `navigator.credentials.get`.
    Authenticate,
}

/// What the kit knows about how the ceremony ended, besides the rejection itself.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Circumstances {
    /// The kit's watchdog fired (the browser never answered by the deadline).
    pub watchdog_fired: bool,
    /// The caller's signal, `cancel()` or a newer ceremony aborted this one.
    pub cancelled: bool,
    /// The rejection came at or after the requested timeout.
    pub past_deadline: bool,
}

/// The stable code and a human explanation for a rejection named `name` (`None` when
/// the rejection was not an Error, e.g. an abort reason given as a plain value).
pub fn classify(
    ceremony: Ceremony,
    name: Option<&str>,
    how: Circumstances,
) -> (ErrorCode, &'static str) {
    if how.watchdog_fired {
        return (
            ErrorCode::PasskeyTimeout,
            "the passkey ceremony timed out: no authenticator answered in time",
        );
    }
    if how.cancelled {
        return (
            ErrorCode::PasskeyCancelled,
            "the passkey ceremony was cancelled",
        );
    }
    match (name, ceremony) {
        (Some("AbortError"), _) => (ErrorCode::PasskeyCancelled, "the passkey ceremony was aborted"),
        // Chromium rejects with NotAllowedError at the deadline, exactly as for a cancel.
        (Some("NotAllowedError"), _) if how.past_deadline => {
            (ErrorCode::PasskeyTimeout, "the passkey ceremony timed out")
        }
        (Some("NotAllowedError"), _) => (
            ErrorCode::PasskeyCancelled,
            "the browser refused the passkey ceremony: the user cancelled, no passkey on this device matched, or user verification failed (see cause)",
        ),
        (Some("SecurityError"), _) => (
            ErrorCode::PasskeyInvalidDomain,
            "the relying-party id does not match this page's origin (or the origin is not a valid domain, e.g. an IP address)",
        ),
        (Some("InvalidStateError"), Ceremony::Register) => (
            ErrorCode::PasskeyAlreadyRegistered,
            "this authenticator already holds one of the excluded credentials",
        ),
        (Some("NotSupportedError" | "ConstraintError"), _) => (
            ErrorCode::PasskeyUnsupported,
            "no available authenticator supports what was asked (algorithm, discoverable credential or user verification)",
        ),
        (Some("TypeError" | "EncodingError" | "SyntaxError"), _) => {
            (ErrorCode::InvalidInput, "the browser rejected the passkey options as malformed (see cause)")
        }
        (Some("OperationError"), _) => {
            (ErrorCode::PasskeyFailed, "another passkey request is already pending in this browser")
        }
        (None, _) => (ErrorCode::PasskeyFailed, "the passkey ceremony failed with a non-error value (see cause)"),
        _ => (ErrorCode::PasskeyFailed, "the passkey ceremony failed (see cause)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn code(ceremony: Ceremony, name: Option<&str>, how: Circumstances) -> ErrorCode {
        classify(ceremony, name, how).0
    }

    #[test]
    fn dom_exception_names() {
        use Ceremony::*;
        use ErrorCode::*;
        let plain = Circumstances::default();
        let table = [
            (Register, Some("AbortError"), PasskeyCancelled),
            (Authenticate, Some("AbortError"), PasskeyCancelled),
            (Register, Some("NotAllowedError"), PasskeyCancelled),
            (Authenticate, Some("NotAllowedError"), PasskeyCancelled),
            (Register, Some("SecurityError"), PasskeyInvalidDomain),
            (Authenticate, Some("SecurityError"), PasskeyInvalidDomain),
            (
                Register,
                Some("InvalidStateError"),
                PasskeyAlreadyRegistered,
            ),
            (Authenticate, Some("InvalidStateError"), PasskeyFailed),
            (Register, Some("NotSupportedError"), PasskeyUnsupported),
            (Register, Some("ConstraintError"), PasskeyUnsupported),
            (Register, Some("TypeError"), InvalidInput),
            (Authenticate, Some("EncodingError"), InvalidInput),
            (Authenticate, Some("OperationError"), PasskeyFailed),
            (Register, Some("UnknownError"), PasskeyFailed),
            (Register, Some("SomeFutureError"), PasskeyFailed),
            (Authenticate, None, PasskeyFailed),
        ];
        for (ceremony, name, want) in table {
            assert_eq!(code(ceremony, name, plain), want, "{ceremony:?} {name:?}");
        }
    }

    #[test]
    fn the_kits_own_knowledge_wins() {
        let timed = Circumstances {
            watchdog_fired: true,
            ..Default::default()
        };
        let cancelled = Circumstances {
            cancelled: true,
            ..Default::default()
        };
        let late = Circumstances {
            past_deadline: true,
            ..Default::default()
        };
        assert_eq!(
            code(Ceremony::Register, Some("AbortError"), timed),
            ErrorCode::PasskeyTimeout
        );
        assert_eq!(
            code(Ceremony::Register, None, cancelled),
            ErrorCode::PasskeyCancelled
        );
        assert_eq!(
            code(Ceremony::Register, Some("NotAllowedError"), cancelled),
            ErrorCode::PasskeyCancelled
        );
        assert_eq!(
            code(Ceremony::Authenticate, Some("NotAllowedError"), late),
            ErrorCode::PasskeyTimeout
        );
        // Past the deadline, only NotAllowedError is read as a timeout.
        assert_eq!(
            code(Ceremony::Register, Some("SecurityError"), late),
            ErrorCode::PasskeyInvalidDomain
        );
    }
}

//! The one error type of the kit: a stable machine-readable [`ErrorCode`] plus a message
//! that names what was wrong. Messages never carry key material, OTPs or tokens: they
//! are built only from field names, lengths and positions, never from secret values.

use crate::prelude::*;
use core::fmt;

/// Declares [`ErrorCode`], its string forms ([`ErrorCode::as_str`]) and
/// [`ErrorCode::ALL`] from one list, so a code cannot be added to one and missed in another.
macro_rules! error_codes {
    ($($(#[doc = $doc:literal])* $variant:ident => $code:literal,)+) => {
        /// Stable error codes. The string form (see [`ErrorCode::as_str`]) is part of the public
        /// contract: JS callers switch on `KitError.code`. This list is the one
        /// declaration of the codes: npm/index.d.ts's `KitErrorCode` union and the npm README's
        /// error table are checked against it (tests below), as are the codes the JS shim raises.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum ErrorCode {
            $($(#[doc = $doc])* $variant,)+
        }

        impl ErrorCode {
            /// Every code, in declaration order.
            pub const ALL: &'static [ErrorCode] = &[$(Self::$variant),+];

            /// The stable string form, e.g. `"INVALID_BUNDLE"`.
            pub const fn as_str(self) -> &'static str {
                match self {
                    $(Self::$variant => $code,)+
                }
            }
        }
    };
}

error_codes! {
    /// A public key is not a valid P-256 point in the expected encoding.
    InvalidPublicKey => "INVALID_PUBLIC_KEY",
    /// A sealed bundle is malformed: bad encoding, wrong length or an invalid point.
    InvalidBundle => "INVALID_BUNDLE",
    /// A base58check bundle's 4-byte checksum does not match its payload.
    BundleChecksum => "BUNDLE_CHECKSUM",
    /// HPKE open failed: the bundle was not sealed to this key, or was tampered with.
    DecryptionFailed => "DECRYPTION_FAILED",
    /// The client key was already used to open a session; it is single-use.
    KeyConsumed => "KEY_CONSUMED",
    /// A session (verify/refresh) response is malformed or of the wrong shape.
    InvalidSession => "INVALID_SESSION",
    /// The session's `expiresAt` has passed; re-authenticate or refresh.
    SessionExpired => "SESSION_EXPIRED",
    /// The session was freed; its key is gone.
    SessionClosed => "SESSION_CLOSED",
    /// A 202 PendingSignature body is malformed.
    InvalidPendingSignature => "INVALID_PENDING_SIGNATURE",
    /// The signed-retry window (`expiresAt` of the 202) has passed.
    RequestExpired => "REQUEST_EXPIRED",
    /// This key (a session's, or the TEK that becomes it) already signed this
    /// `requestId`; request ids are single-use.
    RequestAlreadySigned => "REQUEST_ALREADY_SIGNED",
    /// The service is still processing a request (it answered `PROCESSING` until the
    /// flow's bound): neither success nor failure; the error's `requestId` names it.
    StillProcessing => "STILL_PROCESSING",
    /// The quote's `expiresAt` has passed.
    QuoteExpired => "QUOTE_EXPIRED",
    /// A timestamp is not an RFC 3339 date-time.
    InvalidTimestamp => "INVALID_TIMESTAMP",
    /// The platform has no WebAuthn support.
    PasskeyUnsupported => "PASSKEY_UNSUPPORTED",
    /// The user or the app cancelled the passkey ceremony.
    PasskeyCancelled => "PASSKEY_CANCELLED",
    /// The passkey ceremony timed out.
    PasskeyTimeout => "PASSKEY_TIMEOUT",
    /// The relying-party id does not match the page's origin.
    PasskeyInvalidDomain => "PASSKEY_INVALID_DOMAIN",
    /// The authenticator already holds one of the excluded credentials.
    PasskeyAlreadyRegistered => "PASSKEY_ALREADY_REGISTERED",
    /// Any other passkey failure.
    PasskeyFailed => "PASSKEY_FAILED",
    /// The service answered 401.
    Unauthorized => "UNAUTHORIZED",
    /// The service answered 403: the request is not allowed (e.g. quote creation or
    /// execution when the platform's token lacks the `TRANSACT` permission).
    Forbidden => "FORBIDDEN",
    /// The service answered 429; wait as told by Retry-After. Also the kit's own refusal
    /// when one session signed more requestIds within an hour than any real use
    /// (1024, see [`crate::SignedRequestIds`]).
    RateLimited => "RATE_LIMITED",
    /// The service answered with an unexpected status or body.
    ServiceError => "SERVICE_ERROR",
    /// An argument is missing or malformed.
    InvalidInput => "INVALID_INPUT",
    /// The platform's secure random number generator failed.
    RandomnessUnavailable => "RANDOMNESS_UNAVAILABLE",
    /// The engine computed a wrong signature, public key or shared secret (a hardware or JIT
    /// fault): the key is wiped and the object that holds it answers this from then on;
    /// reload the page.
    EngineFault => "ENGINE_FAULT",
    /// The kit was used before `init()` (raised by the JS shim).
    NotInitialized => "NOT_INITIALIZED",
    /// The JS `SessionStore` cannot work: IndexedDB or WebCrypto is missing, or one of their
    /// calls failed. Raised only by the JS shim (npm/session-store-impl.js), never by Rust.
    StoreUnavailable => "STORE_UNAVAILABLE",
    /// `init({ isolate: 'worker' })`: the module given or fetched is not the kit's own
    /// signing module (its SHA-256 is not the build's), or is a `WebAssembly.Module`.
    /// Raised only by the isolated signer's JS (npm/signer-worker.js), never by Rust.
    SignerModuleRejected => "SIGNER_MODULE_REJECTED",
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
    /// The `Request-Id` of the signed request the error is about (`STILL_PROCESSING`).
    pub request_id: Option<String>,
}

impl Error {
    /// `ENGINE_FAULT`: the engine computed a wrong signature, public key or shared secret;
    /// the key that did is gone.
    pub(crate) fn engine_fault() -> Self {
        Self::new(
            ErrorCode::EngineFault,
            "the engine computed a wrong signature, public key or shared secret (a hardware or JIT fault); the key is wiped and this object is unusable: reload the page",
        )
    }

    /// `ENGINE_FAULT` unless `computed_right`, the verdict of a check of a value computed
    /// from a secret: it reveals only whether the engine faulted (tests/ct accepts the
    /// branch on it by this function's name).
    pub(crate) fn fault_unless(computed_right: p256::elliptic_curve::subtle::Choice) -> Result<()> {
        if bool::from(computed_right) {
            Ok(())
        } else {
            Err(Self::engine_fault())
        }
    }

    /// Builds an error. The message must not contain secret values.
    pub fn new(code: ErrorCode, message: impl Into<String>) -> Self {
        Self {
            code,
            message: message.into(),
            service: None,
        }
    }

    /// The same error under another code (a service answer that means another situation).
    pub(crate) fn with_code(mut self, code: ErrorCode) -> Self {
        self.code = code;
        self
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
        // What `write!(f, "{}: {}", code, message)` writes, without formatting machinery.
        f.write_str(self.code.as_str())?;
        f.write_str(": ")?;
        f.write_str(&self.message)
    }
}

impl core::error::Error for Error {}

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
        let mut seen = std::collections::BTreeSet::new();
        for code in ErrorCode::ALL {
            let s = code.as_str();
            assert!(s.chars().all(|c| c.is_ascii_uppercase() || c == '_'), "{s}");
            assert!(seen.insert(s), "duplicate {s}");
        }
    }

    /// The other places that list the codes, checked against [`ErrorCode::ALL`] (the one
    /// declaration): the TypeScript union, the npm README's table, and every code literal
    /// the JS shim uses. Native only: they read the repository's files.
    #[cfg(not(target_arch = "wasm32"))]
    mod listed_elsewhere {
        use super::super::ErrorCode;
        use std::collections::BTreeSet;
        use std::path::{Path, PathBuf};

        /// Upper-case literals in npm/*.js that are not error codes (WebCrypto algorithm
        /// names, a credential type). Any other such literal must be a code of [`ErrorCode`].
        const JS_LITERALS_NOT_CODES: &[&str] = &[
            "ECDH",
            "ECDSA",
            "EMAIL_OTP",
            "OAUTH",
            "PASSKEY",
            "SIGNER_MODULE_SHA256",
            "URL",
        ];

        fn declared() -> BTreeSet<String> {
            ErrorCode::ALL
                .iter()
                .map(|c| c.as_str().to_owned())
                .collect()
        }

        /// The repository root: the nearest ancestor of this crate holding npm/index.d.ts
        /// (so the test keeps working if the crate moves into a workspace member).
        fn repo_root() -> PathBuf {
            let manifest = Path::new(env!("CARGO_MANIFEST_DIR"));
            manifest
                .ancestors()
                .find(|dir| dir.join("npm/index.d.ts").is_file())
                .unwrap_or_else(|| panic!("no npm/index.d.ts above {}", manifest.display()))
                .to_path_buf()
        }

        fn read(relative: &str) -> String {
            let path = repo_root().join(relative);
            std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        }

        /// Every `'...'`, `"..."` or `` `...` `` literal in `text` that looks like a code
        /// (upper-case letters, digits and underscores, at least two characters).
        fn code_like_literals(text: &str) -> Vec<String> {
            let mut found = Vec::new();
            let mut rest = text;
            while let Some(start) = rest.find(['\'', '"', '`']) {
                let quote = rest[start..].chars().next().unwrap_or('\'');
                let after = &rest[start + 1..];
                let Some(len) = after.find(quote) else {
                    rest = after;
                    continue;
                };
                let inner = &after[..len];
                let code_like = inner.len() >= 2
                    && inner.starts_with(|c: char| c.is_ascii_uppercase())
                    && inner
                        .chars()
                        .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
                if code_like {
                    found.push(inner.to_owned());
                    rest = &after[len + 1..];
                } else {
                    // Not a code: resume after the opening quote, so a closing quote is
                    // never mistaken for an opening one across a code literal.
                    rest = after;
                }
            }
            found
        }

        /// The members of `export type KitErrorCode = ...;`, which must be declared once.
        fn typescript_union(dts: &str) -> BTreeSet<String> {
            const HEAD: &str = "export type KitErrorCode =";
            assert_eq!(
                dts.matches(HEAD).count(),
                1,
                "index.d.ts must declare `{HEAD}` exactly once"
            );
            let body = &dts[dts.find(HEAD).unwrap() + HEAD.len()..];
            let body = &body[..body.find(';').expect("KitErrorCode union ends with ;")];
            let members: Vec<&str> = body
                .split('|')
                .map(str::trim)
                .filter(|m| !m.is_empty())
                .collect();
            let mut codes = BTreeSet::new();
            for member in members {
                let code = member
                    .strip_prefix('\'')
                    .and_then(|m| m.strip_suffix('\''))
                    .unwrap_or_else(|| {
                        panic!("KitErrorCode member {member:?} is not a string literal")
                    });
                assert!(
                    codes.insert(code.to_owned()),
                    "KitErrorCode lists {code} twice"
                );
            }
            codes
        }

        const ERROR_TABLE_HEADER: &str = "| code | meaning |";

        /// The first column of the README's `| code | meaning |` table.
        fn readme_table(readme: &str, name: &str) -> BTreeSet<String> {
            let mut lines = readme
                .lines()
                .skip_while(|l| l.trim() != ERROR_TABLE_HEADER);
            assert!(
                lines.next().is_some(),
                "{name} has no `| code | meaning |` table"
            );
            lines.next(); // the |---|---| row
            let mut codes = BTreeSet::new();
            for row in lines.take_while(|l| l.starts_with('|')) {
                let cell = row.split('|').nth(1).unwrap_or("").trim();
                let code = cell
                    .strip_prefix('`')
                    .and_then(|c| c.strip_suffix('`'))
                    .unwrap_or_else(|| panic!("{name}: error table row without a `CODE`: {row}"));
                assert!(codes.insert(code.to_owned()), "{name} lists {code} twice");
            }
            codes
        }

        fn assert_same(what: &str, listed: &BTreeSet<String>) {
            let declared = declared();
            let missing: Vec<_> = declared.difference(listed).collect();
            let unknown: Vec<_> = listed.difference(&declared).collect();
            assert!(
                missing.is_empty() && unknown.is_empty(),
                "{what} disagrees with ErrorCode (src/error.rs): missing {missing:?}, not declared {unknown:?}"
            );
        }

        #[test]
        fn typescript_union_lists_exactly_the_codes() {
            assert_same(
                "npm/index.d.ts KitErrorCode",
                &typescript_union(&read("npm/index.d.ts")),
            );
        }

        /// The codes' meanings live in one table, the npm README's (the repository README
        /// links to it).
        #[test]
        fn readme_table_lists_exactly_the_codes() {
            let readme = "npm/README.md";
            assert_same(readme, &readme_table(&read(readme), readme));
        }

        #[test]
        fn the_repository_readme_keeps_no_second_table() {
            assert!(
                !read("README.md")
                    .lines()
                    .any(|l| l.trim() == ERROR_TABLE_HEADER),
                "README.md has an error table: the codes' table lives in npm/README.md"
            );
        }

        #[test]
        fn js_shim_raises_only_declared_codes() {
            let declared = declared();
            let dir = repo_root().join("npm");
            let mut files: Vec<_> = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .map(|entry| entry.expect("npm/ entry").path())
                .filter(|p| p.extension().is_some_and(|e| e == "js"))
                .collect();
            files.sort();
            assert!(
                files.len() > 5,
                "expected the shim's files in {}",
                dir.display()
            );
            let mut unknown = Vec::new();
            for file in &files {
                let text = std::fs::read_to_string(file).expect("read js file");
                for literal in code_like_literals(&text) {
                    if !declared.contains(&literal)
                        && !JS_LITERALS_NOT_CODES.contains(&literal.as_str())
                    {
                        unknown.push(format!("{}: '{literal}'", file.display()));
                    }
                }
            }
            assert!(
                unknown.is_empty(),
                "the JS shim uses codes not declared in ErrorCode (src/error.rs), or a new \
                 non-code literal missing from JS_LITERALS_NOT_CODES: {unknown:?}"
            );
        }

        #[test]
        fn code_like_literals_finds_each_quote_style() {
            let text =
                "new KitError('KEY_CONSUMED', `x ${'A'}`); code: \"NEW_CODE\", 'lower', `URL`";
            assert_eq!(
                code_like_literals(text),
                ["KEY_CONSUMED", "NEW_CODE", "URL"]
            );
        }
    }
}

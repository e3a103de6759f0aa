//! The API handlers (spec paths, mounted at `/` behind Basic auth and at `/backend/`),
//! one module per resource:
//!
//! | module | serves |
//! |---|---|
//! | `credentials` | `POST/GET /auth/credentials`, `DELETE /auth/credentials/{id}` |
//! | `login` | `POST /auth/credentials/{id}/challenge` and `/verify`, by credential kind: |
//! | `otp`, `oauth`, `passkey` | each kind's create, challenge and verify checks |
//! | `sessions` | `GET /auth/sessions`, `POST /auth/sessions/{id}/refresh`, `DELETE /auth/sessions/{id}` |
//! | `customers` | `PATCH /customers/{customerId}` (email or phone number, a signed retry) |
//! | `accounts` | `GET /internal-accounts`, `PATCH /internal-accounts/{id}`, `POST /sandbox/internal-accounts/{id}/fund` |
//! | `export` | `POST /internal-accounts/{id}/export` |
//! | `quotes` | `POST /quotes`, `GET /quotes/{id}`, `POST /quotes/{id}/execute` |
//! | `transactions` | `GET /transactions`, `GET /transactions/{id}` |
//! | `control` | the `/emulator/` helpers (no auth) |
//! | `processing` | `200 {"status":"PROCESSING"}` on signed retries and login legs, and `/emulator/processing` |
//!
//! Shared: `http` (request/response plumbing, field readers) and `signed_retry` (wallet
//! signatures and the 202 → signed-retry exchange). Each module's doc says where strict
//! mode deviates from sandbox.

use std::sync::{Arc, Mutex, MutexGuard, OnceLock};

use axum::Router;

use embedded_wallet_kit::SecretKey;
use p256::ecdsa::SigningKey;

use crate::config::{Config, Mode};
use crate::crypto::Issuer;
use crate::state::State;

mod accounts;
pub(crate) mod control;
mod credentials;
mod customers;
mod export;
mod http;
mod login;
mod oauth;
mod otp;
mod passkey;
pub mod processing;
mod quotes;
mod sessions;
mod signed_retry;
mod transactions;

pub use accounts::{fund, list_accounts, patch_account};
pub use credentials::{create_credential, list_credentials, revoke_credential};
pub use customers::update_customer;
pub use export::export;
pub use http::{json_response, Req};
pub use login::{challenge, verify};
pub use quotes::{create_quote, execute_quote, get_quote};
pub use sessions::{list_sessions, refresh, revoke_session};
pub use signed_retry::Signer;
pub use transactions::{get_transaction, list_transactions};

/// The spec's accepted OTP in sandbox mode.
pub const SANDBOX_OTP: &str = "000000";
/// The spec's accepted passkey signature in sandbox mode.
pub const SANDBOX_PASSKEY_SIGNATURE: &str = "sandbox-valid-passkey-signature";
/// The spec's accepted OIDC token on OAUTH verify in sandbox mode.
pub const SANDBOX_OIDC_TOKEN: &str = "sandbox-valid-oidc-token";
/// Largest amount anywhere.
pub const MAX_AMOUNT: i64 = 9_000_000_000_000_000;

/// Everything the handlers share.
pub struct App {
    pub config: Config,
    /// `http://localhost:PORT`, PORT the one actually bound.
    pub base_url: String,
    pub issuer: Issuer,
    pub export_signer: SigningKey,
    /// Encrypted OTP (both modes): the enclave's HPKE key, which `encryptedOtpBundle`s
    /// are sealed to, and the key that signs `otpEncryptionTargetBundle`s.
    pub otp_enclave: SecretKey,
    pub otp_signer: SigningKey,
    /// The seeded destination account for quotes.
    pub merchant_account_id: String,
    pub state: Mutex<State>,
    /// The API routes without Basic auth, for running a held operation when it settles
    /// (`processing`).
    pub settle_router: OnceLock<Router>,
}

pub type Shared = Arc<App>;

impl App {
    pub fn strict(&self) -> bool {
        self.config.mode == Mode::Strict
    }

    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// WebAuthn origins: any `http://localhost[:port]`, plus `--origin`s.
    pub fn origin_allowed(&self, origin: &str) -> bool {
        if let Some(rest) = origin.strip_prefix("http://localhost") {
            if rest.is_empty()
                || (rest.len() > 1
                    && rest.starts_with(':')
                    && rest[1..].bytes().all(|c| c.is_ascii_digit()))
            {
                return true;
            }
        }
        self.config.origins.iter().any(|o| o == origin)
    }

    pub(crate) fn ms(d: std::time::Duration) -> i64 {
        i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
    }
}

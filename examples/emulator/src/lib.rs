//! A local emulator of the embedded-wallet payments API (spec version 2025-10-13), for
//! the demo wallet, the kit's tests and integrators' development.
//!
//! Two modes: `sandbox` follows the spec's sandbox exactly (magic values, stub session
//! bundles, magic signature); `strict` does the real cryptography the production service
//! does (HPKE-sealed session keys, API-key stamps verified over the exact payload it
//! issued, WebAuthn attestations and assertions, OIDC tokens from a built-in issuer).
//!
//! ```no_run
//! let config = emulator::Config { port: 0, quiet: true, ..Default::default() };
//! let addr = emulator::spawn(config).unwrap();
//! println!("emulator at http://localhost:{}", addr.port());
//! ```

pub mod api;
pub mod config;
pub mod crypto;
pub mod error;
pub mod server;
pub mod state;
pub mod util;

pub use config::{parse_args, Config, Mode, USAGE};
pub use server::{bind, router, serve, spawn};

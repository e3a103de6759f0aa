// Shared by the fuzz targets (included with `#[path]`): fixed keys so that a crash
// reproduces from its input alone.
#![allow(dead_code)]

use p256::elliptic_curve::ops::Reduce;
use p256::{Scalar, SecretKey, U256};
use embedded_wallet_kit::{ClientKey, Session};
use libfuzzer_sys::arbitrary::{self, Arbitrary};

/// 2025-10-13T12:00:00Z, before every expiry the seeds use: the `now` every target signs at,
/// so that a crash reproduces from its input alone.
pub const NOW: i64 = 1_760_356_800_000;

pub fn client_key() -> ClientKey {
    ClientKey::from_secret(SecretKey::from_slice(&[0x42; 32]).expect("valid scalar"))
        .expect("valid key")
}

/// A real (non-sandbox) session with a fixed key, built through the client-held path.
pub fn session() -> Session {
    let mut key = ClientKey::from_secret(SecretKey::from_slice(&[0x24; 32]).expect("valid scalar"))
        .expect("valid key");
    let response = r#"{"id":"Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b","accountId":"InternalAccount:1","type":"EMAIL_OTP","expiresAt":"2999-01-01T00:00:00Z"}"#;
    let map = serde_json::from_str::<serde_json::Map<String, serde_json::Value>>(response)
        .expect("seed JSON");
    Session::from_client_key(&map, &mut key).expect("seed session")
}

/// A sandbox session: no key, so it costs nothing to make.
pub fn sandbox_session() -> Session {
    let response = r#"{"id":"Session:0b9a4a2e-5f7e-4d7e-9a57-2f0f8c1d3e4b","accountId":"InternalAccount:1","type":"EMAIL_OTP","expiresAt":"2999-01-01T00:00:00Z"}"#;
    Session::sandbox_json(response).expect("seed session")
}

/// A scalar for the differential targets: any 32 bytes (reduced mod n), or one near 0 or
/// near the group order (n - k), where the sums of a multiplication meet the identity or
/// equal points.
#[derive(Arbitrary, Debug)]
pub enum Secret {
    Bytes([u8; 32]),
    Small(u16),
    BelowOrder(u16),
}

impl Secret {
    pub fn scalar(&self) -> Scalar {
        match self {
            Secret::Bytes(bytes) => <Scalar as Reduce<U256>>::reduce(&U256::from_be_slice(bytes)),
            Secret::Small(k) => Scalar::from(u64::from(*k)),
            Secret::BelowOrder(k) => -Scalar::from(u64::from(*k)),
        }
    }
}

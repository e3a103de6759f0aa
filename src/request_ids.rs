//! The requestIds a key signed, so that none is signed twice: shared by [`Session`],
//! the TEK ([`ClientKey::sign_retry`]) and the session store's record.
//!
//! [`Session`]: crate::Session
//! [`ClientKey::sign_retry`]: crate::ClientKey

use crate::error::{Error, ErrorCode, Result};
use crate::prelude::*;
use crate::text::Decimal;
use crate::timestamp::UnixMillis;

/// Most requestIds one session keeps as signed. A session lives minutes and signs a
/// handful of retries; the cap only stops a hostile caller from growing the set (and each
/// check's linear scan) without bound. At the cap, ids signed at least
/// [`SIGNED_REQUEST_ID_HORIZON_MS`] ago are forgotten; if none is that old, signing is
/// refused with `RATE_LIMITED`.
pub(crate) const MAX_SIGNED_REQUEST_IDS: usize = 1024;

/// How long after this session signed a requestId it may be forgotten (only at the cap):
/// one hour by the session's own clock, twelve times the service's signed-retry window
/// ("typically five minutes", as the service documents it), so the service has long closed that request.
/// Measured from our signature, not from the 202's `expiresAt`, which the 202 itself
/// claims and a replayed 202 can push later.
pub(crate) const SIGNED_REQUEST_ID_HORIZON_MS: UnixMillis = 3_600_000;

/// A requestId in one spelling per request: `Request:` and the uuid in lower case (the
/// 202 reader accepts hex digits in either case, RFC 9562 §4).
pub(crate) fn canonical_request_id(request_id: &str) -> String {
    let uuid = request_id.strip_prefix("Request:").unwrap_or(request_id);
    ["Request:", &uuid.to_ascii_lowercase()].concat()
}

/// The requestIds one key signed (canonical form: `Request:` and the uuid in lower case),
/// with when it signed them, so none is signed twice. Kept for the key's life, never
/// forgotten because of what a 202 claims; bounded at 1024 ids (those signed over an hour
/// ago are forgotten at the cap, else signing is refused with `RATE_LIMITED`). A
/// handful in real use, so a Vec beats a map (and is smaller in wasm).
#[derive(Debug, Default)]
pub struct SignedRequestIds(Vec<(String, UnixMillis)>);

impl SignedRequestIds {
    /// Records `request_id` as signed at `now`, or refuses: `REQUEST_ALREADY_SIGNED` for
    /// an id recorded before (in any letter case), `RATE_LIMITED` for more than
    /// 1024 within an hour.
    pub fn record(&mut self, request_id: &str, now: UnixMillis) -> Result<()> {
        let id = canonical_request_id(request_id);
        if self.0.iter().any(|(signed, _)| *signed == id) {
            return Err(Error::new(
                ErrorCode::RequestAlreadySigned,
                "this key already signed this requestId; request ids are single-use",
            ));
        }
        if self.0.len() >= MAX_SIGNED_REQUEST_IDS {
            // A clock set back keeps ids longer, never shorter.
            self.0.retain(|(_, signed_at)| {
                now.saturating_sub(*signed_at) < SIGNED_REQUEST_ID_HORIZON_MS
            });
            if self.0.len() >= MAX_SIGNED_REQUEST_IDS {
                return Err(Error::new(
                    ErrorCode::RateLimited,
                    [
                        "this key signed ",
                        &Decimal::from(MAX_SIGNED_REQUEST_IDS),
                        " requestIds within the last hour, more than any real use; refusing more",
                    ]
                    .concat(),
                ));
            }
        }
        self.0.push((id, now));
        Ok(())
    }

    /// From remembered `(id, signed_at)` pairs, e.g. a stored session's record; the ids
    /// are put in canonical form.
    pub fn from_entries(entries: impl IntoIterator<Item = (String, UnixMillis)>) -> Self {
        Self(
            entries
                .into_iter()
                .map(|(id, signed_at)| (canonical_request_id(&id), signed_at))
                .collect(),
        )
    }

    /// The remembered `(canonical id, signed_at)` pairs, oldest first.
    pub fn entries(&self) -> &[(String, UnixMillis)] {
        &self.0
    }

    /// How many ids are remembered.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether no id is remembered.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

//! The live service's still-processing answer (`docs/protocol.md`): a request it accepted
//! may answer `200 {"status":"PROCESSING"}` instead of its terminal answer, and the client
//! re-sends the identical request (same method, path, body bytes and signature headers:
//! never re-stamped) after a wait, until the terminal answer or a bound.

use super::http::{body_string, Request, Response};
use crate::error::{Error, ErrorCode, Result, ServiceDetails};
use crate::message::REQUEST_ID_HEADER;
use crate::prelude::*;

/// How often, and how patiently, a flow re-sends a request the service is still
/// processing. The waits double from `first_delay_ms` up to `max_delay_ms`, each drawn
/// at random between its half and its whole (jitter: many clients told PROCESSING at
/// once do not come back at once).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ProcessingPolicy {
    /// Re-sends at most this many times; then the flow ends in `STILL_PROCESSING`.
    pub max_resends: u16,
    /// The first wait, in milliseconds.
    pub first_delay_ms: u32,
    /// The longest wait, in milliseconds.
    pub max_delay_ms: u32,
}

impl Default for ProcessingPolicy {
    /// 10 re-sends, waits from 0.5 s to 8 s: about 45 s in all at most.
    fn default() -> Self {
        Self {
            max_resends: 10,
            first_delay_ms: 500,
            max_delay_ms: 8_000,
        }
    }
}

/// Send `request` again, unchanged, after `delay_ms`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Resend {
    /// The request exactly as it was sent (a signed one keeps its signature and id).
    pub request: Request,
    /// How long to wait first, in milliseconds.
    pub delay_ms: u32,
    /// 1 for the first re-send.
    pub attempt: u16,
    /// The `Request-Id` the request carries (a signed retry's): the id the service's
    /// webhook names, and the one to look the operation up by.
    pub request_id: Option<String>,
}

/// Whether `response` is the still-processing answer: a 200 whose body's `status` is
/// `PROCESSING` (terminal 200 answers have no such member).
pub(crate) fn is_processing(response: &Response<'_>) -> bool {
    response.status == 200 && body_string(response, "status").as_deref() == Some("PROCESSING")
}

/// One request's re-sends so far.
#[derive(Clone, Debug, Default)]
pub(crate) struct Resends {
    policy: ProcessingPolicy,
    done: u16,
}

impl Resends {
    pub(crate) fn with_policy(policy: ProcessingPolicy) -> Self {
        Self { policy, done: 0 }
    }

    /// A new request (a restart, the next leg): its re-sends count from zero.
    pub(crate) fn reset(&mut self) {
        self.done = 0;
    }

    /// After a PROCESSING answer: the re-send of the signed retry last built or, before
    /// one was, of the first request (both flows keep the two).
    pub(crate) fn after(
        &mut self,
        last_signed: Option<&Request>,
        first: &Request,
        response: &Response<'_>,
    ) -> Result<Resend> {
        self.next(last_signed.unwrap_or(first), response)
    }

    /// After a PROCESSING answer to `sent`: the re-send, or `STILL_PROCESSING` once the
    /// policy's bound is reached (nothing more is sent).
    pub(crate) fn next(&mut self, sent: &Request, response: &Response<'_>) -> Result<Resend> {
        let request_id = sent.header(REQUEST_ID_HEADER).map(str::to_owned);
        if self.done >= self.policy.max_resends {
            return Err(still_processing(sent, request_id, response));
        }
        self.done += 1;
        let exponent = u32::from(self.done - 1).min(16);
        let full = self
            .policy
            .first_delay_ms
            .saturating_mul(1 << exponent)
            .min(self.policy.max_delay_ms);
        let mut random = [0u8; 2];
        // Without randomness the whole wait is taken: jitter is a courtesy, not a guard.
        let share = match getrandom::fill(&mut random) {
            Ok(()) => u32::from(u16::from_le_bytes(random)),
            Err(_) => u32::from(u16::MAX),
        };
        let half = full / 2;
        let delay_ms =
            half + ((u64::from(full - half) * u64::from(share)) / u64::from(u16::MAX)) as u32;
        Ok(Resend {
            request: sent.clone(),
            delay_ms,
            attempt: self.done,
            request_id,
        })
    }
}

/// `STILL_PROCESSING`: neither success nor failure; the operation may still complete.
fn still_processing(sent: &Request, request_id: Option<String>, response: &Response<'_>) -> Error {
    let message = [
        "the service is still processing ",
        &sent.method,
        " ",
        &sent.path,
        match &request_id {
            Some(_) => " (its Request-Id is in the error's requestId)",
            None => "",
        },
        "; it may still complete: look the result up later (GET /auth/credentials, GET /auth/sessions) rather than starting it again",
    ]
    .concat();
    let details = ServiceDetails {
        status: response.status,
        service_code: Some("PROCESSING".to_owned()),
        reason: body_string(response, "message"),
        retry_after_ms: None,
        request_id,
    };
    Error::from_service(ErrorCode::StillProcessing, message, details)
}

#[cfg(all(test, feature = "json"))]
mod tests {
    use super::*;
    use crate::fields::test_support::TestFields;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn processing() -> TestFields {
        TestFields::default()
            .with("status", "PROCESSING")
            .with("message", "still busy")
    }

    fn respond(status: u16, body: &TestFields) -> Response<'_> {
        Response {
            status,
            retry_after: None,
            body: Some(body as &dyn crate::Fields),
        }
    }

    #[test]
    fn only_a_200_whose_status_is_processing_is_the_still_processing_answer() {
        assert!(is_processing(&respond(200, &processing())));
        assert!(!is_processing(&respond(201, &processing())));
        let other = TestFields::default().with("status", "ACTIVE");
        assert!(!is_processing(&respond(200, &other)));
        assert!(!is_processing(&respond(200, &TestFields::default())));
    }

    #[test]
    fn resends_repeat_the_request_with_growing_jittered_waits_then_end_in_still_processing() {
        let sent = Request::new("DELETE", "/auth/sessions/Session:x", Some("{}".into()))
            .with_header(REQUEST_ID_HEADER, "Request:1");
        let policy = ProcessingPolicy {
            max_resends: 5,
            first_delay_ms: 400,
            max_delay_ms: 2_000,
        };
        let mut resends = Resends::with_policy(policy);
        let body = processing();
        for (attempt, full) in [(1u16, 400u32), (2, 800), (3, 1_600), (4, 2_000), (5, 2_000)] {
            let resend = resends.next(&sent, &respond(200, &body)).unwrap();
            assert_eq!(resend.request, sent, "the identical request");
            assert_eq!(resend.attempt, attempt);
            assert_eq!(resend.request_id.as_deref(), Some("Request:1"));
            assert!(
                (full / 2..=full).contains(&resend.delay_ms),
                "attempt {attempt}: {} not in [{}, {full}]",
                resend.delay_ms,
                full / 2
            );
        }
        let e = resends.next(&sent, &respond(200, &body)).unwrap_err();
        assert_eq!(e.code(), ErrorCode::StillProcessing);
        let service = e.service().unwrap();
        assert_eq!(service.request_id.as_deref(), Some("Request:1"));
        assert_eq!(service.service_code.as_deref(), Some("PROCESSING"));
        assert_eq!(service.reason.as_deref(), Some("still busy"));
        assert!(
            e.message().contains("DELETE /auth/sessions/Session:x"),
            "{}",
            e.message()
        );
        resends.reset();
        assert_eq!(
            resends.next(&sent, &respond(200, &body)).unwrap().attempt,
            1
        );
    }
}

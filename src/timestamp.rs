//! RFC 3339 date-times (the service's `expiresAt`) as Unix milliseconds, and the system
//! clock the convenience methods read. Hand-written because the only thing needed is one fixed
//! grammar; a date-time crate would add far more to the wasm than this.

use crate::error::{Error, ErrorCode, Result};
use crate::prelude::*;
use crate::text::Decimal;

/// Milliseconds since the Unix epoch, UTC.
pub type UnixMillis = i64;

/// The system's wall clock: the `now` a native caller passes to the guards and flows,
/// which take it as an argument (the core reads no clock itself).
///
/// wasm32-unknown-unknown has no clock the core can read without JavaScript bindings, so
/// there it reads as the end of time and every guard refuses (failing closed): pass `now`
/// (the npm package's modules pass `Date.now()`).
///
/// Only with the `std` feature (on by default); the wasm modules build the core without
/// it and always pass `now`.
#[cfg(feature = "std")]
pub fn system_now() -> UnixMillis {
    #[cfg(target_arch = "wasm32")]
    {
        UnixMillis::MAX
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        use std::time::{SystemTime, UNIX_EPOCH};
        match SystemTime::now().duration_since(UNIX_EPOCH) {
            Ok(d) => d.as_millis() as UnixMillis,
            Err(before) => -(before.duration().as_millis() as UnixMillis),
        }
    }
}

/// Parses an RFC 3339 date-time: `YYYY-MM-DDTHH:MM:SS[.fraction](Z|±HH:MM)`.
///
/// `t`/`z` and a space separator are accepted (RFC 3339 §5.6 note). Fractions beyond
/// milliseconds are truncated, which can only make an expiry look earlier, never later.
/// A leap second (`:60`) is taken as the last millisecond of that minute for the same
/// reason. `field` names the field in the error message.
pub fn parse_rfc3339(text: &str, field: &str) -> Result<UnixMillis> {
    parse(text.as_bytes()).ok_or_else(|| {
        Error::new(
            ErrorCode::InvalidTimestamp,
            [
                field,
                " is not an RFC 3339 date-time (e.g. 2025-10-13T12:00:00Z)",
            ]
            .concat(),
        )
    })
}

fn digits(b: &[u8], at: usize, n: usize) -> Option<i64> {
    let part = b.get(at..at + n)?;
    part.iter().try_fold(0i64, |acc, &c| {
        c.is_ascii_digit().then(|| acc * 10 + i64::from(c - b'0'))
    })
}

fn expect(b: &[u8], at: usize, want: &[u8]) -> Option<()> {
    want.contains(b.get(at)?).then_some(())
}

fn parse(b: &[u8]) -> Option<UnixMillis> {
    let year = digits(b, 0, 4)?;
    expect(b, 4, b"-")?;
    let month = digits(b, 5, 2)?;
    expect(b, 7, b"-")?;
    let day = digits(b, 8, 2)?;
    expect(b, 10, b"Tt ")?;
    let hour = digits(b, 11, 2)?;
    expect(b, 13, b":")?;
    let minute = digits(b, 14, 2)?;
    expect(b, 16, b":")?;
    let second = digits(b, 17, 2)?;
    let mut at = 19;

    let mut millis = 0i64;
    if b.get(at) == Some(&b'.') {
        at += 1;
        let start = at;
        while b.get(at).is_some_and(u8::is_ascii_digit) {
            if at - start < 3 {
                millis = millis * 10 + i64::from(b[at] - b'0');
            }
            at += 1;
        }
        let len = at - start;
        if len == 0 {
            return None;
        }
        for _ in len..3 {
            millis *= 10;
        }
    }

    let offset_minutes = match *b.get(at)? {
        b'Z' | b'z' => {
            at += 1;
            0
        }
        sign @ (b'+' | b'-') => {
            let oh = digits(b, at + 1, 2)?;
            expect(b, at + 3, b":")?;
            let om = digits(b, at + 4, 2)?;
            if oh > 23 || om > 59 {
                return None;
            }
            at += 6;
            let total = oh * 60 + om;
            if sign == b'-' {
                -total
            } else {
                total
            }
        }
        _ => return None,
    };
    if at != b.len() {
        return None;
    }

    if !(1..=12).contains(&month) || day < 1 || day > days_in_month(year, month) {
        return None;
    }
    if hour > 23 || minute > 59 || second > 60 {
        return None;
    }
    let (second, millis) = if second == 60 {
        (59, 999)
    } else {
        (second, millis)
    };

    let days = days_from_civil(year, month, day);
    let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset_minutes * 60;
    Some(seconds * 1_000 + millis)
}

fn is_leap(year: i64) -> bool {
    (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
}

fn days_in_month(year: i64, month: i64) -> i64 {
    match month {
        2 if is_leap(year) => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let y = if month <= 2 { year - 1 } else { year };
    let era = y.div_euclid(400);
    let yoe = y - era * 400;
    let mp = (month + 9) % 12;
    let doy = (153 * mp + 2) / 5 + day - 1;
    let doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    era * 146_097 + doe - 719_468
}

/// `ms` as `YYYY-MM-DDTHH:MM:SS.sssZ` (years 0 to 9999; others are clamped to them):
/// how a parsed expiry is handed on to code that reads RFC 3339 again.
pub fn format_rfc3339(ms: UnixMillis) -> String {
    const MIN: UnixMillis = -62_167_219_200_000; // 0000-01-01T00:00:00Z
    const MAX: UnixMillis = 253_402_300_799_999; // 9999-12-31T23:59:59.999Z
    let ms = ms.clamp(MIN, MAX);
    let (days, in_day) = (ms.div_euclid(86_400_000), ms.rem_euclid(86_400_000));
    let (year, month, day) = civil_from_days(days);
    let mut out = String::with_capacity(24);
    for (value, width, after) in [
        (year, 4, '-'),
        (month, 2, '-'),
        (day, 2, 'T'),
        (in_day / 3_600_000, 2, ':'),
        (in_day / 60_000 % 60, 2, ':'),
        (in_day / 1000 % 60, 2, '.'),
        (in_day % 1000, 3, 'Z'),
    ] {
        // Every value is non-negative here (the clamp above), so unsigned_abs is the value.
        let digits = Decimal::new(value.unsigned_abs());
        for _ in digits.len()..width {
            out.push('0');
        }
        out.push_str(&digits);
        out.push(after);
    }
    out
}

/// The inverse of [`days_from_civil`] (H. Hinnant's algorithm).
fn civil_from_days(days: i64) -> (i64, i64, i64) {
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    (yoe + era * 400 + i64::from(month <= 2), month, day)
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn ms(text: &str) -> UnixMillis {
        parse_rfc3339(text, "expiresAt").unwrap()
    }

    #[test]
    fn formats_known_instants() {
        assert_eq!(format_rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(
            format_rfc3339(1_760_356_800_500),
            "2025-10-13T12:00:00.500Z"
        );
        assert_eq!(format_rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        assert_eq!(format_rfc3339(-1), "1969-12-31T23:59:59.999Z");
        assert_eq!(format_rfc3339(i64::MAX), "9999-12-31T23:59:59.999Z");
    }

    proptest! {
        #[test]
        fn format_then_parse_is_the_identity(ms in -62_167_219_200_000i64..253_402_300_800_000) {
            prop_assert_eq!(parse_rfc3339(&format_rfc3339(ms), "t").unwrap(), ms);
        }
    }

    #[test]
    fn known_instants() {
        assert_eq!(ms("1970-01-01T00:00:00Z"), 0);
        assert_eq!(ms("2025-10-13T12:00:00Z"), 1_760_356_800_000);
        assert_eq!(ms("2025-10-13T12:00:00.5Z"), 1_760_356_800_500);
        assert_eq!(ms("2025-10-13T12:00:00.123456789Z"), 1_760_356_800_123);
        assert_eq!(ms("2025-10-13T14:00:00+02:00"), 1_760_356_800_000);
        assert_eq!(ms("2025-10-13T07:30:00-04:30"), 1_760_356_800_000);
        assert_eq!(ms("2025-10-13t12:00:00z"), 1_760_356_800_000);
        assert_eq!(ms("2025-10-13 12:00:00Z"), 1_760_356_800_000);
        assert_eq!(ms("2000-02-29T00:00:00Z"), 951_782_400_000);
        assert_eq!(ms("1969-12-31T23:59:59.999Z"), -1);
        assert_eq!(ms("2016-12-31T23:59:60Z"), ms("2016-12-31T23:59:59.999Z"));
    }

    #[test]
    fn rejects_malformed() {
        for bad in [
            "",
            "2025-10-13",
            "2025-10-13T12:00:00",
            "2025-10-13T12:00Z",
            "2025-13-01T00:00:00Z",
            "2025-02-29T00:00:00Z",
            "2025-04-31T00:00:00Z",
            "2025-10-13T24:00:00Z",
            "2025-10-13T12:60:00Z",
            "2025-10-13T12:00:61Z",
            "2025-10-13T12:00:00.Z",
            "2025-10-13T12:00:00+0200",
            "2025-10-13T12:00:00+24:00",
            "2025-10-13T12:00:00Z ",
            " 2025-10-13T12:00:00Z",
            "2025-10-13T12:00:00ZZ",
            "+2025-10-13T12:00:00Z",
            "2025/10/13T12:00:00Z",
            "1760356800000",
            "２０２５-10-13T12:00:00Z",
        ] {
            let err = parse_rfc3339(bad, "expiresAt").unwrap_err();
            assert_eq!(err.code(), ErrorCode::InvalidTimestamp, "{bad:?}");
            assert!(err.message().contains("expiresAt"));
        }
    }

    proptest! {
        #[test]
        fn formats_and_parses_back(secs in 0i64..253_402_300_799, frac in 0i64..1000, off in -1439i64..1440) {
            let local = secs + off * 60;
            let (y, m, d) = civil_from_days(local.div_euclid(86_400));
            let sod = local.rem_euclid(86_400);
            let sign = if off < 0 { '-' } else { '+' };
            let text = format!(
                "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{frac:03}{sign}{:02}:{:02}",
                sod / 3600, sod / 60 % 60, sod % 60, off.abs() / 60, off.abs() % 60
            );
            prop_assume!((0..=9999).contains(&y));
            prop_assert_eq!(parse_rfc3339(&text, "t").unwrap(), secs * 1000 + frac);
        }

        #[test]
        fn never_panics(text in ".{0,40}") {
            let _ = parse_rfc3339(&text, "t");
        }
    }
}

//! Small helpers: time, ids, randomness, canonical JSON.

use std::time::{SystemTime, UNIX_EPOCH};

use serde_json::Value;

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

/// RFC 3339 / ISO 8601 UTC with milliseconds: `2025-10-13T12:00:00.000Z`.
pub fn rfc3339(ms: i64) -> String {
    let secs = ms.div_euclid(1000);
    let millis = ms.rem_euclid(1000);
    let days = secs.div_euclid(86_400);
    let rem = secs.rem_euclid(86_400);
    let (y, m, d) = civil_from_days(days);
    format!(
        "{y:04}-{m:02}-{d:02}T{:02}:{:02}:{:02}.{millis:03}Z",
        rem / 3600,
        (rem / 60) % 60,
        rem % 60
    )
}

/// Howard Hinnant's days-to-civil conversion.
fn civil_from_days(z: i64) -> (i64, u32, u32) {
    let z = z + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z.rem_euclid(146_097);
    let yoe = (doe - doe / 1460 + doe / 36_524 - doe / 146_096) / 365;
    let y = yoe + era * 400;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let d = (doy - (153 * mp + 2) / 5 + 1) as u32;
    let m = if mp < 10 { mp + 3 } else { mp - 9 } as u32;
    (if m <= 2 { y + 1 } else { y }, m, d)
}

/// Random bytes from the OS.
pub fn random_bytes<const N: usize>() -> [u8; N] {
    let mut out = [0u8; N];
    getrandom::fill(&mut out).expect("the OS random number generator failed");
    out
}

/// A random version-4 UUID, lowercase.
pub fn uuid_v4() -> String {
    let mut b = random_bytes::<16>();
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    let h = embedded_wallet_kit::service::hex_encode(&b);
    format!(
        "{}-{}-{}-{}-{}",
        &h[0..8],
        &h[8..12],
        &h[12..16],
        &h[16..20],
        &h[20..32]
    )
}

/// `<Kind>:<uuid v4>`.
pub fn new_id(kind: &str) -> String {
    format!("{kind}:{}", uuid_v4())
}

/// A random decimal code of `digits` digits (uniform, by rejection sampling).
pub fn random_digits(digits: usize) -> String {
    let mut out = String::with_capacity(digits);
    while out.len() < digits {
        let [b] = random_bytes::<1>();
        if b < 250 {
            out.push(char::from(b'0' + b % 10));
        }
    }
    out
}

/// Compact JSON with object keys sorted at every level (what the service calls
/// "canonical compact JSON"), whatever order the map keeps.
pub fn canonical_json(value: &Value) -> String {
    let mut out = String::new();
    write_canonical(value, &mut out);
    out
}

fn write_canonical(value: &Value, out: &mut String) {
    match value {
        Value::Object(map) => {
            let mut keys: Vec<&String> = map.keys().collect();
            keys.sort();
            out.push('{');
            for (i, key) in keys.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                out.push_str(&Value::String((*key).clone()).to_string());
                out.push(':');
                write_canonical(&map[key.as_str()], out);
            }
            out.push('}');
        }
        Value::Array(items) => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_canonical(item, out);
            }
            out.push(']');
        }
        other => out.push_str(&other.to_string()),
    }
}

/// Whether `text` is a `clientPublicKey` by the spec's pattern `^04[0-9a-fA-F]{128}$`.
pub fn matches_client_key_pattern(text: &str) -> bool {
    text.len() == 130 && text.starts_with("04") && text.bytes().all(|c| c.is_ascii_hexdigit())
}

/// A compressed P-256 key in hex: `^0[23][0-9a-fA-F]{64}$`.
pub fn matches_compressed_key_pattern(text: &str) -> bool {
    text.len() == 66
        && (text.starts_with("02") || text.starts_with("03"))
        && text.bytes().all(|c| c.is_ascii_hexdigit())
}

/// The pattern of newer deployments (challenge, refresh): compressed or uncompressed.
pub fn matches_any_client_key_pattern(text: &str) -> bool {
    matches_client_key_pattern(text) || matches_compressed_key_pattern(text)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn formats_timestamps() {
        assert_eq!(rfc3339(0), "1970-01-01T00:00:00.000Z");
        assert_eq!(rfc3339(1_760_357_100_123), "2025-10-13T12:05:00.123Z");
        assert_eq!(rfc3339(951_782_400_000), "2000-02-29T00:00:00.000Z");
        let parsed =
            embedded_wallet_kit::service::parse_rfc3339(&rfc3339(1_760_357_100_123), "t").unwrap();
        assert_eq!(parsed, 1_760_357_100_123);
    }

    #[test]
    fn ids_and_codes() {
        let id = new_id("Quote");
        assert_eq!(id.len(), "Quote:".len() + 36);
        assert_eq!(&id[6 + 14..6 + 15], "4");
        assert_ne!(new_id("Quote"), id);
        let otp = random_digits(6);
        assert_eq!(otp.len(), 6);
        assert!(otp.bytes().all(|c| c.is_ascii_digit()));
    }

    #[test]
    fn canonical_json_sorts_keys_recursively() {
        let v = json!({"type": "T", "parameters": {"z": 1, "a": [ {"y": "\"", "b": null} ]}, "organizationId": "o"});
        assert_eq!(
            canonical_json(&v),
            r#"{"organizationId":"o","parameters":{"a":[{"b":null,"y":"\""}],"z":1},"type":"T"}"#
        );
    }

    #[test]
    fn client_key_pattern() {
        assert!(matches_client_key_pattern(&format!(
            "04{}",
            "aB".repeat(64)
        )));
        assert!(!matches_client_key_pattern(&format!(
            "02{}",
            "ab".repeat(64)
        )));
        assert!(!matches_client_key_pattern(&format!(
            "04{}",
            "ab".repeat(32)
        )));
        assert!(!matches_client_key_pattern(&format!(
            "04{}g",
            "ab".repeat(63)
        )));
        for good in ["02", "03"] {
            let text = format!("{good}{}", "aB".repeat(32));
            assert!(matches_compressed_key_pattern(&text));
            assert!(matches_any_client_key_pattern(&text));
        }
        for bad in [
            format!("04{}", "ab".repeat(32)),
            format!("02{}", "ab".repeat(31)),
            format!("02{}g", "ab".repeat(31)),
            format!("04{}", "ab".repeat(64)),
        ] {
            assert!(!matches_compressed_key_pattern(&bad), "{bad}");
        }
    }
}

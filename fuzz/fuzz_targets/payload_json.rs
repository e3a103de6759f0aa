#![no_main]
//! The strict JSON reader behind inspectPayload against serde_json: whatever it accepts,
//! serde_json accepts as the same value; whatever serde_json accepts, it accepts too,
//! unless a member name repeats (exactly or but for letter case) or the nesting passes
//! its bound. inspect_payload never panics.
use embedded_wallet_kit::inspect_payload;
use embedded_wallet_kit::fuzzing::{parse, Json, CASE_FOLDED_NAME, DUPLICATE_NAME, MAX_DEPTH};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fn same(ours: &Json, theirs: &Value) -> bool {
    match (ours, theirs) {
        (Json::Null, Value::Null) => true,
        (Json::Bool(a), Value::Bool(b)) => a == b,
        (Json::Number(a), Value::Number(_)) => serde_json::from_str::<Value>(a).ok().as_ref() == Some(theirs),
        (Json::String(a), Value::String(b)) => a == b,
        (Json::Array(a), Value::Array(b)) => a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y)),
        (Json::Object(a), Value::Object(b)) => {
            a.len() == b.len() && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
        }
        _ => false,
    }
}

fuzz_target!(|text: &str| {
    let _ = inspect_payload(text);
    let ours = parse(text);
    let theirs = serde_json::from_str::<Value>(text);
    match (&ours, &theirs) {
        (Ok(a), Ok(b)) => assert!(same(a, b), "values differ"),
        (Ok(_), Err(e)) => assert!(e.to_string().contains("number out of range"), "accepted what serde_json refuses: {e}"),
        (Err(e), Ok(_)) => assert!(
            e.reason == DUPLICATE_NAME
                || e.reason == CASE_FOLDED_NAME
                || (e.reason == "nested too deeply" && text.len() > MAX_DEPTH),
            "refused what serde_json accepts: {}",
            e.reason
        ),
        (Err(_), Err(_)) => {}
    }
});

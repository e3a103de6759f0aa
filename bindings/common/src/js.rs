//! JS operations that can throw on hostile values (revoked Proxies, throwing getters,
//! objects that pass `instanceof` without being what they claim). Every one is a binding
//! with `catch`: a JS exception must never unwind through wasm, where it would leave the
//! objects in use borrowed forever and leak wasm-bindgen's externref slots.

use crate::prelude::*;
use js_sys::{JsString, Object, Reflect, JSON};
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

use crate::to_js;
use embedded_wallet_kit::{Error, ErrorCode};
use embedded_wallet_kit::{Field, Fields};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = Array, js_name = isArray)]
    fn is_array_raw(value: &JsValue) -> Result<bool, JsValue>;

    #[wasm_bindgen(catch, js_namespace = Object, js_name = entries)]
    fn entries_raw(value: &JsValue) -> Result<js_sys::Array, JsValue>;

    #[wasm_bindgen(catch, js_namespace = ["Date", "prototype", "getTime"], js_name = call)]
    fn date_get_time(this: &JsValue) -> Result<f64, JsValue>;

    // One call for the whole string; throws (caught) where the engine has no isWellFormed.
    #[wasm_bindgen(catch, js_namespace = ["String", "prototype", "isWellFormed"], js_name = call)]
    fn is_well_formed(this: &JsString) -> Result<JsValue, JsValue>;
}

/// `Array.isArray`, false when it throws.
pub fn is_array(value: &JsValue) -> bool {
    is_array_raw(value).unwrap_or(false)
}

/// An own data property (`None` when absent, inherited, or unreadable): responses are
/// plain JSON objects, so nothing is read from a prototype a polluted page may have filled.
pub fn own(target: &JsValue, key: &str) -> Option<JsValue> {
    if !target.is_object() {
        return None;
    }
    let key = JsValue::from_str(key);
    let descriptor =
        Reflect::get_own_property_descriptor(target.unchecked_ref::<Object>(), &key).ok()?;
    if descriptor.is_undefined() {
        return None;
    }
    Reflect::get(target, &key).ok()
}

/// A value that is not what a read expected, or that threw while being read; the caller
/// turns it into a typed error naming the argument.
#[derive(Clone, Copy, Debug)]
pub struct Unreadable;

/// The items of a real array, read one by one with catching reads; `Err` (with no detail)
/// when it is not an array or an item cannot be read.
pub fn array_items(value: &JsValue) -> Result<Vec<JsValue>, Unreadable> {
    if !is_array(value) {
        return Err(Unreadable);
    }
    let length = Reflect::get(value, &"length".into())
        .map_err(|_| Unreadable)?
        .as_f64()
        .ok_or(Unreadable)?;
    if !(0.0..=10_000.0).contains(&length) {
        return Err(Unreadable);
    }
    (0..length as u32)
        .map(|i| Reflect::get(value, &JsValue::from(i)).map_err(|_| Unreadable))
        .collect()
}

/// The names of an object's own enumerable string-keyed properties.
pub fn own_keys(value: &JsValue) -> Result<Vec<String>, Unreadable> {
    let entries = entries_raw(value).map_err(|_| Unreadable)?;
    entries
        .iter()
        .map(|pair| {
            pair.unchecked_into::<js_sys::Array>()
                .get(0)
                .as_string()
                .ok_or(Unreadable)
        })
        .collect()
}

/// `[name, value]` pairs of an object's own enumerable string-valued properties.
pub fn string_entries(value: &JsValue) -> Result<Vec<(String, String)>, Unreadable> {
    let entries = entries_raw(value).map_err(|_| Unreadable)?;
    Ok(entries
        .iter()
        .filter_map(|pair| {
            let pair: js_sys::Array = pair.unchecked_into();
            Some((pair.get(0).as_string()?, pair.get(1).as_string()?))
        })
        .collect())
}

/// The time value of a real Date; `None` for anything else (even if it passes instanceof).
pub fn date_millis(value: &JsValue) -> Option<f64> {
    date_get_time(value).ok()
}

/// Overwrites the stack region the last calls used, so copies of a private scalar left in
/// dead frames (by decryption, key derivation, signing) do not outlive the operation.
/// wasm's shadow stack lives in linear memory, which JS can read.
/// In 64-bit words: zeroize's volatile stores go one element at a time, and 4,096 word
/// stores cost far less than 32,768 byte stores on every export call (same 32 KiB).
#[inline(never)]
pub fn scrub_stack() {
    let mut region = [0u64; 4 * 1024];
    zeroize::Zeroize::zeroize(&mut region[..]);
    core::hint::black_box(&region);
}

/// Runs an export's body, then scrubs the stack it used: every `#[wasm_bindgen]` export
/// of the binding crates is `scrubbed(|| …)` (tests/exports_are_scrubbed.rs checks it),
/// so a new export cannot forget the scrub. The body runs in a frame of its own
/// ([`run_below`]), so the scrub, called from this same frame, covers all of it.
#[inline(always)]
pub fn scrubbed<T>(body: impl FnOnce() -> T) -> T {
    let out = run_below(body);
    scrub_stack();
    out
}

/// Calls `body` from a frame that is not merged into the caller's, so its locals live
/// where the following [`scrub_stack`] overwrites them.
#[inline(never)]
fn run_below<T>(body: impl FnOnce() -> T) -> T {
    body()
}

/// A JS string as UTF-8, refusing lone surrogates: they have no UTF-8 form, so signing
/// them would sign something other than what the caller holds.
pub fn exact_string(value: &JsValue, what: &str, code: ErrorCode) -> Result<String, JsValue> {
    let text: &JsString = value
        .dyn_ref()
        .ok_or_else(|| to_js(Error::new(code, [what, " must be a string"].concat())))?;
    // is_valid_utf16 (one call into JS per UTF-16 unit) only where isWellFormed is missing
    // (Safari < 16.4, Firefox < 119) or did not answer with a boolean.
    let well_formed = match is_well_formed(text).map(|answer| answer.as_bool()) {
        Ok(Some(answer)) => answer,
        _ => text.is_valid_utf16(),
    };
    if !well_formed {
        return Err(to_js(Error::new(
            code,
            [
                what,
                " contains a lone UTF-16 surrogate and has no exact UTF-8 form",
            ]
            .concat(),
        )));
    }
    Ok(String::from(text))
}

/// A JS object's own properties, read with catching reads.
pub struct JsFields(pub JsValue);

impl Fields for JsFields {
    fn field(&self, name: &str) -> Field {
        match own(&self.0, name) {
            None => Field::Missing,
            Some(v) if v.is_undefined() || v.is_null() => Field::Missing,
            Some(v) => v.as_string().map_or(Field::NotAString, Field::Str),
        }
    }
}

/// Accepts a response as an object or as raw JSON text (parsed by the engine's JSON).
pub fn object_or_json(value: &JsValue, code: ErrorCode, what: &str) -> Result<JsFields, JsValue> {
    let value = match value.as_string() {
        Some(text) => JSON::parse(&text)
            .map_err(|_| to_js(Error::new(code, [what, " is not valid JSON"].concat())))?,
        None => value.clone(),
    };
    if value.is_object() && !is_array(&value) {
        Ok(JsFields(value))
    } else {
        Err(to_js(Error::new(
            code,
            [what, " must be an object or its JSON text"].concat(),
        )))
    }
}

/// A string data property on a fresh plain object (which cannot fail to be set).
pub fn set(target: &Object, key: &str, value: &str) {
    let _ = Reflect::set(target, &JsValue::from_str(key), &JsValue::from_str(value));
}

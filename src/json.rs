//! JSON: the writer the flows build request bodies with, and a strict RFC 8259 reader for the payloads the kit is asked to sign. The wasm
//! build carries no serde, and a payload is read to show the user what a signature
//! would authorize, so it must be read exactly as written: duplicate member names (which
//! parsers resolve differently) and unpaired surrogates are refused, numbers are kept as
//! their text, and nesting is bounded so hostile input cannot exhaust the stack. Names
//! are duplicates when equal after case folding ([`fold_name`]): Go's `encoding/json`
//! matches member names to fields case-insensitively, the last one winning. A fuzz
//! target compares it with serde_json.

use crate::prelude::*;

/// A parsed JSON value. Object members keep their order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Json {
    /// `null`.
    Null,
    /// `true` or `false`.
    Bool(bool),
    /// A number, as written.
    Number(String),
    /// A string, unescaped.
    String(String),
    /// An array.
    Array(Vec<Json>),
    /// An object, members in order (names unique, even after [`fold_name`]).
    Object(Vec<(String, Json)>),
}

/// Deepest nesting of arrays and objects accepted.
pub const MAX_DEPTH: usize = 64;

/// Why a text is not accepted, and at which byte offset.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JsonError {
    /// What is wrong.
    pub reason: &'static str,
    /// Byte offset into the text.
    pub offset: usize,
}

impl Json {
    /// The member of an object named `name` in any letter case (the one a case-insensitive
    /// reader takes; the reader refused a second one).
    pub fn get(&self, name: &str) -> Option<&Json> {
        match self {
            Json::Object(members) => members
                .iter()
                .find(|(k, _)| fold_name(k) == fold_name(name))
                .map(|(_, v)| v),
            _ => None,
        }
    }

    /// The text of a string value.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }
}

/// Parses `text`, which must hold exactly one JSON value (whitespace around it allowed).
pub fn parse(text: &str) -> Result<Json, JsonError> {
    let mut reader = Reader {
        bytes: text.as_bytes(),
        at: 0,
    };
    let value = reader.value(0)?;
    reader.skip_whitespace();
    if reader.at != reader.bytes.len() {
        return Err(reader.error("text after the JSON value"));
    }
    Ok(value)
}

#[cfg(test)]
std::thread_local! {
    /// Member-name comparisons of the duplicate check, so a test can bound its cost
    /// without timing it.
    static NAME_COMPARISONS: core::cell::Cell<u64> = const { core::cell::Cell::new(0) };
}

#[cfg(test)]
fn count_name_comparison() {
    NAME_COMPARISONS.with(|c| c.set(c.get() + 1));
}

/// `name` as a case-insensitive reader compares it: ASCII letters in lower case, and the
/// two other characters whose Unicode simple case folding reaches an ASCII letter (KELVIN
/// SIGN to `k`, LONG S to `s`), which is all that can match an ASCII field name in Go's
/// `encoding/json`.
pub(crate) fn fold_name(name: &str) -> String {
    name.chars()
        .map(|c| match c {
            '\u{212a}' => 'k',
            '\u{17f}' => 's',
            c => c.to_ascii_lowercase(),
        })
        .collect()
}

/// The first member, in text order, whose name an earlier member already has, equal or
/// equal after [`fold_name`]: its offset and which of the two. The members' indices
/// sorted by (folded name, index), then equal neighbours compared: O(n log n) name
/// comparisons. A heapsort, written out: the standard library's sorts cost several KB
/// of wasm.
fn first_duplicate(members: &[(String, Json)], name_offsets: &[usize]) -> Option<JsonError> {
    let folded: Vec<String> = members.iter().map(|(name, _)| fold_name(name)).collect();
    let before = |a: usize, b: usize| {
        #[cfg(test)]
        count_name_comparison();
        (folded[a].as_str(), a) < (folded[b].as_str(), b)
    };
    let mut order: Vec<usize> = (0..members.len()).collect();
    for start in (0..order.len() / 2).rev() {
        sift_down(&mut order, start, &before);
    }
    for end in (1..order.len()).rev() {
        order.swap(0, end);
        sift_down(&mut order[..end], 0, &before);
    }
    // The first duplicate's only earlier namesake is its neighbour in that order.
    let (earlier, index) = order
        .windows(2)
        .filter(|pair| folded[pair[0]] == folded[pair[1]])
        .map(|pair| (pair[0], pair[1]))
        .min_by_key(|&(_, index)| index)?;
    Some(JsonError {
        reason: if members[earlier].0 == members[index].0 {
            DUPLICATE_NAME
        } else {
            CASE_FOLDED_NAME
        },
        offset: name_offsets[index],
    })
}

/// The reason of a member name that an earlier member has.
pub const DUPLICATE_NAME: &str = "duplicate member name";
/// The reason of a member name equal to an earlier one after [`fold_name`].
pub const CASE_FOLDED_NAME: &str = "member names equal but for letter case";

/// Restores the max-heap order of `heap` below `root`.
fn sift_down(heap: &mut [usize], mut root: usize, before: &impl Fn(usize, usize) -> bool) {
    loop {
        let mut child = 2 * root + 1;
        if child >= heap.len() {
            return;
        }
        if child + 1 < heap.len() && before(heap[child], heap[child + 1]) {
            child += 1;
        }
        if !before(heap[root], heap[child]) {
            return;
        }
        heap.swap(root, child);
        root = child;
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Reader<'_> {
    fn error(&self, reason: &'static str) -> JsonError {
        JsonError {
            reason,
            offset: self.at,
        }
    }

    fn peek(&self) -> Option<u8> {
        self.bytes.get(self.at).copied()
    }

    fn skip_whitespace(&mut self) {
        while matches!(self.peek(), Some(b' ' | b'\t' | b'\n' | b'\r')) {
            self.at += 1;
        }
    }

    fn expect(&mut self, byte: u8, reason: &'static str) -> Result<(), JsonError> {
        if self.peek() == Some(byte) {
            self.at += 1;
            Ok(())
        } else {
            Err(self.error(reason))
        }
    }

    fn literal(&mut self, word: &'static str, value: Json) -> Result<Json, JsonError> {
        if self.bytes[self.at..].starts_with(word.as_bytes()) {
            self.at += word.len();
            Ok(value)
        } else {
            Err(self.error("unknown literal"))
        }
    }

    fn value(&mut self, depth: usize) -> Result<Json, JsonError> {
        self.skip_whitespace();
        match self.peek() {
            Some(b'{') => self.object(depth + 1),
            Some(b'[') => self.array(depth + 1),
            Some(b'"') => self.string().map(Json::String),
            Some(b't') => self.literal("true", Json::Bool(true)),
            Some(b'f') => self.literal("false", Json::Bool(false)),
            Some(b'n') => self.literal("null", Json::Null),
            Some(b'-' | b'0'..=b'9') => self.number(),
            Some(_) => Err(self.error("not the start of a JSON value")),
            None => Err(self.error("the text ends before a value")),
        }
    }

    fn object(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.at += 1; // '{'
        let mut members: Vec<(String, Json)> = Vec::new();
        let mut name_offsets: Vec<usize> = Vec::new();
        let read = self.members(depth, &mut members, &mut name_offsets);
        // Duplicates are looked for once per object, by sorting (a scan of the earlier
        // members per name made a hostile 40,000-member payload take seconds), also when
        // reading stopped at an error: a duplicate name comes before anything inside its
        // value or after it, so it is still the error reported, as when checked name by name.
        if let Some(duplicate) = first_duplicate(&members, &name_offsets) {
            return Err(duplicate);
        }
        read.map(|()| Json::Object(members))
    }

    /// Reads the members up to the closing `}`. A member's name is pushed before its value
    /// is read (with `null` in its place), so a failed read still has every name seen.
    fn members(
        &mut self,
        depth: usize,
        members: &mut Vec<(String, Json)>,
        name_offsets: &mut Vec<usize>,
    ) -> Result<(), JsonError> {
        self.skip_whitespace();
        if self.peek() == Some(b'}') {
            self.at += 1;
            return Ok(());
        }
        loop {
            self.skip_whitespace();
            if self.peek() != Some(b'"') {
                return Err(self.error("an object member must start with a string name"));
            }
            name_offsets.push(self.at);
            members.push((self.string()?, Json::Null));
            self.skip_whitespace();
            self.expect(b':', "expected ':' after a member name")?;
            let value = self.value(depth)?;
            if let Some(last) = members.last_mut() {
                last.1 = value;
            }
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b'}') => {
                    self.at += 1;
                    return Ok(());
                }
                _ => return Err(self.error("expected ',' or '}' in an object")),
            }
        }
    }

    fn array(&mut self, depth: usize) -> Result<Json, JsonError> {
        if depth > MAX_DEPTH {
            return Err(self.error("nested too deeply"));
        }
        self.at += 1; // '['
        let mut items = Vec::new();
        self.skip_whitespace();
        if self.peek() == Some(b']') {
            self.at += 1;
            return Ok(Json::Array(items));
        }
        loop {
            items.push(self.value(depth)?);
            self.skip_whitespace();
            match self.peek() {
                Some(b',') => self.at += 1,
                Some(b']') => {
                    self.at += 1;
                    return Ok(Json::Array(items));
                }
                _ => return Err(self.error("expected ',' or ']' in an array")),
            }
        }
    }

    fn digits(&mut self) -> usize {
        let start = self.at;
        while matches!(self.peek(), Some(b'0'..=b'9')) {
            self.at += 1;
        }
        self.at - start
    }

    fn number(&mut self) -> Result<Json, JsonError> {
        let start = self.at;
        if self.peek() == Some(b'-') {
            self.at += 1;
        }
        match self.peek() {
            Some(b'0') => self.at += 1,
            Some(b'1'..=b'9') => {
                self.digits();
            }
            _ => return Err(self.error("a number needs a digit")),
        }
        if self.peek() == Some(b'.') {
            self.at += 1;
            if self.digits() == 0 {
                return Err(self.error("a fraction needs a digit"));
            }
        }
        if matches!(self.peek(), Some(b'e' | b'E')) {
            self.at += 1;
            if matches!(self.peek(), Some(b'+' | b'-')) {
                self.at += 1;
            }
            if self.digits() == 0 {
                return Err(self.error("an exponent needs a digit"));
            }
        }
        // Only ASCII was consumed, so the slice is on character boundaries.
        let text = core::str::from_utf8(&self.bytes[start..self.at]).unwrap_or_default();
        Ok(Json::Number(text.to_owned()))
    }

    fn hex4(&mut self) -> Result<u32, JsonError> {
        let mut value = 0;
        for _ in 0..4 {
            let digit = match self.peek() {
                Some(b @ b'0'..=b'9') => b - b'0',
                Some(b @ b'a'..=b'f') => b - b'a' + 10,
                Some(b @ b'A'..=b'F') => b - b'A' + 10,
                _ => return Err(self.error("\\u needs four hex digits")),
            };
            value = value * 16 + u32::from(digit);
            self.at += 1;
        }
        Ok(value)
    }

    fn string(&mut self) -> Result<String, JsonError> {
        self.at += 1; // '"'
        let mut out = String::new();
        loop {
            // Copy the run of plain characters at once; the text is valid UTF-8 and the
            // run stops only at ASCII bytes, so it ends on a character boundary.
            let run = self.bytes[self.at..]
                .iter()
                .position(|&b| b == b'"' || b == b'\\' || b < 0x20)
                .ok_or(JsonError {
                    reason: "unterminated string",
                    offset: self.bytes.len(),
                })?;
            out.push_str(
                core::str::from_utf8(&self.bytes[self.at..self.at + run]).unwrap_or_default(),
            );
            self.at += run;
            match self.peek() {
                Some(b'"') => {
                    self.at += 1;
                    return Ok(out);
                }
                Some(b'\\') => {
                    self.at += 1;
                    let escaped = match self.peek() {
                        Some(b'"') => '"',
                        Some(b'\\') => '\\',
                        Some(b'/') => '/',
                        Some(b'b') => '\u{8}',
                        Some(b'f') => '\u{c}',
                        Some(b'n') => '\n',
                        Some(b'r') => '\r',
                        Some(b't') => '\t',
                        Some(b'u') => {
                            self.at += 1;
                            let unit = self.hex4()?;
                            out.push(self.code_point(unit)?);
                            continue;
                        }
                        _ => return Err(self.error("unknown escape")),
                    };
                    self.at += 1;
                    out.push(escaped);
                }
                _ => return Err(self.error("control character in a string")),
            }
        }
    }

    /// The character of a `\u` escape, reading the low half of a surrogate pair.
    fn code_point(&mut self, unit: u32) -> Result<char, JsonError> {
        let code = match unit {
            0xD800..=0xDBFF => {
                if !self.bytes[self.at..].starts_with(b"\\u") {
                    return Err(self.error("unpaired surrogate"));
                }
                self.at += 2;
                let low = self.hex4()?;
                if !(0xDC00..=0xDFFF).contains(&low) {
                    return Err(self.error("unpaired surrogate"));
                }
                0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
            }
            0xDC00..=0xDFFF => return Err(self.error("unpaired surrogate")),
            unit => unit,
        };
        char::from_u32(code).ok_or_else(|| self.error("invalid code point"))
    }
}

// The writer: request bodies and sealed plaintexts, from strings only.

/// A JSON string literal (quotes included) with the escapes RFC 8259 requires.
pub(crate) fn json_string(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 2);
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                // \u00XX; no format! machinery for two hex digits.
                const HEX: &[u8; 16] = b"0123456789abcdef";
                out.push_str("\\u00");
                out.push(HEX[c as usize >> 4] as char);
                out.push(HEX[c as usize & 15] as char);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A compact JSON object of string members, in the order given.
pub(crate) fn json_object(members: &[(&str, &str)]) -> String {
    let mut out = String::from("{");
    for (i, (k, v)) in members.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        out.push_str(&json_string(k));
        out.push(':');
        out.push_str(&json_string(v));
    }
    out.push('}');
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    fn s(text: &str) -> Json {
        Json::String(text.into())
    }

    #[test]
    fn reads_every_kind_of_value() {
        let v = parse(
            r#" {"a":[1,-0.5e+3,true,false,null],"b":{"c":"x\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"},"d":"é😀"} "#,
        )
        .unwrap();
        assert_eq!(
            v.get("a"),
            Some(&Json::Array(vec![
                Json::Number("1".into()),
                Json::Number("-0.5e+3".into()),
                Json::Bool(true),
                Json::Bool(false),
                Json::Null
            ]))
        );
        assert_eq!(
            v.get("b").and_then(|b| b.get("c")),
            Some(&s("x\"\\/\u{8}\u{c}\n\r\t\u{e9}\u{1f600}"))
        );
        assert_eq!(v.get("d").and_then(Json::as_str), Some("é😀"));
        assert_eq!(parse("[]").unwrap(), Json::Array(vec![]));
        assert_eq!(parse("{}").unwrap(), Json::Object(vec![]));
    }

    #[test]
    fn refuses_what_is_not_strict_json() {
        for (bad, reason) in [
            ("", "the text ends before a value"),
            ("{\"a\":1,\"a\":2}", "duplicate member name"),
            ("{\"a\":1}x", "text after the JSON value"),
            (
                "{\"a\":1,}",
                "an object member must start with a string name",
            ),
            ("[1,]", "not the start of a JSON value"),
            ("01", "text after the JSON value"),
            ("1.", "a fraction needs a digit"),
            ("1e", "an exponent needs a digit"),
            ("-", "a number needs a digit"),
            ("\"\\ud800\"", "unpaired surrogate"),
            ("\"\\udc00\"", "unpaired surrogate"),
            ("\"\\ud800\\u0041\"", "unpaired surrogate"),
            ("\"a\nb\"", "control character in a string"),
            ("\"\\x\"", "unknown escape"),
            ("\"\\u12\"", "\\u needs four hex digits"),
            ("\"abc", "unterminated string"),
            ("tru", "unknown literal"),
            ("{'a':1}", "an object member must start with a string name"),
            ("{\"a\" 1}", "expected ':' after a member name"),
            ("[1 2]", "expected ',' or ']' in an array"),
        ] {
            assert_eq!(parse(bad).unwrap_err().reason, reason, "{bad}");
        }
    }

    /// `{"k0":0,"k1":1,...}`, with `extra` appended as the last member's text.
    fn wide_object(members: usize, extra: &str) -> String {
        let mut text = String::from("{");
        for i in 0..members {
            text.push_str(&format!("\"k{i}\":{i},"));
        }
        text.push_str(extra);
        text.push('}');
        text
    }

    fn name_comparisons_of(text: &str) -> (Result<Json, JsonError>, u64) {
        NAME_COMPARISONS.with(|c| c.set(0));
        let result = parse(text);
        (result, NAME_COMPARISONS.with(|c| c.get()))
    }

    #[test]
    fn the_duplicate_check_is_not_quadratic() {
        // A hostile payload of many members must not freeze the tab: the check costs
        // O(n log n) name comparisons (the quadratic one spent n²/2: 800 million for
        // 40,000 members, 20 billion for 200,000). Counted, not timed.
        for n in [40_000usize, 200_000] {
            let bound = (n as u64) * 4 * (usize::BITS - n.leading_zeros()) as u64;
            let (result, comparisons) = name_comparisons_of(&wide_object(n, "\"last\":true"));
            match result.unwrap() {
                Json::Object(members) => assert_eq!(members.len(), n + 1),
                other => panic!("{other:?}"),
            }
            assert!(
                comparisons <= bound,
                "{n} members: {comparisons} comparisons > {bound}"
            );
            // A duplicate at the very end is still found, at its own offset.
            let text = wide_object(n, "\"k7\":1");
            let (result, comparisons) = name_comparisons_of(&text);
            assert_eq!(
                result.unwrap_err(),
                JsonError {
                    reason: "duplicate member name",
                    offset: text.rfind("\"k7\"").unwrap(),
                }
            );
            assert!(
                comparisons <= bound,
                "{n} members: {comparisons} comparisons > {bound}"
            );
        }
    }

    #[test]
    fn the_first_duplicate_is_reported_before_later_errors() {
        for (text, reason, offset) in [
            (r#"{"a":1,"b":2,"a":3,"b":4}"#, "duplicate member name", 13),
            (r#"{"a":1,"a":x}"#, "duplicate member name", 7),
            (r#"{"a":{"b":1,"b":2},"a":1}"#, "duplicate member name", 12),
            (r#"{"a":1,"b":{"a":1},"c":1}"#, "", 0),
            (r#"{"\u0061":1,"a":2}"#, "duplicate member name", 12),
            (r#"[{"a":1},{"a":1}]"#, "", 0),
            (r#"{"a":1,"B":2,"A":3,"b":4}"#, CASE_FOLDED_NAME, 13),
            (r#"{"a":1,"B":2,"b":3,"a":4}"#, CASE_FOLDED_NAME, 13),
            (r#"{"A":1,"b":2,"b":3,"a":4}"#, "duplicate member name", 13),
        ] {
            match parse(text) {
                Ok(_) => assert_eq!(reason, "", "{text}"),
                Err(e) => assert_eq!((e.reason, e.offset), (reason, offset), "{text}"),
            }
        }
    }

    #[test]
    fn names_equal_after_case_folding_are_duplicates_at_any_depth() {
        // Go's encoding/json gives a field the last member matching it in any case, so
        // `ours` then `theirs` would be read as `theirs` there and as `ours` here.
        for (text, offset) in [
            (
                r#"{"targetPublicKey":"ours","TargetPublicKey":"theirs"}"#,
                26,
            ),
            (
                r#"{"p":{"targetPublicKey":"ours","TARGETPUBLICKEY":"theirs"}}"#,
                31,
            ),
            (r#"[{"a":[{"x":{"Ab":1,"aB":2}}]}]"#, 20),
            (r#"{"A":1,"\u0061":2}"#, 7),
            // The two characters outside ASCII that Unicode folds onto an ASCII letter.
            ("{\"Key\":1,\"\u{212a}ey\":2}", 9),
            ("{\"\u{17f}\":1,\"S\":2}", 8),
        ] {
            assert_eq!(
                parse(text).unwrap_err(),
                JsonError {
                    reason: CASE_FOLDED_NAME,
                    offset
                },
                "{text}"
            );
        }
        // Other letters that differ only in case name no ASCII field: distinct here.
        assert!(parse(r#"{"é":1,"É":2}"#).is_ok());
        // A member is found by its name in any case, as such a reader finds it.
        let v = parse(r#"{"Type":"x","PARAMETERS":{"aMount":"1"}}"#).unwrap();
        assert_eq!(v.get("type").and_then(Json::as_str), Some("x"));
        assert_eq!(
            v.get("parameters").and_then(|p| p.get("amount")),
            Some(&s("1"))
        );
    }

    proptest::proptest! {
        #[test]
        fn the_first_duplicate_is_the_one_a_scan_finds(
            names in proptest::collection::vec("[abAB]{0,2}", 0..12),
        ) {
            let mut text = String::from("{");
            let mut offsets = Vec::new();
            for (i, name) in names.iter().enumerate() {
                if i > 0 {
                    text.push(',');
                }
                offsets.push(text.len());
                text.push_str(&format!("\"{name}\":{i}"));
            }
            text.push('}');
            // The quadratic check: each name against every earlier one, in any case.
            let expected = (0..names.len())
                .find_map(|i| {
                    let earlier = names[..i].iter().find(|n| n.eq_ignore_ascii_case(&names[i]))?;
                    let reason = if *earlier == names[i] { DUPLICATE_NAME } else { CASE_FOLDED_NAME };
                    Some((reason, offsets[i]))
                });
            match parse(&text) {
                Ok(_) => proptest::prop_assert_eq!(expected, None),
                Err(e) => proptest::prop_assert_eq!(Some((e.reason, e.offset)), expected),
            }
        }
    }

    #[test]
    fn bounds_nesting() {
        let ok = "[".repeat(MAX_DEPTH) + &"]".repeat(MAX_DEPTH);
        assert!(parse(&ok).is_ok());
        let deep = "[".repeat(MAX_DEPTH + 1) + &"]".repeat(MAX_DEPTH + 1);
        assert_eq!(parse(&deep).unwrap_err().reason, "nested too deeply");
        // Far deeper input fails the same way instead of exhausting the stack.
        let hostile = "{\"a\":".repeat(100_000);
        assert_eq!(parse(&hostile).unwrap_err().reason, "nested too deeply");
    }

    #[cfg(feature = "json")]
    mod against_serde_json {
        use super::super::*;
        use proptest::prelude::*;

        fn same(ours: &Json, theirs: &serde_json::Value) -> bool {
            match (ours, theirs) {
                (Json::Null, serde_json::Value::Null) => true,
                (Json::Bool(a), serde_json::Value::Bool(b)) => a == b,
                (Json::Number(a), serde_json::Value::Number(_)) => {
                    serde_json::from_str::<serde_json::Value>(a).ok().as_ref() == Some(theirs)
                }
                (Json::String(a), serde_json::Value::String(b)) => a == b,
                (Json::Array(a), serde_json::Value::Array(b)) => {
                    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| same(x, y))
                }
                (Json::Object(a), serde_json::Value::Object(b)) => {
                    a.len() == b.len()
                        && a.iter().all(|(k, v)| b.get(k).is_some_and(|w| same(v, w)))
                }
                _ => false,
            }
        }

        proptest! {
            #[test]
            fn agrees_with_serde_json(text in r#"[\[\]{}",:0-9a-z\\ .eE+\-]{0,40}"#) {
                let ours = parse(&text);
                let theirs = serde_json::from_str::<serde_json::Value>(&text);
                match (&ours, &theirs) {
                    (Ok(a), Ok(b)) => prop_assert!(same(a, b), "{text}"),
                    (Err(e), Ok(_)) => prop_assert!([DUPLICATE_NAME, CASE_FOLDED_NAME].contains(&e.reason), "{}", text),
                    // Numbers are kept as text here; serde_json refuses those past f64.
                    (Ok(_), Err(e)) => prop_assert!(e.to_string().contains("number out of range"), "{text}: {e}"),
                    (Err(_), Err(_)) => {}
                }
            }
        }
    }

    #[test]
    fn json_strings_are_escaped() {
        assert_eq!(json_string("a\"b\\c\n\u{1}é"), r#""a\"b\\c\n\u0001é""#);
        let parsed: serde_json::Value =
            serde_json::from_str(&json_object(&[("k", "v\"\u{7f}\u{2028}")])).unwrap();
        assert_eq!(parsed["k"], "v\"\u{7f}\u{2028}");
    }
}

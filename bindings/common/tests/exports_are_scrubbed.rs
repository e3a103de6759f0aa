//! Every export of the binding crates scrubs the stack it used: each function or method a
//! `#[wasm_bindgen]` item exports must have a body that is `scrubbed(…)` (ewk_common's
//! wrapper), so no new export can forget it. Read from the sources, natively (the binding
//! crates are wasm32-only). `async` exports are the exception, listed by name: a scrub
//! cannot follow an `.await`, and the passkey ceremonies hold no secret in wasm memory.
#![cfg(not(target_arch = "wasm32"))]
// Tests may format (clippy.toml bans it in the library code only).
#![allow(clippy::disallowed_macros)]

use std::fs;
use std::path::{Path, PathBuf};

/// Exports that may skip the wrapper, and why (the test fails if one is not found).
/// None since the passkey ceremonies moved to npm/passkey.js (their exports are sync).
const ASYNC_EXPORTS: &[&str] = &[];

/// The index after a string literal, char literal or comment starting at `i`, if one does.
fn skip_token(s: &[u8], i: usize) -> Option<usize> {
    let rest = &s[i..];
    if rest.starts_with(b"//") {
        return Some(
            rest.iter()
                .position(|&c| c == b'\n')
                .map_or(s.len(), |n| i + n),
        );
    }
    if rest.starts_with(b"/*") {
        return Some(i + find(rest, b"*/").expect("closed comment") + 2);
    }
    // Raw strings: r"…", r#"…"#, br#"…"#.
    let raw_at = usize::from(rest.first() == Some(&b'b'));
    if rest.get(raw_at) == Some(&b'r') && (i == 0 || !is_ident(s[i - 1])) {
        let hashes = rest[raw_at + 1..]
            .iter()
            .take_while(|&&c| c == b'#')
            .count();
        if rest.get(raw_at + 1 + hashes) == Some(&b'"') {
            let mut end = vec![b'"'];
            end.extend(std::iter::repeat_n(b'#', hashes));
            let from = raw_at + 2 + hashes;
            return Some(
                i + from + find(&rest[from..], &end).expect("closed raw string") + end.len(),
            );
        }
    }
    if rest[0] == b'"' {
        let mut j = i + 1;
        while s[j] != b'"' {
            j += if s[j] == b'\\' { 2 } else { 1 };
        }
        return Some(j + 1);
    }
    if rest[0] == b'\'' {
        if rest.get(1) == Some(&b'\\') {
            return Some(i + 2 + rest[2..].iter().position(|&c| c == b'\'').unwrap() + 1);
        }
        if rest.get(2) == Some(&b'\'') {
            return Some(i + 3);
        }
    }
    None
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

fn find(hay: &[u8], needle: &[u8]) -> Option<usize> {
    hay.windows(needle.len()).position(|w| w == needle)
}

/// The index of the brace that closes the one at `open`.
fn matching_brace(s: &[u8], open: usize) -> usize {
    let (mut i, mut depth) = (open, 0usize);
    loop {
        if let Some(next) = skip_token(s, i) {
            i = next;
            continue;
        }
        match s[i] {
            b'{' => depth += 1,
            b'}' => {
                depth -= 1;
                if depth == 0 {
                    return i;
                }
            }
            _ => {}
        }
        i += 1;
    }
}

/// From a `fn` item at `i`: the index of its body's `{`, or `None` for a declaration
/// (a function imported in an `extern` block).
fn body_open(s: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 0i32;
    loop {
        if let Some(next) = skip_token(s, i) {
            i = next;
            continue;
        }
        match s[i] {
            b'(' | b'[' => depth += 1,
            b')' | b']' => depth -= 1,
            b'{' if depth == 0 => return Some(i),
            b';' if depth == 0 => return None,
            _ => {}
        }
        i += 1;
    }
}

/// `(pub )?(async )?fn name` at `i`: the name and whether it is async.
fn fn_item(s: &str, i: usize) -> Option<(String, bool)> {
    let mut rest = &s[i..];
    for prefix in ["pub(crate) ", "pub "] {
        rest = rest.strip_prefix(prefix).unwrap_or(rest);
    }
    let is_async = rest.starts_with("async ");
    rest = rest.strip_prefix("async ").unwrap_or(rest);
    let name = rest.strip_prefix("fn ")?;
    let end = name.find(|c: char| !c.is_alphanumeric() && c != '_')?;
    Some((name[..end].to_owned(), is_async))
}

/// Skips attributes, comments and blank lines from the line starting at `i`.
fn item_start(s: &str, mut i: usize) -> usize {
    let b = s.as_bytes();
    loop {
        let line_end = s[i..].find('\n').map_or(s.len(), |n| i + n);
        let line = s[i..line_end].trim_start();
        let indent = line_end - i - line.len();
        if line.starts_with("#[") {
            let (mut j, mut depth) = (i + indent + 1, 0);
            loop {
                match b[j] {
                    b'[' => depth += 1,
                    b']' => {
                        depth -= 1;
                        if depth == 0 {
                            break;
                        }
                    }
                    _ => {}
                }
                j += 1;
            }
            i = s[j..].find('\n').map_or(s.len(), |n| j + n + 1);
        } else if line.starts_with("//") || line.trim().is_empty() {
            i = line_end + 1;
        } else {
            return i + indent;
        }
    }
}

/// Every exported function of `source`: (name, async, whether its body is `scrubbed(`).
fn exports(source: &str) -> Vec<(String, bool, bool)> {
    let s = source.as_bytes();
    let mut found: Vec<(usize, String, bool)> = Vec::new();
    let check_fn = |at: usize, found: &mut Vec<(usize, String, bool)>| {
        let Some((name, is_async)) = fn_item(source, at) else {
            return;
        };
        if let Some(open) = body_open(s, at) {
            if !found.iter().any(|f| f.0 == open) {
                found.push((open, name, is_async));
            }
        }
    };
    let mut line_start = 0;
    while line_start < source.len() {
        let line = &source[line_start..];
        if line.trim_start().starts_with("#[wasm_bindgen") {
            let item = item_start(source, line_start);
            let head = &source[item..];
            if head.starts_with("impl") {
                let open = item + head.find('{').unwrap();
                let close = matching_brace(s, open);
                let (mut i, mut depth) = (open + 1, 0);
                while i < close {
                    if let Some(next) = skip_token(s, i) {
                        i = next;
                        continue;
                    }
                    match s[i] {
                        b'{' => depth += 1,
                        b'}' => depth -= 1,
                        _ if depth == 0 && !is_ident(s[i - 1]) => check_fn(i, &mut found),
                        _ => {}
                    }
                    i += 1;
                }
            } else {
                check_fn(item, &mut found);
            }
        }
        line_start += line.find('\n').map_or(line.len(), |n| n + 1);
    }
    found.sort();
    found
        .into_iter()
        .map(|(open, name, is_async)| {
            let body = source[open + 1..].trim_start();
            (name, is_async, body.starts_with("scrubbed("))
        })
        .collect()
}

fn sources(crate_dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = fs::read_dir(crate_dir.join("src"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_export_of_the_binding_crates_is_scrubbed() {
    let bindings = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let mut exported = 0;
    let mut unscrubbed = Vec::new();
    let mut allowed_seen = Vec::new();
    for krate in ["signing", "wallet", "testing"] {
        for file in sources(&bindings.join(krate)) {
            let rel = format!(
                "{krate}/src/{}",
                file.file_name().unwrap().to_string_lossy()
            );
            for (name, is_async, scrubbed) in exports(&fs::read_to_string(&file).unwrap()) {
                exported += 1;
                let label = format!("{rel}: {name}");
                if is_async && ASYNC_EXPORTS.contains(&label.as_str()) {
                    allowed_seen.push(label);
                } else if !scrubbed {
                    unscrubbed.push(label);
                }
            }
        }
    }
    assert!(
        unscrubbed.is_empty(),
        "exports whose body is not `scrubbed(|| …)`: {unscrubbed:#?}"
    );
    assert_eq!(allowed_seen.len(), ASYNC_EXPORTS.len(), "{allowed_seen:?}");
    // A parser that found nothing would pass vacuously: the crates export dozens.
    assert!(exported > 50, "only {exported} exports found");
}

#[test]
fn the_scan_sees_what_it_must() {
    let source = r#"
#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_name = f)]
    fn imported(x: &JsValue) -> Result<JsValue, JsValue>;
}

/// Doc with a brace { in it.
#[wasm_bindgen(js_name = good)]
pub fn good() -> u8 {
    scrubbed(|| 1)
}

#[wasm_bindgen]
pub fn bad(x: u8) -> String {
    format!("{x}}}{{ '{'")
}

#[wasm_bindgen(js_class = Thing)]
impl JsThing {
    #[wasm_bindgen(getter)]
    pub fn id(&self) -> String {
        scrubbed(|| "}".into())
    }

    pub fn unscrubbed(&mut self, s: &str) -> usize {
        let inner = || { s.len() };
        inner()
    }
}

#[wasm_bindgen(js_name = later)]
pub async fn later() {}
"#;
    let found = exports(source);
    let summary: Vec<(&str, bool, bool)> =
        found.iter().map(|(n, a, s)| (n.as_str(), *a, *s)).collect();
    assert_eq!(
        summary,
        [
            ("good", false, true),
            ("bad", false, false),
            ("id", false, true),
            ("unscrubbed", false, false),
            ("later", true, false),
        ]
    );
}

//! Reading string fields out of a service response, whatever carries it: a parsed JSON
//! object natively, a JS object in the wasm bindings. The parsers in this crate only
//! ever ask for named string fields, so this is all the abstraction they need, and it
//! keeps serde out of the wasm module.

use crate::error::{Error, ErrorCode, Result};
use crate::prelude::*;

/// One field as found in a response object.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Field {
    /// Absent, `null` or `undefined`.
    Missing,
    /// A string value.
    Str(String),
    /// Present but not a string (the value itself is not kept: it could be anything).
    NotAString,
}

/// A response object whose fields can be read by name.
pub trait Fields {
    /// The field `name`.
    fn field(&self, name: &str) -> Field;
}

/// Reads a required string field; `what` names the object in messages
/// (e.g. "session response").
pub(crate) fn required(
    src: &dyn Fields,
    name: &str,
    code: ErrorCode,
    what: &str,
) -> Result<String> {
    match optional(src, name, code, what)? {
        Some(value) => Ok(value),
        None => Err(Error::new(code, [what, " has no ", name].concat())),
    }
}

/// Reads an optional string field; a non-string value is still an error.
pub(crate) fn optional(
    src: &dyn Fields,
    name: &str,
    code: ErrorCode,
    what: &str,
) -> Result<Option<String>> {
    match src.field(name) {
        Field::Missing => Ok(None),
        Field::Str(value) => Ok(Some(value)),
        Field::NotAString => Err(Error::new(
            code,
            [what, " field ", name, " is not a string"].concat(),
        )),
    }
}

/// Checks `<kind>:<uuid>` (8-4-4-4-12 hex digits, either case), the service's id format.
pub(crate) fn is_kind_uuid(text: &str, kind: &str) -> bool {
    let Some(uuid) = text
        .strip_prefix(kind)
        .and_then(|rest| rest.strip_prefix(':'))
    else {
        return false;
    };
    let b = uuid.as_bytes();
    b.len() == 36
        && b.iter().enumerate().all(|(i, c)| match i {
            8 | 13 | 18 | 23 => *c == b'-',
            _ => c.is_ascii_hexdigit(),
        })
}

#[cfg(feature = "json")]
mod json {
    use super::{Field, Fields};
    use crate::error::{Error, ErrorCode, Result};
    use crate::prelude::*;
    use crate::text::Decimal;
    use serde_json::{Map, Value};

    impl Fields for Map<String, Value> {
        fn field(&self, name: &str) -> Field {
            match self.get(name) {
                None | Some(Value::Null) => Field::Missing,
                Some(Value::String(s)) => Field::Str(s.clone()),
                Some(_) => Field::NotAString,
            }
        }
    }

    /// Parses JSON text that must hold an object. Errors carry `code` and name `what`;
    /// they report the position of a syntax error, never the text.
    pub fn parse_object(text: &str, code: ErrorCode, what: &str) -> Result<Map<String, Value>> {
        match serde_json::from_str::<Value>(text) {
            Ok(Value::Object(map)) => Ok(map),
            Ok(_) => Err(Error::new(code, [what, " is not a JSON object"].concat())),
            Err(e) => Err(Error::new(
                code,
                [
                    what,
                    " is not valid JSON (line ",
                    &Decimal::from(e.line()),
                    ", column ",
                    &Decimal::from(e.column()),
                    ")",
                ]
                .concat(),
            )),
        }
    }
}

#[cfg(feature = "json")]
pub use json::parse_object;

#[cfg(test)]
pub(crate) mod test_support {
    use super::{Field, Fields};
    use std::collections::BTreeMap;

    /// A field source for tests: string values, plus names that hold a non-string.
    #[derive(Clone, Debug, Default)]
    pub(crate) struct TestFields(pub BTreeMap<String, Option<String>>);

    impl TestFields {
        pub(crate) fn with(mut self, name: &str, value: &str) -> Self {
            self.0.insert(name.into(), Some(value.into()));
            self
        }
        pub(crate) fn non_string(mut self, name: &str) -> Self {
            self.0.insert(name.into(), None);
            self
        }
        pub(crate) fn without(mut self, name: &str) -> Self {
            self.0.remove(name);
            self
        }
    }

    impl Fields for TestFields {
        fn field(&self, name: &str) -> Field {
            match self.0.get(name) {
                None => Field::Missing,
                Some(Some(v)) => Field::Str(v.clone()),
                Some(None) => Field::NotAString,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    #[test]
    fn kind_uuid() {
        assert!(is_kind_uuid(
            "Request:123e4567-e89b-12d3-a456-426614174000",
            "Request"
        ));
        assert!(is_kind_uuid(
            "Request:123E4567-E89B-12D3-A456-426614174000",
            "Request"
        ));
        assert!(!is_kind_uuid(
            "Request:123e4567-e89b-12d3-a456-42661417400",
            "Request"
        ));
        assert!(!is_kind_uuid(
            "Request:123e4567e89b-12d3-a456-4266141740000",
            "Request"
        ));
        assert!(!is_kind_uuid(
            "Session:123e4567-e89b-12d3-a456-426614174000",
            "Request"
        ));
        assert!(!is_kind_uuid(
            "Request123e4567-e89b-12d3-a456-426614174000",
            "Request"
        ));
        assert!(!is_kind_uuid(
            "Request:123e4567-e89b-12d3-a456-42661417400g",
            "Request"
        ));
        assert!(!is_kind_uuid("", "Request"));
    }

    #[cfg(feature = "json")]
    #[test]
    fn json_fields_and_errors() {
        let map = parse_object(
            r#"{"a":"x","b":1,"c":null}"#,
            ErrorCode::InvalidSession,
            "r",
        )
        .unwrap();
        assert_eq!(map.field("a"), Field::Str("x".into()));
        assert_eq!(map.field("b"), Field::NotAString);
        assert_eq!(map.field("c"), Field::Missing);
        assert_eq!(map.field("d"), Field::Missing);
        let e = required(&map, "b", ErrorCode::InvalidSession, "r").unwrap_err();
        assert_eq!(e.message(), "r field b is not a string");
        let e = required(&map, "d", ErrorCode::InvalidSession, "r").unwrap_err();
        assert_eq!(e.message(), "r has no d");
        let e = parse_object("[1]", ErrorCode::InvalidSession, "r").unwrap_err();
        assert_eq!(e.message(), "r is not a JSON object");
        let e = parse_object("{\"otp\":\"123456\"", ErrorCode::InvalidSession, "r").unwrap_err();
        assert!(e.message().starts_with("r is not valid JSON"));
        assert!(!e.message().contains("123456"));
    }
}

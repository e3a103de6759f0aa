//! What std's prelude gives every module and `core`'s does not: the `alloc` types and
//! macros the core uses, imported by each module with `use crate::prelude::*;` so that the
//! same code builds with and without the `std` feature.

pub(crate) use alloc::borrow::ToOwned;
pub(crate) use alloc::boxed::Box;
// Only the tests format: the library builds its text from `&str` pieces and
// `crate::text` (no `core::fmt` in the wasm modules).
#[cfg(test)]
pub(crate) use alloc::format;
pub(crate) use alloc::string::String;
#[cfg(test)]
pub(crate) use alloc::string::ToString;
pub(crate) use alloc::vec;
pub(crate) use alloc::vec::Vec;

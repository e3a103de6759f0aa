//! What std's prelude gives every module and `core`'s does not: the `alloc` types and
//! macros the core uses, imported by each module with `use crate::prelude::*;` so that the
//! same code builds with and without the `std` feature.

pub(crate) use alloc::borrow::ToOwned;
pub(crate) use alloc::boxed::Box;
pub(crate) use alloc::format;
pub(crate) use alloc::string::{String, ToString};
pub(crate) use alloc::vec;
pub(crate) use alloc::vec::Vec;

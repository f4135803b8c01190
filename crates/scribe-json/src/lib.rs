//! scribe's JSON line layer: a line of an agent's log read exactly as serde_json reads it, and
//! JSON written exactly as serde_json writes it.
//!
//! ```text
//! parse_line(text)          -> serde_json::Result<Value>         a line as a `Value`
//! parse_next(text)          -> serde_json::Result<(Value, len)>  a document's next value
//! from_str::<T>(text)       -> serde_json::Result<T>             a line into a `lenient_struct!`
//! fill_from_str(text, &mut) -> serde_json::Result<()>            the same, filled in place
//! from_text::<T>(text)      -> serde_json::Result<T>             any `Deserialize` type, scanner first
//! Scanner::new(text)        -> Option<Scanner>                   a line read field by field
//!   .raw_value()            -> Scan<&str>                        a value's text, checked
//! utf8::as_str / into_string                                     UTF-8 checks of raw lines
//! write(out, &value) / write_str(out, s)                         compact JSON, serde_json's bytes
//! compact(text)             -> Option<Vec<u8>>                   JSON text put in `write`'s form
//! Compacted                 (a Deserialize)                      a value put in `write`'s form in place
//! RAW_JSON_TOKEN, escapes_in                                     for a caller's own JSON-text type
//! ```
//!
//! Every reader accepts and refuses exactly what `serde_json::from_str::<Value>` does; serde_json
//! is the reference, and each fast path either gives its answer or declines and hands the text to
//! it. [`lenient`] holds the typed field readers (each reads as the `Value` accessor it stands
//! for) and [`lenient_struct!`], which declares a struct of them.

// Every public item of the reader says what it is for (the workspace lints do not ask it of the
// other crates).
#![warn(missing_docs)]

/// Typed fields that read as `serde_json::Value`'s accessors do, and the structs made of them.
pub mod lenient;
/// A line's JSON values read as a `Value`: the one entry point every adapter shares.
mod line;
/// A JSON line read in place, as strictly as a `Value` parse reads it.
pub mod scan;
/// UTF-8 checks of input lines, many bytes at a time.
pub mod utf8;
/// Compact JSON written as serde_json writes it, byte for byte.
mod write;

/// JSON text of another writer put into the compact form, without a `Value`.
mod compact;
/// Arbitrary JSON values for property tests of code that reads or writes JSON.
#[cfg(any(test, feature = "proptest"))]
pub mod strategy;

pub use compact::{Compacted, compact};
pub use lenient::{fill_from_str, from_str, from_text};
pub use line::{glued_values, parse_line, parse_next};
pub use scan::Scanner;
pub use write::{RAW_JSON_TOKEN, escapes_in, write, write_str};

/// serde, for the code [`lenient_struct!`] and [`visit_others!`] write in the caller's crate.
#[doc(hidden)]
pub use serde as __serde;

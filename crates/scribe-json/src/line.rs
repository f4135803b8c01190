//! The one way a line becomes a `serde_json::Value`, for every adapter: [`parse_line`] for a
//! line, [`parse_next`] for the values of a whole document one after another.
//!
//! serde_json is the reference for what is JSON and for the error message of what is not. A line
//! is first read by the scanner's deserializer ([`crate::scan`]), which builds the same `Value`
//! or declines; a line it declines is read by serde_json afresh, so the verdict, the value and the
//! diagnostic are serde_json's either way.

use std::sync::LazyLock;

use serde::Deserialize;
use serde_json::Value;

use crate::scan::Scanner;

/// `text`, one JSON value with nothing but white space after it, as a `Value`: what
/// `serde_json::from_str::<Value>(text)` gives, error included.
pub fn parse_line(text: &str) -> serde_json::Result<Value> {
    match scanned(text) {
        Some(value) => Ok(value),
        None => serde_json::from_str(text),
    }
}

/// The value the scanner reads from `text`, or `None` where it declines.
pub(crate) fn scanned(text: &str) -> Option<Value> {
    let mut scanner = Scanner::new(text)?;
    let value = Value::deserialize(&mut scanner).ok()?;
    scanner.end().ok()?;
    Some(value)
}

/// The first JSON value of `text` and the length of text it took (white space before it
/// included, none after), for a document that holds several values one after another.
pub fn parse_next(text: &str) -> serde_json::Result<(Value, usize)> {
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<Value>();
    match stream.next() {
        Some(Ok(value)) => Ok((value, stream.byte_offset())),
        Some(Err(e)) => Err(e),
        None => Err(serde::de::Error::custom("no JSON value")),
    }
}

/// Where each value of a line that holds several JSON values glued together begins and ends
/// (a write race lost the newline between two records: `{…}{…}`), or `None` for any other line.
///
/// Only a line where a closing brace meets an opening one (`}{`) is read again, so the lines every
/// input is made of cost one substring search. The line must be JSON values and white space only:
/// a value followed by anything else is no such line (it stays the error `parse_line` gives it).
pub fn glued_values(text: &str) -> Option<Vec<std::ops::Range<usize>>> {
    // Built once: building a searcher cost more than searching a line with it.
    static GLUE: LazyLock<memchr::memmem::Finder<'static>> =
        LazyLock::new(|| memchr::memmem::Finder::new(b"}{"));
    GLUE.find(text.as_bytes())?;
    let mut stream = serde_json::Deserializer::from_str(text).into_iter::<serde::de::IgnoredAny>();
    let mut ranges = Vec::new();
    let mut end = 0;
    while let Some(value) = stream.next() {
        value.ok()?;
        let start = end + (text[end..].len() - text[end..].trim_start().len());
        end = stream.byte_offset();
        ranges.push(start..end);
    }
    (ranges.len() > 1).then_some(ranges)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A line reads as serde_json reads it, its error message included.
    #[test]
    fn reads_and_refuses_as_serde_json() {
        for text in [
            r#"{"a":[1,2.5,-3,"x\n\u00e9"],"b":{"c":null}}"#,
            "{\"a\":\t1}",
            r#"{"a":1"#,
            r#"{"a":"\ud800"}"#,
            "[1,2] x",
            "",
        ] {
            let ours = parse_line(text).map_err(|e| e.to_string());
            let theirs = serde_json::from_str::<Value>(text).map_err(|e| e.to_string());
            assert_eq!(ours, theirs, "{text}");
        }
    }

    /// A document's values come one after another, each with the text it took.
    #[test]
    fn takes_a_documents_values_in_turn() {
        let text = " {\"a\":1}\n[2] ";
        let (first, n) = parse_next(text).unwrap();
        assert_eq!((first.to_string().as_str(), n), ("{\"a\":1}", 8));
        let (second, m) = parse_next(&text[n..]).unwrap();
        assert_eq!((second.to_string().as_str(), n + m), ("[2]", 12));
        assert!(parse_next("  ").is_err());
    }

    /// Values glued together are found with their bounds; one value, or values followed by
    /// anything but white space, are not such a line.
    #[test]
    fn finds_values_glued_together() {
        let text = r#"{"a":"}{"}{"b":[1]} [2]"#;
        let got = glued_values(text).unwrap();
        let parts: Vec<&str> = got.iter().map(|r| &text[r.clone()]).collect();
        assert_eq!(parts, [r#"{"a":"}{"}"#, r#"{"b":[1]}"#, "[2]"]);
        assert_eq!(glued_values(r#"{"a":"}{"}"#), None);
        assert_eq!(glued_values(r#"{"a":1}{"b":2} x"#), None);
        assert_eq!(glued_values(r#"{"a":1}{"b":"#), None);
    }
}

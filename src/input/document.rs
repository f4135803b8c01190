//! Whole JSON documents, not JSON Lines: `claude -p --output-format json --verbose` and
//! claude-code-action's execution file (one JSON array of stream-json messages), pretty-printed
//! messages one after another, and agents' one-document formats (a Gemini saved chat written as
//! `session-*.json`). The driver holds such an input whole, `values` splits it into its values
//! with the line each starts on, and the adapter's `Adapter::document` takes them.

use serde_json::Value;

/// One value of a document and the input line it starts on.
#[derive(Debug)]
pub(crate) struct DocValue {
    pub(crate) line: u64,
    pub(crate) value: Value,
}

/// The values of a document: the elements of a top-level array (each a message), or of the one
/// array an object wraps them in (`{"loglines": [ … ]}`, as tools that export sessions write
/// them), else each top-level value in turn. `text` starts at input line `first_line`. On a
/// syntax error, the line where it is and what it is.
pub(crate) fn values(text: &str, first_line: u64) -> Result<Vec<DocValue>, (u64, String)> {
    let line_at = |offset: usize| {
        first_line + memchr::memchr_iter(b'\n', &text.as_bytes()[..offset]).count() as u64
    };
    let pos = skip_ws(text, 0);
    if text[pos..].starts_with('[') {
        let (out, after) = elements(text, pos + 1, &line_at)?;
        return end(text, after, out, &line_at);
    }
    if let Some(start) = wrapped_array(text, pos) {
        let (out, after) = elements(text, start, &line_at)?;
        let close = skip_ws(text, after);
        if text[close..].starts_with('}') {
            return end(text, close + 1, out, &line_at);
        }
    }
    let mut out = Vec::new();
    let mut pos = pos;
    while pos < text.len() {
        let (value, next) = one(text, pos, &line_at)?;
        out.push(value);
        pos = skip_ws(text, next);
    }
    Ok(out)
}

/// The elements of an array whose `[` is just before byte `pos`, each with the line it starts
/// on (so that each keeps its own line number), and the byte after its `]`.
fn elements(
    text: &str,
    pos: usize,
    line_at: &dyn Fn(usize) -> u64,
) -> Result<(Vec<DocValue>, usize), (u64, String)> {
    let mut out = Vec::new();
    let mut pos = skip_ws(text, pos);
    if text[pos..].starts_with(']') {
        return Ok((out, pos + 1));
    }
    loop {
        let (value, next) = one(text, pos, line_at)?;
        out.push(value);
        pos = skip_ws(text, next);
        match text[pos..].chars().next() {
            Some(',') => pos = skip_ws(text, pos + 1),
            Some(']') => return Ok((out, pos + 1)),
            _ => return Err((line_at(pos), "expected `,` or `]` in the array".to_owned())),
        }
    }
}

/// When the document at byte `pos` opens as an object whose first member is an array
/// (`{"loglines": [`), the byte after that `[`; whether the object holds nothing else is known
/// once the array is read.
fn wrapped_array(text: &str, pos: usize) -> Option<usize> {
    let key_at = skip_ws(text, text[pos..].strip_prefix('{').map(|_| pos + 1)?);
    if !text[key_at..].starts_with('"') {
        return None;
    }
    let (_, key_len) = scribe_json::parse_next(&text[key_at..]).ok()?;
    let colon = skip_ws(text, key_at + key_len);
    let open = skip_ws(text, text[colon..].strip_prefix(':').map(|_| colon + 1)?);
    text[open..].starts_with('[').then_some(open + 1)
}

/// Nothing but white space may follow a top-level array.
fn end(
    text: &str,
    pos: usize,
    out: Vec<DocValue>,
    line_at: &dyn Fn(usize) -> u64,
) -> Result<Vec<DocValue>, (u64, String)> {
    let rest = skip_ws(text, pos);
    match rest < text.len() {
        true => Err((line_at(rest), "more text after the JSON array".to_owned())),
        false => Ok(out),
    }
}

/// One JSON value starting at byte `pos`, with the line it starts on, and the byte after it.
/// On an error, the line where it is and what it is.
fn one(
    text: &str,
    pos: usize,
    line_at: &dyn Fn(usize) -> u64,
) -> Result<(DocValue, usize), (u64, String)> {
    let line = line_at(pos);
    match scribe_json::parse_next(&text[pos..]) {
        Ok((value, len)) => Ok((DocValue { line, value }, pos + len)),
        Err(e) => Err((line + e.line().saturating_sub(1) as u64, e.to_string())),
    }
}

fn skip_ws(text: &str, pos: usize) -> usize {
    pos + text[pos..].len() - text[pos..].trim_start().len()
}

/// A name read from the input, for a message: at most 40 characters, control characters shown
/// as `?` (the message is sanitized again when printed).
pub(crate) fn short(s: &str) -> String {
    s.chars()
        .take(40)
        .map(|c| if c.is_control() { '?' } else { c })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn array_elements_keep_their_lines() {
        let v = values("[\n  {\"a\": 1},\n  {\n    \"b\": 2\n  }\n]\n", 3).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!((v[0].line, v[1].line), (4, 5));
    }

    #[test]
    fn concatenated_objects_are_split() {
        let v = values("{\n \"a\": 1\n}\n{\n \"b\": 2\n}\n", 1).unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!(v[1].line, 4);
    }

    #[test]
    fn an_array_wrapped_in_an_object_gives_its_elements() {
        let v = values(
            "{\n  \"loglines\": [\n    {\"a\": 1},\n    {\"b\": 2}\n  ]\n}\n",
            1,
        )
        .unwrap();
        assert_eq!(v.len(), 2);
        assert_eq!((v[0].line, v[1].line), (3, 4));
        // An object with more than the array is one value.
        let v = values("{\"items\": [1, 2], \"more\": true}", 1).unwrap();
        assert_eq!(v.len(), 1);
    }

    #[test]
    fn a_syntax_error_names_its_line() {
        let e = values("[\n {\"a\": 1},\n {\"b\" 2}\n]", 1).unwrap_err();
        assert_eq!(e.0, 3);
    }
}

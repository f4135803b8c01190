//! Details changed where they lie: each object member kept or dropped by its key, each string
//! rewritten, walked with the JSON layer's scanner instead of built into a `Value` tree and
//! written again. `--stable` changes every call's details this way, so building and writing a
//! tree for each would be a large part of what it costs (docs/performance.md).

use scribe_json::Scanner;
use scribe_json::scan::{Refused, Scan};

use super::Details;

/// A change of details that [`Details::rewritten`] makes in one walk.
pub(crate) trait Rewrite {
    /// Whether an object member of this key stays (checked before its value is walked).
    fn keeps(&mut self, key: &str) -> bool;
    /// A string value (not a key), changed in place.
    fn text(&mut self, s: &mut String);
    /// Whether [`Rewrite::text`] might change the string written `raw` (its text as written
    /// between the quotes, escapes and all); false only when it certainly leaves it as it is.
    /// A string it would not change is copied as it stands, never decoded nor escaped again.
    fn may_change(&mut self, _raw: &str) -> bool {
        true
    }
}

impl Details {
    /// The details with the members `r` drops left out and every other string as `r` rewrites
    /// it, in the order a walk of their `Value` tree meets them: the bytes that changing that
    /// tree and writing it again gives (the text is the writer's, so what is not changed is
    /// copied as it stands). `None` when the scanner declines the text (then nothing about
    /// the output is known, and the caller edits the tree).
    pub(crate) fn rewritten(&self, r: &mut impl Rewrite) -> Option<Details> {
        let mut scanner = Scanner::new(&self.0)?;
        let mut out = Vec::with_capacity(self.0.len());
        rewrite_value(&mut scanner, &mut out, r).ok()?;
        scanner.end().ok()?;
        Some(Details::from_json(out))
    }
}

/// Writes the next value of `s` to `out` as `r` changes it.
fn rewrite_value(s: &mut Scanner<'_>, out: &mut Vec<u8>, r: &mut impl Rewrite) -> Scan<()> {
    match s.peek() {
        Some(b'{') => {
            s.begin_object()?;
            out.push(b'{');
            let (mut first, mut written) = (true, false);
            while let Some(key) = s.key(&mut first)? {
                if !r.keeps(&key) {
                    s.skip()?;
                    continue;
                }
                if written {
                    out.push(b',');
                }
                written = true;
                scribe_json::write_str(out, &key);
                out.push(b':');
                rewrite_value(s, out, r)?;
            }
            out.push(b'}');
        }
        Some(b'[') => {
            s.begin_array()?;
            out.push(b'[');
            let (mut first, mut written) = (true, false);
            while s.element(&mut first)? {
                if written {
                    out.push(b',');
                }
                written = true;
                rewrite_value(s, out, r)?;
            }
            out.push(b']');
        }
        Some(b'"') => {
            let (raw, escaped) = s.raw_string()?;
            if r.may_change(raw) {
                let mut text = match escaped {
                    true => decoded(raw)?,
                    false => raw.to_owned(),
                };
                r.text(&mut text);
                scribe_json::write_str(out, &text);
            } else {
                // Details are in the writer's form: the string as written is what writing its
                // text gives.
                out.push(b'"');
                out.extend_from_slice(raw.as_bytes());
                out.push(b'"');
            }
        }
        _ => out.extend_from_slice(s.raw_value()?.as_bytes()),
    }
    Ok(())
}

/// The text of the string written `raw` (between its quotes), decoded by the scanner, a block at
/// a time.
fn decoded(raw: &str) -> Scan<String> {
    let quoted = format!("\"{raw}\"");
    let mut s = Scanner::new(&quoted).ok_or(Refused)?;
    Ok(s.string()?.into_owned())
}

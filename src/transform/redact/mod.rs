//! `--redact`: replace secrets in every string of the output with `[REDACTED:<kind>]`, and the
//! user's home directory with `~`, so that a transcript can be shared.
//!
//! The patterns are one table (`TABLE`), tried in order; each has a positive and a negative
//! example in the tests below and in `tests/redact.rs`. A pattern may keep a prefix (`pre`) and a
//! suffix (`post`) around the secret, so `Authorization: Bearer abc…` stays readable as
//! `Authorization: Bearer [REDACTED:bearer]`. Ordinary hex hashes and UUIDs never match: every
//! pattern needs a vendor prefix or a named context. Inside JSON payloads, the value of a key that
//! names a secret (`OPENAI_API_KEY`, `password`, `client_secret`, …) is redacted whole.

use std::sync::LazyLock;

use regex::{Captures, Regex, RegexSet};
use serde_json::Value;

use super::visit::{IdKind, ValueRole, VisitMut};
use table::TABLE;

pub(crate) use key_blocks::KeyBlocks;

/// Private keys whose lines each arrive as a debug record of their own.
mod key_blocks;
/// The patterns, as data.
mod table;

/// A pattern with ASCII word boundaries: secrets are ASCII, and a Unicode `\b` makes the regex
/// engine leave its fast DFA for the slow PikeVM on any non-ASCII text (measured: 15 times
/// slower over the corpus).
fn ascii_boundaries(regex: &str) -> String {
    regex.replace(r"\b", r"(?-u:\b)")
}

static COMPILED: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    TABLE
        .iter()
        .map(|p| {
            let re = Regex::new(&ascii_boundaries(p.regex)).expect("valid regex");
            (p.kind, re)
        })
        .collect()
});

/// All patterns at once: one scan tells which (if any) to run on a string.
static ANY: LazyLock<RegexSet> = LazyLock::new(|| {
    RegexSet::new(TABLE.iter().map(|p| ascii_boundaries(p.regex))).expect("valid regexes")
});

/// A JSON key whose string value is a secret whatever it looks like.
static SECRET_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:[a-z0-9_\-.]*[_\-.])?(?:api_?key|apikey|secret_?key_?base|secret_?key|access_?key|private_?key|client_?secret|auth_?token|access_?token|refresh_?token|token|secret|password|passwd|credentials?)$|(?i)^[a-z0-9_\-]*password$")
        .expect("valid regex")
});

/// The `--redact` pass.
#[derive(Debug)]
pub(crate) struct Redactor {
    /// `$HOME` and a pattern that finds it as a whole path (not `/home/alicex`).
    home: Option<(String, Regex)>,
}

impl Redactor {
    /// A redactor that also replaces `home` (from `Settings::home`) with `~`.
    pub(crate) fn new(home: Option<&str>) -> Redactor {
        let home = home.filter(|h| h.len() > 1).map(|h| {
            let re = Regex::new(&format!(
                r#"{}(?P<post>[/\s"'`:;,)\]}}]|$)"#,
                regex::escape(h)
            ))
            .expect("escaped home is a valid regex");
            (h.to_owned(), re)
        });
        Redactor { home }
    }

    /// Redacts one string.
    pub(crate) fn redact(&self, s: &mut String) {
        let hits = ANY.matches(s);
        if hits.matched_any() {
            for i in hits.iter() {
                let (kind, re) = &COMPILED[i];
                *s = re
                    .replace_all(s, |c: &Captures<'_>| replacement(kind, c))
                    .into_owned();
            }
        }
        if let Some((home, re)) = &self.home {
            if s.contains(home.as_str()) {
                *s = re.replace_all(s, "~$post").into_owned();
            }
        }
    }

    /// Redacts a JSON value: every string, every key (a secret can be a key), and the whole
    /// value of a key that names a secret.
    fn redact_value(&self, v: &mut Value) {
        match v {
            Value::String(s) => self.redact(s),
            Value::Array(a) => a.iter_mut().for_each(|x| self.redact_value(x)),
            Value::Object(o) => {
                let keys_hold_secrets = o.keys().any(|k| {
                    let mut probe = k.clone();
                    self.redact(&mut probe);
                    probe != *k
                });
                if keys_hold_secrets {
                    *o = std::mem::take(o)
                        .into_iter()
                        .map(|(mut k, x)| {
                            self.redact(&mut k);
                            (k, x)
                        })
                        .collect();
                }
                for (k, x) in o.iter_mut() {
                    match x {
                        Value::String(s)
                            if SECRET_KEY.is_match(k)
                                && !s.is_empty()
                                && !s.starts_with("[REDACTED:")
                                && table::looks_like_a_secret(s, true) =>
                        {
                            *s = "[REDACTED:env]".to_owned();
                        }
                        Value::Number(_) if SECRET_KEY.is_match(k) => {
                            *x = Value::String("[REDACTED:env]".to_owned());
                        }
                        Value::String(_)
                        | Value::Number(_)
                        | Value::Null
                        | Value::Bool(_)
                        | Value::Array(_)
                        | Value::Object(_) => self.redact_value(x),
                    }
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }

    /// Redacts an input line kept as it was read (a `debug` record's `raw`). JSON can spell a
    /// secret with escapes (`\u0070assword`, `sk\u002dant…`) that no pattern sees: when the line
    /// is JSON, its decoded strings and keys are redacted and, if anything was found, the line is
    /// written back from the redacted value; otherwise the text is redacted as it stands, and
    /// once more with its `\uXXXX` escapes decoded.
    pub(crate) fn redact_raw(&mut self, s: &mut String) {
        if let Ok(mut v) = serde_json::from_str::<Value>(s) {
            let before = v.clone();
            self.redact_value(&mut v);
            if v != before {
                *s = v.to_string();
                return;
            }
        }
        self.text(s);
    }
}

/// What one match becomes: the secret replaced by `[REDACTED:<kind>]`, the context kept.
fn replacement(kind: &str, c: &Captures<'_>) -> String {
    let whole = c.get(0).expect("group 0 always matches");
    let (start, end) = match ["s", "s2", "s3"].iter().find_map(|g| c.name(g)) {
        Some(m) => (m.start() - whole.start(), m.end() - whole.start()),
        None => {
            let pre = c.name("pre").map_or(0, |m| m.len());
            let post = c.name("post").map_or(0, |m| m.len());
            (pre, whole.len() - post)
        }
    };
    let text = whole.as_str();
    let secret = &text[start..end];
    if secret.is_empty() || secret.contains("[REDACTED:") {
        return text.to_owned();
    }
    if kind == "env" && !table::looks_like_a_secret(secret, c.name("s3").is_none()) {
        return text.to_owned();
    }
    format!("{}[REDACTED:{kind}]{}", &text[..start], &text[end..])
}

/// `s` with its `\uXXXX` escapes (surrogate pairs included) turned into the characters they
/// stand for; other text, and escapes that stand for nothing, are kept.
fn decode_json_escapes(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(i) = rest.find("\\u") {
        out.push_str(&rest[..i]);
        let hex = |r: &str| r.get(2..6).and_then(|h| u32::from_str_radix(h, 16).ok());
        let tail = &rest[i..];
        match hex(tail) {
            Some(hi @ 0xD800..=0xDBFF) => {
                let lo = tail.get(6..).filter(|t| t.starts_with("\\u")).and_then(hex);
                match lo.and_then(|lo| {
                    char::from_u32(0x10000 + ((hi - 0xD800) << 10) + (lo.wrapping_sub(0xDC00)))
                }) {
                    Some(c) => {
                        out.push(c);
                        rest = &tail[12..];
                    }
                    None => {
                        out.push_str(&tail[..2]);
                        rest = &tail[2..];
                    }
                }
            }
            Some(n) => match char::from_u32(n) {
                Some(c) => {
                    out.push(c);
                    rest = &tail[6..];
                }
                None => {
                    out.push_str(&tail[..2]);
                    rest = &tail[2..];
                }
            },
            None => {
                out.push_str(&tail[..2]);
                rest = &tail[2..];
            }
        }
    }
    out.push_str(rest);
    out
}

/// Every string field of the model passes here: ids (a session id can be a secret), names,
/// versions, signatures, timestamps, content and JSON payloads (keys included). The `raw` line of
/// a `debug` record comes through `raw` and is redacted as JSON when it is JSON.
impl VisitMut for Redactor {
    fn id(&mut self, _kind: IdKind, id: &mut String) {
        self.redact(id);
    }

    fn text(&mut self, s: &mut String) {
        self.redact(s);
        if s.contains("\\u") {
            let mut decoded = decode_json_escapes(s);
            let plain = decoded.clone();
            self.redact(&mut decoded);
            if decoded != plain {
                *s = decoded;
            }
        }
    }

    fn raw(&mut self, s: &mut String) {
        self.redact_raw(s);
    }

    fn value(&mut self, _role: ValueRole, v: &mut Value) {
        self.redact_value(v);
    }

    fn timestamp(&mut self, t: &mut Option<String>) {
        if let Some(t) = t {
            self.redact(t);
        }
    }

    fn timestamp_value(&mut self, t: &mut Option<Value>) {
        if let Some(t) = t {
            self.redact_value(t);
        }
    }

    fn version(&mut self, v: &mut Option<String>) {
        if let Some(v) = v {
            self.redact(v);
        }
    }

    fn opaque(&mut self, v: &mut Option<String>) {
        if let Some(v) = v {
            self.redact(v);
        }
    }
}

/// True when a pattern finds a secret in `name` (a session id or an input's file name, before
/// it is made safe as a file stem: the patterns need the `=`, `:`, `/` or spaces that making it
/// safe would replace).
pub(crate) fn holds_secret(name: &str) -> bool {
    let mut probe = name.to_owned();
    Redactor::new(None).redact(&mut probe);
    probe != name
}

/// A file stem that stands for a name holding a secret: `session-<12 hex digits of its
/// SHA-256>` (stable across runs, reveals nothing).
pub(crate) fn hashed_stem(name: &str) -> String {
    use sha2::Digest;
    let digest = sha2::Sha256::digest(name.as_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("session-{hex}")
}

#[cfg(test)]
mod tests;

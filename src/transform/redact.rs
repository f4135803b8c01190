//! `--redact`: replace secrets in every string of the output with `[REDACTED:<kind>]`, and the
//! user's home directory with `~`, so that a transcript can be shared (issue 7).
//!
//! The patterns are one table (`TABLE`), tried in order; each has a positive and a negative
//! example in the tests below and in `tests/redact.rs`. A pattern may keep a prefix (`pre`) and a
//! suffix (`post`) around the secret, so `Authorization: Bearer abc…` stays readable as
//! `Authorization: Bearer [REDACTED:bearer]`. Ordinary hex hashes and UUIDs never match: every
//! pattern needs a vendor prefix or a named context. Inside JSON payloads, the value of a key that
//! names a secret (`OPENAI_API_KEY`, `password`, `client_secret`, …) is redacted whole.

use std::sync::LazyLock;

use regex::{Captures, Regex};
use serde_json::Value;

use super::visit::{ValueRole, VisitMut};

/// One kind of secret: its name in `[REDACTED:<kind>]` and the pattern that finds it.
struct Pattern {
    kind: &'static str,
    regex: &'static str,
}

/// The secrets `--redact` knows, most specific first (an Anthropic key is also shaped like an
/// OpenAI one; a JWT after `Bearer` is reported as a JWT).
const TABLE: &[Pattern] = &[
    Pattern {
        kind: "private-key",
        regex: r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY-----",
    },
    Pattern {
        kind: "anthropic-key",
        regex: r"\bsk-ant-[A-Za-z0-9_\-]{20,}",
    },
    Pattern {
        kind: "openai-key",
        regex: r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
    },
    Pattern {
        kind: "google-api-key",
        regex: r"\bAIza[0-9A-Za-z_\-]{35}",
    },
    Pattern {
        kind: "github-token",
        regex: r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    },
    Pattern {
        kind: "aws-access-key",
        regex: r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    },
    Pattern {
        kind: "jwt",
        regex: r"\beyJ[A-Za-z0-9_\-]{8,}\.eyJ[A-Za-z0-9_\-]{8,}\.[A-Za-z0-9_\-]{8,}",
    },
    Pattern {
        kind: "bearer",
        regex: r"(?P<pre>\b[Bb]earer\s+)[A-Za-z0-9\-._~+/]{8,}=*",
    },
    Pattern {
        kind: "url-password",
        regex: r"(?P<pre>\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:)[^/\s@]+(?P<post>@)",
    },
    Pattern {
        kind: "env",
        regex: r#"(?P<pre>\b(?:[A-Z][A-Z0-9_]*_(?:KEY|TOKEN|SECRET)|(?:[A-Z][A-Z0-9_]*_)?PASSWORD)"?\s*[=:]\s*)(?:"[^"\n]*"|'[^'\n]*'|[^\s"'`;&|,}]+)"#,
    },
];

static COMPILED: LazyLock<Vec<(&'static str, Regex)>> = LazyLock::new(|| {
    TABLE
        .iter()
        .map(|p| (p.kind, Regex::new(p.regex).expect("valid regex")))
        .collect()
});

/// A JSON key whose string value is a secret whatever it looks like.
static SECRET_KEY: LazyLock<Regex> = LazyLock::new(|| {
    Regex::new(r"(?i)^(?:[a-z0-9_\-]*[_\-](?:key|token|secret)|[a-z0-9_\-]*password|api_?key|apikey|secret|token|access_?token|client_?secret)$")
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
        for (kind, re) in COMPILED.iter() {
            if !re.is_match(s) {
                continue;
            }
            *s = re
                .replace_all(s, |c: &Captures<'_>| {
                    let pre = c.name("pre").map_or("", |m| m.as_str());
                    let post = c.name("post").map_or("", |m| m.as_str());
                    let whole = &c[0];
                    let secret = &whole[pre.len()..whole.len() - post.len()];
                    if secret.contains("[REDACTED:") {
                        whole.to_owned()
                    } else {
                        format!("{pre}[REDACTED:{kind}]{post}")
                    }
                })
                .into_owned();
        }
        if let Some((home, re)) = &self.home {
            if s.contains(home.as_str()) {
                *s = re.replace_all(s, "~$post").into_owned();
            }
        }
    }

    fn redact_value(&mut self, v: &mut Value) {
        match v {
            Value::String(s) => self.redact(s),
            Value::Array(a) => a.iter_mut().for_each(|x| self.redact_value(x)),
            Value::Object(o) => {
                for (k, x) in o.iter_mut() {
                    match x {
                        Value::String(s)
                            if SECRET_KEY.is_match(k)
                                && !s.is_empty()
                                && !s.starts_with("[REDACTED:") =>
                        {
                            *s = "[REDACTED:env]".to_owned();
                        }
                        _ => self.redact_value(x),
                    }
                }
            }
            Value::Null | Value::Bool(_) | Value::Number(_) => {}
        }
    }
}

impl VisitMut for Redactor {
    fn text(&mut self, s: &mut String) {
        self.redact(s);
    }

    fn value(&mut self, _role: ValueRole, v: &mut Value) {
        self.redact_value(v);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn red(s: &str) -> String {
        let mut s = s.to_owned();
        Redactor::new(Some("/home/alice")).redact(&mut s);
        s
    }

    /// (kind, a string that must be redacted to `want`, a look-alike that must stay).
    const CASES: &[(&str, &str, &str, &str)] = &[
        (
            "private-key",
            "-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----",
            "[REDACTED:private-key]",
            "-----BEGIN PUBLIC KEY-----\nMIIB\n-----END PUBLIC KEY-----",
        ),
        (
            "anthropic-key",
            "key sk-ant-api03-AbCdEfGhIjKlMnOpQrStUvWx",
            "key [REDACTED:anthropic-key]",
            "ask-ant-colony and sk-ant-short",
        ),
        (
            "openai-key",
            "sk-proj-AbCdEfGhIjKlMnOpQrStUvWx12",
            "[REDACTED:openai-key]",
            "task-list-AbCdEfGhIjKlMnOpQrStUvWx",
        ),
        (
            "google-api-key",
            "AIzaSyA1234567890abcdefghijklmnopqrstuv",
            "[REDACTED:google-api-key]",
            "AIza is short",
        ),
        (
            "github-token",
            "ghp_0123456789abcdefghijklmnopqrstuvwxyz",
            "[REDACTED:github-token]",
            "ghp_short and gh_0123456789abcdefghijklmnopqrstuvwxyz",
        ),
        (
            "aws-access-key",
            "AKIAIOSFODNN7EXAMPLE",
            "[REDACTED:aws-access-key]",
            "AKIAIOSFODNN7EXAMPLEX and 3f786850e387550fdab836ed7e6dc881de23001b",
        ),
        (
            "jwt",
            "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
            "[REDACTED:jwt]",
            "eyJhbGciOiJIUzI1NiJ9 alone",
        ),
        (
            "bearer",
            "Authorization: Bearer abcdef0123456789",
            "Authorization: Bearer [REDACTED:bearer]",
            "the bearer of bad news",
        ),
        (
            "url-password",
            "postgres://bob:hunter2@db.local:5432/app",
            "postgres://bob:[REDACTED:url-password]@db.local:5432/app",
            "https://db.local:5432/app and git@github.com:o/r.git",
        ),
        (
            "env",
            "export STRIPE_SECRET=abc123 DB_PASSWORD='p w' GH_TOKEN=xyz",
            "export STRIPE_SECRET=[REDACTED:env] DB_PASSWORD=[REDACTED:env] GH_TOKEN=[REDACTED:env]",
            "KEYBOARD=us MONKEY=1 PASSWORDLESS=yes",
        ),
        (
            "home",
            "cat /home/alice/.bashrc in /home/alice",
            "cat ~/.bashrc in ~",
            "/home/alicex/f and /home/bob",
        ),
    ];

    #[test]
    fn every_pattern_has_a_positive_and_a_negative_example() {
        for (kind, positive, want, negative) in CASES {
            assert_eq!(red(positive), *want, "{kind}: positive");
            assert_eq!(red(negative), *negative, "{kind}: negative");
        }
        for p in TABLE {
            assert!(
                CASES.iter().any(|c| c.0 == p.kind),
                "{} has no test case",
                p.kind
            );
        }
    }

    #[test]
    fn hashes_and_uuids_stay() {
        let s = "commit 3f786850e387550fdab836ed7e6dc881de23001b id 710ebeea-0a89-4141-926d-dc18e6a4cce1 sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08";
        assert_eq!(red(s), s);
    }

    #[test]
    fn a_key_already_redacted_is_not_redacted_twice() {
        assert_eq!(
            red("OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWx12"),
            "OPENAI_API_KEY=[REDACTED:openai-key]"
        );
    }

    #[test]
    fn json_keys_that_name_secrets_are_redacted_whole() {
        let mut r = Redactor::new(None);
        let mut v = serde_json::json!({"env": {"API_KEY": "plain", "HOME_DIR": "x"}, "password": "p", "tokens": 3});
        r.value(ValueRole::Content, &mut v);
        assert_eq!(
            v,
            serde_json::json!({"env": {"API_KEY": "[REDACTED:env]", "HOME_DIR": "x"}, "password": "[REDACTED:env]", "tokens": 3})
        );
    }
}

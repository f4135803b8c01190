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

use regex::{Captures, Regex, RegexSet};
use serde_json::Value;

use super::visit::{IdKind, ValueRole, VisitMut};

/// One kind of secret: its name in `[REDACTED:<kind>]` and the pattern that finds it.
struct Pattern {
    kind: &'static str,
    regex: &'static str,
}

/// The secrets `--redact` knows, most specific first (an Anthropic key is also shaped like an
/// OpenAI one; a JWT after `Bearer` is reported as a JWT). A pattern marks the secret itself
/// either as the group `s` or as what lies between the groups `pre` and `post` (or the whole
/// match); the rest of the match stays, so `password = "x"` reads `password = "[REDACTED:env]"`.
const TABLE: &[Pattern] = &[
    Pattern {
        kind: "private-key",
        // Whole, or cut off before its END line (a truncated paste): then the body up to the end
        // of the base64 (and the PEM headers of encrypted keys) goes. Its line breaks may be
        // written as `\n` escapes (a debug reason quotes an unknown value with `{:?}`).
        regex: r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----(?:[\s\S]*?-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|(?:(?:\r?\n|\\r\\n|\\n)(?:[A-Za-z-]+: [^\n\\]*|[A-Za-z0-9+/=]*))*)",
    },
    Pattern {
        kind: "anthropic-key",
        regex: r"\bsk-ant-[A-Za-z0-9_\-]{20,}",
    },
    Pattern {
        kind: "stripe-key",
        regex: r"\b(?:sk|rk)_(?:live|test)_[0-9A-Za-z]{10,}|\bwhsec_[A-Za-z0-9]{20,}",
    },
    Pattern {
        kind: "openai-key",
        regex: r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_\-]{20,}",
    },
    Pattern {
        kind: "google-api-key",
        regex: r"\bAIza[0-9A-Za-z_\-]{35}|\bya29\.[0-9A-Za-z_\-]{20,}",
    },
    Pattern {
        kind: "github-token",
        regex: r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})",
    },
    Pattern {
        kind: "gitlab-token",
        regex: r"\bgl(?:pat|dt|ptt|rt|cbt|imt|oas|soat|ft|agent)-[A-Za-z0-9_\-]{20,}",
    },
    Pattern {
        kind: "slack-token",
        regex: r"\bxox[a-z](?:\.xox[a-z])?-[0-9A-Za-z\-]{10,}",
    },
    Pattern {
        kind: "slack-webhook",
        regex: r"(?P<pre>\bhttps://hooks\.slack\.com/)(?:services|workflows|triggers)/[A-Za-z0-9+/_\-]{8,}",
    },
    Pattern {
        kind: "npm-token",
        regex: r"\bnpm_[A-Za-z0-9]{36}\b",
    },
    Pattern {
        kind: "pypi-token",
        regex: r"\bpypi-AgE[A-Za-z0-9_\-]{50,}",
    },
    Pattern {
        kind: "huggingface-token",
        regex: r"\bhf_[A-Za-z0-9]{30,}",
    },
    Pattern {
        kind: "sendgrid-key",
        regex: r"\bSG\.[A-Za-z0-9_\-]{16,}\.[A-Za-z0-9_\-]{16,}",
    },
    Pattern {
        kind: "digitalocean-token",
        regex: r"\bdo[opr]_v1_[a-f0-9]{64}\b",
    },
    Pattern {
        kind: "shopify-token",
        regex: r"\bshp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}\b",
    },
    Pattern {
        kind: "aws-access-key",
        regex: r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b",
    },
    Pattern {
        kind: "aws-credentials",
        // An AWS credentials or config file line (`aws_secret_access_key = …`).
        regex: r"(?i)\baws_(?:secret_access_key|session_token|security_token)\s*[=:]\s*(?P<s>[A-Za-z0-9/+=]{16,})",
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
        kind: "basic-auth",
        regex: r"(?i)(?P<pre>\bauthorization:\s*basic\s+)[A-Za-z0-9+/]{8,}=*",
    },
    Pattern {
        kind: "url-password",
        regex: r"(?P<pre>\b[a-zA-Z][a-zA-Z0-9+.\-]*://[^/\s:@]+:)[^/\s@]+(?P<post>@)",
    },
    Pattern {
        kind: "cli-password",
        // `curl -u user:pass` (also `--user`), and the MySQL client's `-pPASS`.
        regex: r#"(?:\s|^)(?:-u|--user)(?:\s+|=)['"]?[^\s:'"]+:(?P<s>[^\s'"]+)|\b(?:mysql|mysqldump|mysqladmin|mariadb)\b[^\n|;&]*?\s-p(?P<s2>[^\s'"]+)"#,
    },
    Pattern {
        kind: "env",
        // An assignment to a name that says secret: `GH_TOKEN=…`, `TOKEN=…`, `password=…`,
        // `SECRET_KEY_BASE=…`, `--password=…`, `"client_secret" = "…"`.
        regex: r#"(?i)\b(?:[a-z0-9_.\-]*[_.\-])?(?:api_?key|secret_?key_?base|secret_?key|access_?key|private_?key|client_?secret|auth_?token|access_?token|refresh_?token|token|secret|password|passwd|credentials?)(?:\\?["'])?\s*=\s*(?:\\?"(?P<s>(?:[^"\\\n]|\\[^"\n])+)\\?"|'(?P<s2>[^'\n]+)'|(?P<s3>[^\s"'`;&|,}\])]+))"#,
    },
    Pattern {
        kind: "env",
        // The same names as keys in JSON or YAML text: `"password": "…"`, `api_key: …`. An
        // unquoted value must look like a secret (a digit, or 12 characters), so prose such as
        // "the token: it expires" stays.
        regex: r#"(?i)\b(?:[a-z0-9_.\-]*[_.\-])?(?:api_?key|secret_?key_?base|secret_?key|access_?key|private_?key|client_?secret|auth_?token|access_?token|refresh_?token|token|secret|password|passwd|credentials?)(?:\\?["'])?\s*:[ \t]*(?:\\?"(?P<s>(?:[^"\\\n]|\\[^"\n])+)\\?"|'(?P<s2>[^'\n]+)'|(?P<s3>[^\s"'`,;}\])]*[0-9][^\s"'`,;}\])]*|[^\s"'`,;}\])]{12,}))"#,
    },
];

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
                                && !s.starts_with("[REDACTED:") =>
                        {
                            *s = "[REDACTED:env]".to_owned();
                        }
                        Value::Number(_) if SECRET_KEY.is_match(k) => {
                            *x = Value::String("[REDACTED:env]".to_owned());
                        }
                        _ => self.redact_value(x),
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

/// A file stem for `--output-dir` under `--redact`: `stem` itself when no pattern finds a secret
/// in it, else `session-<12 hex digits of its SHA-256>` (stable across runs, reveals nothing).
pub(crate) fn redacted_file_stem(stem: String) -> String {
    let mut probe = stem.clone();
    Redactor::new(None).redact(&mut probe);
    if probe == stem {
        return stem;
    }
    use sha2::Digest;
    let digest = sha2::Sha256::digest(stem.as_bytes());
    let hex: String = digest.iter().take(6).map(|b| format!("{b:02x}")).collect();
    format!("session-{hex}")
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
            "export STRIPE_SECRET=[REDACTED:env] DB_PASSWORD='[REDACTED:env]' GH_TOKEN=[REDACTED:env]",
            "KEYBOARD=us MONKEY=1 PASSWORDLESS=yes",
        ),
        (
            "private-key",
            "-----BEGIN PGP PRIVATE KEY BLOCK-----\n\nlQOYBF0abc\n=Xy12\n-----END PGP PRIVATE KEY BLOCK-----",
            "[REDACTED:private-key]",
            "-----BEGIN PGP PUBLIC KEY BLOCK-----\nmQINBF\n-----END PGP PUBLIC KEY BLOCK-----",
        ),
        (
            "private-key",
            "key: -----BEGIN RSA PRIVATE KEY-----\nProc-Type: 4,ENCRYPTED\nMIIEowIBAAKCAQEA7\nbmFzZTY0",
            "key: [REDACTED:private-key]",
            "see -----BEGIN CERTIFICATE-----\nMIIB",
        ),
        (
            "private-key",
            r#"subtype "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA7\nbmFzZTY0" seen"#,
            r#"subtype "[REDACTED:private-key]" seen"#,
            r#"see -----BEGIN CERTIFICATE-----\nMIIB"#,
        ),
        (
            "stripe-key",
            "sk_live_4eC39HqLyjWDarjtT1zdp7dc and whsec_AbCdEfGhIjKlMnOpQrStUvWx",
            "[REDACTED:stripe-key] and [REDACTED:stripe-key]",
            "pk_live_4eC39HqLyjWDarjtT1zdp7dc sk_live_short",
        ),
        (
            "google-api-key",
            "token ya29.a0AfH6SMBx7Qm2Lk9Pw4Rt6Yu1Io3P",
            "token [REDACTED:google-api-key]",
            "ya29.short",
        ),
        (
            "gitlab-token",
            "glpat-xZ8Qm2Lk9Pw4Rt6Yu1Io",
            "[REDACTED:gitlab-token]",
            "glpat-short and gitlab-runner",
        ),
        (
            "slack-token",
            "xoxb-123456789012-1234567890123-AbCdEfGhIjKlMnOpQrStUvWx",
            "[REDACTED:slack-token]",
            "xoxo-hugs and xoxb-",
        ),
        (
            "slack-webhook",
            "https://hooks.slack.com/services/T0000/B0000/XXXXXXXXXXXXXXXX",
            "https://hooks.slack.com/[REDACTED:slack-webhook]",
            "https://hooks.slack.com/ and https://slack.com/services/x",
        ),
        (
            "npm-token",
            "npm_AbCdEfGhIjKlMnOpQrStUvWxYz0123456789",
            "[REDACTED:npm-token]",
            "npm_install and npm_config_cache",
        ),
        (
            "pypi-token",
            "pypi-AgEIcHlwaS5vcmcCJGFiY2RlZmdoLWlqa2wtbW5vcC1xcnN0LXV2d3h5ejAxMjM0NTY",
            "[REDACTED:pypi-token]",
            "pypi-simple",
        ),
        (
            "huggingface-token",
            "hf_AbCdEfGhIjKlMnOpQrStUvWxYz012345",
            "[REDACTED:huggingface-token]",
            "hf_hub_download and hf_short",
        ),
        (
            "sendgrid-key",
            "SG.AbCdEfGhIjKlMnOpQrStUv.WxYz0123456789AbCdEfGhIjKlMnOp",
            "[REDACTED:sendgrid-key]",
            "SG.short.x",
        ),
        (
            "digitalocean-token",
            "dop_v1_0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef",
            "[REDACTED:digitalocean-token]",
            "dop_v1_short",
        ),
        (
            "shopify-token",
            "shpat_0123456789abcdef0123456789abcdef",
            "[REDACTED:shopify-token]",
            "shpat_x",
        ),
        (
            "aws-credentials",
            "[default]\naws_access_key_id = AKIA\naws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
            "[default]\naws_access_key_id = AKIA\naws_secret_access_key = [REDACTED:aws-credentials]",
            "aws_secret_access_key is read from ~/.aws/credentials; aws_region = eu-west-1",
        ),
        (
            "basic-auth",
            "Authorization: Basic dXNlcjpodW50ZXIy",
            "Authorization: Basic [REDACTED:basic-auth]",
            "basic authorization is weak",
        ),
        (
            "cli-password",
            "curl -u deploy:hunter2 https://x.example && mysql -u root -ps3cret db",
            "curl -u deploy:[REDACTED:cli-password] https://x.example && mysql -u root -p[REDACTED:cli-password] db",
            "curl -u deploy https://x.example; mkdir -p dir; mysql -p db",
        ),
        (
            "env",
            "TOKEN=abc123 SECRET=xyz SECRET_KEY_BASE=9f8e password=hunter2 --password=pw",
            "TOKEN=[REDACTED:env] SECRET=[REDACTED:env] SECRET_KEY_BASE=[REDACTED:env] password=[REDACTED:env] --password=[REDACTED:env]",
            "max_tokens=3 tokens=4 passwordless=true secret_santa=bob",
        ),
        (
            "env",
            "{\"password\": \"hunter2\", \"api_key\": \"k-1\"}\napi_key: abc123\nclient_secret: 'x y'",
            "{\"password\": \"[REDACTED:env]\", \"api_key\": \"[REDACTED:env]\"}\napi_key: [REDACTED:env]\nclient_secret: '[REDACTED:env]'",
            "the token: it expires\nmax_tokens: 100\nkey: value",
        ),
        (
            "env",
            r#"log {\"password\": \"hunter2\"} and PASSWORD=\"pq\""#,
            r#"log {\"password\": \"[REDACTED:env]\"} and PASSWORD=\"[REDACTED:env]\""#,
            r#"{\"passwords_checked\": 3}"#,
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

    #[test]
    fn a_secret_used_as_a_json_key_is_redacted() {
        let mut r = Redactor::new(None);
        let mut v = serde_json::json!({"ghp_0123456789abcdefghijklmnopqrstuvwxyz": 1, "b": 2});
        r.value(ValueRole::Content, &mut v);
        assert_eq!(v, serde_json::json!({"[REDACTED:github-token]": 1, "b": 2}));
    }

    #[test]
    fn json_escapes_in_a_raw_line_do_not_hide_a_secret() {
        let mut r = Redactor::new(None);
        // `password` and `sk-ant-…` spelled with \u escapes, in valid and in broken JSON.
        let mut raw =
            r#"{"\u0070assword":"x1","k":"sk\u002dant-api03-AbCdEfGhIjKlMnOpQrStUvWx"}"#.to_owned();
        r.raw(&mut raw);
        assert!(!raw.contains("x1") && !raw.contains("AbCdEf"), "{raw}");
        let mut broken = r#"{"k":"sk\u002dant-api03-AbCdEfGhIjKlMnOpQrStUvWx"#.to_owned();
        r.raw(&mut broken);
        assert!(!broken.contains("AbCdEf"), "{broken}");
        let mut text = "key sk\\u002dant-api03-AbCdEfGhIjKlMnOpQrStUvWx".to_owned();
        r.text(&mut text);
        assert!(!text.contains("AbCdEf"), "{text}");
        let mut plain = r#"{"a":"caf\u00e9"}"#.to_owned();
        r.raw(&mut plain);
        assert_eq!(
            plain, r#"{"a":"caf\u00e9"}"#,
            "nothing found: left as it was"
        );
    }
}

//! The secrets `--redact` knows, as data: one row per pattern, and what makes an assigned value
//! look like a secret rather than code. `docs/redaction.md` lists the same kinds with an example
//! each; a test checks that the two agree and runs every example through the binary.

/// One kind of secret: its name in `[REDACTED:<kind>]` and the pattern that finds it.
pub(super) struct Pattern {
    pub(super) kind: &'static str,
    pub(super) regex: &'static str,
}

/// The secrets `--redact` knows, most specific first (an Anthropic key is also shaped like an
/// OpenAI one; a JWT after `Bearer` is reported as a JWT). A pattern marks the secret itself
/// either as the group `s` or as what lies between the groups `pre` and `post` (or the whole
/// match); the rest of the match stays, so `password = "x"` reads `password = "[REDACTED:env]"`.
pub(super) const TABLE: &[Pattern] = &[
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
        kind: "azure-storage-key",
        // A connection string's account or shared access key (`AccountKey=…;`, Service Bus and
        // Event Hubs' `SharedAccessKey=…`).
        regex: r"(?P<pre>\b(?:AccountKey|SharedAccessKey)=)[A-Za-z0-9+/]{20,}={0,2}",
    },
    Pattern {
        kind: "azure-sas",
        // The signature of a shared access signature URL or token (`…&sig=…`), URL-encoded.
        regex: r"(?P<pre>[?&;]sig=)[A-Za-z0-9%+/=]{16,}",
    },
    Pattern {
        kind: "telegram-bot-token",
        regex: r"\b[0-9]{8,10}:AA[A-Za-z0-9_\-]{33}\b",
    },
    Pattern {
        kind: "databricks-token",
        regex: r"\bdapi[a-f0-9]{32}(?:-[0-9]+)?\b",
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

/// Whether the value of an assignment to a name that says secret (`TOKEN=…`, `password: …`)
/// looks like a secret rather than code or a placeholder: a variable reference (`$TOKEN`,
/// `${TOKEN}`, `{{ secrets.TOKEN }}`, `%TOKEN%`), a placeholder (`<your token>`, `xxx`, `***`,
/// `...`), a comment, and, unquoted, a call (`get_token()`), an index (`os.environ["KEY"]`), an
/// attribute (`settings.API_KEY`)
/// or a language's empty value (`None`, `null`) are not.
pub(super) fn looks_like_a_secret(value: &str, quoted: bool) -> bool {
    let v = value.trim();
    // A comparison (`password == x`) reads as an assignment whose value starts with `=`.
    let reference = v.starts_with(['$', '%', '<', '#', '=']) || v.starts_with("//");
    let template = v.contains("${") || v.contains("{{");
    let lower = v.to_ascii_lowercase();
    let placeholder = says_your(&lower)
        || ends_in_xs(v)
        || ["***", "...", "…", "changeme", "placeholder", "redacted"]
            .iter()
            .any(|p| lower.contains(p));
    if reference || template || placeholder {
        return false;
    }
    if quoted {
        return true;
    }
    let call = v.contains(['(', '[']);
    let empty = [
        "none",
        "null",
        "nil",
        "undefined",
        "true",
        "false",
        "empty",
        "required",
        "optional",
    ]
    .contains(&lower.as_str());
    let attribute = v.contains('.')
        && v.split('.').all(|part| {
            part.chars()
                .next()
                .is_some_and(|c| c.is_ascii_alphabetic() || c == '_')
                && part.chars().all(|c| c.is_ascii_alphanumeric() || c == '_')
        });
    !(call || empty || attribute)
}

/// Whether a value (lower case) begins with the word "your" (`your-api-key`, `YOUR_TOKEN`,
/// `your key`): a placeholder. A token that merely begins with those letters is not one.
fn says_your(lower: &str) -> bool {
    lower
        .strip_prefix("your")
        .is_some_and(|rest| rest.is_empty() || rest.starts_with(['-', '_', ' ', '.']))
}

/// Whether a value ends in a run of x's that stands for its secret part (`xxxxxxxx`,
/// `XXXX-XXXX`, `sk-xxxxxxxxxxxx`, `github_pat_xxxx`, a JWT signed `.xxx`): its last run of
/// letters and digits is at least three x's and nothing else. Three x's inside a random token
/// (`…A7xxXkH…`) do not make it one.
fn ends_in_xs(v: &str) -> bool {
    let last = v
        .split(|c: char| !c.is_ascii_alphanumeric())
        .rfind(|part| !part.is_empty())
        .unwrap_or_default();
    last.len() >= 3 && last.bytes().all(|b| matches!(b, b'x' | b'X'))
}

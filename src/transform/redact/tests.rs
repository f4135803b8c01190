//! Each pattern's positive and negative examples, the home directory, JSON payloads.
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
        "azure-storage-key",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zx8Qm2Lk9Pw4Rt6Yu1Io3PaSdF+/gHjKlQ==;EndpointSuffix=core.windows.net",
        "DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=[REDACTED:azure-storage-key];EndpointSuffix=core.windows.net",
        "AccountName=acme;AccountKey=",
    ),
    (
        "azure-sas",
        "https://acme.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=Zx8Qm2Lk9Pw4Rt6Yu1Io3Pa%2BSdF%3D",
        "https://acme.blob.core.windows.net/c/f?sv=2022-11-02&sp=r&sig=[REDACTED:azure-sas]",
        "https://example.com/?sig=short&signal=Zx8Qm2Lk9Pw4Rt6Yu1Io3Pa",
    ),
    (
        "telegram-bot-token",
        "bot 123456789:AAHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw8 up",
        "bot [REDACTED:telegram-bot-token] up",
        "at 12:30:45 and 123456789:BBHdqTcvCH1vGWJxfSeofSAs0K5PALDsaw8",
    ),
    (
        "databricks-token",
        "DATABRICKS=dapi0123456789abcdef0123456789abcdef",
        "DATABRICKS=[REDACTED:databricks-token]",
        "dapper dapi0123 dapifoo",
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

/// Code that names a secret without holding one stays as it is: calls, variables, attributes,
/// empty values, placeholders and templates.
#[test]
fn assignments_of_code_and_placeholders_are_not_secrets() {
    for code in [
        "token = get_token()",
        "password = getpass.getpass()",
        "password=None",
        "password = null",
        "api_key = os.environ[\"API_KEY\"]",
        "api_key = settings.API_KEY",
        "export GH_TOKEN=$GITHUB_TOKEN",
        "TOKEN=${CI_JOB_TOKEN}",
        "password: ${{ secrets.DB_PASSWORD }}",
        "SECRET=%APP_SECRET%",
        "token = <your token here>",
        "API_KEY=your-api-key",
        "password=xxxxxxxx",
        "password = \"********\"",
        "secret = # set in CI",
        "{\"password\": \"${DB_PASSWORD}\"}",
        "self.token = token.strip()",
        "if password == None: password = prompt()",
    ] {
        assert_eq!(red(code), code, "{code}");
    }
    for code in [
        "API_KEY=YOUR_API_KEY",
        "token: your token",
        "password=XXXX-XXXX",
        "api_key = sk-xxxxxxxxxxxx",
        "GH_TOKEN=\"github_pat_xxxx\"",
    ] {
        assert_eq!(red(code), code, "{code}");
    }
    for secret in [
        "token = 'Zx8Qm2Lk9Pw4'",
        "password=hunter2",
        "API_KEY=Zx8Qm2Lk9Pw4Rt6Yu",
        // Random tokens that hold three x's, or begin with the letters of "your".
        "SECRET_KEY_BASE=7aZJaC1gkA7xxXkHc5zU",
        "TOKEN=Xx9xQm2Lk9Pw4",
        "password=Yourq8Zm2Lk9Pw4",
        "password = \"get_token()x\"",
    ] {
        assert!(red(secret).contains("[REDACTED:env]"), "{secret}");
    }
}

/// `docs/redaction.md` lists every kind the patterns know, and no other: the table users read
/// and the integration tests iterate is the table the code has.
#[test]
fn the_documented_table_lists_every_kind() {
    let doc = include_str!("../../../docs/redaction.md");
    let documented: std::collections::BTreeSet<&str> = doc
        .lines()
        .filter_map(|l| l.strip_prefix("| `")?.split('`').next())
        .collect();
    let known: std::collections::BTreeSet<&str> = TABLE.iter().map(|p| p.kind).collect();
    assert_eq!(documented, known);
}

use super::*;
use serde_json::json;

use crate::lenient_struct;

lenient_struct! {
    /// Every field type, for the tests.
    pub(crate) struct Probe<'a> {
        "s" => s: Option<Cow<'a, str>> as Str<'a>,
        "p" => p: Option<Option<Cow<'a, str>>> as PresentStr<'a>,
        "b" => b: Option<bool> as Bool,
        "n" => n: Option<u64> as U64,
        "v" => v: Option<Value> as Present,
    }
}

/// Each field reads as the `Value` accessor it stands for, from text and from a `Value`.
#[test]
fn fields_read_as_the_value_accessors_do() {
    let cases = [
        json!({"s": "x", "p": 1, "b": true, "n": 7, "v": null}),
        json!({"s": 1, "b": "true", "n": -1, "v": {"a": [1]}}),
        json!({"s": {"a": 1}, "p": null, "b": null, "n": 1.5}),
        json!({"s": ["x"], "p": "q\"r", "n": "7", "other": [1, {"x": 2}]}),
        json!({}),
    ];
    for c in cases {
        let text = c.to_string();
        for probe in [
            serde_json::from_str::<Probe>(&text).unwrap(),
            Probe::deserialize(&c).unwrap(),
        ] {
            assert_eq!(probe.s.as_deref(), c.get("s").and_then(Value::as_str));
            assert_eq!(
                probe.p.as_ref().map(|p| p.as_deref()),
                c.get("p").map(Value::as_str)
            );
            assert_eq!(probe.b, c.get("b").and_then(Value::as_bool));
            assert_eq!(probe.n, c.get("n").and_then(Value::as_u64));
            assert_eq!(probe.v.as_ref(), c.get("v"));
        }
    }
}

/// A repeated key keeps its last value, as a `Value` does.
#[test]
fn the_last_of_repeated_keys_wins() {
    let text = r#"{"s": "first", "s": "last"}"#;
    let probe: Probe = serde_json::from_str(text).unwrap();
    let value: Value = serde_json::from_str(text).unwrap();
    assert_eq!(probe.s.as_deref(), value["s"].as_str());
}

/// What a `Value` parse refuses, the typed parse refuses too, wherever it is in the line
/// (serde's own skip of an unnamed field would let each through).
#[test]
fn a_line_a_value_parse_refuses_is_refused() {
    let deep = format!(r#"{{"a":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
    let long = format!(r#"{{"a":1{}}}"#, "0".repeat(400));
    for line in [
        r#"{"a":"\ud800"}"#,
        r#"{"s":"ok","a":"\uDC00x"}"#,
        r#"{"a":1e999}"#,
        r#"{"v":{"x":-2E+400}}"#,
        r#"{"s":["\ud800"]}"#,
        deep.as_str(),
        long.as_str(),
    ] {
        assert!(serde_json::from_str::<Value>(line).is_err(), "{line}");
        assert!(serde_json::from_str::<Probe>(line).is_err(), "{line}");
    }
    let fine = r#"{"a":"\ud83d\ude00","b":true,"c":1.5e3}"#;
    assert!(serde_json::from_str::<Probe>(fine).is_ok());
}

/// A string without escapes is borrowed from the line, not copied.
#[test]
fn plain_strings_are_borrowed() {
    let p: Probe = serde_json::from_str(r#"{"s": "plain"}"#).unwrap();
    assert!(matches!(p.s, Some(Cow::Borrowed("plain"))));
}

/// A derived struct of lenient fields, as a reader of a call's details declares one.
#[derive(serde::Deserialize, Default)]
struct Facts<'a> {
    #[serde(default, borrow)]
    name: Str<'a>,
    #[serde(default)]
    count: U64,
    #[serde(default)]
    file: Object<Inner>,
}

/// The nested object of [`Facts`].
#[derive(serde::Deserialize, Default)]
struct Inner {
    #[serde(default)]
    lines: U64,
}

/// What a [`Facts`] read.
fn facts(f: Facts<'_>) -> (Option<String>, Option<u64>, Option<Option<u64>>) {
    let file = f.file.0.map(|i| i.lines.0);
    (f.name.0.map(Cow::into_owned), f.count.0, file)
}

/// `from_text` reads what `serde_json::from_str` reads, and fails where it fails.
#[test]
fn from_text_reads_as_serde_json() {
    let texts = [
        r#"{"name":"a","count":3,"file":{"lines":2,"content":"x\ny"},"big":[1,{"a":"\u00e9"}]}"#,
        r#"{"name":1,"count":"3","file":[1]}"#,
        r#"{"name": "a\"b" , "count": 18446744073709551615}"#,
        r#"[1,2]"#,
        r#"{"name":"a"} x"#,
        r#"{"name":"a","name":"b"}"#,
        "{\"name\":\"a\nb\"}",
    ];
    for text in texts {
        let ours = crate::from_text::<Facts<'_>>(text).ok();
        let theirs = serde_json::from_str::<Facts<'_>>(text).ok();
        assert_eq!(ours.map(facts), theirs.map(facts), "{text}");
        let ours = crate::from_text::<Value>(text).ok();
        assert_eq!(ours, serde_json::from_str::<Value>(text).ok(), "{text}");
    }
}

lenient_struct! {
    /// How a field begins.
    pub(crate) struct Leading {
        "text" => text: Lead as Same<Lead>,
    }
}

/// A string's lead is the same whether the scanner decodes only its first characters or
/// serde_json hands over the whole string: escapes, leading white space spelt as escapes or not,
/// a character cut at the lead's end, a string of white space only, and anything not a string.
#[test]
fn a_lead_reads_as_from_the_whole_string() {
    let long = format!(
        "{}<persisted-output>{}",
        "\\n \\t\\u0020".repeat(30),
        "x\\n".repeat(500)
    );
    let cases = [
        long.as_str(),
        r#"  <persisted-output>\nrest"#,
        r#"\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9\u00e9"#,
        r#"\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00\ud83d\ude00"#,
        r#"\u3000\u2003 \n\t"#,
        r#"abcdefghijklmnopqrstuvwxyz0123456789\"\\"#,
        r#"plain text, no escape, longer than the thirty-two bytes kept"#,
    ];
    for text in cases {
        let line = format!(r#"{{"text":"{text}"}}"#);
        let ours = crate::from_str::<Leading>(&line).map(|l| format!("{:?}", l.text.0));
        let theirs = serde_json::from_str::<Leading>(&line).map(|l| format!("{:?}", l.text.0));
        assert_eq!(ours.ok(), theirs.ok(), "{line}");
    }
    for other in ["7", "null", "[\"<persisted-output>\"]", "{\"a\":\"b\"}"] {
        let line = format!(r#"{{"text":{other}}}"#);
        let ours = crate::from_str::<Leading>(&line).unwrap();
        assert!(ours.text.0.is_none(), "{line}");
    }
}

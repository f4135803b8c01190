use super::*;
use proptest::prelude::*;
use serde::Deserialize;
use serde_json::Value;

use crate::strategy::value;

/// What a reader that builds the `Value` writes: the reference for [`compact`].
fn through_value(text: &str) -> Option<Vec<u8>> {
    let v: Value = serde_json::from_str(text).ok()?;
    let mut out = Vec::new();
    write(&mut out, &v).ok()?;
    Some(out)
}

/// `text` as Python's `json.dumps` spells JSON: `", "` and `": "` between tokens and every
/// character past ASCII as a `\u` escape (a pair for one past the first plane). Inside strings
/// the spaces change the value, which both readers then read alike.
fn dumps_style(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        match c {
            ',' => out.push_str(", "),
            ':' => out.push_str(": "),
            c if c.is_ascii() => out.push(c),
            c => {
                let mut units = [0u16; 2];
                for u in c.encode_utf16(&mut units) {
                    out.push_str(&format!("\\u{u:04x}"));
                }
            }
        }
    }
    out
}

proptest! {
    /// Whatever it writes is what writing the `Value` writes, on compact text and on text spelt
    /// another way; it declines only what it says it declines.
    #[test]
    fn writes_what_the_value_writes(v in value()) {
        let text = serde_json::to_string(&v).unwrap();
        for text in [text.clone(), dumps_style(&text)] {
            let ours = compact(&text);
            if let Some(ours) = &ours {
                prop_assert_eq!(Some(ours.clone()), through_value(&text), "{}", text);
            }
            // No repeated keys in a `Value`'s text and no control byte once escaped: only an
            // object of many keys is left to the `Value`.
            prop_assert!(ours.is_some() || text.contains("\n") || many_keys(&v), "{}", text);
        }
    }
}

/// Whether an object of `v` has more keys than [`compact`] compares.
fn many_keys(v: &Value) -> bool {
    match v {
        Value::Object(o) => o.len() > KEYS_COMPARED || o.values().any(many_keys),
        Value::Array(a) => a.iter().any(many_keys),
        Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => false,
    }
}

/// Numbers are written as the `Value` holds them; escapes as the writer writes them.
#[test]
fn numbers_and_escapes_take_the_written_form() {
    for (text, want) in [
        (
            r#"{"a": 1.50, "b": -0, "c": 1e3, "d": 18446744073709551616}"#,
            None,
        ),
        (r#"["\u00e9\/\u001F\ud83d\ude00", 12, -7, 0.1]"#, None),
        (r#"["\u0022\u005C\u007f\u0008\b\n\"\\", "a\u2192b"]"#, None),
        (
            r#" { "k" : [ true , false , null ] } "#,
            Some(r#"{"k":[true,false,null]}"#),
        ),
    ] {
        let ours = compact(text).map(|o| String::from_utf8(o).unwrap());
        let reference = through_value(text).map(|o| String::from_utf8(o).unwrap());
        assert_eq!(ours, reference, "{text}");
        if let Some(want) = want {
            assert_eq!(ours.as_deref(), Some(want));
        }
    }
}

/// A repeated key, an object of many keys and text that is not one JSON value are left to the
/// caller.
#[test]
fn declines_what_the_value_decides() {
    let many = (0..=KEYS_COMPARED)
        .map(|i| format!("\"k{i}\":{i}"))
        .collect::<Vec<_>>()
        .join(",");
    for text in [
        r#"{"a":1,"a":2}"#.to_owned(),
        r#"{"a":{"b":1,"\u0062":2}}"#.to_owned(),
        format!("{{{many}}}"),
        "[1,]".to_owned(),
        "1 2".to_owned(),
        "\"a\nb\"".to_owned(),
    ] {
        assert_eq!(compact(&text), None, "{text}");
    }
}

/// The scanner's deserializer hands a value over in the form [`compact`] gives it, in place in
/// a line, and the value's text where [`compact`] declines; the rest of the line reads on.
/// serde_json lends it as a `RawValue`.
#[test]
fn a_value_in_a_line_is_handed_over_in_the_written_form() {
    for value in [
        r#" { "a" : [1, 2.50, "\u00e9\/"], "b": {} }"#,
        r#"{"a":1,"a":2}"#,
        r#""x\ny""#,
        "[]",
    ] {
        let line = format!(r#"{{"v":{value},"w":"after"}}"#);
        let mut scanner = Scanner::new(&line).unwrap();
        scanner.begin_object().unwrap();
        let mut first = true;
        assert_eq!(scanner.key(&mut first).unwrap().as_deref(), Some("v"));
        let got = match Compacted::deserialize(&mut scanner).unwrap() {
            Compacted::Written(text) => Ok(text),
            Compacted::Text(text) => Err(text),
            Compacted::Raw(raw) => panic!("the scanner lends no RawValue: {raw}"),
        };
        let want = compact(value).map(|o| String::from_utf8(o).unwrap());
        assert_eq!(got.as_ref().ok(), want.as_ref(), "{value}");
        if want.is_none() {
            assert_eq!(got, Err(value.trim()), "{value}");
        }
        assert_eq!(scanner.key(&mut first).unwrap().as_deref(), Some("w"));
        assert_eq!(scanner.str_or_skip().unwrap().as_deref(), Some("after"));
    }
    let mut de = serde_json::Deserializer::from_str(r#" {"a": 1}"#);
    let Compacted::Raw(raw) = Compacted::deserialize(&mut de).unwrap() else {
        panic!("serde_json lends a RawValue");
    };
    assert_eq!(raw.get(), r#"{"a": 1}"#);
}

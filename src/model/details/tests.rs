use super::*;
use serde_json::json;

/// What a `Value` parse and the writer make of `text`.
fn through_value(text: &str) -> String {
    let v: Value = serde_json::from_str(text).expect("JSON");
    Details::from_value(&v).text().to_owned()
}

/// What [`capture`] makes of `text`, checked against what [`read`] makes of it.
fn captured(text: &str) -> String {
    let mut de = serde_json::Deserializer::from_str(text);
    let out = capture(&mut de).expect("JSON").text().to_owned();
    assert_eq!(read_text(text).expect("JSON"), out, "{text}");
    out
}

fn read_text(text: &str) -> Result<String, serde_json::Error> {
    let mut de = serde_json::Deserializer::from_str(text);
    read(&mut de).map(|d| d.text().to_owned())
}

#[test]
fn only_the_written_form_is_taken_as_it_stands() {
    for text in [
        r#"{"a":[1,-2,"x\n\u001f",true,null,{}],"b":{"c":[]}}"#,
        "18446744073709551615",
        "-9223372036854775808",
    ] {
        assert!(is_written_form(text.as_bytes()), "{text}");
    }
    let deep = format!(
        "{}{}",
        "[".repeat(DEPTH_SCANNED + 1),
        "]".repeat(DEPTH_SCANNED + 1)
    );
    for text in [
        r#"{"a": 1}"#,
        r#""\/""#,
        r#""\u0041""#,
        r#""\u001F""#,
        r#""\u000a""#,
        "1.0",
        "1e3",
        "-0",
        "01",
        "18446744073709551616",
        "-9223372036854775809",
        r#"{"a":1,"a":2}"#,
        "[1,]",
        "[1]x",
        &deep,
    ] {
        assert!(!is_written_form(text.as_bytes()), "{text}");
    }
}

proptest::proptest! {
    #[test]
    fn any_spelling_reads_as_its_value_writes(v in scribe_json::strategy::value()) {
        let compact = serde_json::to_string(&v).expect("writes");
        // What a `Value` parse gives (its floats are not always the ones written).
        let written = Details::from_value(&serde_json::from_str(&compact).expect("reads"));
        let pretty = serde_json::to_string_pretty(&v).expect("writes");
        proptest::prop_assert_eq!(read_text(&compact).expect("reads"), written.text());
        proptest::prop_assert_eq!(read_text(&pretty).expect("reads"), written.text());
        let mut de = serde_json::Deserializer::from_str(&pretty);
        let captured = capture(&mut de).expect("reads");
        proptest::prop_assert_eq!(captured.text(), written.text());
    }
}

#[test]
fn captured_text_is_what_a_value_would_write() {
    for text in [
        r#"{"a":1,"b":[true,false,null],"c":{"d":"e\u00e9\n\"\\\/","f":-3,"g":1.5e300}}"#,
        r#" [ 1 , 2.0 , -0 , 18446744073709551615 , -9223372036854775808 , 1e-7 ] "#,
        r#""\ud83d\ude00 \u0001""#,
        r#"{"k":1,"x":{"k":2},"k2":{"k":3,"k":4}}"#,
        r#"{"a":1,"b":2,"a":3}"#,
        r#"{}"#,
        r#"[]"#,
        r#"[[],{},[{}]]"#,
        "12345678901234567890123",
    ] {
        assert_eq!(captured(text), through_value(text), "{text}");
    }
}

#[test]
fn a_repeated_key_keeps_its_last_value_in_its_first_place() {
    assert_eq!(captured(r#"{"a":1,"b":2,"a":3}"#), r#"{"a":3,"b":2}"#);
    let many: Vec<String> = (0..40).map(|i| format!("\"k{i}\":{i}")).collect();
    let text = format!("{{{},\"k39\":0}}", many.join(","));
    assert_eq!(captured(&text), through_value(&text));
    assert!(captured(&text).ends_with(r#""k39":0}"#));
}

#[test]
fn what_a_value_parse_refuses_is_refused() {
    for text in [
        r#"{"a":"\ud800"}"#,
        "[1e400]",
        &format!("{}{}", "[".repeat(200), "]".repeat(200)),
        r#"{"a":1,}"#,
    ] {
        let mut de = serde_json::Deserializer::from_str(text);
        assert!(capture(&mut de).is_err(), "{text}");
        assert!(read_text(text).is_err(), "{text}");
        assert!(serde_json::from_str::<Value>(text).is_err(), "{text}");
    }
}

#[test]
fn captured_from_a_value_too() {
    let v = json!({"a": [1, -2, 3.5, "x"], "b": null});
    assert_eq!(
        capture(&v).expect("reads").text(),
        Details::from_value(&v).text()
    );
}

#[test]
fn written_as_its_text_and_read_back_as_a_value() {
    let d = Details::from_value(&json!({"z": 1, "a": [true, "é"]}));
    let mut out = Vec::new();
    scribe_json::write(&mut out, &d).expect("writes");
    assert_eq!(
        String::from_utf8(out).expect("UTF-8"),
        r#"{"z":1,"a":[true,"é"]}"#
    );
    assert_eq!(serde_json::to_string(&d).expect("writes"), d.text());
    // serde_json's `to_value` knows the raw-text token: a changed token fails here.
    assert_eq!(
        serde_json::to_value(&d).expect("converts"),
        json!({"z": 1, "a": [true, "é"]})
    );
    let back: Details =
        serde_json::from_str(r#" { "z" : 1 , "a" : [ true , "\u00e9" ] } "#).expect("reads");
    assert_eq!(back, d);
}

#[test]
fn a_string_reads_as_its_text() {
    assert_eq!(
        Details::from_value(&json!("Error: x")).as_str().as_deref(),
        Some("Error: x")
    );
    assert_eq!(Details::from_value(&json!(1)).as_str(), None);
    assert!(Details::from_value(&Value::Null).is_null());
}

#[test]
fn edit_changes_the_text() {
    let mut d = Details::from_value(&json!({"a": "secret"}));
    d.edit(|v| v["a"] = json!("x"));
    assert_eq!(d.text(), r#"{"a":"x"}"#);
}

/// Drops the keys that end in `At` and marks every string, counting the strings in walk order.
#[derive(Default)]
struct MarkStrings(usize);

impl Rewrite for MarkStrings {
    fn keeps(&mut self, key: &str) -> bool {
        !key.ends_with("At")
    }
    fn text(&mut self, s: &mut String) {
        self.0 += 1;
        s.insert_str(0, &format!("<{}>", self.0));
    }
    /// Strings with a `y` are left as they stand (copied, not walked): the others are marked.
    fn may_change(&mut self, raw: &str) -> bool {
        !raw.contains('y')
    }
}

/// The same change made on the `Value` tree: keys dropped first, then the values walked.
fn mark_tree(v: &mut Value, count: &mut usize) {
    match v {
        Value::Object(o) => {
            o.retain(|k, _| !k.ends_with("At"));
            o.values_mut().for_each(|x| mark_tree(x, count));
        }
        Value::Array(a) => a.iter_mut().for_each(|x| mark_tree(x, count)),
        Value::String(s) if !s.contains('y') => {
            *count += 1;
            s.insert_str(0, &format!("<{count}>"));
        }
        Value::String(_) => {}
        Value::Null | Value::Bool(_) | Value::Number(_) => {}
    }
}

/// A rewrite where the details lie gives the bytes of the tree changed and written again:
/// members dropped first, last and alone, escapes, numbers, nesting, strings in walk order.
#[test]
fn rewritten_text_is_the_edited_tree_written() {
    for text in [
        r#"{"startAt":1,"a":"x","b":[1,-2.5,"y\n\u001f\"",true,null,{}],"endAt":"z"}"#,
        r#"{"onlyAt":{"a":"hidden"}}"#,
        r#"[{"a":{"b":{"cAt":2,"c":["é","\\"]}}},[],{},"t",1e300]"#,
        r#"{"y":"y\ty\u0001\"\\","x":"x\tx\u0001","z":"tail"}"#,
        r#""a string alone""#,
        "18446744073709551615",
        "null",
    ] {
        let details = Details::from_value(&serde_json::from_str(text).expect("JSON"));
        let mut walked = MarkStrings::default();
        let rewritten = details
            .rewritten(&mut walked)
            .expect("the scanner reads it");
        let mut edited = details.clone();
        let mut count = 0;
        edited.edit(|v| mark_tree(v, &mut count));
        assert_eq!(rewritten.text(), edited.text(), "{text}");
        assert_eq!(walked.0, count, "{text}");
    }
}

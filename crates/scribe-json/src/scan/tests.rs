use super::*;

/// Whether the scanner takes `text` as one value with nothing after it.
fn takes(text: &str) -> bool {
    match Scanner::new(text) {
        Some(mut s) => s.skip().is_ok() && s.end().is_ok(),
        None => false,
    }
}

/// Every kind of fault a `Value` parse refuses, the scanner refuses; and what it takes,
/// serde_json takes. Lines with control bytes are not the scanner's (left to serde).
#[test]
fn takes_exactly_what_a_value_parse_takes() {
    let deep = |n: usize| format!("{}1{}", "[".repeat(n), "]".repeat(n));
    let deep_objects = |n: usize| format!("{}1{}", "{\"a\":".repeat(n), "}".repeat(n));
    let cases = [
        r#"{"a":1}"#.to_owned(),
        r#" { "a" : [ 1 , 2.5 , -0 , 0.5e-3 , 1E+2 , true , false , null , "x" ] } "#.into(),
        r#"{"a":"\"\\\/\b\f\n\r\t\u00e9\uD83D\uDE00"}"#.into(),
        r#"{"a":"\ud800"}"#.into(),
        r#"{"a":"\udc00"}"#.into(),
        r#"{"a":"\ud800\u0041"}"#.into(),
        r#"{"a":"\ud800\n"}"#.into(),
        r#"{"a":"\ud800\udbff"}"#.into(),
        r#"{"a":"\u12"}"#.into(),
        r#"{"a":"\u12g4"}"#.into(),
        r#"{"a":"\q"}"#.into(),
        r#"{"a":"unterminated}"#.into(),
        r#"{"a":1e999}"#.into(),
        r#"{"a":-1e999}"#.into(),
        r#"{"a":1e-999}"#.into(),
        r#"{"a":1.7976931348623157e308}"#.into(),
        r#"{"a":1.7976931348623159e308}"#.into(),
        format!(r#"{{"a":{}}}"#, "9".repeat(400)),
        format!(r#"{{"a":{}}}"#, "9".repeat(300)),
        r#"{"a":123456789012345678901234567890}"#.into(),
        r#"{"a":01}"#.into(),
        r#"{"a":-}"#.into(),
        r#"{"a":1.}"#.into(),
        r#"{"a":.5}"#.into(),
        r#"{"a":1e}"#.into(),
        r#"{"a":+1}"#.into(),
        r#"{"a":1x}"#.into(),
        r#"{"a":tru}"#.into(),
        r#"{"a":nul}"#.into(),
        r#"{"a":truex}"#.into(),
        r#"{"a":1,}"#.into(),
        r#"{,"a":1}"#.into(),
        r#"{"a" 1}"#.into(),
        r#"{"a":1 "b":2}"#.into(),
        r#"{a:1}"#.into(),
        r#"{"a":[1,]}"#.into(),
        r#"{"a":[,1]}"#.into(),
        r#"{"a":[1 2]}"#.into(),
        r#"{"a":[}"#.into(),
        r#"{"a":1}}"#.into(),
        r#"{"a":1} x"#.into(),
        r#"{"a":1} "#.into(),
        r#"{}"#.into(),
        r#"[]"#.into(),
        r#"{"#.into(),
        "".into(),
        " ".into(),
        r#""é""#.into(),
        deep(127),
        deep(128),
        deep_objects(127),
        deep_objects(128),
    ];
    for case in &cases {
        let serde = serde_json::from_str::<serde_json::Value>(case).is_ok();
        assert_eq!(takes(case), serde, "{case}");
    }
    assert!(Scanner::new("{\"a\":\t1}").is_none());
    assert!(Scanner::new("{\"a\":\"\u{1}\"}").is_none());
}

/// The first quote or backslash is found wherever it is: in the bytes looked at eight at a
/// time, at their edges, past them, or nowhere.
#[test]
fn finds_the_first_quote_or_backslash() {
    for len in 0..80 {
        for at in 0..=len {
            for (first, second) in [(b'"', b'\\'), (b'\\', b'"'), (b'"', b'"')] {
                let mut bytes = vec![b'a'; len];
                if at < len {
                    bytes[at] = first;
                    if at + 1 < len {
                        bytes[at + 1] = second;
                    }
                }
                // Bytes that differ from the two by one bit, or borrow in a subtraction.
                if at >= 2 {
                    bytes[at - 1] = b'#';
                    bytes[at - 2] = 0x80 | b'"';
                }
                let want = (at < len).then_some(at);
                assert_eq!(quote_or_backslash(&bytes), want, "{len} {at}");
            }
        }
    }
}

/// Strings are read as serde_json reads them, escapes decoded.
#[test]
fn reads_strings_as_serde_does() {
    for text in [
        r#""plain""#,
        r#""a\nb\t\"q\" \\ \/ \b\f\r""#,
        r#""\u00e9\u4e2d\uD83D\uDE00 \u0000 end""#,
        r#""é ✓ 😀""#,
        r#""""#,
    ] {
        let mut s = Scanner::new(text).unwrap();
        let ours = s.string().unwrap();
        let theirs: String = serde_json::from_str(text).unwrap();
        assert_eq!(ours, theirs, "{text}");
        assert_eq!(matches!(ours, Cow::Borrowed(_)), !text.contains('\\'));
    }
}

/// A string read and decoded in one walk ([`Scanner::string`]) takes what serde_json takes,
/// gives what it gives, and ends where a skip ends: every escape, good or bad, at the start,
/// the end, beside another, and past the bytes looked at a block at a time.
#[test]
fn decodes_in_one_walk_what_serde_decodes() {
    let escapes = [
        r#"\n"#,
        r#"\""#,
        r#"\\"#,
        r#"\/"#,
        r#"\b"#,
        r#"\f"#,
        r#"\r"#,
        r#"\t"#,
        r#"\u00e9"#,
        r#"\u4E2D"#,
        r#"\uD83D\uDE00"#,
        r#"\u0000"#,
        r#"\q"#,
        r#"\u12"#,
        r#"\u12g4"#,
        r#"\uD800"#,
        r#"\uDC00"#,
        r#"\uD800\u0041"#,
        r#"\uD800\n"#,
        r#"\"#,
        "é",
    ];
    let pad = "x".repeat(40);
    for a in escapes {
        for b in escapes {
            for text in [
                format!(r#""{a}""#),
                format!(r#""{a}{b}""#),
                format!(r#""{a}y{b}z""#),
                format!(r#""{pad}{a}{pad}{b}{pad}""#),
                format!(r#""{a}{b}"#),
                format!(r#""{a}{b}" ,"#),
                format!(r#""{a}{b}\n{a}\t""#),
            ] {
                let theirs = serde_json::Deserializer::from_str(&text)
                    .into_iter::<String>()
                    .next()
                    .and_then(Result::ok);
                let mut s = Scanner::new(&text).unwrap();
                let ours = s.string().ok();
                assert_eq!(ours.as_deref(), theirs.as_deref(), "{text}");
                let mut skipped = Scanner::new(&text).unwrap();
                if ours.is_some() {
                    skipped.skip().unwrap();
                    assert_eq!(s.at, skipped.at, "{text}");
                } else {
                    assert!(skipped.skip().is_err(), "{text}");
                }
            }
        }
    }
}

/// `line` with one byte replaced by each of `replacements`, at every byte, where the result
/// is still UTF-8.
pub(super) fn mutants(line: &str, replacements: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    for i in 0..line.len() {
        for &r in replacements {
            let mut bytes = line.as_bytes().to_vec();
            bytes[i] = r;
            out.extend(String::from_utf8(bytes).ok());
        }
    }
    out
}

/// A mutation of a real-looking line at every byte: each mutant the scanner takes, serde_json
/// takes (the scanner may leave some to serde; it must never take one serde refuses).
#[test]
fn never_takes_a_mutant_serde_refuses() {
    let line = r#"{"type":"user","n":[1,-2.5e3,0,true,null],"s":"a\"b\\c\u00e9\ud83d\ude00","o":{"k":{}}}"#;
    let replacements = [
        b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'e', b'0', b'-', b'u', b'd', b'x',
    ];
    let mut taken = 0;
    for mutant in mutants(line, &replacements) {
        let serde = serde_json::from_str::<serde_json::Value>(&mutant).is_ok();
        let ours = takes(&mutant);
        assert!(!ours || serde, "taken but refused by serde: {mutant}");
        assert_eq!(ours, serde, "{mutant}");
        taken += usize::from(ours);
    }
    for i in 0..line.len() {
        let cut = &line[..i];
        assert!(!takes(cut) || serde_json::from_str::<serde_json::Value>(cut).is_ok());
    }
    assert!(taken > 50, "{taken}");
}

/// A value's text is what lies between the tokens around it, checked as `skip` checks it.
#[test]
fn raw_value_is_the_text_of_the_value() {
    let text = r#"{"n":-1.5e3,"t":true,"o":{"a":[1,"x\n"]},"s":"\u00e9"}"#;
    let mut s = Scanner::new(text).unwrap();
    s.begin_object().unwrap();
    let mut first = true;
    let mut raws = Vec::new();
    while s.key(&mut first).unwrap().is_some() {
        raws.push(s.raw_value().unwrap());
    }
    assert_eq!(
        raws,
        ["-1.5e3", "true", r#"{"a":[1,"x\n"]}"#, r#""\u00e9""#]
    );
    assert!(s.end().is_ok());
    assert!(Scanner::new("[1,]").unwrap().raw_value().is_err());
}

/// The table reads a hex digit as `char::to_digit` does, in every place of the four, and
/// refuses every other byte.
#[test]
fn hex_digits_read_as_to_digit_reads_them() {
    for b in 0..=255u8 {
        for place in 0..4 {
            let mut digits = *b"0000";
            digits[place] = b;
            let want = (b as char)
                .to_digit(16)
                .map(|v| v << (4 * (3 - place as u32)));
            assert_eq!(super::hex4(&digits, 0), want, "{b:#x} at {place}");
        }
    }
    assert_eq!(super::hex4(b"00e", 0), None);
}

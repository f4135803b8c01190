//! The lexer through the crate's API: each language's pieces and classes on small samples, and
//! pieces that tile every line of any text in every language.

use scribe_highlight::{Highlighter, language, languages};

/// The classed pieces of `code`'s lines in `lang`, as `class:text` (plain text left out).
fn classes(lang: &str, code: &str) -> Vec<String> {
    let mut hl = Highlighter::new(Some(language(lang).expect("a language")));
    let mut out = Vec::new();
    for l in code.split('\n') {
        let mut at = 0;
        for (r, class) in hl.line(l) {
            assert_eq!(r.start, at, "{l:?}: pieces leave a gap");
            at = r.end;
            if let Some(c) = class {
                out.push(format!("{}:{}", &c.css()[2..], &l[r.clone()]));
            }
        }
        assert_eq!(at, l.len(), "{l:?}: pieces do not reach the end");
    }
    out
}

#[test]
fn rust() {
    assert_eq!(
        classes(
            "rust",
            "#[derive(Debug)]\npub fn f<'a>(x: &'a str) -> Vec<u8> { let c = 'x'; vec![1, 0x1f] } // end\n/* a /* nested */ still\n*/ struct Point; r#\"raw \"q\"\"#"
        ),
        [
            "a:#[derive(Debug)]",
            "k:pub",
            "k:fn",
            "f:f",
            "k:'a",
            "k:'a",
            "t:str",
            "t:Vec",
            "t:u8",
            "k:let",
            "s:'x'",
            "f:vec!",
            "n:1",
            "n:0x1f",
            "c:// end",
            "c:/* a /* nested */ still",
            "c:*/",
            "k:struct",
            "t:Point",
            "s:r#\"raw \"q\"\"#",
        ]
    );
}

#[test]
fn python() {
    assert_eq!(
        classes(
            "py",
            "@app.route('/x')\ndef go(self, n=1.5e-3):\n    \"\"\"Doc\n    more\"\"\"\n    return f'{n}' if n else None  # why\nclass Box(Base): pass"
        ),
        [
            "a:@app.route",
            "s:'/x'",
            "k:def",
            "f:go",
            "n:self",
            "n:1.5e-3",
            "s:\"\"\"Doc",
            "s:    more\"\"\"",
            "k:return",
            "s:f'{n}'",
            "k:if",
            "k:else",
            "n:None",
            "c:# why",
            "k:class",
            "t:Box",
            "t:Base",
            "k:pass",
        ]
    );
}

#[test]
fn javascript_template_literals_span_lines() {
    assert_eq!(
        classes(
            "ts",
            "const s = `a\nb`; interface Props { x: number }\nfoo(null)"
        ),
        [
            "k:const",
            "s:`a",
            "s:b`",
            "k:interface",
            "t:Props",
            "t:number",
            "f:foo",
            "n:null",
        ]
    );
}

#[test]
fn shell_comments_variables_and_apostrophes() {
    assert_eq!(
        classes(
            "sh",
            "if [ -n \"$HOME\" ]; then echo ${#x} $1 # note\nfi\necho don't"
        ),
        [
            "k:if",
            "s:\"$HOME\"",
            "k:then",
            "k:echo",
            "a:${#x}",
            "a:$1",
            "c:# note",
            "k:fi",
            "k:echo",
        ]
    );
}

#[test]
fn data_formats_mark_keys() {
    assert_eq!(
        classes("json", "{\"name\": \"x\", \"n\": -1.5, \"ok\": true}"),
        [
            "a:\"name\"",
            "s:\"x\"",
            "a:\"n\"",
            "n:1.5",
            "a:\"ok\"",
            "n:true"
        ]
    );
    // A key right after a string is a piece of its own, never laid over the string.
    assert_eq!(
        classes("json", "[\"a\"\"b\": 1]"),
        ["s:\"a\"", "a:\"b\"", "n:1"]
    );
    assert_eq!(
        classes(
            "yaml",
            "# top\nname: demo\n- run: cargo test # ci\n  on: yes\nurl: http://x"
        ),
        [
            "c:# top", "a:name", "a:run", "c:# ci", "a:on", "n:yes", "a:url",
        ]
    );
    assert_eq!(
        classes(
            "toml",
            "[package]\nname = \"scribe\" # it\nedition = 2024\ntext = '''\nraw\n'''"
        ),
        [
            "t:[package]",
            "a:name",
            "s:\"scribe\"",
            "c:# it",
            "a:edition",
            "n:2024",
            "a:text",
            "s:'''",
            "s:raw",
            "s:'''",
        ]
    );
}

#[test]
fn markup_tags_attributes_and_comments() {
    assert_eq!(
        classes(
            "html",
            "<!-- a\nb --><a href=\"x\"\n  class='y'>T &amp; U</a>"
        ),
        [
            "c:<!-- a", "c:b -->", "t:a", "a:href", "s:\"x\"", "a:class", "s:'y'", "n:&amp;",
            "t:a",
        ]
    );
}

#[test]
fn markdown_headings_code_and_fences() {
    assert_eq!(
        classes(
            "md",
            "# Title\nUse `cargo` now.\n```sh\n# not a heading\n```"
        ),
        ["k:# Title", "s:`cargo`"]
    );
}

#[test]
fn css_and_sql() {
    assert_eq!(
        classes(
            "css",
            "@media screen {\n  a:hover {\n    color: #fff !important;\n    width: calc(50% - 2px) }\n}"
        ),
        [
            "k:@media",
            "a:color",
            "n:#fff",
            "k:!important",
            "a:width",
            "f:calc",
            "n:50%",
            "n:2px",
        ]
    );
    assert_eq!(
        classes("sql", "SELECT id, count(*) FROM t WHERE x = 'it''s' -- c"),
        [
            "k:SELECT",
            "f:count",
            "k:FROM",
            "k:WHERE",
            "s:'it''s'",
            "c:-- c"
        ]
    );
}

#[test]
fn c_preprocessor_and_unicode_stay_whole() {
    assert_eq!(
        classes(
            "c",
            "#include <stdio.h>\nint main(void) { printf(\"é→%d\", 1); }"
        ),
        [
            "k:#include",
            "t:int",
            "f:main",
            "t:void",
            "f:printf",
            "s:\"é→%d\"",
            "n:1"
        ]
    );
    // Non-ASCII text outside strings is kept whole and on character boundaries.
    assert_eq!(
        classes("rust", "let é = \"ü\"; // ✓"),
        ["k:let", "s:\"ü\"", "c:// ✓"]
    );
}

#[test]
fn every_piece_is_on_a_character_boundary_for_any_input() {
    let samples = [
        "a\\é\"b'c`d/*e*/f#g$h@i<j>k&l;m'",
        "\"a\"\"b\": f\"c\"'d': x",
        "\"\\é",
        "'\\",
        "'é",
        "<a b='é",
        "${é",
        "# é",
        "`é",
        "[é",
        "#[é",
        "0xé1e+é",
    ];
    for lang in languages() {
        for s in samples {
            let mut hl = Highlighter::new(Some(lang));
            for _ in 0..2 {
                let segs = hl.line(s);
                let mut at = 0;
                for (r, _) in segs {
                    assert!(s.get(r.clone()).is_some(), "{}: {s:?} {r:?}", lang.name());
                    assert_eq!(r.start, at, "{}: {s:?}: a gap or an overlap", lang.name());
                    at = r.end;
                }
                assert_eq!(
                    segs.last().map(|(r, _)| r.end),
                    Some(s.len()),
                    "{}",
                    lang.name()
                );
            }
        }
    }
}

/// Text made of the pieces that open and close things, the quotes and the colon most often,
/// so that they meet (`"a""b":`, `/* "`, `<a b='`).
fn fragments() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let piece = prop_oneof![
        4 => Just("\""),
        3 => Just("'"),
        3 => Just(":"),
        2 => Just(" "),
        2 => Just("a"),
        1 => Just("`"),
        1 => Just("#"),
        1 => Just("$"),
        1 => Just("@"),
        1 => Just("<"),
        1 => Just(">"),
        1 => Just("&"),
        1 => Just("="),
        1 => Just("/*"),
        1 => Just("*/"),
        1 => Just("\\"),
        1 => Just("["),
        1 => Just("]"),
        1 => Just("{"),
        1 => Just("-"),
        1 => Just("1"),
        1 => Just("Z"),
        1 => Just("é"),
        1 => Just("\n"),
    ];
    proptest::collection::vec(piece, 0..48).prop_map(|p| p.concat())
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(2048))]
    /// Any text, in every language, line after line: the pieces of each line follow one
    /// another with no gap or overlap, on character boundaries, to the line's end.
    #[test]
    fn pieces_tile_every_line_of_any_text(text in fragments()) {
        for lang in languages() {
            let mut hl = Highlighter::new(Some(lang));
            for l in text.split('\n') {
                let mut at = 0;
                for (r, _) in hl.line(l) {
                    proptest::prop_assert_eq!(r.start, at, "{}: {:?}", lang.name(), l);
                    proptest::prop_assert!(l.get(r.clone()).is_some(), "{}: {:?}", lang.name(), l);
                    at = r.end;
                }
                proptest::prop_assert_eq!(at, l.len(), "{}: {:?}", lang.name(), l);
            }
        }
    }
}

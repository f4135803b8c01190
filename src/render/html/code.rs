//! Highlighted code on the page: the highlighter's classed pieces (`scribe_highlight`) written
//! as escaped text, a `<span class="h-…">` around each classed one. No script, no `style=`: the
//! stylesheet colours the seven classes for light and dark alike.

use scribe_highlight::{Class, Highlighter, Language, Segment};

use super::escape::{Html, Pieces};

/// The tag that opens a classed piece (`<span class="h-k">`, the class named by
/// [`Class::css`]), written whole: the page writes one for most words of the code it shows.
pub(crate) fn span_open(c: Class) -> &'static str {
    match c {
        Class::Comment => "<span class=\"h-c\">",
        Class::String => "<span class=\"h-s\">",
        Class::Number => "<span class=\"h-n\">",
        Class::Keyword => "<span class=\"h-k\">",
        Class::Function => "<span class=\"h-f\">",
        Class::Type => "<span class=\"h-t\">",
        Class::Attribute => "<span class=\"h-a\">",
    }
}

/// Writes one line's segments as escaped text in spans.
pub(crate) fn push_segments(h: &mut Html, line: &str, segments: &[Segment]) {
    let line = Pieces::new(line);
    for (r, class) in segments {
        match class {
            Some(c) => {
                h.raw_trusted(span_open(*c))
                    .text_piece(&line, r.clone())
                    .raw_trusted("</span>");
            }
            None => {
                h.text_piece(&line, r.clone());
            }
        }
    }
}

/// Writes a whole block (a fence, a file's content) highlighted for `lang`.
pub(crate) fn push_code(h: &mut Html, lang: Option<&'static Language>, code: &str) {
    let mut hl = Highlighter::new(lang);
    for (i, line) in split_lines(code).enumerate() {
        if i > 0 {
            h.raw_trusted("\n");
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        let segs = hl.line(line);
        push_segments(h, line, segs);
    }
}

/// The pieces of `text` between its newlines, as `text.split('\n')` gives them (the last one
/// too, empty or not), found with `memchr`: the page cuts every file and output it highlights
/// into lines, and `str::split`'s search goes a byte at a time.
pub(crate) fn split_lines(text: &str) -> impl Iterator<Item = &str> {
    let mut start = 0;
    memchr::memchr_iter(b'\n', text.as_bytes())
        .map(Some)
        .chain([None])
        .map(move |newline| {
            let end = newline.unwrap_or(text.len());
            let line = &text[start..end];
            start = end + 1;
            line
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        #[test]
        fn split_lines_is_split(text in "([ab\r\n]|é){0,12}") {
            proptest::prop_assert_eq!(
                split_lines(&text).collect::<Vec<_>>(),
                text.split('\n').collect::<Vec<_>>()
            );
        }
    }

    #[test]
    fn span_open_names_the_class() {
        use Class::*;
        for c in [Comment, String, Number, Keyword, Function, Type, Attribute] {
            assert_eq!(span_open(c), format!("<span class=\"{}\">", c.css()));
        }
    }

    #[test]
    fn rust_gets_classes_and_stays_escaped() {
        let mut h = Html::default();
        push_code(
            &mut h,
            scribe_highlight::language("rust"),
            "fn main() { let s = \"<b>\"; } // hi",
        );
        let out = h.as_str();
        assert!(out.contains("<span class=\"h-k\">fn</span>"), "{out}");
        assert!(
            out.contains("<span class=\"h-s\">\"&lt;b&gt;\"</span>"),
            "{out}"
        );
        assert!(out.contains("<span class=\"h-c\">// hi</span>"), "{out}");
        assert!(!out.contains("<b>"), "{out}");
    }
}

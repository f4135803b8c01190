//! A tool's output as a `<pre>`: colours kept (terminal escapes as spans), a file's lines
//! highlighted with their numbers set apart, and past [`PREVIEW_LINES`] lines the rest behind
//! "show all N lines".

use scribe_highlight::{Highlighter, Language};

use super::code::{push_segments, split_lines};
use super::escape::Html;
use super::open::PREVIEW_LINES;
use crate::render::sgr;

/// Writes an output of class `class`, highlighted for `lang` when it has one.
pub(super) fn push_pre(
    h: &mut Html,
    class: &'static str,
    text: &str,
    lang: Option<&'static Language>,
) {
    let body = text.strip_suffix('\n').unwrap_or(text);
    // A toggle that would hide two or three lines is not worth a click (`preview` says 0 more).
    let (shown, more) = crate::render::preview(text, PREVIEW_LINES);
    let pre = Pre {
        class,
        body,
        lang,
        cut: (more > 0).then(|| shown.len() - 1),
        more,
    };
    // A file read's lines are numbered nearly always: when its first and last lines are (a
    // reminder the harness added after them is not), they are written so in one walk, and the
    // output is written again from its start, without numbers, when a line turns out not to be.
    let start = h.len();
    if lang.is_some() && ends_numbered(body) && pre.write(h, true) {
        return;
    }
    h.truncate(start);
    pre.write(h, false);
}

/// One output being written.
struct Pre<'a> {
    class: &'static str,
    /// The text but for its last newline.
    body: &'a str,
    lang: Option<&'static Language>,
    /// Where the lines shown before the toggle end, when there is one.
    cut: Option<usize>,
    /// How many lines the toggle holds beyond [`PREVIEW_LINES`].
    more: usize,
}

/// How the lines of a highlighted output are written: the highlighter, line to line, and
/// whether each line's number is set apart from its code.
struct Lines {
    hl: Highlighter,
    numbered: bool,
}

impl Pre<'_> {
    /// Writes the output, with line numbers set apart where `numbered`; false (the output half
    /// written) when a line has no number.
    fn write(&self, h: &mut Html, numbered: bool) -> bool {
        let mut lines = Lines {
            hl: Highlighter::new(self.lang),
            numbered,
        };
        match self.cut {
            None => self.part(h, self.body, false, &mut lines),
            Some(at) => {
                if !self.part(h, &self.body[..at], false, &mut lines) {
                    return false;
                }
                h.show_all(PREVIEW_LINES + self.more);
                let written = self.part(h, &self.body[at + 1..], true, &mut lines);
                h.raw_trusted("</details>");
                written
            }
        }
    }

    /// One `<pre>`: the lines before the toggle, or (`rest`) those in it.
    fn part(&self, h: &mut Html, text: &str, rest: bool, lines: &mut Lines) -> bool {
        h.raw_trusted("<pre class=\"").raw_trusted(self.class);
        if rest {
            h.raw_trusted(" cont");
        }
        if self.lang.is_some() {
            h.raw_trusted(" hl\">");
            let ends_body = rest || self.cut.is_none();
            if !push_code_lines(h, text, lines, ends_body) {
                return false;
            }
        } else {
            h.raw_trusted("\">");
            sgr::push_ansi(h, text);
        }
        h.raw_trusted("</pre>");
        true
    }
}

/// True when the first and the last of the lines `body` must have numbered (all but an empty
/// last one) have a number, or there are none.
fn ends_numbered(body: &str) -> bool {
    let lines = body.strip_suffix('\n').unwrap_or(body);
    let bytes = lines.as_bytes();
    let first = memchr::memchr(b'\n', bytes).map_or(lines, |at| &lines[..at]);
    let last = memchr::memrchr(b'\n', bytes).map_or(lines, |at| &lines[at + 1..]);
    body.is_empty() || (split_number(first).is_some() && split_number(last).is_some())
}

/// `"    12→code"` → `("12", "code")`.
fn split_number(line: &str) -> Option<(&str, &str)> {
    let t = line.trim_start();
    let digits = t.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    let (n, rest) = t.split_at(digits);
    let code = rest.strip_prefix('\t').or_else(|| rest.strip_prefix('→'))?;
    Some((n, code))
}

/// Lines of a file, highlighted, with their numbers apart from the code where the lines are
/// numbered. False, and the lines half written, when a line that should have a number has none:
/// every line but an empty last one (`cat -n` numbers the lines a last newline ends, and the
/// body's own last newline is gone) when `text` `ends_body`.
fn push_code_lines(h: &mut Html, text: &str, lines: &mut Lines, ends_body: bool) -> bool {
    let mut start = 0;
    for (i, line) in split_lines(text).enumerate() {
        if i > 0 {
            h.raw_trusted("\n");
        }
        let split = lines.numbered.then(|| split_number(line)).flatten();
        let last = start + line.len() == text.len();
        start += line.len() + 1;
        if lines.numbered && split.is_none() && !(line.is_empty() && last && ends_body) {
            return false;
        }
        let code = match split {
            Some((n, code)) => {
                h.raw_trusted("<span class=\"ln\">")
                    .text(n)
                    .raw_trusted("</span>");
                code
            }
            None => line,
        };
        let segs = lines.hl.line(code);
        push_segments(h, code, segs);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    /// True when every line of the body starts with a line number and a tab or arrow, as the
    /// lines were checked before they were written.
    fn is_numbered(body: &str) -> bool {
        let lines = body.strip_suffix('\n').unwrap_or(body);
        body.is_empty() || split_lines(lines).all(|l| split_number(l).is_some())
    }

    proptest::proptest! {
        #[test]
        fn numbered_as_by_lines(text in "([0-9 x\t\r\n]|→){0,16}") {
            let by_lines = text.lines().all(|l| split_number(l).is_some());
            proptest::prop_assert_eq!(is_numbered(&text), by_lines);
        }

        /// Written in one walk, an output is what checking its lines first and then writing
        /// them gives.
        #[test]
        fn one_walk_numbers_as_a_check_first(
            text in "(( *[0-9]{1,3}(→|\t))?[a-z <&]{0,6}\n?){0,40}",
            lang in proptest::sample::select(vec!["rs", "py", "txt"]),
        ) {
            let lang = scribe_highlight::language(&format!("a.{lang}"));
            let mut one_walk = Html::default();
            push_pre(&mut one_walk, "out", &text, lang);
            let body = text.strip_suffix('\n').unwrap_or(&text);
            let (shown, more) = crate::render::preview(&text, PREVIEW_LINES);
            let pre = Pre { class: "out", body, lang, cut: (more > 0).then(|| shown.len() - 1), more };
            let numbered = lang.is_some() && is_numbered(body);
            let mut checked = Html::default();
            proptest::prop_assert!(pre.write(&mut checked, numbered) || !numbered);
            proptest::prop_assert_eq!(one_walk.as_str(), checked.as_str());
        }
    }
}

//! Makes untrusted text safe to print on a terminal (the rule `fd` uses for file names).
//!
//! Transcript content (tool output, file contents, model text) may hold escape sequences that
//! move the cursor, retitle the window, write the clipboard (OSC 52), open hyperlinks (OSC 8) or
//! forge scribe's own colours. Rather than strip them, which hides that they were there, every
//! such character is shown as a visible escape: C0 controls and DEL as `\x1b`, C1 controls,
//! bidi overrides and zero-width characters as `\u{202e}`. A lone carriage return (one not
//! followed by a line feed) is `\r`; `\r\n` becomes a line feed. Line feed and tab are kept.
//! The only escape sequences scribe writes are its own, from the palette.

use std::borrow::Cow;
use std::fmt::Write as _;

/// True for characters that must never reach the terminal as they are.
fn is_unsafe(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        // Bidi embeddings, overrides and isolates, marks that flip text direction.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}' => {
            true
        }
        // Zero-width characters that hide text or split words invisibly. The joiners U+200C and
        // U+200D are not among them: Persian, Indic scripts and emoji sequences need them.
        '\u{200b}' | '\u{2060}'..='\u{2064}' | '\u{feff}' => true,
        // Line and paragraph separators break lines where the renderer does not expect it.
        '\u{2028}' | '\u{2029}' => true,
        _ => false,
    }
}

/// Returns `text` with every unsafe character replaced by a visible escape; borrows when there
/// is nothing to replace (the common case).
pub(crate) fn sanitize(text: &str) -> Cow<'_, str> {
    if !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\r' && chars.peek() == Some(&'\n') {
            continue;
        }
        if !is_unsafe(c) {
            out.push(c);
        } else if c == '\r' {
            out.push_str("\\r");
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            let _ = write!(out, "\\u{{{:x}}}", c as u32);
        }
    }
    Cow::Owned(out)
}

#[cfg(test)]
mod tests {
    use super::sanitize;

    #[test]
    fn joiners_that_scripts_need_are_kept() {
        for t in ["می\u{200c}خواهم", "👨\u{200d}👩\u{200d}👧", "क्\u{200d}ष"] {
            assert_eq!(sanitize(t), t);
        }
    }

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(
            sanitize("hello\n\tworld"),
            std::borrow::Cow::Borrowed(_)
        ));
    }

    #[test]
    fn escape_sequences_become_visible() {
        assert_eq!(sanitize("\x1b]0;pwned\x07"), "\\x1b]0;pwned\\x07");
        assert_eq!(sanitize("\x1b[2J"), "\\x1b[2J");
        assert_eq!(sanitize("a\u{9b}31m"), "a\\u{9b}31m");
        assert_eq!(sanitize("\u{7f}"), "\\x7f");
    }

    #[test]
    fn bidi_and_zero_width_become_visible() {
        assert_eq!(sanitize("abc\u{202e}txt.exe"), "abc\\u{202e}txt.exe");
        assert_eq!(sanitize("a\u{200b}b\u{feff}"), "a\\u{200b}b\\u{feff}");
    }

    #[test]
    fn carriage_returns() {
        assert_eq!(sanitize("one\r\ntwo"), "one\ntwo");
        assert_eq!(
            sanitize("progress 10%\rprogress 99%"),
            "progress 10%\\rprogress 99%"
        );
        assert_eq!(sanitize("end\r"), "end\\r");
    }
}

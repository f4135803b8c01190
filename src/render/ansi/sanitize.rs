//! Makes untrusted text safe to print on a terminal (the rule `fd` uses for file names).
//!
//! Transcript content (tool output, file contents, model text) may hold escape sequences that
//! move the cursor, retitle the window, write the clipboard (OSC 52), open hyperlinks (OSC 8) or
//! forge scribe's own colours, and invisible characters that hide text from the reader while a
//! model still reads it (Unicode tag characters U+E0000–E007F spell out ASCII unseen). Rather
//! than strip them, which hides that they were there, every such character is shown as a visible
//! escape: C0 controls and DEL as `\x1b`; C1 controls, bidi controls, zero-width and other
//! invisible characters as `<U+202E>`. A lone carriage return (one not followed by a line feed)
//! is `\r`; `\r\n` becomes a line feed. Line feed and tab are kept. The only escape sequences
//! scribe writes are its own, from the palette. Markdown output uses the same escapes and HTML
//! marks the same characters ([`is_invisible`]).

use std::borrow::Cow;
use std::fmt::Write as _;

/// True for characters that must never reach the terminal as they are.
fn is_unsafe(c: char) -> bool {
    match c {
        '\n' | '\t' => false,
        '\u{0}'..='\u{1f}' | '\u{7f}'..='\u{9f}' => true,
        _ => is_invisible(c),
    }
}

/// True for a non-ASCII character that a reader cannot see but a program (or a model) reads:
/// bidi controls, zero-width and other default-ignorable characters, tag characters. The joiners
/// U+200C and U+200D and the variation selectors U+FE00–FE0F are not among them: Persian, Indic
/// scripts and emoji sequences need them. (Tag characters inside an emoji flag sequence are
/// allowed by [`sanitize`], not here.)
pub(crate) fn is_invisible(c: char) -> bool {
    matches!(c,
        // Bidi embeddings, overrides and isolates, marks that flip text direction.
        '\u{202a}'..='\u{202e}' | '\u{2066}'..='\u{2069}' | '\u{200e}' | '\u{200f}' | '\u{61c}'
        // Zero-width characters that hide text or split words invisibly.
        | '\u{200b}' | '\u{2060}'..='\u{2064}' | '\u{feff}'
        // Soft hyphen, combining grapheme joiner, Hangul and Mongolian fillers, deprecated format
        // characters, interlinear annotation: invisible in running text.
        | '\u{ad}' | '\u{34f}' | '\u{115f}' | '\u{1160}' | '\u{17b4}' | '\u{17b5}' | '\u{180e}'
        | '\u{3164}' | '\u{ffa0}' | '\u{206a}'..='\u{206f}' | '\u{fff9}'..='\u{fffb}'
        | '\u{1d173}'..='\u{1d17a}'
        // Line and paragraph separators break lines where the renderer does not expect it.
        | '\u{2028}' | '\u{2029}'
        // Tag characters (ASCII smuggling) and the supplementary variation selectors.
        | '\u{e0000}'..='\u{e007f}' | '\u{e0100}'..='\u{e01ef}'
    )
}

/// The visible form of an invisible non-ASCII character: `<U+E0049>`.
pub(crate) fn visible_code(c: char) -> String {
    format!("<U+{:04X}>", c as u32)
}

/// True when `chars` (just after a U+1F3F4 waving black flag) is an emoji tag sequence: a few
/// tag letters or digits closed by the cancel tag U+E007F (the flags of England, Scotland, Wales).
fn flag_tags_follow(rest: &str) -> Option<usize> {
    let mut len = 0;
    for (n, c) in rest.chars().enumerate() {
        match c {
            '\u{e007f}' if n >= 2 => return Some(len + c.len_utf8()),
            '\u{e0030}'..='\u{e0039}' | '\u{e0061}'..='\u{e007a}' if n < 7 => len += c.len_utf8(),
            _ => return None,
        }
    }
    None
}

/// Returns `text` with every unsafe character replaced by a visible escape; borrows when there
/// is nothing to replace (the common case).
pub(crate) fn sanitize(text: &str) -> Cow<'_, str> {
    // Printable ASCII, newlines and tabs: a byte scan the compiler vectorizes says so at once.
    let plain = text
        .bytes()
        .all(|b| (0x20..0x7f).contains(&b) || b == b'\n' || b == b'\t');
    if plain || !text.chars().any(is_unsafe) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        rest = &rest[c.len_utf8()..];
        if c == '\r' && rest.starts_with('\n') {
            continue;
        }
        if c == '\u{1f3f4}' {
            if let Some(n) = flag_tags_follow(rest) {
                out.push(c);
                out.push_str(&rest[..n]);
                rest = &rest[n..];
                continue;
            }
        }
        if !is_unsafe(c) {
            out.push(c);
        } else if c == '\r' {
            out.push_str("\\r");
        } else if (c as u32) < 0x80 {
            let _ = write!(out, "\\x{:02x}", c as u32);
        } else {
            out.push_str(&visible_code(c));
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
        assert_eq!(sanitize("a\u{9b}31m"), "a<U+009B>31m");
        assert_eq!(sanitize("\u{7f}"), "\\x7f");
    }

    #[test]
    fn bidi_and_zero_width_become_visible() {
        assert_eq!(sanitize("abc\u{202e}txt.exe"), "abc<U+202E>txt.exe");
        assert_eq!(sanitize("a\u{200b}b\u{feff}"), "a<U+200B>b<U+FEFF>");
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

    #[test]
    fn tag_characters_become_visible() {
        // "hi" smuggled in tag characters after a visible word.
        assert_eq!(
            sanitize("ok\u{e0001}\u{e0068}\u{e0069}\u{e007f}"),
            "ok<U+E0001><U+E0068><U+E0069><U+E007F>"
        );
        assert_eq!(sanitize("a\u{e0100}\u{ad}b"), "a<U+E0100><U+00AD>b");
    }

    #[test]
    fn emoji_flag_tag_sequences_are_kept() {
        let england = "\u{1f3f4}\u{e0067}\u{e0062}\u{e0065}\u{e006e}\u{e0067}\u{e007f}";
        assert_eq!(sanitize(england), england);
        // A flag followed by a long tag run is not a flag sequence.
        let smuggled = format!("\u{1f3f4}{}\u{e007f}", "\u{e0061}".repeat(20));
        assert!(sanitize(&smuggled).contains("<U+E0061>"));
    }
}

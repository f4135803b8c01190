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

/// The emoji tag sequences that are flags (of England, Scotland and Wales), as the ASCII their
/// tag characters spell; any other run of tags after a flag hides text and is shown.
const FLAG_TAGS: [&str; 3] = ["gbeng", "gbsct", "gbwls"];

/// The length of the emoji tag sequence that begins `rest` (just after a U+1F3F4 waving black
/// flag) when it is one of the three flags: its tag letters closed by the cancel tag U+E007F.
fn flag_tags_follow(rest: &str) -> Option<usize> {
    let mut spelled = String::new();
    for (at, c) in rest.char_indices().take(7) {
        match c {
            '\u{e007f}' => {
                return FLAG_TAGS
                    .contains(&spelled.as_str())
                    .then_some(at + c.len_utf8());
            }
            '\u{e0030}'..='\u{e0039}' | '\u{e0061}'..='\u{e007a}' => {
                spelled.push(char::from((c as u32 - 0xe0000) as u8));
            }
            _ => return None,
        }
    }
    None
}

/// The bytes that may begin a character [`sanitize`] must look at: every byte but printable
/// ASCII, line feed and tab is a C0 control or DEL; past ASCII, only the UTF-8 lead bytes of
/// the characters [`is_invisible`] names (and of the waving flag that may begin an emoji tag
/// sequence). Continuation bytes and every other lead byte begin nothing unsafe, so a text in
/// Cyrillic, Greek or most of CJK is passed over a byte at a time without decoding a character
/// (`sanitize` took a tenth of a Markdown run). A test checks the table against
/// [`is_unsafe`] for every character.
const MAY_BEGIN_UNSAFE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 0x80 {
        table[b] = (b < 0x20 || b == 0x7f) && b != b'\n' as usize && b != b'\t' as usize;
        b += 1;
    }
    // U+0080–U+00AD, U+034F, U+061C, U+115F–U+180E, U+200B–U+206F, U+3164,
    // U+FEFF–U+FFFB, U+1D173–U+1D17A and U+1F3F4, U+E0000–U+E01EF.
    let leads = [0xc2, 0xcd, 0xd8, 0xe1, 0xe2, 0xe3, 0xef, 0xf0, 0xf3];
    let mut i = 0;
    while i < leads.len() {
        table[leads[i]] = true;
        i += 1;
    }
    table
};

/// Where the first character that [`sanitize`] changes, or the first waving flag (which it
/// reads together with the tags after it), begins in `text`: `None` when there is none.
fn first_to_look_at(text: &str) -> Option<usize> {
    let bytes = text.as_bytes();
    let mut at = 0;
    loop {
        at += bytes[at..]
            .iter()
            .position(|&b| MAY_BEGIN_UNSAFE[usize::from(b)])?;
        // The table marks ASCII and lead bytes only, so `at` is on a character boundary.
        let c = text[at..].chars().next()?;
        if is_unsafe(c) || c == '\u{1f3f4}' {
            return Some(at);
        }
        at += c.len_utf8();
    }
}

/// The frames of one line a program redrew with carriage returns (a progress meter): the text
/// up to each lone CR, that CR included, then what follows the last one. A terminal shows the
/// last frame only; the views show each frame on a line of its own, so that no frame hides
/// another and the words on either side of a CR stay apart. A CR that ends the line, or that
/// another CR follows, ends no frame.
pub(crate) fn cr_frames(line: &str) -> Vec<&str> {
    let bytes = line.as_bytes();
    let mut frames = Vec::new();
    let mut start = 0;
    for (i, _) in line.match_indices('\r') {
        if bytes.get(i + 1).is_some_and(|&b| b != b'\r' && b != b'\n') {
            frames.push(&line[start..=i]);
            start = i + 1;
        }
    }
    frames.push(&line[start..]);
    frames
}

/// The text with each frame of its lines ([`cr_frames`]) on a line of its own: a line feed
/// after each CR that ends a frame, which [`sanitize`] then reads as a CRLF's line feed, and a
/// view that sanitizes line by line shows as `\r` at the frame's end. Borrowed when the text
/// holds no CR.
pub(crate) fn frames_on_lines(text: &str) -> Cow<'_, str> {
    if !text.contains('\r') {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        let frames = cr_frames(line);
        let last = frames.len() - 1;
        for (j, frame) in frames.into_iter().enumerate() {
            out.push_str(frame);
            if j < last {
                out.push('\n');
            }
        }
    }
    Cow::Owned(out)
}

/// Returns `text` with every unsafe character replaced by a visible escape; borrows when there
/// is nothing to replace (the common case).
pub(crate) fn sanitize(text: &str) -> Cow<'_, str> {
    let Some(first) = first_to_look_at(text) else {
        return Cow::Borrowed(text);
    };
    if !text[first..].chars().any(is_unsafe) {
        // Only a waving flag, and nothing unsafe after it.
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 16);
    out.push_str(&text[..first]);
    let mut rest = &text[first..];
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
    use super::{MAY_BEGIN_UNSAFE, first_to_look_at, is_unsafe, sanitize};

    /// Every character that must be escaped, and the waving flag, begins with a byte the scan
    /// stops at; so a text the scan passes over whole holds nothing to escape.
    #[test]
    fn the_scan_stops_at_every_unsafe_character() {
        for c in (0..=0x10ffff_u32).filter_map(char::from_u32) {
            if is_unsafe(c) || c == '\u{1f3f4}' {
                let mut buf = [0; 4];
                let lead = c.encode_utf8(&mut buf).as_bytes()[0];
                assert!(MAY_BEGIN_UNSAFE[usize::from(lead)], "{:04X}", c as u32);
                assert_eq!(first_to_look_at(&format!("ab\u{e9}\u{4e2d}{c}z")), Some(7));
            }
        }
        for text in ["plain ascii\n\tok", "Привет, мир", "中文字符", "é ü ß", ""] {
            assert_eq!(first_to_look_at(text), None, "{text}");
            assert!(matches!(sanitize(text), std::borrow::Cow::Borrowed(_)));
        }
        // A lead byte the table marks whose character is safe is passed over.
        assert_eq!(first_to_look_at("\u{e9}\u{2014}\u{3042}x\u{1b}"), Some(9));
        assert_eq!(sanitize("a\u{2014}b\u{1b}c"), "a\u{2014}b\\x1bc");
    }

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
        // Short tag runs that spell words, not one of the three flags, are shown too.
        let tags = |word: &str| -> String {
            word.chars()
                .map(|c| char::from_u32(0xe0000 + c as u32).unwrap())
                .collect()
        };
        for word in ["hi", "ignore", "gbxyz", "gbengx"] {
            let hidden = format!("\u{1f3f4}{}\u{e007f}", tags(word));
            assert!(sanitize(&hidden).contains("<U+E007F>"), "{word}");
        }
        for flag in ["gbeng", "gbsct", "gbwls"] {
            let shown = format!("\u{1f3f4}{}\u{e007f}", tags(flag));
            assert_eq!(sanitize(&shown), shown, "{flag}");
        }
    }
}

//! The boundary between untrusted transcript text and HTML (style.md §3, habit 9).
//!
//! Every byte of the page goes through [`Html`]: `text` escapes for text nodes, `attr` for
//! double-quoted attribute values, and the one unescaped path is `raw_trusted`, which takes only
//! markup written in this crate (literal tags) or the output of the filtered Markdown renderer.
//! URLs pass [`safe_href`] (a scheme allowlist) or [`safe_image_src`] before they reach an
//! attribute.

use std::ops::Range;

use crate::sanitize::{is_invisible, visible_code};

/// An HTML fragment under construction; the only way the renderer writes markup.
#[derive(Debug, Default)]
pub(crate) struct Html {
    buf: String,
    /// `--full`: the "show all N lines" toggles of long outputs and diffs start open.
    toggles_open: bool,
}

impl Html {
    /// A buffer whose "show all" toggles start open (`--full`) or closed.
    pub(crate) fn with_toggles_open(open: bool) -> Html {
        Html {
            buf: String::new(),
            toggles_open: open,
        }
    }

    /// Opens the toggle that holds the rest of a long output or diff of `total` lines: closed
    /// on load unless `--full`.
    pub(crate) fn show_all(&mut self, total: usize) -> &mut Html {
        self.raw_trusted(if self.toggles_open {
            "<details class=\"more\" open><summary>show all "
        } else {
            "<details class=\"more\"><summary>show all "
        })
        .num(total)
        .raw_trusted(" lines</summary>")
    }

    /// Appends untrusted text for a text node. An invisible character (a tag character, a
    /// zero-width space, a bidi control) is written as a marked, visible `<U+E0049>`.
    pub(crate) fn text(&mut self, s: &str) -> &mut Html {
        push_escaped(&mut self.buf, s, false);
        self
    }

    /// Appends the piece `range` of a line checked once ([`Pieces`]): copied as it is when the
    /// line holds nothing to escape, escaped as [`Html::text`] does otherwise. Nothing for a
    /// range that is not on the line's character boundaries.
    pub(crate) fn text_piece(&mut self, line: &Pieces<'_>, range: Range<usize>) -> &mut Html {
        match line.text.get(range) {
            Some(piece) if line.plain => self.buf.push_str(piece),
            Some(piece) => push_escaped(&mut self.buf, piece, false),
            None => {}
        }
        self
    }

    /// Appends untrusted text for the inside of a double-quoted attribute value.
    pub(crate) fn attr(&mut self, s: &str) -> &mut Html {
        push_escaped(&mut self.buf, s, true);
        self
    }

    /// Appends markup as is. Only for literal tags written in this module tree and for the
    /// output of `markdown::push_markdown` (whose events are filtered). Grep for it.
    pub(crate) fn raw_trusted(&mut self, s: &str) -> &mut Html {
        self.buf.push_str(s);
        self
    }

    /// Appends an integer (digits never need escaping; only integer types are accepted, so this
    /// is not a second raw path).
    pub(crate) fn num(&mut self, n: impl Integer) -> &mut Html {
        let (negative, n) = n.split();
        if negative {
            self.buf.push('-');
        }
        push_digits(&mut self.buf, n);
        self
    }

    /// The markup written so far.
    pub(crate) fn as_str(&self) -> &str {
        &self.buf
    }

    /// How many bytes were written so far: where [`Html::truncate`] goes back to.
    pub(crate) fn len(&self) -> usize {
        self.buf.len()
    }

    /// Forgets what was written since `len` (a length [`Html::len`] gave: never inside a
    /// character or a tag, as every write ends whole).
    pub(crate) fn truncate(&mut self, len: usize) {
        self.buf.truncate(len);
    }

    /// The markup written, as a string of its own.
    pub(crate) fn into_string(self) -> String {
        self.buf
    }

    /// Forgets what was written, keeping the allocation (one buffer serves every item).
    pub(crate) fn clear(&mut self) {
        self.buf.clear();
    }
}

/// A line the page writes in many pieces (highlighted code, a diff line), checked once in one
/// pass for anything a text node escapes, so that the pieces of a line that holds none (most
/// lines of code) are copied without looking at their bytes again.
pub(crate) struct Pieces<'a> {
    text: &'a str,
    /// True when `text` has no byte [`push_escaped`] stops at (so no non-ASCII character).
    plain: bool,
}

impl<'a> Pieces<'a> {
    /// Checks `text`.
    pub(crate) fn new(text: &'a str) -> Pieces<'a> {
        Pieces {
            text,
            plain: next_stop(text.as_bytes(), 0, false) == text.len(),
        }
    }
}

/// Appends the decimal digits of `n`, worked out digit by digit and copied at once: the page
/// writes a few numbers a timeline mark and one in every anchor.
fn push_digits(out: &mut String, mut n: u64) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&digits[at..]).unwrap_or_default());
}

/// `parent`, then `sep`, then `n` (`t3-c2`): the id of a turn, a card or a nested turn, made
/// without `format!` (the page makes one or two for every card).
pub(crate) fn numbered_id(parent: &str, sep: &str, n: impl Integer) -> String {
    let (negative, n) = n.split();
    let mut id = String::with_capacity(parent.len() + sep.len() + 4);
    id.push_str(parent);
    id.push_str(sep);
    if negative {
        id.push('-');
    }
    push_digits(&mut id, n);
    id
}

/// The integer types `Html::num` accepts.
pub(crate) trait Integer {
    /// Whether it is below zero, and its magnitude.
    fn split(self) -> (bool, u64);
}

impl Integer for u64 {
    fn split(self) -> (bool, u64) {
        (false, self)
    }
}

impl Integer for i64 {
    fn split(self) -> (bool, u64) {
        (self < 0, self.unsigned_abs())
    }
}

impl Integer for usize {
    fn split(self) -> (bool, u64) {
        (false, self as u64)
    }
}

impl<T: Integer + Copy> Integer for &T {
    fn split(self) -> (bool, u64) {
        (*self).split()
    }
}

/// The markup that shows an invisible character: `<U+E0049>` in a `mark.invisible` (styled by
/// the page so a reader sees that something was hidden there).
pub(crate) fn invisible_mark(c: char) -> String {
    let mut out = String::new();
    push_invisible_mark(&mut out, c);
    out
}

fn push_invisible_mark(out: &mut String, c: char) {
    let code = visible_code(c);
    out.push_str("<mark class=\"invisible\" title=\"invisible character ");
    out.push_str(&code[1..code.len() - 1]);
    out.push_str("\">");
    push_escaped(out, &code, false);
    out.push_str("</mark>");
}

/// Appends `s` escaped: `&`, `<`, `>` always (NUL becomes U+FFFD, as HTML would make it), `"`
/// and `'` too in an attribute (`attr`); an invisible character becomes a marked `<U+…>` in a
/// text node and the plain text `&lt;U+…&gt;` in an attribute. One pass over the bytes: a
/// character is decoded only where a non-ASCII one starts, and runs that need nothing are
/// copied whole.
fn push_escaped(out: &mut String, s: &str, attr: bool) {
    let bytes = s.as_bytes();
    let mut start = 0;
    let mut i = 0;
    loop {
        i = next_stop(bytes, i, attr);
        let Some(&b) = bytes.get(i) else {
            break;
        };
        if b.is_ascii() {
            let with = match b {
                b'&' => "&amp;",
                b'<' => "&lt;",
                b'>' => "&gt;",
                b'"' => "&quot;",
                b'\'' => "&#39;",
                _ => "\u{FFFD}",
            };
            out.push_str(&s[start..i]);
            out.push_str(with);
            i += 1;
            start = i;
            continue;
        }
        // `i` is where a character starts: every step before moved over whole characters
        // (a stop is never a continuation byte).
        let Some(c) = s[i..].chars().next() else {
            break;
        };
        let len = c.len_utf8();
        if is_invisible(c) {
            out.push_str(&s[start..i]);
            if attr {
                push_escaped(out, &visible_code(c), false);
            } else {
                push_invisible_mark(out, c);
            }
            start = i + len;
        }
        i += len;
    }
    out.push_str(&s[start..]);
}

/// Where the first byte at or after `i` that [`push_escaped`] stops at is (`bytes.len()` when
/// there is none). `i` is where a character starts, so the first byte of a non-ASCII character
/// met is the first of its bytes: eight bytes are tested at once while eight are left, then one
/// at a time.
fn next_stop(bytes: &[u8], mut i: usize, attr: bool) -> usize {
    while let Some(chunk) = bytes.get(i..i + 8) {
        let Ok(eight) = <[u8; 8]>::try_from(chunk) else {
            break;
        };
        let hits = stop_bits(u64::from_le_bytes(eight), attr);
        if hits != 0 {
            return i + (hits.trailing_zeros() / 8) as usize;
        }
        i += 8;
    }
    let stops = if attr { &ATTR_STOPS } else { &TEXT_STOPS };
    while bytes.get(i).is_some_and(|&b| !stops[usize::from(b)]) {
        i += 1;
    }
    i
}

/// Eight bytes (little-endian) to a mask whose lowest set bit is the top bit of the first byte
/// that is a stop or non-ASCII: NUL, `&`, `<`, `>`, and `"` and `'` in an attribute.
fn stop_bits(word: u64, attr: bool) -> u64 {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const TOPS: u64 = 0x8080_8080_8080_8080;
    // The top bit of each zero byte of `x` (exact up to its first zero byte, which is all the
    // caller reads: a borrow only runs upward).
    let zeros = |x: u64| x.wrapping_sub(ONES) & !x & TOPS;
    // `<` and `>` differ only in one bit.
    let angle = zeros((word | (ONES * 0x02)) ^ (ONES * u64::from(b'>')));
    let hits = zeros(word) | angle | (word & TOPS);
    if attr {
        // `&` and `'` differ only in their lowest bit.
        hits | zeros((word | ONES) ^ (ONES * u64::from(b'\'')))
            | zeros(word ^ (ONES * u64::from(b'"')))
    } else {
        hits | zeros(word ^ (ONES * u64::from(b'&')))
    }
}

/// The bytes [`push_escaped`] stops at in a text node: `&`, `<`, `>`, NUL and the first byte of
/// every non-ASCII character (it may be invisible). Continuation bytes are skipped.
static TEXT_STOPS: [bool; 256] = stops(b"&<>\0");
/// The same in an attribute value: also `"` and `'`.
static ATTR_STOPS: [bool; 256] = stops(b"&<>\0\"'");

const fn stops(ascii: &[u8]) -> [bool; 256] {
    let mut t = [false; 256];
    let mut i = 0;
    while i < ascii.len() {
        t[ascii[i] as usize] = true;
        i += 1;
    }
    let mut b = 0xC0;
    while b < 256 {
        t[b] = true;
        b += 1;
    }
    t
}

/// The URL when a link to it is safe to follow: `http:`, `https:`, `mailto:` (scheme matched
/// case-insensitively at the very first byte, so `\tjavascript:` or ` java\nscript:` never pass)
/// and in-page `#anchors`. Everything else (`javascript:`, `data:`, `vbscript:`, relative paths
/// that would resolve against `file://`) is refused and shown as text by the caller.
pub(crate) fn safe_href(url: &str) -> Option<&str> {
    if url.starts_with('#') {
        return Some(url);
    }
    // Compared as bytes: slicing the string could land inside a multi-byte character.
    let lower_prefix = |p: &str| {
        url.as_bytes()
            .get(..p.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(p.as_bytes()))
    };
    let ok = lower_prefix("https://") || lower_prefix("http://") || lower_prefix("mailto:");
    (ok && !url.chars().any(|c| c.is_control())).then_some(url)
}

/// The URL when it may be the `src` of an `<img>`: a base64 `data:` URL of an image media type
/// (the only images a self-contained page may show; anything else would be a network request).
pub(crate) fn safe_image_src<'a>(media_type: &str, url: &'a str) -> Option<&'a str> {
    if !is_image_media_type(media_type) {
        return None;
    }
    let rest = url.strip_prefix("data:")?;
    let (mt, data) = rest.split_once(";base64,")?;
    let b64 = |c: u8| c.is_ascii_alphanumeric() || matches!(c, b'+' | b'/' | b'=');
    (mt.eq_ignore_ascii_case(media_type) && data.bytes().all(b64)).then_some(url)
}

/// `image/<subtype>` with a plain token subtype (`image/png`, `image/svg+xml`).
fn is_image_media_type(mt: &str) -> bool {
    let Some(sub) = mt.strip_prefix("image/") else {
        return false;
    };
    !sub.is_empty()
        && sub
            .bytes()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, b'.' | b'+' | b'-'))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_ascii_urls_do_not_panic() {
        assert_eq!(safe_href("a日本語.md"), None);
        assert_eq!(safe_href("日"), None);
        assert_eq!(safe_href("https://例え.jp/"), Some("https://例え.jp/"));
    }

    fn text(s: &str) -> String {
        let mut h = Html::default();
        h.text(s);
        h.as_str().to_owned()
    }

    fn attr(s: &str) -> String {
        let mut h = Html::default();
        h.attr(s);
        h.as_str().to_owned()
    }

    #[test]
    fn numbers_as_display_writes_them() {
        for n in [0i64, 7, -7, 10, 1_234_567, i64::MIN, i64::MAX] {
            let mut h = Html::default();
            let size = n.unsigned_abs() as usize;
            let by_ref = &size;
            h.num(n).num(n.unsigned_abs()).num(by_ref);
            assert_eq!(
                h.as_str(),
                format!("{n}{}{}", n.unsigned_abs(), n.unsigned_abs())
            );
        }
    }

    #[test]
    fn numbered_ids_as_format_writes_them() {
        for n in [0u64, 1, 9, 10, 12_345, u64::MAX] {
            assert_eq!(numbered_id("t3", "-c", n), format!("t3-c{n}"));
        }
    }

    #[test]
    fn text_and_attr_escapes() {
        assert_eq!(text("a<b>&\"'"), "a&lt;b&gt;&amp;\"'");
        assert_eq!(attr("x\" onerror='y'"), "x&quot; onerror=&#39;y&#39;");
        assert_eq!(text("plain"), "plain");
        assert_eq!(text("a\0b"), "a\u{FFFD}b");
        assert_eq!(
            text("é<日\u{200b}x"),
            "é&lt;日<mark class=\"invisible\" title=\"invisible character U+200B\">\
             &lt;U+200B&gt;</mark>x"
        );
        assert_eq!(attr("é\u{e0049}\"日"), "é&lt;U+E0049&gt;&quot;日");
    }

    /// The escaping of the old renderer, character by character: the one-pass byte scan must
    /// write exactly this.
    fn reference(s: &str, attr: bool) -> String {
        let mut out = String::new();
        for c in s.chars() {
            match c {
                '&' => out.push_str("&amp;"),
                '<' => out.push_str("&lt;"),
                '>' => out.push_str("&gt;"),
                '\0' => out.push('\u{FFFD}'),
                '"' if attr => out.push_str("&quot;"),
                '\'' if attr => out.push_str("&#39;"),
                c if is_invisible(c) && attr => {
                    out.push_str(&visible_code(c).replace('<', "&lt;").replace('>', "&gt;"))
                }
                c if is_invisible(c) => out.push_str(&invisible_mark(c)),
                c => out.push(c),
            }
        }
        out
    }

    proptest::proptest! {
        #[test]
        fn one_pass_escaping_matches_the_reference(
            s in "([a-z<>&\"'\\x00 é日😀]|\u{200b}|\u{202e}|\u{ad}|\u{e0049}|\u{fffa}|\u{1d173}){0,40}"
        ) {
            proptest::prop_assert_eq!(text(&s), reference(&s, false));
            proptest::prop_assert_eq!(attr(&s), reference(&s, true));
        }
    }

    proptest::proptest! {
        #[test]
        fn pieces_of_a_line_as_text(
            s in "([a-z<>&\"'\\x00 é日]|\u{200b}){0,40}",
            cuts in proptest::collection::vec(0usize..48, 0..6)
        ) {
            let line = Pieces::new(&s);
            let at: Vec<usize> = cuts.into_iter().filter(|&c| s.is_char_boundary(c)).collect();
            let mut sorted = at.clone();
            sorted.extend([0, s.len()]);
            sorted.sort_unstable();
            let (mut pieces, mut whole) = (Html::default(), Html::default());
            // The line tiled in order, then pieces in any order (apart, overlapping, backwards).
            let in_order = sorted.windows(2).map(|w| (w[0], w[1]));
            for (a, b) in in_order.chain(at.windows(2).map(|w| (w[0], w[1].max(w[0])))) {
                pieces.text_piece(&line, a..b);
                whole.text(&s[a..b]);
            }
            proptest::prop_assert_eq!(pieces.as_str(), whole.as_str());
        }
    }

    #[test]
    fn a_stop_past_eight_clean_bytes_is_found() {
        for stop in ["&", "<", ">", "\0", "é", "\u{200b}"] {
            for at in 0..20 {
                let s = format!("{}{stop}{}", "a".repeat(at), "b".repeat(20 - at));
                assert_eq!(next_stop(s.as_bytes(), 0, false), at, "{s:?}");
                assert_eq!(next_stop(s.as_bytes(), 0, true), at, "{s:?}");
            }
        }
        for stop in ["\"", "'"] {
            let s = format!("{}{stop}", "a".repeat(13));
            assert_eq!(next_stop(s.as_bytes(), 0, true), 13);
            assert_eq!(next_stop(s.as_bytes(), 0, false), 14);
        }
        assert!(!Pieces::new("plain ascii line & more").plain);
        assert!(Pieces::new("plain ascii line, nothing more").plain);
    }

    #[test]
    fn hrefs_allowlisted() {
        for ok in ["https://x.org/a?b", "HTTP://x", "mailto:a@b", "#t12"] {
            assert_eq!(safe_href(ok), Some(ok), "{ok}");
        }
        for bad in [
            "javascript:alert(1)",
            "JaVaScRiPt:alert(1)",
            " javascript:x",
            "\tjavascript:x",
            "java\nscript:x",
            "data:text/html,<script>",
            "vbscript:x",
            "file:///etc/passwd",
            "relative/path",
            "//evil.org/x",
            "https://x\u{0}y",
            "",
        ] {
            assert_eq!(safe_href(bad), None, "{bad:?}");
        }
    }

    #[test]
    fn images_only_data_image() {
        let png = "data:image/png;base64,iVBORw0K+/=";
        assert_eq!(safe_image_src("image/png", png), Some(png));
        assert_eq!(
            safe_image_src("text/html", "data:text/html;base64,PHNj"),
            None
        );
        assert_eq!(
            safe_image_src("image/png\" onerror=\"x", "data:image/png;base64,AA"),
            None
        );
        assert_eq!(safe_image_src("image/png", "https://x.org/a.png"), None);
        assert_eq!(
            safe_image_src("image/png", "data:image/png;base64,A\"B"),
            None
        );
        assert_eq!(
            safe_image_src("image/png", "data:image/gif;base64,AA"),
            None
        );
    }
}

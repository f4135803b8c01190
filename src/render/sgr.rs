//! Terminal colours in text, parsed once and drawn two ways: as classed spans in HTML
//! (`ESC[32m` → `<span class="a-f2">`), and as styled runs the text view draws in its own
//! styles; Markdown (and search) keep the words only (`strip`).
//!
//! Test runners, compilers, `git`, local commands (`/context`, `/cost`) and `!` shell commands
//! colour their output, and the transcript keeps those escape sequences. The bytes are parsed by
//! `anstyle-parse` (the VT state machine of the `anstyle` family, not a hand-written one): SGR
//! sequences (`CSI … m`) set the style of the text that follows, every other escape (cursor
//! moves, OSC titles and links, DCS strings) is dropped, and so are control characters other
//! than newline and tab; an escape still open when the text ends keeps what follows it as plain
//! text (see `runs`). No byte of an escape from the input is ever written.
//!
//! In HTML, colours are CSS classes (`a-f0`…`a-f15` foreground, `a-g0`…`a-g15` background, `a-b`
//! bold, `a-d` dim, `a-i` italic, `a-u` underline), never `style=` attributes, which the page's
//! CSP forbids; 256-colour and RGB colours fall back to the nearest of the 16 named ones, so
//! light and dark themes both work. The text view keeps 256-colour and RGB values as they are.

use anstyle_parse::{DefaultCharAccumulator, Params, Parser, Perform};

use crate::render::html::escape::Html;
use crate::sanitize::frames_on_lines;

/// A colour: an index into the 16 named colours, a 256-colour index, or RGB.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SgrColour {
    Named(u8),
    Indexed(u8),
    Rgb(u8, u8, u8),
}

/// The graphic rendition of one run of text.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct SgrStyle {
    pub(crate) fg: Option<SgrColour>,
    pub(crate) bg: Option<SgrColour>,
    pub(crate) bold: bool,
    pub(crate) dim: bool,
    pub(crate) italic: bool,
    pub(crate) underline: bool,
}

/// True when the text holds an escape sequence worth parsing (ESC, or the 8-bit CSI), by a
/// byte scan: U+009B is the bytes C2 9B, and a 9B byte is U+009B only after a C2 (elsewhere it
/// continues another character).
pub(crate) fn has_escapes(s: &str) -> bool {
    let b = s.as_bytes();
    memchr::memchr2_iter(0x1b, 0x9b, b).any(|i| b[i] == 0x1b || (i > 0 && b[i - 1] == 0xc2))
}

/// The text as runs of one style each where only the sequences that set colours (`ESC [ … m`)
/// or clear the rest of the line (`ESC [ … K`, which writes nothing) are read: a command's
/// coloured output, which the text view draws in its colours. Every other escape (a cursor
/// move, a title, a link) and control character stays in the text, for the sanitizer to show.
pub(crate) fn colour_runs(s: &str) -> Vec<(SgrStyle, String)> {
    let mut p = Styler::default();
    let mut parser = Parser::<DefaultCharAccumulator>::new();
    let mut rest = s;
    while let Some((start, end)) = next_colour_sequence(rest) {
        if start > 0 {
            p.push(p.style, rest[..start].to_owned());
        }
        for b in rest[start..end].bytes() {
            parser.advance(&mut p, b);
        }
        rest = &rest[end..];
    }
    if !rest.is_empty() {
        p.push(p.style, rest.to_owned());
    }
    p.runs
}

/// Where the first colour or erase-line sequence of `s` begins and ends.
fn next_colour_sequence(s: &str) -> Option<(usize, usize)> {
    let mut from = 0;
    while let Some(at) = s[from..].find("\u{1b}[").map(|i| from + i) {
        let params = &s[at + 2..];
        let n = params
            .find(|c: char| !(c.is_ascii_digit() || c == ';' || c == ':'))
            .unwrap_or(params.len());
        if params[n..].starts_with(['m', 'K']) {
            return Some((at, at + 2 + n + 1));
        }
        from = at + 2;
    }
    None
}

/// The text with every escape sequence and control character but newline and tab removed, each
/// frame a carriage return redrew on a line of its own.
pub(crate) fn strip(s: &str) -> String {
    if !has_escapes(s) {
        return s.to_owned();
    }
    runs(&frames_on_lines(s))
        .into_iter()
        .map(|(_, t)| t)
        .collect()
}

/// The text as runs of one style each. An escape still open when the text ends (a cut-off CSI,
/// an OSC without its terminator) would swallow what follows it: that tail is kept as plain
/// text, its control characters dropped.
pub(crate) fn runs(s: &str) -> Vec<(SgrStyle, String)> {
    let mut p = Styler::default();
    let mut parser = Parser::<DefaultCharAccumulator>::new();
    let mut open = None;
    for (i, b) in s.bytes().enumerate() {
        if b == 0x1b && open.is_none() {
            open = Some(i);
            p.ended = false;
        }
        parser.advance(&mut p, b);
        if p.ended {
            open = None;
        }
    }
    if let Some(i) = open {
        let tail: String = s[i..]
            .chars()
            .filter(|c| !c.is_control() || matches!(c, '\n' | '\t'))
            .collect();
        if !tail.is_empty() {
            p.push(SgrStyle::default(), tail);
        }
    }
    p.runs
}

impl SgrStyle {
    /// Applies one SGR sequence (its parameters, each with its sub-parameters).
    fn apply(&mut self, params: &Params) {
        if params.is_empty() {
            *self = SgrStyle::default();
            return;
        }
        let mut it = params.iter().peekable();
        while let Some(p) = it.next() {
            let code = p.first().copied().unwrap_or(0);
            match code {
                0 => *self = SgrStyle::default(),
                1 => self.bold = true,
                2 => self.dim = true,
                3 => self.italic = true,
                4 => self.underline = true,
                22 => (self.bold, self.dim) = (false, false),
                23 => self.italic = false,
                24 => self.underline = false,
                30..=37 => self.fg = Some(SgrColour::Named((code - 30) as u8)),
                90..=97 => self.fg = Some(SgrColour::Named((code - 90 + 8) as u8)),
                39 => self.fg = None,
                40..=47 => self.bg = Some(SgrColour::Named((code - 40) as u8)),
                100..=107 => self.bg = Some(SgrColour::Named((code - 100 + 8) as u8)),
                49 => self.bg = None,
                38 | 48 => {
                    // `38;5;n` / `38;2;r;g;b`, or the colon form with sub-parameters.
                    let mut args: Vec<u16> = p.iter().skip(1).copied().collect();
                    if args.is_empty() {
                        let n = match it.peek().and_then(|q| q.first()) {
                            Some(5) => 2,
                            Some(2) => 4,
                            _ => 0,
                        };
                        for _ in 0..n {
                            if let Some(q) = it.next() {
                                args.push(q.first().copied().unwrap_or(0));
                            }
                        }
                    }
                    let byte = |i: usize| args.get(i).map_or(0, |v| (*v).min(255) as u8);
                    let colour = match args.first() {
                        Some(5) => Some(SgrColour::Indexed(byte(1))),
                        Some(2) => Some(SgrColour::Rgb(byte(1), byte(2), byte(3))),
                        _ => None,
                    };
                    if code == 38 {
                        self.fg = colour;
                    } else {
                        self.bg = colour;
                    }
                }
                _ => {}
            }
        }
    }
}

/// The parser's listener: collects runs of printable text under the current style.
#[derive(Default)]
struct Styler {
    style: SgrStyle,
    runs: Vec<(SgrStyle, String)>,
    /// The escape sequence begun last has ended (or none was begun).
    ended: bool,
}

impl Styler {
    fn push(&mut self, style: SgrStyle, text: String) {
        match self.runs.last_mut() {
            Some((s, t)) if *s == style => t.push_str(&text),
            _ => self.runs.push((style, text)),
        }
    }

    fn push_char(&mut self, c: char) {
        let style = self.style;
        match self.runs.last_mut() {
            Some((s, t)) if *s == style => t.push(c),
            _ => self.runs.push((style, c.to_string())),
        }
    }
}

impl Perform for Styler {
    fn print(&mut self, c: char) {
        // Text is printed only outside a sequence.
        self.ended = true;
        if !c.is_control() {
            self.push_char(c);
        }
    }

    fn execute(&mut self, byte: u8) {
        if matches!(byte, b'\n' | b'\t') {
            self.push_char(byte as char);
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: u8) {
        // `ignore`: more parameters than the parser keeps; a half-read SGR is not applied.
        if action == b'm' && intermediates.is_empty() && !ignore {
            self.style.apply(params);
        }
        self.ended = true;
    }

    fn esc_dispatch(&mut self, _intermediates: &[u8], _ignore: bool, _byte: u8) {
        self.ended = true;
    }

    fn osc_dispatch(&mut self, _params: &[&[u8]], _bell_terminated: bool) {
        self.ended = true;
    }

    fn unhook(&mut self) {
        self.ended = true;
    }
}

/// Writes `s` as escaped text with its SGR colours as spans.
pub(crate) fn push_ansi(h: &mut Html, s: &str) {
    if !has_escapes(s) {
        h.text(s);
        return;
    }
    for (style, text) in &runs(s) {
        if *style == SgrStyle::default() {
            h.text(text);
            continue;
        }
        h.raw_trusted("<span class=\"");
        push_classes(h, style);
        h.raw_trusted("\">").text(text).raw_trusted("</span>");
    }
}

/// A style's class list (only digits and fixed words: nothing from the input).
fn push_classes(h: &mut Html, style: &SgrStyle) {
    let colours = [("a-f", style.fg), ("a-g", style.bg)]
        .into_iter()
        .filter_map(|(class, c)| Some(format!("{class}{}", c?.named16())));
    let flags = [
        ("a-b", style.bold),
        ("a-d", style.dim),
        ("a-i", style.italic),
        ("a-u", style.underline),
    ];
    let flags = flags.into_iter().filter(|f| f.1).map(|f| f.0.to_owned());
    h.raw_trusted(&colours.chain(flags).collect::<Vec<_>>().join(" "));
}

impl SgrColour {
    /// The nearest of the 16 named colours (what a page's stylesheet has a class for).
    fn named16(self) -> u8 {
        match self {
            SgrColour::Named(n) => n,
            SgrColour::Indexed(n @ 0..=15) => n,
            SgrColour::Indexed(n @ 16..=231) => {
                let n = n - 16;
                nearest16(n / 36 * 51, n / 6 % 6 * 51, n % 6 * 51)
            }
            SgrColour::Indexed(n) => {
                let g = (u16::from(n - 232) * 10 + 8).min(255) as u8;
                nearest16(g, g, g)
            }
            SgrColour::Rgb(r, g, b) => nearest16(r, g, b),
        }
    }
}

/// The named colour (0–15, xterm's defaults) closest to an RGB value.
fn nearest16(r: u8, g: u8, b: u8) -> u8 {
    const PALETTE: [(u8, u8, u8); 16] = [
        (0, 0, 0),
        (205, 0, 0),
        (0, 205, 0),
        (205, 205, 0),
        (0, 0, 238),
        (205, 0, 205),
        (0, 205, 205),
        (229, 229, 229),
        (127, 127, 127),
        (255, 0, 0),
        (0, 255, 0),
        (255, 255, 0),
        (92, 92, 255),
        (255, 0, 255),
        (0, 255, 255),
        (255, 255, 255),
    ];
    let d = |(pr, pg, pb): (u8, u8, u8)| {
        let sq = |a: u8, b: u8| (i32::from(a) - i32::from(b)).pow(2);
        sq(pr, r) + sq(pg, g) + sq(pb, b)
    };
    (0u8..16)
        .min_by_key(|&i| d(PALETTE[usize::from(i)]))
        .unwrap_or(7)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_are_found_by_their_bytes() {
        assert!(has_escapes("a\u{1b}[1mb"));
        assert!(has_escapes("\u{9b}1m"));
        assert!(has_escapes("é\u{9b}"));
        // 9B bytes that continue other characters: U+00DB, U+011B, U+2E9B.
        assert!(!has_escapes("Û ě \u{2e9b} plain"));
        assert!(!has_escapes(""));
    }

    proptest::proptest! {
        /// The byte scan says what a search for the two characters says.
        #[test]
        fn the_byte_scan_finds_what_the_char_search_finds(s in "(\\PC|[\u{1b}\u{9b}\u{db}\u{11b}\u{2e9b}])*") {
            proptest::prop_assert_eq!(has_escapes(&s), s.contains(['\u{1b}', '\u{9b}']));
        }
    }

    fn html(s: &str) -> String {
        let mut h = Html::default();
        push_ansi(&mut h, s);
        h.as_str().to_owned()
    }

    #[test]
    fn sgr_becomes_classes_and_other_escapes_vanish() {
        assert_eq!(
            html("\u{1b}[32mok\u{1b}[0m \u{1b}[1;31m<fail>\u{1b}[m\u{1b}]0;title\u{7}\u{1b}[2K."),
            "<span class=\"a-f2\">ok</span> <span class=\"a-f1 a-b\">&lt;fail&gt;</span>."
        );
        assert_eq!(
            html("\u{1b}[38;5;196mr\u{1b}[48;2;0;0;0mb"),
            "<span class=\"a-f9\">r</span><span class=\"a-f9 a-g0\">b</span>"
        );
        assert_eq!(html("plain <b>"), "plain &lt;b&gt;");
    }

    #[test]
    fn strip_keeps_the_words() {
        assert_eq!(strip("\u{1b}[32mok\u{1b}[0m\n\ttab\u{7}"), "ok\n\ttab");
        assert_eq!(strip("été"), "été");
        assert_eq!(strip("\u{1b}[1mé\u{1b}[0m"), "é");
        // Ended strings (a title, an APC, a link's target) go; their neighbours stay.
        assert_eq!(strip("a\u{1b}]0;title\u{7}b\u{1b}_apc\u{1b}\\c"), "abc");
        assert_eq!(
            strip("\u{1b}]8;;http://e\u{7}link\u{1b}]8;;\u{7}."),
            "link."
        );
    }

    #[test]
    fn an_escape_left_open_does_not_swallow_the_rest() {
        assert_eq!(
            strip("ok\u{1b}]0;title and the rest\nline 2"),
            "ok]0;title and the rest\nline 2"
        );
        assert_eq!(strip("a\u{1b}Pdcs body"), "aPdcs body");
        assert_eq!(strip("a\u{1b}[31"), "a[31");
        assert_eq!(strip("x\u{1b}"), "x");
        assert_eq!(
            html("\u{1b}[32mok\u{1b}]2;<b>"),
            "<span class=\"a-f2\">ok</span>]2;&lt;b&gt;"
        );
    }

    #[test]
    fn colours_become_styles_and_other_escapes_go() {
        let r = runs(
            "\u{1b}[1mContext\u{1b}[22m \u{1b}]0;title\u{7}\u{1b}[38;2;136;136;136m⛁\u{1b}[39m ok\u{1b}[2J",
        );
        assert_eq!(
            r,
            vec![
                (
                    SgrStyle {
                        bold: true,
                        ..SgrStyle::default()
                    },
                    "Context".to_owned()
                ),
                (SgrStyle::default(), " ".to_owned()),
                (
                    SgrStyle {
                        fg: Some(SgrColour::Rgb(136, 136, 136)),
                        ..SgrStyle::default()
                    },
                    "⛁".to_owned()
                ),
                (SgrStyle::default(), " ok".to_owned()),
            ]
        );
        assert_eq!(strip("a\u{1b}[31mb\u{1b}[0m\nc\u{7}"), "ab\nc");
    }

    #[test]
    fn an_escape_left_open_keeps_the_rest_as_text() {
        assert_eq!(strip("x\u{1b}]8;;http://a b c"), "x]8;;http://a b c");
        let r = runs("\u{1b}[38;5;196mred\u{1b}[91mbright");
        assert_eq!(r[0].0.fg, Some(SgrColour::Indexed(196)));
        assert_eq!(r[1].0.fg, Some(SgrColour::Named(9)));
    }
}

//! Terminal colours in tool output: styled spans in HTML, stripped in Markdown (`ESC[32m` → `<span class="a-f2">`).
//!
//! Test runners, compilers and `git` colour their output, and a tool call's output keeps the
//! escape sequences. The bytes are parsed by `anstyle-parse` (the VT state machine of the
//! `anstyle` family, not a hand-written one): SGR sequences (`CSI … m`) set the style of the
//! text that follows, every other escape (cursor moves, OSC titles and links, DCS strings) is
//! dropped, and C0 controls other than newline and tab are dropped too; an escape still open
//! when the text ends keeps what follows it as plain text (see `runs`). Colours are CSS classes
//! (`a-f0`…`a-f15` foreground, `a-b0`…`a-b15` background, `a-b` bold, `a-d` dim, `a-i` italic,
//! `a-u` underline), never `style=` attributes, which the page's CSP forbids; 256-colour and RGB
//! colours fall back to the nearest of the 16 named ones, so light and dark themes both work.

use anstyle_parse::{DefaultCharAccumulator, Params, Parser, Perform};

use crate::render::html::escape::Html;

/// True when the text holds an escape sequence worth parsing (ESC, or the 8-bit CSI).
pub(crate) fn has_escapes(s: &str) -> bool {
    s.contains(['\u{1b}', '\u{9b}'])
}

/// The text with every escape sequence and control character but newline and tab removed (the
/// Markdown view, and search, want the words only).
pub(crate) fn strip(s: &str) -> String {
    if !has_escapes(s) {
        return s.to_owned();
    }
    runs(s).into_iter().map(|(_, t)| t).collect()
}

/// The text as runs of one style each. An escape left open at the end of the text (an OSC,
/// DCS or APC string that never met its terminator, a cut-off CSI) would swallow everything
/// after it, so that tail is kept as plain text, its control characters dropped: a stray
/// `ESC ]` must not hide the rest of a tool's output.
fn runs(s: &str) -> Vec<(Style, String)> {
    let mut p = Styler::default();
    let mut parser = Parser::<DefaultCharAccumulator>::new();
    // Where the escape that has not ended yet began.
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
            p.runs.push((Style::default(), tail));
        }
    }
    p.runs
}

/// Writes `s` as escaped text with its SGR colours as spans.
pub(crate) fn push_ansi(h: &mut Html, s: &str) {
    if !has_escapes(s) {
        h.text(s);
        return;
    }
    for (style, text) in &runs(s) {
        if style.is_plain() {
            h.text(text);
            continue;
        }
        h.raw_trusted("<span class=\"");
        style.push_classes(h);
        h.raw_trusted("\">").text(text).raw_trusted("</span>");
    }
}

/// The current graphic rendition: indexes into the 16 named colours, and four attributes.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct Style {
    fg: Option<u8>,
    bg: Option<u8>,
    bold: bool,
    dim: bool,
    italic: bool,
    underline: bool,
}

impl Style {
    fn is_plain(&self) -> bool {
        *self == Style::default()
    }

    /// The class list (only digits and fixed words: nothing from the input).
    fn push_classes(&self, h: &mut Html) {
        let mut first = true;
        let mut class = |h: &mut Html, c: &str, n: Option<u8>| {
            if !first {
                h.raw_trusted(" ");
            }
            first = false;
            h.raw_trusted(c);
            if let Some(n) = n {
                h.num(u64::from(n));
            }
        };
        if let Some(f) = self.fg {
            class(h, "a-f", Some(f));
        }
        if let Some(b) = self.bg {
            class(h, "a-g", Some(b));
        }
        if self.bold {
            class(h, "a-b", None);
        }
        if self.dim {
            class(h, "a-d", None);
        }
        if self.italic {
            class(h, "a-i", None);
        }
        if self.underline {
            class(h, "a-u", None);
        }
    }

    /// Applies one SGR sequence (its parameters, each with its sub-parameters).
    fn apply(&mut self, params: &Params) {
        let mut it = params.iter().map(|p| p.first().copied().unwrap_or(0));
        if params.is_empty() {
            *self = Style::default();
            return;
        }
        while let Some(code) = it.next() {
            match code {
                0 => *self = Style::default(),
                1 => self.bold = true,
                2 => self.dim = true,
                3 => self.italic = true,
                4 => self.underline = true,
                22 => (self.bold, self.dim) = (false, false),
                23 => self.italic = false,
                24 => self.underline = false,
                30..=37 => self.fg = Some((code - 30) as u8),
                90..=97 => self.fg = Some((code - 90 + 8) as u8),
                39 => self.fg = None,
                40..=47 => self.bg = Some((code - 40) as u8),
                100..=107 => self.bg = Some((code - 100 + 8) as u8),
                49 => self.bg = None,
                38 | 48 => {
                    let colour = extended(&mut it);
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

/// `5;N` (256 colours) or `2;R;G;B` after a 38/48, as the nearest of the 16 named colours.
fn extended(it: &mut impl Iterator<Item = u16>) -> Option<u8> {
    match it.next()? {
        5 => {
            let n = it.next()?;
            Some(match n {
                0..=15 => n as u8,
                16..=231 => {
                    let n = n - 16;
                    nearest16(
                        (n / 36 * 51) as u8,
                        (n / 6 % 6 * 51) as u8,
                        (n % 6 * 51) as u8,
                    )
                }
                _ => {
                    let g = ((n.saturating_sub(232)) * 10 + 8).min(255) as u8;
                    nearest16(g, g, g)
                }
            })
        }
        2 => {
            let (r, g, b) = (it.next()?, it.next()?, it.next()?);
            Some(nearest16(
                r.min(255) as u8,
                g.min(255) as u8,
                b.min(255) as u8,
            ))
        }
        _ => None,
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

/// Collects runs of text that share a style.
#[derive(Debug, Default)]
struct Styler {
    style: Style,
    runs: Vec<(Style, String)>,
    /// Set when a sequence ends (or text is printed, which only happens outside one).
    ended: bool,
}

impl Styler {
    fn push(&mut self, c: char) {
        match self.runs.last_mut() {
            Some((s, t)) if *s == self.style => t.push(c),
            _ => self.runs.push((self.style, c.to_string())),
        }
    }
}

impl Perform for Styler {
    fn print(&mut self, c: char) {
        self.ended = true;
        self.push(c);
    }

    fn execute(&mut self, byte: u8) {
        if matches!(byte, b'\n' | b'\t') {
            self.push(char::from(byte));
        }
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

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], ignore: bool, action: u8) {
        self.ended = true;
        if action == b'm' && intermediates.is_empty() && !ignore {
            self.style.apply(params);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
}

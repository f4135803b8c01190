//! Terminal colours in command output, as styled runs: the text view draws them in its own
//! styles, Markdown and HTML keep the words only.
//!
//! Local commands (`/context`, `/cost`) and `!` shell commands colour their output for the
//! terminal, and the transcript keeps those SGR sequences (`CSI … m`) in the text. The bytes are
//! parsed by `anstyle-parse` (the VT state machine of the `anstyle` family): SGR sequences set
//! the style of the text that follows, every other escape (cursor moves, OSC titles and links)
//! is dropped, and so are control characters other than newline and tab. No byte of an escape
//! from the input is ever written: a renderer turns a `SgrStyle` into its own styling.
//!
//! (Branch `html` has an HTML twin of this parser in `render/sgr.rs`; the two are to become
//! one module.)

use anstyle_parse::{DefaultCharAccumulator, Params, Parser, Perform};

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

/// True when the text holds an escape sequence worth parsing (ESC, or the 8-bit CSI).
pub(crate) fn has_escapes(s: &str) -> bool {
    s.contains(['\u{1b}', '\u{9b}'])
}

/// The text with every escape sequence and control character but newline and tab removed.
pub(crate) fn strip(s: &str) -> String {
    if !has_escapes(s) {
        return s.to_owned();
    }
    runs(s).into_iter().map(|(_, t)| t).collect()
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
        if !c.is_control() {
            self.push_char(c);
        }
    }

    fn execute(&mut self, byte: u8) {
        if matches!(byte, b'\n' | b'\t') {
            self.push_char(byte as char);
        }
    }

    fn csi_dispatch(&mut self, params: &Params, intermediates: &[u8], _ignore: bool, action: u8) {
        if action == b'm' && intermediates.is_empty() {
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

#[cfg(test)]
mod tests {
    use super::*;

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

//! Every colour the terminal view uses, in one place.
//!
//! Renderers never build a style of their own: they name a role here (`pal.error`, `pal.dim`).
//! With colour off the palette is `Palette::default()`, whose `enabled` is false; `paint` then
//! writes the text alone, so that not one escape byte reaches the output.

use std::io::{self, Write};

use owo_colors::{AnsiColors, DynColors, Style, XtermColors};

use crate::render::sgr::{SgrColour, SgrStyle};

/// The styles of the terminal view, by role. The default is no colour: every role the empty
/// style, and nothing ever painted.
#[derive(Debug, Clone, Default)]
pub(crate) struct Palette {
    /// False: write no escape sequence at all (styles are ignored, hyperlinks are not written).
    pub(crate) enabled: bool,
    /// `⏺` before assistant text.
    pub(crate) bullet: Style,
    /// `⏺` before a tool call that succeeded or is running.
    pub(crate) tool_bullet: Style,
    /// A tool's name in its one-line call.
    pub(crate) tool: Style,
    /// `⎿` and result text.
    pub(crate) result: Style,
    /// Errors, failed calls, denials.
    pub(crate) error: Style,
    /// Success marks.
    pub(crate) ok: Style,
    /// Warnings (retries, rate limits).
    pub(crate) warning: Style,
    /// The user's prompt.
    pub(crate) user: Style,
    /// Quiet notes: notices, thinking, context, the closing line.
    pub(crate) dim: Style,
    /// Markdown headings.
    pub(crate) heading: Style,
    /// Inline code and code blocks.
    pub(crate) code: Style,
    /// Link text.
    pub(crate) link: Style,
    /// A URL shown after its link text.
    pub(crate) url: Style,
    /// Block quotes' bar.
    pub(crate) quote: Style,
    /// Diff: added lines.
    pub(crate) diff_add: Style,
    /// Diff: removed lines.
    pub(crate) diff_del: Style,
    /// Checklist items that are done.
    pub(crate) todo_done: Style,
    /// The checklist item in progress.
    pub(crate) todo_active: Style,
}

impl Palette {
    /// The colours used when colour is on.
    pub(crate) fn colored() -> Palette {
        let s = Style::new();
        Palette {
            enabled: true,
            bullet: s.white(),
            tool_bullet: s.green(),
            tool: s.bold(),
            result: s.dimmed(),
            error: s.red(),
            ok: s.green(),
            warning: s.yellow(),
            user: s.bold().cyan(),
            dim: s.dimmed(),
            heading: s.bold().blue(),
            code: s.cyan(),
            link: s.blue().underline(),
            url: s.dimmed(),
            quote: s.dimmed(),
            diff_add: s.green(),
            diff_del: s.red(),
            todo_done: s.green().strikethrough(),
            todo_active: s.bold().yellow(),
        }
    }

    /// The palette for a run.
    pub(crate) fn new(color: bool) -> Palette {
        if color {
            Palette::colored()
        } else {
            Palette::default()
        }
    }

    /// Writes `text` (already sanitized) in `style`, or as it is when colour is off.
    pub(crate) fn paint(&self, out: &mut dyn Write, style: Style, text: &str) -> io::Result<()> {
        if self.enabled && !text.is_empty() {
            write!(out, "{}", style.style(text))
        } else {
            out.write_all(text.as_bytes())
        }
    }

    /// Writes `text` as an OSC 8 hyperlink to `url` when colour is on and [`osc8_target`]
    /// accepts the URL; otherwise writes it like `paint` (the URL is shown as text beside it).
    pub(crate) fn paint_link(
        &self,
        out: &mut dyn Write,
        style: Style,
        text: &str,
        url: &str,
    ) -> io::Result<()> {
        if self.enabled && osc8_target(url) {
            write!(out, "\x1b]8;;{url}\x1b\\")?;
            self.paint(out, style, text)?;
            out.write_all(b"\x1b]8;;\x1b\\")
        } else {
            self.paint(out, style, text)
        }
    }
}

/// The text view's style for a run of command output coloured by its command (`/context`):
/// the colour and attributes the SGR sequence asked for, written by the palette's own code, so
/// that no byte of the input's escape reaches the terminal (and nothing when colour is off).
pub(crate) fn from_sgr(s: &SgrStyle) -> Style {
    let colour = |c| match c {
        SgrColour::Named(n) => DynColors::Ansi(named(n)),
        SgrColour::Indexed(n) => DynColors::Xterm(XtermColors::from(n)),
        SgrColour::Rgb(r, g, b) => DynColors::Rgb(r, g, b),
    };
    let mut out = Style::new();
    if let Some(c) = s.fg {
        out = out.color(colour(c));
    }
    if let Some(c) = s.bg {
        out = out.on_color(colour(c));
    }
    if s.bold {
        out = out.bold();
    }
    if s.dim {
        out = out.dimmed();
    }
    if s.italic {
        out = out.italic();
    }
    if s.underline {
        out = out.underline();
    }
    out
}

/// One of the 16 named terminal colours, by its SGR index (0–7 normal, 8–15 bright).
fn named(n: u8) -> AnsiColors {
    const ALL: [AnsiColors; 16] = [
        AnsiColors::Black,
        AnsiColors::Red,
        AnsiColors::Green,
        AnsiColors::Yellow,
        AnsiColors::Blue,
        AnsiColors::Magenta,
        AnsiColors::Cyan,
        AnsiColors::White,
        AnsiColors::BrightBlack,
        AnsiColors::BrightRed,
        AnsiColors::BrightGreen,
        AnsiColors::BrightYellow,
        AnsiColors::BrightBlue,
        AnsiColors::BrightMagenta,
        AnsiColors::BrightCyan,
        AnsiColors::BrightWhite,
    ];
    ALL[usize::from(n % 16)]
}

/// True when a terminal may be told to open `url` on a click: an `http:`, `https:` or `mailto:`
/// URL (scheme compared without case) of plain printable ASCII, short enough for any terminal.
/// A `file:`, `javascript:` or `data:` link in a transcript ("release notes" that opens
/// `file:///home/user/.ssh/id_rsa`) stays text; so does anything that could end the sequence.
pub(crate) fn osc8_target(url: &str) -> bool {
    let scheme = |p: &str| {
        url.as_bytes()
            .get(..p.len())
            .is_some_and(|b| b.eq_ignore_ascii_case(p.as_bytes()))
    };
    (scheme("https://") || scheme("http://") || scheme("mailto:"))
        && url.len() < 2048
        && url.bytes().all(|b| (0x21..0x7f).contains(&b))
}

#[cfg(test)]
mod tests {
    use super::osc8_target;

    #[test]
    fn osc8_only_for_web_and_mail_links() {
        for ok in [
            "https://example.com/a?b=c",
            "HTTP://x.example",
            "mailto:a@b.example",
        ] {
            assert!(osc8_target(ok), "{ok}");
        }
        for bad in [
            "file:///home/user/.ssh/id_rsa",
            "javascript:alert(1)",
            "data:text/html,<b>x</b>",
            "vbscript:x",
            "/etc/passwd",
            "https://x.example/\x1b]0;t\x07",
            "https://x.example/a b",
            "",
        ] {
            assert!(!osc8_target(bad), "{bad}");
        }
    }
}

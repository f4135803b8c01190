//! Syntax highlighting of code fences, file reads, writes and diffs, on the server.
//!
//! `syntect` (its grammars are Sublime Text's, compiled into the binary; its regex engine is
//! Oniguruma, the C library the grammars were written for, about three times faster here than
//! the pure-Rust `fancy-regex`) parses each line into a stack of scopes. The page does not carry
//! syntect's long scope names: each piece of text gets at most one of seven short classes
//! (`h-c` comment, `h-s` string, `h-n` number or constant, `h-k` keyword, `h-f` function, `h-t`
//! type or tag, `h-a` attribute), coloured by the page's stylesheet for light and dark alike.
//! No script, no `style=`.
//!
//! Highlighting is a reading aid, never a cost: a block of more than [`MAX_BLOCK`] bytes, a
//! line longer than [`MAX_LINE`], or a page past [`PAGE_BUDGET`] highlighted bytes is written
//! plain, so a 100 MB session renders in linear time.

use std::ops::Range;
use std::sync::OnceLock;

use syntect::parsing::{ParseState, Scope, ScopeStack, SyntaxReference, SyntaxSet};

use super::escape::Html;

/// The largest block highlighted, in bytes.
const MAX_BLOCK: usize = 64 * 1024;
/// The longest line highlighted, in bytes (minified code stays plain).
const MAX_LINE: usize = 2_000;
/// Highlighted bytes per page, all blocks together. With the pure-Rust regex engine syntect
/// highlighted about half a megabyte per CPU second here (at 2 MB highlighting was three
/// quarters of a large page's time, 4.3 of 5.3 s on a 40 MB stream, issue 14); Oniguruma does
/// about 1.5 MB, so 512 KB (some 12 000 lines of code) costs about a third of a second.
const PAGE_BUDGET: usize = 512 * 1024;

/// One piece of a line and its class, if any.
pub(crate) type Segment = (Range<usize>, Option<&'static str>);

fn syntaxes() -> &'static SyntaxSet {
    static SET: OnceLock<SyntaxSet> = OnceLock::new();
    SET.get_or_init(SyntaxSet::load_defaults_newlines)
}

/// The scope prefixes that decide a class, most specific first.
fn classes() -> &'static [(Scope, &'static str)] {
    static TABLE: OnceLock<Vec<(Scope, &'static str)>> = OnceLock::new();
    TABLE.get_or_init(|| {
        [
            ("comment", "h-c"),
            ("string", "h-s"),
            ("constant.numeric", "h-n"),
            ("constant.language", "h-n"),
            ("constant.character", "h-s"),
            ("entity.name.function", "h-f"),
            ("support.function", "h-f"),
            ("entity.name.tag", "h-t"),
            ("entity.name.type", "h-t"),
            ("entity.name.class", "h-t"),
            ("entity.name.struct", "h-t"),
            ("entity.name.enum", "h-t"),
            ("support.type", "h-t"),
            ("support.class", "h-t"),
            ("storage.type", "h-k"),
            ("storage.modifier", "h-k"),
            ("keyword", "h-k"),
            ("entity.other.attribute-name", "h-a"),
            ("meta.mapping.key", "h-a"),
            ("markup.heading", "h-k"),
            ("variable.parameter", "h-a"),
        ]
        .iter()
        .filter_map(|(s, c)| Scope::new(s).ok().map(|s| (s, *c)))
        .collect()
    })
}

/// The class a single scope decides, if any (the first prefix in [`classes`] that matches).
fn class_of_scope(scope: Scope) -> Option<&'static str> {
    classes()
        .iter()
        .find(|(p, _)| p.is_prefix_of(scope))
        .map(|(_, c)| *c)
}

thread_local! {
    /// Each scope's class, once worked out: the grammars use a few hundred scopes, and matching
    /// each against the 21 prefixes on every token was a tenth of the highlighter's own time
    /// (issue 14).
    static MEMO: std::cell::RefCell<foldhash::HashMap<Scope, Option<&'static str>>> =
        std::cell::RefCell::default();
}

/// The class of the innermost scope that has one.
fn class_of(stack: &ScopeStack) -> Option<&'static str> {
    MEMO.with_borrow_mut(|memo| {
        stack
            .as_slice()
            .iter()
            .rev()
            .find_map(|s| *memo.entry(*s).or_insert_with(|| class_of_scope(*s)))
    })
}

thread_local! {
    /// Each hint's grammar, once looked up: the lookup compares the name with every grammar's
    /// extensions (a fiftieth of a page with many reads and edits, issue 14). Forgotten when it
    /// holds [`MEMO_HINTS`] hints.
    static LANGUAGES: std::cell::RefCell<foldhash::HashMap<String, Option<&'static SyntaxReference>>> =
        std::cell::RefCell::default();
}

/// The most hints [`LANGUAGES`] keeps.
const MEMO_HINTS: usize = 4096;

/// The grammar for a fence's info string (`rust`, `py`, `sh`) or a file name (`src/main.rs`,
/// `Makefile`).
pub(crate) fn language(hint: &str) -> Option<&'static SyntaxReference> {
    LANGUAGES.with_borrow_mut(|memo| {
        if let Some(found) = memo.get(hint) {
            return *found;
        }
        if memo.len() >= MEMO_HINTS {
            memo.clear();
        }
        let found = look_up(hint);
        memo.insert(hint.to_owned(), found);
        found
    })
}

/// [`language`] without the memo.
fn look_up(hint: &str) -> Option<&'static SyntaxReference> {
    let set = syntaxes();
    let hint = hint.trim();
    if hint.is_empty() {
        return None;
    }
    let name = hint.rsplit(['/', '\\']).next().unwrap_or(hint);
    let ext = name.rsplit_once('.').map(|(_, e)| e);
    set.find_syntax_by_extension(name)
        .or_else(|| ext.and_then(|e| set.find_syntax_by_extension(e)))
        .or_else(|| {
            // A fence's word (`rust`, `python`), never a path.
            (!hint.contains(['/', '.'])).then(|| set.find_syntax_by_token(hint))?
        })
        .filter(|s| s.name != "Plain Text")
}

/// Parses lines in order, one grammar, one state.
pub(crate) struct Highlighter {
    state: Option<ParseState>,
    stack: ScopeStack,
    /// The line being parsed with its newline (the grammars expect one), reused line to line.
    with_nl: String,
    /// The last line's segments, reused line to line.
    segments: Vec<Segment>,
}

thread_local! {
    /// Bytes highlighted on this page so far (the budget); reset by [`reset_budget`]. One per
    /// thread, since a page is rendered on one thread from `begin` to `finish` and `-o DIR`
    /// renders pages side by side: one count for the process let a page spend another's
    /// budget, so what was highlighted depended on timing.
    static SPENT: std::cell::Cell<usize> = const { std::cell::Cell::new(0) };
}

/// Starts a new page's budget.
pub(crate) fn reset_budget() {
    SPENT.set(0);
}

/// The grammar a block of `size` bytes is highlighted with: none when there is no grammar or
/// the block or the page is over its limit. Charges the page's budget, so it is asked in page
/// order, on the page's thread, whoever then highlights the block.
pub(crate) fn budget(
    syntax: Option<&'static SyntaxReference>,
    size: usize,
) -> Option<&'static SyntaxReference> {
    syntax.filter(|_| {
        size <= MAX_BLOCK && {
            let spent = SPENT.get() + size;
            SPENT.set(spent);
            spent <= PAGE_BUDGET
        }
    })
}

impl Highlighter {
    /// A highlighter for the grammar [`budget`] granted (plain for none).
    pub(crate) fn granted(syntax: Option<&'static SyntaxReference>) -> Highlighter {
        Highlighter {
            state: syntax.map(ParseState::new),
            stack: ScopeStack::new(),
            with_nl: String::new(),
            segments: Vec::new(),
        }
    }

    /// True when `other` is where this one is (the same grammar granted, the same parse and
    /// scope stacks): a line then highlights the same in both.
    pub(crate) fn in_step_with(&self, other: &Highlighter) -> bool {
        self.state == other.state && self.stack == other.stack
    }

    /// Moves to where `other` is: what parsing the lines `other` parsed since the two were in
    /// step would have done, without parsing them again.
    pub(crate) fn catch_up(&mut self, other: &Highlighter) {
        self.state.clone_from(&other.state);
        self.stack.clone_from(&other.stack);
    }

    /// The classed segments of one line (given without its newline). After a parse error or an
    /// overlong line, this and every later line are one plain segment.
    pub(crate) fn line(&mut self, line: &str) -> &[Segment] {
        self.segments.clear();
        self.classify(line);
        &self.segments
    }

    /// Fills `self.segments` for `line`.
    fn classify(&mut self, line: &str) {
        let out = &mut self.segments;
        let Some(state) = self.state.as_mut() else {
            out.push((0..line.len(), None));
            return;
        };
        if line.len() > MAX_LINE {
            self.state = None;
            out.push((0..line.len(), None));
            return;
        }
        self.with_nl.clear();
        self.with_nl.push_str(line);
        self.with_nl.push('\n');
        let Ok(ops) = state.parse_line(&self.with_nl, syntaxes()) else {
            self.state = None;
            out.push((0..line.len(), None));
            return;
        };
        let mut at = 0;
        let push = |out: &mut Vec<Segment>, r: Range<usize>, c: Option<&'static str>| {
            let r = r.start.min(line.len())..r.end.min(line.len());
            if r.is_empty() {
                return;
            }
            match out.last_mut() {
                Some((last, lc)) if *lc == c && last.end == r.start => last.end = r.end,
                _ => out.push((r, c)),
            }
        };
        for (pos, op) in ops {
            push(out, at..pos, class_of(&self.stack));
            at = pos;
            if self.stack.apply(&op).is_err() {
                self.state = None;
                push(out, at..line.len(), None);
                return;
            }
        }
        push(out, at..line.len(), class_of(&self.stack));
    }
}

/// Writes one line's segments as escaped text in spans.
pub(crate) fn push_segments(h: &mut Html, line: &str, segments: &[Segment]) {
    for (r, class) in segments {
        let text = line.get(r.clone()).unwrap_or_default();
        match class {
            Some(c) => {
                h.raw_trusted("<span class=\"")
                    .raw_trusted(c)
                    .raw_trusted("\">")
                    .text(text)
                    .raw_trusted("</span>");
            }
            None => {
                h.text(text);
            }
        }
    }
}

/// Writes a whole block (a fence, a file's content) highlighted for `lang`: on another thread
/// when the budget grants it and `h` defers (`Html::block`).
pub(crate) fn push_code(h: &mut Html, lang: Option<&'static SyntaxReference>, code: String) {
    match budget(lang, code.len()) {
        None => write_code(h, Highlighter::granted(None), &code),
        granted @ Some(_) => {
            h.block(move |h| write_code(h, Highlighter::granted(granted), &code));
        }
    }
}

/// The lines of a block, highlighted by `hl`.
fn write_code(h: &mut Html, mut hl: Highlighter, code: &str) {
    for (i, line) in code.split('\n').enumerate() {
        if i > 0 {
            h.raw_trusted("\n");
        }
        let line = line.strip_suffix('\r').unwrap_or(line);
        let segs = hl.line(line);
        push_segments(h, line, segs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rust_gets_classes_and_stays_escaped() {
        reset_budget();
        let mut h = Html::default();
        push_code(
            &mut h,
            language("rust"),
            "fn main() { let s = \"<b>\"; } // hi".to_owned(),
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

    #[test]
    fn languages_from_paths_and_words() {
        assert_eq!(
            language("src/main.rs").map(|s| s.name.as_str()),
            Some("Rust")
        );
        assert_eq!(language("python").map(|s| s.name.as_str()), Some("Python"));
        assert_eq!(
            language("Makefile").map(|s| s.name.as_str()),
            Some("Makefile")
        );
        assert!(language("notes.unknownext").is_none());
        assert!(language("").is_none());
    }
}

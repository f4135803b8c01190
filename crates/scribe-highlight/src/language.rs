//! The shape of a language as the lexer reads it, and which language a file name or a fence's
//! word names.
//!
//! A [`Language`] is a row of data: its comments, its quotes, its listed words (a
//! [`Vocabulary`]) and a few [`Traits`] (types are capitalised, a word before `(` is a call, keys
//! stand before a colon). The rows themselves are in `languages/`; adding a language is adding
//! a row there and naming it in `LANGUAGES`.

use crate::languages::LANGUAGES;

/// How a language writes one kind of string.
pub(crate) struct Quote {
    /// What opens it (`"`, `"""`, `r#"` less its prefix: `#"`).
    pub(crate) open: &'static str,
    /// What closes it.
    pub(crate) close: &'static str,
    /// A backslash escapes the next character.
    pub(crate) escapes: bool,
    /// It may go on past the end of its line (a triple-quoted string, a template literal); one
    /// that may not ends there.
    pub(crate) spans_lines: bool,
}

impl Quote {
    /// A quote from `open` to `close` in which a backslash escapes, ending with its line.
    pub(crate) const fn new(open: &'static str, close: &'static str) -> Quote {
        Quote {
            open,
            close,
            escapes: true,
            spans_lines: false,
        }
    }

    /// The same quote, in which a backslash is just a backslash.
    pub(crate) const fn raw(self) -> Quote {
        Quote {
            escapes: false,
            ..self
        }
    }

    /// The same quote, going on past the end of its line.
    pub(crate) const fn across_lines(self) -> Quote {
        Quote {
            spans_lines: true,
            ..self
        }
    }
}

/// A language's particular habits, as bits.
#[derive(Clone, Copy)]
pub(crate) struct Traits(u32);

impl Traits {
    /// Nothing particular.
    pub(crate) const NONE: Traits = Traits(0);
    /// A capitalised word with a lower-case letter (`HashMap`, `Path`) is a type.
    pub(crate) const CAPITALISED_TYPES: Traits = Traits(1);
    /// A word right before `(` is a function (and, with `!`, a Rust macro).
    pub(crate) const CALLS: Traits = Traits(1 << 1);
    /// `@name` (and `@a.b`) is an annotation or decorator.
    pub(crate) const AT_ANNOTATIONS: Traits = Traits(1 << 2);
    /// `@name` is a keyword (CSS's at-rules), and so is `!important`.
    pub(crate) const AT_KEYWORDS: Traits = Traits(1 << 3);
    /// `#[…]` and `#![…]` are attributes (Rust).
    pub(crate) const HASH_ATTRIBUTES: Traits = Traits(1 << 4);
    /// A `#word` that starts a line is a preprocessor keyword (C).
    pub(crate) const PREPROCESSOR: Traits = Traits(1 << 5);
    /// `$name`, `${…}`, `$(…)` are variables.
    pub(crate) const DOLLAR_VARIABLES: Traits = Traits(1 << 6);
    /// A string, or a name that starts a line, right before a colon is a key (JSON, YAML, CSS).
    pub(crate) const KEYS_COLON: Traits = Traits(1 << 7);
    /// A name that starts a line right before `=` is a key (TOML, INI).
    pub(crate) const KEYS_EQUALS: Traits = Traits(1 << 8);
    /// A line that starts with `[` is a section header (TOML, INI).
    pub(crate) const SECTIONS: Traits = Traits(1 << 9);
    /// `'a` is a lifetime or label and `'a'` a character (Rust).
    pub(crate) const LIFETIMES: Traits = Traits(1 << 10);
    /// Tags, attributes, entities and comments, text between them (HTML, XML).
    pub(crate) const MARKUP: Traits = Traits(1 << 11);
    /// Headings, fences and code spans (Markdown).
    pub(crate) const HEADINGS: Traits = Traits(1 << 12);
    /// A `-` between letters is part of a word (`font-size`).
    pub(crate) const DASHED_WORDS: Traits = Traits(1 << 13);
    /// `#fff` is a colour and `50%` a number (CSS).
    pub(crate) const HASH_COLOURS: Traits = Traits(1 << 14);
    /// Keywords and constants are matched whatever their case (SQL).
    pub(crate) const CASELESS: Traits = Traits(1 << 15);
    /// Block comments nest (`/* /* */ */` in Rust, `{- {- -} -}` in Haskell).
    pub(crate) const NESTED_COMMENTS: Traits = Traits(1 << 16);

    /// These habits and `other`'s.
    pub(crate) const fn and(self, other: Traits) -> Traits {
        Traits(self.0 | other.0)
    }

    /// True when every bit of `other` is set.
    pub(crate) fn has(self, other: Traits) -> bool {
        self.0 & other.0 == other.0
    }
}

/// The words a language lists, by what they are. Each list is one string of words separated by
/// spaces, sorted and without repeats (a caseless language's in lower case), which a test checks.
pub(crate) struct Vocabulary {
    /// Keywords (`if`, `return`), the definers below among them.
    pub(crate) keywords: &'static str,
    /// Constants the language names (`true`, `nil`, `None`).
    pub(crate) constants: &'static str,
    /// Built-in types (`u8`, `str`).
    pub(crate) types: &'static str,
    /// Keywords after which a name is a function's (`fn`, `def`).
    pub(crate) function_definers: &'static str,
    /// Keywords after which a name is a type's (`struct`, `class`).
    pub(crate) type_definers: &'static str,
}

impl Vocabulary {
    /// No listed words.
    pub(crate) const NONE: Vocabulary = Vocabulary {
        keywords: "",
        constants: "",
        types: "",
        function_definers: "",
        type_definers: "",
    };

    /// Each list with what its words are, the weakest first: a word in two lists is what the
    /// later one says (a keyword wins over a constant, a constant over a type).
    pub(crate) fn lists(&self) -> [(&'static str, Kind); 5] {
        [
            (self.types, Kind::Type),
            (self.constants, Kind::Constant),
            (self.keywords, Kind::Keyword),
            (self.type_definers, Kind::DefinesType),
            (self.function_definers, Kind::DefinesFunction),
        ]
    }
}

/// One language as the lexer sees it: what the crate's users hold (as `&'static Language`) and
/// hand back to a [`Highlighter`](crate::Highlighter).
pub struct Language {
    /// Its name, as a page's reader would say it.
    pub(crate) name: &'static str,
    /// File extensions (lower case, without the dot) and whole file names (`Makefile`).
    pub(crate) files: &'static [&'static str],
    /// The words a Markdown fence names it by (lower case), beside its extensions.
    pub(crate) fence_names: &'static [&'static str],
    /// What starts a comment to the end of the line.
    pub(crate) line_comments: &'static [&'static str],
    /// What opens and closes a block comment.
    pub(crate) block_comment: Option<(&'static str, &'static str)>,
    /// Its strings, longest opening first.
    pub(crate) quotes: &'static [Quote],
    /// Letters that may stand right before a quote as part of the string (`r`, `b`, `f`).
    pub(crate) string_prefixes: &'static str,
    /// Its listed words.
    pub(crate) vocabulary: Vocabulary,
    /// Its particular habits.
    pub(crate) traits: Traits,
}

/// What a listed word is in its language.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// A keyword.
    Keyword,
    /// A keyword after which a name is a function's (`fn`, `def`).
    DefinesFunction,
    /// A keyword after which a name is a type's (`struct`, `class`).
    DefinesType,
    /// A constant the language names (`true`, `nil`, `None`).
    Constant,
    /// A built-in type.
    Type,
}

impl Language {
    /// Its name, as a page's reader would say it (`Rust`, `C++`, `Shell`).
    pub fn name(&self) -> &'static str {
        self.name
    }
}

/// Every file name, extension and fence word (and each language's name in lower case) with the
/// language it names; the first language listed wins a word two name.
pub(crate) fn index() -> foldhash::HashMap<&'static str, &'static Language> {
    let mut map = foldhash::HashMap::default();
    for &l in LANGUAGES {
        for key in l.files.iter().chain(l.fence_names) {
            map.entry(*key).or_insert(l);
        }
    }
    map
}

/// The language for a fence's info string (`rust`, `py`, `sh`, `rust,ignore`) or a file name
/// (`src/main.rs`, `Makefile`, `notes.TOML`), looked up in `index`.
pub(crate) fn find(
    index: &foldhash::HashMap<&'static str, &'static Language>,
    hint: &str,
) -> Option<&'static Language> {
    let hint = hint.trim();
    let name = hint.rsplit(['/', '\\']).next().unwrap_or(hint);
    if name.is_empty() {
        return None;
    }
    if let Some(found) = index.get(name) {
        return Some(found);
    }
    if let Some((_, ext)) = name.rsplit_once('.') {
        return index.get(ext.to_ascii_lowercase().as_str()).copied();
    }
    if hint.contains(['/', '\\']) {
        return None;
    }
    // A fence's first word: `rust,ignore`, `python title="x"`, `{.js}`, `Rust`.
    let word = name
        .trim_start_matches(['{', '.'])
        .split([',', ' ', '{', '}', '\t'])
        .next()
        .unwrap_or_default()
        .to_ascii_lowercase();
    index.get(word.as_str()).copied().or_else(|| {
        LANGUAGES
            .iter()
            .copied()
            .find(|l| l.name.eq_ignore_ascii_case(&word))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_lists_are_sorted_unique_and_short() {
        for &l in LANGUAGES {
            let v = &l.vocabulary;
            for (list, _) in v.lists() {
                let words: Vec<&str> = list.split_ascii_whitespace().collect();
                assert!(
                    words.windows(2).all(|w| w[0] < w[1]),
                    "{}: {words:?} is not sorted and unique",
                    l.name
                );
                // The lexicon looks up no word longer than this.
                assert!(
                    words.iter().all(|w| w.len() <= crate::lexicon::LONGEST),
                    "{}",
                    l.name
                );
                if l.traits.has(Traits::CASELESS) {
                    assert!(
                        words.iter().all(|w| *w == w.to_ascii_lowercase()),
                        "{}",
                        l.name
                    );
                }
            }
            let keywords: Vec<&str> = v.keywords.split_ascii_whitespace().collect();
            let definers = format!("{} {}", v.function_definers, v.type_definers);
            for d in definers.split_ascii_whitespace() {
                assert!(keywords.contains(&d), "{}: {d} is not a keyword", l.name);
            }
            for q in l.quotes {
                assert!(!q.open.is_empty() && q.open.is_ascii() && q.close.is_ascii());
            }
        }
    }
}

//! What each language's code looks like to the lexer, and which language a file name or a
//! fence's word names.
//!
//! A [`Language`] is a row of data: its comments, its quotes, its word lists (`words.rs`) and a
//! few [`Traits`] (types are capitalised, a word before `(` is a call, keys stand before a
//! colon). Adding a language is adding a row.

use super::words::*;

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
    const fn new(open: &'static str, close: &'static str) -> Quote {
        Quote {
            open,
            close,
            escapes: true,
            spans_lines: false,
        }
    }

    /// The same quote, in which a backslash is just a backslash.
    const fn raw(self) -> Quote {
        Quote {
            escapes: false,
            ..self
        }
    }

    /// The same quote, going on past the end of its line.
    const fn across_lines(self) -> Quote {
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
    const NONE: Traits = Traits(0);
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

    /// True when every bit of `other` is set.
    pub(crate) fn has(self, other: Traits) -> bool {
        self.0 & other.0 == other.0
    }
}

/// The words a language lists, by what they are (`words.rs`).
pub(crate) struct Vocabulary {
    pub(super) keywords: &'static [&'static str],
    pub(super) constants: &'static [&'static str],
    pub(super) types: &'static [&'static str],
    pub(super) function_definers: &'static [&'static str],
    pub(super) type_definers: &'static [&'static str],
}

impl Vocabulary {
    /// No listed words.
    const NONE: Vocabulary = Vocabulary {
        keywords: &[],
        constants: &[],
        types: &[],
        function_definers: &[],
        type_definers: &[],
    };
}

/// One language as the lexer sees it.
pub(crate) struct Language {
    /// Its name, as a page's reader would say it.
    pub(crate) name: &'static str,
    /// File extensions (lower case, without the dot) and whole file names (`Makefile`).
    pub(crate) files: &'static [&'static str],
    /// The words a Markdown fence names it by (lower case), beside its extensions.
    pub(crate) words: &'static [&'static str],
    /// What starts a comment to the end of the line.
    pub(crate) line_comments: &'static [&'static str],
    /// What opens and closes a block comment.
    pub(crate) block_comment: Option<(&'static str, &'static str)>,
    /// Its strings, longest opening first.
    pub(crate) quotes: &'static [Quote],
    /// Letters that may stand right before a quote as part of the string (`r`, `b`, `f`).
    pub(crate) string_prefixes: &'static str,
    /// Its listed words.
    vocabulary: Vocabulary,
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

/// Every language's listed words, keyed by the language's address and the word: one hash
/// lookup a word, where binary searches of three lists were three fifths of the lexer's time.
fn kinds() -> &'static foldhash::HashMap<(usize, &'static [u8]), Kind> {
    static KINDS: std::sync::OnceLock<foldhash::HashMap<(usize, &'static [u8]), Kind>> =
        std::sync::OnceLock::new();
    KINDS.get_or_init(|| {
        let mut map = foldhash::HashMap::default();
        for l in LANGUAGES {
            let key = std::ptr::from_ref(l) as usize;
            // Later lists first, so that a keyword wins over a constant and a constant over a
            // type when a word is in two.
            let v = &l.vocabulary;
            let lists = [
                (v.types, Kind::Type),
                (v.constants, Kind::Constant),
                (v.keywords, Kind::Keyword),
                (v.type_definers, Kind::DefinesType),
                (v.function_definers, Kind::DefinesFunction),
            ];
            for (list, kind) in lists {
                for w in list {
                    map.insert((key, w.as_bytes()), kind);
                }
            }
        }
        map
    })
}

impl Language {
    /// What `word` is, if the language lists it (whatever its case, where the language is
    /// caseless).
    pub(crate) fn kind(&self, word: &[u8]) -> Option<Kind> {
        if word.len() > 24 {
            return None;
        }
        let key = std::ptr::from_ref(self) as usize;
        if self.traits.has(Traits::CASELESS) {
            let mut lower = [0u8; 24];
            let lower = &mut lower[..word.len()];
            lower.copy_from_slice(word);
            lower.make_ascii_lowercase();
            kinds().get(&(key, &*lower)).copied()
        } else {
            kinds().get(&(key, word)).copied()
        }
    }
}

/// `"…"` with escapes, ending with its line.
const DOUBLE: Quote = Quote::new("\"", "\"");
/// `'…'` with escapes, ending with its line.
const SINGLE: Quote = Quote::new("'", "'");
/// `"…"` with escapes, across lines.
const DOUBLE_LINES: Quote = Quote::new("\"", "\"").across_lines();
/// `'…'` without escapes, across lines (shell).
const SINGLE_RAW_LINES: Quote = Quote::new("'", "'").raw().across_lines();
/// `` `…` `` with escapes, across lines (template literals, shell).
const BACKTICK_LINES: Quote = Quote::new("`", "`").across_lines();
/// `"""…"""` across lines.
const TRIPLE_DOUBLE: Quote = Quote::new("\"\"\"", "\"\"\"").across_lines();
/// `'''…'''` across lines.
const TRIPLE_SINGLE: Quote = Quote::new("'''", "'''").across_lines();

/// The C family's comments.
const SLASHES: &[&str] = &["//"];
/// `/* … */`.
const C_BLOCK: Option<(&str, &str)> = Some(("/*", "*/"));
/// `#` to the end of the line.
const HASH: &[&str] = &["#"];
/// What most C-family languages share.
const C_LIKE: Traits = Traits(Traits::CALLS.0 | Traits::CAPITALISED_TYPES.0);

/// A language with no word lists, to be filled in.
const BLANK: Language = Language {
    name: "",
    files: &[],
    words: &[],
    line_comments: &[],
    block_comment: None,
    quotes: &[],
    string_prefixes: "",
    vocabulary: Vocabulary::NONE,
    traits: Traits::NONE,
};

/// Every language scribe highlights.
pub(crate) static LANGUAGES: &[Language] = &[
    Language {
        name: "Rust",
        files: &["rs"],
        words: &["rust"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[
            DOUBLE_LINES,
            Quote::new("##\"", "\"##").raw().across_lines(),
            Quote::new("#\"", "\"#").raw().across_lines(),
        ],
        string_prefixes: "rbc",
        vocabulary: RUST,
        traits: Traits(
            C_LIKE.0 | Traits::HASH_ATTRIBUTES.0 | Traits::LIFETIMES.0 | Traits::NESTED_COMMENTS.0,
        ),
    },
    Language {
        name: "Python",
        files: &["py", "pyi", "pyw", "pyx", "SConstruct", "SConscript"],
        words: &["python", "python3", "py3"],
        line_comments: HASH,
        quotes: &[TRIPLE_DOUBLE, TRIPLE_SINGLE, DOUBLE, SINGLE],
        string_prefixes: "rbfuRBFU",
        vocabulary: PYTHON,
        traits: Traits(C_LIKE.0 | Traits::AT_ANNOTATIONS.0),
        ..BLANK
    },
    Language {
        name: "JavaScript",
        files: &["js", "mjs", "cjs", "jsx"],
        words: &["javascript", "node"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[BACKTICK_LINES, DOUBLE, SINGLE],
        vocabulary: JAVASCRIPT,
        traits: Traits(C_LIKE.0 | Traits::AT_ANNOTATIONS.0),
        ..BLANK
    },
    Language {
        name: "TypeScript",
        files: &["ts", "tsx", "mts", "cts"],
        words: &["typescript"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[BACKTICK_LINES, DOUBLE, SINGLE],
        vocabulary: TYPESCRIPT,
        traits: Traits(C_LIKE.0 | Traits::AT_ANNOTATIONS.0),
        ..BLANK
    },
    Language {
        name: "Go",
        files: &["go"],
        words: &["golang"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[DOUBLE, SINGLE, Quote::new("`", "`").raw().across_lines()],
        vocabulary: GO,
        traits: C_LIKE,
        ..BLANK
    },
    Language {
        name: "C",
        files: &["c", "h"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[DOUBLE, SINGLE],
        vocabulary: C,
        traits: Traits(Traits::CALLS.0 | Traits::PREPROCESSOR.0),
        ..BLANK
    },
    Language {
        name: "C++",
        files: &[
            "cpp", "cc", "cxx", "c++", "hpp", "hh", "hxx", "h++", "ipp", "ino", "cu",
        ],
        words: &["c++", "cplusplus"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[DOUBLE, SINGLE],
        vocabulary: CPP,
        traits: Traits(C_LIKE.0 | Traits::PREPROCESSOR.0),
        ..BLANK
    },
    Language {
        name: "Objective-C",
        files: &["m", "mm"],
        words: &["objc", "objective-c", "objectivec"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[DOUBLE, SINGLE],
        vocabulary: C,
        traits: Traits(C_LIKE.0 | Traits::PREPROCESSOR.0 | Traits::AT_ANNOTATIONS.0),
        ..BLANK
    },
    Language {
        name: "C#",
        files: &["cs", "csx"],
        words: &["csharp", "c#"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[TRIPLE_DOUBLE, DOUBLE, SINGLE],
        string_prefixes: "@$",
        vocabulary: CSHARP,
        traits: Traits(C_LIKE.0 | Traits::PREPROCESSOR.0),
    },
    Language {
        name: "Java",
        files: &["java"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[TRIPLE_DOUBLE, DOUBLE, SINGLE],
        vocabulary: JAVA,
        traits: Traits(C_LIKE.0 | Traits::AT_ANNOTATIONS.0),
        ..BLANK
    },
    Language {
        name: "Kotlin",
        files: &["kt", "kts"],
        words: &["kotlin"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[TRIPLE_DOUBLE, DOUBLE, SINGLE],
        vocabulary: KOTLIN,
        traits: Traits(C_LIKE.0 | Traits::AT_ANNOTATIONS.0 | Traits::NESTED_COMMENTS.0),
        ..BLANK
    },
    Language {
        name: "Scala",
        files: &["scala", "sc", "sbt"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[TRIPLE_DOUBLE, DOUBLE, SINGLE],
        string_prefixes: "sfr",
        vocabulary: SCALA,
        traits: Traits(C_LIKE.0 | Traits::AT_ANNOTATIONS.0 | Traits::NESTED_COMMENTS.0),
        ..BLANK
    },
    Language {
        name: "Swift",
        files: &["swift"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[TRIPLE_DOUBLE, DOUBLE],
        vocabulary: SWIFT,
        traits: Traits(C_LIKE.0 | Traits::AT_ANNOTATIONS.0 | Traits::NESTED_COMMENTS.0),
        ..BLANK
    },
    Language {
        name: "Dart",
        files: &["dart"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[TRIPLE_DOUBLE, TRIPLE_SINGLE, DOUBLE, SINGLE],
        string_prefixes: "r",
        vocabulary: DART,
        traits: Traits(C_LIKE.0 | Traits::AT_ANNOTATIONS.0),
        ..BLANK
    },
    Language {
        name: "PHP",
        files: &["php", "phtml"],
        line_comments: &["//", "#"],
        block_comment: C_BLOCK,
        quotes: &[DOUBLE_LINES, SINGLE],
        vocabulary: PHP,
        traits: C_LIKE,
        ..BLANK
    },
    Language {
        name: "Ruby",
        files: &[
            "rb",
            "rake",
            "gemspec",
            "ru",
            "Gemfile",
            "Rakefile",
            "Podfile",
            "Vagrantfile",
        ],
        words: &["ruby", "jruby"],
        line_comments: HASH,
        quotes: &[DOUBLE_LINES, SINGLE, BACKTICK_LINES],
        vocabulary: RUBY,
        traits: C_LIKE,
        ..BLANK
    },
    Language {
        name: "Lua",
        files: &["lua"],
        line_comments: &["--"],
        block_comment: Some(("--[[", "]]")),
        quotes: &[DOUBLE, SINGLE, Quote::new("[[", "]]").raw().across_lines()],
        vocabulary: LUA,
        traits: Traits::CALLS,
        ..BLANK
    },
    Language {
        name: "Perl",
        files: &["pl", "pm", "t", "pod"],
        words: &["perl"],
        line_comments: HASH,
        quotes: &[DOUBLE_LINES, SINGLE],
        vocabulary: PERL,
        traits: Traits(Traits::CALLS.0 | Traits::DOLLAR_VARIABLES.0),
        ..BLANK
    },
    Language {
        name: "R",
        files: &["r", "rmd"],
        line_comments: HASH,
        quotes: &[DOUBLE_LINES, SINGLE],
        vocabulary: R,
        traits: Traits::CALLS,
        ..BLANK
    },
    Language {
        name: "Shell",
        files: &[
            "sh",
            "bash",
            "zsh",
            "ksh",
            "fish",
            "bashrc",
            "zshrc",
            "profile",
            ".bashrc",
            ".bash_profile",
            ".zshrc",
            ".profile",
            ".envrc",
            "PKGBUILD",
        ],
        words: &[
            "shell",
            "console",
            "shellsession",
            "terminal",
            "shell-session",
        ],
        line_comments: HASH,
        quotes: &[DOUBLE_LINES, SINGLE_RAW_LINES, BACKTICK_LINES],
        vocabulary: SHELL,
        traits: Traits::DOLLAR_VARIABLES,
        ..BLANK
    },
    Language {
        name: "PowerShell",
        files: &["ps1", "psm1", "psd1"],
        words: &["powershell", "pwsh", "posh"],
        line_comments: HASH,
        block_comment: Some(("<#", "#>")),
        quotes: &[DOUBLE_LINES, SINGLE_RAW_LINES],
        vocabulary: POWERSHELL,
        traits: Traits(Traits::DOLLAR_VARIABLES.0 | Traits::CASELESS.0 | Traits::DASHED_WORDS.0),
        ..BLANK
    },
    Language {
        name: "SQL",
        files: &["sql", "ddl", "dml", "psql"],
        words: &["postgresql", "postgres", "mysql", "sqlite", "plsql"],
        line_comments: &["--"],
        block_comment: C_BLOCK,
        quotes: &[Quote::new("'", "'").raw().across_lines(), DOUBLE],
        vocabulary: SQL,
        traits: Traits(Traits::CALLS.0 | Traits::CASELESS.0),
        ..BLANK
    },
    Language {
        name: "Haskell",
        files: &["hs", "lhs"],
        words: &["haskell"],
        line_comments: &["--"],
        block_comment: Some(("{-", "-}")),
        quotes: &[DOUBLE],
        vocabulary: HASKELL,
        traits: Traits(Traits::CAPITALISED_TYPES.0 | Traits::NESTED_COMMENTS.0),
        ..BLANK
    },
    Language {
        name: "Elixir",
        files: &["ex", "exs"],
        words: &["elixir"],
        line_comments: HASH,
        quotes: &[TRIPLE_DOUBLE, DOUBLE_LINES, SINGLE],
        vocabulary: ELIXIR,
        traits: Traits(C_LIKE.0 | Traits::AT_ANNOTATIONS.0),
        ..BLANK
    },
    Language {
        name: "Zig",
        files: &["zig", "zon"],
        line_comments: SLASHES,
        quotes: &[DOUBLE, SINGLE],
        vocabulary: ZIG,
        traits: C_LIKE,
        ..BLANK
    },
    Language {
        name: "Nix",
        files: &["nix"],
        line_comments: HASH,
        block_comment: C_BLOCK,
        quotes: &[DOUBLE_LINES, Quote::new("''", "''").raw().across_lines()],
        vocabulary: NIX,
        traits: Traits::DASHED_WORDS,
        ..BLANK
    },
    Language {
        name: "HCL",
        files: &["tf", "tfvars", "hcl"],
        words: &["terraform"],
        line_comments: &["#", "//"],
        block_comment: C_BLOCK,
        quotes: &[DOUBLE],
        vocabulary: HCL,
        traits: Traits(Traits::CALLS.0 | Traits::KEYS_EQUALS.0),
        ..BLANK
    },
    Language {
        name: "Protocol Buffers",
        files: &["proto"],
        words: &["protobuf"],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[DOUBLE, SINGLE],
        vocabulary: PROTO,
        traits: Traits::CAPITALISED_TYPES,
        ..BLANK
    },
    Language {
        name: "GraphQL",
        files: &["graphql", "gql", "graphqls"],
        line_comments: HASH,
        quotes: &[TRIPLE_DOUBLE, DOUBLE],
        vocabulary: GRAPHQL,
        traits: Traits(Traits::CAPITALISED_TYPES.0 | Traits::DOLLAR_VARIABLES.0),
        ..BLANK
    },
    Language {
        name: "Dockerfile",
        files: &["dockerfile", "Dockerfile", "Containerfile"],
        words: &["docker"],
        line_comments: HASH,
        quotes: &[DOUBLE, SINGLE],
        vocabulary: DOCKERFILE,
        traits: Traits(Traits::DOLLAR_VARIABLES.0 | Traits::CASELESS.0),
        ..BLANK
    },
    Language {
        name: "Makefile",
        files: &["mk", "mak", "make", "Makefile", "makefile", "GNUmakefile"],
        words: &["makefile"],
        line_comments: HASH,
        quotes: &[DOUBLE, SINGLE],
        vocabulary: MAKEFILE,
        traits: Traits(Traits::DOLLAR_VARIABLES.0 | Traits::KEYS_COLON.0),
        ..BLANK
    },
    Language {
        name: "CSS",
        files: &["css", "scss", "sass", "less", "pcss", "postcss"],
        block_comment: C_BLOCK,
        quotes: &[DOUBLE, SINGLE],
        vocabulary: CSS,
        traits: Traits(
            Traits::CALLS.0
                | Traits::AT_KEYWORDS.0
                | Traits::KEYS_COLON.0
                | Traits::DASHED_WORDS.0
                | Traits::HASH_COLOURS.0
                | Traits::DOLLAR_VARIABLES.0,
        ),
        ..BLANK
    },
    Language {
        name: "JSON",
        files: &[
            "json",
            "jsonc",
            "json5",
            "jsonl",
            "ndjson",
            "geojson",
            "webmanifest",
            "ipynb",
            ".babelrc",
            ".eslintrc",
            ".prettierrc",
            "composer.lock",
            "flake.lock",
        ],
        line_comments: SLASHES,
        block_comment: C_BLOCK,
        quotes: &[DOUBLE],
        vocabulary: JSON,
        traits: Traits::KEYS_COLON,
        ..BLANK
    },
    Language {
        name: "YAML",
        files: &["yaml", "yml", ".clang-format", "pnpm-lock.yaml"],
        line_comments: HASH,
        quotes: &[DOUBLE, Quote::new("'", "'").raw()],
        vocabulary: YAML,
        traits: Traits(Traits::KEYS_COLON.0 | Traits::CASELESS.0),
        ..BLANK
    },
    Language {
        name: "TOML",
        files: &["toml", "Cargo.lock", "Pipfile", "poetry.lock", "uv.lock"],
        line_comments: HASH,
        quotes: &[
            TRIPLE_DOUBLE,
            Quote::new("'''", "'''").raw().across_lines(),
            DOUBLE,
            Quote::new("'", "'").raw(),
        ],
        vocabulary: TOML,
        traits: Traits(Traits::KEYS_EQUALS.0 | Traits::SECTIONS.0 | Traits::DASHED_WORDS.0),
        ..BLANK
    },
    Language {
        name: "INI",
        files: &[
            "ini",
            "cfg",
            "conf",
            "properties",
            "env",
            ".env",
            ".editorconfig",
            ".gitconfig",
            ".npmrc",
            "desktop",
            "service",
        ],
        words: &["dosini", "dotenv"],
        line_comments: &["#", ";"],
        quotes: &[DOUBLE],
        vocabulary: INI,
        traits: Traits(
            Traits::KEYS_EQUALS.0
                | Traits::SECTIONS.0
                | Traits::CASELESS.0
                | Traits::DASHED_WORDS.0,
        ),
        ..BLANK
    },
    Language {
        name: "HTML",
        files: &[
            "html", "htm", "xhtml", "xml", "svg", "xsd", "xsl", "xslt", "plist", "vue", "svelte",
            "csproj", "fsproj", "vbproj", "props", "targets", "resx", "rss", "atom", "jsp", "erb",
            "hbs", "njk", "astro",
        ],
        words: &["markup", "xaml"],
        block_comment: Some(("<!--", "-->")),
        quotes: &[
            Quote::new("\"", "\"").raw().across_lines(),
            Quote::new("'", "'").raw().across_lines(),
        ],
        vocabulary: MARKUP,
        traits: Traits::MARKUP,
        ..BLANK
    },
    Language {
        name: "Markdown",
        files: &["md", "markdown", "mdx", "mkd", "mdown"],
        vocabulary: MARKDOWN,
        traits: Traits::HEADINGS,
        ..BLANK
    },
];

/// Every file name, extension and fence word (and each language's name in lower case) with the
/// language it names; the first language listed wins a word two name.
pub(crate) fn index() -> foldhash::HashMap<&'static str, &'static Language> {
    let mut map = foldhash::HashMap::default();
    for l in LANGUAGES {
        for key in l.files.iter().chain(l.words) {
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
            .find(|l| l.name.eq_ignore_ascii_case(&word))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn word_lists_are_sorted_for_binary_search() {
        for l in LANGUAGES {
            let v = &l.vocabulary;
            for list in [
                v.keywords,
                v.constants,
                v.types,
                v.function_definers,
                v.type_definers,
            ] {
                assert!(
                    list.windows(2).all(|w| w[0] < w[1]),
                    "{}: {list:?} is not sorted and unique",
                    l.name
                );
                if l.traits.has(Traits::CASELESS) {
                    assert!(
                        list.iter().all(|w| *w == w.to_ascii_lowercase()),
                        "{}",
                        l.name
                    );
                }
            }
            for d in v.function_definers.iter().chain(v.type_definers) {
                assert!(v.keywords.contains(d), "{}: {d} is not a keyword", l.name);
            }
            for q in l.quotes {
                assert!(!q.open.is_empty() && q.open.is_ascii() && q.close.is_ascii());
            }
        }
    }

    #[test]
    fn files_and_words_name_languages() {
        let index = index();
        let name = |h: &str| find(&index, h).map(|l| l.name);
        assert_eq!(name("src/main.rs"), Some("Rust"));
        assert_eq!(name("python"), Some("Python"));
        assert_eq!(name("py"), Some("Python"));
        assert_eq!(name("Makefile"), Some("Makefile"));
        assert_eq!(name("a/b/Dockerfile"), Some("Dockerfile"));
        assert_eq!(name("NOTES.MD"), Some("Markdown"));
        assert_eq!(name("rust,ignore"), Some("Rust"));
        assert_eq!(name("sh"), Some("Shell"));
        assert_eq!(name("bash"), Some("Shell"));
        assert_eq!(name("tsx"), Some("TypeScript"));
        assert_eq!(name("c++"), Some("C++"));
        assert_eq!(name("Cargo.lock"), Some("TOML"));
        assert_eq!(name("notes.unknownext"), None);
        assert_eq!(name("text"), None);
        assert_eq!(name(""), None);
        assert_eq!(name("src/"), None);
    }
}

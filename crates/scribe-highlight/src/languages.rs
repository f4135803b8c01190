//! Every language scribe highlights, as rows of data (a [`Language`] each), grouped by family
//! in the files below, and the pieces of rows that several languages share.
//!
//! A row says what the lexer needs and nothing of a grammar: its file names and fence words, its
//! comments, its quotes, its listed words and its [`Traits`]. Adding a language is writing its
//! row in the file of its family and naming it in [`LANGUAGES`].

mod braces;
mod config;
mod scripts;

use crate::language::{Language, Quote, Traits, Vocabulary};

/// Every language, in the order that settles a file name or fence word two languages claim
/// (the first listed wins).
pub(crate) static LANGUAGES: &[&Language] = &[
    &braces::RUST,
    &scripts::PYTHON,
    &braces::JAVASCRIPT,
    &braces::TYPESCRIPT,
    &braces::GO,
    &braces::C,
    &braces::CPP,
    &braces::OBJECTIVE_C,
    &braces::CSHARP,
    &braces::JAVA,
    &braces::KOTLIN,
    &braces::SCALA,
    &braces::SWIFT,
    &braces::DART,
    &braces::PHP,
    &scripts::RUBY,
    &scripts::LUA,
    &scripts::PERL,
    &scripts::R,
    &scripts::SHELL,
    &scripts::POWERSHELL,
    &scripts::SQL,
    &scripts::HASKELL,
    &scripts::ELIXIR,
    &braces::ZIG,
    &config::NIX,
    &config::HCL,
    &config::PROTO,
    &config::GRAPHQL,
    &config::DOCKERFILE,
    &config::MAKEFILE,
    &config::CSS,
    &config::JSON,
    &config::YAML,
    &config::TOML,
    &config::INI,
    &config::HTML,
    &config::MARKDOWN,
];

/// `"…"` with escapes, ending with its line.
pub(crate) const DOUBLE: Quote = Quote::new("\"", "\"");
/// `'…'` with escapes, ending with its line.
pub(crate) const SINGLE: Quote = Quote::new("'", "'");
/// `"…"` with escapes, across lines.
pub(crate) const DOUBLE_LINES: Quote = Quote::new("\"", "\"").across_lines();
/// `'…'` without escapes, across lines (shell).
pub(crate) const SINGLE_RAW_LINES: Quote = Quote::new("'", "'").raw().across_lines();
/// `` `…` `` with escapes, across lines (template literals, shell).
pub(crate) const BACKTICK_LINES: Quote = Quote::new("`", "`").across_lines();
/// `"""…"""` across lines.
pub(crate) const TRIPLE_DOUBLE: Quote = Quote::new("\"\"\"", "\"\"\"").across_lines();
/// `'''…'''` across lines.
pub(crate) const TRIPLE_SINGLE: Quote = Quote::new("'''", "'''").across_lines();

/// The C family's comments.
pub(crate) const SLASHES: &[&str] = &["//"];
/// `/* … */`.
pub(crate) const C_BLOCK: Option<(&str, &str)> = Some(("/*", "*/"));
/// `#` to the end of the line.
pub(crate) const HASH: &[&str] = &["#"];
/// What most C-family languages share.
pub(crate) const C_LIKE: Traits = Traits::CALLS.and(Traits::CAPITALISED_TYPES);

/// A language with nothing filled in, for a row to start from (`..BLANK`).
pub(crate) const BLANK: Language = Language {
    name: "",
    files: &[],
    fence_names: &[],
    line_comments: &[],
    block_comment: None,
    quotes: &[],
    string_prefixes: "",
    vocabulary: Vocabulary::NONE,
    traits: Traits::NONE,
};

//! The crate's API as its users see it: finding a language, plain text, overlong lines, two
//! highlighters in step, and the class names a stylesheet colours.

use scribe_highlight::{Class, Highlighter, MAX_LINE, language, languages};

#[test]
fn languages_from_paths_and_fence_words() {
    let name = |hint: &str| language(hint).map(|l| l.name());
    assert_eq!(name("src/main.rs"), Some("Rust"));
    assert_eq!(name("python"), Some("Python"));
    assert_eq!(name("py"), Some("Python"));
    assert_eq!(name("Makefile"), Some("Makefile"));
    assert_eq!(name("a/b/Dockerfile"), Some("Dockerfile"));
    assert_eq!(name("NOTES.MD"), Some("Markdown"));
    assert_eq!(name("rust,ignore"), Some("Rust"));
    assert_eq!(name("python title=\"x\""), Some("Python"));
    assert_eq!(name("sh"), Some("Shell"));
    assert_eq!(name("bash"), Some("Shell"));
    assert_eq!(name("tsx"), Some("TypeScript"));
    assert_eq!(name("c++"), Some("C++"));
    assert_eq!(name("PowerShell"), Some("PowerShell"));
    assert_eq!(name("Cargo.lock"), Some("TOML"));
    assert_eq!(name("notes.unknownext"), None);
    assert_eq!(name("text"), None);
    assert_eq!(name(""), None);
    assert_eq!(name("src/"), None);
    assert!(languages().count() >= 38);
    // A fence names a language by its name too (its first word only: `Protocol Buffers` is not).
    for l in languages().filter(|l| !l.name().contains(' ')) {
        assert_eq!(language(l.name()).map(|f| f.name()), Some(l.name()));
    }
}

#[test]
fn no_language_gives_one_plain_piece_a_line() {
    let mut hl = Highlighter::new(None);
    assert_eq!(hl.line("fn main() {}"), [(0..12, None)]);
    assert_eq!(hl.line(""), [(0..0, None)]);
    let mut rust = Highlighter::new(language("rs"));
    assert!(rust.line("").is_empty());
}

#[test]
fn an_overlong_line_and_the_lines_after_it_stay_plain() {
    let mut hl = Highlighter::new(language("rs"));
    assert_eq!(hl.line("let a = 1;")[0].1, Some(Class::Keyword));
    let long = format!("let s = \"{}\";", "x".repeat(MAX_LINE));
    assert_eq!(hl.line(&long), [(0..long.len(), None)]);
    assert_eq!(hl.line("let b = 2;"), [(0..10, None)]);
}

#[test]
fn highlighters_in_step_share_a_line_and_catch_up() {
    let mut old = Highlighter::new(language("rs"));
    let mut new = Highlighter::new(language("rs"));
    assert!(old.in_step_with(&new));
    new.line("/* a comment left open");
    assert!(!old.in_step_with(&new));
    assert_eq!(new.line("still in it */ fn")[0].1, Some(Class::Comment));
    old.catch_up(&new);
    assert!(old.in_step_with(&new));
    assert_eq!(old.line("fn f() {}"), new.line("fn f() {}"));
    assert!(!Highlighter::new(language("py")).in_step_with(&new));
    assert!(!Highlighter::new(None).in_step_with(&new));
}

#[test]
fn class_names_are_short_and_distinct() {
    let classes = [
        Class::Comment,
        Class::String,
        Class::Number,
        Class::Keyword,
        Class::Function,
        Class::Type,
        Class::Attribute,
    ];
    let names: Vec<&str> = classes.iter().map(|c| c.css()).collect();
    assert_eq!(names, ["h-c", "h-s", "h-n", "h-k", "h-f", "h-t", "h-a"]);
}

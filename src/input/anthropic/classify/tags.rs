//! Tag scanning for the classifier: finding `<tag>` elements in a message's text, the
//! machinery elements a message begins with, and a loose tag stripper for markup nothing
//! else recognised.

/// The machinery elements at the very start of `t` (only tags from `tags`, whitespace between
/// them), and the text after them; none when `t` does not begin with one of them.
pub(super) fn leading<'a>(
    t: &'a str,
    tags: &[&'static str],
) -> Option<(Vec<(&'static str, String)>, &'a str)> {
    let mut elems = Vec::new();
    let mut rest = t.trim_start();
    while let Some(tag) = tags.iter().find(|tag| opens_at_start(rest, tag)) {
        let (_, end, inner) = find_tag(rest, tag)?;
        elems.push((*tag, inner.trim().to_owned()));
        rest = rest[end..].trim_start();
    }
    (!elems.is_empty()).then_some((elems, rest.trim_end()))
}

/// The inner text of the element `tag` among `elems` (empty when absent).
pub(super) fn elem(elems: &[(&str, String)], tag: &str) -> String {
    elems
        .iter()
        .find(|(t, _)| *t == tag)
        .map(|(_, inner)| inner.clone())
        .unwrap_or_default()
}

/// True when `<tag>` or `<tag attr…>` occurs in the text.
pub(super) fn has_tag(text: &str, tag: &str) -> bool {
    find_open(text, tag, 0).is_some()
}

/// Whether `t` begins with the opening tag [`find_open`] finds: `<tag>`, or `<tag`, white space
/// and a `>` later. Looked at where `t` begins: [`find_open`] looks through all of `t` for a
/// `<`, which for a text that does not begin with a tag was every `<` of it, once per tag asked
/// about.
pub(super) fn opens_at_start(t: &str, tag: &str) -> bool {
    let Some(after) = t.strip_prefix('<').and_then(|r| r.strip_prefix(tag)) else {
        return false;
    };
    match after.chars().next() {
        Some('>') => true,
        Some(c) if c.is_whitespace() => after.contains('>'),
        _ => false,
    }
}

/// Finds `<tag` followed by `>` or whitespace (attributes), from `from`; returns (start, end of
/// the opening tag).
pub(super) fn find_open(text: &str, tag: &str, from: usize) -> Option<(usize, usize)> {
    let mut at = from;
    while let Some(rel) = text[at..].find('<') {
        let start = at + rel;
        let rest = &text[start + 1..];
        if let Some(after) = rest.strip_prefix(tag) {
            match after.chars().next() {
                Some('>') => return Some((start, start + 1 + tag.len() + 1)),
                Some(c) if c.is_whitespace() => {
                    let close = after.find('>')?;
                    return Some((start, start + 1 + tag.len() + close + 1));
                }
                _ => {}
            }
        }
        at = start + 1;
    }
    None
}

/// The first `<tag>…</tag>` element: (start, end, inner text trimmed of one surrounding newline).
pub(super) fn find_tag(text: &str, tag: &str) -> Option<(usize, usize, String)> {
    let (start, open_end) = find_open(text, tag, 0)?;
    let close = format!("</{tag}>");
    let (inner_end, end) = match text[open_end..].find(&close) {
        Some(rel) => (open_end + rel, open_end + rel + close.len()),
        None => (text.len(), text.len()),
    };
    let inner = text[open_end..inner_end].trim_matches('\n').to_owned();
    Some((start, end, inner))
}

/// The text inside the first `<tag>…</tag>`.
pub(super) fn tag_text(text: &str, tag: &str) -> Option<String> {
    find_tag(text, tag).map(|(_, _, inner)| inner.trim().to_owned())
}

/// A last resort for unexpected markup: drop anything that looks like a tag.
pub(super) fn strip_tags_loosely(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut in_tag = false;
    for c in text.chars() {
        match c {
            '<' => in_tag = true,
            '>' if in_tag => in_tag = false,
            _ if !in_tag => out.push(c),
            _ => {}
        }
    }
    out.split_whitespace().collect::<Vec<_>>().join(" ")
}

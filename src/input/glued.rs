//! A line that holds several JSON records glued together, with no newline between them (two
//! writers raced, and one record's newline was lost: `{…}{…}`), is read as that many lines of its
//! own, each with the line's number, so that no reader takes the records for one broken line.

use crate::input::InputLine;
use crate::input::lines::NOT_IN_FILE;

/// The records of `line` as lines of their own, in order, when it holds several JSON values glued
/// together and nothing else (`scribe_json::glued_values`); `None` for any other line. Each
/// part's offset is where its value begins in the file, so a reader that reads rows again by
/// offset finds it (the first value of the text from there on). A line whose bytes were not
/// valid UTF-8 is not split: its text's offsets are not the file's.
fn parts(line: &InputLine) -> Option<Vec<InputLine>> {
    if line.lossy {
        return None;
    }
    let ranges = scribe_json::glued_values(&line.text)?;
    let last = ranges.len() - 1;
    let parts = ranges.into_iter().enumerate().map(|(i, r)| InputLine {
        number: line.number,
        offset: match line.offset {
            NOT_IN_FILE => NOT_IN_FILE,
            at => at + r.start as u64,
        },
        text: line.text[r].to_owned(),
        lossy: false,
        unterminated: line.unterminated && i == last,
    });
    Some(parts.collect())
}

/// `line` as the lines a reader takes: its records when it holds several glued together, said
/// once through `warn` (line number, message), or else the line itself.
pub(crate) fn split(line: InputLine, warn: impl FnOnce(u64, &str)) -> Vec<InputLine> {
    match parts(&line) {
        Some(parts) => {
            warn(
                line.number,
                &format!(
                    "{} JSON records glued together on one line (no newline between them): each \
                     is read as a line of its own",
                    parts.len()
                ),
            );
            parts
        }
        None => vec![line],
    }
}

//! The names `scribe diff --ignore` takes: read from the schema document's own list
//! (docs/schema.md, "The names `scribe diff --ignore` takes"), so that what the help promises,
//! what the document says and what the binary accepts are one list, whatever the two
//! transcripts hold.

/// The schema document, whose section of `--ignore` names is the list.
const SCHEMA: &str = include_str!("../../docs/schema.md");

/// The heading of that section.
const HEADING: &str = "### 1.10 The names `scribe diff --ignore` takes";

/// The names, by group (`record kinds`, `notice kinds`, `part types`, `fields`), in the
/// document's order.
pub(crate) fn groups() -> Vec<(&'static str, Vec<&'static str>)> {
    let Some(start) = SCHEMA.find(HEADING) else {
        return Vec::new();
    };
    SCHEMA[start + HEADING.len()..]
        .lines()
        .take_while(|l| !l.starts_with('#') && !l.starts_with("---"))
        .filter_map(|l| l.strip_prefix("- "))
        .filter_map(|l| l.split_once(':'))
        .map(|(group, names)| (group.trim(), backticked(names)))
        .collect()
}

/// The `code` spans of a line.
fn backticked(text: &str) -> Vec<&str> {
    text.split('`').skip(1).step_by(2).collect()
}

/// Every name, in any group.
pub(crate) fn names() -> impl Iterator<Item = &'static str> {
    groups().into_iter().flat_map(|(_, names)| names)
}

/// The list as an error message shows it: `record kinds: header, session, …; fields: …`.
pub(crate) fn words() -> String {
    groups()
        .iter()
        .map(|(group, names)| format!("{group}: {}", names.join(", ")))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_document_lists_four_groups() {
        let groups = groups();
        let names: Vec<&str> = groups.iter().map(|(g, _)| *g).collect();
        assert_eq!(
            names,
            ["record kinds", "notice kinds", "part types", "fields"]
        );
        for (group, names) in &groups {
            assert!(!names.is_empty(), "{group}");
        }
        let all: Vec<&str> = super::names().collect();
        for name in [
            "turn",
            "result",
            "reasoning",
            "output",
            "errorText",
            "sidecar",
        ] {
            assert!(all.contains(&name), "{name}");
        }
    }

    /// The notice kinds of the list are the rows of the document's notice table.
    #[test]
    fn the_notice_kinds_are_the_notice_table() {
        let table = SCHEMA
            .split("### 1.4")
            .nth(1)
            .and_then(|s| s.split("### 1.5").next())
            .unwrap();
        let rows: Vec<&str> = table
            .lines()
            .filter_map(|l| l.strip_prefix("| `"))
            .filter_map(|l| l.split('`').next())
            .filter(|kind| *kind != "notice.kind")
            .collect();
        let listed = groups()
            .into_iter()
            .find(|(g, _)| *g == "notice kinds")
            .unwrap()
            .1;
        assert_eq!(rows, listed);
    }
}

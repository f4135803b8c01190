//! docs/conformance.md names the test that proves each requirement of the two design documents.
//! These tests keep that table honest: a row that names a test function which is not in the tree
//! fails, and so does a ✔ row without a test or an n/a row without its reason.

use std::collections::HashSet;
use std::fs;
use std::path::PathBuf;

/// The repository root (where Cargo.toml is).
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// One table row of docs/conformance.md: id, status, the tests column, the notes column.
struct Row {
    id: String,
    status: String,
    tests: String,
    note: String,
}

/// The requirement rows (`| C12 | … |`, `| Q4 | … |`) of docs/conformance.md. The requirement text
/// may hold escaped pipes (`\|`), so cells are split on unescaped ones only.
fn rows() -> Vec<Row> {
    let text = fs::read_to_string(root().join("docs/conformance.md")).expect("docs/conformance.md");
    let mut out = Vec::new();
    for line in text.lines() {
        let Some(rest) = line.strip_prefix("| ") else {
            continue;
        };
        if !rest.starts_with(['C', 'Q']) || !rest[1..].starts_with(|c: char| c.is_ascii_digit()) {
            continue;
        }
        let cells = split_cells(line);
        assert_eq!(cells.len(), 6, "a row has six cells: {line}");
        out.push(Row {
            id: cells[0].clone(),
            status: cells[3].clone(),
            tests: cells[4].clone(),
            note: cells[5].clone(),
        });
    }
    out
}

/// The cells of a Markdown table row, split on `|` that is not escaped as `\|`.
fn split_cells(line: &str) -> Vec<String> {
    let inner = line.trim().trim_start_matches('|').trim_end_matches('|');
    let mut cells = vec![String::new()];
    let mut prev = ' ';
    for c in inner.chars() {
        if c == '|' && prev != '\\' {
            cells.push(String::new());
        } else {
            cells.last_mut().unwrap().push(c);
        }
        prev = c;
    }
    cells.iter().map(|c| c.trim().to_owned()).collect()
}

/// The test references of a tests cell: each backticked `path::fn` or `path::tests::fn`.
fn references(cell: &str) -> Vec<(String, String)> {
    cell.split('`')
        .skip(1)
        .step_by(2)
        .map(|r| {
            let (path, name) = r
                .rsplit_once("::")
                .unwrap_or_else(|| panic!("not path::fn: {r}"));
            (path.trim_end_matches("::tests").to_owned(), name.to_owned())
        })
        .collect()
}

/// Where a source file's `#[cfg(test)] mod tests;` keeps its body: `a/b.rs` → `a/b/tests.rs`,
/// `a/mod.rs` → `a/tests.rs`. A unit test named `src/a/b.rs::tests::fn` may live there.
fn out_of_line_tests(path: &str) -> String {
    match path.strip_suffix("/mod.rs") {
        Some(dir) => format!("{dir}/tests.rs"),
        None => format!("{}/tests.rs", path.trim_end_matches(".rs")),
    }
}

/// True when `source` defines `fn name(` under a `#[test]` attribute (the attributes and doc
/// comments above a function are read back to the line before them), so a row cannot name a
/// helper that no test runner runs.
fn is_a_test(source: &str, name: &str) -> bool {
    let lines: Vec<&str> = source.lines().map(str::trim_start).collect();
    lines.iter().enumerate().any(|(i, l)| {
        let defines =
            l.starts_with(&format!("fn {name}(")) || l.starts_with(&format!("async fn {name}("));
        defines
            && lines[..i]
                .iter()
                .rev()
                .take_while(|l| l.starts_with("#[") || l.starts_with("//"))
                .any(|l| l.starts_with("#[test]") || l.ends_with("::test]"))
    })
}

#[test]
fn every_row_names_tests_that_exist() {
    let rows = rows();
    assert!(rows.len() >= 237, "the table lost rows: {}", rows.len());
    let mut missing = Vec::new();
    for row in &rows {
        for (path, name) in references(&row.tests) {
            assert!(
                path.starts_with("tests/") || path.starts_with("src/"),
                "{}: a test lives under tests/ or src/: {path}",
                row.id
            );
            if path.starts_with("src/") {
                assert!(
                    row.tests.contains(&format!("{path}::tests::{name}")),
                    "{}: a unit test is named src/…::tests::fn: {path}::{name}",
                    row.id
                );
            }
            let source = fs::read_to_string(root().join(&path)).unwrap_or_default()
                + &fs::read_to_string(root().join(out_of_line_tests(&path))).unwrap_or_default();
            if !is_a_test(&source, &name) {
                missing.push(format!("{}: {path}::{name}", row.id));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "rows name tests that do not exist (or functions that are not `#[test]`s):\n{}",
        missing.join("\n")
    );
}

#[test]
fn every_row_has_a_status_and_what_it_needs() {
    let mut seen = HashSet::new();
    for row in rows() {
        assert!(seen.insert(row.id.clone()), "{} appears twice", row.id);
        match row.status.as_str() {
            "✔" => assert!(
                !references(&row.tests).is_empty(),
                "{}: a ✔ row names the test that proves it",
                row.id
            ),
            "n/a" => assert!(
                row.note.len() > 10,
                "{}: an n/a row says why a converter does not need it",
                row.id
            ),
            "~" | "✘" => {}
            other => panic!("{}: unknown status {other:?}", row.id),
        }
    }
}

/// The counts in the table's header ("Rows: 228 ✔ / 0 ~ / 0 ✘ / 9 n/a") are the rows', so the
/// header cannot claim a state the table does not have (issue 17's "done when": no ~ or ✘ row).
#[test]
fn the_header_counts_are_the_tables() {
    let text = fs::read_to_string(root().join("docs/conformance.md")).expect("docs/conformance.md");
    let header = text
        .lines()
        .find(|l| l.starts_with("Rows: "))
        .expect("a `Rows: N ✔ / N ~ / N ✘ / N n/a` line");
    let rows = rows();
    let count = |s: &str| rows.iter().filter(|r| r.status == s).count();
    let want = format!(
        "Rows: {} ✔ / {} ~ / {} ✘ / {} n/a",
        count("✔"),
        count("~"),
        count("✘"),
        count("n/a")
    );
    assert!(
        header.starts_with(&want),
        "header {header:?}, table {want:?}"
    );
    let total = format!("({} requirements", rows.len());
    assert!(
        header.contains(&total),
        "header {header:?}, table {total:?}"
    );
}

//! Property test: corpus and sample lines, mutated the ways hostile or broken logs are (types
//! flipped, fields deleted, huge numbers, invalid UTF-8, cycles in `parentUuid`, results before
//! calls, SSE frames split, lines cut), never make scribe panic, and every line stays accounted
//! for (`--stats`).

use std::path::PathBuf;

use proptest::prelude::*;
use serde_json::Value;

use crate::stats::assert_balanced;
use crate::util::{files_under, root, scribe};

/// The inputs mutated: every sample log (each format scribe reads has one).
fn seeds() -> Vec<PathBuf> {
    files_under(&root().join("samples"), &|p| {
        p.extension().is_some_and(|e| e == "jsonl" || e == "sse")
    })
}

/// One way of breaking a log, with the numbers that place it.
#[derive(Debug, Clone)]
enum Mutation {
    /// Replace a field's value with one of another JSON type.
    FlipType { line: usize, field: usize, to: u8 },
    /// Delete a field.
    DeleteField { line: usize, field: usize },
    /// Put a huge (or negative, or fractional) number in a field.
    HugeNumber {
        line: usize,
        field: usize,
        which: u8,
    },
    /// Insert bytes that are not UTF-8 into a line.
    InvalidUtf8 { line: usize, at: usize },
    /// Point a line's `parentUuid` at itself or at a later line (a cycle).
    ParentCycle { line: usize, target: usize },
    /// Move a line (say a tool result) before an earlier one (its call).
    MoveBefore { line: usize, to: usize },
    /// Split a line in two (an SSE frame or a JSON object cut across lines).
    Split { line: usize, at: usize },
    /// Cut a line short.
    Truncate { line: usize, at: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    let n = 0usize..10_000;
    prop_oneof![
        (n.clone(), n.clone(), 0u8..6).prop_map(|(line, field, to)| Mutation::FlipType {
            line,
            field,
            to
        }),
        (n.clone(), n.clone()).prop_map(|(line, field)| Mutation::DeleteField { line, field }),
        (n.clone(), n.clone(), 0u8..5).prop_map(|(line, field, which)| Mutation::HugeNumber {
            line,
            field,
            which
        }),
        (n.clone(), n.clone()).prop_map(|(line, at)| Mutation::InvalidUtf8 { line, at }),
        (n.clone(), n.clone()).prop_map(|(line, target)| Mutation::ParentCycle { line, target }),
        (n.clone(), n.clone()).prop_map(|(line, to)| Mutation::MoveBefore { line, to }),
        (n.clone(), n.clone()).prop_map(|(line, at)| Mutation::Split { line, at }),
        (n.clone(), n).prop_map(|(line, at)| Mutation::Truncate { line, at }),
    ]
}

/// The `i`-th (mod len) key path of a JSON object, one or two levels deep.
fn field_path(v: &Value, i: usize) -> Option<Vec<String>> {
    let mut paths = Vec::new();
    for (k, inner) in v.as_object()? {
        paths.push(vec![k.clone()]);
        if let Some(o) = inner.as_object() {
            for k2 in o.keys() {
                paths.push(vec![k.clone(), k2.clone()]);
            }
        }
    }
    (!paths.is_empty()).then(|| paths.swap_remove(i % paths.len()))
}

fn at_path<'a>(v: &'a mut Value, path: &[String]) -> Option<&'a mut Value> {
    path.iter().try_fold(v, |v, k| v.get_mut(k.as_str()))
}

fn parent_of<'a>(
    v: &'a mut Value,
    path: &[String],
) -> Option<&'a mut serde_json::Map<String, Value>> {
    at_path(v, &path[..path.len() - 1])?.as_object_mut()
}

/// Applies one mutation to the lines (as bytes) of a log.
fn apply(lines: &mut Vec<Vec<u8>>, m: &Mutation) {
    if lines.is_empty() {
        return;
    }
    let len = lines.len();
    let edit_json = |lines: &mut Vec<Vec<u8>>, line: usize, f: &dyn Fn(&mut Value)| {
        let l = &mut lines[line % len];
        let Ok(mut v) = serde_json::from_slice::<Value>(l.strip_prefix(b"data: ").unwrap_or(l))
        else {
            return;
        };
        f(&mut v);
        let prefix: &[u8] = if l.starts_with(b"data: ") {
            b"data: "
        } else {
            b""
        };
        *l = [prefix, v.to_string().as_bytes()].concat();
    };
    match *m {
        Mutation::FlipType { line, field, to } => edit_json(lines, line, &|v| {
            if let Some(p) = field_path(v, field) {
                if let Some(x) = at_path(v, &p) {
                    *x = match to {
                        0 => Value::from(12345),
                        1 => Value::from("a string"),
                        2 => serde_json::json!([1, "two", {"three": 3}]),
                        3 => serde_json::json!({"unexpected": true}),
                        4 => Value::Null,
                        _ => Value::from(true),
                    };
                }
            }
        }),
        Mutation::DeleteField { line, field } => edit_json(lines, line, &|v| {
            if let Some(p) = field_path(v, field) {
                if let Some(o) = parent_of(v, &p) {
                    o.remove(&p[p.len() - 1]);
                }
            }
        }),
        Mutation::HugeNumber { line, field, which } => edit_json(lines, line, &|v| {
            if let Some(p) = field_path(v, field) {
                if let Some(x) = at_path(v, &p) {
                    *x = match which {
                        0 => Value::from(u64::MAX),
                        1 => Value::from(i64::MIN),
                        2 => Value::from(1e308),
                        3 => Value::from(-0.5),
                        _ => serde_json::from_str("1e400").unwrap_or(Value::from(f64::MAX)),
                    };
                }
            }
        }),
        Mutation::InvalidUtf8 { line, at } => {
            let l = &mut lines[line % len];
            let at = at % (l.len() + 1);
            l.splice(at..at, [0xff, 0xfe, 0xc3]);
        }
        Mutation::ParentCycle { line, target } => {
            let uuid = |l: &[u8]| {
                serde_json::from_slice::<Value>(l)
                    .ok()
                    .and_then(|v| v.get("uuid").and_then(Value::as_str).map(str::to_owned))
            };
            let i = line % len;
            let j = i + target % (len - i);
            if let Some(u) = uuid(&lines[j]) {
                edit_json(lines, i, &|v| {
                    if let Some(o) = v.as_object_mut() {
                        o.insert("parentUuid".into(), Value::from(u.clone()));
                    }
                });
            }
        }
        Mutation::MoveBefore { line, to } => {
            let i = line % len;
            let j = to % (i + 1);
            let l = lines.remove(i);
            lines.insert(j, l);
        }
        Mutation::Split { line, at } => {
            let i = line % len;
            let at = at % (lines[i].len() + 1);
            let tail = lines[i].split_off(at);
            lines.insert(i + 1, tail);
        }
        Mutation::Truncate { line, at } => {
            let l = &mut lines[line % len];
            let at = at % (l.len() + 1);
            l.truncate(at);
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn mutated_logs_never_panic_and_every_line_is_accounted_for(
        seed in 0usize..1000,
        mutations in prop::collection::vec(mutation(), 1..4),
        format in prop::sample::select(vec!["jsonl", "events", "text", "md", "html"]),
    ) {
        let files = seeds();
        let file = &files[seed % files.len()];
        let bytes = std::fs::read(file).unwrap();
        let mut lines: Vec<Vec<u8>> = bytes.split(|&b| b == b'\n').map(<[u8]>::to_vec).collect();
        for m in &mutations {
            apply(&mut lines, m);
        }
        let input = lines.join(&b'\n');
        let out = scribe()
            .args(["--stats", "--to", format])
            .write_stdin(input)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let what = format!("{} with {mutations:?}", file.display());
        prop_assert!(!stderr.contains("panicked"), "{what}: {stderr}");
        prop_assert!(matches!(out.status.code(), Some(0 | 1)), "{what}: {:?} {stderr}", out.status);
        assert_balanced(&what, &stderr);
    }
}

/// The terminal view of a Markdown table too wide for the width, written as `header: value`
/// lines (found while setting the `terminal_markdown` fuzz target's bound): every row wrote every column, a short
/// row's missing cells included, each under its whole header name, so that a header of many
/// columns, or of long names, over many short rows gave output quadratic in the text. Output
/// stays within a few times the input.
#[test]
fn a_wide_table_of_short_rows_stays_linear_on_the_terminal() {
    let many_columns = format!(
        "{}|\n{}|\n{}",
        "|c".repeat(200),
        "|-".repeat(200),
        "x\n".repeat(400)
    );
    let long_names = format!(
        "|{}|\n|-|-|-|-|\n{}",
        vec!["n".repeat(1000); 4].join("|"),
        "|a|b|c|d|\n".repeat(400)
    );
    for table in [many_columns, long_names] {
        let line = serde_json::json!({
            "type": "assistant",
            "message": {"id": "msg_1", "content": [{"type": "text", "text": table}]},
            "parent_tool_use_id": null,
        });
        let input = format!("{line}\n");
        let out = scribe()
            .args(["--to", "text", "--width", "40"])
            .write_stdin(input.clone())
            .output()
            .unwrap();
        assert!(out.status.success());
        assert!(
            out.stdout.len() < 10 * input.len(),
            "{} bytes of input gave {} bytes",
            input.len(),
            out.stdout.len()
        );
    }
}

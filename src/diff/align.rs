//! LCS-style alignment (`similar`'s Myers diff) of two sequences of records, turns or parts.
//!
//! It runs in rounds with looser and looser keys:
//!
//! ```text
//! round  key                                       an Equal pair means
//! ─────  ────────────────────────────────────────  ───────────────────────────────────
//! 1      the whole (id-less) JSON                  same: nothing to report
//! 2      kind + role + origin + tool names         changed: compare field by field
//!        (a part: its type and tool name)
//! 3      kind + role (records and turns only)      changed: compare field by field
//! ```
//!
//! Rounds 2 and 3 only look inside the stretches round 1 could not match, so an inserted turn
//! stays one insertion and every later turn still lines up.

use serde_json::Value;
use similar::{Algorithm, DiffOp, capture_diff_slices};

/// How two sequences line up: indexes into OLD and NEW.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Pair {
    /// Equal on both sides.
    Same(usize, usize),
    /// The same thing, changed.
    Changed(usize, usize),
    /// Only in OLD.
    Old(usize),
    /// Only in NEW.
    New(usize),
}

/// Aligns `old` and `new` with keys from each round (`keys[0]` must be the full comparison key).
pub(super) fn align(keys_old: &[Vec<String>], keys_new: &[Vec<String>]) -> Vec<Pair> {
    let mut out = Vec::new();
    let n_old = keys_old.first().map_or(0, Vec::len);
    let n_new = keys_new.first().map_or(0, Vec::len);
    align_round(keys_old, keys_new, 0, 0..n_old, 0..n_new, &mut out);
    out
}

fn align_round(
    keys_old: &[Vec<String>],
    keys_new: &[Vec<String>],
    round: usize,
    old: std::ops::Range<usize>,
    new: std::ops::Range<usize>,
    out: &mut Vec<Pair>,
) {
    if round == keys_old.len() {
        out.extend(old.map(Pair::Old));
        out.extend(new.map(Pair::New));
        return;
    }
    let a = &keys_old[round][old.clone()];
    let b = &keys_new[round][new.clone()];
    for op in capture_diff_slices(Algorithm::Myers, a, b) {
        match op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for k in 0..len {
                    let (i, j) = (old.start + old_index + k, new.start + new_index + k);
                    out.push(if keys_old[0][i] == keys_new[0][j] {
                        Pair::Same(i, j)
                    } else {
                        Pair::Changed(i, j)
                    });
                }
            }
            DiffOp::Delete {
                old_index, old_len, ..
            } => {
                let s = old.start + old_index;
                out.extend((s..s + old_len).map(Pair::Old));
            }
            DiffOp::Insert {
                new_index, new_len, ..
            } => {
                let s = new.start + new_index;
                out.extend((s..s + new_len).map(Pair::New));
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } => {
                let (os, ns) = (old.start + old_index, new.start + new_index);
                align_round(
                    keys_old,
                    keys_new,
                    round + 1,
                    os..os + old_len,
                    ns..ns + new_len,
                    out,
                );
            }
        }
    }
}

/// A string field of a JSON object, or `""`.
pub(super) fn str_at<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

fn tool_names(turn: &Value) -> String {
    let mut names = Vec::new();
    for p in turn
        .get("parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
    {
        if let Some(n) = p.pointer("/call/name").and_then(Value::as_str) {
            names.push(n);
        }
    }
    names.join(",")
}

/// The keys of records (or turns, which have no `kind`) for each alignment round.
pub(super) fn record_keys(records: &[Value]) -> Vec<Vec<String>> {
    let full = records.iter().map(|r| r.to_string()).collect();
    let loose: Vec<String> = records
        .iter()
        .map(|r| {
            format!(
                "{}|{}|{}",
                str_at(r, "kind"),
                str_at(r, "role"),
                r.pointer("/notice/kind")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            )
        })
        .collect();
    let close = records
        .iter()
        .zip(&loose)
        .map(|(r, l)| {
            let origin = r
                .pointer("/origin/kind")
                .and_then(Value::as_str)
                .unwrap_or("");
            format!("{l}|{origin}|{}", tool_names(r))
        })
        .collect();
    vec![full, close, loose]
}

/// The keys of a turn's parts for each alignment round.
pub(super) fn part_keys(parts: &[Value]) -> Vec<Vec<String>> {
    let full = parts.iter().map(|p| p.to_string()).collect();
    let close = parts
        .iter()
        .map(|p| {
            format!(
                "{}|{}",
                str_at(p, "type"),
                p.pointer("/call/name")
                    .and_then(Value::as_str)
                    .unwrap_or("")
            )
        })
        .collect();
    // No looser round: a call to another tool is another call, not a changed one.
    vec![full, close]
}

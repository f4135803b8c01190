//! Compares two runs, aligned by `align`, and lists their differences: records added or
//! removed, and for a record on both sides, the fields that changed (going down through parts,
//! tool calls and sub-agent transcripts).
//!
//! Both sides are in comparison form first (`Forms`): without ids (renumbering shifts them after
//! an insertion; the nesting already says what they link) and without what `--ignore` names.

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use super::align::{Pair, align, part_keys, record_keys, str_at};

/// What a difference is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// Only NEW has it.
    Added,
    /// Only OLD has it.
    Removed,
    /// Both have it, and it differs.
    Changed,
}

impl Kind {
    /// The word used in reports and JSONL records.
    pub(crate) fn word(self) -> &'static str {
        match self {
            Kind::Added => "added",
            Kind::Removed => "removed",
            Kind::Changed => "changed",
        }
    }
}

/// One difference: where it is and the two sides of it (`None` where a side has nothing).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Change {
    /// Added, removed or changed.
    pub(crate) kind: Kind,
    /// The top-level record, e.g. `turn 3 (assistant)` or `turn 3 → 4 (assistant)`.
    pub(crate) item: String,
    /// Inside the record, e.g. `["call 1 (Bash)", "output"]`; empty for the whole record.
    pub(crate) path: Vec<String>,
    /// What OLD had there (its comparison form), if anything.
    pub(crate) old: Option<Value>,
    /// What NEW has there, if anything.
    pub(crate) new: Option<Value>,
}

/// Ids that renumbering shifts after an insertion; the structure already says what they link.
const ID_KEYS: &[&str] = &[
    "toolCallId",
    "parentTaskId",
    "parentToolCallId",
    "taskId",
    "sessionId",
    "leafId",
];

/// The comparison form of records: ids out, `--ignore`d names out.
#[derive(Debug, Default)]
pub(crate) struct Forms {
    /// Normalised names (`lowercase`, no `_` or `-`).
    ignore: BTreeSet<String>,
}

fn norm(s: &str) -> String {
    s.chars()
        .filter(|c| *c != '_' && *c != '-')
        .flat_map(char::to_lowercase)
        .collect()
}

impl Forms {
    /// Leaves out the fields, part types, record kinds and notice kinds named in `ignore`, and
    /// tool-result sidecars unless `sidecars` (they repeat the output in the harness's shape).
    pub(crate) fn new(ignore: &[String], sidecars: bool) -> Forms {
        let mut ignore: BTreeSet<String> = ignore.iter().map(|s| norm(s)).collect();
        if !sidecars {
            ignore.insert("sidecar".to_owned());
        }
        Forms { ignore }
    }

    /// The `--ignore` names that are not in the documented list (`vocabulary`).
    pub(crate) fn unknown(&self) -> Vec<String> {
        let known: BTreeSet<String> = super::vocabulary::names().map(norm).collect();
        self.ignore
            .iter()
            .filter(|n| !known.contains(*n))
            .cloned()
            .collect()
    }

    fn ignored(&self, name: &str) -> bool {
        self.ignore.contains(&norm(name))
    }

    /// The comparison form of a whole side.
    pub(crate) fn apply(&self, records: Vec<Value>) -> Vec<Value> {
        records
            .into_iter()
            .filter(|r| {
                let kind = r.get("kind").and_then(Value::as_str).unwrap_or("");
                let notice = r
                    .pointer("/notice/kind")
                    .and_then(Value::as_str)
                    .unwrap_or("");
                !self.ignored(kind) && (notice.is_empty() || !self.ignored(notice))
            })
            .map(|mut r| {
                self.strip(&mut r);
                r
            })
            .collect()
    }

    fn strip(&self, v: &mut Value) {
        match v {
            Value::Object(o) => {
                let is_turn = o.contains_key("role") || o.get("kind") == Some(&"session".into());
                let old = std::mem::take(o);
                for (k, mut x) in old {
                    if ID_KEYS.contains(&k.as_str())
                        || (is_turn && k == "id")
                        || (k != "kind" && self.ignored(&k))
                    {
                        continue;
                    }
                    // Tool input and output are the agent's data: their keys are not ours to
                    // drop.
                    if !matches!(k.as_str(), "input" | "output" | "structuredOutput") {
                        self.strip(&mut x);
                    }
                    o.insert(k, x);
                }
            }
            Value::Array(a) => {
                a.retain(|x| {
                    x.get("type")
                        .and_then(Value::as_str)
                        .is_none_or(|t| !self.ignored(t))
                });
                a.iter_mut().for_each(|x| self.strip(x));
            }
            Value::Null | Value::Bool(_) | Value::Number(_) | Value::String(_) => {}
        }
    }
}

/// For each record (or part), its number among those of its kind (or type) on that side,
/// from 1: `turn 3` is the third turn, `call 2` the second tool call of a turn.
fn ordinals(records: &[Value], field: &str) -> Vec<usize> {
    let mut seen: Vec<(&str, usize)> = Vec::new();
    records
        .iter()
        .map(|r| {
            let kind = str_at(r, field);
            match seen.iter_mut().find(|(k, _)| *k == kind) {
                Some((_, n)) => {
                    *n += 1;
                    *n
                }
                None => {
                    seen.push((kind, 1));
                    1
                }
            }
        })
        .collect()
}

/// A readable name for a record, given its number.
fn label(r: &Value, index: &str) -> String {
    match str_at(r, "kind") {
        "turn" | "" => format!("turn {index} ({})", str_at(r, "role")),
        "notice" => format!(
            "notice {index} ({})",
            r.pointer("/notice/kind")
                .and_then(Value::as_str)
                .unwrap_or("?")
        ),
        other => format!("{other} {index}"),
    }
}

/// All the differences between two sides (comparison forms), in the order of the new side.
pub(crate) fn compare(old: &[Value], new: &[Value]) -> Vec<Change> {
    let mut out = Vec::new();
    let (ord_old, ord_new) = (ordinals(old, "kind"), ordinals(new, "kind"));
    for pair in align(&record_keys(old), &record_keys(new)) {
        match pair {
            Pair::Same(..) => {}
            Pair::Old(i) => {
                let item = label(&old[i], &ord_old[i].to_string());
                out.push(Change::new(item, Vec::new(), Some(&old[i]), None));
            }
            Pair::New(j) => {
                let item = label(&new[j], &ord_new[j].to_string());
                out.push(Change::new(item, Vec::new(), None, Some(&new[j])));
            }
            Pair::Changed(i, j) => {
                let index = if ord_old[i] == ord_new[j] {
                    ord_new[j].to_string()
                } else {
                    format!("{} → {}", ord_old[i], ord_new[j])
                };
                let item = label(&new[j], &index);
                let mut walk = Walk {
                    item: &item,
                    path: Vec::new(),
                    out: &mut out,
                };
                walk.record(&old[i], &new[j]);
            }
        }
    }
    out
}

impl Change {
    /// A difference between what each side has at `path` (nothing on one side: added or
    /// removed).
    fn new(item: String, path: Vec<String>, old: Option<&Value>, new: Option<&Value>) -> Change {
        let kind = match (old, new) {
            (None, _) => Kind::Added,
            (_, None) => Kind::Removed,
            (Some(_), Some(_)) => Kind::Changed,
        };
        Change {
            kind,
            item,
            path,
            old: old.cloned(),
            new: new.cloned(),
        }
    }
}

/// The comparison of one top-level record on both sides: where it stands inside the record,
/// and the differences found so far.
struct Walk<'a> {
    item: &'a str,
    path: Vec<String>,
    out: &'a mut Vec<Change>,
}

impl Walk<'_> {
    /// Records what each side has at the current path.
    fn change(&mut self, old: Option<&Value>, new: Option<&Value>) {
        let change = Change::new(self.item.to_owned(), self.path.clone(), old, new);
        self.out.push(change);
    }

    /// Runs `then` one step further down the path.
    fn within(&mut self, step: String, then: impl FnOnce(&mut Self)) {
        self.path.push(step);
        then(self);
        self.path.pop();
    }

    /// Compares two records or turns field by field; `parts` and sub-agent transcripts are
    /// aligned.
    fn record(&mut self, old: &Value, new: &Value) {
        let (Value::Object(o), Value::Object(n)) = (old, new) else {
            self.change(Some(old), Some(new));
            return;
        };
        for key in union_keys(o, n) {
            let (a, b) = (o.get(&key), n.get(&key));
            if a == b {
                continue;
            }
            match (key.as_str(), a, b) {
                ("parts", Some(Value::Array(a)), Some(Value::Array(b))) => {
                    let names = |side: &[Value]| {
                        let ord = ordinals(side, "type");
                        side.iter()
                            .zip(ord)
                            .map(|(p, i)| part_label(p, i))
                            .collect()
                    };
                    self.list(
                        align(&part_keys(a), &part_keys(b)),
                        a,
                        b,
                        [names(a), names(b)],
                    );
                }
                ("transcript", Some(Value::Array(a)), Some(Value::Array(b))) => {
                    let names = |side: &[Value]| {
                        let at = |(i, t): (usize, &Value)| label(t, &(i + 1).to_string());
                        side.iter().enumerate().map(at).collect()
                    };
                    let pairs = align(&record_keys(a), &record_keys(b));
                    self.list(pairs, a, b, [names(a), names(b)]);
                }
                ("call" | "notice", Some(a @ Value::Object(_)), Some(b @ Value::Object(_))) => {
                    self.record(a, b);
                }
                (_, Some(a @ Value::Object(_)), Some(b @ Value::Object(_))) => {
                    let step = if key == "subagent" {
                        "sub-agent".to_owned()
                    } else {
                        key
                    };
                    self.within(step, |w| w.record(a, b));
                }
                _ => self.within(key, |w| w.change(a, b)),
            }
        }
    }

    /// Aligned lists (a turn's parts, a sub-agent's turns): each item added, removed or
    /// compared, under its name on its side (`names`: old, new).
    fn list(&mut self, pairs: Vec<Pair>, old: &[Value], new: &[Value], names: [Vec<String>; 2]) {
        let [mut names_old, mut names_new] = names;
        for pair in pairs {
            match pair {
                Pair::Same(..) => {}
                Pair::Old(i) => {
                    let step = std::mem::take(&mut names_old[i]);
                    self.within(step, |w| w.change(Some(&old[i]), None));
                }
                Pair::New(j) => {
                    let step = std::mem::take(&mut names_new[j]);
                    self.within(step, |w| w.change(None, Some(&new[j])));
                }
                Pair::Changed(i, j) => {
                    let step = std::mem::take(&mut names_new[j]);
                    self.within(step, |w| w.record(&old[i], &new[j]));
                }
            }
        }
    }
}

fn union_keys(o: &Map<String, Value>, n: &Map<String, Value>) -> Vec<String> {
    let mut keys: Vec<String> = o.keys().cloned().collect();
    keys.extend(n.keys().filter(|k| !o.contains_key(*k)).cloned());
    keys
}

fn part_label(p: &Value, index: usize) -> String {
    match p.pointer("/call/name").and_then(Value::as_str) {
        Some(name) => format!("call {index} ({name})"),
        None => format!("{} {index}", str_at(p, "type")),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    fn turn(text: &str) -> Value {
        json!({"kind": "turn", "role": "assistant", "origin": {"kind": "model"},
               "parts": [{"type": "text", "text": text}]})
    }

    #[test]
    fn an_inserted_turn_is_one_insertion() {
        let old = vec![turn("a"), turn("b"), turn("c")];
        let new = vec![turn("a"), turn("x"), turn("b"), turn("c")];
        let changes = compare(&old, &new);
        assert_eq!(changes.len(), 1, "{changes:#?}");
        assert_eq!(changes[0].kind, Kind::Added);
        assert_eq!(changes[0].item, "turn 2 (assistant)");
    }

    #[test]
    fn a_changed_text_is_one_change_inside_its_turn() {
        let old = vec![turn("a"), turn("b")];
        let new = vec![turn("a"), turn("B")];
        let changes = compare(&old, &new);
        assert_eq!(changes.len(), 1, "{changes:#?}");
        assert_eq!(changes[0].kind, Kind::Changed);
        assert_eq!(changes[0].path, vec!["text 1", "text"]);
    }

    #[test]
    fn ids_and_ignored_fields_do_not_count() {
        let forms = Forms::new(&["output".to_owned(), "reasoning".to_owned()], true);
        let a = forms.apply(vec![json!({"kind": "turn", "id": "t1", "role": "assistant",
            "parts": [{"type": "reasoning", "text": "hmm"},
                      {"type": "tool-call", "call": {"toolCallId": "call-1", "output": "x", "input": {"output": 1}}}]})]);
        let b = forms.apply(vec![json!({"kind": "turn", "id": "t2", "role": "assistant",
            "parts": [{"type": "tool-call", "call": {"toolCallId": "call-7", "output": "y", "input": {"output": 1}}}]})]);
        assert_eq!(a, b);
        assert_eq!(a[0].pointer("/parts/0/call/input/output"), Some(&json!(1)));
    }
}

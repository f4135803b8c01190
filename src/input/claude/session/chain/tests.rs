//! The chain ordering on small hand-made chains.

use super::*;

/// A row's role as the tests write it (owning its ids).
#[derive(Debug, Clone)]
enum Role {
    Assistant(u64, Vec<u64>),
    ToolResults(Vec<u64>),
    Message,
    Other,
}

/// A row as the tests write it: its parent and its role.
type Row = (Option<usize>, Role);

impl Chain for [Row] {
    fn len(&self) -> usize {
        <[Row]>::len(self)
    }
    fn parent(&self, i: usize) -> Option<usize> {
        self[i].0
    }
    fn role(&self, i: usize) -> NodeRole<'_> {
        match &self[i].1 {
            Role::Assistant(m, ids) => NodeRole::Assistant {
                message_id: *m,
                tool_use_ids: ids,
            },
            Role::ToolResults(ids) => NodeRole::ToolResults(ids),
            Role::Message => NodeRole::Message,
            Role::Other => NodeRole::Other,
        }
    }
}

fn order(rows: &[Row]) -> Vec<Step> {
    let mut o = super::order(rows);
    (0..o.len()).map(|pos| o.take(pos)).collect()
}

fn branch(rows: Vec<u32>, leaf: usize) -> Step {
    Step::Branch(Box::new(Branch { rows, leaf }))
}

fn other(parent: Option<usize>) -> Row {
    (parent, Role::Other)
}

fn message(parent: Option<usize>) -> Row {
    (parent, Role::Message)
}

fn assistant(parent: Option<usize>, id: &str, tools: &[&str]) -> Row {
    (
        parent,
        Role::Assistant(key(id), tools.iter().map(|s| key(s)).collect()),
    )
}

fn results(parent: Option<usize>, ids: &[&str]) -> Row {
    (
        parent,
        Role::ToolResults(ids.iter().map(|s| key(s)).collect()),
    )
}

fn rows(steps: &[Step]) -> Vec<usize> {
    steps
        .iter()
        .filter_map(|s| match s {
            Step::Row(i) => Some(*i),
            Step::Branch(_) => None,
        })
        .collect()
}

#[test]
fn a_straight_chain_is_file_order() {
    let nodes = vec![message(None), other(Some(0)), assistant(Some(1), "m1", &[])];
    assert_eq!(rows(&order(&nodes)), vec![0, 1, 2]);
}

#[test]
fn chain_order_beats_file_order() {
    // Row 1 was written after row 2 but is its parent.
    let nodes = vec![
        message(None),
        message(Some(2)),
        assistant(Some(0), "m1", &[]),
    ];
    assert_eq!(rows(&order(&nodes)), vec![0, 2, 1]);
}

#[test]
fn parallel_tool_results_stay_on_the_line() {
    // 03-bash: two tool_use blocks of one message, each result under its own block.
    let nodes = vec![
        message(None),
        assistant(Some(0), "m1", &["a"]),
        assistant(Some(1), "m1", &["b"]),
        results(Some(1), &["a"]),
        results(Some(2), &["b"]),
        assistant(Some(4), "m2", &[]),
    ];
    assert_eq!(order(&nodes), (0..6).map(Step::Row).collect::<Vec<_>>());
}

#[test]
fn a_side_attachment_is_merged_back() {
    // 09-hooks: a PreToolUse hook attachment hangs off the assistant row beside the result.
    let nodes = vec![
        message(None),
        assistant(Some(0), "m1", &["a"]),
        other(Some(1)),
        results(Some(1), &["a"]),
        assistant(Some(3), "m2", &[]),
    ];
    assert_eq!(rows(&order(&nodes)), vec![0, 1, 2, 3, 4]);
}

#[test]
fn a_rewind_keeps_the_abandoned_branch_after_the_fork() {
    // 0 prompt, 1 answer, 2 second prompt (abandoned), 3 its answer; then the user rewound
    // to 1 and wrote 4, answered by 5.
    let nodes = vec![
        message(None),
        assistant(Some(0), "m1", &[]),
        message(Some(1)),
        assistant(Some(2), "m2", &[]),
        message(Some(1)),
        assistant(Some(4), "m3", &[]),
    ];
    assert_eq!(
        order(&nodes),
        vec![
            Step::Row(0),
            Step::Row(1),
            branch(vec![2, 3], 3),
            Step::Row(4),
            Step::Row(5),
        ]
    );
}

#[test]
fn parallel_calls_chained_through_hook_progress_stay_on_the_line() {
    // 2.1.x with a PreToolUse hook: the second tool_use hangs off the progress row under the
    // first; the first call's result hangs off its own row and the next message off it.
    let nodes = vec![
        message(None),
        assistant(Some(0), "m1", &["a"]),
        other(Some(1)),
        assistant(Some(2), "m1", &["b"]),
        other(Some(3)),
        results(Some(4), &["b"]),
        results(Some(1), &["a"]),
        assistant(Some(6), "m2", &[]),
    ];
    assert_eq!(order(&nodes), (0..8).map(Step::Row).collect::<Vec<_>>());
}

#[test]
fn rows_without_parents_are_read_in_file_order() {
    // Fixtures of other tools: no parentUuid (or null everywhere), several roots.
    let nodes = vec![
        message(None),
        assistant(None, "m1", &["a"]),
        results(None, &["a"]),
        assistant(None, "m2", &[]),
        message(None),
    ];
    assert_eq!(order(&nodes), (0..5).map(Step::Row).collect::<Vec<_>>());
}

#[test]
fn a_trailing_book_keeping_row_does_not_choose_the_line() {
    // A rewind, then the main line ends with a turn_duration row: the abandoned branch
    // (rows 2, 3) is still the branch.
    let nodes = vec![
        message(None),
        assistant(Some(0), "m1", &[]),
        message(Some(1)),
        assistant(Some(2), "m2", &[]),
        message(Some(1)),
        assistant(Some(4), "m3", &[]),
        other(Some(5)),
    ];
    assert_eq!(
        order(&nodes),
        vec![
            Step::Row(0),
            Step::Row(1),
            branch(vec![2, 3], 3),
            Step::Row(4),
            Step::Row(5),
            Step::Row(6),
        ]
    );
}

fn arbitrary_nodes() -> impl proptest::strategy::Strategy<Value = Vec<Row>> {
    use proptest::prelude::*;
    proptest::collection::vec((any::<Option<u8>>(), 0u8..4, 0u8..3), 0..40).prop_map(|raw| {
        let n = raw.len();
        raw.into_iter()
            .map(|(parent, kind, msg)| {
                let parent = parent.map(|p| p as usize % n.max(1));
                match kind {
                    0 => other(parent),
                    1 => message(parent),
                    2 => assistant(parent, &format!("m{msg}"), &[&format!("t{msg}")]),
                    _ => results(parent, &[&format!("t{msg}")]),
                }
            })
            .collect()
    })
}

proptest::proptest! {
    /// Whatever the parents (cycles, self-loops, forests), every row is written exactly once.
    #[test]
    fn every_row_is_written_once(nodes in arbitrary_nodes()) {
        let mut seen: Vec<usize> = Vec::new();
        for step in order(&nodes) {
            match step {
                Step::Row(i) => seen.push(i),
                Step::Branch(b) => {
                    proptest::prop_assert!(b.rows.contains(&(b.leaf as u32)));
                    seen.extend(b.rows.iter().map(|&r| r as usize));
                }
            }
        }
        seen.sort_unstable();
        proptest::prop_assert_eq!(seen, (0..nodes.len()).collect::<Vec<_>>());
    }

    /// In a well-formed file (parents written first), a parent is written before its child.
    #[test]
    fn parents_come_first(mut nodes in arbitrary_nodes()) {
        for (i, n) in nodes.iter_mut().enumerate() {
            n.0 = n.0.filter(|&p| p < i);
        }
        let mut at = vec![usize::MAX; nodes.len()];
        let mut pos = 0;
        for step in order(&nodes) {
            let rows = match step {
                Step::Row(i) => vec![i],
                Step::Branch(b) => b.rows.iter().map(|&r| r as usize).collect(),
            };
            for i in rows {
                at[i] = pos;
                pos += 1;
            }
        }
        for (i, n) in nodes.iter().enumerate() {
            if let Some(p) = n.0 {
                proptest::prop_assert!(at[p] < at[i], "{p} after its child {i}");
            }
        }
    }
}

#[test]
fn a_branch_below_a_parent_cycle_is_kept() {
    // Found by `every_row_is_written_once`: 0 → 1 → 2 → 0 is a cycle, the line's leaf 4 and
    // a message 3 hang off it; nothing below the cycle may be lost.
    let nodes = vec![
        other(Some(1)),
        other(Some(2)),
        other(Some(0)),
        message(Some(0)),
        other(Some(0)),
    ];
    let mut all: Vec<usize> = order(&nodes)
        .into_iter()
        .flat_map(|s| match s {
            Step::Row(i) => vec![i],
            Step::Branch(b) => b.rows.iter().map(|&r| r as usize).collect(),
        })
        .collect();
    all.sort_unstable();
    assert_eq!(all, vec![0, 1, 2, 3, 4]);
}

#[test]
fn a_parent_cycle_loses_nothing() {
    let nodes = vec![message(Some(1)), message(Some(0)), message(None)];
    let steps = order(&nodes);
    let mut all = rows(&steps);
    all.sort_unstable();
    assert_eq!(all, vec![0, 1, 2]);
}

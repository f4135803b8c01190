//! The order of a saved session: the `parentUuid` chain, not file order or timestamps.
//!
//! A session file is a tree. Every conversation row names its parent; a rewind or fork writes new
//! rows under an earlier one, so the file holds several leaves. The conversation a reader wants is
//! the **main line**: the chain from the last leaf (in file order) back to its root. Three kinds of
//! rows hang off that line without being abandoned, and are folded back into it:
//!
//! * the other content blocks of an assistant message whose first block is on the line (the CLI
//!   stores one block per row, and parallel tool calls make siblings);
//! * the tool results answering calls on the line (each result row hangs off its own call's row);
//! * side subtrees with no message in them at all (hook attachments, progress rows).
//!
//! Whatever else is off the line is an abandoned branch: kept whole, in its own order, and placed
//! right after the row it forked from. The line itself is written in topological order with file
//! order breaking ties, so a well-formed file comes out in file order and a reordered one (a
//! resumed session, a fork) comes out in chain order. Rows in a parent cycle, which a valid file
//! never has, are written after the others (with everything below them) rather than lost.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, HashSet};

/// What the ordering needs to know about one row.
#[derive(Debug, Clone, Default)]
pub(crate) struct Node {
    /// Index of the parent row in the same slice, when it is in the file.
    pub(crate) parent: Option<usize>,
    pub(crate) role: NodeRole,
}

/// The part a row plays in deciding what belongs on the main line.
#[derive(Debug, Clone, Default)]
pub(crate) enum NodeRole {
    /// One content block of an assistant message, with the tool calls it opened.
    Assistant {
        /// `message.id`: rows sharing it are one message.
        message_id: String,
        /// The `tool_use` ids of this row's blocks.
        tool_use_ids: Vec<String>,
    },
    /// A user row made only of tool results, answering these calls.
    ToolResults(Vec<String>),
    /// Any other user message (a prompt, injected context, a compaction summary).
    Message,
    /// Attachments, system rows and book-keeping links: never a reason to call a branch real.
    #[default]
    Other,
}

impl NodeRole {
    pub(crate) fn is_message(&self) -> bool {
        !matches!(self, NodeRole::Other)
    }
}

/// One step of the written order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// A row of the main line.
    Row(usize),
    /// An abandoned branch.
    Branch {
        /// Its rows, in their own chain order.
        rows: Vec<usize>,
        /// Its last leaf in file order (the notice's `leafId`).
        leaf: usize,
    },
}

/// Orders the rows of one conversation (see the module comment).
pub(crate) fn order(nodes: &[Node]) -> Vec<Step> {
    let n = nodes.len();
    let mut children: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (i, node) in nodes.iter().enumerate() {
        if let Some(p) = node.parent.filter(|&p| p < n && p != i) {
            children[p].push(i);
        }
    }
    let Some(leaf) = (0..n).rev().find(|&i| children[i].is_empty()) else {
        // No leaf at all: every row is in a cycle. Keep them, in file order.
        return (0..n).map(Step::Row).collect();
    };

    // The chain from the last leaf back to its root.
    let mut on_line = vec![false; n];
    let mut cursor = Some(leaf);
    while let Some(i) = cursor {
        if on_line[i] {
            break;
        }
        on_line[i] = true;
        cursor = nodes[i].parent.filter(|&p| p < n);
    }

    recover_siblings(nodes, &children, &mut on_line);

    // Off-line subtrees: merged back when they carry no message, else abandoned branches.
    let mut branches: Vec<Vec<usize>> = Vec::new();
    let mut grouped = vec![false; n];
    for root in 0..n {
        let parent_on_line = match nodes[root].parent.filter(|&p| p < n && p != root) {
            None => true,
            Some(p) => on_line[p],
        };
        if on_line[root] || !parent_on_line {
            continue;
        }
        let subtree = collect_subtree(root, &children);
        for &i in &subtree {
            grouped[i] = true;
        }
        if subtree.iter().any(|&i| nodes[i].role.is_message()) {
            branches.push(subtree);
        } else {
            for &i in &subtree {
                on_line[i] = true;
            }
        }
    }
    // Off-line rows in a cycle have no root: merge them into the line (written last).
    for i in 0..n {
        if !on_line[i] && !grouped[i] {
            on_line[i] = true;
        }
    }

    let branch_at: std::collections::HashMap<usize, usize> = branches
        .iter()
        .enumerate()
        .map(|(b, rows)| (rows[0], b))
        .collect();

    // Kahn's algorithm over the line plus one pseudo-node per branch, smallest index first.
    let mut heap: BinaryHeap<Reverse<usize>> = BinaryHeap::new();
    for i in 0..n {
        let is_root = match nodes[i].parent.filter(|&p| p < n && p != i) {
            None => true,
            Some(p) => !on_line[p] && !branch_at.contains_key(&i),
        };
        if (on_line[i] || branch_at.contains_key(&i)) && is_root {
            heap.push(Reverse(i));
        }
    }
    let mut steps = Vec::with_capacity(n);
    let mut written = vec![false; n];
    loop {
        while let Some(Reverse(i)) = heap.pop() {
            if written[i] {
                continue;
            }
            if let Some(&b) = branch_at.get(&i) {
                let rows = topo(&branches[b], nodes, &children);
                let leaf = rows
                    .iter()
                    .copied()
                    .filter(|&r| children[r].is_empty())
                    .max()
                    .unwrap_or(i);
                for &r in &rows {
                    written[r] = true;
                }
                steps.push(Step::Branch { rows, leaf });
                continue;
            }
            written[i] = true;
            steps.push(Step::Row(i));
            for &c in &children[i] {
                if on_line[c] || branch_at.contains_key(&c) {
                    heap.push(Reverse(c));
                }
            }
        }
        // Rows in a parent cycle never become free: start again from the first one left, so
        // that it and everything below it is written.
        match (0..n).find(|&i| on_line[i] && !written[i]) {
            Some(i) => heap.push(Reverse(i)),
            None => break,
        }
    }
    steps
}

/// Adds the siblings the CLI writes for one message: its other content blocks and the tool results
/// that answer its calls, each of which hangs off its own row rather than off the line's leaf.
fn recover_siblings(nodes: &[Node], children: &[Vec<usize>], on_line: &mut [bool]) {
    let mut message_ids: HashSet<&str> = HashSet::new();
    let mut tool_ids: HashSet<&str> = HashSet::new();
    let mut work: Vec<usize> = Vec::new();
    for (i, node) in nodes.iter().enumerate() {
        if on_line[i] {
            if let NodeRole::Assistant {
                message_id,
                tool_use_ids,
            } = &node.role
            {
                message_ids.insert(message_id);
                tool_ids.extend(tool_use_ids.iter().map(String::as_str));
            }
            work.push(i);
        }
    }
    while let Some(p) = work.pop() {
        for &c in &children[p] {
            if on_line[c] {
                continue;
            }
            let belongs = match &nodes[c].role {
                NodeRole::Assistant {
                    message_id,
                    tool_use_ids,
                } if !message_id.is_empty() && message_ids.contains(message_id.as_str()) => {
                    tool_ids.extend(tool_use_ids.iter().map(String::as_str));
                    true
                }
                NodeRole::ToolResults(ids) => {
                    !ids.is_empty() && ids.iter().all(|id| tool_ids.contains(id.as_str()))
                }
                _ => false,
            };
            if belongs {
                on_line[c] = true;
                work.push(c);
            }
        }
    }
}

fn collect_subtree(root: usize, children: &[Vec<usize>]) -> Vec<usize> {
    let mut out = Vec::new();
    let mut seen = HashSet::new();
    let mut stack = vec![root];
    while let Some(i) = stack.pop() {
        if !seen.insert(i) {
            continue;
        }
        out.push(i);
        stack.extend(children[i].iter().copied());
    }
    out.sort_unstable();
    // The root first: it is the branch's key.
    if let Some(pos) = out.iter().position(|&i| i == root) {
        out.remove(pos);
        out.insert(0, root);
    }
    out
}

/// The rows of one subtree in parent-before-child order, smallest index first.
fn topo(rows: &[usize], nodes: &[Node], children: &[Vec<usize>]) -> Vec<usize> {
    let set: HashSet<usize> = rows.iter().copied().collect();
    let mut heap: BinaryHeap<Reverse<usize>> = rows
        .iter()
        .copied()
        .filter(|&i| nodes[i].parent.is_none_or(|p| !set.contains(&p)))
        .map(Reverse)
        .collect();
    let mut out = Vec::with_capacity(rows.len());
    let mut done = HashSet::new();
    while let Some(Reverse(i)) = heap.pop() {
        if !done.insert(i) {
            continue;
        }
        out.push(i);
        for &c in &children[i] {
            if set.contains(&c) {
                heap.push(Reverse(c));
            }
        }
    }
    let mut rest: Vec<usize> = rows.iter().copied().filter(|i| !done.contains(i)).collect();
    rest.sort_unstable();
    out.extend(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn other(parent: Option<usize>) -> Node {
        Node {
            parent,
            role: NodeRole::Other,
        }
    }

    fn message(parent: Option<usize>) -> Node {
        Node {
            parent,
            role: NodeRole::Message,
        }
    }

    fn assistant(parent: Option<usize>, id: &str, tools: &[&str]) -> Node {
        Node {
            parent,
            role: NodeRole::Assistant {
                message_id: id.into(),
                tool_use_ids: tools.iter().map(|s| (*s).to_owned()).collect(),
            },
        }
    }

    fn results(parent: Option<usize>, ids: &[&str]) -> Node {
        Node {
            parent,
            role: NodeRole::ToolResults(ids.iter().map(|s| (*s).to_owned()).collect()),
        }
    }

    fn rows(steps: &[Step]) -> Vec<usize> {
        steps
            .iter()
            .filter_map(|s| match s {
                Step::Row(i) => Some(*i),
                Step::Branch { .. } => None,
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
                Step::Branch {
                    rows: vec![2, 3],
                    leaf: 3
                },
                Step::Row(4),
                Step::Row(5),
            ]
        );
    }

    fn arbitrary_nodes() -> impl proptest::strategy::Strategy<Value = Vec<Node>> {
        use proptest::prelude::*;
        proptest::collection::vec((any::<Option<u8>>(), 0u8..4, 0u8..3), 0..40).prop_map(|raw| {
            let n = raw.len();
            raw.into_iter()
                .map(|(parent, kind, msg)| Node {
                    parent: parent.map(|p| p as usize % n.max(1)),
                    role: match kind {
                        0 => NodeRole::Other,
                        1 => NodeRole::Message,
                        2 => NodeRole::Assistant {
                            message_id: format!("m{msg}"),
                            tool_use_ids: vec![format!("t{msg}")],
                        },
                        _ => NodeRole::ToolResults(vec![format!("t{msg}")]),
                    },
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
                    Step::Branch { rows, leaf } => {
                        proptest::prop_assert!(rows.contains(&leaf));
                        seen.extend(rows);
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
                n.parent = n.parent.filter(|&p| p < i);
            }
            let mut at = vec![usize::MAX; nodes.len()];
            let mut pos = 0;
            for step in order(&nodes) {
                let rows = match step {
                    Step::Row(i) => vec![i],
                    Step::Branch { rows, .. } => rows,
                };
                for i in rows {
                    at[i] = pos;
                    pos += 1;
                }
            }
            for (i, n) in nodes.iter().enumerate() {
                if let Some(p) = n.parent {
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
                Step::Branch { rows, .. } => rows,
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
}

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

/// The main lines and the rows folded back into them.
mod main_line;

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use foldhash::HashSet;

use main_line::{collect_subtree, main_lines, recover_siblings};

/// The rows of one conversation as the ordering sees them, read in place from the index (no
/// copy per row: a session may have millions).
pub(crate) trait Chain {
    /// How many rows.
    fn len(&self) -> usize;
    /// Index of row `i`'s parent, when it is in the file.
    fn parent(&self, i: usize) -> Option<usize>;
    /// The part row `i` plays.
    fn role(&self, i: usize) -> NodeRole<'_>;
}

/// A 64-bit key for an id (a uuid, a message id, a tool call id): the index keeps keys, not the
/// ids' text, so that it stays small beside a large file.
pub(crate) fn key(id: &str) -> u64 {
    crate::model::recent::fingerprint(id)
}

/// The part a row plays in deciding what belongs on the main line.
#[derive(Debug, Clone, Copy, Default)]
pub(crate) enum NodeRole<'a> {
    /// One content block of an assistant message, with the tool calls it opened.
    Assistant {
        /// `message.id` (its key; 0 for none): rows sharing it are one message.
        message_id: u64,
        /// The keys of this row's `tool_use` ids.
        tool_use_ids: &'a [u64],
    },
    /// A user row made only of tool results, answering these calls (keys of their ids).
    ToolResults(&'a [u64]),
    /// Any other user message (a prompt, injected context, a compaction summary).
    Message,
    /// Attachments, system rows and book-keeping links: never a reason to call a branch real.
    #[default]
    Other,
}

impl NodeRole<'_> {
    pub(crate) fn is_message(&self) -> bool {
        !matches!(self, NodeRole::Other)
    }
}

/// One step of the written order, as `Order::take` hands it over.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Step {
    /// A row of the main line.
    Row(usize),
    /// An abandoned branch.
    Branch(Box<Branch>),
}

/// An abandoned branch of the chain.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Branch {
    /// Its rows, in their own chain order.
    pub(crate) rows: Vec<u32>,
    /// Its last leaf in file order (the notice's `leafId`).
    pub(crate) leaf: usize,
}

/// The written order of one conversation, as runs of steps: a main line written in file order
/// is one run, whatever its length (a saved session may have millions of rows).
#[derive(Debug, Default)]
pub(crate) struct Order {
    /// Each run: the position of its first step, and that step (a row index, or `BRANCH | b` for
    /// `branches[b]`). A run of rows goes on with the next row index at each step; a branch is a
    /// run of one step.
    runs: Vec<(u32, u32)>,
    /// How many steps.
    len: usize,
    /// The abandoned branches, each taken once.
    branches: Vec<Option<Branch>>,
}

/// The bit of an `Order` step that makes it a branch's number.
const BRANCH: u32 = 1 << 31;

impl Order {
    /// How many steps.
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    /// Appends a step: it extends the last run when it is the row after the run's last one.
    fn push(&mut self, step: u32) {
        let pos = self.len as u32;
        let extends = self.runs.last().is_some_and(|&(start, first)| {
            (first | step) & BRANCH == 0
                && u64::from(first) + u64::from(pos - start) == u64::from(step)
        });
        if !extends {
            self.runs.push((pos, step));
        }
        self.len += 1;
    }

    /// Step `pos` (a branch is handed over once; asked again, it is an empty one).
    pub(crate) fn take(&mut self, pos: usize) -> Step {
        let run = self
            .runs
            .partition_point(|&(start, _)| start as usize <= pos)
            - 1;
        let (start, first) = self.runs[run];
        match first {
            s if s & BRANCH == 0 => Step::Row(s as usize + (pos - start as usize)),
            s => {
                let b = self.branches[(s & !BRANCH) as usize].take();
                Step::Branch(Box::new(b.unwrap_or(Branch {
                    rows: Vec::new(),
                    leaf: 0,
                })))
            }
        }
    }
}

/// Orders the rows of one conversation (see the module comment).
pub(crate) fn order<C: Chain + ?Sized>(nodes: &C) -> Order {
    let n = nodes.len();
    let children = Children::new(nodes);
    if n == 0 {
        return Order::default();
    }
    let mut on_line = main_lines(nodes);
    recover_siblings(nodes, &children, &mut on_line);

    // Off-line subtrees: merged back when they carry no message, else abandoned branches.
    let mut branches: Vec<Vec<usize>> = Vec::new();
    let mut grouped = vec![false; n];
    for root in 0..n {
        let parent_on_line = match nodes.parent(root).filter(|&p| p < n && p != root) {
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
        if subtree.iter().any(|&i| nodes.role(i).is_message()) {
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

    let branch_at: foldhash::HashMap<usize, usize> = branches
        .iter()
        .enumerate()
        .map(|(b, rows)| (rows[0], b))
        .collect();

    // Kahn's algorithm over the line plus one pseudo-node per branch, smallest index first.
    let mut heap: BinaryHeap<Reverse<u32>> = BinaryHeap::new();
    for i in 0..n {
        let is_root = match nodes.parent(i).filter(|&p| p < n && p != i) {
            None => true,
            Some(p) => !on_line[p] && !branch_at.contains_key(&i),
        };
        if (on_line[i] || branch_at.contains_key(&i)) && is_root {
            heap.push(Reverse(i as u32));
        }
    }
    let mut order = Order::default();
    let mut written = vec![false; n];
    loop {
        while let Some(Reverse(i)) = heap.pop() {
            let i = i as usize;
            if written[i] {
                continue;
            }
            if let Some(&b) = branch_at.get(&i) {
                let rows = topo(&branches[b], nodes, &children);
                let leaf = rows
                    .iter()
                    .copied()
                    .filter(|&r| children.is_leaf(r))
                    .max()
                    .unwrap_or(i);
                for &r in &rows {
                    written[r] = true;
                }
                order.push(BRANCH | order.branches.len() as u32);
                order.branches.push(Some(Branch {
                    rows: rows.into_iter().map(|r| r as u32).collect(),
                    leaf,
                }));
                continue;
            }
            written[i] = true;
            order.push(i as u32);
            for c in children.of(i) {
                if on_line[c] || branch_at.contains_key(&c) {
                    heap.push(Reverse(c as u32));
                }
            }
        }
        // Rows in a parent cycle never become free: start again from the first one left, so
        // that it and everything below it is written.
        match (0..n).find(|&i| on_line[i] && !written[i]) {
            Some(i) => heap.push(Reverse(i as u32)),
            None => break,
        }
    }
    order
}

/// Each row's children, in file order, in two flat arrays (a saved session may have millions of
/// rows: no allocation per row).
struct Children {
    /// `list[start[i]..start[i + 1]]` are the children of row `i`.
    start: Vec<u32>,
    list: Vec<u32>,
}

impl Children {
    fn new<C: Chain + ?Sized>(nodes: &C) -> Children {
        let n = nodes.len();
        let parent = |i: usize| nodes.parent(i).filter(|&p| p < n && p != i);
        // `start[p]` counts the children of `p`, then is summed into where they end; placing
        // them from the last row back moves it to where they start, so that no second table of
        // positions is needed and each row's children stay in file order.
        let mut start = vec![0u32; n + 1];
        for i in 0..n {
            if let Some(p) = parent(i) {
                start[p] += 1;
            }
        }
        for i in 1..=n {
            start[i] += start[i - 1];
        }
        let mut list = vec![0u32; start[n] as usize];
        for i in (0..n).rev() {
            if let Some(p) = parent(i) {
                start[p] -= 1;
                list[start[p] as usize] = i as u32;
            }
        }
        Children { start, list }
    }

    /// The children of row `i`.
    fn of(&self, i: usize) -> impl Iterator<Item = usize> + '_ {
        self.list[self.start[i] as usize..self.start[i + 1] as usize]
            .iter()
            .map(|&c| c as usize)
    }

    fn is_leaf(&self, i: usize) -> bool {
        self.start[i] == self.start[i + 1]
    }
}

/// The rows of one subtree in parent-before-child order, smallest index first.
fn topo<C: Chain + ?Sized>(rows: &[usize], nodes: &C, children: &Children) -> Vec<usize> {
    let set: HashSet<usize> = rows.iter().copied().collect();
    let mut heap: BinaryHeap<Reverse<usize>> = rows
        .iter()
        .copied()
        .filter(|&i| nodes.parent(i).is_none_or(|p| !set.contains(&p)))
        .map(Reverse)
        .collect();
    let mut out = Vec::with_capacity(rows.len());
    let mut done = HashSet::default();
    while let Some(Reverse(i)) = heap.pop() {
        if !done.insert(i) {
            continue;
        }
        out.push(i);
        for c in children.of(i) {
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
mod tests;

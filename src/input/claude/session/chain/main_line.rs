//! The main line of each tree in the file, and the rows folded back into it (an assistant message's
//! other blocks, the results of its calls, side subtrees with no message).

use foldhash::HashSet;

use super::{Chain, Children, NodeRole};

/// Where a row stands while the main lines are traced.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Mark {
    Unknown,
    /// On the walk being traced now.
    Path,
    Line,
    Off,
}

/// The main line of every tree in the file: the chain from the tree's last message row with no
/// message below it (in file order) back to its root, or from its last row when it holds no
/// message. A row whose parent is not in the file (a dangling `parentUuid`, a null one, or none
/// at all) is a root; a file of several trees (a fixture without parents, a session continued
/// after `/clear`, `/compact` or `--resume`) has several main lines, written in file order.
/// Trailing book-keeping rows (a hook attachment, a `turn_duration`) never choose the line. Each
/// row is visited a bounded number of times.
pub(super) fn main_lines<C: Chain + ?Sized>(nodes: &C) -> Vec<bool> {
    let n = nodes.len();
    let parent = |i: usize| nodes.parent(i).filter(|&p| p < n && p != i);
    // Rows with a message somewhere below them: marked upwards from each message, stopping at
    // the first row already marked.
    let mut message_below = vec![false; n];
    for i in (0..n).filter(|&i| nodes.role(i).is_message()) {
        let mut up = parent(i);
        while let Some(u) = up.filter(|&u| !message_below[u]) {
            message_below[u] = true;
            up = parent(u);
        }
    }
    let mut mark = vec![Mark::Unknown; n];
    let mut path: Vec<u32> = Vec::new();
    let ends = (0..n)
        .rev()
        .filter(|&i| nodes.role(i).is_message() && !message_below[i]);
    for start in ends.chain((0..n).rev()) {
        if mark[start] != Mark::Unknown {
            continue;
        }
        path.clear();
        let mut cursor = Some(start);
        // What the walk ran into: a row already traced decides for the whole path; a root (or a
        // parent cycle, which a valid file never has) makes the path a new main line.
        let verdict = loop {
            let Some(i) = cursor else { break Mark::Line };
            match mark[i] {
                Mark::Line | Mark::Off => break Mark::Off,
                Mark::Path => break Mark::Line,
                Mark::Unknown => {}
            }
            mark[i] = Mark::Path;
            path.push(i as u32);
            cursor = parent(i);
        };
        for &i in &path {
            mark[i as usize] = verdict;
        }
    }
    mark.into_iter().map(|m| m == Mark::Line).collect()
}

/// Adds the rows the CLI writes for one message beside the line rather than on it: its other
/// content blocks and the tool results that answer its calls, each of which hangs off its own
/// row, or (2.1.x with hooks) off a `progress` row under the previous call. Rows that carry no
/// message (progress, attachments) are looked through: when something below one belongs, the
/// rows between are on the line too.
pub(super) fn recover_siblings<C: Chain + ?Sized>(
    nodes: &C,
    children: &Children,
    on_line: &mut [bool],
) {
    // Every block of a message on the line belongs, wherever it hangs; so do its calls' results.
    let message_ids: HashSet<u64> = (0..nodes.len())
        .filter(|&i| on_line[i])
        .filter_map(|i| match nodes.role(i) {
            NodeRole::Assistant { message_id, .. } if message_id != 0 => Some(message_id),
            _ => None,
        })
        .collect();
    let mut tool_ids: HashSet<u64> = HashSet::default();
    for i in 0..nodes.len() {
        if let NodeRole::Assistant {
            message_id,
            tool_use_ids,
        } = nodes.role(i)
        {
            if message_ids.contains(&message_id) {
                tool_ids.extend(tool_use_ids.iter().copied());
            }
        }
    }
    let line = LineIds {
        messages: message_ids,
        tools: tool_ids,
    };
    // Each row on the line, and what joins it below it (a row is looked at from its parent
    // only, so the order does not matter); the stack holds only what is being walked now.
    let mut walk = Walk {
        looked_through: vec![false; nodes.len()],
        work: Vec::new(),
    };
    for top in (0..nodes.len()).rev() {
        if !on_line[top] {
            continue;
        }
        walk.work.push(top as u32);
        recover_below(nodes, children, on_line, &mut walk, &line);
    }
}

/// The messages on the line and the calls they make: a row beside the line belongs to it when
/// it is one of these messages' blocks or answers only these calls.
struct LineIds {
    messages: HashSet<u64>,
    tools: HashSet<u64>,
}

/// The walk below the line: the rows still to look under, and the rows looked through (they
/// carry no message) so that none is walked twice.
struct Walk {
    looked_through: Vec<bool>,
    work: Vec<u32>,
}

/// `recover_siblings` below the rows on `walk.work`.
fn recover_below<C: Chain + ?Sized>(
    nodes: &C,
    children: &Children,
    on_line: &mut [bool],
    walk: &mut Walk,
    line: &LineIds,
) {
    let Walk {
        looked_through,
        work,
    } = walk;
    while let Some(p) = work.pop() {
        for c in children.of(p as usize) {
            if on_line[c] || looked_through[c] {
                continue;
            }
            let belongs = match nodes.role(c) {
                NodeRole::Assistant { message_id, .. } => {
                    message_id != 0 && line.messages.contains(&message_id)
                }
                NodeRole::ToolResults(ids) => {
                    !ids.is_empty() && ids.iter().all(|id| line.tools.contains(id))
                }
                NodeRole::Message => false,
                NodeRole::Other => {
                    looked_through[c] = true;
                    work.push(c as u32);
                    continue;
                }
            };
            if belongs {
                on_line[c] = true;
                // The rows looked through on the way down are on the line with it.
                let mut up = nodes.parent(c);
                while let Some(u) = up.filter(|&u| !on_line[u]) {
                    on_line[u] = true;
                    up = nodes.parent(u);
                }
                work.push(c as u32);
            }
        }
    }
}

pub(super) fn collect_subtree(root: usize, children: &Children) -> Vec<usize> {
    let mut out = Vec::new();
    let mut seen = HashSet::default();
    let mut stack = vec![root];
    while let Some(i) = stack.pop() {
        if !seen.insert(i) {
            continue;
        }
        out.push(i);
        stack.extend(children.of(i));
    }
    out.sort_unstable();
    // The root first: it is the branch's key.
    if let Some(pos) = out.iter().position(|&i| i == root) {
        out.remove(pos);
        out.insert(0, root);
    }
    out
}

//! `session_rewound` as a rewound branch: the daemon cut the conversation back to a user turn,
//! so the turns from that one to the rewind are no longer the main line. They are sent between
//! `BranchStarted` and `BranchEnded`, which the fold makes one `branch` notice (collapsed and
//! marked rewound by every renderer, nothing lost), as for a Claude session's abandoned branch.
//!
//! The rewind comes after the turns it cuts, and what went out cannot be taken back: so when the
//! input is a regular file (which can be read twice) and mentions `session_rewound`, the file is
//! first decoded once without output (`scan`), which finds, for each rewind, the user turn its
//! branch starts at. The real pass then marks the same events as they go out (`mark`): the
//! decoder is deterministic, so the n-th prompt and the m-th rewind are the same events in both
//! passes. Standard input, pipes and `--follow` cannot be read ahead: there a rewind stays a
//! notice only, after the turns it cut.

use foldhash::{HashMap, HashSet};
use std::path::Path;

use serde_json::Value;

use crate::input::lines::LineReader;
use crate::input::{Adapter, Report, glued};
use crate::model::event::{Event, EventKind};
use crate::model::session::SystemNotice;
use crate::model::transcript::TurnOrigin;

/// Where the rewound branches of one input start and end, and how far the real pass is.
#[derive(Debug, Default)]
pub(crate) struct Branches {
    /// Prompt ordinal → how many branches start at that prompt.
    starts: HashMap<usize, usize>,
    /// Ordinals of the rewinds that end a branch.
    ends: HashSet<usize>,
    prompts: usize,
    rewinds: usize,
    /// Rewound branches the real pass is inside (they nest), whether a piece is open, and how
    /// many pieces were opened (their names).
    depth: usize,
    open: bool,
    pieces: usize,
}

/// What an event is to the branch bookkeeping.
enum Role {
    /// A prompt the user typed, on the main thread (`session_rewound` counts these).
    Prompt,
    /// The notice of a `session_rewound`, with the user turn it names (counted from 0).
    Rewind(Option<usize>),
    Other,
}

fn role(e: &Event) -> Role {
    match &e.kind {
        EventKind::UserTurn { turn, .. }
            if turn.parent_task_id.is_none()
                && turn.origin == TurnOrigin::UserInput
                && !turn.metadata.machinery.contains_key("midTurnInjection") =>
        {
            Role::Prompt
        }
        EventKind::Notice { notice } => match notice.as_ref() {
            SystemNotice::Info { source, data, .. } if source == "session_rewound" => Role::Rewind(
                data.get("targetTurnIndex")
                    .and_then(Value::as_u64)
                    .map(|i| i as usize),
            ),
            _ => Role::Other,
        },
        _ => Role::Other,
    }
}

impl Branches {
    /// Reads `path` ahead with a fresh decoder (`decoder`), output and diagnostics dropped, and
    /// finds the branches. `None` when the file names no rewind (nothing to do) or cannot be read.
    pub(crate) fn scan(path: &Path, mut decoder: Box<dyn Adapter>) -> Option<Branches> {
        let open = || std::fs::File::open(path).ok().map(std::io::BufReader::new);
        // Most files have no rewind: a plain search first.
        let mut lines = LineReader::new(open()?);
        let mut any = false;
        while let Ok(Some(l)) = lines.next_line() {
            if l.text.contains("session_rewound") {
                any = true;
                break;
            }
        }
        if !any {
            return None;
        }
        let mut report = Report {
            file: "",
            problems: &mut crate::input::Unheard,
        };
        let mut b = Branches::default();
        // The main line's prompts, as prompt ordinals (what `session_rewound` indexes).
        let mut main: Vec<usize> = Vec::new();
        let mut out = Vec::new();
        let mut see = |out: &mut Vec<Event>, b: &mut Branches| {
            for e in out.drain(..) {
                match role(&e) {
                    Role::Prompt => {
                        main.push(b.prompts);
                        b.prompts += 1;
                    }
                    Role::Rewind(idx) => {
                        let idx = idx.unwrap_or(main.len());
                        if let Some(&start) = main.get(idx) {
                            *b.starts.entry(start).or_default() += 1;
                            b.ends.insert(b.rewinds);
                            main.truncate(idx);
                        }
                        b.rewinds += 1;
                    }
                    Role::Other => {}
                }
            }
        };
        let mut lines = LineReader::new(open()?);
        while let Ok(Some(l)) = lines.next_line() {
            // Read as the main pass reads it, so that the prompts are counted alike.
            for part in glued::split(l, |_, _| {}) {
                decoder.line(&part, &mut out, &mut report);
                see(&mut out, &mut b);
            }
        }
        decoder.finish(&mut out, &mut report);
        see(&mut out, &mut b);
        b.prompts = 0;
        b.rewinds = 0;
        (!b.ends.is_empty()).then_some(b)
    }

    /// The real pass: marks the events from `from` on, in place: `BranchStarted` before each
    /// prompt a branch starts at, `BranchEnded` before the notice of the rewind that ends it.
    /// A branch holds turns only, so branches are never nested: a rewind whose branch holds an
    /// earlier one is sent as the pieces around it, each a branch of its own, in order.
    pub(crate) fn mark(&mut self, out: &mut Vec<Event>, from: usize) {
        if from >= out.len() {
            return;
        }
        let tail: Vec<Event> = out.drain(from..).collect();
        for e in tail {
            match role(&e) {
                Role::Prompt => {
                    let n = self.starts.remove(&self.prompts).unwrap_or(0);
                    if n > 0 {
                        self.close(out, e.line);
                        self.depth += n;
                    }
                    if self.depth > 0 {
                        self.open(out, e.line);
                    }
                    self.prompts += 1;
                }
                Role::Rewind(_) => {
                    if self.ends.remove(&self.rewinds) {
                        self.close(out, e.line);
                        self.depth -= 1;
                    }
                    self.rewinds += 1;
                }
                Role::Other => {
                    // What a rewound branch holds goes on in a piece of its own, once there is
                    // some (a notice alone would make an empty branch).
                    let content = !matches!(
                        e.kind,
                        EventKind::Notice { .. }
                            | EventKind::Absorbed { .. }
                            | EventKind::Debug { .. }
                            | EventKind::SessionInit { .. }
                    );
                    if self.depth > 0 && content {
                        self.open(out, e.line);
                    }
                }
            }
            out.push(e);
        }
    }

    /// Opens a branch piece unless one is open.
    fn open(&mut self, out: &mut Vec<Event>, line: u64) {
        if !self.open {
            self.open = true;
            self.pieces += 1;
            out.push(Event::at(
                line,
                EventKind::BranchStarted {
                    leaf_id: format!("rewound-{}", self.pieces),
                    thread: None,
                },
            ));
        }
    }

    /// Closes the open branch piece, if any.
    fn close(&mut self, out: &mut Vec<Event>, line: u64) {
        if self.open {
            self.open = false;
            out.push(Event::at(line, EventKind::BranchEnded));
        }
    }
}

//! Follow mode for a saved session (`scribe --follow`): the file is still being written, so its
//! chain is not complete and cannot be ordered yet. Rows are emitted in file order as they are
//! read (each read again from the file by its offset, as a finished file's are), through the
//! same `Emitter` as a finished file:
//!
//! * a prompt whose parent is not the last row shown, but an earlier row of the line shown, is
//!   a rewind: the messages shown since that row were left behind, and a `rewind` notice (an
//!   `info` notice, level warning) says which lines they were, where they were shown;
//! * sub-agent transcripts that appear beside the session (`<sid>/subagents/agent-*.jsonl`) are
//!   tailed while the session is quiet (`poll`) and their rows threaded under the Agent call
//!   their meta file names, as the stream interleaves them; a run whose call is not known by the
//!   end is kept as a `subagent` notice, as in a finished file.

use foldhash::HashSet;
use std::fs::File;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;

use serde_json::json;

use super::chain::{Chain, NodeRole};
use super::emit::{Emitter, RowOf};
use super::log::SessionLog;
use super::source::{Peek, Source, Sources};
use super::subagents::{self, Agent};
use crate::input::{InputLine, Report, fields, glued};
use crate::model::event::{Event, EventKind};
use crate::model::session::Level;

/// What follow mode has shown of one session so far.
pub(crate) struct Live {
    /// The session file followed.
    path: PathBuf,
    emitter: Emitter,
    began: bool,
    rows_done: usize,
    loose_done: usize,
    /// The last row shown on the conversation.
    tip: Option<usize>,
    tails: Vec<Tail>,
    known: HashSet<PathBuf>,
}

/// One sub-agent transcript being tailed.
struct Tail {
    path: PathBuf,
    /// The file while it is read; closed while the session is quiet (`Live::rest`).
    file: Option<File>,
    partial: Vec<u8>,
    line: u64,
    /// Where the next line starts in the file.
    offset: u64,
    agent: Agent,
    rows_done: usize,
    loose_done: usize,
    announced: bool,
}

impl Live {
    /// Follows the session at `path`; `tool_results` are where its persisted outputs are.
    pub(crate) fn new(path: PathBuf, tool_results: Vec<PathBuf>) -> Live {
        let mut sources = Sources::following();
        // Source 0, the session's rows (`SessionLog::source` defaults to it).
        sources.add(Source::Path(path.clone()));
        Live {
            path,
            emitter: Emitter::live(sources, tool_results),
            began: false,
            rows_done: 0,
            loose_done: 0,
            tip: None,
            tails: Vec::new(),
            known: HashSet::default(),
        }
    }

    /// Emits what the main file's last line added.
    pub(crate) fn emit(
        &mut self,
        log: &mut SessionLog,
        out: &mut Vec<Event>,
        report: &mut Report<'_>,
    ) {
        if !self.began && !log.rows.is_empty() {
            out.push(Event::at(0, EventKind::session(super::snapshot(log))));
            self.began = true;
        }
        while self.rows_done < log.rows.len() {
            let i = self.rows_done;
            self.rewind(log, i, out);
            self.emitter.live_row(RowOf { log, i }, &None, out, report);
            self.rows_done += 1;
        }
        while self.loose_done < log.loose().len() {
            self.emitter.loose_entry(log, self.loose_done, out, report);
            self.loose_done += 1;
        }
    }

    /// Marks the messages shown since the row a new prompt goes back to (see the module comment).
    fn rewind(&mut self, log: &SessionLog, i: usize, out: &mut Vec<Event>) {
        let tip = self.tip.replace(i);
        let is_prompt = matches!(log.role(i), NodeRole::Message);
        let (Some(tip), Some(p), true) = (tip, log.parent_so_far(i), is_prompt) else {
            return;
        };
        if p == tip {
            return;
        }
        let mut left = Vec::new();
        let mut at = Some(tip);
        while let Some(a) = at {
            if a == p || left.len() > log.rows.len() {
                break;
            }
            left.push(a);
            at = log.parent_so_far(a);
        }
        if at != Some(p) {
            return;
        }
        let lines: Vec<u64> = left
            .iter()
            .filter(|&&a| log.role(a).is_message())
            .map(|&a| log.rows[a].line())
            .collect();
        let (Some(&from), Some(&to)) = (lines.iter().min(), lines.iter().max()) else {
            return;
        };
        let back_to = log.rows[p].line();
        let leaf_id = self.emitter.uuid_of(log, tip);
        let n = lines.len();
        let text = format!(
            "rewound: the {n} message{} shown above from line {from} to line {to} {} left \
             behind; the conversation goes on from line {back_to}",
            if n == 1 { "" } else { "s" },
            if n == 1 { "was" } else { "were" },
        );
        let data = json!({
            "leafId": leaf_id,
            "fromLine": from,
            "toLine": to,
            "backToLine": back_to,
            "messages": n,
        });
        let kind = fields::info("rewind", Level::Warning, text, data);
        out.push(Event::at(log.rows[i].line(), kind));
    }

    /// Reads what grew in the sub-agent files beside the session at `path`.
    pub(crate) fn poll(&mut self, out: &mut Vec<Event>, report: &mut Report<'_>) {
        for p in subagents::agent_files(&self.path, None) {
            if self.known.contains(&p) {
                continue;
            }
            let Ok(file) = File::open(&p) else { continue };
            let file = Some(file);
            self.known.insert(p.clone());
            let mut log = SessionLog::default();
            log.peek = Peek::file(&p);
            log.source = self.emitter.sources.add(Source::Path(p.clone()));
            self.tails.push(Tail {
                agent: subagents::with_meta(&p, log),
                offset: 0,
                path: p,
                file,
                partial: Vec::new(),
                line: 0,
                rows_done: 0,
                loose_done: 0,
                announced: false,
            });
        }
        for t in &mut self.tails {
            t.read(report);
            if !t.announced {
                if t.agent.tool_use_id.is_none() {
                    // The meta file may be written after the transcript's first line.
                    let fresh = subagents::with_meta(&t.path, SessionLog::default());
                    t.agent.tool_use_id = fresh.tool_use_id;
                    t.agent.description = fresh.description;
                    t.agent.agent_type = fresh.agent_type;
                }
                let Some(call) = t.agent.tool_use_id.clone() else {
                    continue;
                };
                if t.agent.log.rows.is_empty() {
                    continue;
                }
                let line = t.agent.log.rows[0].line();
                self.emitter.announce(&call, &t.agent, line, out);
                t.announced = true;
            }
            let thread = t.agent.tool_use_id.clone();
            while t.rows_done < t.agent.log.rows.len() {
                self.emitter.live_row(
                    RowOf {
                        log: &t.agent.log,
                        i: t.rows_done,
                    },
                    &thread,
                    out,
                    report,
                );
                t.rows_done += 1;
            }
            while t.loose_done < t.agent.log.loose().len() {
                self.emitter
                    .loose_entry(&t.agent.log, t.loose_done, out, report);
                t.loose_done += 1;
            }
        }
    }

    /// The session is quiet: the sub-agent files are closed until they grow (`Tail::read` opens
    /// them again).
    pub(crate) fn rest(&mut self) {
        for t in &mut self.tails {
            t.file = None;
        }
    }

    /// The input ended (or Ctrl-C): sub-agent runs no call claimed, and the inline sidechains
    /// of the oldest CLIs, are kept as `subagent` notices.
    pub(crate) fn finish(
        &mut self,
        log: &mut SessionLog,
        out: &mut Vec<Event>,
        report: &mut Report<'_>,
    ) {
        for t in std::mem::take(&mut self.tails) {
            if !t.announced {
                let thread = Some(format!("agent-{}", t.agent.agent_id));
                self.emitter.conversation(t.agent.log, thread, out, report);
            }
        }
        for (agent_id, mut side) in log.take_sidechains() {
            // Inline sidechains are rows of the session file itself.
            side.source = log.source;
            let thread = Some(format!("agent-{agent_id}"));
            self.emitter.conversation(side, thread, out, report);
        }
    }
}

impl Tail {
    /// Reads the whole lines written since the last look.
    fn read(&mut self, report: &mut Report<'_>) {
        let Some(file) = self.opened() else {
            return;
        };
        let mut buf = Vec::new();
        if file.read_to_end(&mut buf).is_err() || buf.is_empty() {
            return;
        }
        self.partial.extend_from_slice(&buf);
        let Some(end) = memchr::memrchr(b'\n', &self.partial) else {
            return;
        };
        let whole: Vec<u8> = self.partial.drain(..=end).collect();
        let name = self.path.display().to_string();
        let mut sub = Report {
            file: &name,
            problems: report.problems,
        };
        // `whole` ends with a newline: every piece before the last (empty) one is a line.
        let mut pieces: Vec<&[u8]> = whole.split(|&b| b == b'\n').collect();
        pieces.pop();
        for raw in pieces {
            self.line += 1;
            let offset = self.offset;
            self.offset += raw.len() as u64 + 1;
            if raw.is_empty() {
                continue;
            }
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            let text = String::from_utf8_lossy(raw);
            let line = InputLine {
                number: self.line,
                offset,
                lossy: matches!(text, std::borrow::Cow::Owned(_)),
                text: text.into_owned(),
                unterminated: false,
            };
            for part in glued::split(line, |n, what| sub.warning(n, what)) {
                self.agent.log.line(&part, part.offset, &mut sub, true);
            }
        }
    }

    /// The file, opened again at where reading stopped when it was closed and has grown since.
    fn opened(&mut self) -> Option<&mut File> {
        if self.file.is_none() {
            let at = self.offset + self.partial.len() as u64;
            if !std::fs::metadata(&self.path).is_ok_and(|m| m.len() > at) {
                return None;
            }
            let mut file = File::open(&self.path).ok()?;
            file.seek(SeekFrom::Start(at)).ok()?;
            self.file = Some(file);
        }
        self.file.as_mut()
    }
}

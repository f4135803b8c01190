//! Pass 2: the indexed session (and its sub-agents) → normalized events, in chain order, a few
//! at a time.
//!
//! Each row is read again by offset when its turn comes, decoded, and let go. User and assistant
//! rows go through the shared [`ClaudeMessages`] with the session's field spellings; an Agent call
//! is followed by its sub-agent's rows, threaded under the call; an abandoned branch is sent
//! between `BranchStarted` and `BranchEnded`, which the fold turns into one `branch` notice.
//! Usage is kept on the first row of each `message.id` + `requestId` only.
//!
//! The work is a stack of frames (a conversation being written, with its position), so that
//! `drain` can stop after a batch of events and carry on where it stopped: memory holds the
//! index and one row, never the file.

/// Follow mode's entry points.
mod follow;
/// The entries outside the chain.
mod loose;
/// What tool results carry beyond the message.
mod results;
/// User and assistant rows decoded from their text.
mod text_rows;

use std::borrow::Cow;
use std::collections::VecDeque;

use foldhash::{HashMap, HashSet};
use std::path::{Path, PathBuf};

use serde_json::{Value, json};

use super::chain::{self, Step, key};
use super::entries;
use super::head::{self};
use super::log::{Body, SessionLog, UuidForm};
use super::source::Sources;
use super::subagents::{self, Agent};
use crate::input::anthropic::row::{self, Whole};
use crate::input::anthropic::stream::ClaudeMessages;
use crate::input::{Report, fields};
use crate::model::event::{Event, EventKind, Thread};
use crate::model::recent::Recent;
use crate::model::transcript::{SubagentStatus, SubagentUsage, TaskDetails};

/// How many events one `drain` call sends at most (a row's events are never split).
const BATCH: usize = 512;

/// One conversation being written.
struct Frame {
    /// Boxed: a frame is taken off the stack and put back for every row, and the log is most of
    /// its size.
    log: Box<SessionLog>,
    steps: chain::Order,
    pos: usize,
    thread: Thread,
    /// The entries read before the first chain row are written first.
    head_done: bool,
    /// An abandoned branch being written: its rows and the position in them.
    branch: Option<(Vec<u32>, usize)>,
    /// Agent calls of the row just written whose sub-agents come next: (call id, line).
    due_calls: VecDeque<(String, u64)>,
    /// The row just written, whose loose entries follow its sub-agents.
    due_anchor: Option<usize>,
    /// The log was read from a file of its own (a sub-agent's `agent-*.jsonl`): its line numbers
    /// name lines of that file, not of the input, so its events carry line 0 (a `debug`
    /// record's reason names the file and line instead), and the input's account (`--stats`)
    /// marks none of its lines.
    elsewhere: bool,
}

impl Frame {
    fn new(mut log: Box<SessionLog>, thread: Thread, elsewhere: bool) -> Frame {
        log.resolve();
        let steps = chain::order(&*log);
        log.forget_keys();
        Frame {
            log,
            steps,
            pos: 0,
            thread,
            head_done: false,
            branch: None,
            due_calls: VecDeque::new(),
            due_anchor: None,
            elsewhere,
        }
    }
}

/// Emission state shared by the main line, its branches and its sub-agents.
/// Row `i` of `log`: a row as the row writers take it, with the conversation it is read from.
#[derive(Clone, Copy)]
pub(crate) struct RowOf<'a> {
    pub(crate) log: &'a SessionLog,
    pub(crate) i: usize,
}

pub(crate) struct Emitter {
    messages: ClaudeMessages,
    /// Keys of the `message.id` + `requestId` pairs whose usage was counted: the most recent
    /// ones (the rows of one message are written together), so that a long session does not
    /// keep one for each of its messages.
    usage_seen: Recent<()>,
    agents: Vec<Option<Agent>>,
    /// Agent call id → index in `agents`.
    by_call: HashMap<String, usize>,
    /// Agent calls whose sub-agent was announced and not yet finished.
    started: HashSet<String>,
    /// Tool name (an index into `tool_names`) of the calls emitted so far that a permission
    /// decision answers, by key of its id: a denial names the tool, the result row does not.
    tool_of: HashMap<u64, u32>,
    /// Keys of the calls a permission decision answers (`SessionLog::denied`); `None` in follow
    /// mode, which cannot know ahead: every call is kept.
    denied: Option<HashSet<u64>>,
    tool_names: Vec<String>,
    /// The files rows are read again from (follow mode adds a sub-agent's as it appears).
    pub(crate) sources: Sources,
    stack: Vec<Frame>,
    /// The next sub-agent to check for being unclaimed once the main conversation is written.
    next_orphan: usize,
    /// Where full tool outputs persisted beside the session may be (see `persisted_output`).
    tool_results: Vec<PathBuf>,
    /// The source id of the session file itself (its line numbers are the input's).
    main_source: usize,
    /// Agent calls of the row being written whose sub-agents come next: (call id, line); `row`
    /// moves them to the row's frame.
    due: VecDeque<(String, u64)>,
}

impl Emitter {
    /// Matches each sub-agent to the Agent call that spawned it (`subagents::spawning_calls`);
    /// the main conversation is the first to be written.
    pub(crate) fn new(
        main: SessionLog,
        agents: Vec<Agent>,
        sources: Sources,
        tool_results: Vec<PathBuf>,
    ) -> Emitter {
        let by_call = subagents::spawning_calls(&main, &agents);
        let main_source = main.source;
        let denied = std::iter::once(&main)
            .chain(agents.iter().map(|a| &*a.log))
            .flat_map(|log| log.denied().iter().copied())
            .collect();
        Emitter {
            messages: ClaudeMessages::default(),
            usage_seen: Recent::default(),
            agents: agents.into_iter().map(Some).collect(),
            by_call,
            started: HashSet::default(),
            tool_of: HashMap::default(),
            denied: Some(denied),
            tool_names: Vec::new(),
            sources,
            stack: vec![Frame::new(Box::new(main), None, false)],
            next_orphan: 0,
            tool_results,
            main_source,
            due: VecDeque::new(),
        }
    }

    /// Reports Agent results that name a sub-agent whose transcript is not on disk.
    pub(crate) fn missing_agents(&self, report: &mut Report<'_>) {
        let Some(main) = self.stack.first() else {
            return;
        };
        let known: HashSet<&str> = self
            .agents
            .iter()
            .flatten()
            .map(|a| a.agent_id.as_str())
            .collect();
        for (line, aid, _, in_result) in &main.log.links.results {
            if *in_result && !known.contains(aid.as_str()) {
                report.warning(
                    *line,
                    &format!("sub-agent transcript agent-{aid}.jsonl not found"),
                );
            }
        }
    }

    /// Writes the next batch of events; false once everything is written.
    pub(crate) fn drain(&mut self, out: &mut Vec<Event>, report: &mut Report<'_>) -> bool {
        while out.len() < BATCH {
            let Some(mut f) = self.stack.pop() else {
                // Sub-agent runs no Agent call claimed: threaded under their own id, so the
                // fold keeps each as a `subagent` notice.
                match self.agents[self.next_orphan.min(self.agents.len())..]
                    .iter()
                    .position(Option::is_some)
                {
                    Some(p) => {
                        self.next_orphan += p;
                        if let Some(agent) = self.agents[self.next_orphan].take() {
                            let thread = Some(format!("agent-{}", agent.agent_id));
                            let elsewhere = self.elsewhere(&agent.log);
                            self.stack.push(Frame::new(agent.log, thread, elsewhere));
                        }
                        continue;
                    }
                    None => return false,
                }
            };
            let start = out.len();
            let elsewhere = f.elsewhere.then_some(f.log.source);
            if !f.head_done {
                f.head_done = true;
                self.loose(&mut f.log, None, out, report);
            } else if let Some((call, line)) = f.due_calls.pop_front() {
                self.stack.push(f);
                self.subagent(&call, line, out);
                self.relocate(elsewhere, &mut out[start..]);
                continue;
            } else if let Some(i) = f.due_anchor.take() {
                self.loose(&mut f.log, Some(i), out, report);
            } else if let Some((rows, at)) = &mut f.branch {
                match rows.get(*at).map(|&i| i as usize) {
                    Some(i) => {
                        *at += 1;
                        self.row(&mut f, i, out, report);
                    }
                    None => {
                        let last = rows.last().map_or(0, |&i| f.log.rows[i as usize].line());
                        f.branch = None;
                        out.push(Event::at(last, EventKind::BranchEnded));
                    }
                }
            } else if f.pos < f.steps.len() {
                let step = f.steps.take(f.pos);
                f.pos += 1;
                match step {
                    Step::Row(i) => {
                        self.row(&mut f, i, out, report);
                    }
                    Step::Branch(b) => {
                        let chain::Branch { rows, leaf } = *b;
                        let first_line = rows.first().map_or(0, |&i| f.log.rows[i as usize].line());
                        let leaf_id = self.uuid_of(&f.log, leaf);
                        let thread = f.thread.clone();
                        let kind = EventKind::BranchStarted { leaf_id, thread };
                        out.push(Event::at(first_line, kind));
                        f.branch = Some((rows, 0));
                    }
                }
            } else {
                // This conversation is written.
                continue;
            }
            self.relocate(elsewhere, &mut out[start..]);
            self.stack.push(f);
        }
        true
    }

    /// `Frame::elsewhere` for a log: true when it was read from a file other than the
    /// session's own.
    fn elsewhere(&self, log: &SessionLog) -> bool {
        log.source != self.main_source && !log.inline
    }

    /// Events written from source `elsewhere` (a sub-agent's file; `None`: the input itself)
    /// name no line of the input: line 0, and a `debug` record says where its line was.
    fn relocate(&self, elsewhere: Option<usize>, events: &mut [Event]) {
        let Some(source) = elsewhere else {
            return;
        };
        for e in events {
            if let EventKind::Debug { reason, .. } = &mut e.kind {
                let name = self.sources.name(source);
                let file = Path::new(&name)
                    .file_name()
                    .map_or(name.clone(), |n| n.to_string_lossy().into_owned());
                reason.push_str(&format!(" ({file} line {})", e.line));
            }
            e.line = 0;
        }
    }

    /// The uuid of a row as the output names it.
    pub(crate) fn uuid_of(&mut self, log: &SessionLog, i: usize) -> String {
        let r = &log.rows[i];
        let mut uuid = || {
            let text = self.sources.read(log.source, r.offset()).ok();
            (text.as_deref().and_then(head::read))
                .and_then(|h| h.uuid.as_str().map(str::to_owned))
                .unwrap_or_default()
        };
        match r.uuid_form() {
            UuidForm::Own => uuid(),
            UuidForm::Repeated => format!("{}#{}", uuid(), r.line()),
            UuidForm::Missing => format!("line:{}", r.line()),
        }
    }

    /// Reads a line again; a line that is not a JSON object (as pass 1 found, or because the file
    /// changed since) gives its `debug` record.
    fn reread(
        &mut self,
        source: usize,
        offset: u64,
        line: u64,
        report: &mut Report<'_>,
    ) -> Result<Value, Box<EventKind>> {
        let text = match self.sources.read(source, offset) {
            Ok(t) => t,
            Err(e) => {
                let what = format!("saved-session line could not be read again: {e}");
                if source == self.main_source {
                    report.error(line, &what);
                } else {
                    let name = self.sources.name(source);
                    report.problems.error(&name, line, &what);
                }
                return Err(Box::new(EventKind::debug(what, "", false)));
            }
        };
        match scribe_json::parse_line(&text) {
            Ok(v) if v.is_object() => Ok(v),
            // Pass 1 reported it already.
            Ok(_) => Err(Box::new(EventKind::debug("not a JSON object", text, false))),
            Err(e) => Err(Box::new(EventKind::debug(
                format!("invalid JSON: {e}"),
                text,
                false,
            ))),
        }
    }

    /// Writes row `i` of a frame's conversation, threaded as the frame is (a row of an abandoned
    /// branch is not threaded); its loose entries and sub-agents follow.
    fn row(&mut self, f: &mut Frame, i: usize, out: &mut Vec<Event>, report: &mut Report<'_>) {
        f.due_anchor = Some(i);
        let start = out.len();
        let thread = if f.branch.is_some() {
            None
        } else {
            f.thread.clone()
        };
        let at = RowOf { log: &f.log, i };
        self.write_row(at, thread, out, report);
        f.due_calls.append(&mut self.due);
        f.log.answered.say_unanswered(out, start);
    }

    /// Writes a row; the Agent calls whose sub-agents are due are added to `self.due`.
    fn write_row(
        &mut self,
        RowOf { log, i }: RowOf<'_>,
        thread: Thread,
        out: &mut Vec<Event>,
        report: &mut Report<'_>,
    ) {
        let r = &log.rows[i];
        let n = r.line();
        if let Body::Absorbed(name) = log.body(i) {
            out.push(Event::at(
                n,
                EventKind::absorbed(&log.names()[name as usize]),
            ));
            return;
        }
        if r.plain_user() && self.user_from_text(log, i, &thread, out) {
            return;
        }
        if r.is_assistant() && self.assistant_from_text(log, i, &thread, out) {
            return;
        }
        let mut v = match self.reread(log.source, r.offset(), n, report) {
            Ok(v) => v,
            Err(kind) => {
                out.push(Event::at(n, *kind));
                return;
            }
        };
        if let (Some(t), Some(o)) = (&thread, v.as_object_mut()) {
            o.insert("parent_tool_use_id".into(), json!(t));
        }
        let ty = fields::string(&v, "type");
        let before = out.len();
        match ty.as_str() {
            "assistant" => {
                let mut row = row::from_value(&v);
                let calls = text_rows::usage_once_and_calls(&mut row, &mut self.usage_seen);
                let emit = &mut |kind| out.push(Event::at(n, kind));
                let wire = &crate::input::claude::SESSION_WIRE;
                self.messages
                    .assistant_row(row, &Whole::Value(&v), wire, emit);
                for (id, name) in calls {
                    self.note_call(&id, &name, n);
                }
            }
            "user" => {
                self.persisted_output(&mut v);
                if let Some(kind) = self.denial(&v) {
                    out.push(Event::at(n, kind));
                }
                for call in result_ids(&v) {
                    if self.started.remove(call) {
                        out.push(Event::at(n, finished(call, &v)));
                    }
                }
                self.messages
                    .user(&v, &crate::input::claude::SESSION_WIRE, &mut |kind| {
                        out.push(Event::at(n, kind))
                    });
            }
            "system" => out.push(Event::at(n, entries::system(&v))),
            "attachment" => {
                if v.pointer("/attachment/type").and_then(Value::as_str) == Some("queued_command") {
                    // Input typed while the agent worked, delivered as the next user message.
                    let prompt = v
                        .pointer("/attachment/prompt")
                        .cloned()
                        .unwrap_or(Value::Null);
                    let mut user = json!({
                        "type": "user",
                        "uuid": v.get("uuid"),
                        "timestamp": v.get("timestamp"),
                        "message": {"role": "user", "content": prompt},
                    });
                    if let Some(t) = &thread {
                        user["parent_tool_use_id"] = json!(t);
                    }
                    self.queued_user(&user, n, out);
                } else {
                    out.push(Event::at(n, entries::attachment(&v)));
                }
            }
            other => out.push(Event::at(n, EventKind::absorbed(other))),
        }
        if out.len() == before && matches!(ty.as_str(), "user" | "assistant") {
            let raw = (self.sources.read(log.source, r.offset()))
                .map(Cow::into_owned)
                .unwrap_or_default();
            decoded_into_nothing(out, n, &ty, raw);
        }
    }

    /// A tool call of an assistant row: its tool's name kept by number, and, when a sub-agent
    /// waits for the call, the call queued to be written after the row.
    fn note_call(&mut self, id: &str, name: &str, n: u64) {
        let name = match self.tool_names.iter().position(|t| t == name) {
            Some(p) => p,
            None => {
                self.tool_names.push(name.to_owned());
                self.tool_names.len() - 1
            }
        };
        let id_key = key(id);
        if self.denied.as_ref().is_none_or(|d| d.contains(&id_key)) {
            self.tool_of.insert(id_key, name as u32);
        }
        if self.by_call.contains_key(id) {
            self.due.push_back((id.to_owned(), n));
        }
    }

    /// After an Agent call's row: its sub-agent's run, threaded under the call.
    fn subagent(&mut self, call: &str, line: u64, out: &mut Vec<Event>) {
        let Some(&i) = self.by_call.get(call) else {
            return;
        };
        let Some(agent) = self.agents[i].take() else {
            return;
        };
        self.announce(call, &agent, line, out);
        let elsewhere = self.elsewhere(&agent.log);
        self.stack
            .push(Frame::new(agent.log, Some(call.to_owned()), elsewhere));
    }
}

/// The `SubtaskFinished` an Agent call's result implies (the stream's `task_notification`).
fn finished(call: &str, v: &Value) -> EventKind {
    let r = v.get("toolUseResult").unwrap_or(&Value::Null);
    let is_error = blocks(v).any(|b| {
        b.get("tool_use_id").and_then(Value::as_str) == Some(call)
            && b.get("is_error").and_then(Value::as_bool) == Some(true)
    });
    let status = r
        .get("status")
        .and_then(Value::as_str)
        .and_then(SubagentStatus::from_word)
        .unwrap_or(if is_error {
            SubagentStatus::Failed
        } else {
            SubagentStatus::Completed
        });
    let summary = fields::array(r, "content")
        .iter()
        .rev()
        .find_map(|b| b.get("text").and_then(Value::as_str))
        .map(str::to_owned);
    let n = |k: &str| r.get(k).and_then(Value::as_u64);
    let usage =
        (n("totalTokens").is_some() || n("totalToolUseCount").is_some()).then(|| SubagentUsage {
            total_tokens: n("totalTokens").unwrap_or(0),
            tool_uses: n("totalToolUseCount").unwrap_or(0),
            duration_ms: n("totalDurationMs").unwrap_or(0),
        });
    EventKind::SubtaskFinished {
        task_id: fields::string(r, "agentId"),
        tool_call_id: Some(call.to_owned()),
        status,
        summary,
        usage,
        result: None,
        details: TaskDetails::default(),
    }
}

/// A conversation row that decoded into nothing (a `message` that is a string, or with no
/// `content`): kept whole in a `debug` record, not lost — however the row was decoded.
fn decoded_into_nothing(out: &mut Vec<Event>, line: u64, ty: &str, raw: String) {
    let reason = format!("{ty} row decoded into nothing");
    out.push(Event::at(line, EventKind::debug(reason, raw, false)));
}

fn blocks(v: &Value) -> impl Iterator<Item = &Value> {
    v.pointer("/message/content")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

fn result_ids(v: &Value) -> impl Iterator<Item = &str> {
    blocks(v)
        .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
        .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str))
}

/// The key of a `message.id` + `requestId` pair (without joining them into a string for every
/// assistant row).
fn usage_key(id: &str, request: &str) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    // `str::hash` ends each string with a marker byte: ("a", "bc") and ("ab", "c") differ.
    id.hash(&mut h);
    request.hash(&mut h);
    h.finish()
}

//! Sub-agents (design §14, "SubagentRecord" and ingest steps 2–5): the task events that open,
//! name, advance and freeze a run on the Agent call that started it, and the move of a run's
//! turns into that call when the call's turn is written.
//!
//! A run is held in `Folder::subthreads`, by its Agent call's id, from the first event that
//! names it (a task event, or a turn of its thread) until its call's turn is written; then it is
//! the call's `subagent` record, with its turns as the record's transcript. A task event for a
//! run already written, or for a task no call owns (a background shell, a workflow), is a `task`
//! notice instead.

use crate::model::event::EventKind;
use crate::model::session::{Level, SystemNotice};
use crate::model::transcript::{
    Part, SubagentRecord, SubagentStatus, SubagentUsage, TaskDetails, ToolCall, ToolState,
    TranscriptItem, Turn,
};

use super::Folder;
use super::calls::CallSlot;
use super::pending::ThreadTurns;

/// The turns of one sub-agent run, collected until its Agent call is written.
#[derive(Debug)]
pub(super) struct SubThread {
    pub(super) record: SubagentRecord,
    /// A `task_started` (or later task event) named it: its status is the harness's word.
    pub(super) announced: bool,
    /// A status update said it ended; its completion (final summary, usage, duration) has not
    /// come yet, so its call waits for it.
    pub(super) ended_by_update: bool,
    /// Its completion came: the record is frozen (§14 ingest step 4), no later update reopens it.
    pub(super) finished: bool,
    pub(super) turns: ThreadTurns,
}

impl SubThread {
    /// A run nothing has named yet: no task id, no description, status unknown.
    pub(super) fn new() -> SubThread {
        SubThread {
            record: SubagentRecord::unnamed(),
            announced: false,
            ended_by_update: false,
            finished: false,
            turns: ThreadTurns::default(),
        }
    }

    /// Whether the turn of the call that started this run must wait for it: announced, and
    /// still running or ended by an update whose completion has not come.
    pub(super) fn holds_its_call(&self) -> bool {
        self.announced
            && (self.record.status == SubagentStatus::Running
                || self.ended_by_update && !self.finished)
    }

    /// Whether this run goes on in the background after its call's result came (the harness's
    /// "launched"): announced, not finished, and running or ended by an update only.
    pub(super) fn runs_in_background(&self) -> bool {
        self.announced
            && !self.finished
            && (self.record.status == SubagentStatus::Running || self.ended_by_update)
    }
}

/// The deepest sub-agent nesting written as nesting. Every pass over a transcript (transforms,
/// renderers, `scribe diff`, serde) recurses once per level, so a chain of 13 900 nested
/// sub-agents overflowed the stack, and the indented text view grew quadratically. Deeper
/// sub-agents are laid out flat at this level (nothing is dropped) and a notice says so. Real
/// runs nest two or three levels; at 10, scribe's own JSONL stays within serde_json's nesting
/// limit of 128 when it is read back.
pub(super) const MAX_SUBAGENT_DEPTH: usize = 10;

/// Whether the notice about flattened sub-agents is still to be written.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum Flattened {
    #[default]
    No,
    Due,
    Told,
}

impl Folder {
    /// `SubtaskStarted`: opens (or names) the run of the call `tool_call_id`; a task no call
    /// owns is a notice. `event` is a `SubtaskStarted`, whole.
    pub(super) fn subtask_started(&mut self, event: EventKind) {
        let EventKind::SubtaskStarted {
            task_id,
            tool_call_id,
            description,
            subagent_type,
            details,
        } = event
        else {
            unreachable!("the fold dispatches only started runs here");
        };
        let Some(call_id) = tool_call_id else {
            let status = Some(SubagentStatus::Running);
            let mut n = task_notice(task_id, status, Some(description), None, None);
            set_task_details(&mut n, details);
            self.ready(n);
            return;
        };
        self.task_call.insert(task_id.clone(), call_id.clone());
        let st = self
            .subthreads
            .entry(call_id)
            .or_insert_with(SubThread::new);
        st.announced = true;
        st.record.task_id = task_id;
        st.record.description = description;
        st.record.subagent_type = subagent_type;
        st.record.details.update(details);
        if !st.finished {
            st.record.status = SubagentStatus::Running;
        }
    }

    /// `SubtaskProgress`: one more line of the run's live status, its usage so far, and what
    /// the line says beside (its last tool, its summary). `event` is a `SubtaskProgress`, whole.
    pub(super) fn subtask_progress(&mut self, event: EventKind) {
        let EventKind::SubtaskProgress {
            task_id,
            tool_call_id,
            description,
            usage,
            details,
        } = event
        else {
            unreachable!("the fold dispatches only progress here");
        };
        match self.subthread_for(&task_id, tool_call_id.as_deref()) {
            // A finished run is frozen (§14 ingest step 4): late progress is said beside it.
            Some(st) if st.record.status != SubagentStatus::Running => {
                self.ready(TranscriptItem::Notice(Box::new(SystemNotice::Info {
                    source: "task_progress".into(),
                    level: Level::Trace,
                    text: format!("progress after the sub-agent finished: {description}"),
                    data: serde_json::json!({ "taskId": task_id, "details": details }),
                })));
            }
            Some(st) => {
                if st.record.progress.last() != Some(&description) {
                    st.record.progress.push(description);
                }
                if usage.is_some() {
                    st.record.usage = usage;
                }
                st.record.details.update(details);
            }
            None => {
                let status = Some(SubagentStatus::Running);
                let mut n = task_notice(task_id, status, Some(description), None, usage);
                set_task_details(&mut n, details);
                self.ready(n);
            }
        }
    }

    /// `SubtaskUpdated`: a patch of the run's status, description or error.
    pub(super) fn subtask_updated(
        &mut self,
        task_id: String,
        status: Option<SubagentStatus>,
        description: Option<String>,
        error: Option<String>,
    ) {
        let Some(st) = self.subthread_for(&task_id, None) else {
            self.ready(task_notice(task_id, status, description, error, None));
            return;
        };
        // A finished run is frozen: a late `running` cannot reopen it.
        if let Some(s) = status.filter(|_| !st.finished) {
            st.ended_by_update = s != SubagentStatus::Running;
            st.record.status = s;
        }
        if let Some(d) = description {
            st.record.description = d;
        }
        if error.is_some() {
            st.record.error = error;
        }
    }

    /// `SubtaskFinished`: the run's completion freezes its record. `event` is a
    /// `SubtaskFinished`, whole (`Folder::push` sends nothing else here).
    pub(super) fn subtask_finished(&mut self, event: EventKind) {
        let EventKind::SubtaskFinished {
            task_id,
            tool_call_id,
            status,
            summary,
            usage,
            result,
            details,
        } = event
        else {
            unreachable!("the fold dispatches only finished runs here");
        };
        let Some(st) = self.subthread_for(&task_id, tool_call_id.as_deref()) else {
            let mut n = task_notice(task_id, Some(status), None, summary, usage);
            set_task_result(&mut n, result);
            set_task_details(&mut n, details);
            self.ready(n);
            return;
        };
        st.record.details.update(details);
        st.record.status = status;
        st.finished = true;
        if summary.is_some() {
            st.record.summary = summary;
        }
        if usage.is_some() {
            st.record.usage = usage;
        }
        if result.is_some() {
            st.record.result = result;
        }
    }

    /// The run a task event is about: the one of `call_id` when the event names its call, else
    /// the one its task id was first seen with. `None` when its call was written already (the
    /// event is a notice then) or when no call owns the task.
    fn subthread_for(&mut self, task_id: &str, call_id: Option<&str>) -> Option<&mut SubThread> {
        let call_id = match call_id {
            // A run already written, or a call written without one (a saved session's
            // `<task-notification>` for a background call whose result came long before): its
            // end is a task notice, not an orphan record.
            Some(c)
                if self.written_runs.contains(c)
                    || matches!(self.slot_of(c), Some(CallSlot::Written { .. })) =>
            {
                return None;
            }
            Some(c) => {
                self.task_call.insert(task_id.to_owned(), c.to_owned());
                c.to_owned()
            }
            None => self.task_call.get(task_id)?.clone(),
        };
        let st = self
            .subthreads
            .entry(call_id)
            .or_insert_with(SubThread::new);
        st.announced = true;
        if st.record.task_id.is_empty() {
            st.record.task_id = task_id.to_owned();
        }
        Some(st)
    }

    /// Moves each Agent call's sub-agent thread into the call; `depth` is the nesting level of
    /// `turn` (1 for a top-level turn). Recursion stops at `MAX_SUBAGENT_DEPTH`: below it,
    /// `flatten` lays the deeper threads out in one list, without recursion.
    pub(super) fn attach_subagents(&mut self, turn: &mut Turn, depth: usize) {
        for part in &mut turn.parts {
            let Part::ToolCall { call } = part else {
                continue;
            };
            let Some(mut turns) = self.take_subthread(call) else {
                continue;
            };
            if depth < MAX_SUBAGENT_DEPTH {
                for t in &mut turns {
                    self.attach_subagents(t, depth + 1);
                }
            } else {
                turns = self.flatten(turns);
            }
            if let Some(record) = call.subagent.as_mut() {
                record.transcript = turns;
            }
        }
    }

    /// The turns of a sub-agent at the deepest level shown, with every thread below them laid
    /// out in reading order (each sub-agent's turns right after the turn whose call started
    /// it). An explicit stack: a chain of 100 000 sub-agents costs no call stack.
    fn flatten(&mut self, turns: Vec<Turn>) -> Vec<Turn> {
        let mut out = Vec::with_capacity(turns.len());
        let mut stack = vec![turns.into_iter()];
        while let Some(top) = stack.last_mut() {
            let Some(mut t) = top.next() else {
                stack.pop();
                continue;
            };
            let mut below = Vec::new();
            for part in &mut t.parts {
                if let Part::ToolCall { call } = part {
                    if let Some(turns) = self.take_subthread(call) {
                        if !turns.is_empty() {
                            self.flattened = self.flattened.max(Flattened::Due);
                        }
                        below.extend(turns);
                    }
                }
            }
            out.push(t);
            if !below.is_empty() {
                stack.push(below.into_iter());
            }
        }
        out
    }

    /// The notice, written once per run before the next item, that sub-agents nested deeper than
    /// `MAX_SUBAGENT_DEPTH` are shown flattened; `None` when there is nothing (more) to say.
    pub(super) fn flattened_notice(&mut self) -> Option<TranscriptItem> {
        if self.flattened != Flattened::Due {
            return None;
        }
        self.flattened = Flattened::Told;
        Some(TranscriptItem::Notice(Box::new(SystemNotice::Info {
            source: "scribe".to_owned(),
            level: Level::Warning,
            text: format!(
                "sub-agents are nested more than {MAX_SUBAGENT_DEPTH} levels deep: the deeper \
                 ones are shown at level {MAX_SUBAGENT_DEPTH}, each right after the turn \
                 whose call started it"
            ),
            data: serde_json::Value::Null,
        })))
    }

    /// Takes an Agent call's sub-agent thread out of the fold: the call gets its record (status
    /// and description filled in, transcript empty) and the thread's turns are returned. A
    /// background task with no transcript becomes a notice after the turn instead (`None`).
    fn take_subthread(&mut self, call: &mut ToolCall) -> Option<Vec<Turn>> {
        let id = call.tool_call_id.clone();
        // A written call leaves the index of open calls; only its fingerprint stays.
        if self.call_thread.remove(&id).is_some() {
            let output = super::calls::output_fingerprint(call.output.as_ref());
            self.written_calls
                .insert(&id, (call.state.is_terminal(), output));
        }
        let SubThread {
            mut record,
            announced,
            turns,
            ..
        } = self.subthreads.remove(&id)?;
        self.written_runs.insert(&id, ());
        self.task_call.remove(&record.task_id);
        if !announced {
            record.status = status_of_call(call.state);
        }
        // A background task of a call that starts no sub-agent (a shell command run in the
        // background) and has no transcript: its outcome, not a phantom sub-agent. An Agent
        // call's run is its record even when the sub-agent sent nothing and `task_started`
        // named no agent type (§14's own shape has none).
        let starts_subagent = call.kind.subagent_description().is_some();
        if announced && turns.is_empty() && !starts_subagent && record.subagent_type.is_none() {
            let description = Some(record.description).filter(|d| !d.is_empty());
            let mut n = task_notice(
                record.task_id,
                Some(record.status),
                description,
                record.summary,
                record.usage,
            );
            set_task_result(&mut n, record.result);
            self.after_turn.push(n);
            return None;
        }
        if record.description.is_empty() {
            // A run no task event described: the Agent call's own description; the turns in the
            // thread of a call the adapter did not call a sub-agent say nothing more than its line.
            record.description = call
                .kind
                .subagent_description()
                .unwrap_or_default()
                .to_owned();
        }
        call.subagent = Some(record);
        Some(turns.into_vec())
    }

    /// The input ended: sub-agent runs whose Agent call never showed up are kept, each in a
    /// `subagent` notice (never at the top level), in the order of their call ids.
    pub(super) fn write_orphan_runs(&mut self, out: &mut Vec<TranscriptItem>) {
        let mut orphans: Vec<(String, SubThread)> = self.subthreads.drain().collect();
        orphans.sort_by(|a, b| a.0.cmp(&b.0));
        for (call_id, mut st) in orphans {
            let mut turns = std::mem::take(&mut st.turns).into_vec();
            for t in &mut turns {
                self.attach_subagents(t, 2);
            }
            st.record.transcript = turns;
            out.push(TranscriptItem::Notice(Box::new(SystemNotice::Subagent {
                tool_call_id: call_id,
                record: st.record,
            })));
        }
    }
}

/// The status of a run no task event named, from the state of the call that started it.
fn status_of_call(state: ToolState) -> SubagentStatus {
    match state {
        ToolState::Success => SubagentStatus::Completed,
        ToolState::Error | ToolState::ApprovalDenied => SubagentStatus::Failed,
        ToolState::Pending | ToolState::ApprovalPending | ToolState::Running => {
            SubagentStatus::Running
        }
    }
}

/// The notice for a task no Agent call owns (a background shell, a workflow): its state as the
/// harness reported it. (The harness's `task_type`, how it runs the task, is not kept: the
/// description tells a reader that in words, and the schema has no field for it.)
fn task_notice(
    task_id: String,
    status: Option<SubagentStatus>,
    description: Option<String>,
    summary: Option<String>,
    usage: Option<SubagentUsage>,
) -> TranscriptItem {
    TranscriptItem::Notice(Box::new(SystemNotice::Task {
        task_id,
        status,
        description,
        summary,
        usage,
        result: None,
        details: TaskDetails::default(),
    }))
}

/// Puts what a task line says beside (`TaskDetails`) on the task notice `n`.
fn set_task_details(n: &mut TranscriptItem, said: TaskDetails) {
    if let TranscriptItem::Notice(b) = n {
        if let SystemNotice::Task { details, .. } = b.as_mut() {
            details.update(said);
        }
    }
}

/// Puts a task's final report (`SubtaskFinished.result`) on the task notice `n`.
fn set_task_result(n: &mut TranscriptItem, report: Option<String>) {
    if let TranscriptItem::Notice(b) = n {
        if let SystemNotice::Task { result, .. } = b.as_mut() {
            *result = report;
        }
    }
}

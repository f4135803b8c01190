//! Follow mode (`live.rs`): the emitter handed rows, loose entries and sub-agents as they are read,
//! and the conversations no call claimed at the end.

use crate::input::Report;
use crate::input::claude::session::log::SessionLog;
use crate::input::claude::session::source::Sources;
use crate::input::claude::session::subagents::Agent;
use crate::model::event::{Event, EventKind, Thread};
use crate::model::transcript::TaskDetails;
use std::path::PathBuf;

use super::{Emitter, Frame, RowOf};

impl Emitter {
    /// Follow mode (`live.rs`): an emitter with no conversation of its own, handed rows as
    /// they are read.
    pub(crate) fn live(sources: Sources, tool_results: Vec<PathBuf>) -> Emitter {
        let mut e = Emitter::new(SessionLog::default(), Vec::new(), sources, tool_results);
        e.stack.clear();
        e.denied = None;
        e
    }

    /// Follow mode: writes row `i` of `log` as it is read, threaded under `thread`.
    pub(crate) fn live_row(
        &mut self,
        at: RowOf<'_>,
        thread: &Thread,
        out: &mut Vec<Event>,
        report: &mut Report<'_>,
    ) {
        self.write_row(at, thread.clone(), out, report);
        // No sub-agent is matched to a call ahead of time: `announce` threads each as it comes.
        self.due.clear();
    }

    /// A sub-agent's run starts under `call` (follow mode: its transcript appeared; a saved
    /// session: after the Agent call's row); its rows follow, threaded under the call.
    pub(crate) fn announce(&mut self, call: &str, agent: &Agent, line: u64, out: &mut Vec<Event>) {
        out.push(Event {
            line,
            kind: EventKind::SubtaskStarted {
                task_id: agent.agent_id.clone(),
                tool_call_id: Some(call.to_owned()),
                description: agent.description.clone(),
                subagent_type: agent.agent_type.clone(),
                details: TaskDetails::default(),
            },
        });
        self.started.insert(call.to_owned());
    }

    /// Follow mode, at the end: a whole conversation no call claimed (a sub-agent run, an
    /// inline sidechain), written in chain order under `thread`.
    pub(crate) fn conversation(
        &mut self,
        log: Box<SessionLog>,
        thread: Thread,
        out: &mut Vec<Event>,
        report: &mut Report<'_>,
    ) {
        let elsewhere = self.elsewhere(&log);
        self.stack.push(Frame::new(log, thread, elsewhere));
        loop {
            // `drain` writes while `out` is under a batch: give it room each time.
            let mut batch = Vec::new();
            let more = self.drain(&mut batch, report);
            out.append(&mut batch);
            if !more {
                break;
            }
        }
    }
}

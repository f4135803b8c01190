//! Hooks as one fact each. The harness says a hook started (and sometimes how it is going)
//! before it says how it ended; a reader wants one line per hook: its name, event, outcome and
//! output. So a hook that has not ended is held here, and its end, when it comes, stands for it
//! (keeping the output a progress report gave when the end has none). A hook that never ended
//! is written as it was last heard of, when the input ends (or when too many are waiting).

use std::collections::VecDeque;

use super::session::{HookStatus, SystemNotice};

/// Hooks waiting for their end beyond this many are written as they are: a stream whose hooks
/// never report an end keeps flat memory.
const MAX_OPEN: usize = 64;

/// The hooks that started and have not ended, oldest first.
#[derive(Debug, Default)]
pub(crate) struct OpenHooks {
    open: VecDeque<SystemNotice>,
}

/// What to do with a notice: write it now (with any hooks that had to be let go), or nothing
/// yet.
pub(crate) enum HookStep {
    /// Write these, in order.
    Write(Vec<SystemNotice>),
    /// The notice is held until its hook ends.
    Held,
}

/// Which hook a notice is about.
#[derive(PartialEq)]
enum Key<'a> {
    /// The run the harness named (`hook_id`): hooks of one name and event running at once are
    /// told apart.
    Run(&'a str),
    /// A hook with no id (a saved session's), by its name and event.
    Named(&'a str, &'a str),
}

/// Which hook a notice is about (`None`: not a hook).
fn key(n: &SystemNotice) -> Option<Key<'_>> {
    let SystemNotice::Hook {
        hook_id,
        hook_name,
        event,
        ..
    } = n
    else {
        return None;
    };
    Some(match hook_id {
        Some(id) => Key::Run(id),
        None => Key::Named(hook_name, event),
    })
}

impl OpenHooks {
    /// Takes one notice: a hook's start or progress is held, its end replaces what was held for
    /// it; every other notice passes.
    pub(crate) fn notice(&mut self, n: SystemNotice) -> HookStep {
        let SystemNotice::Hook { status, .. } = &n else {
            return HookStep::Write(vec![n]);
        };
        let at = self.open.iter().position(|o| key(o) == key(&n));
        match status {
            HookStatus::Started | HookStatus::Progress => {
                match at {
                    // A progress report: the latest word about the hook, with its output.
                    Some(i) => self.open[i] = merge(self.open[i].clone(), n),
                    None => self.open.push_back(n),
                }
                let mut spill = Vec::new();
                while self.open.len() > MAX_OPEN {
                    spill.extend(self.open.pop_front());
                }
                if spill.is_empty() {
                    HookStep::Held
                } else {
                    HookStep::Write(spill)
                }
            }
            HookStatus::Response => {
                let end = match at.and_then(|i| self.open.remove(i)) {
                    Some(before) => merge(before, n),
                    None => n,
                };
                HookStep::Write(vec![end])
            }
        }
    }

    /// The input ended: the hooks that never ended, oldest first.
    pub(crate) fn drain(&mut self) -> impl Iterator<Item = SystemNotice> + '_ {
        self.open.drain(..)
    }
}

/// The later notice about a hook, keeping the earlier one's output, exit code or outcome where
/// the later one has none.
fn merge(before: SystemNotice, mut later: SystemNotice) -> SystemNotice {
    if let (
        SystemNotice::Hook {
            output: o0,
            exit_code: e0,
            outcome: c0,
            ..
        },
        SystemNotice::Hook {
            output,
            exit_code,
            outcome,
            ..
        },
    ) = (before, &mut later)
    {
        *output = join_streams([o0.as_deref(), output.as_deref()].into_iter().flatten());
        *exit_code = exit_code.or(e0);
        *outcome = outcome.take().or(c0);
    }
    later
}

/// What a hook wrote, from texts that may repeat one another (a hook's `output` beside its
/// stdout, a progress report's output beside the end's): each text once, in order, a text held
/// whole by another left out; `None` when every text is empty.
pub(crate) fn join_streams<'a>(texts: impl IntoIterator<Item = &'a str>) -> Option<String> {
    let mut kept: Vec<&str> = Vec::new();
    for t in texts.into_iter().filter(|t| !t.is_empty()) {
        if kept.iter().any(|k| k.contains(t)) {
            continue;
        }
        kept.retain(|k| !t.contains(k));
        kept.push(t);
    }
    (!kept.is_empty()).then(|| kept.join("\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hook(status: HookStatus, output: Option<&str>) -> SystemNotice {
        SystemNotice::Hook {
            hook_id: None,
            hook_name: "PreToolUse:Bash".into(),
            event: "PreToolUse".into(),
            status,
            output: output.map(str::to_owned),
            exit_code: None,
            outcome: None,
        }
    }

    #[test]
    fn a_started_hook_is_held_and_its_end_stands_for_it() {
        let mut h = OpenHooks::default();
        assert!(matches!(
            h.notice(hook(HookStatus::Started, None)),
            HookStep::Held
        ));
        assert!(matches!(
            h.notice(hook(HookStatus::Progress, Some("half"))),
            HookStep::Held
        ));
        let HookStep::Write(w) = h.notice(hook(HookStatus::Response, None)) else {
            panic!("the end is written");
        };
        assert_eq!(w, vec![hook(HookStatus::Response, Some("half"))]);
        assert_eq!(h.drain().count(), 0);
    }

    #[test]
    fn a_hook_that_never_ended_is_written_at_the_end() {
        let mut h = OpenHooks::default();
        assert!(matches!(
            h.notice(hook(HookStatus::Started, None)),
            HookStep::Held
        ));
        assert_eq!(
            h.drain().collect::<Vec<_>>(),
            vec![hook(HookStatus::Started, None)]
        );
    }
}

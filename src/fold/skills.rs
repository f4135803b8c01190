//! Skills (design §14, "ToolCall.skill" and ingest step 7): the body of a skill (its SKILL.md,
//! sent as a synthetic user message after the Skill call's result) belongs on the call, not in
//! the scroll as a user turn.
//!
//! A Skill call whose result succeeded waits for its body in `Folder::skill_awaiting` (in result
//! order, so that parallel Skill calls each get one body). The wait ends with the body, with a
//! person's turn, with the model's next block or with the agent's `result`.

use crate::model::transcript::{SkillInfo, SyntheticReason, ToolKind, Turn, TurnOrigin};

use super::Folder;

impl Folder {
    /// Puts a synthetic user turn on the Skill call it is the body of, and says so (`true`):
    /// the call the turn names (a saved session's `sourceToolUseID`) or the awaiting call it
    /// fits. A synthetic turn for a call that is no Skill call stays a turn, marked as a skill
    /// body when it had no better reason.
    pub(super) fn take_skill_body(
        &mut self,
        turn: &mut Turn,
        source_tool_call_id: Option<String>,
    ) -> bool {
        let target = source_tool_call_id
            .inspect(|id| self.skill_awaiting.retain(|a| a != id))
            .or_else(|| self.awaited_skill(turn));
        let (Some(call_id), TurnOrigin::Synthetic { .. }) = (&target, &turn.origin) else {
            return false;
        };
        let body = turn.text();
        if let Some(call) = self.find_call(call_id) {
            if let Some(skill) = call.skill.as_mut() {
                skill.body = Some(body);
                return true;
            }
            if let ToolKind::Skill { .. } = call.kind {
                call.skill = Some(SkillInfo {
                    skill_name: String::new(),
                    body: Some(body),
                });
                return true;
            }
        }
        if let TurnOrigin::Synthetic { reason } = &mut turn.origin {
            if *reason == SyntheticReason::Other {
                *reason = SyntheticReason::SkillBody;
            }
        }
        false
    }

    /// The awaiting Skill call a synthetic turn is the body of: the one whose skill the body's
    /// "Base directory for this skill: …/<name>" names, else the earliest. Other machinery
    /// (a system reminder, hook output) is no body and leaves the calls waiting; a person's turn
    /// ends the wait.
    fn awaited_skill(&mut self, turn: &Turn) -> Option<String> {
        match &turn.origin {
            TurnOrigin::Synthetic {
                reason: SyntheticReason::SkillBody | SyntheticReason::Other,
            } => {}
            TurnOrigin::Synthetic { .. } => return None,
            TurnOrigin::UserInput
            | TurnOrigin::ToolReturn { .. }
            | TurnOrigin::SubagentPrompt { .. }
            | TurnOrigin::Replay
            | TurnOrigin::Notification
            | TurnOrigin::Model => {
                self.skill_awaiting.clear();
                return None;
            }
        }
        let text = turn.text();
        let named = text
            .trim_start()
            .strip_prefix("Base directory for this skill:")
            .and_then(|rest| rest.lines().next())
            .map(|dir| dir.trim().trim_end_matches('/'))
            .and_then(|dir| dir.rsplit('/').next())
            .filter(|name| !name.is_empty())
            .map(str::to_owned);
        let ids: Vec<String> = self.skill_awaiting.iter().cloned().collect();
        let at = named
            .and_then(|name| {
                ids.iter().position(|id| {
                    self.skill_name_of(id)
                        .is_some_and(|s| s == name || s.rsplit(':').next() == Some(name.as_str()))
                })
            })
            .unwrap_or(0);
        self.skill_awaiting.remove(at)
    }

    /// The skill a Skill call asked for (its `skill` input), to match a body to it.
    fn skill_name_of(&mut self, id: &str) -> Option<String> {
        self.find_call(id)
            .and_then(|c| c.skill.as_ref().map(|s| s.skill_name.clone()))
    }
}

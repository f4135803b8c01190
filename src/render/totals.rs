//! What the `result` notices of one input add up to, in the one place that adds them up: the
//! numbers behind the text view's closing line, the Markdown closing line and the HTML header.
//!
//! Duration and tokens are summed; the cost is the sum of each result's own part, with the
//! session's running total kept beside it (`cost`, `session_cost`). When no result gives a
//! number (a Qwen daemon's results carry none; an older Codex rollout writes no result), it is
//! counted from the assistant turns themselves; a duration nobody gave stays unknown. The turns,
//! prompts and calls are the model's [`Counts`], worded alike for every view
//! ([`Totals::turn_words`], [`Totals::call_words`]).

use super::figures::{count, seconds, thousands};
use crate::model::counts::Counts;
use crate::model::session::SystemNotice;
use crate::model::transcript::{Role, Turn, Usage};

/// The totals of the `result` notices seen so far. Exists so that every human-readable
/// renderer reports the same numbers; each only formats them.
#[derive(Debug, Default, Clone)]
pub(crate) struct Totals {
    /// `result` notices seen.
    pub(crate) results: u64,
    /// Wall time, summed over the results.
    pub(crate) duration_ms: u64,
    /// Token usage, summed over the results.
    pub(crate) usage: Usage,
    /// The results' own costs, summed: what the runs in this input cost.
    pub(crate) cost: Option<f64>,
    /// The running total the results report (Claude's `total_cost_usd`), carried over when a
    /// new process counts again from zero: what the session has cost so far, earlier runs that
    /// are not in this input included.
    session: Option<f64>,
    /// The last running total reported, and what earlier counts (before a restart) add to it.
    last_reported: f64,
    earlier_counts: f64,
    /// Some result gave a duration / a usage (else the turns' own usage is used).
    duration_given: bool,
    usage_given: bool,
    /// The usage the top-level assistant turns carry.
    turn_usage: Usage,
    /// The largest cost a saved session's `cost-state` record reported: the cost when no
    /// result gives one.
    state_cost: Option<f64>,
    /// The turns, prompts and calls of the top-level turns.
    pub(crate) counts: Counts,
}

impl Totals {
    /// Adds a notice: a `result`, or a saved session's `cost-state` record; anything else is
    /// ignored.
    pub(crate) fn add(&mut self, n: &SystemNotice) {
        if let SystemNotice::Info { source, data, .. } = n
            && source == "cost-state"
            && let Some(c) = data.get("totalCostUSD").and_then(serde_json::Value::as_f64)
        {
            self.state_cost = Some(self.state_cost.map_or(c, |have| have.max(c)));
        }
        if let SystemNotice::Result {
            cost,
            run_cost,
            duration_ms,
            usage,
            ..
        } = n
        {
            self.results = self.results.saturating_add(1);
            // Counts come from the input: a hostile one must not overflow.
            self.duration_ms = self.duration_ms.saturating_add(duration_ms.unwrap_or(0));
            self.duration_given |= duration_ms.is_some();
            if let Some(u) = usage {
                self.usage_given = true;
                self.usage.add(u);
            }
            if let Some(c) = *cost {
                // A total that falls is a new process counting from zero.
                if c < self.last_reported {
                    self.earlier_counts += self.last_reported;
                }
                self.last_reported = c;
                self.session = Some(self.earlier_counts + c);
            }
            // The first result of an input without a stated part: its total is its own.
            if let Some(own) = run_cost.or(*cost) {
                self.cost = Some(self.cost.unwrap_or(0.0) + own);
            }
        }
    }

    /// What the runs in this input cost: the results' own costs, else the largest cost a
    /// saved session's `cost-state` record gave.
    pub(crate) fn own_cost(&self) -> Option<f64> {
        self.cost.or(self.state_cost)
    }

    /// The session's running total, when it is more than what the runs in this input cost
    /// (a resumed run whose result counts the earlier runs too).
    pub(crate) fn session_cost(&self) -> Option<f64> {
        let (own, session) = (self.cost?, self.session?);
        (session - own >= 0.00005).then_some(session)
    }

    /// The cost as every closing line and footer says it: `$0.1234`, and
    /// `$0.1234 · $1.5000 session total` when the session's running total is larger.
    pub(crate) fn cost_label(&self) -> Option<String> {
        let own = self.own_cost()?;
        Some(match self.session_cost() {
            Some(s) => format!("${own:.4} · ${s:.4} session total"),
            None => format!("${own:.4}"),
        })
    }

    /// Adds a top-level turn: its calls are counted, and an assistant turn's usage is kept for
    /// when no result gives one.
    pub(crate) fn add_turn(&mut self, t: &Turn) {
        self.counts.add_turn(t);
        if t.role == Role::Assistant
            && t.parent_task_id.is_none()
            && let Some(u) = &t.metadata.usage
        {
            self.turn_usage.add(u);
        }
    }

    /// True when there is something to report: a result, or turns to count.
    pub(crate) fn any(&self) -> bool {
        self.results > 0 || self.counts.turns > 0
    }

    /// The closing line's figures, in order: turns, wall time, tokens, cost and calls; none
    /// when there is nothing to report. The text view and Markdown join them with ` · `.
    pub(crate) fn figures(&self) -> Vec<String> {
        if !self.any() {
            return Vec::new();
        }
        let mut bits = vec![self.turn_words()];
        bits.extend(self.duration().map(seconds));
        bits.push(format!(
            "{} in · {} out tokens",
            thousands(self.input_tokens()),
            thousands(self.usage().output_tokens)
        ));
        bits.extend(self.cost_label());
        bits.extend(self.call_words());
        bits
    }

    /// `12 turns (3 prompts)`: the transcript's top-level turns, and how many were prompts.
    pub(crate) fn turn_words(&self) -> String {
        let Counts { turns, prompts, .. } = self.counts;
        format!("{} ({})", count(turns, "turn"), count(prompts, "prompt"))
    }

    /// `8 tool calls · 2 errors · 1 denied · 5 more in sub-agents (1 failed or denied)`: the
    /// main thread's calls, what became of them, and the calls its sub-agents made; `None`
    /// when there are no calls at all.
    pub(crate) fn call_words(&self) -> Option<String> {
        let c = self.counts;
        if c.calls == 0 && c.sub_calls == 0 {
            return None;
        }
        let mut words = vec![count(c.calls, "tool call")];
        words.extend(call_outcomes(&c));
        let mut s = words.join(" · ");
        if c.sub_calls > 0 && c.sub_failed > 0 {
            s.push_str(&format!(" ({} failed or denied)", c.sub_failed));
        }
        Some(s)
    }

    /// The wall time, when some result gave it (`None`: unknown, never `0.0s`).
    pub(crate) fn duration(&self) -> Option<u64> {
        self.duration_given.then_some(self.duration_ms)
    }

    /// The usage: summed over the results when they give it, else over the turns.
    pub(crate) fn usage(&self) -> &Usage {
        if self.usage_given {
            &self.usage
        } else {
            &self.turn_usage
        }
    }

    /// The input tokens of [`Totals::usage`], cached ones included ([`all_input`]).
    pub(crate) fn input_tokens(&self) -> u64 {
        all_input(self.usage())
    }
}

/// What became of calls beside their number, as the closing lines and the archive's index say
/// it: `2 errors`, `1 denied`, `5 more in sub-agents`, each only when it is not nought.
pub(crate) fn call_outcomes(c: &Counts) -> Vec<String> {
    let mut out = Vec::new();
    if c.errors > 0 {
        out.push(count(c.errors, "error"));
    }
    if c.denied > 0 {
        out.push(format!("{} denied", c.denied));
    }
    if c.sub_calls > 0 {
        out.push(format!("{} more in sub-agents", c.sub_calls));
    }
    out
}

/// Input tokens including the cached ones (cache reads and writes): the one figure every
/// closing line, footer and the archive's index show, so that they agree.
pub(crate) fn all_input(u: &Usage) -> u64 {
    u.input_tokens
        .saturating_add(u.cache_read_input_tokens)
        .saturating_add(u.cache_creation_input_tokens)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(cost: Option<f64>, turns: u64) -> SystemNotice {
        SystemNotice::Result {
            subtype: "success".into(),
            is_error: false,
            cost,
            run_cost: None,
            turns: Some(turns),
            duration_ms: Some(1000),
            duration_api_ms: None,
            usage: Some(Usage {
                input_tokens: 1,
                output_tokens: 2,
                cache_read_input_tokens: 3,
                cache_creation_input_tokens: 4,
            }),
            text: None,
            stop_reason: None,
            errors: Vec::new(),
            terminal_reason: None,
            permission_denials: Vec::new(),
            structured_output: None,
            model_usage: None,
            fast_mode_state: None,
        }
    }

    #[test]
    fn results_add_up_and_a_restarted_count_adds_to_the_session() {
        let mut t = Totals::default();
        t.add(&SystemNotice::SessionState {
            state: "idle".into(),
        });
        assert_eq!(t.results, 0);
        t.add(&result(Some(0.5), 2));
        t.add(&result(None, 1));
        t.add(&result(Some(0.25), 3));
        assert_eq!((t.results, t.duration_ms), (3, 3000));
        // No stated parts: each total is taken whole, and the fall is a new count.
        assert_eq!(t.cost, Some(0.75));
        assert_eq!(t.session_cost(), None);
        assert_eq!(t.cost_label().as_deref(), Some("$0.7500"));
        assert_eq!(t.input_tokens(), 24);
        assert_eq!(t.usage.output_tokens, 6);
    }

    #[test]
    fn a_resumed_run_costs_its_own_part_and_the_session_total_is_labelled() {
        let mut t = Totals::default();
        let mut r = result(Some(1.25), 1);
        if let SystemNotice::Result { run_cost, .. } = &mut r {
            *run_cost = Some(0.25);
        }
        t.add(&r);
        assert_eq!((t.cost, t.session_cost()), (Some(0.25), Some(1.25)));
        assert_eq!(
            t.cost_label().as_deref(),
            Some("$0.2500 · $1.2500 session total")
        );
    }

    #[test]
    fn the_turns_are_the_transcripts_and_usage_comes_from_turns_without_results() {
        use crate::model::transcript::{TurnMeta, TurnOrigin};
        let turn = |role, usage| {
            let meta = TurnMeta {
                usage,
                ..TurnMeta::default()
            };
            Turn::new("t".into(), role, TurnOrigin::Model, Vec::new()).with_meta(meta)
        };
        let mut t = Totals::default();
        assert!(!t.any());
        t.add_turn(&turn(Role::User, None));
        t.add_turn(&turn(
            Role::Assistant,
            Some(Usage {
                input_tokens: 5,
                output_tokens: 2,
                ..Usage::default()
            }),
        ));
        t.add_turn(&turn(Role::Assistant, None));
        assert!(t.any());
        assert_eq!(
            (t.turn_words().as_str(), t.duration()),
            ("3 turns (0 prompts)", None)
        );
        assert_eq!((t.input_tokens(), t.usage().output_tokens), (5, 2));
        // A result's usage wins over the turns'; its turn count is the harness's own, not the
        // transcript's.
        t.add(&result(None, 7));
        assert_eq!(
            (t.turn_words().as_str(), t.duration()),
            ("3 turns (0 prompts)", Some(1000))
        );
        assert_eq!(t.input_tokens(), 8);
    }
}

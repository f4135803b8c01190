//! What the `result` notices of one input add up to: the numbers behind the text view's closing
//! line, the Markdown closing line and the HTML footer.
//!
//! Each renderer used to add them up itself; this is the one place that knows how (turns,
//! duration and tokens are summed, the cost is a running total).

use crate::model::session::SystemNotice;
use crate::model::transcript::Usage;

/// The totals of the `result` notices seen so far. Exists so that every human-readable
/// renderer reports the same numbers; each only formats them.
#[derive(Debug, Default, Clone)]
pub(crate) struct Totals {
    /// `result` notices seen.
    pub(crate) results: u64,
    /// Agent turns, summed over the results.
    pub(crate) turns: u64,
    /// Wall time, summed over the results.
    pub(crate) duration_ms: u64,
    /// Token usage, summed over the results.
    pub(crate) usage: Usage,
    /// Claude reports the session's running cost in every result: the largest one is the total.
    pub(crate) cost: Option<f64>,
}

impl Totals {
    /// Adds a notice: only a `result` counts, anything else is ignored.
    pub(crate) fn add(&mut self, n: &SystemNotice) {
        if let SystemNotice::Result {
            cost,
            turns,
            duration_ms,
            usage,
            ..
        } = n
        {
            self.results = self.results.saturating_add(1);
            // Counts come from the input: a hostile one must not overflow.
            self.turns = self.turns.saturating_add(turns.unwrap_or(0));
            self.duration_ms = self.duration_ms.saturating_add(duration_ms.unwrap_or(0));
            if let Some(u) = usage {
                self.usage.add(u);
            }
            if let Some(c) = cost {
                self.cost = Some(self.cost.map_or(*c, |t| t.max(*c)));
            }
        }
    }

    /// Input tokens including the cached ones (cache reads and writes): the one figure every
    /// closing line and footer shows, so text, Markdown and HTML agree.
    pub(crate) fn input_tokens(&self) -> u64 {
        let u = &self.usage;
        u.input_tokens
            .saturating_add(u.cache_read_input_tokens)
            .saturating_add(u.cache_creation_input_tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(cost: Option<f64>, turns: u64) -> SystemNotice {
        SystemNotice::Result {
            subtype: "success".into(),
            is_error: false,
            cost,
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
        }
    }

    #[test]
    fn results_add_up_and_the_largest_cost_wins() {
        let mut t = Totals::default();
        t.add(&SystemNotice::SessionState {
            state: "idle".into(),
        });
        assert_eq!(t.results, 0);
        t.add(&result(Some(0.5), 2));
        t.add(&result(None, 1));
        t.add(&result(Some(0.25), 3));
        assert_eq!((t.results, t.turns, t.duration_ms), (3, 6, 3000));
        assert_eq!(t.cost, Some(0.5));
        assert_eq!(t.input_tokens(), 24);
        assert_eq!(t.usage.output_tokens, 6);
    }
}

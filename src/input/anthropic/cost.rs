//! A result's own cost, told apart from the running total the CLI reports.
//!
//! `result.total_cost_usd` is a running total, not the cost of the run it closes: within one
//! process every result restates the process's spend so far (several prompts fed to one
//! `--input-format stream-json` process), and newer CLIs continue the count of the whole persisted
//! session after `--resume`, where older ones restart at zero in the new process. Newer CLIs also
//! say the run's own part (`model_usage_since_last_result`, per model, with `costUSD`). The run's
//! cost is, in order of trust:
//! 1. the sum of `model_usage_since_last_result.*.costUSD` when the result carries it;
//! 2. the rise of the running total since the previous result of the same input;
//! 3. the whole total when it fell (a new process that counts from zero: a resumed run of an
//!    older CLI, appended to the same file).
//!
//! The first result of an input without (1) has no earlier total to compare with: its run cost
//! stays unknown (`None`) and readers take the total as the run's, which is what every CLI
//! without (1) reports for a run that was not resumed.

use serde_json::Value;

/// The running total of the previous result in this input. Exists so that each result can say
/// its own cost beside the cumulative one it reports.
#[derive(Debug, Default)]
pub(crate) struct CostLedger {
    last_total: Option<f64>,
}

impl CostLedger {
    /// The run's own cost of a `result` line whose reported running total is `total` and whose
    /// `model_usage_since_last_result` is `per_model` (see the module doc for the order of
    /// trust); remembers the total for the next result.
    pub(crate) fn run_cost(
        &mut self,
        per_model: Option<&Value>,
        total: Option<f64>,
    ) -> Option<f64> {
        let stated = since_last_result(per_model);
        let Some(total) = total else {
            return stated;
        };
        let previous = self.last_total.replace(total);
        stated.or_else(|| previous.map(|p| if total >= p { total - p } else { total }))
    }
}

/// The sum of `model_usage_since_last_result.*.costUSD`, when the result gives any.
fn since_last_result(per_model: Option<&Value>) -> Option<f64> {
    let per_model = per_model?.as_object()?;
    let costs: Vec<f64> = per_model
        .values()
        .filter_map(|m| m.get("costUSD").and_then(Value::as_f64))
        .collect();
    (!costs.is_empty()).then(|| costs.iter().sum())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn the_rise_of_the_total_is_the_run_and_a_fall_is_a_new_count() {
        let mut l = CostLedger::default();
        assert_eq!(l.run_cost(None, Some(0.5)), None);
        assert_eq!(l.run_cost(None, Some(0.75)), Some(0.25));
        // A new process of an older CLI starts again at zero: all of it is this run's.
        assert_eq!(l.run_cost(None, Some(0.125)), Some(0.125));
        assert_eq!(l.run_cost(None, None), None);
    }

    #[test]
    fn a_stated_part_wins_over_the_difference() {
        let mut l = CostLedger::default();
        let v = json!({"a": {"costUSD": 0.25}, "b": {"costUSD": 0.5}, "c": {"inputTokens": 3}});
        assert_eq!(l.run_cost(Some(&v), Some(3.0)), Some(0.75));
        assert_eq!(l.run_cost(Some(&json!({})), Some(3.5)), Some(0.5));
    }
}

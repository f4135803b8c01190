//! No quadratic path (issue 14 point 2): a run on an input four times larger takes well under
//! sixteen times as long. Each case is compared with itself at two sizes in the same test, so the
//! machine's load cancels out; the bound (8×) is far from linear (4×) and from quadratic (16×).

use std::time::{Duration, Instant};

use crate::util::scribe;

/// A Claude Code stream of `turns` assistant turns, each naming a tool call, so that every turn
/// brings new ids (`--stable` numbers them and looks for them in text).
fn stream(turns: usize) -> String {
    let session = "5f0c2a9e-0000-4c1b-9d7e-2b8f1e6a3c10";
    let mut s = format!(
        "{{\"type\":\"system\",\"subtype\":\"init\",\"cwd\":\"/x\",\"session_id\":\"{session}\",\"tools\":[\"Bash\"],\"model\":\"m\",\"uuid\":\"init-000000\"}}\n"
    );
    for i in 0..turns {
        s.push_str(&format!(
            "{{\"type\":\"assistant\",\"message\":{{\"id\":\"msg_{i:012}\",\"role\":\"assistant\",\"model\":\"m\",\"content\":[{{\"type\":\"text\",\"text\":\"turn {i} after msg_{prev:012}\"}},{{\"type\":\"tool_use\",\"id\":\"toolu_{i:012}\",\"name\":\"Bash\",\"input\":{{\"command\":\"echo {i}\"}}}}]}},\"session_id\":\"{session}\",\"uuid\":\"a-{i:010}\"}}\n",
            prev = i.saturating_sub(1)
        ));
        s.push_str(&format!(
            "{{\"type\":\"user\",\"message\":{{\"role\":\"user\",\"content\":[{{\"type\":\"tool_result\",\"tool_use_id\":\"toolu_{i:012}\",\"content\":\"ran toolu_{i:012}\"}}]}},\"session_id\":\"{session}\",\"uuid\":\"u-{i:010}\"}}\n"
        ));
    }
    s
}

/// The faster of two runs of scribe with `args` over `input`.
fn best_time(args: &[&str], input: &str) -> Duration {
    (0..2)
        .map(|_| {
            let start = Instant::now();
            scribe().args(args).write_stdin(input).assert().success();
            start.elapsed()
        })
        .min()
        .expect("two runs")
}

fn assert_linear(args: &[&str]) {
    let small = stream(1_000);
    let large = stream(4_000);
    let t_small = best_time(args, &small);
    let t_large = best_time(args, &large);
    let ratio = t_large.as_secs_f64() / t_small.as_secs_f64();
    assert!(
        ratio < 8.0,
        "scribe {args:?}: 4x input took {ratio:.1}x the time ({t_small:?} -> {t_large:?})"
    );
}

#[test]
fn stable_is_linear_in_the_number_of_ids() {
    assert_linear(&["--to", "jsonl", "--stable"]);
}

#[test]
fn stable_html_is_linear_in_the_number_of_ids() {
    assert_linear(&["--to", "html", "--stable"]);
}

//! Command-line behaviour: inputs, exit codes, diagnostics.

use crate::util::{json_lines, scribe};

#[test]
fn reads_stdin_and_writes_a_header_first() {
    let out = scribe()
        .args(["--to", "jsonl"])
        .write_stdin("{\"type\":\"assistant\",\"message\":{\"id\":\"m1\",\"content\":[{\"type\":\"text\",\"text\":\"hi\"}]},\"parent_tool_use_id\":null}\n")
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let recs = json_lines(&out);
    assert_eq!(recs[0]["kind"], "header");
    assert_eq!(recs[0]["version"], 1);
    assert_eq!(recs[1]["kind"], "turn");
    assert_eq!(recs[1]["parts"][0]["text"], "hi");
}

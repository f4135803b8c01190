//! The codex-rollout adapter: any bytes, read as `--from codex-rollout`, folded and written as JSONL.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    agent_scribe::fuzzing::run(&["--from", "codex-rollout", "--to", "jsonl"], data);
});

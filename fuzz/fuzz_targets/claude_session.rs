//! The claude-session adapter: any bytes, read as `--from claude-session`, folded and written as JSONL.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    agent_scribe::fuzzing::run(&["--from", "claude-session", "--to", "jsonl"], data);
});

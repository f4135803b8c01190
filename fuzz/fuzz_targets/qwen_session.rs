//! The qwen-session adapter: any bytes, read as `--from qwen-session`, folded and written as JSONL.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    agent_scribe::fuzzing::run(&["--from", "qwen-session", "--to", "jsonl"], data);
});

//! The qwen-daemon adapter: any bytes, read as `--from qwen-daemon`, folded and written as JSONL.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    agent_scribe::fuzzing::run(&["--from", "qwen-daemon", "--to", "jsonl"], data);
});

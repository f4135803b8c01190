//! The qwen-stream adapter: any bytes, read as `--from qwen-stream`, folded and written as JSONL.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    agent_scribe::fuzzing::run(&["--from", "qwen-stream", "--to", "jsonl"], data);
});

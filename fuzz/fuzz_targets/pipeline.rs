//! The whole pipeline: any bytes, detected (no `--from`), through `--stable --redact` and the
//! plain path, to every output format. The first byte picks the format and the passes, so that
//! one corpus covers them all.
#![no_main]

use agent_scribe::fuzzing::{OUTPUTS, run};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let to = OUTPUTS[usize::from(pick) % OUTPUTS.len()];
    let mut args = vec!["--to", to];
    if pick & 0x80 != 0 {
        args.extend(["--stable", "--redact"]);
    }
    if pick & 0x40 != 0 {
        args.push("--full");
    }
    run(&args, input);
});

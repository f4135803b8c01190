//! The parse floor of `benches/throughput.sh`: reads JSON Lines and parses every line with serde
//! into nothing (`IgnoredAny`), the least any JSON Lines filter must do. Prints the line count.
//!
//!     cargo build --release --example parse_floor && target/release/examples/parse_floor FILE

use std::io::{BufRead, BufReader};

fn main() {
    let path = std::env::args().nth(1).expect("usage: parse_floor FILE");
    let mut input = BufReader::with_capacity(1 << 16, std::fs::File::open(path).expect("open"));
    let mut line = Vec::new();
    let (mut lines, mut bad) = (0u64, 0u64);
    while input.read_until(b'\n', &mut line).expect("read") > 0 {
        lines += 1;
        if serde_json::from_slice::<serde::de::IgnoredAny>(&line).is_err() {
            bad += 1;
        }
        line.clear();
    }
    println!("{lines} lines, {bad} not JSON");
}

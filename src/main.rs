//! The `scribe` binary: all of it is in the library (`src/lib.rs`), so that the fuzz targets in
//! `fuzz/` run the same code.

fn main() -> std::process::ExitCode {
    agent_scribe::main()
}

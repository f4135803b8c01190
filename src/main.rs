//! The `scribe` binary: all of it is in the library (`src/lib.rs`), so that the fuzz targets in
//! `fuzz/` run the same code.

/// mimalloc instead of the system allocator: a run allocates and frees small strings and maps
/// for every line (docs/performance.md). Built with transparent huge pages refused (its `no_thp`
/// feature): where the kernel gives them to any mapping, each page mimalloc touches would be
/// 2 MiB of resident memory. Its other options are its defaults: with a saved session's index
/// as small as it is now, freed memory held for mimalloc's default delay keeps the peak of a
/// 1 GiB session within bounds (docs/performance.md), so no option is set at run time.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    agent_scribe::main()
}

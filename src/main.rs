//! The `scribe` binary: all of it is in the library (`src/lib.rs`), so that the fuzz targets in
//! `fuzz/` run the same code.

/// mimalloc instead of the system allocator: a run allocates and frees small strings and maps
/// for every line (docs/performance.md). Built with transparent huge pages refused (its `no_thp`
/// feature): where the kernel gives them to any mapping, each page mimalloc touches would be
/// 2 MiB of resident memory.
#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// mimalloc.h's `mi_option_purge_delay` in the C source `libmimalloc-sys` 0.1.49 builds (its
/// v3; the binding has no name for it, and is pinned to that version in `Cargo.toml`).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;

/// Milliseconds freed memory is held before it goes back to the system. mimalloc v3 holds it
/// a second by default: a saved session's first pass frees each line as the next is read and
/// its chain order is built as its index is let go, so memory freed that second stayed
/// resident and the peak grew with the session (docs/performance.md).
const PURGE_DELAY_MS: std::ffi::c_long = 10;

fn main() -> std::process::ExitCode {
    // SAFETY: mimalloc allows setting an option at any time; the value is a plain integer.
    unsafe { libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, PURGE_DELAY_MS) };
    agent_scribe::main()
}

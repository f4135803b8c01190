//! mimalloc's options: how long freed memory is held before it goes back to the system, and no
//! transparent huge pages (issue 14). The binary sets them before anything allocates
//! (`src/main.rs`); several inputs hold freed memory longer (`pipeline`), and a
//! Claude saved session gives it back sooner (`pipeline::driver`).
//!
//! Only the delay's trade changes between the cases: giving memory back soon keeps one large
//! input's peak low (a saved session's first pass frees its tables as the second builds its
//! own), and holding it spares many small inputs converted on several threads the work of
//! giving pages back and taking them again.

/// mimalloc.h's `mi_option_purge_delay` and `mi_option_allow_thp` (the Rust binding has no
/// names for them, and is pinned to the version whose header these numbers are from).
const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
const MI_OPTION_ALLOW_THP: libmimalloc_sys::mi_option_t = 43;

/// Milliseconds freed memory is held when one input is converted (a stream, or any format but
/// a Claude saved session). On two threads each thread has its own heap and the renderer's
/// frees come back to the driver's in batches: at 2 ms `--to jsonl` of the bench's 42 MB stream
/// faulted 4 100 pages and took 0.35 s of CPU (best of 9: 201 ms), at 10 ms 2 400 pages and
/// 0.29 s (183 ms) (AMD EPYC, 2026-12-06).
const ONE_INPUT_DELAY_MS: std::ffi::c_long = 10;
/// Milliseconds freed memory is held while a Claude saved session is converted. Its first pass
/// frees its tables as the second builds its own: with memory held 10 ms and one input on
/// two threads (each with its own heap), `--stable --to jsonl` of a 1 GiB session peaked at
/// 61–69 MB; after 2 ms it peaks at 52 MB (49 at 0 ms, with a third more system time).
const SAVED_SESSION_DELAY_MS: std::ffi::c_long = 2;
/// Milliseconds freed memory is held while several inputs are converted (into a directory or
/// onto standard output). At
/// 2 ms, `-o DIR --to html` over 170 generated sessions (54 MB) faulted 8 700 pages with
/// `--jobs 1` (0.53–0.60 s) and 32 900 with `--jobs 2` (0.36–0.43 s); at 10 ms 3 800 and
/// 10 900 (0.49 s and 0.28 s), Markdown alike (this machine kind's Xeon). Each input there is
/// small next to the 64 MB bound of one large input. On standard output (`pipeline::ordered`),
/// `--to md` of the same sessions with `--jobs 2` faulted 10 500 pages at 2 ms (105 ms) and
/// 3 800 at 10 ms (90 ms), 2026-12-06.
const SEVERAL_INPUTS_DELAY_MS: std::ffi::c_long = 10;

/// The options a run starts with; called before anything allocates (the binary's constructor).
/// Transparent huge pages are refused: mimalloc asks Linux for them otherwise, which makes every
/// page it touches 2 MiB of resident memory (a 40 MB stream then peaked at 28 MB instead of 11).
pub fn options_at_start() {
    // SAFETY: setting an option is allowed at any time; the values are plain integers.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_ALLOW_THP, 0);
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, ONE_INPUT_DELAY_MS);
    }
}

/// Set once several inputs are converted: their delay then holds.
static SEVERAL: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Freed memory is held longer from now on: several inputs are about to be converted. mimalloc
/// reads the delay each time it schedules a purge.
pub(crate) fn several_inputs() {
    SEVERAL.store(true, std::sync::atomic::Ordering::Relaxed);
    // SAFETY: as in `options_at_start`.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, SEVERAL_INPUTS_DELAY_MS);
    }
}

/// Freed memory is given back soon from now on: a Claude saved session is about to be read in
/// two passes (unless several inputs are converted, each small next to the
/// bound). Called by the input driver when it picks the saved-session reader.
pub(crate) fn saved_session() {
    if SEVERAL.load(std::sync::atomic::Ordering::Relaxed) {
        return;
    }
    // SAFETY: as in `options_at_start`.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, SAVED_SESSION_DELAY_MS);
    }
}

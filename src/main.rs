//! The `scribe` binary: all of it is in the library (`src/lib.rs`), so that the fuzz targets in
//! `fuzz/` run the same code.

/// mimalloc instead of the system allocator: a run allocates and frees small strings and maps
/// for every line, and glibc's malloc and free were a fifth of a `--to jsonl` run's instructions
/// (issue 14). With it a run takes 9–18 % less CPU on a 42 MB stream; peak memory on a 1 GiB
/// stream is lower than with glibc's (see `mimalloc_options`). C code in the binary (Oniguruma)
/// allocates through it too: the binding is built to override `malloc` and `free` (Cargo.toml).
#[global_allocator]
static ALLOCATOR: Mimalloc = Mimalloc;

/// mimalloc through its plain entry points: the `mimalloc` crate's allocator calls the aligned
/// ones for every allocation, which test the alignment and look for a page twice before they
/// reach the plain path (5 % of a `--to jsonl` run's instructions went to them, issue 14).
/// Every block mimalloc hands out is aligned to at least a word (its block sizes are multiples
/// of a word and its pages start 16-byte aligned), so a layout that asks for no more than a
/// word takes the plain calls; a larger alignment still goes through the aligned ones.
struct Mimalloc;

/// The alignment every mimalloc block has (`MI_INTPTR_SIZE`).
const WORD: usize = std::mem::size_of::<usize>();

// SAFETY: each call hands mimalloc's own pointers back to it, and a plain call is only made
// when every block it could return already has the layout's alignment (see `Mimalloc`).
unsafe impl std::alloc::GlobalAlloc for Mimalloc {
    unsafe fn alloc(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: as for the impl.
        unsafe {
            if layout.align() <= WORD {
                libmimalloc_sys::mi_malloc(layout.size()).cast()
            } else {
                libmimalloc_sys::mi_malloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn alloc_zeroed(&self, layout: std::alloc::Layout) -> *mut u8 {
        // SAFETY: as for the impl.
        unsafe {
            if layout.align() <= WORD {
                libmimalloc_sys::mi_zalloc(layout.size()).cast()
            } else {
                libmimalloc_sys::mi_zalloc_aligned(layout.size(), layout.align()).cast()
            }
        }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, _layout: std::alloc::Layout) {
        // SAFETY: as for the impl.
        unsafe { libmimalloc_sys::mi_free(ptr.cast()) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: std::alloc::Layout, size: usize) -> *mut u8 {
        // SAFETY: as for the impl.
        unsafe {
            if layout.align() <= WORD {
                libmimalloc_sys::mi_realloc(ptr.cast(), size).cast()
            } else {
                libmimalloc_sys::mi_realloc_aligned(ptr.cast(), size, layout.align()).cast()
            }
        }
    }
}

/// Two of mimalloc's options, set from a constructor that runs before anything allocates:
/// - it asks Linux for transparent huge pages, which makes every page it touches 2 MiB of
///   resident memory: a 40 MB stream then peaked at 28 MB instead of 11;
/// - it gives freed memory back to the system only after a delay, so a saved session, whose
///   first pass frees its tables as the second builds its own, held both: a 1 GiB session
///   peaked at 65 MB. Giving memory back at once (54 MB) cost `-o DIR --jobs 2` three times
///   the system time (0.2–0.3 s against 0.07–0.12 on 24 sessions), as pages freed on one
///   thread were given back and taken again. 10 ms was kept until one input ran on two
///   threads, each with its own heap: then `--stable --to jsonl` of a 1 GiB session peaked at
///   61–69 MB. After 2 ms it peaks at 55 MB (49 at 0 ms, with a third more system time), every
///   format at 1 GiB at 49–56 MB, and `-o DIR` and a 42 MB stream take as long as at 10 ms
///   (within the noise of ten runs; `-o DIR --jobs 2` 1.9× faster than `--jobs 1`).
///
/// Both must be set before mimalloc reserves its first arena, which happens before `main` (the
/// runtime allocates), so they are set from a prioritised `.init_array` entry (those run before
/// the unprioritised ones, the runtime's among them).
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array.00100")]
static MIMALLOC_OPTIONS: extern "C" fn() = mimalloc_options;

/// No transparent huge pages, and freed memory given back after 2 ms (mimalloc.h's
/// `mi_option_allow_thp` and `mi_option_purge_delay`; the Rust binding has no names for them,
/// and is pinned to the version whose header these numbers are from).
#[cfg(target_os = "linux")]
extern "C" fn mimalloc_options() {
    const MI_OPTION_PURGE_DELAY: libmimalloc_sys::mi_option_t = 15;
    const MI_OPTION_ALLOW_THP: libmimalloc_sys::mi_option_t = 43;
    // SAFETY: setting an option is allowed at any time; the values are plain integers.
    unsafe {
        libmimalloc_sys::mi_option_set(MI_OPTION_ALLOW_THP, 0);
        libmimalloc_sys::mi_option_set(MI_OPTION_PURGE_DELAY, 2);
    }
}

fn main() -> std::process::ExitCode {
    agent_scribe::main()
}

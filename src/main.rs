//! The `scribe` binary: all of it is in the library (`src/lib.rs`), so that the fuzz targets in
//! `fuzz/` run the same code.

/// mimalloc instead of the system allocator: a run allocates and frees small strings and maps
/// for every line, and glibc's malloc and free were a fifth of a `--to jsonl` run's instructions
/// (issue 14). With it a run takes 9–18 % less CPU on a 42 MB stream; peak memory on a 1 GiB
/// stream is lower than with glibc's (see `agent_scribe::allocator`).
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

/// mimalloc's options (`agent_scribe::allocator` says which and why: no transparent huge
/// pages, freed memory held 2 ms), set from a constructor that runs before anything allocates.
/// They must be set before mimalloc reserves its first arena, which happens before `main` (the
/// runtime allocates), so they are set from a prioritised `.init_array` entry (those run before
/// the unprioritised ones, the runtime's among them).
#[cfg(target_os = "linux")]
#[used]
#[unsafe(link_section = ".init_array.00100")]
static MIMALLOC_OPTIONS: extern "C" fn() = mimalloc_options;

/// The constructor's body: the library's options for the start of a run.
#[cfg(target_os = "linux")]
extern "C" fn mimalloc_options() {
    agent_scribe::allocator::options_at_start();
}

fn main() -> std::process::ExitCode {
    agent_scribe::main()
}

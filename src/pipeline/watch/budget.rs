//! How many followed files may be open at once. `--follow-all` follows every session of a
//! directory, each on its own thread; a session's files (the file itself and the ones its
//! adapter reads again) are open only while it has something to read, and a reader takes a
//! place here before it opens them, so hundreds of sessions fit in a small descriptor limit.
//! A reader waits for a place (the bytes wait in the file meanwhile: nothing is lost).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Condvar, Mutex, OnceLock};
use std::time::Duration;

/// Descriptors a session may have open while it reads: the file, the adapter's own reads of it
/// again, a sub-agent file, a page being written.
const PER_SESSION: u64 = 4;
/// Descriptors left for everything else (standard streams, the watcher, directory walks).
const RESERVE: u64 = 64;
/// How long a wait for a place lasts before the stop flag is looked at again.
const RECHECK: Duration = Duration::from_millis(200);

/// The places, and how many are taken.
struct Budget {
    taken: Mutex<u64>,
    freed: Condvar,
    places: u64,
}

fn budget() -> &'static Budget {
    static BUDGET: OnceLock<Budget> = OnceLock::new();
    BUDGET.get_or_init(|| Budget {
        taken: Mutex::new(0),
        freed: Condvar::new(),
        places: (descriptor_limit().saturating_sub(RESERVE) / PER_SESSION).max(1),
    })
}

/// A place taken; given back when dropped.
pub(crate) struct Place(());

impl Drop for Place {
    fn drop(&mut self) {
        let b = budget();
        let mut taken = b.taken.lock().unwrap_or_else(|e| e.into_inner());
        *taken -= 1;
        b.freed.notify_one();
    }
}

/// Takes a place, waiting for one; `None` when `stop` is set meanwhile.
pub(crate) fn take(stop: &AtomicBool) -> Option<Place> {
    let b = budget();
    let mut taken = b.taken.lock().unwrap_or_else(|e| e.into_inner());
    while *taken >= b.places {
        if stop.load(Ordering::Relaxed) {
            return None;
        }
        taken = b
            .freed
            .wait_timeout(taken, RECHECK)
            .unwrap_or_else(|e| e.into_inner())
            .0;
    }
    *taken += 1;
    Some(Place(()))
}

/// The process's soft limit on open descriptors.
#[cfg(unix)]
fn descriptor_limit() -> u64 {
    let mut lim = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit writes the limit into `lim`, a valid rlimit.
    if unsafe { libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) } != 0 {
        return 1024;
    }
    lim.rlim_cur
}

/// Where no limit can be asked for, a common default.
#[cfg(not(unix))]
fn descriptor_limit() -> u64 {
    1024
}

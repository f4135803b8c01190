//! Whether this process may run on two physical cores, or only on hardware threads of one
//! (issue 14).
//!
//! Plain `--to jsonl` and `--to events` spend about two thirds of a run decoding and a third
//! folding and writing, so on two threads the decoding thread sets the pace: that pays only if
//! the second thread has a core of its own, since two hardware threads of one core share its
//! execution units. Measured on a 42 MB stream: on an AMD EPYC virtual machine of 2 vCPUs, two
//! threads took 194 ms against 273 ms on one (best of 7 alternating runs, 2026-12-06). On an
//! Intel Xeon of the same kind, whose two vCPUs ran two processes at once each at full speed,
//! two threads first took 164 against 144 ms; once each thread freed only its own allocations
//! (`pipeline::threaded`), 144 against 144 ms, with 0.22 s of CPU against 0.14 s, and 88 against
//! 83 ms on a 31 MB saved session (medians of 5 to 7, 2026-12-06). The gain therefore depends
//! on the machine; where it is absent the cost is CPU time, and little wall time.
//!
//! The kernel says which CPUs are hardware threads of one core (`thread_siblings_list` under
//! `/sys/devices/system/cpu`); this counts the cores among the CPUs the process may use
//! (`Cpus_allowed_list` in `/proc/self/status`). Where that cannot be read (not Linux), the
//! CPUs count as cores. A virtual machine may hide that two of its CPUs share a core; then the
//! answer is wrong in the costly direction. A
//! timed probe (the same parse alone, then on two threads at once) was tried first and
//! dropped: on the EPYC the second vCPU took up to a millisecond to wake, so a probe short
//! enough to be worth asking saw no overlap at all in three runs out of four.

use std::sync::OnceLock;

/// Input size from which a cheap renderer's run may go on two threads: below it the gain is a
/// few milliseconds at most, and handing batches over costs a share of that.
pub(crate) const WORTH_TWO_THREADS: u64 = 8 << 20;

/// True unless the kernel says the CPUs this process may use are all hardware threads of one
/// core. Read once per process.
pub(crate) fn two_cores() -> bool {
    static ANSWER: OnceLock<bool> = OnceLock::new();
    *ANSWER.get_or_init(|| {
        let Some(allowed) = std::fs::read_to_string("/proc/self/status")
            .ok()
            .and_then(|status| allowed_cpus(&status))
        else {
            return true;
        };
        cores_among(&allowed, |cpu| {
            std::fs::read_to_string(format!(
                "/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list"
            ))
            .ok()
        }) >= 2
    })
}

/// The CPUs `/proc/self/status` allows (its `Cpus_allowed_list` line), if it says.
fn allowed_cpus(status: &str) -> Option<Vec<u32>> {
    let list = status
        .lines()
        .find_map(|line| line.strip_prefix("Cpus_allowed_list:"))?;
    cpu_list(list.trim())
}

/// A kernel CPU list (`0-3,8,10-11`) as CPU numbers; `None` if it is not one. A range longer
/// than any machine's is refused rather than spelled out.
fn cpu_list(text: &str) -> Option<Vec<u32>> {
    let mut cpus = Vec::new();
    for part in text.split(',') {
        let (first, last) = match part.split_once('-') {
            Some((a, b)) => (a.trim().parse::<u32>().ok()?, b.trim().parse::<u32>().ok()?),
            None => {
                let n = part.trim().parse::<u32>().ok()?;
                (n, n)
            }
        };
        if last < first || last - first > 65_536 {
            return None;
        }
        cpus.extend(first..=last);
    }
    (!cpus.is_empty()).then_some(cpus)
}

/// How many cores the `allowed` CPUs make: CPUs whose sibling lists are the same are threads
/// of one core. A CPU whose list cannot be read counts as a core of its own.
fn cores_among(allowed: &[u32], siblings_of: impl Fn(u32) -> Option<String>) -> usize {
    let mut cores: Vec<Option<Vec<u32>>> = Vec::new();
    for &cpu in allowed {
        let core = siblings_of(cpu).and_then(|s| cpu_list(s.trim()));
        if core.is_none() || !cores.contains(&core) {
            cores.push(core);
        }
        if cores.len() >= 2 {
            break;
        }
    }
    cores.len()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_read_as_the_kernel_writes_them() {
        assert_eq!(cpu_list("0"), Some(vec![0]));
        assert_eq!(cpu_list("0-3,8,10-11"), Some(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(cpu_list("1,3"), Some(vec![1, 3]));
        assert_eq!(cpu_list(""), None);
        assert_eq!(cpu_list("3-1"), None);
        assert_eq!(cpu_list("0-4294967295"), None);
        assert_eq!(cpu_list("x"), None);
        let status = "Name:\tscribe\nCpus_allowed:\t3\nCpus_allowed_list:\t0-1\nMems_allowed:\t1\n";
        assert_eq!(allowed_cpus(status), Some(vec![0, 1]));
        assert_eq!(allowed_cpus("Name:\tscribe\n"), None);
    }

    #[test]
    fn hardware_threads_of_one_core_are_one_core() {
        // Two vCPUs, each its own core (the EPYC above).
        let own = |cpu: u32| Some(format!("{cpu}\n"));
        assert_eq!(cores_among(&[0, 1], own), 2);
        // Two hardware threads of one core.
        let shared = |_: u32| Some("0-1\n".to_owned());
        assert_eq!(cores_among(&[0, 1], shared), 1);
        // Four CPUs on two cores, as "0,2" and "1,3"; the process allowed on one core only.
        let paired = |cpu: u32| Some(if cpu % 2 == 0 { "0,2" } else { "1,3" }.to_owned());
        assert_eq!(cores_among(&[0, 1, 2, 3], paired), 2);
        assert_eq!(cores_among(&[0, 2], paired), 1);
        // Nothing to read: each CPU counts as a core.
        assert_eq!(cores_among(&[0, 1], |_| None), 2);
        assert_eq!(cores_among(&[5], |_| None), 1);
    }

    #[test]
    fn this_machine_is_read_without_failing() {
        let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
        if cfg!(target_os = "linux") {
            assert!(allowed_cpus(&status).is_some(), "no Cpus_allowed_list");
        }
        // Asked twice, the same answer (it is kept).
        assert_eq!(two_cores(), two_cores());
    }
}

//! Exit statuses, named. The man page's EXIT STATUS section lists the same three.

use std::io;

/// Everything went well (input problems without `--strict` were reported on stderr).
pub(crate) const SUCCESS: u8 = 0;
/// The input had an error and `--strict` was given, an input was not JSON Lines or not a log
/// scribe knows, a directory held no sessions, or (`scribe diff`) the inputs differ.
pub(crate) const INPUT_ERROR: u8 = 1;
/// A usage error, or a file that could not be read or written.
pub(crate) const TROUBLE: u8 = 2;

/// True when an error is, somewhere in its chain, a closed pipe on the output: `scribe … | head`
/// is normal use, not a failure.
pub(crate) fn is_broken_pipe(err: &anyhow::Error) -> bool {
    err.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
    })
}

//! Standard output, or a pager in front of it: the terminal view of files goes through `$PAGER`
//! (`less -R -F` by default: colours kept, no pager when it fits on one screen), as bat and
//! delta do, so that a long session does not scroll past. `Settings` decides when (never for a
//! live stream or when standard output is not a terminal); this only runs it.

use std::ffi::OsString;
use std::io::{self, StdoutLock, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};

/// Where the filter's output goes.
pub(crate) enum Stdout {
    /// Straight to standard output.
    Plain(StdoutLock<'static>),
    /// Into a pager, which writes to the terminal; waited for when this is dropped.
    Paged {
        child: Child,
        /// `None` once closed, so that the pager sees the end of its input.
        stdin: Option<ChildStdin>,
    },
}

impl Stdout {
    /// Standard output, through `pager` when one is given and it starts (when it does not,
    /// standard output: the output matters more than the paging).
    pub(super) fn open(pager: Option<&[OsString]>) -> Stdout {
        let plain = || Stdout::Plain(io::stdout().lock());
        let Some((program, args)) = pager.and_then(|p| p.split_first()) else {
            return plain();
        };
        let spawned = Command::new(program)
            .args(args)
            .stdin(Stdio::piped())
            .spawn();
        match spawned {
            Ok(mut child) => {
                let stdin = child.stdin.take();
                Stdout::Paged { child, stdin }
            }
            Err(_) => plain(),
        }
    }
}

impl Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Stdout::Plain(out) => out.write(buf),
            Stdout::Paged { stdin: Some(s), .. } => s.write(buf),
            Stdout::Paged { stdin: None, .. } => Err(io::ErrorKind::BrokenPipe.into()),
        }
    }

    fn flush(&mut self) -> io::Result<()> {
        match self {
            Stdout::Plain(out) => out.flush(),
            Stdout::Paged { stdin: Some(s), .. } => s.flush(),
            Stdout::Paged { stdin: None, .. } => Ok(()),
        }
    }
}

/// The pager is left only when the person quits it: its input is closed, then it is waited for,
/// so that the shell's prompt does not come back under it.
impl Drop for Stdout {
    fn drop(&mut self) {
        if let Stdout::Paged { child, stdin } = self {
            drop(stdin.take());
            let _ = child.wait();
        }
    }
}

/// The pager to run: `$SCRIBE_PAGER`, else `$PAGER`, else `less`, split at spaces; `less` with
/// no options gets `-R -F` (colours, and no pager for one screen). `None` when it is set empty
/// or to `cat`.
pub(crate) fn command(
    scribe_pager: Option<OsString>,
    pager: Option<OsString>,
) -> Option<Vec<OsString>> {
    let chosen = scribe_pager.or(pager).unwrap_or_else(|| "less".into());
    let text = chosen.to_string_lossy().into_owned();
    let mut words: Vec<OsString> = text.split_whitespace().map(OsString::from).collect();
    let program = Path::new(words.first()?).file_name()?.to_owned();
    if program == "cat" {
        return None;
    }
    if program == "less" && words.len() == 1 {
        words.extend(["-R".into(), "-F".into()]);
    }
    Some(words)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words(v: Option<Vec<OsString>>) -> Option<Vec<String>> {
        v.map(|w| w.iter().map(|s| s.to_string_lossy().into_owned()).collect())
    }

    #[test]
    fn less_by_default_with_colours_and_one_screen_left_alone() {
        assert_eq!(words(command(None, None)).unwrap(), ["less", "-R", "-F"]);
        assert_eq!(
            words(command(None, Some("/usr/bin/less".into()))).unwrap(),
            ["/usr/bin/less", "-R", "-F"]
        );
        assert_eq!(
            words(command(None, Some("less -S".into()))).unwrap(),
            ["less", "-S"]
        );
        assert_eq!(
            words(command(Some("most".into()), Some("less".into()))).unwrap(),
            ["most"]
        );
        assert_eq!(command(None, Some("".into())), None);
        assert_eq!(command(Some("cat".into()), None), None);
    }
}

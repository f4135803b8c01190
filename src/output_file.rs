//! Files written under `--output-dir DIR`, safely in a directory someone else may control (a
//! shared output folder, a checked-out repository).
//!
//! Each file is first written to a new temporary file in DIR, created with `O_EXCL` semantics by
//! the `tempfile` crate (an unpredictable name; a symlink planted at that name is never
//! followed), then renamed over the target, but only when the target is not a symbolic link or
//! anything else than a plain file: then scribe refuses and says so. A rename replaces a path,
//! never the file a link points to, so no planted link can redirect the write. A temporary file
//! that is not renamed (an error, a refusal, a failed rename) is removed when it is dropped.
//!
//! The names come from the input (a session id, the input's file name): [`safe_stem`] makes
//! them plain file names that no shell reads as an option or a hidden file.

use std::io::{BufWriter, Write};
use std::path::Path;

use anyhow::{Context, Result, bail};
use tempfile::{NamedTempFile, TempPath};

/// A new, empty temporary file in `dir` (`.scribe-XXXXXX.part`), buffered.
pub(crate) fn temp_in(dir: &Path) -> Result<BufWriter<NamedTempFile>> {
    let file = tempfile::Builder::new()
        .prefix(".scribe-")
        .suffix(".part")
        .tempfile_in(dir)
        .with_context(|| format!("cannot create a file in {}", dir.display()))?;
    Ok(BufWriter::with_capacity(64 * 1024, file))
}

/// Flushes `temp` and closes it, keeping only its name (removed when dropped): a file written
/// now and renamed later holds no file descriptor meanwhile (`--jobs`).
pub(crate) fn finished(temp: BufWriter<NamedTempFile>) -> Result<TempPath> {
    let temp = temp
        .into_inner()
        .map_err(|e| e.into_error())
        .context("cannot write a file in the output directory")?;
    Ok(temp.into_temp_path())
}

/// Renames `temp` to `target`, unless `target` is a symbolic link or not a plain file: then the
/// temporary file is removed and the error says why.
pub(crate) fn install_path(temp: TempPath, target: &Path) -> Result<()> {
    match std::fs::symlink_metadata(target) {
        Ok(m) if m.file_type().is_symlink() => bail!(
            "{} is a symbolic link: not writing through it (remove it, or choose another --output-dir)",
            target.display()
        ),
        Ok(m) if !m.is_file() => bail!("{} exists and is not a file", target.display()),
        _ => {}
    }
    temp.persist(target)
        .map_err(|e| e.error)
        .with_context(|| format!("cannot write {}", target.display()))?;
    Ok(())
}

/// Writes a whole file to `target` through a temporary file in `dir` (see [`install_path`]).
pub(crate) fn write_whole(
    dir: &Path,
    target: &Path,
    body: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
) -> Result<()> {
    let cannot = || format!("cannot write {}", target.display());
    let mut temp = temp_in(dir)?;
    body(&mut temp).with_context(cannot)?;
    let temp = temp
        .into_inner()
        .map_err(|e| e.into_error())
        .with_context(cannot)?;
    install_path(temp.into_temp_path(), target)
}

/// `name` as an output file's stem: under `--redact`, a name in which a pattern finds a secret
/// (looked for in the name as it is, before anything is replaced) becomes a hash of it; else
/// [`safe_stem`].
pub(crate) fn stem_for(name: &str, redact: bool) -> Option<String> {
    if redact && crate::transform::redact::holds_secret(name) {
        return Some(crate::transform::redact::hashed_stem(name));
    }
    safe_stem(name)
}

/// `name` as a file stem that is safe to create and to type: only ASCII letters, digits, `.`,
/// `_` and `-` (anything else becomes `_`), beginning with a letter or a digit (so never
/// `-rf`, `--help` or `.bashrc`), at most 128 bytes. `None` when nothing is left.
pub(crate) fn safe_stem(name: &str) -> Option<String> {
    let cleaned: String = name
        .chars()
        .map(|c| match c {
            'a'..='z' | 'A'..='Z' | '0'..='9' | '.' | '_' | '-' => c,
            _ => '_',
        })
        .collect();
    let stem = cleaned.trim_start_matches(|c: char| !c.is_ascii_alphanumeric());
    let stem: String = stem.chars().take(128).collect();
    (!stem.is_empty()).then_some(stem)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn stems_never_look_like_options_or_hidden_files() {
        assert_eq!(safe_stem("-rf").as_deref(), Some("rf"));
        assert_eq!(safe_stem("--help").as_deref(), Some("help"));
        assert_eq!(safe_stem(".bashrc").as_deref(), Some("bashrc"));
        assert_eq!(safe_stem("../../etc/passwd").as_deref(), Some("etc_passwd"));
        assert_eq!(safe_stem("a b\x1b[2J").as_deref(), Some("a_b__2J"));
        assert_eq!(safe_stem("5e55a0e1-0000").as_deref(), Some("5e55a0e1-0000"));
        assert_eq!(safe_stem("-.-"), None);
        assert_eq!(safe_stem(&"x".repeat(300)).map(|s| s.len()), Some(128));
    }
}

//! The one directory walk of the input layer (`walkdir`), for session discovery and for the
//! sub-agent files beside a session. It knows no agent: what to keep and what to pass over is
//! the caller's.

use std::path::{Path, PathBuf};

use walkdir::WalkDir;

/// What a walk keeps and passes over.
pub(crate) struct Walk<'a> {
    /// How many levels to look at: 1 is `dir`'s own entries.
    pub(crate) depth: usize,
    /// True for a directory below `dir` not to enter.
    pub(crate) skip_dir: &'a dyn Fn(&Path) -> bool,
    /// True for a file to keep.
    pub(crate) keep: &'a dyn Fn(&Path) -> bool,
}

impl Walk<'_> {
    /// The files under `dir` this walk keeps, in no particular order. Symbolic links are followed
    /// (a link's target is looked up, no other entry's: the listing says what it is); a link that
    /// leads nowhere is taken for the file it names (reading it says what is wrong); directories
    /// that cannot be read, and links that lead back up, are passed over.
    pub(crate) fn files(&self, dir: &Path) -> Vec<PathBuf> {
        WalkDir::new(dir)
            .max_depth(self.depth)
            .follow_links(true)
            .into_iter()
            .filter_entry(|e| {
                e.depth() == 0 || !e.file_type().is_dir() || !(self.skip_dir)(e.path())
            })
            .filter_map(|entry| match entry {
                Ok(e) if e.file_type().is_dir() => None,
                Ok(e) => Some(e.into_path()),
                Err(e) => e.path().filter(|p| is_dangling(p)).map(Path::to_path_buf),
            })
            .filter(|p| (self.keep)(p))
            .collect()
    }
}

/// True for a symbolic link whose target does not exist.
fn is_dangling(p: &Path) -> bool {
    p.is_symlink() && !p.exists()
}

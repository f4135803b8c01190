//! Files the unit tests read: the repository's samples and the shared corpus beside the
//! checkout, walked the same way by every test that reads them all.

use std::path::{Path, PathBuf};

/// The shared corpus (`../shared/corpus`), or `None` when it is not beside the crate, which is
/// a failure when `SCRIBE_CORPUS=required` (CI): a corpus test must not pass by skipping there.
pub(crate) fn shared_corpus() -> Option<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/corpus");
    if root.is_dir() {
        return Some(root);
    }
    assert!(
        std::env::var("SCRIBE_CORPUS").as_deref() != Ok("required"),
        "SCRIBE_CORPUS=required but ../shared/corpus is not here"
    );
    eprintln!("skipping: ../shared/corpus is not here");
    None
}

/// The repository's own samples (`samples/`).
pub(crate) fn samples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("samples")
}

/// Every UTF-8 text file under `root`, with its path, going into the folders `descend` takes.
pub(crate) fn texts_under(
    root: PathBuf,
    descend: impl Fn(&Path) -> bool,
) -> Vec<(PathBuf, String)> {
    let mut texts = Vec::new();
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap().flatten() {
            let path = entry.path();
            if path.is_dir() {
                if descend(&path) {
                    stack.push(path);
                }
            } else if let Ok(text) = std::fs::read_to_string(&path) {
                texts.push((path, text));
            }
        }
    }
    texts
}

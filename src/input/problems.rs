//! How the input layer says what is wrong with an input, without knowing who listens: the
//! pipeline's diagnostics implement [`Problems`] (they count, print and note for `--stats`), and a
//! read ahead whose findings the real read will report drops them ([`Unheard`]).

/// Where an input's problems go, by file and line.
pub(crate) trait Problems {
    /// An input error: the line could not be used as it is.
    fn error(&mut self, file: &str, line: u64, what: &str);
    /// Something odd at a line that did not stop it from being used.
    fn warning(&mut self, file: &str, line: u64, what: &str);
    /// Lines `first..=last` of `file` were read as one record that begins at `first`.
    fn span(&mut self, file: &str, first: u64, last: u64);
}

/// Problems nobody hears: for a read ahead (and for tests) whose findings are reported elsewhere
/// or not wanted.
pub(crate) struct Unheard;

impl Problems for Unheard {
    fn error(&mut self, _file: &str, _line: u64, _what: &str) {}
    fn warning(&mut self, _file: &str, _line: u64, _what: &str) {}
    fn span(&mut self, _file: &str, _first: u64, _last: u64) {}
}

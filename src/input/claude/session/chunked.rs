//! A list that grows in fixed chunks: the index of a large saved session has a million rows, and
//! a `Vec` that doubles copies them into a new block twice their size, holding old and new at the
//! moment it grows (that moment was the peak of a 1 GiB session). Chunks are never
//! moved, so the list costs what it holds plus at most one chunk.
//!
//! `CHUNK` is a power of two and a chunk grows by doubling from empty, so a full chunk's
//! capacity is exactly `CHUNK`.

use std::ops::{Index, IndexMut};

/// Items per chunk (a power of two: an index is split with a shift and a mask).
const SHIFT: usize = 13;
const CHUNK: usize = 1 << SHIFT;

/// See the module comment.
#[derive(Debug)]
pub(crate) struct Chunked<T> {
    chunks: Vec<Vec<T>>,
    len: usize,
}

impl<T> Default for Chunked<T> {
    fn default() -> Self {
        Chunked {
            chunks: Vec::new(),
            len: 0,
        }
    }
}

impl<T> Chunked<T> {
    pub(crate) fn len(&self) -> usize {
        self.len
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn push(&mut self, item: T) {
        // A new chunk grows as a `Vec` does up to its full size (a sub-agent's log may have a
        // few rows, and a session has thousands of them), and then no more.
        if self.len & (CHUNK - 1) == 0 {
            // The list of chunks grows by one, not by doubling: most logs have one chunk.
            self.chunks.reserve_exact(1);
            self.chunks.push(Vec::new());
        }
        if let Some(last) = self.chunks.last_mut() {
            last.push(item);
        }
        self.len += 1;
    }
}

impl<T> Index<usize> for Chunked<T> {
    type Output = T;
    fn index(&self, i: usize) -> &T {
        &self.chunks[i >> SHIFT][i & (CHUNK - 1)]
    }
}

impl<T> IndexMut<usize> for Chunked<T> {
    fn index_mut(&mut self, i: usize) -> &mut T {
        &mut self.chunks[i >> SHIFT][i & (CHUNK - 1)]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn holds_what_a_vec_holds() {
        let mut c = Chunked::default();
        let n = 3 * CHUNK + 5;
        for i in 0..n {
            c.push(i);
        }
        assert_eq!(c.len(), n);
        assert!((0..n).all(|i| c[i] == i));
        c[CHUNK] = 7;
        assert_eq!(c[CHUNK], 7);
        assert!(Chunked::<u8>::default().is_empty());
    }
}

//! UTF-8 checks of input lines with `simdutf8`, many bytes at a time.
//!
//! Every line is checked once when it is read, and a saved session's rows again when its second
//! pass reads them back. The standard library's check goes a word at a time; simdutf8 takes
//! SSE4.2 or AVX2 when the CPU has them (chosen at run time) and gives the same verdict.

/// `bytes` as text, or `None` when they are not UTF-8 (`std::str::from_utf8(bytes).ok()`).
pub fn as_str(bytes: &[u8]) -> Option<&str> {
    simdutf8::basic::from_utf8(bytes).ok()
}

/// `bytes` as a `String` without a copy, or the bytes back when they are not UTF-8
/// (`String::from_utf8`).
pub fn into_string(bytes: Vec<u8>) -> Result<String, Vec<u8>> {
    if as_str(&bytes).is_none() {
        return Err(bytes);
    }
    // SAFETY: `as_str` just checked that `bytes` are UTF-8.
    Ok(unsafe { String::from_utf8_unchecked(bytes) })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The verdict is the standard library's, for valid text and for every kind of fault.
    #[test]
    fn agrees_with_the_standard_library() {
        let cases: [&[u8]; 9] = [
            b"",
            b"plain ascii text, long enough to fill more than one block of sixty-four bytes ....",
            "caf\u{e9} \u{1F600} \u{4e2d}\u{6587}".as_bytes(),
            b"\xff",
            b"abc\xc3",
            b"\xed\xa0\x80",
            b"\xf4\x90\x80\x80",
            b"\xc0\xaf",
            b"a long run of ascii before a fault, past the first block of bytes ...... \xe2\x82",
        ];
        for bytes in cases {
            assert_eq!(as_str(bytes), std::str::from_utf8(bytes).ok(), "{bytes:x?}");
            assert_eq!(
                into_string(bytes.to_vec()).ok(),
                String::from_utf8(bytes.to_vec()).ok(),
                "{bytes:x?}"
            );
        }
    }
}

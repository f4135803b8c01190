//! A string's end found 64 bytes at a time, every escape on the way checked from the block's
//! masks: no branch per escape.
//!
//! A saved session's tool outputs have an escape every 30 bytes or so (`\n` at each output
//! line). Stepping from escape to escape ([`super::Scanner::raw_string`]'s first way) costs a
//! search and a mispredicted branch or two at each; here a block's quotes and backslashes are two
//! 64-bit masks, which bytes are escaped follows from the backslash mask by arithmetic (a run of
//! backslashes escapes every second byte after its start), and the string ends at the first quote
//! not escaped. An escaped byte must be one of `" \ / b f n r t`; a `u` (a `\uXXXX` escape, whose
//! digits and surrogate pairing need a closer look) sends the string back to the step-by-step
//! way, which decides it as before.

/// The bytes of one block.
const WIDE: usize = 64;

/// Bytes at even positions of a block.
const EVEN: u64 = 0x5555_5555_5555_5555;

/// Where the string whose text starts at `bytes[0]` ends (its closing quote), when every escape
/// before it is one of the simple ones; `None` when it has a `\u` escape, a byte escaped that
/// no escape starts with, or no end (the caller then decides the string step by step).
///
/// `bytes` must have no byte below U+0020 (the scanner's lines have none): the last block is
/// padded with zeros, which can then be neither a quote nor a backslash.
pub(super) fn simple_string_end(bytes: &[u8]) -> Option<usize> {
    let mut at = 0;
    // Whether the first byte of the block at `at` is escaped by a backslash ending the one before.
    let mut carry = false;
    while at < bytes.len() {
        let rest = &bytes[at..];
        let mut padded = [0u8; WIDE];
        let block: &[u8; WIDE] = match rest.first_chunk::<WIDE>() {
            Some(block) => block,
            None => {
                padded[..rest.len()].copy_from_slice(rest);
                &padded
            }
        };
        let (quotes, backslashes) = masks(block);
        if !carry && quotes == 0 && backslashes == 0 {
            // Plain text: the next quote or backslash is searched for many bytes at a time.
            let n = memchr::memchr2(b'"', b'\\', &bytes[at + WIDE.min(rest.len())..])?;
            at += WIDE + n;
            continue;
        }
        let escaped = escaped_bytes(backslashes, &mut carry);
        let ends = quotes & !escaped;
        // The escapes before the end (all of the block's if it has no end).
        let before = match ends {
            0 => escaped,
            _ => escaped & ((1u64 << ends.trailing_zeros()) - 1),
        };
        if !simple_escapes(block, before) {
            return None;
        }
        if ends != 0 {
            return Some(at + ends.trailing_zeros() as usize);
        }
        at += WIDE;
    }
    None
}

/// Whether every byte `escaped` marks in `block` is a simple escape's letter.
fn simple_escapes(block: &[u8; WIDE], mut escaped: u64) -> bool {
    let mut ok = true;
    while escaped != 0 {
        ok &= SIMPLE[block[escaped.trailing_zeros() as usize] as usize];
        escaped &= escaped - 1;
    }
    ok
}

/// The bytes that may follow a backslash in an escape of two bytes.
static SIMPLE: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    let letters = b"\"\\/bfnrt";
    while i < letters.len() {
        t[letters[i] as usize] = true;
        i += 1;
    }
    t
};

/// The bytes of a block a backslash escapes, from its backslash mask and `carry` (its first
/// byte is escaped by the block before), which is set for the next block.
///
/// A backslash that is not itself escaped escapes the byte after it. In a run of backslashes
/// that starts at `s` (after a byte not escaping it), the bytes at `s + 1`, `s + 3`, … up to
/// the byte after the run are escaped: those of the other parity than `s`. Adding each run's
/// start bit to the mask, for runs that start at odd positions, carries through the run and
/// flips which parity the bits after it read as; the byte after a run is escaped exactly when
/// its parity differs from the start's.
fn escaped_bytes(backslashes: u64, carry: &mut bool) -> u64 {
    let carried = u64::from(*carry);
    // A backslash escaped by the block before starts nothing.
    let backslashes = backslashes & !carried;
    let follows = (backslashes << 1) | carried;
    let odd_starts = backslashes & !EVEN & !follows;
    let (sum, overflow) = odd_starts.overflowing_add(backslashes);
    *carry = overflow;
    (EVEN ^ (sum << 1)) & follows
}

/// The quotes and the backslashes of a block, one bit per byte, the first byte the lowest bit.
#[cfg(target_arch = "x86_64")]
fn masks(block: &[u8; WIDE]) -> (u64, u64) {
    use std::arch::x86_64::{
        __m128i, _mm_cmpeq_epi8, _mm_loadu_si128, _mm_movemask_epi8, _mm_set1_epi8,
    };
    let mut quotes = 0u64;
    let mut backslashes = 0u64;
    for (i, part) in block.chunks_exact(16).enumerate() {
        // SAFETY: SSE2 is in x86-64's baseline; the load reads the 16 bytes of `part`, which
        // `chunks_exact` gives whole, and needs no alignment (`loadu`).
        let (q, b) = unsafe {
            let v = _mm_loadu_si128(part.as_ptr().cast::<__m128i>());
            (
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'"' as i8))),
                _mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'\\' as i8))),
            )
        };
        quotes |= u64::from(q as u16) << (16 * i);
        backslashes |= u64::from(b as u16) << (16 * i);
    }
    (quotes, backslashes)
}

/// The quotes and the backslashes of a block, one bit per byte, the first byte the lowest bit.
#[cfg(not(target_arch = "x86_64"))]
fn masks(block: &[u8; WIDE]) -> (u64, u64) {
    masks_byte_by_byte(block)
}

/// [`masks`] a byte at a time: other targets' way, and the x86-64 one's reference in tests.
#[cfg(any(test, not(target_arch = "x86_64")))]
fn masks_byte_by_byte(block: &[u8; WIDE]) -> (u64, u64) {
    block.iter().enumerate().fold((0, 0), |(q, b), (i, &byte)| {
        (
            q | u64::from(byte == b'"') << i,
            b | u64::from(byte == b'\\') << i,
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Which bytes of `bytes` are escaped, one at a time.
    fn escaped_one_by_one(bytes: &[u8]) -> Vec<bool> {
        let mut out = vec![false; bytes.len()];
        let mut i = 0;
        while i < bytes.len() {
            if bytes[i] == b'\\' && i + 1 < bytes.len() {
                out[i + 1] = true;
                i += 2;
            } else {
                i += 1;
            }
        }
        out
    }

    /// A block's masks mark its quotes and backslashes wherever they are.
    #[test]
    fn masks_mark_every_quote_and_backslash() {
        for at in 0..WIDE {
            for (a, b) in [(b'"', b'\\'), (b'\\', b'"'), (b'"', 0x80 | b'"')] {
                let mut block = [b'a'; WIDE];
                block[at] = a;
                block[(at + 7) % WIDE] = b;
                assert_eq!(masks(&block), masks_byte_by_byte(&block), "{at}");
            }
        }
    }

    /// The arithmetic marks the bytes a walk marks, for runs of every length at every place,
    /// across block edges.
    #[test]
    fn marks_escaped_bytes_as_a_walk_does() {
        let mut seed = 0x2545_f491_4f6c_dd1d_u64;
        let mut cases: Vec<Vec<u8>> = Vec::new();
        for len in 0..=130 {
            for at in 0..192usize.saturating_sub(len) {
                let mut b = vec![b'a'; 192];
                b[at..at + len].fill(b'\\');
                cases.push(b);
            }
        }
        for _ in 0..20_000 {
            // xorshift: dense and sparse backslashes.
            let mut b = vec![b'a'; 192];
            for byte in &mut b {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                if seed % 3 != 0 {
                    *byte = b'\\';
                }
            }
            cases.push(b);
        }
        for bytes in cases {
            let want = escaped_one_by_one(&bytes);
            let mut carry = false;
            for (k, block) in bytes.chunks_exact(WIDE).enumerate() {
                let (_, backslashes) = masks(block.try_into().unwrap());
                let got = escaped_bytes(backslashes, &mut carry);
                for i in 0..WIDE {
                    assert_eq!(got >> i & 1 == 1, want[k * WIDE + i], "{k} {i}");
                }
            }
        }
    }

    /// The end found is serde_json's, or the string is left to the step-by-step way.
    #[test]
    fn ends_where_serde_ends_or_declines() {
        let pieces = [
            "a",
            "é",
            r#"\n"#,
            r#"\\"#,
            r#"\""#,
            r#"\/"#,
            r#"\t"#,
            r#"\u0041"#,
            r#"\q"#,
            r#"""#,
            r#"\\\""#,
            r#"\\\\"#,
        ];
        let mut seed = 7u64;
        for len in 0..300 {
            for _ in 0..20 {
                let mut text = String::new();
                for _ in 0..len {
                    seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    // Mostly plain text, as logs are.
                    let pick = (seed >> 33) as usize % (pieces.len() * 4);
                    text.push_str(pieces.get(pick).copied().unwrap_or("x"));
                }
                let line = format!("\"{text}\" ,1");
                // serde_json's end: where its read of one string stopped, less the quotes.
                let mut read = serde_json::Deserializer::from_str(&line).into_iter::<String>();
                let theirs = matches!(read.next(), Some(Ok(_))).then(|| read.byte_offset() - 2);
                match (simple_string_end(&line.as_bytes()[1..]), theirs) {
                    (Some(end), _) => assert_eq!(Some(end), theirs, "{line}"),
                    (None, None) => {}
                    // Declined: only for a string with a `\u` escape.
                    (None, Some(end)) => assert!(line[..end + 1].contains(r"\u"), "{line}"),
                }
            }
        }
    }
}

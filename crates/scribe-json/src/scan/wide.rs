//! A string read 64 bytes at a time: its escapes and its end found from the block's masks, with
//! no search per escape.
//!
//! A saved session's tool outputs have an escape every 30 bytes or so (`\n` at each output
//! line). Stepping from escape to escape ([`super::Scanner::raw_string`]'s first way) costs a
//! search and a mispredicted branch or two at each; here a block's quotes and backslashes are two
//! 64-bit masks, which bytes are escaped follows from the backslash mask by arithmetic (a run of
//! backslashes escapes every second byte after its start), and the string ends at the first quote
//! not escaped ([`Blocks`]). Three readers walk them: [`string_end`] checks every escape (one of
//! `" \ / b f n r t`, with no branch per escape, or a `u` whose four hex digits, and for a
//! surrogate its pairing, [`super::escape_end`] checks where it stands: a text another writer
//! spelt in ASCII, Python's `json.dumps`, has a `\uXXXX` for every non-ASCII character);
//! [`walk_escapes`] hands each escape to a reader: [`decode`] copies the text between escapes
//! and decodes each (`Scanner::string`), `compact` rewrites the escapes the writer writes
//! otherwise (`Scanner::string_escapes`), and is handed only those ([`WRITTEN`]). The hex digits of a `\u`
//! escape are neither quotes nor backslashes, so the masks stay right past them.

/// The bytes of one block.
const WIDE: usize = 64;

/// Bytes at even positions of a block.
const EVEN: u64 = 0x5555_5555_5555_5555;

/// One block of a string's text.
struct Block {
    /// Where the block starts in the text walked.
    at: usize,
    /// The bytes a backslash escapes before the string's end, one bit each, the block's first
    /// byte the lowest (its backslash is the byte before: in the block before, for the lowest).
    escaped: u64,
    /// Where the string's closing quote is, when it is in this block.
    end: Option<usize>,
}

/// The blocks of a string's text that hold a quote or a backslash, up to the one that holds its
/// end; text between them is passed over by `memchr2`. The walk stops after the end, or at the
/// end of the bytes when they hold none (a string's text taken between its quotes).
///
/// The bytes must have no byte below U+0020 (the scanner's lines have none): the last block is
/// padded with zeros, which can then be neither a quote nor a backslash. The first byte must not
/// be escaped: the walk starts at the text's start or at an escape's backslash.
struct Blocks<'b> {
    bytes: &'b [u8],
    /// Where the next block starts.
    next: usize,
    /// Whether the next block's first byte is escaped by a backslash ending the one before.
    carry: bool,
}

impl<'b> Blocks<'b> {
    /// The blocks of `bytes` from `from`.
    fn new(bytes: &'b [u8], from: usize) -> Blocks<'b> {
        Blocks {
            bytes,
            next: from,
            carry: false,
        }
    }
}

impl Iterator for Blocks<'_> {
    type Item = Block;

    /// Inlined: the readers call it once a block, and it is short but for the masks.
    #[inline(always)]
    fn next(&mut self) -> Option<Block> {
        loop {
            let at = self.next;
            let rest = self.bytes.get(at..).filter(|rest| !rest.is_empty())?;
            let (quotes, backslashes) = match rest.first_chunk::<WIDE>() {
                Some(block) => masks(block),
                None => masks_of_last(rest),
            };
            if !self.carry && quotes == 0 && backslashes == 0 {
                // Plain text: the next quote or backslash is searched for many bytes at a time.
                let past = at + WIDE.min(rest.len());
                self.next = memchr::memchr2(b'"', b'\\', &self.bytes[past..])
                    .map_or(self.bytes.len(), |n| past + n);
                continue;
            }
            let escaped = escaped_bytes(backslashes, &mut self.carry);
            let ends = quotes & !escaped;
            self.next = at + WIDE;
            if ends == 0 {
                return Some(Block {
                    at,
                    escaped,
                    end: None,
                });
            }
            // Nothing after the end is walked.
            self.next = usize::MAX;
            let first = ends.trailing_zeros();
            return Some(Block {
                at,
                escaped: escaped & ((1u64 << first) - 1),
                end: Some(at + first as usize),
            });
        }
    }
}

/// The masks of the last bytes of a text, fewer than a block, padded with zeros.
#[inline(never)]
fn masks_of_last(rest: &[u8]) -> (u64, u64) {
    let mut padded = [0u8; WIDE];
    padded[..rest.len()].copy_from_slice(rest);
    masks(&padded)
}

/// Where the string whose text starts at `bytes[0]` ends (its closing quote), when every escape
/// before it is one a `Value` parse takes; `None` when one is not, or the string has no end (the
/// caller then decides the string step by step).
pub(super) fn string_end(bytes: &[u8]) -> Option<usize> {
    // Where the `u` of the trailing half of a surrogate pair already checked with its leading
    // half is (`usize::MAX`: none).
    let mut trailing = usize::MAX;
    for block in Blocks::new(bytes, 0) {
        if !simple(bytes, &block) && !checked(bytes, &block, &mut trailing) {
            return None;
        }
        if block.end.is_some() {
            return block.end;
        }
    }
    None
}

/// The letter of the escape whose escaped byte is at `at` (zero past the end: a backslash that
/// ends the text escapes nothing).
fn letter(bytes: &[u8], at: usize) -> u8 {
    bytes.get(at).copied().unwrap_or(0)
}

/// Whether every byte the block marks escaped is a simple escape's letter (no branch per
/// escape: the common case).
fn simple(bytes: &[u8], block: &Block) -> bool {
    let mut escaped = block.escaped;
    let mut ok = true;
    while escaped != 0 {
        ok &= SHORT[letter(bytes, block.at + escaped.trailing_zeros() as usize) as usize] != 0;
        escaped &= escaped - 1;
    }
    ok
}

/// Whether every byte the block marks escaped starts an escape a `Value` parse takes: a simple
/// one, or a `\u` escape [`super::escape_end`] takes, whose trailing half of a pair is noted in
/// `trailing` (it may be in the next block) and not checked again alone.
fn checked(bytes: &[u8], block: &Block, trailing: &mut usize) -> bool {
    let mut escaped = block.escaped;
    while escaped != 0 {
        let at = block.at + escaped.trailing_zeros() as usize;
        escaped &= escaped - 1;
        let letter = letter(bytes, at);
        if SHORT[letter as usize] != 0 || at == *trailing {
            continue;
        }
        if letter != b'u' {
            return false;
        }
        // An escaped byte follows its backslash: `at` is at least 1.
        match super::escape_end(bytes, at - 1) {
            None => return false,
            // A pair: the trailing half's `u` is six bytes on.
            Some(end) if end == at + 11 => *trailing = at + 6,
            Some(_) => {}
        }
    }
    true
}

/// Walks the string whose text's first escape has its backslash at `bytes[from]` to its closing
/// quote, and says where that is: `escape` is handed the backslash of each escape (but the
/// trailing half of a surrogate pair, which the leading half's escape takes, and an escape whose
/// letter `passed` marks, which is checked here) and gives where the escape ends, or `None` for
/// one a `Value` parse does not take (the walk then gives `None`).
#[inline(always)]
pub(super) fn walk_escapes(
    bytes: &[u8],
    from: usize,
    passed: &[bool; 256],
    mut escape: impl FnMut(usize) -> Option<usize>,
) -> Option<usize> {
    // Where the last escape handed over ends.
    let mut next = from;
    for block in Blocks::new(bytes, from) {
        let mut escaped = block.escaped;
        while escaped != 0 {
            let at = block.at + escaped.trailing_zeros() as usize;
            escaped &= escaped - 1;
            if passed[letter(bytes, at) as usize] {
                continue;
            }
            // Its backslash, the byte before, is past the escape before.
            if at > next {
                next = escape(at - 1)?;
            }
        }
        if block.end.is_some() {
            return block.end;
        }
    }
    None
}

/// The text of the string whose first escape's backslash is at `text[from]`, decoded, appended
/// to `out` from there, and where its closing quote is; `None` when an escape is not one a
/// `Value` parse takes or the string has no end.
pub(super) fn decode(text: &str, from: usize, out: &mut String) -> Option<usize> {
    let bytes = text.as_bytes();
    // The first byte not yet in `out`.
    let mut copied = from;
    let end = walk_escapes(bytes, from, &[false; 256], |backslash| {
        out.push_str(&text[copied..backslash]);
        copied = match SHORT[letter(bytes, backslash + 1) as usize] {
            0 => {
                let (c, end) = super::unicode_escape(bytes, backslash)?;
                out.push(c);
                end
            }
            byte => {
                out.push(char::from(byte));
                backslash + 2
            }
        };
        Some(copied)
    })?;
    out.push_str(&text[copied..end]);
    Some(end)
}

/// The letters of the escapes [`crate::write`] writes as they stand (`\"`, `\\`, `\b`, `\f`,
/// `\n`, `\r`, `\t`: not `\/`, nor a `\u` escape), which a reader that puts a string in the
/// written form copies with the text around them.
pub(super) static WRITTEN: [bool; 256] = {
    let mut t = [false; 256];
    let mut i = 0;
    while i < 256 {
        t[i] = SHORT[i] != 0 && i != b'/' as usize;
        i += 1;
    }
    t
};

/// The byte each escape of two bytes stands for, by its letter (zero: not one of them).
static SHORT: [u8; 256] = {
    let mut t = [0u8; 256];
    t[b'"' as usize] = b'"';
    t[b'\\' as usize] = b'\\';
    t[b'/' as usize] = b'/';
    t[b'b' as usize] = 0x08;
    t[b'f' as usize] = 0x0c;
    t[b'n' as usize] = b'\n';
    t[b'r' as usize] = b'\r';
    t[b't' as usize] = b'\t';
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

    /// The end found and the text decoded are serde_json's, and a string serde_json refuses is
    /// refused.
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
            r#"\u00e9"#,
            r#"\u00C9"#,
            r#"\ud83d\ude00"#,
            r#"\ud83d"#,
            r#"\ude00"#,
            r#"\uZ041"#,
            "u",
            r#"\q"#,
            r#"\x00e9"#,
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
                let value = read.next().and_then(Result::ok);
                let theirs = value.is_some().then(|| read.byte_offset() - 2);
                assert_eq!(string_end(&line.as_bytes()[1..]), theirs, "{line}");
                // Decoded as serde_json decodes it, or refused where it refuses.
                let mut scanner = super::super::Scanner::new(&line).expect("no control byte");
                let ours = scanner.string().ok().map(std::borrow::Cow::into_owned);
                assert_eq!(ours, value, "{line}");
            }
        }
    }
}

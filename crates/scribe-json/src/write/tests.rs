use super::*;

/// `escapes_in` marks exactly the bytes serde_json escapes (below 0x20, a quote, a backslash),
/// whatever their neighbours are (bytes above 0x7f included, where a borrow or a carry would
/// spill into the next byte).
#[test]
fn escapes_in_marks_exactly_the_bytes_to_escape() {
    let escaped = |x: u8| x < 0x20 || x == b'"' || x == b'\\';
    for b in 0..=255u8 {
        for filler in [0u8, 0x1f, 0x20, b'"', b'\\', 0x7f, 0x80, 0xc3, 0xff] {
            for lane in 0..8 {
                let mut w = [filler; 8];
                w[lane] = b;
                let marks = escapes_in(u64::from_le_bytes(w));
                for (i, &x) in w.iter().enumerate() {
                    let marked = marks >> (i * 8 + 7) & 1 == 1;
                    assert_eq!(marked, escaped(x), "byte {x:#x} in lane {i} of {w:x?}");
                }
            }
        }
    }
}

/// `write_str` writes what serde_json writes for a string, every byte to escape included.
#[test]
fn a_string_is_written_as_serde_json_writes_it() {
    let s: String = (0u8..=0x7f).map(char::from).chain("é€😀".chars()).collect();
    let mut out = Vec::new();
    write_str(&mut out, &s);
    assert_eq!(out, serde_json::to_vec(&s).unwrap());
}

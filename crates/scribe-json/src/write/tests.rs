use super::*;
use proptest::prelude::*;
use serde_json::json;

use crate::strategy::value;

fn ours<T: Serialize + ?Sized>(v: &T) -> String {
    let mut out = Vec::new();
    write(&mut out, v).expect("serializes");
    String::from_utf8(out).expect("UTF-8")
}

proptest! {
    #[test]
    fn writes_what_serde_json_writes(v in value()) {
        prop_assert_eq!(ours(&v), serde_json::to_string(&v).unwrap());
    }

    #[test]
    fn escapes_any_string_as_serde_json_does(s in any::<String>()) {
        prop_assert_eq!(ours(&s), serde_json::to_string(&s).unwrap());
    }
}

/// `escapes_in` marks exactly the bytes `ESCAPE` marks, whatever their neighbours are
/// (bytes above 0x7f included, where a borrow or a carry would spill into the next byte).
#[test]
fn escapes_in_marks_exactly_the_bytes_to_escape() {
    for b in 0..=255u8 {
        for filler in [0u8, 0x1f, 0x20, b'"', b'\\', 0x7f, 0x80, 0xc3, 0xff] {
            for lane in 0..8 {
                let mut w = [filler; 8];
                w[lane] = b;
                let marks = escapes_in(u64::from_le_bytes(w));
                for (i, &x) in w.iter().enumerate() {
                    let marked = marks >> (i * 8 + 7) & 1 == 1;
                    assert_eq!(
                        marked,
                        ESCAPE[x as usize] != 0,
                        "byte {x:#x} in lane {i} of {w:x?}"
                    );
                }
            }
        }
    }
}

/// `escapes_in_block` marks exactly the bytes `ESCAPE` marks, in every lane of a block.
#[cfg(target_arch = "x86_64")]
#[test]
fn escapes_in_block_marks_exactly_the_bytes_to_escape() {
    for b in 0..=255u8 {
        for filler in [0u8, 0x1f, 0x20, b'"', b'\\', 0x7f, 0x80, 0xc3, 0xff] {
            for lane in 0..16 {
                let mut block = [filler; 16];
                block[lane] = b;
                let marks = escapes_in_block(&block);
                for (i, &x) in block.iter().enumerate() {
                    assert_eq!(
                        marks >> i & 1 == 1,
                        ESCAPE[x as usize] != 0,
                        "byte {x:#x} in lane {i} of {block:x?}"
                    );
                }
            }
        }
    }
}

#[test]
fn every_byte_that_needs_escaping_is_found_at_every_place_in_a_word() {
    for b in 0u8..=0x7f {
        for at in 0..40 {
            let mut s = "a".repeat(40);
            s.replace_range(at..at + 1, &(b as char).to_string());
            assert_eq!(
                ours(&s),
                serde_json::to_string(&s).unwrap(),
                "byte {b:#x} at {at}"
            );
        }
    }
}

/// The shapes serde derives: enum variants of every kind, options, maps with number keys.
#[test]
fn derived_shapes_are_serde_jsons() {
    #[derive(Serialize)]
    enum E {
        Unit,
        New(u8),
        Tuple(u8, String),
        Struct { a: Option<u8>, b: f32 },
    }
    #[derive(Serialize)]
    #[serde(tag = "kind", rename_all = "snake_case")]
    enum Tagged {
        One { x: u8 },
        Two,
    }
    #[derive(Serialize)]
    struct S<'a> {
        e: Vec<E>,
        t: Vec<Tagged>,
        m: std::collections::BTreeMap<i32, &'a str>,
        b: std::collections::BTreeMap<bool, char>,
        #[serde(skip_serializing_if = "Option::is_none")]
        skipped: Option<u8>,
        unit: (),
        tuple: (u8, f64, &'a str),
        bytes: &'a serde_bytes_like::Bytes,
        nan: f64,
        big: u128,
    }
    mod serde_bytes_like {
        pub(super) struct Bytes(pub(super) [u8; 3]);
        impl serde::Serialize for Bytes {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_bytes(&self.0)
            }
        }
    }
    let v = S {
        e: vec![
            E::Unit,
            E::New(7),
            E::Tuple(1, "x\"".into()),
            E::Struct { a: None, b: 1.5 },
        ],
        t: vec![Tagged::One { x: 1 }, Tagged::Two],
        m: [(-3, "a"), (12, "b")].into_iter().collect(),
        b: [(true, 'é')].into_iter().collect(),
        skipped: None,
        unit: (),
        tuple: (1, 0.1, "\u{0}"),
        bytes: &serde_bytes_like::Bytes([1, 2, 255]),
        nan: f64::NAN,
        big: u128::MAX,
    };
    assert_eq!(ours(&v), serde_json::to_string(&v).unwrap());
    assert_eq!(
        ours(&json!({"a": [1, {"b": null}], "": {}})),
        r#"{"a":[1,{"b":null}],"":{}}"#
    );
}

#[test]
fn a_key_json_cannot_hold_is_refused_as_serde_json_refuses_it() {
    let m: std::collections::BTreeMap<Vec<u8>, u8> = [(vec![1], 1)].into_iter().collect();
    let ours = write(&mut Vec::new(), &m).unwrap_err().to_string();
    assert_eq!(ours, serde_json::to_string(&m).unwrap_err().to_string());
}

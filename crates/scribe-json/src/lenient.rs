//! Typed fields that read like `serde_json::Value`'s accessors ("parse once, borrow").
//!
//! Decoding a line into typed structs skips every field nobody reads and borrows strings from the
//! line, where a `Value` tree allocates a key, a value and a map slot for each. But the adapters'
//! meaning was written against `Value`: `v.get(k).and_then(Value::as_str)` is `None` for a number
//! as much as for a missing field, a wrong type never makes a line unreadable, a repeated key
//! keeps its last value, and a line that is not JSON is refused however it is decoded. So:
//!
//! - each field type here reads as the accessor it stands for ([`Str`] is `as_str`, [`Bool`]
//!   `as_bool`, [`U64`] `as_u64`, [`Present`] `get(k).cloned()`, …);
//! - [`lenient_struct!`] writes a struct's `Deserialize` that takes the last of repeated keys and
//!   reads every field it does not name as [`Checked`] — parsed as strictly as a `Value` parse
//!   (serde's own skip, which a derived struct uses, lets through an unpaired surrogate escape,
//!   a number out of range and nesting past the recursion limit), and dropped without being built.
//!
//! They work alike from a line's text and from a `&Value` (serde_json's `Value` is a deserializer
//! that lends its strings). A line's text is read by the scanner's deserializer first
//! (`scan/de.rs`: a skipped value stepped over, not decoded), and by serde_json when it declines.

use std::borrow::Cow;
use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use crate::scan::CHECKED_TOKEN;

/// The visitor methods for the value kinds a reader does not keep: each is read (a list or an
/// object item by item as [`Checked`], so as strictly as a `Value` parse) and gives `$other`.
/// `strs` adds the strings, `scalars` the booleans, numbers and null, `nested` lists, objects
/// and `Some`.
#[macro_export]
macro_rules! visit_others {
    ($other:expr; $($kind:ident),+) => {
        $( $crate::visit_others!(@$kind $other); )+
    };
    (@strs $other:expr) => {
        fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
            Ok($other)
        }
    };
    (@scalars $other:expr) => {
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok($other)
        }
        $crate::visit_others!(@numbers $other);
    };
    (@numbers $other:expr) => {
        fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok($other)
        }
    };
    (@nested $other:expr) => {
        fn visit_some<D: $crate::__serde::Deserializer<'de>>(
            self,
            d: D,
        ) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_seq<A: $crate::__serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            while seq
                .next_element::<$crate::lenient::Checked>()?
                .is_some()
            {}
            Ok($other)
        }
        fn visit_map<A: $crate::__serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            while map
                .next_entry::<$crate::lenient::Checked, $crate::lenient::Checked>()?
                .is_some()
            {}
            Ok($other)
        }
    };
}

/// One JSON value, kept only when it is a string, a boolean or an unsigned integer (what the
/// field types below pick from); anything else is read ([`Checked`]) and dropped.
pub(crate) enum Scalar<'a> {
    Str(Cow<'a, str>),
    Bool(bool),
    U64(u64),
    Other,
}

impl<'de> Deserialize<'de> for Scalar<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ScalarVisitor)
    }
}

/// The visitor behind [`Scalar`].
struct ScalarVisitor;

impl<'de> Visitor<'de> for ScalarVisitor {
    type Value = Scalar<'de>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Borrowed(s)))
    }

    fn visit_str<E>(self, s: &str) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Owned(s.to_owned())))
    }

    fn visit_string<E>(self, s: String) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Str(Cow::Owned(s)))
    }

    fn visit_bool<E>(self, b: bool) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Bool(b))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::U64(n))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Scalar<'de>, E> {
        Ok(u64::try_from(n).map_or(Scalar::Other, Scalar::U64))
    }

    fn visit_f64<E>(self, _: f64) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }

    fn visit_unit<E>(self) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }

    fn visit_none<E>(self) -> Result<Scalar<'de>, E> {
        Ok(Scalar::Other)
    }

    visit_others!(Scalar::Other; nested);
}

/// A JSON value read as strictly as a `Value` parse reads it, and dropped (see the module doc).
pub struct Checked;

impl<'de> Deserialize<'de> for Checked {
    /// Asked for as a newtype under [`CHECKED_TOKEN`]: the line's scanner steps over the value
    /// without building it; serde_json reads it as the newtype's one value.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(CHECKED_TOKEN, CheckVisitor)
    }
}

/// The visitor behind [`Checked`]: takes every value, keeps none.
pub(crate) struct CheckVisitor;

impl<'de> Visitor<'de> for CheckVisitor {
    type Value = Checked;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Checked, D::Error> {
        d.deserialize_any(self)
    }

    visit_others!(Checked; strs, scalars, nested);
}

/// An object key, borrowed from the line when it has no escapes.
pub struct Key<'a>(pub Cow<'a, str>);

impl<'de: 'a, 'a> Deserialize<'de> for Key<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        match Scalar::deserialize(d)? {
            Scalar::Str(s) => Ok(Key(s)),
            // serde_json's keys are always strings; a `Value`'s too.
            Scalar::Bool(_) | Scalar::U64(_) | Scalar::Other => Ok(Key(Cow::Borrowed(""))),
        }
    }
}

/// `v.get(k).and_then(Value::as_str)`, borrowed from the line where it has no escapes.
#[derive(Debug, Default)]
pub struct Str<'a>(pub Option<Cow<'a, str>>);

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Str(match Scalar::deserialize(d)? {
            Scalar::Str(s) => Some(s),
            Scalar::Bool(_) | Scalar::U64(_) | Scalar::Other => None,
        }))
    }
}

/// `v.get(k).map(Value::as_str)`: `Some` when the field is there, whatever it holds.
#[derive(Debug, Default)]
pub struct PresentStr<'a>(pub Option<Option<Cow<'a, str>>>);

impl<'de: 'a, 'a> Deserialize<'de> for PresentStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Str::deserialize(d).map(|s| PresentStr(Some(s.0)))
    }
}

/// `v.get(k).and_then(Value::as_bool)`.
#[derive(Debug, Default)]
pub struct Bool(pub Option<bool>);

impl<'de> Deserialize<'de> for Bool {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(Bool(match Scalar::deserialize(d)? {
            Scalar::Bool(b) => Some(b),
            Scalar::Str(_) | Scalar::U64(_) | Scalar::Other => None,
        }))
    }
}

/// `v.get(k).and_then(Value::as_u64)`.
#[derive(Debug, Default)]
pub struct U64(pub Option<u64>);

impl<'de> Deserialize<'de> for U64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Ok(U64(match Scalar::deserialize(d)? {
            Scalar::U64(n) => Some(n),
            Scalar::Str(_) | Scalar::Bool(_) | Scalar::Other => None,
        }))
    }
}

/// `v.get(k).and_then(Value::as_f64)`: any number, as a float.
#[derive(Debug, Default)]
pub struct F64(pub Option<f64>);

impl<'de> Deserialize<'de> for F64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(|v| F64(v.as_f64()))
    }
}

/// `v.get(k).cloned()`: a free-form field kept whole, `null` included (serde's own `Option`
/// would read `null` as absent).
#[derive(Debug, Default)]
pub struct Present(pub Option<Value>);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(|v| Present(Some(v)))
    }
}

/// `v.get(k).and_then(Value::as_array)`, each item read as `T`: the items of an array field,
/// else `None` (anything else is read and dropped).
#[derive(Debug)]
pub struct Items<T>(pub Option<Vec<T>>);

impl<T> Default for Items<T> {
    fn default() -> Self {
        Items(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Items<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ItemsVisitor(PhantomData)).map(Items)
    }
}

/// The visitor behind [`Items`].
struct ItemsVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ItemsVisitor<T> {
    type Value = Option<Vec<T>>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<Vec<T>>, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(64));
        while let Some(item) = seq.next_element()? {
            items.push(item);
        }
        Ok(Some(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<Vec<T>>, A::Error> {
        CheckVisitor.visit_map(map).map(|_| None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<Vec<T>>, D::Error> {
        d.deserialize_any(self)
    }

    visit_others!(None; strs, scalars);
}

/// `v.get(k).and_then(Value::as_array).cloned()`: the items of an array field, else `None`.
pub type Array = Items<Value>;

/// A field read as `T` when it is an object, and as absent when it is anything else (what
/// `v.get(k)` followed by field lookups gives: nothing from a string or a number).
#[derive(Debug)]
pub struct Object<T>(pub Option<T>);

impl<T> Default for Object<T> {
    fn default() -> Self {
        Object(None)
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Object<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(ObjectVisitor(PhantomData)).map(Object)
    }
}

/// The visitor behind [`Object`]: a map goes to `T`'s own `Deserialize`, anything else is read
/// and dropped.
struct ObjectVisitor<T>(PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<T>, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Option<T>, A::Error> {
        CheckVisitor.visit_seq(seq).map(|_| None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_any(self)
    }

    visit_others!(None; strs, scalars);
}

impl Str<'_> {
    /// `Value::as_str`.
    pub fn as_str(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl PresentStr<'_> {
    /// `Value::as_str`.
    pub fn as_str(&self) -> Option<&str> {
        self.0.as_ref().and_then(|s| s.as_deref())
    }

    /// The key is there, whatever its value (`Value::get(k).is_some()`).
    pub fn is_present(&self) -> bool {
        self.0.is_some()
    }
}

impl Bool {
    /// `Value::as_bool`.
    pub fn as_bool(&self) -> Option<bool> {
        self.0
    }
}

/// `v.get(k).is_some()`: the key is there, whatever it holds (read as [`Checked`], not kept).
#[derive(Debug, Default, Clone, Copy)]
pub struct Given(pub bool);

impl<'de> Deserialize<'de> for Given {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Checked::deserialize(d).map(|_| Given(true))
    }
}

/// How a string field begins, after leading white space: its first [`Lead::LEN`] bytes, so that
/// a marker at its start can be told without copying the rest (a tool output may be megabytes).
/// `None`: absent, or not a string; an empty lead: blank.
#[derive(Debug, Default, Clone, Copy)]
pub struct Lead(pub Option<LeadText>);

/// The first bytes of a text (at most [`Lead::LEN`], cut on a character boundary).
#[derive(Debug, Clone, Copy)]
pub struct LeadText {
    bytes: [u8; Lead::LEN],
    len: u8,
}

impl Lead {
    /// Bytes kept.
    pub const LEN: usize = 32;

    /// The lead of `s`.
    pub fn of(s: &str) -> LeadText {
        let t = s.trim_start();
        let mut len = t.len().min(Lead::LEN);
        while !t.is_char_boundary(len) {
            len -= 1;
        }
        let mut bytes = [0; Lead::LEN];
        bytes[..len].copy_from_slice(&t.as_bytes()[..len]);
        LeadText {
            bytes,
            len: len as u8,
        }
    }
}

impl LeadText {
    /// The bytes kept, as text.
    pub fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

/// The name a reader of a string's [`Lead`] asks for with `deserialize_newtype_struct`, its
/// visitor reading a string only through [`Lead::of`]: the line's scanner then hands the visitor
/// a string's first characters past its leading white space, decoded, not the whole string (a
/// tool output may be megabytes); anything but a string it reads as `deserialize_any` does. Any
/// other deserializer sees an ordinary newtype, and the visitor's `visit_newtype_struct` reads the
/// value with `deserialize_any`.
pub const LEAD_TOKEN: &str = "$scribe::Lead";

impl<'de> Deserialize<'de> for Lead {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lead;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<Lead, D::Error> {
                d.deserialize_any(self)
            }
            fn visit_str<E>(self, s: &str) -> Result<Lead, E> {
                Ok(Lead(Some(Lead::of(s))))
            }
            visit_others!(Lead(None); scalars, nested);
        }
        d.deserialize_newtype_struct(LEAD_TOKEN, V)
    }
}

/// A field read as `T` when it is an object and as `T::default()` (every field absent) when it
/// is anything else ([`Object`] without the `Option`).
#[derive(Debug, Default)]
pub struct Obj<T>(pub T);

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Object::<T>::deserialize(d).map(|o| Obj(o.0.unwrap_or_default()))
    }
}

/// A type read as itself, for a field of [`lenient_struct!`] whose type has its own lenient
/// `Deserialize`.
pub struct Same<T>(pub T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Same<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Same)
    }
}

/// Reading a struct where it lies, and the macro that declares one.
mod fill;

pub use fill::{Fill, ReadInto, fill_from_str, from_str, from_text};

#[cfg(test)]
mod tests;

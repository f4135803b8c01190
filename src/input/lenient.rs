//! Typed fields that read like `serde_json::Value`'s accessors (issue 14, "parse once, borrow").
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

use crate::input::scan::de::CHECKED_TOKEN;
use crate::model::details::{self, Details};

/// The visitor methods for the value kinds a reader does not keep: each is read (a list or an
/// object item by item as [`Checked`], so as strictly as a `Value` parse) and gives `$other`.
/// `strs` adds the strings, `scalars` the booleans, numbers and null, `nested` lists, objects
/// and `Some`.
macro_rules! visit_others {
    ($other:expr; $($kind:ident),+) => {
        $( $crate::input::lenient::visit_others!(@$kind $other); )+
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
        $crate::input::lenient::visit_others!(@numbers $other);
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
        fn visit_some<D: serde::Deserializer<'de>>(
            self,
            d: D,
        ) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_seq<A: serde::de::SeqAccess<'de>>(
            self,
            mut seq: A,
        ) -> Result<Self::Value, A::Error> {
            while seq
                .next_element::<$crate::input::lenient::Checked>()?
                .is_some()
            {}
            Ok($other)
        }
        fn visit_map<A: serde::de::MapAccess<'de>>(
            self,
            mut map: A,
        ) -> Result<Self::Value, A::Error> {
            while map
                .next_entry::<$crate::input::lenient::Checked, $crate::input::lenient::Checked>()?
                .is_some()
            {}
            Ok($other)
        }
    };
}

pub(crate) use visit_others;

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
pub(crate) struct Checked;

impl<'de> Deserialize<'de> for Checked {
    /// Asked for as a newtype under [`CHECKED_TOKEN`]: the line's scanner steps over the value
    /// without building it; serde_json reads it as the newtype's one value.
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_newtype_struct(CHECKED_TOKEN, CheckVisitor)
    }
}

/// The visitor behind [`Checked`]: takes every value, keeps none.
struct CheckVisitor;

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
pub(crate) struct Key<'a>(pub(crate) Cow<'a, str>);

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
pub(crate) struct Str<'a>(pub(crate) Option<Cow<'a, str>>);

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
pub(crate) struct PresentStr<'a>(pub(crate) Option<Option<Cow<'a, str>>>);

impl<'de: 'a, 'a> Deserialize<'de> for PresentStr<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Str::deserialize(d).map(|s| PresentStr(Some(s.0)))
    }
}

/// `v.get(k).and_then(Value::as_bool)`.
#[derive(Debug, Default)]
pub(crate) struct Bool(pub(crate) Option<bool>);

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
pub(crate) struct U64(pub(crate) Option<u64>);

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
pub(crate) struct F64(pub(crate) Option<f64>);

impl<'de> Deserialize<'de> for F64 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(|v| F64(v.as_f64()))
    }
}

/// `v.get(k).cloned()`: a free-form field kept whole, `null` included (serde's own `Option`
/// would read `null` as absent).
#[derive(Debug, Default)]
pub(crate) struct Present(pub(crate) Option<Value>);

impl<'de> Deserialize<'de> for Present {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Value::deserialize(d).map(|v| Present(Some(v)))
    }
}

/// `v.get(k).cloned()` kept as compact JSON text ([`Details`]): a free-form field that is
/// copied to the output, not read, so never built as a `Value` tree (`null` included).
#[derive(Debug, Default)]
pub(crate) struct PresentDetails(pub(crate) Option<Details>);

impl<'de> Deserialize<'de> for PresentDetails {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        details::read(d).map(|x| PresentDetails(Some(x)))
    }
}

/// `v.get(k).and_then(Value::as_array)`, each item read as `T`: the items of an array field,
/// else `None` (anything else is read and dropped).
#[derive(Debug)]
pub(crate) struct Items<T>(pub(crate) Option<Vec<T>>);

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
pub(crate) type Array = Items<Value>;

/// A field read as `T` when it is an object, and as absent when it is anything else (what
/// `v.get(k)` followed by field lookups gives: nothing from a string or a number).
#[derive(Debug)]
pub(crate) struct Object<T>(pub(crate) Option<T>);

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
    pub(crate) fn as_str(&self) -> Option<&str> {
        self.0.as_deref()
    }
}

impl PresentStr<'_> {
    /// `Value::as_str`.
    pub(crate) fn as_str(&self) -> Option<&str> {
        self.0.as_ref().and_then(|s| s.as_deref())
    }

    /// The key is there, whatever its value (`Value::get(k).is_some()`).
    pub(crate) fn is_present(&self) -> bool {
        self.0.is_some()
    }
}

impl Bool {
    /// `Value::as_bool`.
    pub(crate) fn as_bool(&self) -> Option<bool> {
        self.0
    }
}

/// `v.get(k).is_some()`: the key is there, whatever it holds (read as [`Checked`], not kept).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Given(pub(crate) bool);

impl<'de> Deserialize<'de> for Given {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Checked::deserialize(d).map(|_| Given(true))
    }
}

/// A fingerprint (`recent::fingerprint`) of a field when it is a string, to match it with
/// another without keeping its text (a prompt may be long).
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Hashed(pub(crate) Option<u64>);

impl<'de> Deserialize<'de> for Hashed {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Hashed;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Hashed, E> {
                Ok(Hashed(Some(crate::model::recent::fingerprint(s))))
            }
            visit_others!(Hashed(None); scalars, nested);
        }
        d.deserialize_any(V)
    }
}

/// How a string field begins, after leading white space: its first [`Lead::LEN`] bytes, so that
/// a marker at its start can be told without copying the rest (a tool output may be megabytes).
/// `None`: absent, or not a string; an empty lead: blank.
#[derive(Debug, Default, Clone, Copy)]
pub(crate) struct Lead(pub(crate) Option<LeadText>);

/// The first bytes of a text (at most [`Lead::LEN`], cut on a character boundary).
#[derive(Debug, Clone, Copy)]
pub(crate) struct LeadText {
    bytes: [u8; Lead::LEN],
    len: u8,
}

impl Lead {
    /// Bytes kept.
    pub(crate) const LEN: usize = 32;

    /// The lead of `s`.
    pub(crate) fn of(s: &str) -> LeadText {
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
    pub(crate) fn as_str(&self) -> &str {
        std::str::from_utf8(&self.bytes[..usize::from(self.len)]).unwrap_or_default()
    }
}

impl<'de> Deserialize<'de> for Lead {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Lead;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("any JSON value")
            }
            fn visit_str<E>(self, s: &str) -> Result<Lead, E> {
                Ok(Lead(Some(Lead::of(s))))
            }
            visit_others!(Lead(None); scalars, nested);
        }
        d.deserialize_any(V)
    }
}

/// A field read as `T` when it is an object and as `T::default()` (every field absent) when it
/// is anything else ([`Object`] without the `Option`).
#[derive(Debug, Default)]
pub(crate) struct Obj<T>(pub(crate) T);

impl<'de, T: Deserialize<'de> + Default> Deserialize<'de> for Obj<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Object::<T>::deserialize(d).map(|o| Obj(o.0.unwrap_or_default()))
    }
}

/// A type read as itself, for a field of [`lenient_struct!`] whose type has its own lenient
/// `Deserialize`.
pub(crate) struct Same<T>(pub(crate) T);

impl<'de, T: Deserialize<'de>> Deserialize<'de> for Same<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        T::deserialize(d).map(Same)
    }
}

/// A struct whose fields are read from an object where the struct lies ([`lenient_struct!`]
/// writes it): a struct of many fields, returned by value through each layer of serde's
/// visitors, was copied at each (a tenth of a `--to jsonl` run went to such copies; issue 14).
pub(crate) trait Fill<'de>: Default {
    /// Reads the object's fields into `self`, a named key into its field (the last of repeated
    /// keys wins), any other key as [`Checked`].
    fn fill<A: MapAccess<'de>>(&mut self, map: A) -> Result<(), A::Error>;
}

/// How a [`lenient_struct!`] field's reader puts its value in the field: every reader's value
/// is moved in, but an [`Object`] of a [`Fill`] struct is read where the field lies.
pub(crate) trait ReadInto<'de> {
    /// The field's type.
    type Out;
    /// Reads the next value of `map` into `out`.
    fn read_into<A: MapAccess<'de>>(map: &mut A, out: &mut Self::Out) -> Result<(), A::Error>;
}

/// [`ReadInto`] for readers whose value is moved into the field (`.0`).
macro_rules! read_by_move {
    ($( [$($generics:tt)*] $reader:ty => $out:ty; )*) => {
        $(
            impl<$($generics)*> ReadInto<'de> for $reader {
                type Out = $out;
                fn read_into<A: MapAccess<'de>>(
                    map: &mut A,
                    out: &mut $out,
                ) -> Result<(), A::Error> {
                    *out = map.next_value::<Self>()?.0;
                    Ok(())
                }
            }
        )*
    };
}

read_by_move! {
    ['de: 'a, 'a] Str<'a> => Option<Cow<'a, str>>;
    ['de: 'a, 'a] PresentStr<'a> => Option<Option<Cow<'a, str>>>;
    ['de] Bool => Option<bool>;
    ['de] U64 => Option<u64>;
    ['de] F64 => Option<f64>;
    ['de] Present => Option<Value>;
    ['de] PresentDetails => Option<Details>;
    ['de, T: Deserialize<'de>] Items<T> => Option<Vec<T>>;
    ['de, T: Deserialize<'de>] Same<T> => T;
}

impl<'de, T: Fill<'de>> ReadInto<'de> for Object<T> {
    type Out = Option<T>;
    fn read_into<A: MapAccess<'de>>(map: &mut A, out: &mut Option<T>) -> Result<(), A::Error> {
        // Anything but an object leaves the field absent, as `Object` reads it.
        *out = None;
        map.next_value_seed(ObjectInPlace(out))
    }
}

/// The seed and visitor behind [`Object`]'s [`ReadInto`]: an object fills a new `T` in the
/// field; anything else is read and dropped.
struct ObjectInPlace<'p, T>(&'p mut Option<T>);

impl<'de, T: Fill<'de>> de::DeserializeSeed<'de> for ObjectInPlace<'_, T> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de, T: Fill<'de>> Visitor<'de> for ObjectInPlace<'_, T> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
        self.0.insert(T::default()).fill(map)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<(), A::Error> {
        CheckVisitor.visit_seq(seq).map(|_| ())
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }

    visit_others!((); strs, scalars);
}

/// Reads a line that must be one object into `out`, where it lies ([`Fill`]); what
/// `serde_json::from_str::<T>` does for a [`lenient_struct!`], without moving the struct out.
pub(crate) fn fill_from_str<'de, T: Fill<'de>>(
    text: &'de str,
    out: &mut T,
) -> serde_json::Result<()> {
    /// The visitor of the line's one object.
    struct Whole<'p, T>(&'p mut T);
    impl<'de, T: Fill<'de>> Visitor<'de> for Whole<'_, T> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<(), A::Error> {
            self.0.fill(map)
        }
    }
    // The scanner reads most lines faster; what it declines, serde_json reads afresh.
    if crate::input::scan::de::fill_object(text, out).is_ok() {
        return Ok(());
    }
    *out = T::default();
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_map(Whole(out))?;
    de.end()
}

/// A [`lenient_struct!`] read from a line that must be one object: `serde_json::from_str`, by
/// the scanner first ([`fill_from_str`]).
pub(crate) fn from_str<'de, T: Fill<'de>>(text: &'de str) -> serde_json::Result<T> {
    let mut out = T::default();
    fill_from_str(text, &mut out)?;
    Ok(out)
}

/// A struct of lenient fields (`"key" => name: Type as Reader`: the field `name` of type `Type`
/// is `Reader`'s `.0`, read from the key `key`) with a `Default` and a `Deserialize` that reads
/// an object: a named key into its field (the last of repeated keys wins, as in a `Value`), any
/// other key as [`Checked`]. Anything but an object is an error.
macro_rules! lenient_struct {
    (
        $(#[$meta:meta])*
        pub(crate) struct $name:ident $(<$lt:lifetime>)? {
            $(
                $(#[$fmeta:meta])*
                $key:literal => $field:ident : $ty:ty as $reader:ty,
            )*
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Default)]
        pub(crate) struct $name $(<$lt>)? {
            $(
                $(#[$fmeta])*
                pub(crate) $field: $ty,
            )*
        }

        impl<'de $(: $lt, $lt)?> serde::Deserialize<'de> for $name $(<$lt>)? {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                /// The visitor of one object.
                struct Fields<'de $(, $lt)?>(std::marker::PhantomData<(&'de (), $(&$lt (),)?)>);

                impl<'de $(: $lt, $lt)?> serde::de::Visitor<'de> for Fields<'de $(, $lt)?> {
                    type Value = $name $(<$lt>)?;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("a JSON object")
                    }

                    fn visit_map<A: serde::de::MapAccess<'de>>(
                        self,
                        map: A,
                    ) -> Result<Self::Value, A::Error> {
                        let mut out = <$name>::default();
                        $crate::input::lenient::Fill::fill(&mut out, map)?;
                        Ok(out)
                    }
                }

                d.deserialize_map(Fields(std::marker::PhantomData))
            }
        }

        impl<'de $(: $lt, $lt)?> $crate::input::lenient::Fill<'de> for $name $(<$lt>)? {
            fn fill<A: serde::de::MapAccess<'de>>(&mut self, mut map: A) -> Result<(), A::Error> {
                while let Some(key) = map.next_key::<$crate::input::lenient::Key<'de>>()? {
                    match key.0.as_ref() {
                        $( $key => <$reader as $crate::input::lenient::ReadInto<'de>>::read_into(
                            &mut map,
                            &mut self.$field,
                        )?, )*
                        _ => {
                            map.next_value::<$crate::input::lenient::Checked>()?;
                        }
                    }
                }
                Ok(())
            }
        }
    };
}

pub(crate) use lenient_struct;

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    lenient_struct! {
        /// Every field type, for the tests.
        pub(crate) struct Probe<'a> {
            "s" => s: Option<Cow<'a, str>> as Str<'a>,
            "p" => p: Option<Option<Cow<'a, str>>> as PresentStr<'a>,
            "b" => b: Option<bool> as Bool,
            "n" => n: Option<u64> as U64,
            "v" => v: Option<Value> as Present,
        }
    }

    /// Each field reads as the `Value` accessor it stands for, from text and from a `Value`.
    #[test]
    fn fields_read_as_the_value_accessors_do() {
        let cases = [
            json!({"s": "x", "p": 1, "b": true, "n": 7, "v": null}),
            json!({"s": 1, "b": "true", "n": -1, "v": {"a": [1]}}),
            json!({"s": {"a": 1}, "p": null, "b": null, "n": 1.5}),
            json!({"s": ["x"], "p": "q\"r", "n": "7", "other": [1, {"x": 2}]}),
            json!({}),
        ];
        for c in cases {
            let text = c.to_string();
            for probe in [
                serde_json::from_str::<Probe>(&text).unwrap(),
                Probe::deserialize(&c).unwrap(),
            ] {
                assert_eq!(probe.s.as_deref(), c.get("s").and_then(Value::as_str));
                assert_eq!(
                    probe.p.as_ref().map(|p| p.as_deref()),
                    c.get("p").map(Value::as_str)
                );
                assert_eq!(probe.b, c.get("b").and_then(Value::as_bool));
                assert_eq!(probe.n, c.get("n").and_then(Value::as_u64));
                assert_eq!(probe.v.as_ref(), c.get("v"));
            }
        }
    }

    /// A repeated key keeps its last value, as a `Value` does.
    #[test]
    fn the_last_of_repeated_keys_wins() {
        let text = r#"{"s": "first", "s": "last"}"#;
        let probe: Probe = serde_json::from_str(text).unwrap();
        let value: Value = serde_json::from_str(text).unwrap();
        assert_eq!(probe.s.as_deref(), value["s"].as_str());
    }

    /// What a `Value` parse refuses, the typed parse refuses too, wherever it is in the line
    /// (serde's own skip of an unnamed field would let each through).
    #[test]
    fn a_line_a_value_parse_refuses_is_refused() {
        let deep = format!(r#"{{"a":{}1{}}}"#, "[".repeat(200), "]".repeat(200));
        let long = format!(r#"{{"a":1{}}}"#, "0".repeat(400));
        for line in [
            r#"{"a":"\ud800"}"#,
            r#"{"s":"ok","a":"\uDC00x"}"#,
            r#"{"a":1e999}"#,
            r#"{"v":{"x":-2E+400}}"#,
            r#"{"s":["\ud800"]}"#,
            deep.as_str(),
            long.as_str(),
        ] {
            assert!(serde_json::from_str::<Value>(line).is_err(), "{line}");
            assert!(serde_json::from_str::<Probe>(line).is_err(), "{line}");
        }
        let fine = r#"{"a":"\ud83d\ude00","b":true,"c":1.5e3}"#;
        assert!(serde_json::from_str::<Probe>(fine).is_ok());
    }

    /// A string without escapes is borrowed from the line, not copied.
    #[test]
    fn plain_strings_are_borrowed() {
        let p: Probe = serde_json::from_str(r#"{"s": "plain"}"#).unwrap();
        assert!(matches!(p.s, Some(Cow::Borrowed("plain"))));
    }
}

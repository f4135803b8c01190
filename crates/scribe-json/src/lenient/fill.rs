//! Reading a struct's fields where it lies: [`Fill`], the field readers' [`ReadInto`], the
//! entry points from a line's text ([`fill_from_str`], [`from_str`]) and [`lenient_struct!`]
//! that declares such a struct.

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

use super::{Bool, CheckVisitor, F64, Items, Object, Present, PresentStr, Same, Str, U64};

/// A struct whose fields are read from an object where the struct lies ([`lenient_struct!`]
/// writes it): a struct of many fields, returned by value through each layer of serde's
/// visitors, would be copied at each.
pub trait Fill<'de>: Default {
    /// Reads the object's fields into `self`, a named key into its field (the last of repeated
    /// keys wins), any other key as [`super::Checked`].
    fn fill<A: MapAccess<'de>>(&mut self, map: A) -> Result<(), A::Error>;
}

/// How a [`lenient_struct!`] field's reader puts its value in the field: every reader's value
/// is moved in, but an [`Object`] of a [`Fill`] struct is read where the field lies.
pub trait ReadInto<'de> {
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
pub fn fill_from_str<'de, T: Fill<'de>>(text: &'de str, out: &mut T) -> serde_json::Result<()> {
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
    if crate::scan::fill_object(text, out).is_ok() {
        return Ok(());
    }
    *out = T::default();
    let mut de = serde_json::Deserializer::from_str(text);
    de.deserialize_map(Whole(out))?;
    de.end()
}

/// A [`lenient_struct!`] read from a line that must be one object: `serde_json::from_str`, by
/// the scanner first ([`fill_from_str`]).
pub fn from_str<'de, T: Fill<'de>>(text: &'de str) -> serde_json::Result<T> {
    let mut out = T::default();
    fill_from_str(text, &mut out)?;
    Ok(out)
}

/// Any `Deserialize` type read from `text` (one JSON value, nothing after it), as
/// `serde_json::from_str` reads it: by the scanner first, whose `Deserializer` steps over the
/// fields the type does not name many bytes at a time, and by serde_json afresh where the
/// scanner declines (so the value and the error are serde_json's).
pub fn from_text<'de, T: serde::Deserialize<'de>>(text: &'de str) -> serde_json::Result<T> {
    if let Some(mut scanner) = crate::Scanner::new(text) {
        if let Ok(value) = T::deserialize(&mut scanner) {
            if scanner.end().is_ok() {
                return Ok(value);
            }
        }
    }
    serde_json::from_str(text)
}

/// A struct of lenient fields (`"key" => name: Type as Reader`: the field `name` of type `Type`
/// is `Reader`'s `.0`, read from the key `key`) with a `Default` and a `Deserialize` that reads
/// an object: a named key into its field (the last of repeated keys wins, as in a `Value`), any
/// other key as [`Checked`]. Anything but an object is an error.
#[macro_export]
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

        impl<'de $(: $lt, $lt)?> $crate::__serde::Deserialize<'de> for $name $(<$lt>)? {
            fn deserialize<D: $crate::__serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                /// The visitor of one object.
                struct Fields<'de $(, $lt)?>(std::marker::PhantomData<(&'de (), $(&$lt (),)?)>);

                impl<'de $(: $lt, $lt)?> $crate::__serde::de::Visitor<'de> for Fields<'de $(, $lt)?> {
                    type Value = $name $(<$lt>)?;

                    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                        f.write_str("a JSON object")
                    }

                    fn visit_map<A: $crate::__serde::de::MapAccess<'de>>(
                        self,
                        map: A,
                    ) -> Result<Self::Value, A::Error> {
                        let mut out = <$name>::default();
                        $crate::lenient::Fill::fill(&mut out, map)?;
                        Ok(out)
                    }
                }

                d.deserialize_map(Fields(std::marker::PhantomData))
            }
        }

        impl<'de $(: $lt, $lt)?> $crate::lenient::Fill<'de> for $name $(<$lt>)? {
            fn fill<A: $crate::__serde::de::MapAccess<'de>>(&mut self, mut map: A) -> Result<(), A::Error> {
                while let Some(key) = map.next_key::<$crate::lenient::Key<'de>>()? {
                    match key.0.as_ref() {
                        $( $key => <$reader as $crate::lenient::ReadInto<'de>>::read_into(
                            &mut map,
                            &mut self.$field,
                        )?, )*
                        _ => {
                            map.next_value::<$crate::lenient::Checked>()?;
                        }
                    }
                }
                Ok(())
            }
        }
    };
}

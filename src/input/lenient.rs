//! Typed fields that read like `serde_json::Value`'s accessors (issue 14, "parse once, borrow").
//!
//! Decoding a line into typed structs skips every field nobody reads and borrows strings from the
//! line, where a `Value` tree allocates a key, a value and a map slot for each. But the adapters'
//! meaning was written against `Value`: `v.get(k).and_then(Value::as_str)` is `None` for a number
//! as much as for a missing field, and a wrong type never makes a line unreadable. These
//! `deserialize_with` functions keep exactly that meaning — a field of another type reads as
//! absent (`as_str`, `as_bool`, `as_u64`), a free-form field is kept whole, and `present` tells a
//! field that is there (even `null`) from one that is not (`v.get(k).is_some()`).
//!
//! Use them with `#[serde(default, deserialize_with = "…")]`; they work alike from a line's text
//! and from a `&Value` (serde_json's `Value` is a deserializer that lends its strings).

use std::borrow::Cow;
use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::Value;

/// One JSON value, kept only when it is a string, a boolean or an unsigned integer (what the
/// accessors below pick from); anything else is skipped without being built.
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

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Scalar<'de>, D::Error> {
        d.deserialize_any(self)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Scalar<'de>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Scalar<'de>, A::Error> {
        while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
        Ok(Scalar::Other)
    }
}

/// `v.get(k).and_then(Value::as_str)`, borrowed from the line where it has no escapes.
pub(crate) fn str<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Cow<'de, str>>, D::Error> {
    Ok(match Scalar::deserialize(d)? {
        Scalar::Str(s) => Some(s),
        Scalar::Bool(_) | Scalar::U64(_) | Scalar::Other => None,
    })
}

/// `v.get(k).map(Value::as_str)`: `Some` when the field is there, whatever it holds.
pub(crate) fn present_str<'de, D: Deserializer<'de>>(
    d: D,
) -> Result<Option<Option<Cow<'de, str>>>, D::Error> {
    str(d).map(Some)
}

/// `v.get(k).and_then(Value::as_bool)`.
pub(crate) fn bool<'de, D: Deserializer<'de>>(d: D) -> Result<Option<bool>, D::Error> {
    Ok(match Scalar::deserialize(d)? {
        Scalar::Bool(b) => Some(b),
        Scalar::Str(_) | Scalar::U64(_) | Scalar::Other => None,
    })
}

/// `v.get(k).and_then(Value::as_u64)`.
pub(crate) fn u64<'de, D: Deserializer<'de>>(d: D) -> Result<Option<u64>, D::Error> {
    Ok(match Scalar::deserialize(d)? {
        Scalar::U64(n) => Some(n),
        Scalar::Str(_) | Scalar::Bool(_) | Scalar::Other => None,
    })
}

/// `v.get(k).cloned()`: a free-form field kept whole, `null` included (serde's own `Option`
/// would read `null` as absent).
pub(crate) fn present<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Value>, D::Error> {
    Value::deserialize(d).map(Some)
}

/// `v.get(k).and_then(Value::as_array).cloned()`: the items of an array field, else `None`.
pub(crate) fn array<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Value>>, D::Error> {
    Ok(match Value::deserialize(d)? {
        Value::Array(a) => Some(a),
        _ => None,
    })
}

/// A field read as `T` when it is an object, and as absent when it is anything else (what
/// `v.get(k)` followed by field lookups gives: nothing from a string or a number).
pub(crate) fn object<'de, D, T>(d: D) -> Result<Option<T>, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de>,
{
    d.deserialize_any(ObjectVisitor(std::marker::PhantomData))
}

/// The visitor behind [`object`]: a map goes to `T`'s own derive, anything else is skipped.
struct ObjectVisitor<T>(std::marker::PhantomData<T>);

impl<'de, T: Deserialize<'de>> Visitor<'de> for ObjectVisitor<T> {
    type Value = Option<T>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Option<T>, A::Error> {
        T::deserialize(de::value::MapAccessDeserializer::new(map)).map(Some)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<T>, A::Error> {
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        Ok(None)
    }

    fn visit_borrowed_str<E>(self, _: &'de str) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_str<E>(self, _: &str) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_bool<E>(self, _: bool) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_u64<E>(self, _: u64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_i64<E>(self, _: i64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_f64<E>(self, _: f64) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_unit<E>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_none<E>(self) -> Result<Option<T>, E> {
        Ok(None)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Option<T>, D::Error> {
        d.deserialize_any(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[derive(Deserialize, Default)]
    #[serde(default)]
    struct Probe<'a> {
        #[serde(deserialize_with = "str", borrow)]
        s: Option<Cow<'a, str>>,
        #[serde(deserialize_with = "present_str", borrow)]
        p: Option<Option<Cow<'a, str>>>,
        #[serde(deserialize_with = "bool")]
        b: Option<bool>,
        #[serde(deserialize_with = "u64")]
        n: Option<u64>,
        #[serde(deserialize_with = "present")]
        v: Option<Value>,
    }

    /// Each field reads as the `Value` accessor it stands for, from text and from a `Value`.
    #[test]
    fn fields_read_as_the_value_accessors_do() {
        let cases = [
            json!({"s": "x", "p": 1, "b": true, "n": 7, "v": null}),
            json!({"s": 1, "b": "true", "n": -1, "v": {"a": [1]}}),
            json!({"s": {"a": 1}, "p": null, "b": null, "n": 1.5}),
            json!({"s": ["x"], "p": "q\"r", "n": "7"}),
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

    /// A string without escapes is borrowed from the line, not copied.
    #[test]
    fn plain_strings_are_borrowed() {
        let p: Probe = serde_json::from_str(r#"{"s": "plain"}"#).unwrap();
        assert!(matches!(p.s, Some(Cow::Borrowed("plain"))));
    }
}

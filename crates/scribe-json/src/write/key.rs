//! A map key, written as serde_json writes one: a string, or a number or a bool quoted.

use serde::Serialize;
use serde::ser::{self, Error as _};

use super::{Error, write_str};

/// A map key: a string, or what serde_json turns into one (a number or a bool, quoted; a unit
/// variant's name). Anything else is serde_json's error.
///
/// `verbatim` is the text of a raw-JSON struct ([`RAW_JSON_TOKEN`]): a string copied as it is.
pub(super) struct MapKey<'a> {
    pub(super) out: &'a mut Vec<u8>,
    pub(super) verbatim: bool,
}

impl MapKey<'_> {
    /// A key written as its text, quoted.
    fn quoted(self, text: &str) -> Result<(), Error> {
        self.out.push(b'"');
        self.out.extend_from_slice(text.as_bytes());
        self.out.push(b'"');
        Ok(())
    }

    /// A float key: serde_json refuses one that is not finite.
    fn float(
        self,
        finite: bool,
        text: impl FnOnce(&mut zmij::Buffer) -> &str,
    ) -> Result<(), Error> {
        if !finite {
            return Err(Error::custom(
                "float key must be finite (got NaN or +/-inf)",
            ));
        }
        let mut buf = zmij::Buffer::new();
        self.quoted(text(&mut buf))
    }
}

/// serde_json's message for a key of a kind JSON cannot hold.
fn key_must_be_a_string() -> Error {
    Error::custom("key must be a string")
}

impl ser::Serializer for MapKey<'_> {
    type Ok = ();
    type Error = Error;
    type SerializeSeq = ser::Impossible<(), Error>;
    type SerializeTuple = ser::Impossible<(), Error>;
    type SerializeTupleStruct = ser::Impossible<(), Error>;
    type SerializeTupleVariant = ser::Impossible<(), Error>;
    type SerializeMap = ser::Impossible<(), Error>;
    type SerializeStruct = ser::Impossible<(), Error>;
    type SerializeStructVariant = ser::Impossible<(), Error>;

    fn serialize_str(self, v: &str) -> Result<(), Error> {
        if self.verbatim {
            self.out.extend_from_slice(v.as_bytes());
        } else {
            write_str(self.out, v);
        }
        Ok(())
    }
    fn serialize_char(self, v: char) -> Result<(), Error> {
        write_str(self.out, v.encode_utf8(&mut [0; 4]));
        Ok(())
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<(), Error> {
        write_str(self.out, variant);
        Ok(())
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<(), Error> {
        value.serialize(self)
    }
    fn serialize_bool(self, v: bool) -> Result<(), Error> {
        self.quoted(if v { "true" } else { "false" })
    }
    integers!(|key, v| key.quoted(itoa::Buffer::new().format(v)));
    fn serialize_f32(self, v: f32) -> Result<(), Error> {
        self.float(v.is_finite(), |b| b.format_finite(v))
    }
    fn serialize_f64(self, v: f64) -> Result<(), Error> {
        self.float(v.is_finite(), |b| b.format_finite(v))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_none(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_some<T: Serialize + ?Sized>(self, _value: &T) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit(self) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<(), Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, Error> {
        Err(key_must_be_a_string())
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, Error> {
        Err(key_must_be_a_string())
    }
}

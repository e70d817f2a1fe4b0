//! Deserialization: the seeds and helpers the generated input types decode with.

use std::fmt;
use std::marker::PhantomData;

use serde::de::{self, DeserializeOwned, DeserializeSeed, Deserializer, MapAccess, Visitor};

use super::checks::{ParamDeserialize, ParamJsonSchema};

/// Finds a map key among the known parameter names: its index, or an `unknown parameter`
/// error naming the key and the known ones (the generated input types refuse unknown
/// members themselves, as `#[serde(deny_unknown_fields)]` does).
///
/// The names, and the generated function that finds one (a `match` on the literal names,
/// which the compiler turns into a switch on the length and one comparison).
#[derive(Clone, Copy)]
pub struct KeySeed(pub &'static [&'static str], pub fn(&str) -> Option<usize>);

impl<'de> DeserializeSeed<'de> for KeySeed {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl Visitor<'_> for KeySeed {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a parameter name")
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
        match (self.1)(v) {
            Some(i) => Ok(i),
            None => Err(unknown_param(v, self.0)),
        }
    }
    fn visit_bytes<E: de::Error>(self, v: &[u8]) -> Result<Self::Value, E> {
        match std::str::from_utf8(v).ok().and_then(self.1) {
            Some(i) => Ok(i),
            None => Err(unknown_param(&String::from_utf8_lossy(v), self.0)),
        }
    }
}

/// `unknown parameter `x`; known parameters: a, b`, as the validator words it.
#[cold]
fn unknown_param<E: de::Error>(name: &str, known: &[&str]) -> E {
    E::custom(unknown_param_message(name, known))
}

fn unknown_param_message(name: &str, known: &[&str]) -> String {
    if known.is_empty() {
        format!("unknown parameter `{name}`; this tool takes no parameters")
    } else {
        format!(
            "unknown parameter `{name}`; known parameters: {}",
            known.join(", ")
        )
    }
}

/// Reads one of a closed set of strings: the index of the value, or an
/// `unknown variant` error listing the allowed ones.
#[derive(Clone, Copy)]
pub struct NameSeed(pub &'static [&'static str]);

impl<'de> DeserializeSeed<'de> for NameSeed {
    type Value = usize;
    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<usize, D::Error> {
        d.deserialize_str(self)
    }
}

impl Visitor<'_> for NameSeed {
    type Value = usize;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "one of: {}", self.0.join(", "))
    }
    fn visit_str<E: de::Error>(self, v: &str) -> Result<usize, E> {
        self.0
            .iter()
            .position(|k| *k == v)
            .ok_or_else(|| E::unknown_variant(v, self.0))
    }
}

/// A deserializer for a parameter that is absent: `None` for an `Option`, else a
/// `missing field` error.
struct Missing<E> {
    name: &'static str,
    marker: PhantomData<E>,
}

impl<'de, E: de::Error> Deserializer<'de> for Missing<E> {
    type Error = E;
    fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, E> {
        Err(E::missing_field(self.name))
    }
    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, E> {
        visitor.visit_none()
    }
    serde::forward_to_deserialize_any! {
        bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
        byte_buf unit unit_struct newtype_struct seq tuple tuple_struct map struct enum
        identifier ignored_any
    }
}

/// Checks a parameter type. Generated code calls it first in every function that uses
/// the type, at the type's span, so a type that does not fit is reported once.
pub fn check_param<T: ParamDeserialize + ParamJsonSchema>() {}

/// The value of an absent parameter: `None` for an `Option`, else `missing field`.
pub fn missing<T: ParamDeserialize, E: de::Error>(name: &'static str) -> Result<T, E> {
    T::deserialize(Missing {
        name,
        marker: PhantomData,
    })
}

/// Reads a parameter's value; `null` reads as absent, whatever the type (then
/// [`missing`] decides: `None` for an `Option`, else a missing parameter).
pub fn read_param<'de, T: ParamDeserialize, A: MapAccess<'de>>(
    map: &mut A,
) -> Result<Option<T>, A::Error> {
    map.next_value::<Option<T>>()
}

/// Whether a parameter of type `T` may be left out (an `Option`).
pub fn is_optional<T: DeserializeOwned>() -> bool {
    T::deserialize(Missing::<de::value::Error> {
        name: "",
        marker: PhantomData,
    })
    .is_ok()
}

/// The error for a parameter given to an action that does not take it.
pub fn not_applicable<E: de::Error>(param: &str, action: &str) -> E {
    E::custom(format_args!(
        "`{param}` does not apply to action `{action}`"
    ))
}

/// The error for a value outside the declared set (not reachable through the seeds).
pub fn out_of_range<E: de::Error>(what: &str) -> E {
    E::custom(format_args!("unexpected {what}"))
}

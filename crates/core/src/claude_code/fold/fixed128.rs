//! 128-bit values in the persistent scan cache (UUIDs, response keys,
//! nanosecond times), written as their 16 bytes. As postcard writes a
//! plain `u128` or `i128`, a varint, a random value takes 19 bytes and is
//! decoded a byte at a time with 128-bit shifts: that was about a third of
//! the instructions a fresh process spent loading a warm cache.

use serde::de::{self, Deserializer, Visitor};
use serde::{Deserialize, Serialize, Serializer};
use std::collections::HashSet;
use std::fmt;
use std::hash::BuildHasher;

/// A `u128` written as its 16 little-endian bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[repr(transparent)]
pub struct Fixed128(pub u128);

impl Serialize for Fixed128 {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_bytes(&self.0.to_le_bytes())
    }
}

impl<'de> Deserialize<'de> for Fixed128 {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct SixteenBytes;
        impl Visitor<'_> for SixteenBytes {
            type Value = Fixed128;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("16 bytes")
            }
            fn visit_bytes<E: de::Error>(self, bytes: &[u8]) -> Result<Fixed128, E> {
                let bytes = <[u8; 16]>::try_from(bytes)
                    .map_err(|_| E::invalid_length(bytes.len(), &self))?;
                Ok(Fixed128(u128::from_le_bytes(bytes)))
            }
        }
        d.deserialize_bytes(SixteenBytes)
    }
}

/// `#[serde(with = "...")]` for an `i128` field.
pub mod signed {
    use super::*;

    pub fn serialize<S: Serializer>(value: &i128, s: S) -> Result<S::Ok, S::Error> {
        Fixed128(*value as u128).serialize(s)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i128, D::Error> {
        Fixed128::deserialize(d).map(|f| f.0 as i128)
    }
}

/// `#[serde(with = "...")]` for a set of `u128`.
pub mod set {
    use super::*;

    pub fn serialize<S: Serializer, H>(set: &HashSet<u128, H>, s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(set.iter().map(|&v| Fixed128(v)))
    }

    pub fn deserialize<'de, D, H>(d: D) -> Result<HashSet<u128, H>, D::Error>
    where
        D: Deserializer<'de>,
        H: BuildHasher + Default,
    {
        let values = Vec::<Fixed128>::deserialize(d)?;
        Ok(values.into_iter().map(|f| f.0).collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, PartialEq, Serialize, Deserialize)]
    struct Sample {
        key: Fixed128,
        #[serde(with = "signed")]
        time: i128,
        #[serde(with = "set")]
        keys: HashSet<u128>,
    }

    #[test]
    fn values_round_trip_as_sixteen_bytes_each() {
        for (key, time) in [
            (0, 0),
            (u128::MAX, i128::MIN),
            (1 << 127 | 5, -1),
            (7, i128::MAX),
        ] {
            let sample = Sample {
                key: Fixed128(key),
                time,
                keys: [key, 3, u128::MAX].into_iter().collect(),
            };
            let bytes = postcard::to_allocvec(&sample).unwrap();
            // Each value: a length byte and 16 bytes; the set's count first.
            assert_eq!(bytes.len(), 17 + 17 + 1 + sample.keys.len() * 17);
            assert_eq!(postcard::from_bytes::<Sample>(&bytes).unwrap(), sample);
        }
        // Anything but 16 bytes is refused, not padded or cut.
        for len in [0, 15, 17] {
            let mut bytes = vec![len as u8];
            bytes.extend(std::iter::repeat_n(1, len));
            assert!(
                postcard::from_bytes::<Fixed128>(&bytes).is_err(),
                "{len} bytes"
            );
        }
    }
}

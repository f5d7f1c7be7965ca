//! Decoded field values.

use std::fmt;

/// One decoded entity field value.
///
/// Kept small (24 bytes; an entity holds thousands of them): strings, byte
/// blobs and the rare six-float `CTransform` are boxed. Boxing the
/// four-float variant as well (16 bytes) was measured slower on the corpus
/// demos (most on the AnimGraph2 one).
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum Value {
    /// A boolean.
    Bool(bool),
    /// A signed 32-bit integer (zigzag varint).
    I32(i32),
    /// An unsigned 32-bit integer (varint, handles, enums).
    U32(u32),
    /// A signed 64-bit integer.
    I64(i64),
    /// An unsigned 64-bit integer (varint or fixed 64-bit, e.g. steam ids).
    U64(u64),
    /// A float.
    F32(f32),
    /// Two floats.
    Vec2([f32; 2]),
    /// Three floats (vectors, angles).
    Vec3([f32; 3]),
    /// Four floats (quaternions, 4D vectors).
    Vec4([f32; 4]),
    /// Six floats (`CTransform`), boxed.
    Vec6(Box<[f32; 6]>),
    /// A string.
    String(Box<str>),
    /// A byte blob (`CUtlBinaryBlock`).
    Bytes(Box<[u8]>),
}

const _: () = assert!(std::mem::size_of::<Value>() == 24);

impl Value {
    /// The value as an `f64`, for numeric values.
    pub fn as_f64(&self) -> Option<f64> {
        Some(match *self {
            Value::Bool(b) => f64::from(u8::from(b)),
            Value::I32(v) => f64::from(v),
            Value::U32(v) => f64::from(v),
            Value::I64(v) => v as f64,
            Value::U64(v) => v as f64,
            Value::F32(v) => f64::from(v),
            _ => return None,
        })
    }

    /// The value as an `i64`, for integer and boolean values.
    pub fn as_i64(&self) -> Option<i64> {
        Some(match *self {
            Value::Bool(b) => i64::from(b),
            Value::I32(v) => i64::from(v),
            Value::U32(v) => i64::from(v),
            Value::I64(v) => v,
            Value::U64(v) => i64::try_from(v).ok()?,
            _ => return None,
        })
    }

    /// The value as a `u64`, for non-negative integer values.
    pub fn as_u64(&self) -> Option<u64> {
        Some(match *self {
            Value::Bool(b) => u64::from(b),
            Value::I32(v) => u64::try_from(v).ok()?,
            Value::U32(v) => u64::from(v),
            Value::I64(v) => u64::try_from(v).ok()?,
            Value::U64(v) => v,
            _ => return None,
        })
    }

    /// The value as an `f32` (floats only).
    pub fn as_f32(&self) -> Option<f32> {
        match *self {
            Value::F32(v) => Some(v),
            _ => None,
        }
    }

    /// The floats of a vector value.
    pub fn as_floats(&self) -> Option<&[f32]> {
        match self {
            Value::Vec2(v) => Some(v),
            Value::Vec3(v) => Some(v),
            Value::Vec4(v) => Some(v),
            Value::Vec6(v) => Some(&v[..]),
            Value::F32(v) => Some(std::slice::from_ref(v)),
            _ => None,
        }
    }

    /// The string, for string values.
    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s),
            _ => None,
        }
    }

    /// The boolean, for booleans (and integers, as non-zero).
    pub fn as_bool(&self) -> Option<bool> {
        match *self {
            Value::Bool(b) => Some(b),
            _ => self.as_i64().map(|v| v != 0),
        }
    }
}

impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fn floats(f: &mut fmt::Formatter<'_>, v: &[f32]) -> fmt::Result {
            f.write_str("[")?;
            for (i, x) in v.iter().enumerate() {
                if i > 0 {
                    f.write_str(", ")?;
                }
                write!(f, "{x}")?;
            }
            f.write_str("]")
        }
        match self {
            Value::Bool(v) => write!(f, "{v}"),
            Value::I32(v) => write!(f, "{v}"),
            Value::U32(v) => write!(f, "{v}"),
            Value::I64(v) => write!(f, "{v}"),
            Value::U64(v) => write!(f, "{v}"),
            Value::F32(v) => write!(f, "{v}"),
            Value::Vec2(v) => floats(f, v),
            Value::Vec3(v) => floats(f, v),
            Value::Vec4(v) => floats(f, v),
            Value::Vec6(v) => floats(f, &v[..]),
            Value::String(s) => f.write_str(s),
            Value::Bytes(b) => {
                for byte in b.iter() {
                    write!(f, "{byte:02x}")?;
                }
                Ok(())
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn value_is_compact() {
        assert!(std::mem::size_of::<Value>() <= 32);
    }
}

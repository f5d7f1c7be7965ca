//! Decoding a buffer from a field list such as `"byte,bit,bit,short,cf16"`.
//!
//! This is how a packet is taken apart by hand: guess the fields, decode,
//! look at the values, adjust. The list is comma-separated; each item is a
//! field name, optionally followed by `*N` to repeat it N times:
//!
//! | name (aliases) | reads |
//! |---|---|
//! | `byte` (`u8`) | one byte |
//! | `i8` | one signed byte |
//! | `bit` (`bool`) | one packed bit (see [`crate::bits`]) |
//! | `short` (`u16`) | `u16` little-endian |
//! | `int` (`i32`, `int32`) | `i32` little-endian |
//! | `uint` (`u32`) | `u32` little-endian |
//! | `float` (`f32`) | `f32` little-endian |
//! | `cf16` | CompressedFloat16 |
//! | `cvec3` (`cv3`) | CompressedVector3, 3 bytes |
//! | `cvec4` (`cv4`) | CompressedVector4 with CF16 magnitude, 5 bytes |
//! | `cvec4f` (`cv4f`) | CompressedVector4 with `f32` magnitude, 7 bytes |
//! | `bytes:N` | N raw bytes |
//! | `str16` (`string`) | `u16` length + that many bytes |
//!
//! A list expands to at most [`MAX_FIELDS`] fields.

use std::fmt;

use crate::cf16::Cf16;
use crate::reader::Reader;
use crate::stream_error::StreamError;
use crate::vector::{CompressedVector3, CompressedVector4, Magnitude};

/// The most fields one list may expand to (repetitions included), so that a
/// typo like `bit*99999999999` fails instead of allocating gigabytes.
pub const MAX_FIELDS: usize = 1 << 16;

/// One field type of a field list.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum FieldKind {
    /// `byte`
    Byte,
    /// `i8`
    I8,
    /// `bit`
    Bit,
    /// `short`
    Short,
    /// `int`
    Int32,
    /// `uint`
    UInt32,
    /// `float`
    Float,
    /// `cf16`
    Cf16,
    /// `cvec3`
    CVec3,
    /// `cvec4`
    CVec4Cf16,
    /// `cvec4f`
    CVec4F32,
    /// `bytes:N`
    Bytes(usize),
    /// `str16`
    String16,
}

impl fmt::Display for FieldKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldKind::Byte => f.write_str("byte"),
            FieldKind::I8 => f.write_str("i8"),
            FieldKind::Bit => f.write_str("bit"),
            FieldKind::Short => f.write_str("short"),
            FieldKind::Int32 => f.write_str("int"),
            FieldKind::UInt32 => f.write_str("uint"),
            FieldKind::Float => f.write_str("float"),
            FieldKind::Cf16 => f.write_str("cf16"),
            FieldKind::CVec3 => f.write_str("cvec3"),
            FieldKind::CVec4Cf16 => f.write_str("cvec4"),
            FieldKind::CVec4F32 => f.write_str("cvec4f"),
            FieldKind::Bytes(n) => write!(f, "bytes:{n}"),
            FieldKind::String16 => f.write_str("str16"),
        }
    }
}

/// A field list that cannot be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum FieldListError {
    /// An item names no known field.
    #[error("unknown field `{item}` (item {index}); known: byte, i8, bit, short, int, uint, float, cf16, cvec3, cvec4, cvec4f, bytes:N, str16")]
    UnknownField {
        /// 0-based item number in the list.
        index: usize,
        /// The item as written.
        item: String,
    },
    /// A count (`bytes:N` or `*N`) is not a number.
    #[error("bad count in `{item}` (item {index}): expected a non-negative integer")]
    BadCount {
        /// 0-based item number in the list.
        index: usize,
        /// The item as written.
        item: String,
    },
    /// The list expands to more than [`MAX_FIELDS`] fields.
    #[error("the field list expands to more than {MAX_FIELDS} fields")]
    TooManyFields,
    /// The list is empty.
    #[error("the field list is empty")]
    Empty,
}

/// Parses a field list (see the module docs).
///
/// # Errors
///
/// An unknown name, a bad count, an empty list, or more than [`MAX_FIELDS`] fields.
pub fn parse_field_list(spec: &str) -> Result<Vec<FieldKind>, FieldListError> {
    let mut out = Vec::new();
    for (index, raw) in spec.split(',').enumerate() {
        let item = raw.trim();
        if item.is_empty() {
            continue;
        }
        let bad_count = || FieldListError::BadCount {
            index,
            item: item.to_owned(),
        };
        let (name, repeat) = match item.split_once('*') {
            Some((name, n)) => (
                name.trim(),
                n.trim().parse::<usize>().map_err(|_| bad_count())?,
            ),
            None => (item, 1),
        };
        let kind = match name.to_ascii_lowercase().as_str() {
            "byte" | "u8" => FieldKind::Byte,
            "i8" => FieldKind::I8,
            "bit" | "bool" => FieldKind::Bit,
            "short" | "u16" => FieldKind::Short,
            "int" | "i32" | "int32" => FieldKind::Int32,
            "uint" | "u32" => FieldKind::UInt32,
            "float" | "f32" => FieldKind::Float,
            "cf16" => FieldKind::Cf16,
            "cvec3" | "cv3" => FieldKind::CVec3,
            "cvec4" | "cv4" => FieldKind::CVec4Cf16,
            "cvec4f" | "cv4f" => FieldKind::CVec4F32,
            "str16" | "string" => FieldKind::String16,
            other => match other.strip_prefix("bytes:") {
                Some(n) => FieldKind::Bytes(n.trim().parse().map_err(|_| bad_count())?),
                None => {
                    return Err(FieldListError::UnknownField {
                        index,
                        item: item.to_owned(),
                    })
                }
            },
        };
        if repeat > MAX_FIELDS - out.len() {
            return Err(FieldListError::TooManyFields);
        }
        out.extend(std::iter::repeat_n(kind, repeat));
    }
    if out.is_empty() {
        return Err(FieldListError::Empty);
    }
    Ok(out)
}

/// A decoded value.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub enum FieldValue<'a> {
    /// `byte`
    Byte(u8),
    /// `i8`
    I8(i8),
    /// `bit`, with its place in its group byte.
    Bit {
        /// The bool.
        value: bool,
        /// Its index in the group byte (0 to 4).
        index: u8,
    },
    /// `short`
    Short(u16),
    /// `int`
    Int32(i32),
    /// `uint`
    UInt32(u32),
    /// `float`
    Float(f32),
    /// `cf16`
    Cf16(Cf16),
    /// `cvec3`
    CVec3(CompressedVector3),
    /// `cvec4` and `cvec4f`
    CVec4(CompressedVector4),
    /// `bytes:N`
    Bytes(&'a [u8]),
    /// `str16` (the bytes after the length)
    String16(&'a [u8]),
}

fn fmt_vec(f: &mut fmt::Formatter<'_>, v: [f32; 3]) -> fmt::Result {
    write!(f, "({}, {}, {})", v[0], v[1], v[2])
}

impl fmt::Display for FieldValue<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldValue::Byte(v) => write!(f, "{v} ({v:#04x})"),
            FieldValue::I8(v) => write!(f, "{v}"),
            FieldValue::Bit { value, index } => write!(f, "{value} (bit {index})"),
            FieldValue::Short(v) => write!(f, "{v} ({v:#06x})"),
            FieldValue::Int32(v) => write!(f, "{v} ({v:#010x})"),
            FieldValue::UInt32(v) => write!(f, "{v} ({v:#010x})"),
            FieldValue::Float(v) => write!(f, "{v} ({:#010x})", v.to_bits()),
            FieldValue::Cf16(c) => write!(
                f,
                "{} ({:#06x}: sign {}, scale {}, mantissa {})",
                c.decode(),
                c.to_bits(),
                u8::from(c.is_negative()),
                c.scale(),
                c.mantissa()
            ),
            FieldValue::CVec3(v) => {
                fmt_vec(f, v.decode())?;
                write!(f, " (dir {:?})", v.dir)
            }
            FieldValue::CVec4(v) => {
                fmt_vec(f, v.decode())?;
                match v.magnitude {
                    Magnitude::Cf16(c) => {
                        write!(
                            f,
                            " (dir {:?}, magnitude {} cf16 {:#06x})",
                            v.dir,
                            c.decode(),
                            c.to_bits()
                        )
                    }
                    Magnitude::F32(m) => write!(f, " (dir {:?}, magnitude {m})", v.dir),
                }
            }
            FieldValue::Bytes(b) => write_hex(f, b),
            FieldValue::String16(b) => write!(f, "\"{}\" ({} bytes)", b.escape_ascii(), b.len()),
        }
    }
}

fn write_hex(f: &mut fmt::Formatter<'_>, bytes: &[u8]) -> fmt::Result {
    for (i, b) in bytes.iter().enumerate() {
        if i > 0 {
            f.write_str(" ")?;
        }
        write!(f, "{b:02x}")?;
    }
    Ok(())
}

/// One decoded field.
#[derive(Debug, Clone, PartialEq)]
pub struct DecodedField<'a> {
    /// 0-based number in the expanded list.
    pub index: usize,
    /// Its type.
    pub kind: FieldKind,
    /// Byte offset where it starts; for a bit, the offset of its group byte.
    pub offset: usize,
    /// The value.
    pub value: FieldValue<'a>,
}

/// A field that could not be read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("field {index} ({kind}) failed: {error}")]
pub struct FieldListItemError {
    /// 0-based number in the expanded list.
    pub index: usize,
    /// Its type.
    pub kind: FieldKind,
    /// Why.
    #[source]
    pub error: StreamError,
}

/// Decodes `data` field by field, stopping at the first failure.
///
/// Returns the fields decoded, the error that stopped it if any, and the
/// reader's position at the end.
#[must_use]
pub fn decode_fields<'a>(
    data: &'a [u8],
    kinds: &[FieldKind],
) -> (Vec<DecodedField<'a>>, Option<FieldListItemError>, usize) {
    let mut reader = Reader::new(data);
    let mut out = Vec::with_capacity(kinds.len());
    for (index, &kind) in kinds.iter().enumerate() {
        match read_one(&mut reader, kind) {
            Ok((offset, value)) => out.push(DecodedField {
                index,
                kind,
                offset,
                value,
            }),
            Err(error) => {
                return (
                    out,
                    Some(FieldListItemError { index, kind, error }),
                    reader.position(),
                );
            }
        }
    }
    let end = reader.position();
    (out, None, end)
}

/// Reads one field, returning its start offset and value.
fn read_one<'a>(
    r: &mut Reader<'a>,
    kind: FieldKind,
) -> Result<(usize, FieldValue<'a>), StreamError> {
    let offset = r.position();
    let value = match kind {
        FieldKind::Byte => FieldValue::Byte(r.read_u8()?),
        FieldKind::I8 => FieldValue::I8(r.read_i8()?),
        FieldKind::Bit => {
            let (value, group, index) = r.read_bit_located()?;
            return Ok((group, FieldValue::Bit { value, index }));
        }
        FieldKind::Short => FieldValue::Short(r.read_u16()?),
        FieldKind::Int32 => FieldValue::Int32(r.read_i32()?),
        FieldKind::UInt32 => FieldValue::UInt32(r.read_u32()?),
        FieldKind::Float => FieldValue::Float(r.read_f32()?),
        FieldKind::Cf16 => FieldValue::Cf16(r.read_cf16()?),
        FieldKind::CVec3 => FieldValue::CVec3(r.read_cvec3()?),
        FieldKind::CVec4Cf16 => FieldValue::CVec4(r.read_cvec4_cf16()?),
        FieldKind::CVec4F32 => FieldValue::CVec4(r.read_cvec4_f32()?),
        FieldKind::Bytes(n) => FieldValue::Bytes(r.read_bytes(n)?),
        FieldKind::String16 => FieldValue::String16(r.read_string16()?),
    };
    Ok((offset, value))
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn parses_names_aliases_and_repeats() {
        let kinds = parse_field_list(
            "byte, bit*2 ,short,FLOAT,cf16,cv3,cvec4,cvec4f,bytes:3,str16,i32,u32,i8",
        )
        .unwrap();
        assert_eq!(
            kinds,
            [
                FieldKind::Byte,
                FieldKind::Bit,
                FieldKind::Bit,
                FieldKind::Short,
                FieldKind::Float,
                FieldKind::Cf16,
                FieldKind::CVec3,
                FieldKind::CVec4Cf16,
                FieldKind::CVec4F32,
                FieldKind::Bytes(3),
                FieldKind::String16,
                FieldKind::Int32,
                FieldKind::UInt32,
                FieldKind::I8,
            ]
        );
        let names: Vec<String> = kinds.iter().map(ToString::to_string).collect();
        assert_eq!(parse_field_list(&names.join(",")).unwrap(), kinds);
    }

    #[test]
    fn rejects_bad_lists() {
        assert_eq!(
            parse_field_list("byte,word"),
            Err(FieldListError::UnknownField {
                index: 1,
                item: "word".into()
            })
        );
        assert!(matches!(
            parse_field_list("bytes:x"),
            Err(FieldListError::BadCount { index: 0, .. })
        ));
        assert_eq!(
            parse_field_list("bit*99999999999"),
            Err(FieldListError::TooManyFields)
        );
        assert_eq!(parse_field_list(" , "), Err(FieldListError::Empty));
    }

    #[test]
    fn decodes_the_stock_settings_message() {
        let mut data = vec![0x00, 0x00, 0x00, 0x05, 0x42, 0x61, 0x00, 0x25, 0x00];
        data.extend_from_slice(b"Multiplayer.Episode.Mission1.Mission1");
        let kinds = parse_field_list("byte,float,bit,bit,byte,str16,bit").unwrap();
        let (fields, error, end) = decode_fields(&data, &kinds);
        assert_eq!(error, None);
        assert_eq!(end, data.len());
        let offsets: Vec<usize> = fields.iter().map(|f| f.offset).collect();
        assert_eq!(offsets, [0, 1, 5, 5, 6, 7, 5]);
        assert_eq!(fields[1].value, FieldValue::Float(33.25));
        assert_eq!(
            fields[6].value,
            FieldValue::Bit {
                value: false,
                index: 2
            }
        );
        assert_eq!(
            fields[5].value.to_string(),
            "\"Multiplayer.Episode.Mission1.Mission1\" (37 bytes)"
        );
    }

    #[test]
    fn failure_names_field_and_offset() {
        let kinds = parse_field_list("byte,short,short").unwrap();
        let (fields, error, end) = decode_fields(&[1, 2, 3, 4], &kinds);
        assert_eq!(fields.len(), 2);
        assert_eq!(end, 3);
        let error = error.unwrap();
        assert_eq!(error.index, 2);
        assert_eq!(
            error.to_string(),
            "field 2 (short) failed: the data ends at byte 3 while reading a short: 2 bytes needed, 1 available"
        );
    }
}

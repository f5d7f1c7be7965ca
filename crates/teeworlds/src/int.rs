//! The Teeworlds variable-length integer (`CVariableInt`) and the message
//! packer/unpacker built on it.
//!
//! # Wire format (teeworlds 0.7.5 `src/engine/shared/compression.cpp`)
//!
//! A signed 32-bit value is stored in 1 to 5 bytes. The first byte holds an
//! extension bit (`0x80`), a sign bit (`0x40`) and the low 6 bits of the
//! magnitude; every following byte holds an extension bit and 7 more bits.
//! Negative values are stored as their one's complement (`!v`) with the sign
//! bit set, so `-1` is `0x40` and `-64` is `0x7f`. The reference decoder reads
//! at most five bytes: the extension bit of the fifth byte is not looked at.
//!
//! # Choices for non-canonical input
//!
//! The reference decoder accepts anything; this one is stricter where the
//! input can only come from a broken or hostile peer:
//!
//! * **Overlong** encodings (a continuation byte that adds only zero bits,
//!   e.g. `80 00` for 0) decode to the same value as the reference;
//!   [`unpack_int`] says so and [`Unpacker`] turns it into an
//!   [`UnpackWarning::OverlongInt`] warning. The official encoder never
//!   produces them.
//! * **Out of range**: a fifth byte with bits above the 32-bit range set
//!   (anything but its low 4 bits, i.e. `> 0x0f`) or with its extension bit set
//!   is an error ([`IntError::OutOfRange`]). The reference would silently drop
//!   those bits (or, for the extension bit, resynchronise on the next byte).
//! * A value cut off by the end of the buffer is an error
//!   ([`IntError::Truncated`]); the reference reads past the end.

use std::fmt;

use serde::Serialize;

/// Most bytes one packed int takes.
pub const MAX_INT_BYTES: usize = 5;

/// Error decoding a packed int.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum IntError {
    /// The buffer ended inside the int.
    #[error("the packed int at byte offset {offset} is cut off by the end of the data")]
    Truncated {
        /// Byte offset where the int starts.
        offset: usize,
    },
    /// More ints than the destination buffer holds.
    #[error("more than {max} packed ints; the excess starts at byte offset {offset}")]
    TooMany {
        /// Byte offset of the first excess int.
        offset: usize,
        /// The limit.
        max: usize,
    },
    /// The fifth byte carries bits outside the 32-bit range or an extension bit.
    #[error(
        "the packed int at byte offset {offset} does not fit in 32 bits (fifth byte {byte:#04x})"
    )]
    OutOfRange {
        /// Byte offset where the int starts.
        offset: usize,
        /// The offending fifth byte.
        byte: u8,
    },
}

/// Packs `value` into `out` (1-5 bytes).
pub fn pack_int(value: i32, out: &mut Vec<u8>) {
    let mut first: u8 = 0;
    let mut v = value;
    if v < 0 {
        first |= 0x40;
        v = !v;
    }
    // v is now non-negative, so the shifts below are plain unsigned shifts.
    let mut u = v as u32;
    first |= (u & 0x3f) as u8;
    u >>= 6;
    if u == 0 {
        out.push(first);
        return;
    }
    out.push(first | 0x80);
    loop {
        let byte = (u & 0x7f) as u8;
        u >>= 7;
        if u == 0 {
            out.push(byte);
            return;
        }
        out.push(byte | 0x80);
    }
}

/// Number of bytes [`pack_int`] writes for `value`.
pub fn packed_len(value: i32) -> usize {
    let u = if value < 0 { !value } else { value } as u32;
    match u {
        0..=0x3f => 1,
        0x40..=0x1fff => 2,
        0x2000..=0xf_ffff => 3,
        0x10_0000..=0x7ff_ffff => 4,
        _ => 5,
    }
}

/// Unpacks one int from the start of `data`. Returns the value, the bytes
/// used and whether the encoding was overlong. `offset` is only used for error
/// context.
pub fn unpack_int(data: &[u8], offset: usize) -> Result<(i32, usize, bool), IntError> {
    let Some(&first) = data.first() else {
        return Err(IntError::Truncated { offset });
    };
    let negative = first & 0x40 != 0;
    let mut u = u32::from(first & 0x3f);
    let mut len = 1;
    let mut last = first;
    let mut shift = 6;
    while last & 0x80 != 0 {
        let Some(&b) = data.get(len) else {
            return Err(IntError::Truncated { offset });
        };
        if len == 4 && b > 0x0f {
            return Err(IntError::OutOfRange { offset, byte: b });
        }
        u |= u32::from(b & 0x7f) << shift;
        shift += 7;
        len += 1;
        last = b;
    }
    // Overlong: a continuation byte carried no bits (its payload is zero and
    // it is the last byte), so a shorter encoding existed.
    let overlong = len > 1 && last & 0x7f == 0;
    let v = u as i32;
    Ok((if negative { !v } else { v }, len, overlong))
}

/// How a string field is cleaned after unpacking (teeworlds 0.7.5
/// `CUnpacker::GetString` and `str_sanitize`/`str_sanitize_cc` in `system.c`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sanitize {
    /// `SANITIZE`: bytes below 32 other than `\t`, `\n`, `\r` become spaces.
    /// Used for `NetString` fields and the engine's system messages.
    Normal,
    /// `SANITIZE_CC | SKIP_START_WHITESPACES`: every byte below 32 becomes a
    /// space, then leading whitespace is skipped. Used for `NetStringStrict`
    /// fields (`disallow_cc` in the message list).
    Strict,
    /// `SANITIZE_CC` only: control characters become spaces, leading
    /// whitespace is kept (vote option lists).
    ControlOnly,
}

/// Error unpacking a message body.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum UnpackError {
    /// A packed int was malformed.
    #[error("field `{field}`: {source}")]
    Int {
        /// The field being read.
        field: &'static str,
        /// What went wrong.
        source: IntError,
    },
    /// A string had no terminating NUL before the end of the data.
    #[error("field `{field}`: the string starting at byte offset {offset} has no terminating NUL")]
    UnterminatedString {
        /// The field being read.
        field: &'static str,
        /// Byte offset of the string.
        offset: usize,
    },
    /// The data ended before a required field.
    #[error("field `{field}` is missing: the data ends at byte offset {offset}")]
    Missing {
        /// The field being read.
        field: &'static str,
        /// Where the data ended.
        offset: usize,
    },
    /// An int was outside the range the server accepts.
    #[error("field `{field}` is {value}, outside the accepted range {min}..={max}")]
    Range {
        /// The field being checked.
        field: &'static str,
        /// The value read.
        value: i32,
        /// Lowest accepted value.
        min: i32,
        /// Highest accepted value.
        max: i32,
    },
    /// A flags field had bits outside its mask.
    #[error("field `{field}` is {value:#x}, which has bits outside the mask {mask:#x}")]
    Flags {
        /// The field being checked.
        field: &'static str,
        /// The value read.
        value: i32,
        /// The accepted bits.
        mask: i32,
    },
    /// A raw byte field announced more bytes than are left.
    #[error(
        "field `{field}` announces {len} bytes but only {left} are left at byte offset {offset}"
    )]
    RawTooLong {
        /// The field being read.
        field: &'static str,
        /// Announced length.
        len: i64,
        /// Bytes left.
        left: usize,
        /// Where the raw bytes start.
        offset: usize,
    },
}

/// A non-fatal oddity seen while unpacking a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[non_exhaustive]
pub enum UnpackWarning {
    /// An int used more bytes than needed.
    OverlongInt {
        /// Field being read.
        field: &'static str,
        /// Byte offset of the int.
        offset: usize,
    },
    /// A string was changed by sanitizing or was not valid UTF-8.
    StringSanitized {
        /// Field being read.
        field: &'static str,
    },
    /// Bytes were left after the last known field (newer or modded peers
    /// append fields; the reference ignores them too).
    TrailingBytes {
        /// How many.
        len: usize,
    },
}

impl fmt::Display for UnpackWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            UnpackWarning::OverlongInt { field, offset } => write!(
                f,
                "the int `{field}` at byte offset {offset} uses more bytes than needed"
            ),
            UnpackWarning::StringSanitized { field } => write!(
                f,
                "the string `{field}` held control characters or invalid UTF-8 and was cleaned"
            ),
            UnpackWarning::TrailingBytes { len } => {
                write!(f, "{len} bytes follow the last known field")
            }
        }
    }
}

/// Reads ints, strings and raw bytes from a message body, the way
/// `CUnpacker` does, collecting warnings.
#[derive(Debug, Clone)]
pub struct Unpacker<'a> {
    data: &'a [u8],
    pos: usize,
    /// Oddities seen so far.
    pub warnings: Vec<UnpackWarning>,
}

impl<'a> Unpacker<'a> {
    /// Starts reading `data` from its first byte.
    pub fn new(data: &'a [u8]) -> Self {
        Unpacker {
            data,
            pos: 0,
            warnings: Vec::new(),
        }
    }

    /// Current byte offset.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Bytes not read yet.
    pub fn rest(&self) -> &'a [u8] {
        self.data.get(self.pos..).unwrap_or(&[])
    }

    /// True when every byte has been read.
    pub fn is_empty(&self) -> bool {
        self.pos >= self.data.len()
    }

    /// Reads one int.
    pub fn int(&mut self, field: &'static str) -> Result<i32, UnpackError> {
        if self.is_empty() {
            return Err(UnpackError::Missing {
                field,
                offset: self.pos,
            });
        }
        let (v, len, overlong) = unpack_int(self.rest(), self.pos)
            .map_err(|source| UnpackError::Int { field, source })?;
        if overlong {
            self.warnings.push(UnpackWarning::OverlongInt {
                field,
                offset: self.pos,
            });
        }
        self.pos += len;
        Ok(v)
    }

    /// Reads an int, or returns `default` if the data has ended
    /// (`CUnpacker::GetIntOrDefault`).
    pub fn int_or(&mut self, field: &'static str, default: i32) -> Result<i32, UnpackError> {
        if self.is_empty() {
            Ok(default)
        } else {
            self.int(field)
        }
    }

    /// Reads an int and checks it against `min..=max` (`NetIntRange`).
    pub fn int_range(
        &mut self,
        field: &'static str,
        min: i32,
        max: i32,
    ) -> Result<i32, UnpackError> {
        let value = self.int(field)?;
        check_range(field, value, min, max)?;
        Ok(value)
    }

    /// Reads a boolean (`NetBool`: an int in `0..=1`).
    pub fn boolean(&mut self, field: &'static str) -> Result<bool, UnpackError> {
        Ok(self.int_range(field, 0, 1)? == 1)
    }

    /// Reads a flags int and checks it against `mask` (`NetFlag`).
    pub fn flags(&mut self, field: &'static str, mask: i32) -> Result<i32, UnpackError> {
        let value = self.int(field)?;
        check_flags(field, value, mask)?;
        Ok(value)
    }

    /// Reads a NUL-terminated string and sanitizes it.
    pub fn string(&mut self, field: &'static str, mode: Sanitize) -> Result<String, UnpackError> {
        let start = self.pos;
        let rest = self.rest();
        if rest.is_empty() {
            return Err(UnpackError::Missing {
                field,
                offset: start,
            });
        }
        let Some(nul) = rest.iter().position(|&b| b == 0) else {
            return Err(UnpackError::UnterminatedString {
                field,
                offset: start,
            });
        };
        let raw = rest.get(..nul).unwrap_or(&[]);
        self.pos += nul + 1;
        let (s, changed) = sanitize(raw, mode);
        if changed {
            self.warnings.push(UnpackWarning::StringSanitized { field });
        }
        Ok(s)
    }

    /// Reads `len` raw bytes.
    pub fn raw(&mut self, field: &'static str, len: i64) -> Result<&'a [u8], UnpackError> {
        let rest = self.rest();
        let n = usize::try_from(len)
            .ok()
            .filter(|&n| n <= rest.len())
            .ok_or(UnpackError::RawTooLong {
                field,
                len,
                left: rest.len(),
                offset: self.pos,
            })?;
        self.pos += n;
        Ok(rest.get(..n).unwrap_or(&[]))
    }

    /// Reads everything that is left.
    pub fn rest_bytes(&mut self) -> &'a [u8] {
        let r = self.rest();
        self.pos = self.data.len();
        r
    }

    /// Records a warning if bytes are left over.
    pub fn finish(&mut self) {
        let left = self.rest().len();
        if left > 0 {
            self.warnings
                .push(UnpackWarning::TrailingBytes { len: left });
        }
    }
}

/// Checks `min <= value <= max` (`CNetObjHandler::CheckInt`).
pub fn check_range(field: &'static str, value: i32, min: i32, max: i32) -> Result<(), UnpackError> {
    if value < min || value > max {
        return Err(UnpackError::Range {
            field,
            value,
            min,
            max,
        });
    }
    Ok(())
}

/// Checks `value & mask == value` (`CNetObjHandler::CheckFlag`).
pub fn check_flags(field: &'static str, value: i32, mask: i32) -> Result<(), UnpackError> {
    if value & mask != value {
        return Err(UnpackError::Flags { field, value, mask });
    }
    Ok(())
}

/// Applies the server's string sanitizing to raw bytes and turns them into a
/// `String` (invalid UTF-8 is replaced). Returns whether anything changed.
pub fn sanitize(raw: &[u8], mode: Sanitize) -> (String, bool) {
    let mut changed = false;
    let cleaned: Vec<u8> = raw
        .iter()
        .map(|&b| {
            let keep = match mode {
                Sanitize::Normal => b >= 32 || b == b'\t' || b == b'\n' || b == b'\r',
                Sanitize::Strict | Sanitize::ControlOnly => b >= 32,
            };
            if keep {
                b
            } else {
                changed = true;
                b' '
            }
        })
        .collect();
    let mut s = match String::from_utf8(cleaned) {
        Ok(s) => s,
        Err(e) => {
            changed = true;
            String::from_utf8_lossy(e.as_bytes()).into_owned()
        }
    };
    if mode == Sanitize::Strict {
        // str_utf8_skip_whitespaces: skips leading spaces and the unicode
        // whitespace code points the engine knows; plain ASCII spaces (and the
        // control characters turned into spaces above) are what occurs.
        let trimmed = s.trim_start_matches(|c: char| c.is_whitespace());
        if trimmed.len() != s.len() {
            s = trimmed.to_owned();
        }
    }
    (s, changed)
}

/// Writes ints, strings and raw bytes the way `CPacker` does.
#[derive(Debug, Clone, Default)]
pub struct Packer {
    /// The bytes written so far.
    pub buf: Vec<u8>,
}

impl Packer {
    /// An empty packer.
    pub fn new() -> Self {
        Packer::default()
    }

    /// Appends a packed int.
    pub fn int(&mut self, v: i32) {
        pack_int(v, &mut self.buf);
    }

    /// Appends a boolean as 0 or 1.
    pub fn boolean(&mut self, v: bool) {
        self.int(i32::from(v));
    }

    /// Appends a string and its NUL. Interior NULs would end the string on
    /// the receiving side, so they are dropped.
    pub fn string(&mut self, s: &str) {
        self.buf.extend(s.bytes().filter(|&b| b != 0));
        self.buf.push(0);
    }

    /// Appends raw bytes.
    pub fn raw(&mut self, b: &[u8]) {
        self.buf.extend_from_slice(b);
    }
}

/// Unpacks a whole buffer of packed ints (`CVariableInt::Decompress`), as used
/// for snapshot deltas. At most `max_ints` values are produced.
pub fn decompress_ints(data: &[u8], max_ints: usize) -> Result<Vec<i32>, IntError> {
    let mut out = Vec::with_capacity(data.len().min(max_ints));
    let mut pos = 0;
    while pos < data.len() {
        if out.len() >= max_ints {
            return Err(IntError::TooMany {
                offset: pos,
                max: max_ints,
            });
        }
        let rest = data.get(pos..).unwrap_or(&[]);
        let (v, len, _) = unpack_int(rest, pos)?;
        out.push(v);
        pos += len;
    }
    Ok(out)
}

/// Packs a slice of ints back to back (`CVariableInt::Compress`).
pub fn compress_ints(ints: &[i32]) -> Vec<u8> {
    let mut out = Vec::with_capacity(ints.len() * 2);
    for &v in ints {
        pack_int(v, &mut out);
    }
    out
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn edge_values() {
        for (v, bytes) in [
            (0, &[0x00][..]),
            (-1, &[0x40]),
            (63, &[0x3f]),
            (-64, &[0x7f]),
            (64, &[0x80, 0x01]),
            (i32::MAX, &[0xbf, 0xff, 0xff, 0xff, 0x0f]),
            (i32::MIN, &[0xff, 0xff, 0xff, 0xff, 0x0f]),
        ] {
            let mut out = Vec::new();
            pack_int(v, &mut out);
            assert_eq!(out, bytes, "pack {v}");
            assert_eq!(packed_len(v), bytes.len());
            assert_eq!(unpack_int(bytes, 0).unwrap(), (v, bytes.len(), false));
        }
    }

    #[test]
    fn non_canonical() {
        assert_eq!(unpack_int(&[0x80, 0x00], 0).unwrap(), (0, 2, true));
        assert_eq!(
            unpack_int(&[0xff, 0xff, 0xff, 0xff, 0x1f], 3),
            Err(IntError::OutOfRange {
                offset: 3,
                byte: 0x1f
            })
        );
        assert_eq!(
            unpack_int(&[0x80, 0x80, 0x80, 0x80, 0x80, 0x00], 0),
            Err(IntError::OutOfRange {
                offset: 0,
                byte: 0x80
            })
        );
        assert_eq!(
            unpack_int(&[0x80], 7),
            Err(IntError::Truncated { offset: 7 })
        );
        assert_eq!(unpack_int(&[], 0), Err(IntError::Truncated { offset: 0 }));
    }

    #[test]
    fn strings_are_sanitized() {
        let mut u = Unpacker::new(b"  a\x01b\0x\ty\0");
        assert_eq!(u.string("s", Sanitize::Strict).unwrap(), "a b");
        assert_eq!(u.string("t", Sanitize::Normal).unwrap(), "x\ty");
        assert!(u.is_empty());
        let mut u = Unpacker::new(b"abc");
        assert!(matches!(
            u.string("s", Sanitize::Normal),
            Err(UnpackError::UnterminatedString { .. })
        ));
    }

    proptest! {
        #[test]
        fn roundtrip(v in any::<i32>()) {
            let mut out = Vec::new();
            pack_int(v, &mut out);
            prop_assert_eq!(out.len(), packed_len(v));
            prop_assert_eq!(unpack_int(&out, 0).unwrap(), (v, out.len(), false));
        }

        #[test]
        fn hostile_never_panics(data in proptest::collection::vec(any::<u8>(), 0..12)) {
            let _ = unpack_int(&data, 0);
            let _ = decompress_ints(&data, 4);
        }
    }
}

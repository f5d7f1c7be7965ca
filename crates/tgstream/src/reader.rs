//! Reading a TGBufferStream.
//!
//! A stream has no header, no field tags and no length prefix: the message's
//! code knows what comes next and reads it in order. On the wire:
//!
//! * bytes as they are; `u16`, `i32`, `u32` and `f32` little-endian;
//! * bools packed into group bytes of up to five (see [`crate::bits`]); the
//!   group stays open while other fields are read, so a bit may come from a
//!   byte that lies before the position;
//! * a string as a `u16` little-endian length and that many bytes, no
//!   terminator;
//! * CompressedFloat16 as a `u16` ([`crate::cf16`]), compressed vectors as 3,
//!   5 or 7 bytes ([`crate::vector`]).
//!
//! `docs/formats/tgbufferstream.md` describes the whole stream.

use crate::bits::{Group, COUNT_SHIFT, MAX_BITS_PER_GROUP};
use crate::cf16::Cf16;
use crate::stream_error::{Result, StreamError, What};
use crate::vector::{CompressedVector3, CompressedVector4, Magnitude};

/// Reads stream primitives from a byte slice.
///
/// Every read is bounds-checked. A failed read returns a [`StreamError`] with
/// the offset where it started and leaves the reader unchanged, so a caller
/// can report the error and still look at [`Reader::position`].
///
/// ```
/// use gamewire_tgstream::Reader;
///
/// // Stock Settings payload: opcode, game time, bit group, slot, map name.
/// let mut r = Reader::new(&[0x00, 0x00, 0x00, 0x05, 0x42, 0x61, 0x00, 0x02, 0x00, b'M', b'1']);
/// assert_eq!(r.read_u8()?, 0x00);
/// assert_eq!(r.read_f32()?, 33.25);
/// assert!(r.read_bit()?); // collision damage
/// assert!(!r.read_bit()?); // friendly fire
/// assert_eq!(r.read_u8()?, 0); // player slot
/// assert_eq!(r.read_string16()?, b"M1");
/// assert!(!r.read_bit()?); // checksum correction: third bit of the 0x61 group
/// assert_eq!(r.remaining(), 0);
/// # Ok::<(), gamewire_tgstream::StreamError>(())
/// ```
#[derive(Debug, Clone)]
pub struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    group: Option<Group>,
}

impl<'a> Reader<'a> {
    /// A reader at the start of `data`.
    #[must_use]
    pub fn new(data: &'a [u8]) -> Self {
        Reader {
            data,
            pos: 0,
            group: None,
        }
    }

    /// The byte offset of the next non-bit read.
    #[must_use]
    pub fn position(&self) -> usize {
        self.pos
    }

    /// Bytes left after the position.
    #[must_use]
    pub fn remaining(&self) -> usize {
        self.data.len().saturating_sub(self.pos)
    }

    /// The whole buffer.
    #[must_use]
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// The offset of the open bit group's byte and how many of its bits are
    /// still unread, if a group is open and not used up.
    #[must_use]
    pub fn open_bit_group(&self) -> Option<(usize, u8)> {
        self.group
            .filter(|g| g.taken < g.count)
            .map(|g| (g.offset, g.count - g.taken))
    }

    /// Takes `n` bytes at the position, or fails describing `what`.
    fn take(&mut self, n: usize, what: What) -> Result<&'a [u8]> {
        let available = self.remaining();
        if n > available {
            return Err(StreamError::UnexpectedEnd {
                offset: self.pos,
                what,
                needed: n,
                available,
            });
        }
        let start = self.pos;
        self.pos += n;
        Ok(self.data.get(start..self.pos).unwrap_or_default())
    }

    /// Takes exactly `N` bytes as an array.
    fn take_array<const N: usize>(&mut self, what: What) -> Result<[u8; N]> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    /// Fails unless `n` bytes are left, without consuming them.
    fn need(&self, n: usize, what: What) -> Result<()> {
        let available = self.remaining();
        if n > available {
            return Err(StreamError::UnexpectedEnd {
                offset: self.pos,
                what,
                needed: n,
                available,
            });
        }
        Ok(())
    }

    /// Reads a `u8` (the game's ReadByte).
    pub fn read_u8(&mut self) -> Result<u8> {
        Ok(self.take_array::<1>(What::Byte)?[0])
    }

    /// Reads an `i8`.
    pub fn read_i8(&mut self) -> Result<i8> {
        Ok(i8::from_le_bytes(self.take_array::<1>(What::Byte)?))
    }

    /// Reads a little-endian `u16` (ReadShort).
    pub fn read_u16(&mut self) -> Result<u16> {
        Ok(u16::from_le_bytes(self.take_array(What::Short)?))
    }

    /// Reads a little-endian `i32` (ReadInt32).
    pub fn read_i32(&mut self) -> Result<i32> {
        Ok(i32::from_le_bytes(self.take_array(What::Int32)?))
    }

    /// Reads a little-endian `u32`.
    pub fn read_u32(&mut self) -> Result<u32> {
        Ok(u32::from_le_bytes(self.take_array(What::UInt32)?))
    }

    /// Reads a little-endian IEEE 754 `f32` (ReadFloat), bit for bit.
    pub fn read_f32(&mut self) -> Result<f32> {
        Ok(f32::from_le_bytes(self.take_array(What::Float)?))
    }

    /// Reads `n` raw bytes (ReadBytes), borrowing them from the buffer.
    ///
    /// The length is checked against what is left before anything is
    /// consumed, so a hostile length cannot cause an allocation.
    pub fn read_bytes(&mut self, n: usize) -> Result<&'a [u8]> {
        self.take(n, What::Bytes)
    }

    /// Reads a `u16` length and that many bytes, as the game sends map names
    /// and checksum directories.
    pub fn read_string16(&mut self) -> Result<&'a [u8]> {
        let start = self.pos;
        let len_bytes: [u8; 2] = self.take_array(What::String16)?;
        let len = usize::from(u16::from_le_bytes(len_bytes));
        match self.take(len, What::String16) {
            Ok(bytes) => Ok(bytes),
            Err(_) => {
                self.pos = start;
                Err(StreamError::UnexpectedEnd {
                    offset: start,
                    what: What::String16,
                    needed: 2 + len,
                    available: self.remaining(),
                })
            }
        }
    }

    /// Reads one packed bit (ReadBit); see [`crate::bits`] for the format.
    pub fn read_bit(&mut self) -> Result<bool> {
        self.read_bit_located().map(|(bit, _, _)| bit)
    }

    /// Reads one packed bit and also returns where it came from: the offset
    /// of its group byte and its index (0 to 4) in that byte.
    pub fn read_bit_located(&mut self) -> Result<(bool, usize, u8)> {
        let mut group = match self.group {
            Some(g) if g.taken < g.count => g,
            _ => {
                let offset = self.pos;
                let byte = *self.data.get(offset).ok_or(StreamError::UnexpectedEnd {
                    offset,
                    what: What::Bit,
                    needed: 1,
                    available: 0,
                })?;
                let count = byte >> COUNT_SHIFT;
                if count == 0 || count > MAX_BITS_PER_GROUP {
                    return Err(StreamError::InvalidBitGroup {
                        offset,
                        byte,
                        count,
                    });
                }
                self.pos += 1;
                Group {
                    offset,
                    count,
                    taken: 0,
                    byte,
                }
            }
        };
        let index = group.taken;
        let bit = (group.byte >> index) & 1 == 1;
        group.taken += 1;
        self.group = Some(group);
        Ok((bit, group.offset, index))
    }

    /// Reads a CompressedFloat16 code (a `u16`); call [`Cf16::decode`] for the value.
    pub fn read_cf16(&mut self) -> Result<Cf16> {
        Ok(Cf16::from_bits(u16::from_le_bytes(
            self.take_array(What::Cf16)?,
        )))
    }

    /// Reads a CompressedVector3: three direction bytes.
    pub fn read_cvec3(&mut self) -> Result<CompressedVector3> {
        Ok(CompressedVector3::from_bytes(
            self.take_array(What::CompressedVector3)?,
        ))
    }

    /// Reads a CompressedVector4 with a CF16 magnitude (5 bytes; the game's param4 != 0).
    pub fn read_cvec4_cf16(&mut self) -> Result<CompressedVector4> {
        self.need(
            CompressedVector4::WIRE_SIZE_CF16,
            What::CompressedVector4Cf16,
        )?;
        let dir = CompressedVector3::from_bytes(self.take_array(What::CompressedVector4Cf16)?).dir;
        let raw = u16::from_le_bytes(self.take_array(What::CompressedVector4Cf16)?);
        Ok(CompressedVector4 {
            dir,
            magnitude: Magnitude::Cf16(Cf16::from_bits(raw)),
        })
    }

    /// Reads a CompressedVector4 with an `f32` magnitude (7 bytes; param4 == 0).
    pub fn read_cvec4_f32(&mut self) -> Result<CompressedVector4> {
        self.need(CompressedVector4::WIRE_SIZE_F32, What::CompressedVector4F32)?;
        let dir = CompressedVector3::from_bytes(self.take_array(What::CompressedVector4F32)?).dir;
        let value = f32::from_le_bytes(self.take_array(What::CompressedVector4F32)?);
        Ok(CompressedVector4 {
            dir,
            magnitude: Magnitude::F32(value),
        })
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn reads_the_documented_bit_bytes() {
        assert!(Reader::new(&[0x21]).read_bit().unwrap());
        assert!(!Reader::new(&[0x20]).read_bit().unwrap());
        let mut r = Reader::new(&[0x41]);
        assert!(r.read_bit().unwrap());
        assert!(!r.read_bit().unwrap());
        // The group is used up: the next bit needs a new byte.
        assert_eq!(
            r.read_bit(),
            Err(StreamError::UnexpectedEnd {
                offset: 1,
                what: What::Bit,
                needed: 1,
                available: 0
            })
        );
    }

    #[test]
    fn group_stays_open_across_byte_reads() {
        let mut r = Reader::new(&[0x61, 0x07, 0x20]);
        assert!(r.read_bit().unwrap());
        assert_eq!(r.read_u8().unwrap(), 7);
        assert_eq!(r.open_bit_group(), Some((0, 2)));
        assert!(!r.read_bit().unwrap());
        assert!(!r.read_bit().unwrap());
        assert_eq!(r.position(), 2);
        assert_eq!(r.open_bit_group(), None);
        assert!(!r.read_bit().unwrap()); // new group at byte 2
        assert_eq!(r.position(), 3);
    }

    #[test]
    fn rejects_impossible_group_counts_without_moving() {
        for byte in [0x00, 0x1F, 0xC0, 0xE1] {
            let data = [byte];
            let mut r = Reader::new(&data);
            let err = r.read_bit().unwrap_err();
            assert_eq!(
                err,
                StreamError::InvalidBitGroup {
                    offset: 0,
                    byte,
                    count: byte >> 5
                }
            );
            assert_eq!(r.position(), 0);
        }
    }

    #[test]
    fn errors_name_offset_and_field() {
        let mut r = Reader::new(&[1, 2, 3]);
        r.read_u8().unwrap();
        let err = r.read_i32().unwrap_err();
        assert_eq!(err.offset(), 1);
        assert_eq!(err.what(), What::Int32);
        assert_eq!(
            err.to_string(),
            "the data ends at byte 1 while reading an int32: 4 bytes needed, 2 available"
        );
        assert_eq!(r.position(), 1);
        let err = r.read_cvec4_cf16().unwrap_err();
        assert_eq!(
            err.to_string(),
            "the data ends at byte 1 while reading a CompressedVector4 (CF16 magnitude): 5 bytes needed, 2 available"
        );
        assert_eq!(r.position(), 1);
    }

    #[test]
    fn string16_error_covers_the_whole_string() {
        let mut r = Reader::new(&[5, 0, b'a', b'b']);
        let err = r.read_string16().unwrap_err();
        assert_eq!(
            err,
            StreamError::UnexpectedEnd {
                offset: 0,
                what: What::String16,
                needed: 7,
                available: 4
            }
        );
        assert_eq!(r.position(), 0);
    }

    #[test]
    fn huge_lengths_fail_without_allocating() {
        let mut r = Reader::new(&[0xFF, 0xFF]);
        assert!(r.read_bytes(usize::MAX).is_err());
        assert!(r.read_string16().is_err());
        assert_eq!(r.position(), 0);
    }
}

//! Writing a TGBufferStream.
//!
//! The exact mirror of [`crate::Reader`]: every `write_*` produces the bytes
//! the matching `read_*` consumes, in the layout the game writes (see the
//! [`reader`](crate::Reader) and [`crate::bits`] for the wire format). The
//! only state besides the buffer is the open bit group: its byte's position
//! and how many bools it holds.

use crate::bits::{group_byte, Group, COUNT_SHIFT, MAX_BITS_PER_GROUP};
use crate::cf16::Cf16;
use crate::vector::{CompressedVector3, CompressedVector4, Magnitude};

/// Writes stream primitives into a growing byte buffer.
///
/// Writes cannot fail: the buffer grows as needed. (The game's stream has a
/// fixed capacity; a caller that must respect one checks
/// [`Writer::position`].)
///
/// ```
/// use gamewire_tgstream::Writer;
///
/// let mut w = Writer::new();
/// w.write_bit(true);
/// w.write_bit(false);
/// w.write_string16(b"Multiplayer.Episode.Mission1.Mission1");
/// w.write_bit(false); // lands in the first byte, which becomes 0x61
/// assert_eq!(w.as_bytes()[0], 0x61);
/// assert_eq!(w.position(), 1 + 2 + 37);
/// ```
#[derive(Debug, Clone, Default)]
pub struct Writer {
    buf: Vec<u8>,
    group: Option<Group>,
}

impl Writer {
    /// An empty writer.
    #[must_use]
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty writer with room for `capacity` bytes.
    #[must_use]
    pub fn with_capacity(capacity: usize) -> Self {
        Writer {
            buf: Vec::with_capacity(capacity),
            group: None,
        }
    }

    /// The byte offset of the next non-bit write (GetPosition), which is also
    /// the number of bytes written.
    #[must_use]
    pub fn position(&self) -> usize {
        self.buf.len()
    }

    /// The bytes written so far.
    #[must_use]
    pub fn as_bytes(&self) -> &[u8] {
        &self.buf
    }

    /// The bytes written, consuming the writer.
    #[must_use]
    pub fn into_bytes(self) -> Vec<u8> {
        self.buf
    }

    /// The offset of the open bit group's byte and how many bits it holds,
    /// if a group is open and has room.
    #[must_use]
    pub fn open_bit_group(&self) -> Option<(usize, u8)> {
        self.group
            .filter(|g| g.count < MAX_BITS_PER_GROUP)
            .map(|g| (g.offset, g.count))
    }

    /// Writes a `u8` (WriteByte). An open bit group stays open.
    pub fn write_u8(&mut self, value: u8) {
        self.buf.push(value);
    }

    /// Writes an `i8`.
    pub fn write_i8(&mut self, value: i8) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    /// Writes a little-endian `u16` (WriteShort).
    pub fn write_u16(&mut self, value: u16) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    /// Writes a little-endian `i32` (WriteInt32).
    pub fn write_i32(&mut self, value: i32) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    /// Writes a little-endian `u32`.
    pub fn write_u32(&mut self, value: u32) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    /// Writes a little-endian IEEE 754 `f32` (WriteFloat), bit for bit.
    pub fn write_f32(&mut self, value: f32) {
        self.buf.extend_from_slice(&value.to_le_bytes());
    }

    /// Writes raw bytes (WriteBytes).
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        self.buf.extend_from_slice(bytes);
    }

    /// Writes a `u16` length and the bytes.
    ///
    /// # Errors
    ///
    /// Returns the length, unchanged and with nothing written, when it does
    /// not fit in a `u16`.
    pub fn try_write_string16(&mut self, bytes: &[u8]) -> Result<(), usize> {
        let len = u16::try_from(bytes.len()).map_err(|_| bytes.len())?;
        self.write_u16(len);
        self.write_bytes(bytes);
        Ok(())
    }

    /// Writes a `u16` length and the bytes, truncating them to 65535 bytes.
    pub fn write_string16(&mut self, bytes: &[u8]) {
        let len = bytes.len().min(usize::from(u16::MAX));
        let bytes = bytes.get(..len).unwrap_or(bytes);
        self.write_u16(u16::try_from(bytes.len()).unwrap_or(u16::MAX));
        self.write_bytes(bytes);
    }

    /// Writes one packed bit (WriteBit); see [`crate::bits`] for the format.
    ///
    /// The bit goes into the open group byte if it has room, wherever the
    /// position is now; otherwise a new group byte is appended.
    pub fn write_bit(&mut self, value: bool) {
        let mut group = match self.group {
            Some(g) if g.count < MAX_BITS_PER_GROUP => g,
            _ => {
                let offset = self.buf.len();
                self.buf.push(0);
                Group {
                    offset,
                    count: 0,
                    taken: 0,
                    byte: 0,
                }
            }
        };
        if let Some(byte) = self.buf.get_mut(group.offset) {
            let bits = (*byte & 0x1F) | (u8::from(value) << group.count);
            group.count += 1;
            *byte = group_byte(group.count, bits);
            debug_assert_eq!(*byte >> COUNT_SHIFT, group.count);
        }
        self.group = Some(group);
    }

    /// Writes a CompressedFloat16 code.
    pub fn write_cf16(&mut self, code: Cf16) {
        self.write_u16(code.to_bits());
    }

    /// Encodes `value` as a CompressedFloat16 ([`Cf16::encode`]) and writes it.
    pub fn write_cf16_value(&mut self, value: f32) {
        self.write_cf16(Cf16::encode(value));
    }

    /// Writes a CompressedVector3 (3 bytes).
    pub fn write_cvec3(&mut self, v: CompressedVector3) {
        self.write_bytes(&v.to_bytes());
    }

    /// Writes a CompressedVector4 (5 bytes with a CF16 magnitude, 7 with an `f32`).
    pub fn write_cvec4(&mut self, v: CompressedVector4) {
        self.write_bytes(&CompressedVector3 { dir: v.dir }.to_bytes());
        match v.magnitude {
            Magnitude::Cf16(code) => self.write_cf16(code),
            Magnitude::F32(value) => self.write_f32(value),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    fn bits(values: &[bool]) -> Vec<u8> {
        let mut w = Writer::new();
        for &v in values {
            w.write_bit(v);
        }
        w.into_bytes()
    }

    #[test]
    fn documented_bit_bytes() {
        assert_eq!(bits(&[true]), [0x21]);
        assert_eq!(bits(&[false]), [0x20]);
        assert_eq!(bits(&[true, false]), [0x41]);
        assert_eq!(bits(&[true, false, false]), [0x61]);
        assert_eq!(bits(&[true, false, true]), [0x65]);
        assert_eq!(bits(&[true; 5]), [0xBF]);
        assert_eq!(bits(&[true; 6]), [0xBF, 0x21]);
    }

    #[test]
    fn group_stays_open_across_a_string() {
        let mut w = Writer::new();
        w.write_bit(true);
        w.write_bit(false);
        w.write_string16(b"scripts/");
        assert_eq!(w.open_bit_group(), Some((0, 2)));
        w.write_bit(false);
        let bytes = w.into_bytes();
        assert_eq!(bytes[0], 0x61);
        assert_eq!(&bytes[1..3], &[8, 0]);
        assert_eq!(bytes.len(), 11);
    }

    #[test]
    fn sixth_bit_starts_a_group_at_the_position() {
        let mut w = Writer::new();
        for _ in 0..5 {
            w.write_bit(false);
        }
        w.write_u8(0xAA);
        w.write_bit(true);
        assert_eq!(w.as_bytes(), &[0xA0, 0xAA, 0x21]);
    }

    #[test]
    fn stock_settings_payload() {
        // Packet #25 of OpenBC's stock dedicated server trace, Settings body.
        let mut w = Writer::new();
        w.write_u8(0x00);
        w.write_f32(33.25);
        w.write_bit(true);
        w.write_bit(false);
        w.write_u8(0);
        w.write_string16(b"Multiplayer.Episode.Mission1.Mission1");
        w.write_bit(false);
        let mut expected = vec![0x00, 0x00, 0x00, 0x05, 0x42, 0x61, 0x00, 0x25, 0x00];
        expected.extend_from_slice(b"Multiplayer.Episode.Mission1.Mission1");
        assert_eq!(w.as_bytes(), expected.as_slice());
    }

    #[test]
    fn stock_checksum_request_payload() {
        // Packet #2: ChecksumReq round 0, "scripts/", "App.pyc", recursive = false.
        let mut w = Writer::new();
        w.write_u8(0x20);
        w.write_u8(0x00);
        w.write_string16(b"scripts/");
        w.write_string16(b"App.pyc");
        w.write_bit(false);
        let expected: &[u8] = &[
            0x20, 0x00, 0x08, 0x00, b's', b'c', b'r', b'i', b'p', b't', b's', b'/', 0x07, 0x00,
            b'A', b'p', b'p', b'.', b'p', b'y', b'c', 0x20,
        ];
        assert_eq!(w.as_bytes(), expected);
    }

    #[test]
    fn string16_length_limit() {
        let mut w = Writer::new();
        let long = vec![0u8; 70_000];
        assert_eq!(w.try_write_string16(&long), Err(70_000));
        assert_eq!(w.position(), 0);
        w.write_string16(&long);
        assert_eq!(w.position(), 2 + 65_535);
        assert_eq!(&w.as_bytes()[..2], &[0xFF, 0xFF]);
    }
}

//! The word-level bit writer (`docs/formats/bit-serialize.md`).
//!
//! Values are ORed into a 64-bit scratch word above the bits already there;
//! whenever 32 or more bits are pending, the low 32 bits are written out as a
//! little-endian word. [`BitWriter::finish`] flushes the rest and returns
//! exactly `ceil(bits / 8)` bytes. The output is byte-for-byte what the classic
//! 32-bit-word writer of Glenn Fiedler's "Reading and Writing Packets"
//! produces (its `FlushBits` writes a whole word, of which `GetBytesWritten`
//! keeps the same leading bytes), and it is
//! the exact inverse of [`crate::BitReader`].

use crate::error::{BitError, Result};

/// An LSB-first bit writer.
#[derive(Debug, Clone, Default)]
pub struct BitWriter {
    out: Vec<u8>,
    scratch: u64,
    scratch_bits: u32,
}

impl BitWriter {
    /// An empty writer.
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty writer with room for `bytes` bytes.
    pub fn with_capacity(bytes: usize) -> Self {
        BitWriter {
            out: Vec::with_capacity(bytes),
            scratch: 0,
            scratch_bits: 0,
        }
    }

    /// An empty writer that writes into `buffer`, emptied first: a caller
    /// that writes many streams reuses one allocation for them. Room is
    /// made for `bytes` bytes.
    pub fn with_buffer(mut buffer: Vec<u8>, bytes: usize) -> Self {
        buffer.clear();
        buffer.reserve(bytes);
        BitWriter {
            out: buffer,
            scratch: 0,
            scratch_bits: 0,
        }
    }

    /// Bits written so far.
    #[inline]
    pub fn bits_written(&self) -> u64 {
        self.out.len() as u64 * 8 + u64::from(self.scratch_bits)
    }

    /// True when the next bit starts a byte.
    #[inline]
    pub fn is_byte_aligned(&self) -> bool {
        self.scratch_bits.is_multiple_of(8)
    }

    /// Writes the low `count` bits of `value` (`count` at most 64). Bits of
    /// `value` above `count` must be zero, or this is an error.
    #[inline]
    pub fn write_bits(&mut self, value: u64, count: u32) -> Result<()> {
        if count > 64 {
            return Err(BitError::TooManyBits { requested: count });
        }
        if count < 64 && value >> count != 0 {
            return Err(BitError::Unencodable(
                "value has bits set above the bit count",
            ));
        }
        if count > 32 {
            self.write_bits_unchecked(value & 0xFFFF_FFFF, 32);
            self.write_bits_unchecked(value >> 32, count - 32);
        } else {
            self.write_bits_unchecked(value, count);
        }
        Ok(())
    }

    /// Writes up to 32 bits; `value` must fit in `count` bits.
    #[inline(always)]
    pub(crate) fn write_bits_unchecked(&mut self, value: u64, count: u32) {
        debug_assert!(count <= 32);
        self.scratch |= value << self.scratch_bits;
        self.scratch_bits += count;
        if self.scratch_bits >= 32 {
            self.out
                .extend_from_slice(&(self.scratch as u32).to_le_bytes());
            self.scratch >>= 32;
            self.scratch_bits -= 32;
        }
    }

    /// Writes one bit.
    #[inline]
    pub fn write_bool(&mut self, value: bool) {
        self.write_bits_unchecked(u64::from(value), 1);
    }

    /// Writes 8 bits.
    #[inline]
    pub fn write_u8(&mut self, value: u8) {
        self.write_bits_unchecked(u64::from(value), 8);
    }

    /// Writes 16 bits.
    #[inline]
    pub fn write_u16(&mut self, value: u16) {
        self.write_bits_unchecked(u64::from(value), 16);
    }

    /// Writes 32 bits.
    #[inline]
    pub fn write_u32(&mut self, value: u32) {
        self.write_bits_unchecked(u64::from(value), 32);
    }

    /// Writes 64 bits, little-endian.
    #[inline]
    pub fn write_u64(&mut self, value: u64) {
        self.write_bits_unchecked(value & 0xFFFF_FFFF, 32);
        self.write_bits_unchecked(value >> 32, 32);
    }

    /// Writes bytes; a fast copy when aligned.
    pub fn write_bytes(&mut self, bytes: &[u8]) {
        if self.scratch_bits == 0 {
            self.out.extend_from_slice(bytes);
            return;
        }
        // Unaligned: eight bytes at a time, as one little-endian word (the
        // same bits as writing them one by one, least significant first).
        // The pending bits (fewer than 32) go out below the word and its top
        // bits become the pending ones, so their count stays as it was.
        let shift = self.scratch_bits;
        self.out.reserve(bytes.len() + 8);
        let mut words = bytes.chunks_exact(8);
        for word in &mut words {
            let mut le = [0u8; 8];
            le.copy_from_slice(word);
            let word = u64::from_le_bytes(le);
            self.out
                .extend_from_slice(&(self.scratch | word << shift).to_le_bytes());
            self.scratch = word >> (64 - shift);
        }
        for &b in words.remainder() {
            self.write_u8(b);
        }
    }

    /// Pads with zero bits to the next byte boundary.
    pub fn align(&mut self) {
        let pad = (8 - self.scratch_bits % 8) % 8;
        self.write_bits_unchecked(0, pad);
    }

    /// Flushes and returns the bytes: `ceil(bits_written / 8)` of them, the
    /// unused high bits of the last byte zero.
    pub fn finish(mut self) -> Vec<u8> {
        let bytes = self.scratch_bits.div_ceil(8) as usize;
        let word = self.scratch.to_le_bytes();
        self.out.extend_from_slice(&word[..bytes]);
        self.out
    }
}

#[cfg(test)]
mod tests {
    use super::BitWriter;

    #[test]
    fn unaligned_bytes_are_the_bytes_written_one_by_one() -> crate::error::Result<()> {
        let data: Vec<u8> = (0u8..41).map(|i| i.wrapping_mul(37) ^ 0xA5).collect();
        for offset in 0..40 {
            for len in 0..data.len() {
                let (mut fast, mut slow) = (BitWriter::new(), BitWriter::new());
                for w in [&mut fast, &mut slow] {
                    w.write_bits(0x5A5A_5A5A_5A5A & ((1u64 << offset) - 1), offset)?;
                }
                fast.write_bytes(&data[..len]);
                for &b in &data[..len] {
                    slow.write_u8(b);
                }
                assert_eq!(fast.bits_written(), slow.bits_written());
                assert_eq!(fast.finish(), slow.finish(), "offset {offset}, {len} bytes");
            }
        }
        Ok(())
    }
}

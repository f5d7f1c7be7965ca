//! The LSB-first bit reader.
//!
//! Bits are consumed least significant bit first from little-endian bytes: bit 0
//! of the stream is bit 0 of byte 0, bit 8 is bit 0 of byte 1. In other words,
//! "fill from the left, consume from the right": new bytes are shifted in
//! above the bits already buffered, reads take the low bits.
//!
//! # Design
//!
//! The reader keeps a 64-bit *lookahead* word. A refill loads eight bytes with
//! one unaligned little-endian load, ORs them in above the buffered bits and
//! advances the byte cursor by the number of whole bytes that fit, so after a
//! refill at least 56 bits are buffered (the technique of the `bitter` crate).
//! Bits above the buffered count may hold the *next* bytes already; they are the
//! same bytes a later refill ORs in at the same place, so they never corrupt a
//! value. Near the end of the input, where fewer than eight bytes remain, a slow
//! path loads byte by byte.
//!
//! A fixed-width read refills only when fewer bits are buffered than it
//! takes; in a run of narrow reads that test is false for long stretches and
//! the CPU predicts it. The reads whose width depends on the value (varints,
//! `UBitVar`, the field-path varint) refill first, every time: after a read of
//! data-dependent width, whether enough bits are left is a coin the CPU
//! cannot predict, and a refill costs less than a misprediction.
//!
//! Every public read is checked: reading past the end returns
//! [`BitError::UnexpectedEnd`] with the bit offset and the bits requested, and
//! leaves the reader where it was. Nothing is padded with zeros.
//!
//! For hot loops there is a manual mode: [`BitReader::refill_lookahead`]
//! returns how many bits are buffered, then [`BitReader::peek`] and
//! [`BitReader::consume`] read them without further checks. The caller must
//! not consume more than the refill reported.

use crate::error::{BitError, Result};

/// Largest bit count that a single refill guarantees (when input remains).
pub const MAX_LOOKAHEAD_BITS: u32 = 56;

#[inline(always)]
const fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Inlined so the optimizer sees the variant: an opaque call returning a
/// `BitError` would leave it unable to tell `Err` from the niche-encoded `Ok`,
/// which costs a register shuffle in every read loop.
#[inline(always)]
fn unexpected_end(bit_offset: u64, requested: u64, available: u64) -> BitError {
    BitError::UnexpectedEnd {
        bit_offset,
        requested,
        available,
    }
}

/// The (fewer than eight) last bytes of the input as a little-endian word,
/// zero-padded.
#[cold]
#[inline(never)]
fn tail_word(rest: &[u8]) -> u64 {
    let mut bytes = [0u8; 8];
    let len = rest.len().min(8);
    bytes[..len].copy_from_slice(&rest[..len]);
    u64::from_le_bytes(bytes)
}

/// A checked LSB-first reader over a byte slice.
#[derive(Debug, Clone)]
pub struct BitReader<'a> {
    data: &'a [u8],
    /// The bytes not yet ORed into `lookahead` (a suffix of `data`). Kept as
    /// a slice rather than an index so the refill's bounds check is a single
    /// length comparison.
    rest: &'a [u8],
    /// Buffered bits, the next bit of the stream in bit 0.
    lookahead: u64,
    /// How many low bits of `lookahead` are valid (0..=64; 64 only after a
    /// refill near the end of the input).
    bits: u32,
}

impl<'a> BitReader<'a> {
    /// A reader positioned at the first bit of `data`.
    #[inline]
    pub fn new(data: &'a [u8]) -> Self {
        BitReader {
            data,
            rest: data,
            lookahead: 0,
            bits: 0,
        }
    }

    /// The whole underlying buffer.
    #[inline]
    pub fn data(&self) -> &'a [u8] {
        self.data
    }

    /// Index of the first byte not yet ORed into the lookahead.
    #[inline(always)]
    fn byte_pos(&self) -> usize {
        self.data.len() - self.rest.len()
    }

    /// Bit offset of the next bit to be read.
    #[inline]
    pub fn position(&self) -> u64 {
        self.byte_pos() as u64 * 8 - u64::from(self.bits)
    }

    /// Total length of the input in bits.
    #[inline]
    pub fn bit_len(&self) -> u64 {
        self.data.len() as u64 * 8
    }

    /// How many bits are left to read.
    #[inline]
    pub fn bits_remaining(&self) -> u64 {
        self.rest.len() as u64 * 8 + u64::from(self.bits)
    }

    /// True when no bits are left.
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.bits == 0 && self.rest.is_empty()
    }

    /// True when the position is a multiple of eight.
    #[inline]
    pub fn is_byte_aligned(&self) -> bool {
        self.bits.is_multiple_of(8)
    }

    /// Moves the reader to an absolute bit offset.
    ///
    /// Fails, leaving the reader unchanged, if the offset lies past the end.
    pub fn seek(&mut self, bit_offset: u64) -> Result<()> {
        if bit_offset > self.bit_len() {
            return Err(BitError::UnexpectedEnd {
                bit_offset: self.position(),
                requested: bit_offset.saturating_sub(self.position()),
                available: self.bits_remaining(),
            });
        }
        // bit_offset / 8 <= data.len(), which is a usize.
        self.rest = self
            .data
            .get((bit_offset / 8) as usize..)
            .unwrap_or_default();
        self.lookahead = 0;
        self.bits = 0;
        let rem = (bit_offset % 8) as u32;
        if rem != 0 {
            self.refill_lookahead();
            self.consume(rem);
        }
        Ok(())
    }

    /// The end-of-input error for a read of `requested` bits here.
    ///
    /// Inlined on purpose: a call that took `&self` would make the reader's
    /// address escape, and the compiler would then keep the lookahead in
    /// memory instead of registers in every read loop.
    #[inline(always)]
    fn end_error(&self, requested: u64) -> BitError {
        unexpected_end(self.position(), requested, self.bits_remaining())
    }

    /// Buffers as many bits as possible (at least 56 when that many remain) and
    /// returns the number buffered.
    #[inline(always)]
    pub fn refill_lookahead(&mut self) -> u32 {
        match self.rest.first_chunk::<8>() {
            Some(bytes) => {
                self.lookahead |= u64::from_le_bytes(*bytes) << self.bits;
                // At most 7 bytes: within the 8 just checked.
                let advance = ((63 - self.bits) >> 3) as usize;
                self.rest = self.rest.get(advance..).unwrap_or_default();
                self.bits |= 56;
            }
            None => self.refill_tail(),
        }
        self.bits
    }

    /// [`Self::refill_lookahead`] for the reads that refill first whatever is
    /// buffered (varints, `UBitVar`s): the same refill with the advance
    /// masked to 0..=7. The mask is a no-op (`bits` is at most 63 while eight
    /// bytes remain) but where nothing bounds `bits` it lets the compiler see
    /// that the advance stays within the eight bytes just checked, and drop
    /// the slice's bound check. `refill_lookahead` keeps the unmasked form:
    /// behind a `bits < count` test the compiler knows the bound already, and
    /// the fixed-width read loops compile to bitter's instructions.
    #[inline(always)]
    pub(crate) fn refill_first(&mut self) -> u32 {
        match self.rest.first_chunk::<8>() {
            Some(bytes) => {
                self.lookahead |= u64::from_le_bytes(*bytes) << self.bits;
                let advance = (((63 - self.bits) >> 3) & 7) as usize;
                self.rest = self.rest.get(advance..).unwrap_or_default();
                self.bits |= 56;
            }
            None => self.refill_tail(),
        }
        self.bits
    }

    /// Refill near the end of the input, where fewer than eight bytes remain:
    /// as many whole bytes as fit below bit 64. Kept free of calls that take
    /// `&mut self` so the reader's fields stay in registers (see
    /// [`Self::end_error`]).
    #[inline(always)]
    fn refill_tail(&mut self) {
        let take = self.rest.len().min(((64 - self.bits) >> 3) as usize);
        if take == 0 {
            return;
        }
        self.lookahead |= tail_word(self.rest) << self.bits;
        self.rest = self.rest.get(take..).unwrap_or_default();
        self.bits += take as u32 * 8;
    }

    /// Number of bits currently buffered (manual mode).
    #[inline(always)]
    pub fn lookahead_bits(&self) -> u32 {
        self.bits
    }

    /// The next `count` bits without consuming them (manual mode).
    ///
    /// `count` must not exceed [`Self::lookahead_bits`]; bits past the buffered
    /// count read as whatever the next refill would put there, or zero at the end
    /// of input.
    #[inline(always)]
    pub fn peek(&self, count: u32) -> u64 {
        debug_assert!(count <= self.bits);
        self.lookahead & mask(count)
    }

    /// Drops `count` buffered bits (manual mode).
    ///
    /// `count` must not exceed [`Self::lookahead_bits`]. In release builds an
    /// over-consume is clamped to the buffered bits, so the position never
    /// passes the end.
    #[inline(always)]
    pub fn consume(&mut self, count: u32) {
        debug_assert!(count <= self.bits);
        let count = count.min(self.bits);
        self.lookahead = self.lookahead.checked_shr(count).unwrap_or(0);
        self.bits -= count;
    }

    /// Reads up to 64 bits as an unsigned integer.
    #[inline(always)]
    pub fn read_bits(&mut self, count: u32) -> Result<u64> {
        if count <= MAX_LOOKAHEAD_BITS {
            if self.bits < count && self.refill_lookahead() < count {
                return Err(self.end_error(u64::from(count)));
            }
            let value = self.lookahead & mask(count);
            self.lookahead >>= count;
            self.bits -= count;
            Ok(value)
        } else {
            self.read_bits_wide(count)
        }
    }

    #[inline(never)]
    fn read_bits_wide(&mut self, count: u32) -> Result<u64> {
        if count > 64 {
            return Err(BitError::TooManyBits { requested: count });
        }
        if self.bits_remaining() < u64::from(count) {
            return Err(self.end_error(u64::from(count)));
        }
        let low = self.read_bits(32)?;
        let high = self.read_bits(count - 32)?;
        Ok(low | (high << 32))
    }

    /// Reads one bit.
    #[inline(always)]
    pub fn read_bool(&mut self) -> Result<bool> {
        // Through read_bits: this shape compiles to bitter's 7-instruction
        // loop, a separate one-bit path to a 9-instruction one (benches/).
        Ok(self.read_bits(1)? == 1)
    }

    /// Reads 8 bits.
    #[inline(always)]
    pub fn read_u8(&mut self) -> Result<u8> {
        // Masked to 8 bits by read_bits.
        Ok(self.read_bits(8)? as u8)
    }

    /// Reads 16 bits, little-endian.
    #[inline(always)]
    pub fn read_u16(&mut self) -> Result<u16> {
        Ok(self.read_bits(16)? as u16)
    }

    /// Reads 32 bits, little-endian.
    #[inline(always)]
    pub fn read_u32(&mut self) -> Result<u32> {
        Ok(self.read_bits(32)? as u32)
    }

    /// Reads 64 bits, little-endian.
    #[inline]
    pub fn read_u64(&mut self) -> Result<u64> {
        self.read_bits(64)
    }

    /// Skips `count` bits.
    pub fn skip_bits(&mut self, count: u64) -> Result<()> {
        if self.bits_remaining() < count {
            return Err(self.end_error(count));
        }
        self.seek(self.position() + count)
    }

    /// Borrows `len` bytes without copying when the reader is byte aligned;
    /// returns `None` (consuming nothing) when it is not.
    pub fn read_bytes_aligned(&mut self, len: usize) -> Result<Option<&'a [u8]>> {
        if !self.is_byte_aligned() {
            return Ok(None);
        }
        let start = (self.position() / 8) as usize;
        match start
            .checked_add(len)
            .and_then(|end| self.data.get(start..end))
        {
            Some(slice) => {
                self.rest = self.data.get(start + len..).unwrap_or_default();
                self.lookahead = 0;
                self.bits = 0;
                Ok(Some(slice))
            }
            None => Err(self.end_error(len as u64 * 8)),
        }
    }

    /// Fills `out` with the next `out.len()` bytes, aligned or not.
    pub fn read_bytes_into(&mut self, out: &mut [u8]) -> Result<()> {
        if self.bits_remaining() < out.len() as u64 * 8 {
            return Err(self.end_error(out.len() as u64 * 8));
        }
        if let Some(slice) = self.read_bytes_aligned(out.len())? {
            out.copy_from_slice(slice);
            return Ok(());
        }
        // Unaligned: each output byte is two neighbouring input bytes
        // shifted, read straight from the slice eight at a time. With a
        // shift of 1-7 bits and `bits_remaining` checked above, the input
        // holds the `out.len() + 1` bytes from `start`.
        let position = self.position();
        let start = (position / 8) as usize;
        let shift = (position % 8) as u32;
        let Some(src) = start
            .checked_add(out.len() + 1)
            .and_then(|end| self.data.get(start..end))
        else {
            return Err(self.end_error(out.len() as u64 * 8));
        };
        let mut out_chunks = out.chunks_exact_mut(8);
        let mut src_at = 0usize;
        for chunk in &mut out_chunks {
            // Nine input bytes: one bound check for the word and the byte.
            let Some(&[b0, b1, b2, b3, b4, b5, b6, b7, next]) = src.get(src_at..src_at + 9) else {
                return Err(self.end_error(out.len() as u64 * 8));
            };
            let word = u64::from_le_bytes([b0, b1, b2, b3, b4, b5, b6, b7]);
            let value = (word >> shift) | (u64::from(next) << (64 - shift));
            chunk.copy_from_slice(&value.to_le_bytes());
            src_at += 8;
        }
        for (byte, pair) in out_chunks
            .into_remainder()
            .iter_mut()
            .zip(src.get(src_at..).unwrap_or_default().windows(2))
        {
            *byte = (pair[0] >> shift) | (pair[1] << (8 - shift));
        }
        self.seek(position + out.len() as u64 * 8)
    }

    /// Reads `len` bytes into a new vector. The length is checked against the
    /// remaining input before anything is allocated.
    pub fn read_bytes(&mut self, len: usize) -> Result<Vec<u8>> {
        if self.bits_remaining() < len as u64 * 8 {
            return Err(self.end_error(len as u64 * 8));
        }
        let mut out = vec![0u8; len];
        self.read_bytes_into(&mut out)?;
        Ok(out)
    }

    /// Reads `bit_count` bits into a new byte vector, LSB-first; the last byte
    /// holds the remaining `bit_count % 8` bits in its low bits.
    pub fn read_bits_to_vec(&mut self, bit_count: u64) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.read_bits_into_vec(bit_count, &mut out)?;
        Ok(out)
    }

    /// [`BitReader::read_bits_to_vec`] into `out` (its contents replaced,
    /// its allocation reused). The length is checked against the remaining
    /// input before `out` is touched; on an error `out` is unchanged.
    pub fn read_bits_into_vec(&mut self, bit_count: u64, out: &mut Vec<u8>) -> Result<()> {
        if self.bits_remaining() < bit_count {
            return Err(self.end_error(bit_count));
        }
        let whole = (bit_count / 8) as usize;
        let rest = (bit_count % 8) as u32;
        out.clear();
        out.resize(whole, 0);
        self.read_bytes_into(out)?;
        if rest != 0 {
            out.push(self.read_bits(rest)? as u8);
        }
        Ok(())
    }
}

//! Unified serialization after Glenn Fiedler's "Serialization Strategies"
//! (`docs/formats/bit-serialize.md`).
//!
//! A message type implements [`Serialize`] once, generically over a
//! [`Stream`]; the same function then reads ([`ReadStream`]), writes
//! ([`WriteStream`]) and measures ([`MeasureStream`]). Every operation returns
//! a [`Result`], so `?` aborts the whole read at the first failure: there is
//! no flag to forget and no exception.
//!
//! The wire format is the one of mas-bandwidth/serialize (`serialize.h`,
//! specified byte for byte in its `STANDARD.md`): bits are packed LSB first
//! into little-endian words, and the tests check our output against that
//! document's 112-byte golden vector. In short:
//!
//! - `serialize_int(v, min, max)` writes `v - min` in
//!   `bits_required(min, max)` bits (0 bits when `min == max`); the reader
//!   rejects offsets above `max - min` with [`BitError::OutOfRange`].
//! - `serialize_bits`, `serialize_bool`, `serialize_float` (the 32 raw bits),
//!   `serialize_double` (the 64 raw bits) do what they say; values wider than
//!   32 bits go low 32 bits first.
//! - `serialize_compressed_float(v, min, max, res)` quantizes in `f32` with the
//!   standard's two roundings (no fused multiply-add, no widening).
//! - `serialize_bytes` **aligns first**, then copies bytes; `serialize_string`
//!   is `serialize_int(len, 0, max_len)` followed by `serialize_bytes`, and the
//!   reader refuses invalid UTF-8 and interior NULs. (The standard's
//!   `buffer_size` counts a terminator; our `max_len` is `buffer_size - 1`.)
//! - `serialize_align` pads with zeros; the reader refuses non-zero padding.
//! - `serialize_check(magic)` aligns and writes a 32-bit marker; the reader
//!   refuses a different one with [`BitError::CheckMismatch`].
//!
//! Writers validate too: a value outside its range, a string too long, a
//! non-finite compressed float all fail with an error instead of silently
//! writing something else. A [`MeasureStream`] runs the same checks.
//!
//! # Example
//!
//! ```
//! use gamewire_bits::serialize::{measure, read, write, Serialize, Stream};
//! use gamewire_bits::Result;
//!
//! #[derive(Debug, Default, PartialEq)]
//! struct PlayerState {
//!     id: u16,
//!     health: i32,
//!     alive: bool,
//!     yaw: f32,
//!     name: String,
//! }
//!
//! impl Serialize for PlayerState {
//!     fn serialize<S: Stream>(&mut self, s: &mut S) -> Result<()> {
//!         s.serialize_int(&mut self.id, 0, 999)?; // 10 bits
//!         s.serialize_int(&mut self.health, -100, 100)?; // 8 bits
//!         s.serialize_bool(&mut self.alive)?; // 1 bit
//!         s.serialize_compressed_float(&mut self.yaw, 0.0, 360.0, 0.5)?; // 10 bits
//!         s.serialize_string(&mut self.name, 31) // 5 bits, align, bytes
//!     }
//! }
//!
//! let mut state = PlayerState { id: 7, health: -3, alive: true, yaw: 90.0, name: "ann".into() };
//! let bytes = write(&mut state)?;
//! assert_eq!(measure(&mut state)?, 34 + 6 + 24); // 34 bits, 6 padding, 3 bytes
//! assert_eq!(bytes.len(), 8);
//! let back: PlayerState = read(&bytes)?;
//! assert_eq!(back, state);
//! # Ok::<(), gamewire_bits::BitError>(())
//! ```

use crate::error::{BitError, Result};
use crate::reader::BitReader;
use crate::writer::BitWriter;

/// Bits needed for an offset in `[0, range]`: 0 for an empty range, else the
/// bit length of `range` (the standard's `bits_required(min, max)` with
/// `range = max - min`).
#[inline]
pub const fn bits_required(range: u64) -> u32 {
    64 - range.leading_zeros()
}

/// A message that reads, writes and measures itself with one function.
pub trait Serialize {
    /// Serializes `self` through `stream`: on a [`ReadStream`] the fields are
    /// filled in, on a [`WriteStream`] or [`MeasureStream`] they are read.
    fn serialize<S: Stream>(&mut self, stream: &mut S) -> Result<()>;
}

/// Writes `message` into a new byte vector.
pub fn write<T: Serialize + ?Sized>(message: &mut T) -> Result<Vec<u8>> {
    let mut stream = WriteStream::new();
    message.serialize(&mut stream)?;
    Ok(stream.finish())
}

/// Reads a `T` (starting from its default value) from `bytes`.
pub fn read<T: Serialize + Default>(bytes: &[u8]) -> Result<T> {
    let mut message = T::default();
    message.serialize(&mut ReadStream::new(bytes))?;
    Ok(message)
}

/// The exact number of bits `message` occupies when written from bit 0.
pub fn measure<T: Serialize + ?Sized>(message: &mut T) -> Result<u64> {
    let mut stream = MeasureStream::new();
    message.serialize(&mut stream)?;
    Ok(stream.bits())
}

mod sealed {
    pub trait Sealed {}
}

/// Integer types usable with [`Stream::serialize_int`].
pub trait SerializeInt: Copy + sealed::Sealed {
    /// The value widened to `i128`.
    fn to_i128(self) -> i128;
    /// The value narrowed from `i128`, if it fits.
    fn from_i128(value: i128) -> Option<Self>;
}

/// Unsigned integer types usable with [`Stream::serialize_bits`].
pub trait SerializeBits: Copy + sealed::Sealed {
    /// Width of the type in bits.
    const WIDTH: u32;
    /// The value widened to `u64`.
    fn to_u64(self) -> u64;
    /// The value narrowed from `u64` (the caller guarantees it fits).
    fn from_u64(value: u64) -> Self;
}

macro_rules! impl_int {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl SerializeInt for $t {
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as i128
            }
            #[inline(always)]
            fn from_i128(value: i128) -> Option<Self> {
                <$t>::try_from(value).ok()
            }
        }
    )*};
}
impl_int!(i8, i16, i32, i64, isize, u8, u16, u32, u64, usize);

macro_rules! impl_bits {
    ($($t:ty),*) => {$(
        impl SerializeBits for $t {
            const WIDTH: u32 = <$t>::BITS;
            #[inline(always)]
            fn to_u64(self) -> u64 {
                self as u64
            }
            #[inline(always)]
            fn from_u64(value: u64) -> Self {
                value as $t
            }
        }
    )*};
}
impl_bits!(u8, u16, u32, u64);

fn saturate_i64(value: i128) -> i64 {
    value.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// The constants of a compressed float, derived once from its declaration
/// exactly as `STANDARD.md` ("compressed_float") prescribes, all in `f32`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CompressedFloat {
    /// Lower bound.
    pub min: f32,
    /// `max - min`.
    pub delta: f32,
    /// `ceil(clamp(delta / res, 1, 4294967040))`: the largest integer sent.
    pub max_integer_value: u32,
    /// `bits_required(0, max_integer_value)`.
    pub bits: u32,
}

impl CompressedFloat {
    /// Derives the constants; `min < max`, `res > 0` and finite bounds are
    /// required.
    pub fn new(min: f32, max: f32, res: f32) -> Result<Self> {
        let delta = max - min;
        let valid = min < max && res > 0.0 && delta.is_finite();
        if !valid {
            return Err(BitError::InvalidEncoding(
                "compressed float needs finite min < max and res > 0",
            ));
        }
        let mut values = delta / res;
        if values.is_nan() {
            return Err(BitError::InvalidEncoding(
                "compressed float delta / res is not finite",
            ));
        }
        values = values.clamp(1.0, 4_294_967_040.0);
        let max_integer_value = values.ceil() as u32;
        Ok(CompressedFloat {
            min,
            delta,
            max_integer_value,
            bits: bits_required(u64::from(max_integer_value)),
        })
    }

    /// The integer written for `value`: normalized, clamped to [0, 1], scaled
    /// and rounded half up, with the product rounded to `f32` before `0.5` is
    /// added (the standard's two roundings).
    pub fn quantize(&self, value: f32) -> u32 {
        let normalized = ((value - self.min) / self.delta).clamp(0.0, 1.0);
        let scaled = normalized * self.max_integer_value as f32;
        (scaled + 0.5).floor() as u32
    }

    /// The value read back for `integer` (`integer / max * delta + min`, every
    /// step rounded to `f32`).
    pub fn dequantize(&self, integer: u32) -> f32 {
        let normalized = integer as f32 / self.max_integer_value as f32;
        let scaled = normalized * self.delta;
        scaled + self.min
    }
}

/// A stream that a [`Serialize`] implementation reads from, writes to or
/// measures. Implementations provide four primitives; every `serialize_*`
/// operation is built on them.
pub trait Stream {
    /// True for [`ReadStream`]: values flow from the stream into the message.
    const IS_READING: bool;

    /// Bits read or written so far (for a [`MeasureStream`], counted from its
    /// starting offset).
    fn bit_position(&self) -> u64;

    /// Reads or writes the low `bits` bits of `value` (`bits <= 64`; wider
    /// values go low 32 bits first). Writing a value with bits set above
    /// `bits` is an error.
    fn serialize_raw(&mut self, value: &mut u64, bits: u32) -> Result<()>;

    /// Pads to a byte boundary with zero bits; a reader refuses non-zero
    /// padding with [`BitError::NonZeroPadding`].
    fn serialize_align(&mut self) -> Result<()>;

    /// Aligns, then reads or writes `bytes.len()` raw bytes. The length itself
    /// is not sent: both sides must agree on it.
    fn serialize_bytes(&mut self, bytes: &mut [u8]) -> Result<()>;

    /// Fails unless `bits` more bits can be read (readers check this before
    /// allocating for a length read from the input; writers always succeed).
    fn ensure_available(&self, _bits: u64) -> Result<()> {
        Ok(())
    }

    /// `bits` bits of an unsigned integer (`bits` at most the type's width).
    #[inline]
    fn serialize_bits<T: SerializeBits>(&mut self, value: &mut T, bits: u32) -> Result<()> {
        if bits > T::WIDTH {
            return Err(BitError::TooManyBits { requested: bits });
        }
        let mut raw = value.to_u64();
        self.serialize_raw(&mut raw, bits)?;
        if Self::IS_READING {
            *value = T::from_u64(raw);
        }
        Ok(())
    }

    /// An integer in `[min, max]`, written as `value - min` in
    /// [`bits_required`]`(max - min)` bits. Writing a value outside the range,
    /// or reading an offset beyond it, is [`BitError::OutOfRange`].
    #[inline]
    fn serialize_int<T: SerializeInt>(&mut self, value: &mut T, min: T, max: T) -> Result<()> {
        let (lo, hi) = (min.to_i128(), max.to_i128());
        if lo > hi {
            return Err(BitError::InvalidEncoding("serialize_int needs min <= max"));
        }
        // Every supported type is at most 64 bits wide, so the range fits u64.
        let range = (hi - lo) as u64;
        let bits = bits_required(range);
        let at = self.bit_position();
        let out_of_range = |value: i128| BitError::OutOfRange {
            bit_offset: at,
            value: saturate_i64(value),
            min: saturate_i64(lo),
            max: saturate_i64(hi),
        };
        let mut offset = 0u64;
        if !Self::IS_READING {
            let v = value.to_i128();
            if v < lo || v > hi {
                return Err(out_of_range(v));
            }
            offset = (v - lo) as u64;
        }
        self.serialize_raw(&mut offset, bits)?;
        if Self::IS_READING {
            let v = lo + i128::from(offset);
            if offset > range {
                return Err(out_of_range(v));
            }
            *value = T::from_i128(v).ok_or_else(|| out_of_range(v))?;
        }
        Ok(())
    }

    /// One bit.
    #[inline]
    fn serialize_bool(&mut self, value: &mut bool) -> Result<()> {
        let mut raw = u64::from(*value);
        self.serialize_raw(&mut raw, 1)?;
        if Self::IS_READING {
            *value = raw != 0;
        }
        Ok(())
    }

    /// The 32 raw bits of an `f32` (every bit pattern survives).
    #[inline]
    fn serialize_float(&mut self, value: &mut f32) -> Result<()> {
        let mut raw = u64::from(value.to_bits());
        self.serialize_raw(&mut raw, 32)?;
        if Self::IS_READING {
            *value = f32::from_bits(raw as u32);
        }
        Ok(())
    }

    /// The 64 raw bits of an `f64`, low 32 bits first.
    #[inline]
    fn serialize_double(&mut self, value: &mut f64) -> Result<()> {
        let mut raw = value.to_bits();
        self.serialize_raw(&mut raw, 64)?;
        if Self::IS_READING {
            *value = f64::from_bits(raw);
        }
        Ok(())
    }

    /// A float in `[min, max]` quantized to `res` (see [`CompressedFloat`]).
    /// Values outside the range clamp; a non-finite value cannot be written; a
    /// reader refuses an integer above the maximum.
    fn serialize_compressed_float(
        &mut self,
        value: &mut f32,
        min: f32,
        max: f32,
        res: f32,
    ) -> Result<()> {
        let params = CompressedFloat::new(min, max, res)?;
        self.serialize_compressed_float_with(value, &params)
    }

    /// [`Self::serialize_compressed_float`] with constants derived once.
    fn serialize_compressed_float_with(
        &mut self,
        value: &mut f32,
        params: &CompressedFloat,
    ) -> Result<()> {
        let at = self.bit_position();
        let mut integer = 0u64;
        if !Self::IS_READING {
            if !value.is_finite() {
                return Err(BitError::Unencodable("compressed float is not finite"));
            }
            integer = u64::from(params.quantize(*value));
        }
        self.serialize_raw(&mut integer, params.bits)?;
        if Self::IS_READING {
            if integer > u64::from(params.max_integer_value) {
                return Err(BitError::OutOfRange {
                    bit_offset: at,
                    value: integer as i64,
                    min: 0,
                    max: i64::from(params.max_integer_value),
                });
            }
            *value = params.dequantize(integer as u32);
        }
        Ok(())
    }

    /// A string of at most `max_len` bytes: its length as
    /// `serialize_int(len, 0, max_len)`, then its bytes via
    /// [`Self::serialize_bytes`] (which aligns). Readers refuse invalid UTF-8
    /// and NUL bytes with [`BitError::InvalidString`]; writers refuse a NUL
    /// byte.
    fn serialize_string(&mut self, value: &mut String, max_len: usize) -> Result<()> {
        let mut len = value.len();
        if !Self::IS_READING && value.contains('\0') {
            return Err(BitError::Unencodable("string contains a NUL byte"));
        }
        self.serialize_int(&mut len, 0, max_len)?;
        if Self::IS_READING {
            // Align first so the availability check counts only byte bits.
            self.serialize_align()?;
            let at = self.bit_position();
            self.ensure_available(len as u64 * 8)?;
            let mut bytes = vec![0u8; len];
            self.serialize_bytes(&mut bytes)?;
            if bytes.contains(&0) {
                return Err(BitError::InvalidString {
                    bit_offset: at,
                    reason: "interior NUL byte",
                });
            }
            *value = String::from_utf8(bytes).map_err(|_| BitError::InvalidString {
                bit_offset: at,
                reason: "invalid UTF-8",
            })?;
        } else {
            let mut bytes = value.as_bytes().to_vec();
            self.serialize_bytes(&mut bytes)?;
        }
        Ok(())
    }

    /// A 32-bit marker after an alignment, for catching desynchronized
    /// read and write code; a reader refuses any other value.
    fn serialize_check(&mut self, magic: u32) -> Result<()> {
        self.serialize_align()?;
        let at = self.bit_position();
        let mut raw = u64::from(magic);
        self.serialize_raw(&mut raw, 32)?;
        if Self::IS_READING && raw != u64::from(magic) {
            return Err(BitError::CheckMismatch {
                bit_offset: at,
                expected: magic,
                found: raw as u32,
            });
        }
        Ok(())
    }

    /// An increasing sequence value relative to `previous` (the standard's
    /// `int_relative`): a ladder of one-bit flags selects a difference of 1,
    /// 2-6, 7-23, 24-280, 281-4377 or 4378-69914; otherwise `current` is sent
    /// as 32 raw bits. `current > previous` is required on both sides.
    fn serialize_int_relative(&mut self, previous: u32, current: &mut u32) -> Result<()> {
        const TIERS: [(u32, u32); 5] = [(2, 6), (7, 23), (24, 280), (281, 4377), (4378, 69914)];
        let at = self.bit_position();
        let not_increasing = |value: u32| BitError::OutOfRange {
            bit_offset: at,
            value: i64::from(value),
            min: i64::from(previous) + 1,
            max: i64::from(u32::MAX),
        };
        let difference = if Self::IS_READING {
            0
        } else {
            if *current <= previous {
                return Err(not_increasing(*current));
            }
            *current - previous
        };
        let mut one = difference == 1;
        self.serialize_bool(&mut one)?;
        if one {
            if Self::IS_READING {
                *current = previous.checked_add(1).ok_or(not_increasing(previous))?;
            }
            return Ok(());
        }
        for (min, max) in TIERS {
            let mut fits = difference <= max;
            self.serialize_bool(&mut fits)?;
            if fits {
                let mut d = difference;
                self.serialize_int(&mut d, min, max)?;
                if Self::IS_READING {
                    *current = previous.checked_add(d).ok_or(not_increasing(previous))?;
                }
                return Ok(());
            }
        }
        self.serialize_bits(current, 32)?;
        if Self::IS_READING && *current <= previous {
            return Err(not_increasing(*current));
        }
        Ok(())
    }

    /// A nested message, inline: no framing of its own.
    #[inline]
    fn serialize_object<T: Serialize + ?Sized>(&mut self, object: &mut T) -> Result<()>
    where
        Self: Sized,
    {
        object.serialize(self)
    }
}

/// Reads a message from bytes; every refusal rule of the format applies.
#[derive(Debug, Clone)]
pub struct ReadStream<'a> {
    reader: BitReader<'a>,
}

impl<'a> ReadStream<'a> {
    /// A stream reading `data` from its first bit.
    pub fn new(data: &'a [u8]) -> Self {
        ReadStream {
            reader: BitReader::new(data),
        }
    }

    /// A stream continuing from `reader`'s position.
    pub fn from_reader(reader: BitReader<'a>) -> Self {
        ReadStream { reader }
    }

    /// The underlying reader.
    pub fn reader(&self) -> &BitReader<'a> {
        &self.reader
    }

    /// Gives the reader back, positioned after what was read.
    pub fn into_reader(self) -> BitReader<'a> {
        self.reader
    }
}

impl Stream for ReadStream<'_> {
    const IS_READING: bool = true;

    #[inline]
    fn bit_position(&self) -> u64 {
        self.reader.position()
    }

    #[inline]
    fn serialize_raw(&mut self, value: &mut u64, bits: u32) -> Result<()> {
        *value = self.reader.read_bits(bits)?;
        Ok(())
    }

    fn serialize_align(&mut self) -> Result<()> {
        let at = self.reader.position();
        let pad = ((8 - at % 8) % 8) as u32;
        if self.reader.read_bits(pad)? != 0 {
            return Err(BitError::NonZeroPadding { bit_offset: at });
        }
        Ok(())
    }

    fn serialize_bytes(&mut self, bytes: &mut [u8]) -> Result<()> {
        self.serialize_align()?;
        self.reader.read_bytes_into(bytes)
    }

    fn ensure_available(&self, bits: u64) -> Result<()> {
        let available = self.reader.bits_remaining();
        if available < bits {
            return Err(BitError::UnexpectedEnd {
                bit_offset: self.reader.position(),
                requested: bits,
                available,
            });
        }
        Ok(())
    }
}

/// Writes a message into a [`BitWriter`].
#[derive(Debug, Clone, Default)]
pub struct WriteStream {
    writer: BitWriter,
}

impl WriteStream {
    /// An empty stream.
    pub fn new() -> Self {
        Self::default()
    }

    /// A stream appending to `writer`.
    pub fn from_writer(writer: BitWriter) -> Self {
        WriteStream { writer }
    }

    /// The underlying writer.
    pub fn writer(&self) -> &BitWriter {
        &self.writer
    }

    /// Gives the writer back.
    pub fn into_writer(self) -> BitWriter {
        self.writer
    }

    /// Flushes and returns the bytes (`ceil(bits / 8)` of them).
    pub fn finish(self) -> Vec<u8> {
        self.writer.finish()
    }
}

impl Stream for WriteStream {
    const IS_READING: bool = false;

    #[inline]
    fn bit_position(&self) -> u64 {
        self.writer.bits_written()
    }

    #[inline]
    fn serialize_raw(&mut self, value: &mut u64, bits: u32) -> Result<()> {
        self.writer.write_bits(*value, bits)
    }

    fn serialize_align(&mut self) -> Result<()> {
        self.writer.align();
        Ok(())
    }

    fn serialize_bytes(&mut self, bytes: &mut [u8]) -> Result<()> {
        self.writer.align();
        self.writer.write_bytes(bytes);
        Ok(())
    }
}

/// Counts the bits a message would occupy, without writing anything.
///
/// [`Self::bits`] is exact for the starting offset given to
/// [`Self::starting_at`] (0 for [`Self::new`]): alignment padding depends on
/// the position. mas-bandwidth's `STANDARD.md` ("The Measure Stream") asks
/// instead for a bound valid at *any* start, charging 7 bits per alignment;
/// [`Self::bound_bits`] gives that number.
#[derive(Debug, Clone, Default)]
pub struct MeasureStream {
    start: u64,
    bits: u64,
    padding: u64,
    aligns: u64,
}

impl MeasureStream {
    /// Measures from bit 0 (an aligned start).
    pub fn new() -> Self {
        Self::default()
    }

    /// Measures as if writing began at `bit_offset`.
    pub fn starting_at(bit_offset: u64) -> Self {
        MeasureStream {
            start: bit_offset,
            ..Self::default()
        }
    }

    /// Exact bits written from the starting offset.
    pub fn bits(&self) -> u64 {
        self.bits
    }

    /// Bytes a writer starting at bit 0 would return (`ceil(bits / 8)`);
    /// meaningful for a stream made with [`Self::new`].
    pub fn bytes(&self) -> u64 {
        self.bits.div_ceil(8)
    }

    /// Bits sufficient at any starting offset: the exact count with each
    /// alignment charged its worst case of 7 bits.
    pub fn bound_bits(&self) -> u64 {
        self.bits - self.padding + 7 * self.aligns
    }

    fn align(&mut self) {
        let pad = (8 - self.bit_position() % 8) % 8;
        self.bits += pad;
        self.padding += pad;
        self.aligns += 1;
    }
}

impl Stream for MeasureStream {
    const IS_READING: bool = false;

    #[inline]
    fn bit_position(&self) -> u64 {
        self.start + self.bits
    }

    #[inline]
    fn serialize_raw(&mut self, value: &mut u64, bits: u32) -> Result<()> {
        if bits > 64 {
            return Err(BitError::TooManyBits { requested: bits });
        }
        if bits < 64 && *value >> bits != 0 {
            return Err(BitError::Unencodable(
                "value has bits set above the bit count",
            ));
        }
        self.bits += u64::from(bits);
        Ok(())
    }

    fn serialize_align(&mut self) -> Result<()> {
        self.align();
        Ok(())
    }

    fn serialize_bytes(&mut self, bytes: &mut [u8]) -> Result<()> {
        self.align();
        self.bits += bytes.len() as u64 * 8;
        Ok(())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn bits_required_matches_the_standard() {
        assert_eq!(bits_required(0), 0);
        assert_eq!(bits_required(1), 1);
        assert_eq!(bits_required(7), 3);
        assert_eq!(bits_required(8), 4);
        assert_eq!(bits_required(200), 8);
        assert_eq!(bits_required(u64::from(u32::MAX)), 32);
        assert_eq!(bits_required(u64::MAX), 64);
    }

    #[test]
    fn measure_bound_charges_seven_bits_per_align() {
        // STANDARD.md's worked example: { bits(8); align; bits(8) }.
        let mut m = MeasureStream::new();
        let mut a = 0u8;
        m.serialize_bits(&mut a, 8).unwrap();
        m.serialize_align().unwrap();
        m.serialize_bits(&mut a, 8).unwrap();
        assert_eq!(m.bits(), 16);
        assert_eq!(m.bound_bits(), 23);

        let mut m = MeasureStream::starting_at(1);
        m.serialize_bits(&mut a, 8).unwrap();
        m.serialize_align().unwrap();
        m.serialize_bits(&mut a, 8).unwrap();
        assert_eq!(m.bits(), 23);
        assert_eq!(m.bound_bits(), 23);
    }

    #[test]
    fn compressed_float_rounds_twice_in_f32() {
        // STANDARD.md: over [0, 10] at 0.01, the f32 arithmetic quantizes
        // 0.005 to 1, 0.025 to 3, 0.105 to 11 and 9.995 to 1000.
        let p = CompressedFloat::new(0.0, 10.0, 0.01).unwrap();
        assert_eq!(p.max_integer_value, 1000);
        assert_eq!(p.bits, 10);
        assert_eq!(p.quantize(0.005), 1);
        assert_eq!(p.quantize(0.025), 3);
        assert_eq!(p.quantize(0.105), 11);
        assert_eq!(p.quantize(9.995), 1000);
        assert_eq!(p.quantize(2.5), 250);
    }
}

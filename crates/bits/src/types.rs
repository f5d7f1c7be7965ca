//! The Source 2 base types, read from a [`BitReader`]: varints, `UBitVar`,
//! the field-path varint, floats, coords, normals, angles, vectors, strings.
//!
//! `docs/formats/source2-base-types.md` describes each one on the wire. The
//! readers agree with the public Source 2 parsers, dotabuff/manta
//! (`reader.go`), demoinfocs-golang (`sendtablescs2/reader.go`) and
//! skadistats/clarity; where those make a choice, the method says which.

use crate::error::{BitError, Result};
use crate::reader::BitReader;

/// Integer bits of a coord.
pub const COORD_INTEGER_BITS: u32 = 14;
/// Fraction bits of a coord.
pub const COORD_FRACTIONAL_BITS: u32 = 5;
/// Resolution of a coord's fraction: 1/32.
pub const COORD_RESOLUTION: f32 = 1.0 / 32.0;
/// Bits of a normal component's magnitude.
pub const NORMAL_FRACTIONAL_BITS: u32 = 11;
/// Divisor of a normal component: `2^11 - 1`.
pub const NORMAL_DENOMINATOR: f32 = ((1u32 << NORMAL_FRACTIONAL_BITS) - 1) as f32;
/// The byte limit of a terminated string ([`BitReader::read_string_terminated`]).
pub const TERMINATED_STRING_LIMIT: usize = 4096;

/// ZigZag-decodes a 32-bit value: 0, -1, 1, -2, ... from 0, 1, 2, 3, ...
#[inline]
pub const fn zigzag_decode32(value: u32) -> i32 {
    ((value >> 1) as i32) ^ -((value & 1) as i32)
}

/// ZigZag-decodes a 64-bit value.
#[inline]
pub const fn zigzag_decode64(value: u64) -> i64 {
    ((value >> 1) as i64) ^ -((value & 1) as i64)
}

/// ZigZag-encodes a 32-bit value.
#[inline]
pub const fn zigzag_encode32(value: i32) -> u32 {
    ((value << 1) ^ (value >> 31)) as u32
}

/// ZigZag-encodes a 64-bit value.
#[inline]
pub const fn zigzag_encode64(value: i64) -> u64 {
    ((value << 1) ^ (value >> 63)) as u64
}

/// [`BitReader::read_varuint32`] byte by byte, near the end of the input.
///
/// The slow paths of the inlined reads are out of line and take the reader
/// by value: a call taking `&mut BitReader` would make the caller's reader
/// escape, and the compiler would then keep it in memory (storing and
/// reloading the lookahead) around every read of a hot loop.
#[cold]
#[inline(never)]
fn varuint32_tail(mut r: BitReader<'_>) -> (BitReader<'_>, Result<u32>) {
    let mut value = 0u32;
    let mut shift = 0u32;
    while shift < 35 {
        let byte = match r.read_u8() {
            Ok(b) => b,
            Err(e) => return (r, Err(e)),
        };
        value |= u32::from(byte & 0x7f).wrapping_shl(shift);
        shift += 7;
        if byte & 0x80 == 0 {
            break;
        }
    }
    (r, Ok(value))
}

/// [`BitReader::read_ubitvar_fieldpath`] bit by bit, near the end of the
/// input (by value, see [`varuint32_tail`]).
#[cold]
#[inline(never)]
fn ubitvar_fieldpath_tail(mut r: BitReader<'_>) -> (BitReader<'_>, Result<u32>) {
    let read = |r: &mut BitReader<'_>| -> Result<u32> {
        for width in [2, 4, 10, 17] {
            if r.read_bool()? {
                return Ok(r.read_bits(width)? as u32);
            }
        }
        Ok(r.read_bits(31)? as u32)
    };
    let value = read(&mut r);
    (r, value)
}

impl BitReader<'_> {
    /// Protobuf-style varint of at most five bytes.
    ///
    /// As in Valve's reader, at most five bytes (35 payload
    /// bits) are read; a fifth byte's continuation bit is ignored and bits above
    /// bit 31 are dropped. That leniency is deliberate: it is what the engine
    /// does.
    #[inline(always)]
    pub fn read_varuint32(&mut self) -> Result<u32> {
        // Fast path: refill, then decode from the lookahead without a
        // branch on the value.
        //
        // The refill comes first and unconditionally. Whether the buffered
        // bits would have sufficed depends on the lengths of the values read
        // before, so a test for it is a branch the CPU mispredicts on mixed
        // input; a refill is a handful of operations and its only branch
        // (eight bytes left?) is taken the same way until the end.
        //
        // A stop is a byte whose bit 7 is clear; the fifth byte stops
        // whatever its bit 7 says (bit 39 is set in `stops`). The first stop
        // ends the varint: the bits up to and including it are the varint's
        // bytes (`stops ^ (stops - 1)`), its index plus one is the length in
        // bits, and the 7-bit groups are gathered with shifts and masks. The
        // length is three operations away from the lookahead, which keeps
        // the chain from one read to the next short.
        if self.refill_first() >= 40 {
            let window = self.peek(40);
            let stops = (!window & 0x80_8080_8080) | 0x80_0000_0000;
            // Up to and including the first stop's bit 7.
            let bytes = window & (stops ^ (stops - 1));
            let value = (bytes & 0x7f)
                | ((bytes >> 1) & (0x7f << 7))
                | ((bytes >> 2) & (0x7f << 14))
                | ((bytes >> 3) & (0x7f << 21))
                | ((bytes >> 4) & (0x7f << 28));
            self.consume(stops.trailing_zeros() + 1);
            // Bits above bit 31 (from the fifth byte) are dropped, as in the
            // byte loop.
            return Ok(value as u32);
        }
        // By value, so the caller's reader never has its address taken and
        // can live in registers (see `varuint32_tail`).
        let (reader, value) = varuint32_tail(self.clone());
        *self = reader;
        value
    }

    /// ZigZag varint.
    #[inline]
    pub fn read_varint32(&mut self) -> Result<i32> {
        Ok(zigzag_decode32(self.read_varuint32()?))
    }

    /// Protobuf-style varint of at most ten bytes.
    ///
    /// An eleventh byte, or a tenth byte with bits above bit 63, is
    /// [`BitError::VarintOverflow`], as for a protobuf varint: a run of
    /// continuation bytes does not read on to the end of the input.
    pub fn read_varuint64(&mut self) -> Result<u64> {
        let start = self.position();
        let mut value = 0u64;
        for index in 0..10u32 {
            let byte = self.read_u8()?;
            if byte < 0x80 {
                if index == 9 && byte > 1 {
                    return Err(BitError::VarintOverflow { bit_offset: start });
                }
                return Ok(value | (u64::from(byte) << (7 * index)));
            }
            value |= u64::from(byte & 0x7f) << (7 * index);
        }
        Err(BitError::VarintOverflow { bit_offset: start })
    }

    /// ZigZag 64-bit varint.
    #[inline]
    pub fn read_varint64(&mut self) -> Result<i64> {
        Ok(zigzag_decode64(self.read_varuint64()?))
    }

    /// Source 2 `UBitVar`: six bits, whose bits 4-5
    /// select 0, 4, 8 or 28 more bits placed above the low four.
    #[inline]
    pub fn read_ubitvar(&mut self) -> Result<u32> {
        // Fast path, branch-free: an unconditional refill (as in
        // `read_varuint32`: whether 34 bits were already buffered depends on
        // the values before), then, with 34 bits buffered, the selector picks
        // the extra width from a packed table [0, 4, 8, 28]. With selector 0
        // the extra part is empty and bits 4-5 of the head are zero, so
        // `(head & 0x0f) | (rest << 4)` covers every case.
        if self.refill_first() >= 34 {
            let window = self.peek(34);
            let head = window as u32 & 0x3f;
            let extra = (0x1C08_0400u32 >> ((head >> 4) * 8)) & 0xff;
            let rest = (window >> 6) as u32 & (((1u64 << extra) - 1) as u32);
            self.consume(6 + extra);
            return Ok((head & 0x0f) | (rest << 4));
        }
        let head = self.read_bits(6)? as u32;
        let extra = match head & 0x30 {
            0x10 => 4,
            0x20 => 8,
            0x30 => 28,
            _ => return Ok(head),
        };
        let rest = self.read_bits(extra)? as u32;
        Ok((head & 0x0f) | (rest << 4))
    }

    /// The field-path varint: a unary prefix
    /// selects 2, 4, 10, 17 or 31 bits.
    #[inline(always)]
    pub fn read_ubitvar_fieldpath(&mut self) -> Result<u32> {
        // Fast path: after an unconditional refill (see `read_varuint32`),
        // prefix and payload (at most 5 + 31 bits) are buffered.
        // The prefix length is the position of the first set bit among the
        // low four (four clear bits select 31).
        if self.refill_first() >= 36 {
            let window = self.peek(36);
            let prefix = (window | 0x10).trailing_zeros();
            // Widths 2, 4, 10, 17, 31 packed six bits apart.
            let width = ((0x1F44_A102u64 >> (prefix * 6)) & 0x3f) as u32;
            // The clear bits and the set bit that ends them; four clear bits
            // have no set bit after them.
            let skip = (prefix + 1).min(4);
            let value = (window >> skip) & ((1u64 << width) - 1);
            self.consume(skip + width);
            return Ok(value as u32);
        }
        let (reader, value) = ubitvar_fieldpath_tail(self.clone());
        *self = reader;
        value
    }

    /// A one-bit unsigned integer.
    #[inline]
    pub fn read_component(&mut self) -> Result<u32> {
        Ok(self.read_bits(1)? as u32)
    }

    /// An IEEE-754 float stored as 32 raw bits (the `float32` and
    /// `noscale` encoders, which are the same thing on the wire).
    #[inline]
    pub fn read_f32(&mut self) -> Result<f32> {
        Ok(f32::from_bits(self.read_u32()?))
    }

    /// A coordinate: integer and fraction
    /// presence bits, a sign, then `14` bits of integer (stored minus one) and
    /// `5` bits of fraction.
    pub fn read_coord(&mut self) -> Result<f32> {
        let has_int = self.read_bool()?;
        let has_frac = self.read_bool()?;
        if !has_int && !has_frac {
            return Ok(0.0);
        }
        let negative = self.read_bool()?;
        let int = if has_int {
            self.read_bits(COORD_INTEGER_BITS)? as u32 + 1
        } else {
            0
        };
        let frac = if has_frac {
            self.read_bits(COORD_FRACTIONAL_BITS)? as u32
        } else {
            0
        };
        let value = int as f32 + frac as f32 * COORD_RESOLUTION;
        Ok(if negative { -value } else { value })
    }

    /// One component of a normal: a sign bit and an
    /// 11-bit magnitude scaled to [0, 1].
    ///
    /// The magnitude is divided by `2^11 - 1`, i.e. multiplied by
    /// `1.0 / (2048.0 - 1.0)`, as manta (`readNormal`) and demoinfocs do.
    pub fn read_normal(&mut self) -> Result<f32> {
        let negative = self.read_bool()?;
        let magnitude = self.read_bits(NORMAL_FRACTIONAL_BITS)? as f32 * (1.0 / NORMAL_DENOMINATOR);
        Ok(if negative { -magnitude } else { magnitude })
    }

    /// A unit vector from two optional normal components and the sign of the
    /// third.
    pub fn read_vec3_normal(&mut self) -> Result<[f32; 3]> {
        let has_x = self.read_bool()?;
        let has_y = self.read_bool()?;
        let x = if has_x { self.read_normal()? } else { 0.0 };
        let y = if has_y { self.read_normal()? } else { 0.0 };
        let negative_z = self.read_bool()?;
        let sum = x * x + y * y;
        let z = if sum < 1.0 { (1.0 - sum).sqrt() } else { 0.0 };
        Ok([x, y, if negative_z { -z } else { z }])
    }

    /// An angle in degrees in [0, 360) from `bits` bits; `bits` must be at
    /// most 32.
    #[inline]
    pub fn read_angle(&mut self, bits: u32) -> Result<f32> {
        if bits > 32 {
            return Err(BitError::TooManyBits { requested: bits });
        }
        let raw = self.read_bits(bits)? as f32;
        Ok(raw * 360.0 / (1u64 << bits) as f32)
    }

    /// A 20-bit angle mapped to [-180, 180).
    #[inline]
    pub fn read_angle_precise(&mut self) -> Result<f32> {
        Ok(self.read_angle(20)? - 180.0)
    }

    /// Three optional precise angles.
    #[inline]
    pub fn read_qangle_precise(&mut self) -> Result<[f32; 3]> {
        // The three presence bits in one read, bit 0 first.
        let present = self.read_bits(3)?;
        let mut out = [0.0; 3];
        for (i, slot) in out.iter_mut().enumerate() {
            if present >> i & 1 == 1 {
                *slot = self.read_angle_precise()?;
            }
        }
        Ok(out)
    }

    /// Three angles of `bits` bits each.
    pub fn read_qangle_fixed(&mut self, bits: u32) -> Result<[f32; 3]> {
        Ok([
            self.read_angle(bits)?,
            self.read_angle(bits)?,
            self.read_angle(bits)?,
        ])
    }

    /// Three optional coords.
    pub fn read_qangle_coord(&mut self) -> Result<[f32; 3]> {
        let present = [self.read_bool()?, self.read_bool()?, self.read_bool()?];
        let mut out = [0.0; 3];
        for (slot, has) in out.iter_mut().zip(present) {
            if has {
                *slot = self.read_coord()?;
            }
        }
        Ok(out)
    }

    /// A vector of `N` floats, each read by `read_one`.
    pub fn read_vector<const N: usize>(
        &mut self,
        mut read_one: impl FnMut(&mut Self) -> Result<f32>,
    ) -> Result<[f32; N]> {
        let mut out = [0.0; N];
        for slot in &mut out {
            *slot = read_one(self)?;
        }
        Ok(out)
    }

    /// Simulation time: a varuint32 tick count
    /// times the tick interval.
    ///
    /// CS2 ticks every 1/64 s; Dota 2 runs at 30 ticks a second (manta
    /// multiplies by 1/30), so the interval is a parameter.
    pub fn read_simulation_time(&mut self, tick_interval: f32) -> Result<f32> {
        Ok(self.read_varuint32()? as f32 * tick_interval)
    }

    /// "Rune time": four bits.
    ///
    /// The four bits are the bit pattern of an `f32`, as manta
    /// (`runeTimeDecoder`) and clarity read them.
    pub fn read_rune_time(&mut self) -> Result<f32> {
        Ok(f32::from_bits(self.read_bits(4)? as u32))
    }

    /// Ammo count: a varuint32 minus one, never
    /// below zero.
    pub fn read_ammo_count(&mut self) -> Result<u32> {
        Ok(self.read_varuint32()?.saturating_sub(1))
    }

    /// A string of exactly `len` bytes, decoded as
    /// UTF-8 with invalid sequences replaced.
    pub fn read_string_fixed(&mut self, len: usize) -> Result<String> {
        let bytes = self.read_bytes(len)?;
        Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// The bytes of a null-terminated string, without the terminator, reading
    /// at most `limit` bytes before the terminator.
    pub fn read_cstring_bytes(&mut self, limit: usize) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        self.read_cstring_bytes_into(limit, &mut out)?;
        Ok(out)
    }

    /// [`BitReader::read_cstring_bytes`], appending to `out` (`limit`
    /// counts the appended bytes). On an error `out` may hold part of the
    /// string.
    pub fn read_cstring_bytes_into(&mut self, limit: usize, out: &mut Vec<u8>) -> Result<()> {
        const ONES: u64 = 0x0101_0101_0101_0101;
        const HIGHS: u64 = 0x8080_8080_8080_8080;
        let start = self.position();
        let base = out.len();
        loop {
            // Fast path: seven buffered bytes at a time, the first zero byte
            // found with a word trick (the lowest flagged byte is exact).
            if self.refill_lookahead() >= 56 {
                let word = self.peek(56) | 0xFF00_0000_0000_0000;
                let zeros = word.wrapping_sub(ONES) & !word & HIGHS;
                let take = (zeros.trailing_zeros() / 8).min(7) as usize;
                if out.len() - base + take <= limit {
                    out.extend_from_slice(&word.to_le_bytes()[..take]);
                    if take < 7 {
                        self.consume((take as u32 + 1) * 8);
                        return Ok(());
                    }
                    self.consume(56);
                    continue;
                }
            }
            // Near the end of the input or of the limit: byte by byte.
            let byte = self.read_u8()?;
            if byte == 0 {
                return Ok(());
            }
            if out.len() - base == limit {
                return Err(BitError::StringTooLong {
                    bit_offset: start,
                    limit,
                });
            }
            out.push(byte);
        }
    }

    /// A null-terminated UTF-8 string; no
    /// limit but the input's end. Invalid UTF-8 is replaced.
    pub fn read_cstring(&mut self) -> Result<String> {
        let bytes = self.read_cstring_bytes(usize::MAX)?;
        Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }

    /// A null-terminated string of at most 4096 bytes A longer string is an error rather than a
    /// silent cut.
    pub fn read_string_terminated(&mut self) -> Result<String> {
        let bytes = self.read_cstring_bytes(TERMINATED_STRING_LIMIT)?;
        Ok(match String::from_utf8(bytes) {
            Ok(s) => s,
            Err(e) => String::from_utf8_lossy(e.as_bytes()).into_owned(),
        })
    }
}

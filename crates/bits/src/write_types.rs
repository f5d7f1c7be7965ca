//! Writer counterparts of the base types in [`crate::types`].
//!
//! Every `read_*` method of [`BitReader`](crate::BitReader) for a Source 2
//! base type has a `write_*` method here that produces exactly the bits the reader
//! consumes. Lossless types (integers, varints, raw floats, strings) round-trip
//! exactly. Lossy types (coord, normal, angles, simulation time) write the
//! nearest encodable value; the `quantize_*` functions return the value the
//! reader will decode, so `read(write(x)) == quantize(x)` holds bit for bit.
//!
//! Quantization rules, and how they relate to the engine:
//!
//! - coord: truncation toward zero to 1/32, as Source's `WriteBitCoord`. Every
//!   coord value is exact in `f32`, so decoded values re-encode to the same bits.
//! - normal and angles: round to the nearest step. (Source's `WriteBitNormal`
//!   and `WriteBitAngle` truncate; truncating a decoded `f32` can land one step
//!   low because `k * (1/2047) * 2047` is not always `k` in `f32`, so we round
//!   to keep re-encoding of decoded values idempotent.)
//!
//! Writers refuse what the reader cannot return: a component above 1, a
//! field-path value of 2^31 or more, a string with an interior NUL, a coord
//! beyond ±16384.97, non-finite floats where a quantized float is expected.

use crate::error::{BitError, Result};
use crate::types::{
    zigzag_encode32, zigzag_encode64, COORD_FRACTIONAL_BITS, COORD_INTEGER_BITS, COORD_RESOLUTION,
    NORMAL_DENOMINATOR, NORMAL_FRACTIONAL_BITS, TERMINATED_STRING_LIMIT,
};
use crate::writer::BitWriter;

/// Largest magnitude a coord can carry: 2^14 integer steps (stored minus one)
/// plus 31/32.
pub const COORD_MAX: f32 = (1u32 << COORD_INTEGER_BITS) as f32 + 31.0 * COORD_RESOLUTION;

/// The coord the reader decodes after [`BitWriter::write_coord`]`(value)`:
/// `value` truncated toward zero to a multiple of 1/32. `None` when the value
/// is not encodable (non-finite, or magnitude above [`COORD_MAX`]).
pub fn quantize_coord(value: f32) -> Option<f32> {
    let (negative, int, frac) = coord_parts(value)?;
    if int == 0 && frac == 0 {
        return Some(0.0);
    }
    let magnitude = int as f32 + frac as f32 * COORD_RESOLUTION;
    Some(if negative { -magnitude } else { magnitude })
}

/// Sign, integer part (1-based, 0 = absent) and 5-bit fraction of a coord.
fn coord_parts(value: f32) -> Option<(bool, u32, u32)> {
    if !value.is_finite() || value.abs() > COORD_MAX {
        return None;
    }
    // |value| * 32 is exact in f32 (a power-of-two scale); truncate it.
    let steps = (value.abs() * 32.0) as u32;
    Some((value < 0.0, steps >> COORD_FRACTIONAL_BITS, steps & 31))
}

/// The 11-bit magnitude of a normal component, rounded to the nearest step
/// and clamped to 1.
fn normal_magnitude(value: f32) -> u32 {
    let max = (1u32 << NORMAL_FRACTIONAL_BITS) - 1;
    let scaled = (f64::from(value.abs()) * f64::from(NORMAL_DENOMINATOR)).round();
    if scaled.is_nan() {
        return 0;
    }
    // Saturating float-to-int cast, then clamp to the 11-bit maximum.
    (scaled as u32).min(max)
}

/// The normal component the reader decodes after
/// [`BitWriter::write_normal`]`(value)`. `None` for NaN.
pub fn quantize_normal(value: f32) -> Option<f32> {
    if value.is_nan() {
        return None;
    }
    let magnitude = normal_magnitude(value);
    let decoded = magnitude as f32 * (1.0 / NORMAL_DENOMINATOR);
    Some(if value < 0.0 && magnitude != 0 {
        -decoded
    } else {
        decoded
    })
}

/// The vector the reader decodes after [`BitWriter::write_vec3_normal`]`(v)`.
/// `None` when a component is NaN.
pub fn quantize_vec3_normal(value: [f32; 3]) -> Option<[f32; 3]> {
    if value.iter().any(|c| c.is_nan()) {
        return None;
    }
    let x = quantize_normal(value[0])?;
    let y = quantize_normal(value[1])?;
    let sum = x * x + y * y;
    let z = if sum < 1.0 { (1.0 - sum).sqrt() } else { 0.0 };
    Some([x, y, if value[2] < 0.0 { -z } else { z }])
}

/// The raw `bits`-bit step of an angle in degrees: wrapped into [0, 360) and
/// rounded to the nearest of `2^bits` steps.
fn angle_step(value: f32, bits: u32) -> Option<u64> {
    if !value.is_finite() || bits > 32 {
        return None;
    }
    let steps = 1u64 << bits;
    let turns = f64::from(value).rem_euclid(360.0) / 360.0;
    // turns in [0, 1]; the product fits u64 and wraps 360 back to step 0.
    Some(((turns * steps as f64).round() as u64) % steps)
}

/// The angle the reader decodes after [`BitWriter::write_angle`]`(value,
/// bits)`. `None` when not encodable (non-finite, or `bits > 32`).
pub fn quantize_angle(value: f32, bits: u32) -> Option<f32> {
    let raw = angle_step(value, bits)?;
    Some(raw as f32 * 360.0 / (1u64 << bits) as f32)
}

/// The angle the reader decodes after
/// [`BitWriter::write_angle_precise`]`(value)`.
pub fn quantize_angle_precise(value: f32) -> Option<f32> {
    Some(quantize_angle(value + 180.0, 20)? - 180.0)
}

impl BitWriter {
    /// Protobuf-style varint, 1 to 5 bytes (inverse of
    /// [`BitReader::read_varuint32`](crate::BitReader::read_varuint32)).
    #[inline]
    pub fn write_varuint32(&mut self, value: u32) {
        self.write_varuint64(u64::from(value));
    }

    /// ZigZag varint (inverse of `read_varint32`).
    #[inline]
    pub fn write_varint32(&mut self, value: i32) {
        self.write_varuint32(zigzag_encode32(value));
    }

    /// Protobuf-style varint, 1 to 10 bytes (inverse of `read_varuint64`).
    #[inline]
    pub fn write_varuint64(&mut self, mut value: u64) {
        if value < 0x80 {
            self.write_bits_unchecked(value, 8);
            return;
        }
        // The bytes gathered four at a time into one word (least significant
        // byte first, as written one by one): most varints are one write.
        loop {
            let mut word = 0u64;
            let mut bits = 0;
            while bits < 32 {
                if value < 0x80 {
                    word |= value << bits;
                    self.write_bits_unchecked(word, bits + 8);
                    return;
                }
                word |= ((value & 0x7f) | 0x80) << bits;
                value >>= 7;
                bits += 8;
            }
            self.write_bits_unchecked(word, 32);
        }
    }

    /// ZigZag 64-bit varint (inverse of `read_varint64`).
    #[inline]
    pub fn write_varint64(&mut self, value: i64) {
        self.write_varuint64(zigzag_encode64(value));
    }

    /// Source 2 `UBitVar` in its shortest form: 6, 10, 14 or 34 bits (inverse
    /// of `read_ubitvar`).
    pub fn write_ubitvar(&mut self, value: u32) {
        let low = u64::from(value & 0x0f);
        let high = u64::from(value >> 4);
        if value < 0x10 {
            self.write_bits_u32(low, 6);
        } else if value < 0x100 {
            self.write_bits_u32(low | 0x10 | (high << 6), 10);
        } else if value < 0x1000 {
            self.write_bits_u32(low | 0x20 | (high << 6), 14);
        } else {
            self.write_bits_u32(low | 0x30, 6);
            self.write_bits_u32(high, 28);
        }
    }

    /// The field-path varint in its shortest form (inverse of
    /// `read_ubitvar_fieldpath`). Values of 2^31 and above do not fit.
    pub fn write_ubitvar_fieldpath(&mut self, value: u32) -> Result<()> {
        // (prefix, prefix bits, payload bits): the prefix is unary, LSB first.
        let (prefix, prefix_bits, width) = match value {
            0..=0x3 => (0b1, 1, 2),
            0x4..=0xf => (0b10, 2, 4),
            0x10..=0x3ff => (0b100, 3, 10),
            0x400..=0x1_ffff => (0b1000, 4, 17),
            0x2_0000..=0x7fff_ffff => (0b0000, 4, 31),
            _ => {
                return Err(BitError::Unencodable(
                    "field-path ubitvar holds at most 31 bits",
                ))
            }
        };
        self.write_bits_u32(prefix, prefix_bits);
        self.write_bits(u64::from(value), width)
    }

    /// A one-bit unsigned integer (inverse of `read_component`); 0 or 1.
    pub fn write_component(&mut self, value: u32) -> Result<()> {
        if value > 1 {
            return Err(BitError::Unencodable("a component is a single bit"));
        }
        self.write_bool(value == 1);
        Ok(())
    }

    /// An `f32` as its 32 raw bits (inverse of `read_f32`; every bit pattern,
    /// NaN payloads included, survives).
    #[inline]
    pub fn write_f32(&mut self, value: f32) {
        self.write_u32(value.to_bits());
    }

    /// A coordinate (inverse of `read_coord`), truncated toward zero to 1/32;
    /// see [`quantize_coord`]. Fails for non-finite values and magnitudes
    /// above [`COORD_MAX`].
    pub fn write_coord(&mut self, value: f32) -> Result<()> {
        let (negative, int, frac) =
            coord_parts(value).ok_or(BitError::Unencodable("coord out of range or not finite"))?;
        self.write_bool(int != 0);
        self.write_bool(frac != 0);
        if int == 0 && frac == 0 {
            return Ok(());
        }
        self.write_bool(negative);
        if int != 0 {
            self.write_bits_u32(u64::from(int - 1), COORD_INTEGER_BITS);
        }
        if frac != 0 {
            self.write_bits_u32(u64::from(frac), COORD_FRACTIONAL_BITS);
        }
        Ok(())
    }

    /// One normal component (inverse of `read_normal`): a sign and an 11-bit
    /// magnitude, rounded to the nearest step and clamped to [-1, 1]; see
    /// [`quantize_normal`]. Fails for NaN.
    pub fn write_normal(&mut self, value: f32) -> Result<()> {
        if value.is_nan() {
            return Err(BitError::Unencodable("normal component is NaN"));
        }
        let magnitude = normal_magnitude(value);
        self.write_bool(value < 0.0 && magnitude != 0);
        self.write_bits_u32(u64::from(magnitude), NORMAL_FRACTIONAL_BITS);
        Ok(())
    }

    /// A unit vector (inverse of `read_vec3_normal`): x and y when their
    /// quantized magnitude is non-zero, then the sign of z; see
    /// [`quantize_vec3_normal`].
    pub fn write_vec3_normal(&mut self, value: [f32; 3]) -> Result<()> {
        if value.iter().any(|c| c.is_nan()) {
            return Err(BitError::Unencodable("normal vector has a NaN component"));
        }
        let has_x = normal_magnitude(value[0]) != 0;
        let has_y = normal_magnitude(value[1]) != 0;
        self.write_bool(has_x);
        self.write_bool(has_y);
        if has_x {
            self.write_normal(value[0])?;
        }
        if has_y {
            self.write_normal(value[1])?;
        }
        self.write_bool(value[2] < 0.0);
        Ok(())
    }

    /// An angle in degrees in `bits` bits (inverse of `read_angle`), wrapped
    /// into [0, 360) and rounded to the nearest step; see [`quantize_angle`].
    pub fn write_angle(&mut self, value: f32, bits: u32) -> Result<()> {
        if bits > 32 {
            return Err(BitError::TooManyBits { requested: bits });
        }
        let raw = angle_step(value, bits).ok_or(BitError::Unencodable("angle is not finite"))?;
        self.write_bits(raw, bits)
    }

    /// A 20-bit angle in [-180, 180) (inverse of `read_angle_precise`).
    pub fn write_angle_precise(&mut self, value: f32) -> Result<()> {
        self.write_angle(value + 180.0, 20)
    }

    /// Three optional precise angles (inverse of `read_qangle_precise`): a
    /// component equal to 0.0 is left out.
    pub fn write_qangle_precise(&mut self, value: [f32; 3]) -> Result<()> {
        for component in value {
            self.write_bool(component != 0.0);
        }
        for component in value {
            if component != 0.0 {
                self.write_angle_precise(component)?;
            }
        }
        Ok(())
    }

    /// Three angles of `bits` bits (inverse of `read_qangle_fixed`).
    pub fn write_qangle_fixed(&mut self, value: [f32; 3], bits: u32) -> Result<()> {
        for component in value {
            self.write_angle(component, bits)?;
        }
        Ok(())
    }

    /// Three optional coords (inverse of `read_qangle_coord`): a component
    /// equal to 0.0 is left out.
    pub fn write_qangle_coord(&mut self, value: [f32; 3]) -> Result<()> {
        for component in value {
            self.write_bool(component != 0.0);
        }
        for component in value {
            if component != 0.0 {
                self.write_coord(component)?;
            }
        }
        Ok(())
    }

    /// A vector of `N` floats, each written by `write_one` (inverse of
    /// `read_vector`).
    pub fn write_vector<const N: usize>(
        &mut self,
        value: [f32; N],
        mut write_one: impl FnMut(&mut Self, f32) -> Result<()>,
    ) -> Result<()> {
        for component in value {
            write_one(self, component)?;
        }
        Ok(())
    }

    /// Simulation time (inverse of `read_simulation_time`): `value /
    /// tick_interval` rounded to a whole tick, as a varuint32. The reader
    /// decodes `ticks as f32 * tick_interval`.
    pub fn write_simulation_time(&mut self, value: f32, tick_interval: f32) -> Result<()> {
        let ticks = (f64::from(value) / f64::from(tick_interval)).round();
        if !(0.0..=f64::from(u32::MAX)).contains(&ticks) {
            return Err(BitError::Unencodable(
                "simulation time is negative, not finite or beyond u32 ticks",
            ));
        }
        self.write_varuint32(ticks as u32);
        Ok(())
    }

    /// "Rune time" (inverse of `read_rune_time`): the four low bits of the
    /// `f32`'s bit pattern. Only the sixteen values `f32::from_bits(0..16)`
    /// are encodable; anything else is an error.
    pub fn write_rune_time(&mut self, value: f32) -> Result<()> {
        let bits = value.to_bits();
        if bits >= 16 {
            return Err(BitError::Unencodable(
                "rune time carries only the 4 low bits of an f32",
            ));
        }
        self.write_bits_u32(u64::from(bits), 4);
        Ok(())
    }

    /// Ammo count (inverse of `read_ammo_count`): `value + 1` as a varuint32.
    pub fn write_ammo_count(&mut self, value: u32) -> Result<()> {
        let stored = value
            .checked_add(1)
            .ok_or(BitError::Unencodable("ammo count too large"))?;
        self.write_varuint32(stored);
        Ok(())
    }

    /// The bytes of a fixed-length string (inverse of `read_string_fixed`
    /// with `len == value.len()`).
    pub fn write_string_fixed(&mut self, value: &str) {
        self.write_bytes(value.as_bytes());
    }

    /// The bytes of `value` and a NUL (inverse of `read_cstring_bytes` with
    /// a limit of at least `value.len()`). An interior NUL is an error.
    pub fn write_cstring_bytes(&mut self, value: &[u8]) -> Result<()> {
        if value.contains(&0) {
            return Err(BitError::Unencodable("string contains a NUL byte"));
        }
        self.write_bytes(value);
        self.write_u8(0);
        Ok(())
    }

    /// A null-terminated string (inverse of `read_cstring`).
    pub fn write_cstring(&mut self, value: &str) -> Result<()> {
        self.write_cstring_bytes(value.as_bytes())
    }

    /// A null-terminated string of at most 4096 bytes (inverse of
    /// `read_string_terminated`); longer is an error.
    pub fn write_string_terminated(&mut self, value: &str) -> Result<()> {
        if value.len() > TERMINATED_STRING_LIMIT {
            return Err(BitError::Unencodable(
                "terminated string longer than 4096 bytes",
            ));
        }
        self.write_cstring_bytes(value.as_bytes())
    }

    /// Writes at most 32 bits known to fit in `count` bits.
    #[inline(always)]
    fn write_bits_u32(&mut self, value: u64, count: u32) {
        debug_assert!(count <= 32 && value >> count == 0);
        self.write_bits_unchecked(value, count);
    }
}

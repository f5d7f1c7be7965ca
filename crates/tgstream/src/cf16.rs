//! CompressedFloat16: Bridge Commander's 16-bit logarithmic float.
//!
//! # Layout
//!
//! ```text
//! bit 15      14..12        11..0
//!     [sign:1][scale:3]     [mantissa:12]
//! ```
//!
//! The scale picks one of eight decades; the mantissa is the position inside
//! it, in 4095 equal steps:
//!
//! | scale | lo      | hi        |
//! |-------|---------|-----------|
//! | 0     | 0       | 0.001     |
//! | 1     | 0.001   | 0.01      |
//! | …     | …       | …         |
//! | 7     | 1000    | 10000     |
//!
//! The bounds are not the decimal numbers in the table but what the game gets
//! by multiplying in `f32`: `hi(0) = BASE`, `hi(k+1) = f32(hi(k) * 10)`,
//! `lo(k) = hi(k-1)` (so `hi(3)` is `1.0000001`, not `1.0`).
//!
//! # Encoding (the game's `FUN_006d3a90`)
//!
//! 1. A value below zero sets the sign bit and is negated.
//! 2. The scale is the first `k` in `0..8` with `value < hi(k)`.
//! 3. With no such `k` (10000.001 or more, infinity, NaN) the result clamps to
//!    scale 7, mantissa `0xFFF`: `0x7FFF`, or `0xFFFF` with the sign.
//! 4. `mantissa = trunc(f32((value - lo) / (hi - lo)) * 4095.0)`, at most 4095.
//!
//! Truncation makes the code round down: a decoded value is at most the
//! input and at most one mantissa step below it, up to float32 rounding.
//! Measured over every `f32` in `[0, 10000]` (1,176,256,513 values, test
//! `tests/cf16_exhaustive.rs`): 11,065 inputs decode up to 2 ulps *above*
//! themselves (inputs on a mantissa grid point, lifted by `f32(1/4095)`
//! being slightly more than `1/4095`), and 434 decode more than one step
//! below, by less than one extra ulp (grid points where `frac * 4095` rounds
//! just under the integer before truncation). These counts are for float32
//! arithmetic; the stock binary's x87 intermediates were not measured.
//!
//! # Decoding (`FUN_006d3b30`)
//!
//! `value = (hi - lo) * mantissa * DECODE_SCALE + lo`, in `f32`, left to
//! right, negated when the sign bit is set. `DECODE_SCALE` is `f32(1/4095)`,
//! not `1/4096`: mantissa 4095 decodes to the top of its decade.
//!
//! # Arithmetic
//!
//! Everything is IEEE `f32` with round-to-nearest, which is what the corpus
//! column `enc_f32`/`dec_f32` of `shared/corpus/bc/cf16_vectors.json` holds.
//! The stock binary runs on the x87 FPU with wider intermediates; the corpus
//! column `enc_x87` shows that this changes a result only on a decade boundary
//! (for example the decimal 0.001).
//!
//! # `encode` and `encode_exact`
//!
//! [`Cf16::encode`] takes an `f32`, as the game's function does.
//! [`Cf16::encode_exact`] takes an `f64` and picks the scale by comparing that
//! exact value with the bounds before rounding it to `f32` for the mantissa.
//! The two differ only for a value that lies below a bound but rounds to it in
//! `f32`: the decimal `0.001` is below `BASE` (`0x3A83126F` =
//! 0.0010000000475), so `encode_exact(0.001)` is `0x0FFF` (scale 0, full
//! mantissa, the corpus value), while `encode(0.001f32)` gets `BASE` itself,
//! which starts scale 1: `0x1000`.
//!
//! Sources (facts only): constants and algorithm from
//! SandboxServers/STBC-Dedicated-Server `docs/protocol/stream-primitives.md`
//! and `docs/protocol/cf16-precision-analysis.md` (the `.rdata` bytes
//! `6F 12 83 3A`, `00 00 20 41`, `00 F0 7F 45`, `01 08 80 39`); summed up in
//! `docs/formats/tgbufferstream.md`.

use std::fmt;

/// The top of decade 0, `0.001` as `f32` (`.rdata` `DAT_00888b4c`, bytes `6F 12 83 3A`).
pub const BASE: f32 = f32::from_bits(0x3A83_126F);
/// The decade multiplier, `10.0` (`DAT_0088c548`).
pub const MULT: f32 = 10.0;
/// The encoder's mantissa scale, `4095.0` (`DAT_00895f50`).
pub const ENCODE_SCALE: f32 = 4095.0;
/// The decoder's mantissa scale, `f32(1/4095)` (`DAT_00895f54`, bytes `01 08 80 39`).
pub const DECODE_SCALE: f32 = f32::from_bits(0x3980_0801);
/// The largest mantissa.
pub const MAX_MANTISSA: u16 = 0x0FFF;
/// The code for any value too large to encode (and NaN): scale 7, mantissa 4095.
pub const OVERFLOW: u16 = 0x7FFF;
/// The sign bit.
pub const SIGN_BIT: u16 = 0x8000;

/// The `f32` bounds `(lo, hi)` of the eight decades, computed at compile time
/// the way the game computes them at run time: `hi(0) = BASE`,
/// `hi(k+1) = hi(k) * MULT` in `f32`, `lo(k) = hi(k-1)`. (IEEE `f32`
/// multiplication is exact-rounded, so the table holds the same bits.)
pub const DECADES: [(f32, f32); 8] = {
    let mut table = [(0.0f32, BASE); 8];
    let mut k = 1;
    while k < 8 {
        let lo = table[k - 1].1;
        table[k] = (lo, lo * MULT);
        k += 1;
    }
    table
};

/// The `f32` bounds `(lo, hi)` of a decade, as the game computes them.
///
/// `scale` is taken modulo 8 (only the low 3 bits exist on the wire).
#[must_use]
pub fn decade(scale: u8) -> (f32, f32) {
    DECADES[usize::from(scale & 7)]
}

/// A CompressedFloat16 code as it travels on the wire (little-endian `u16`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Cf16(u16);

impl Cf16 {
    /// Wraps a raw wire code.
    #[must_use]
    pub const fn from_bits(bits: u16) -> Self {
        Cf16(bits)
    }

    /// The raw wire code.
    #[must_use]
    pub const fn to_bits(self) -> u16 {
        self.0
    }

    /// Whether the sign bit (15) is set.
    #[must_use]
    pub const fn is_negative(self) -> bool {
        self.0 & SIGN_BIT != 0
    }

    /// The decade, bits 14..12.
    #[must_use]
    pub const fn scale(self) -> u8 {
        ((self.0 >> 12) & 7) as u8
    }

    /// The mantissa, bits 11..0.
    #[must_use]
    pub const fn mantissa(self) -> u16 {
        self.0 & MAX_MANTISSA
    }

    /// Encodes an `f32` exactly as the game does (see the module docs).
    #[must_use]
    pub fn encode(value: f32) -> Self {
        let negative = value < 0.0;
        let magnitude = if negative { -value } else { value };
        encode_parts(negative, magnitude, |hi| magnitude < hi)
    }

    /// Encodes a decimal value given in `f64`: the scale is chosen by the
    /// exact value, the mantissa is computed in `f32` (see the module docs).
    ///
    /// For every `f64` that is exactly an `f32`, this equals
    /// [`Cf16::encode`].
    #[must_use]
    pub fn encode_exact(value: f64) -> Self {
        let negative = value < 0.0;
        let exact = if negative { -value } else { value };
        #[allow(clippy::cast_possible_truncation)]
        let magnitude = exact as f32;
        encode_parts(negative, magnitude, |hi| exact < f64::from(hi))
    }

    /// Decodes to `f32` exactly as the game does.
    #[must_use]
    pub fn decode(self) -> f32 {
        let (lo, hi) = decade(self.scale());
        let value = (hi - lo) * f32::from(self.mantissa()) * DECODE_SCALE + lo;
        if self.is_negative() {
            -value
        } else {
            value
        }
    }

    /// The size of one mantissa step in this code's decade, `(hi - lo) / 4095`.
    #[must_use]
    pub fn step(self) -> f32 {
        let (lo, hi) = decade(self.scale());
        (hi - lo) / ENCODE_SCALE
    }
}

/// Scale search, overflow clamp and truncated mantissa, shared by both encoders.
///
/// `below(hi)` answers "is the input below this decade's top?".
fn encode_parts(negative: bool, magnitude: f32, below: impl Fn(f32) -> bool) -> Cf16 {
    let sign = if negative { SIGN_BIT } else { 0 };
    for (scale, &(lo, hi)) in (0u16..).zip(DECADES.iter()) {
        if below(hi) {
            let frac = (magnitude - lo) / (hi - lo);
            // `as` truncates toward zero like the game's `__ftol`; it also
            // saturates, so no input can produce a mantissa outside 0..=4095
            // after the `min`.
            #[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss)]
            let mantissa = ((frac * ENCODE_SCALE) as u16).min(MAX_MANTISSA);
            return Cf16(sign | (scale << 12) | mantissa);
        }
    }
    Cf16(sign | OVERFLOW)
}

impl From<Cf16> for f32 {
    fn from(code: Cf16) -> f32 {
        code.decode()
    }
}

impl fmt::Display for Cf16 {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:#06x} ({})", self.0, self.decode())
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
mod tests {
    use super::*;

    #[test]
    fn constants_are_the_rdata_values() {
        assert_eq!(BASE, 0.001f32);
        #[allow(clippy::cast_possible_truncation)]
        let inverse = (1.0f64 / 4095.0) as f32;
        assert_eq!(DECODE_SCALE, inverse);
        assert_eq!(ENCODE_SCALE.to_bits(), 0x457F_F000);
        assert_eq!(MULT.to_bits(), 0x4120_0000);
    }

    #[test]
    fn decade_table_equals_the_run_time_iteration() {
        let mut lo = 0.0f32;
        let mut hi = BASE;
        for scale in 0..8u8 {
            assert_eq!(decade(scale).0.to_bits(), lo.to_bits(), "lo({scale})");
            assert_eq!(decade(scale).1.to_bits(), hi.to_bits(), "hi({scale})");
            lo = hi;
            hi = lo * MULT;
        }
    }

    #[test]
    fn decade_tops_are_iterated_in_f32() {
        assert_eq!(decade(0), (0.0, BASE));
        assert_eq!(decade(3).1, f32::from_bits(0x3F80_0001)); // 1.0000001
        assert_eq!(decade(4).0, decade(3).1);
        assert_eq!(decade(8), decade(0));
    }

    #[test]
    fn clamps_out_of_range_input() {
        assert_eq!(Cf16::encode(12345.0).to_bits(), 0x7FFF);
        assert_eq!(Cf16::encode(-12345.0).to_bits(), 0xFFFF);
        assert_eq!(Cf16::encode(f32::INFINITY).to_bits(), 0x7FFF);
        assert_eq!(Cf16::encode(f32::NEG_INFINITY).to_bits(), 0xFFFF);
        assert_eq!(Cf16::encode(f32::NAN).to_bits(), 0x7FFF);
        assert_eq!(Cf16::encode(-0.0).to_bits(), 0x0000);
        // The top of decade 7 is 10000.001 in f32; that value itself overflows.
        assert_eq!(Cf16::encode(decade(7).1).to_bits(), 0x7FFF);
        assert_eq!(Cf16::encode(10000.0).to_bits(), 0x7FFE);
    }

    #[test]
    fn boundary_value_differs_between_f32_and_exact_input() {
        assert_eq!(Cf16::encode(0.001).to_bits(), 0x1000);
        assert_eq!(Cf16::encode_exact(0.001).to_bits(), 0x0FFF);
        assert_eq!(Cf16::encode_exact(f64::from(BASE)).to_bits(), 0x1000);
    }

    #[test]
    fn every_code_decodes_sign_symmetrically() {
        for bits in 0..SIGN_BIT {
            let pos = Cf16::from_bits(bits).decode();
            let neg = Cf16::from_bits(bits | SIGN_BIT).decode();
            assert_eq!(neg.to_bits(), (-pos).to_bits(), "code {bits:#06x}");
            assert!(pos >= 0.0 && pos.is_finite());
        }
    }

    #[test]
    fn decoding_increases_within_each_decade_and_overlaps_a_hair_at_the_top() {
        for scale in 0u16..8 {
            let mut previous = -1.0f32;
            for mantissa in 0..=MAX_MANTISSA {
                let value = Cf16::from_bits(scale << 12 | mantissa).decode();
                assert!(value > previous, "scale {scale} mantissa {mantissa}");
                previous = value;
            }
            // Mantissa 4095 decodes to the decade top; because f32(1/4095) is
            // slightly above 1/4095 it lands a few ulps above the first code
            // of the next decade, which decodes to that top exactly.
            let (_, hi) = decade(u8::try_from(scale).unwrap());
            assert!(previous >= hi);
            assert!(previous - hi <= hi * f32::EPSILON * 4.0, "scale {scale}");
            if scale < 7 {
                assert_eq!(Cf16::from_bits((scale + 1) << 12).decode(), hi);
            }
        }
    }
}

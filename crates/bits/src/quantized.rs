//! Source 2 quantized floats (`CNetworkedQuantizedFloat`; see
//! `docs/formats/source2-base-types.md`).
//!
//! A field declares a bit count, a low and high value and encode flags. The
//! engine maps `[low, high]` onto `2^bits` steps; flags add one-bit escapes for
//! the exact low value, the exact high value, and exact zero, or stretch the
//! range so integers are exact.
//!
//! The complete setup, the *integers* case included, as in demoinfocs-golang
//! `quantizedfloat.go`, demofile-net `QuantizedFloatEncoding.cs` and clarity
//! `FloatQuantizedDecoder.java`, is:
//!
//! 1. Bit count 0 or >= 32: no quantization, the value is a raw `f32`.
//! 2. Defaults: low 0.0, high 1.0, flags 0.
//! 3. Flag recomputation (in this order): drop *zero* when rounding down from
//!    a low of 0 or rounding up to a high of 0; with *zero* set, a low of 0
//!    becomes *round down* and a high of 0 becomes *round up*; drop *zero* when
//!    the range does not span 0; *integers* clears every other flag; *round
//!    down* with *round up* is an error.
//! 4. Steps are `2^bits`. Rounding down lowers high by `range / steps`;
//!    rounding up raises low by the same.
//! 5. *Integers*: `delta = max(high - low, 1)`, `range = 2^ceil(log2(delta))`;
//!    grow the bit count until `2^bits > range`; then
//!    `offset = range / steps` and `high = low + range - offset`.
//! 6. `high_low_mul = max_int / (high - low)`, shrunk by 0.9999, 0.99, 0.9,
//!    0.8, 0.7 until `high_low_mul * range` no longer exceeds `max_int`, and
//!    `dec_mul = 1 / (steps - 1)`.
//! 7. A flag whose special value already quantizes exactly is dropped.
//!
//! Decode reads the escape bits that remain (round down, round up, zero, in
//! that order), then `bits` bits `v`, and returns `low + v * (high - low) *
//! dec_mul`. Here that is `v * scale + low` with a precomputed `scale`, as
//! one fused multiply-add in double precision, then rounded to `f32`: the
//! peers evaluate the product in `f32` in varying orders and differ from each
//! other by an ulp; the double-precision form is off the exact value by
//! at most half an `f64` ulp before its one rounding to `f32`, so integers
//! under *encode integers* come out exact (see
//! [`QuantizedFloat::value_of_step`] for how the multiply-add is done without
//! a library call).

use crate::error::{BitError, Result};
use crate::reader::BitReader;
use crate::writer::BitWriter;

/// The value is exactly `low` when the escape bit is set.
pub const QFF_ROUND_DOWN: u32 = 1 << 0;
/// The value is exactly `high` when the escape bit is set.
pub const QFF_ROUND_UP: u32 = 1 << 1;
/// The value is exactly zero when the escape bit is set.
pub const QFF_ENCODE_ZERO_EXACTLY: u32 = 1 << 2;
/// The range is stretched so integers are exact.
pub const QFF_ENCODE_INTEGERS_EXACTLY: u32 = 1 << 3;

/// The rounding error of `product`, the double nearest `a * b`: the exact
/// `a * b - product`, by Dekker's product of halves (no fused multiply-add).
/// `None` where the halves could overflow or lose bits to underflow.
fn product_error(a: f64, b: f64, product: f64) -> Option<f64> {
    if a == 0.0 && b.is_finite() {
        return Some(0.0);
    }
    const BIG: f64 = 1e250;
    const SMALL: f64 = 1e-250;
    if !(a.abs() < BIG && b.abs() < BIG && product.abs() > SMALL) {
        return None;
    }
    // Veltkamp's split: `x == high + low`, each half 26 bits or fewer, so
    // the products of halves are exact.
    let split = |x: f64| {
        let c = 134_217_729.0 * x; // 2^27 + 1
        let high = c - (c - x);
        (high, x - high)
    };
    let (ah, al) = split(a);
    let (bh, bl) = split(b);
    Some(((ah * bh - product) + ah * bl + al * bh) + al * bl)
}

/// A quantized float decoder, set up once per field.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct QuantizedFloat {
    /// Bits of the quantized value (32 for a raw float).
    pub bit_count: u32,
    /// Effective flags after recomputation.
    pub flags: u32,
    /// Effective low value.
    pub low: f32,
    /// Effective high value.
    pub high: f32,
    /// Multiplier from value to step (used by the encoder).
    pub high_low_mul: f32,
    /// `1 / (steps - 1)`.
    pub dec_mul: f32,
    /// `(high - low) / (steps - 1)` in double precision: the decode multiplier.
    pub scale: f64,
    /// True when values are raw 32-bit floats.
    pub no_scale: bool,
}

impl QuantizedFloat {
    /// Sets up a decoder from a field's optional parameters; `None` takes the
    /// engine's default (bit count 0, flags 0, low 0.0, high 1.0).
    pub fn new(
        bit_count: Option<i32>,
        flags: Option<i32>,
        low: Option<f32>,
        high: Option<f32>,
    ) -> Result<Self> {
        let bits = bit_count.unwrap_or(0);
        if bits <= 0 || bits >= 32 {
            return Ok(QuantizedFloat {
                bit_count: 32,
                flags: 0,
                low: 0.0,
                high: 1.0,
                high_low_mul: 0.0,
                dec_mul: 0.0,
                scale: 0.0,
                no_scale: true,
            });
        }
        let mut bit_count = bits as u32;
        let mut low = low.unwrap_or(0.0);
        let mut high = high.unwrap_or(1.0);
        if !low.is_finite() || !high.is_finite() {
            return Err(BitError::InvalidEncoding(
                "quantized float bounds are not finite",
            ));
        }
        let mut flags = validate_flags(flags.unwrap_or(0) as u32, low, high)?;

        let mut steps = 1u32 << bit_count;
        if flags & QFF_ROUND_DOWN != 0 {
            high -= (high - low) / steps as f32;
        } else if flags & QFF_ROUND_UP != 0 {
            low += (high - low) / steps as f32;
        }
        if flags & QFF_ENCODE_INTEGERS_EXACTLY != 0 {
            let delta = (high - low).max(1.0);
            let log2 = f64::from(delta).log2().ceil();
            if log2 > 30.0 {
                return Err(BitError::InvalidEncoding(
                    "quantized float integer range too large",
                ));
            }
            let range = 1u32 << (log2 as u32);
            while bit_count < 31 && (1u32 << bit_count) <= range {
                bit_count += 1;
            }
            steps = 1u32 << bit_count;
            let offset = range as f32 / steps as f32;
            high = low + range as f32 - offset;
        }

        let high_low_mul = assign_multiplier(bit_count, high - low)?;
        let dec_mul = 1.0 / (steps - 1) as f32;
        let mut qf = QuantizedFloat {
            bit_count,
            flags,
            low,
            high,
            high_low_mul,
            dec_mul,
            scale: f64::from(high - low) / f64::from(steps - 1),
            no_scale: false,
        };
        if flags & QFF_ROUND_DOWN != 0 && qf.quantize(low) == low {
            flags &= !QFF_ROUND_DOWN;
        }
        if flags & QFF_ROUND_UP != 0 && qf.quantize(high) == high {
            flags &= !QFF_ROUND_UP;
        }
        if flags & QFF_ENCODE_ZERO_EXACTLY != 0 && qf.quantize(0.0) == 0.0 {
            flags &= !QFF_ENCODE_ZERO_EXACTLY;
        }
        qf.flags = flags;
        Ok(qf)
    }

    /// The value the engine would transmit for `value`, as the decoder will
    /// see it.
    pub fn quantize(&self, value: f32) -> f32 {
        if value < self.low {
            return self.low;
        }
        if value > self.high {
            return self.high;
        }
        let step = ((value - self.low) * self.high_low_mul) as u32;
        self.low + (self.high - self.low) * (step as f32 * self.dec_mul)
    }

    /// The step index for `value` (clamped to the range), for encoders.
    pub fn step_of(&self, value: f32) -> u32 {
        let clamped = value.clamp(self.low, self.high);
        let max = if self.bit_count >= 32 {
            u32::MAX
        } else {
            (1u32 << self.bit_count) - 1
        };
        (((clamped - self.low) * self.high_low_mul) as u32).min(max)
    }

    /// Decodes one value.
    #[inline]
    pub fn decode(&self, reader: &mut BitReader<'_>) -> Result<f32> {
        if self.no_scale {
            return reader.read_f32();
        }
        if self.flags != 0 {
            if self.flags & QFF_ROUND_DOWN != 0 && reader.read_bool()? {
                return Ok(self.low);
            }
            if self.flags & QFF_ROUND_UP != 0 && reader.read_bool()? {
                return Ok(self.high);
            }
            if self.flags & QFF_ENCODE_ZERO_EXACTLY != 0 && reader.read_bool()? {
                return Ok(0.0);
            }
        }
        let raw = reader.read_bits(self.bit_count)?;
        Ok(self.value_of_step(raw))
    }

    /// The value [`Self::decode`] returns for the quantized step `step`:
    /// `step * scale + low` as one fused multiply-add in double precision,
    /// rounded to `f32`.
    ///
    /// The fused multiply-add is a library call on CPUs targeted without FMA
    /// (and its first call probes the CPU), so the value is first taken from
    /// a plain multiply and add in `f64`. Each of those two roundings is
    /// within half an `f64` ulp, so the exact value lies within `margin` of
    /// `sum`, and so does the fused result; when both ends of that interval
    /// round to the same `f32`, so does the fused result (rounding is
    /// monotonic). Otherwise (the exact value sits next to an `f32`
    /// rounding boundary, or something is not finite) the fused
    /// multiply-add decides.
    #[inline(always)]
    pub fn value_of_step(&self, step: u64) -> f32 {
        let product = step as f64 * self.scale;
        let sum = product + f64::from(self.low);
        // Twice the bound on the two roundings' error.
        let margin = (product.abs() + sum.abs()) * f64::EPSILON;
        let below = (sum - margin) as f32;
        // Bits, not `==`: -0.0 and 0.0 are different results.
        if below.to_bits() == ((sum + margin) as f32).to_bits() {
            return below;
        }
        // A sum of exactly zero (a value of 0 in a range centred on it, the
        // common case here): `product` and `low` cancel exactly, so the
        // exact value is the product's rounding error, which is a double.
        if sum == 0.0 {
            if let Some(error) = product_error(step as f64, self.scale, product) {
                return if error == 0.0 {
                    sum as f32
                } else {
                    error as f32
                };
            }
        }
        (step as f64).mul_add(self.scale, f64::from(self.low)) as f32
    }

    /// Encodes `value` so that [`Self::decode`] returns
    /// [`Self::encoded_value`]`(value)`.
    ///
    /// Raw-float fields write the 32 bits of `value`. Quantized fields write
    /// the escape bits that remain after setup, in the decoder's order: *round
    /// down* is set for a value at or below `low`, *round up* for a value at or
    /// above `high`, *zero* for exactly 0.0; otherwise every escape bit is
    /// clear and the step [`Self::step_of`] follows (values outside the range
    /// clamp to the nearest end). A NaN cannot be quantized and is an error.
    pub fn encode(&self, writer: &mut BitWriter, value: f32) -> Result<()> {
        if self.no_scale {
            writer.write_f32(value);
            return Ok(());
        }
        if value.is_nan() {
            return Err(BitError::Unencodable("quantized float value is NaN"));
        }
        if self.flags & QFF_ROUND_DOWN != 0 {
            let escape = value <= self.low;
            writer.write_bool(escape);
            if escape {
                return Ok(());
            }
        }
        if self.flags & QFF_ROUND_UP != 0 {
            let escape = value >= self.high;
            writer.write_bool(escape);
            if escape {
                return Ok(());
            }
        }
        if self.flags & QFF_ENCODE_ZERO_EXACTLY != 0 {
            let escape = value == 0.0;
            writer.write_bool(escape);
            if escape {
                return Ok(());
            }
        }
        writer.write_bits(u64::from(self.step_of(value)), self.bit_count)
    }

    /// The value the decoder returns after [`Self::encode`]`(value)`: `value`
    /// itself for raw floats, an escape value (`low`, `high`, 0.0) when one
    /// applies, otherwise [`Self::value_of_step`] of [`Self::step_of`]. NaN is
    /// returned unchanged (it is not encodable when quantized).
    pub fn encoded_value(&self, value: f32) -> f32 {
        if self.no_scale || value.is_nan() {
            return value;
        }
        if self.flags & QFF_ROUND_DOWN != 0 && value <= self.low {
            return self.low;
        }
        if self.flags & QFF_ROUND_UP != 0 && value >= self.high {
            return self.high;
        }
        if self.flags & QFF_ENCODE_ZERO_EXACTLY != 0 && value == 0.0 {
            return 0.0;
        }
        self.value_of_step(u64::from(self.step_of(value)))
    }
}

fn validate_flags(mut flags: u32, low: f32, high: f32) -> Result<u32> {
    if flags == 0 {
        return Ok(0);
    }
    if (low == 0.0 && flags & QFF_ROUND_DOWN != 0) || (high == 0.0 && flags & QFF_ROUND_UP != 0) {
        flags &= !QFF_ENCODE_ZERO_EXACTLY;
    }
    if low == 0.0 && flags & QFF_ENCODE_ZERO_EXACTLY != 0 {
        flags |= QFF_ROUND_DOWN;
        flags &= !QFF_ENCODE_ZERO_EXACTLY;
    }
    if high == 0.0 && flags & QFF_ENCODE_ZERO_EXACTLY != 0 {
        flags |= QFF_ROUND_UP;
        flags &= !QFF_ENCODE_ZERO_EXACTLY;
    }
    if low > 0.0 || high < 0.0 {
        flags &= !QFF_ENCODE_ZERO_EXACTLY;
    }
    if flags & QFF_ENCODE_INTEGERS_EXACTLY != 0 {
        flags &= !(QFF_ROUND_UP | QFF_ROUND_DOWN | QFF_ENCODE_ZERO_EXACTLY);
    }
    if flags & (QFF_ROUND_DOWN | QFF_ROUND_UP) == (QFF_ROUND_DOWN | QFF_ROUND_UP) {
        return Err(BitError::InvalidEncoding(
            "quantized float flags round-down and round-up are mutually exclusive",
        ));
    }
    Ok(flags)
}

fn assign_multiplier(bit_count: u32, range: f32) -> Result<f32> {
    let max_int: u32 = if bit_count == 32 {
        0xFFFF_FFFE
    } else {
        (1u32 << bit_count) - 1
    };
    let max_f = max_int as f32;
    let mut mul = if range.abs() <= 0.0 {
        max_f
    } else {
        max_f / range
    };
    let too_big = |m: f32| m * range > max_f || f64::from(m * range) > f64::from(max_int);
    if too_big(mul) {
        for factor in [0.9999f32, 0.99, 0.9, 0.8, 0.7] {
            mul = max_f / range * factor;
            if !too_big(mul) {
                break;
            }
        }
    }
    if mul == 0.0 || !mul.is_finite() {
        return Err(BitError::InvalidEncoding(
            "quantized float high/low multiplier is zero",
        ));
    }
    Ok(mul)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn defaults_are_zero_to_one() {
        let qf = QuantizedFloat::new(Some(8), None, None, None).unwrap();
        assert_eq!(qf.low, 0.0);
        assert_eq!(qf.high, 1.0);
        assert_eq!(qf.flags, 0);
        assert_eq!(qf.dec_mul, 1.0 / 255.0);
    }

    #[test]
    fn zero_or_wide_bit_count_is_raw_float() {
        assert!(
            QuantizedFloat::new(Some(0), None, None, None)
                .unwrap()
                .no_scale
        );
        assert!(
            QuantizedFloat::new(Some(32), None, None, None)
                .unwrap()
                .no_scale
        );
        assert!(
            QuantizedFloat::new(None, Some(1), Some(-5.0), Some(5.0))
                .unwrap()
                .no_scale
        );
    }

    #[test]
    fn round_down_and_up_together_is_error_at_construction() {
        let err = QuantizedFloat::new(Some(10), Some(3), Some(-1.0), Some(1.0)).unwrap_err();
        assert!(matches!(err, BitError::InvalidEncoding(_)));
    }

    #[test]
    fn zero_flag_on_zero_low_becomes_round_down() {
        // low == 0 with encode-zero: becomes round-down, which then quantizes
        // exactly (low is step 0) and is dropped.
        let qf = QuantizedFloat::new(Some(8), Some(4), Some(0.0), Some(10.0)).unwrap();
        assert_eq!(qf.flags, 0);
        // high lowered by range/steps because round-down was in effect.
        assert_eq!(qf.high, 10.0 - 10.0 / 256.0);
    }

    #[test]
    fn encode_integers_stretches_range() {
        // Range 0..100 with 7 bits: log2 ceil = 7, range 128, bits grow to 8.
        let qf = QuantizedFloat::new(Some(7), Some(8), Some(0.0), Some(100.0)).unwrap();
        assert_eq!(qf.bit_count, 8);
        assert_eq!(qf.high, 128.0 - 0.5);
        assert_eq!(qf.flags & QFF_ENCODE_INTEGERS_EXACTLY, 8);
        // Every integer in range is exactly representable.
        for i in 0..=100 {
            let v = i as f32;
            let mut w = crate::BitWriter::new();
            w.write_bits(u64::from(qf.step_of(v)), qf.bit_count)
                .unwrap();
            let bytes = w.finish();
            assert_eq!(
                qf.decode(&mut BitReader::new(&bytes)).unwrap(),
                v,
                "integer {i}"
            );
        }
    }

    #[test]
    fn decode_reads_escape_bits_then_value() {
        // -1..1, 8 bits, encode zero exactly.
        let qf = QuantizedFloat::new(Some(8), Some(4), Some(-1.0), Some(1.0)).unwrap();
        assert_eq!(qf.flags, QFF_ENCODE_ZERO_EXACTLY);
        // bit0 = 1 → zero.
        let data = [0b0000_0001u8, 0, 0];
        assert_eq!(qf.decode(&mut BitReader::new(&data)).unwrap(), 0.0);
        // bit0 = 0 then 8 bits of 255 → high.
        let data = [0b1111_1110u8, 0b0000_0001, 0];
        let mut r = BitReader::new(&data);
        assert_eq!(qf.decode(&mut r).unwrap(), 1.0);
        assert_eq!(r.position(), 9);
    }
}

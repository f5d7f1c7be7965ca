//! Field encoders: how one value of a send-table field is written to the
//! entity bitstream, the inverse of each [`FieldDecoder`] and
//! [`FloatDecoder`] arm ([`FieldDecoder::encode`], [`FloatDecoder::encode`]).
//!
//! The wire forms are those of `docs/formats/source2-base-types.md` (bit
//! order, integers, floats, angles, other values) and the value models of
//! `docs/formats/source2-entities.md` (array lengths, pointers, polymorphic
//! pointers). The encoders build on the bit core's writers
//! (`gamewire_bits::write_types`, [`QuantizedFloat::encode`]).
//!
//! ## What comes out
//!
//! Every encoder writes the *shortest* of the bit strings its decoder maps to
//! the value, which is the one the games write wherever we could check:
//!
//! | decoder | encoding written |
//! |---|---|
//! | bool, component, pointer present | one bit |
//! | varints (`I32`, `I64`, `U32`, `U64`, fallback, array length) | the fewest bytes (no trailing `0x80 0x00`) |
//! | fixed 64 | 64 bits, little-endian |
//! | ammo count | `value + 1` as a varuint32; 0 as the varuint 0 (the reader maps both 0, the engine's -1, and 1 to 0; every 0 in the corpus demos is stored as 0) |
//! | minus one | `value + 1` as a varuint64 (wrapping, so -1 is the one byte 0) |
//! | string | the bytes and a NUL; at most 4096 bytes, no interior NUL |
//! | bytes | a varuint32 length, then the bytes |
//! | no-scale float | the 32 bits, every pattern (NaN payloads too) |
//! | coord | presence of integer and fraction, sign, 14 bits of integer minus one, 5 bits of fraction; a present part is never zero. `-0.0` is the one exception: it is written as a present, zero fraction with the sign set, the only bits that decode to it |
//! | simulation time | the tick count `value / tick_interval` as a varuint32 |
//! | rune time | the four low bits of the `f32` pattern |
//! | quantized float | the escape bits that remain after setup (round down, round up, zero, in that order): the first whose value (low, high, 0.0) the value is, bit for bit, is set and ends it; otherwise all clear, then the step; a raw float (bit count 0 or 32 and up) as its 32 bits |
//! | vectors of 2, 3, 4, 6 | each component with the float encoding |
//! | vec3 normal | presence of x and y (left out when their 11-bit magnitude is 0, unless the value is `-0.0`), their sign and magnitude, the sign of z |
//! | qangle precise, qangle coord | presence bits, then the present components (a component of `+0.0` is left out) |
//! | qangle fixed, pitch-yaw | two or three `n`-bit angles |
//! | polymorphic pointer | 0: an absent bit and the UBitVar 0; `i > 0`: a present bit and the UBitVar `i` |
//!
//! ## Exact on what the decoder returns
//!
//! For every value a decoder returns, the encoder finds bits that decode to
//! that value *bit for bit*. Lossy encodings need care for this:
//!
//! * quantized floats: the decoder computes `step * scale + low` (see
//!   [`QuantizedFloat::value_of_step`]); the engine's encoder truncates
//!   `(value - low) * high_low_mul` in `f32`, which lands one step low for
//!   some decoded values. When the value is a decoded step, the step is
//!   found from `(value - low) / scale` and checked against the decoder;
//!   other values take the engine's truncation ([`QuantizedFloat::encode`]).
//! * angles: `step * 360 / 2^n` is computed in `f32`; the step is rounded
//!   from the value and its neighbours are checked against the decoder's
//!   expression. Above 23 bits two steps can decode to the same `f32`; the
//!   encoder picks one of them.
//! * simulation time: `ticks as f32 * tick_interval`, checked the same way.
//!
//! Values between steps are rounded as the bit core's writers document
//! (coords truncate toward zero, normals and angles round to the nearest
//! step, quantized floats follow the engine: at or below low with *round
//! down*, at or above high with *round up* and exactly 0.0 with *zero* take
//! the escape, the rest truncate to a step, clamped to the range). A
//! quantized range declared upside down (low above high, which
//! `QuantizedFloat::new` accepts) has no engine rule: such a field's values
//! go to the nearest step.
//!
//! ## What cannot be written
//!
//! An error ([`ErrorKind::Unwritable`], naming the decoder and the value),
//! never a panic, for: a value of another type than the decoder returns
//! (for example a [`Value::F32`] for a varint field, or a `Vec2` for a
//! three-float vector); NaN for a quantized float, a coord, a normal or an
//! angle; a coord beyond ±16384.97; a negative simulation time or one beyond
//! `u32::MAX` ticks; a rune time that is not one of the sixteen values
//! `f32::from_bits(0..16)`; an ammo count of `u32::MAX`; an array length
//! above [`MAX_ARRAY_LEN`]; a string with a NUL or longer than 4096 bytes;
//! bytes longer than `u32::MAX`; a pitch-yaw angle whose roll is not 0.

use std::fmt::Debug;

use gamewire_bits::quantized::{QFF_ENCODE_ZERO_EXACTLY, QFF_ROUND_DOWN, QFF_ROUND_UP};
use gamewire_bits::{BitError, BitReader, BitWriter, QuantizedFloat};

use super::decoder::{FieldDecoder, FloatDecoder, MAX_ARRAY_LEN};
use crate::error::ErrorKind;
use crate::value::Value;

/// What an encoder error names as the thing being written.
const WHAT: &str = "an entity field value";

/// The error for `value`, which the decoder described by `decoder` cannot
/// carry, because of `why`.
fn unwritable(decoder: &str, value: impl Debug, why: impl std::fmt::Display) -> ErrorKind {
    ErrorKind::Unwritable {
        what: WHAT,
        reason: format!("the {decoder} encoding cannot hold {value:?}: {why}"),
    }
}

/// Maps a bit-core writer error to [`unwritable`].
fn bits_error<'a>(
    decoder: &'a str,
    value: impl Debug + 'a,
) -> impl FnOnce(BitError) -> ErrorKind + 'a {
    move |e| unwritable(decoder, value, e)
}

/// `x.round()` (half away from zero, the sign kept), without the library
/// call `f64::round` compiles to on CPUs targeted without SSE4.1: below
/// 2^52 the integer part is `x as i64` and the fraction `x - trunc` is
/// exact, so the result is the same double bit for bit; at or above 2^52
/// (and for infinities) `x` is already its own rounding, and a NaN stays
/// a NaN.
#[inline]
fn round(x: f64) -> f64 {
    if x.abs() < 4_503_599_627_370_496.0 {
        let t = x as i64 as f64;
        let f = x - t;
        let r = if f >= 0.5 {
            t + 1.0
        } else if f <= -0.5 {
            t - 1.0
        } else {
            t
        };
        r.copysign(x)
    } else {
        x
    }
}

/// The angle the reader decodes from the `bits`-bit step `raw`: the
/// expression of `BitReader::read_angle`, in the same `f32` operations.
#[inline]
fn angle_of_step(raw: u64, bits: u32) -> f32 {
    raw as f32 * 360.0 / (1u64 << bits) as f32
}

/// The `bits`-bit step whose angle (as [`angle_of_step`]) is `value` bit for
/// bit, when one is near the rounded step; otherwise the rounded step
/// (`value` wrapped into [0, 360) and rounded to the nearest of `2^bits`).
/// `None` for a non-finite value or more than 32 bits.
fn angle_step(value: f32, bits: u32) -> Option<u64> {
    if !value.is_finite() || bits > 32 {
        return None;
    }
    let steps = 1u64 << bits;
    let turns = f64::from(value).rem_euclid(360.0) / 360.0;
    let rounded = (round(turns * steps as f64) as u64) % steps;
    let exact = [rounded, rounded.wrapping_sub(1), rounded + 1]
        .into_iter()
        .filter(|&s| s < steps)
        .find(|&s| angle_of_step(s, bits).to_bits() == value.to_bits());
    Some(exact.unwrap_or(rounded))
}

/// One `bits`-bit angle, for the decoder described by `decoder`.
fn write_angle(w: &mut BitWriter, decoder: &str, value: f32, bits: u32) -> Result<(), ErrorKind> {
    let step = angle_step(value, bits)
        .ok_or_else(|| unwritable(decoder, value, "an angle must be finite"))?;
    w.write_bits(step, bits).map_err(bits_error(decoder, value))
}

/// A precise angle: a 20-bit angle minus 180, the reader's expression being
/// `angle - 180.0` in `f32`.
fn write_angle_precise(w: &mut BitWriter, decoder: &str, value: f32) -> Result<(), ErrorKind> {
    if !value.is_finite() {
        return Err(unwritable(decoder, value, "an angle must be finite"));
    }
    let steps = 1u64 << 20;
    let turns = (f64::from(value) + 180.0).rem_euclid(360.0) / 360.0;
    let rounded = (round(turns * steps as f64) as u64) % steps;
    let step = [rounded, rounded.wrapping_sub(1), rounded + 1]
        .into_iter()
        .filter(|&s| s < steps)
        .find(|&s| (angle_of_step(s, 20) - 180.0).to_bits() == value.to_bits())
        .unwrap_or(rounded);
    w.write_bits(step, 20).map_err(bits_error(decoder, value))
}

/// A coord; `-0.0` as the one bit string that decodes to it (no integer, a
/// fraction of 0, the sign set), everything else by the bit core's writer.
fn write_coord(w: &mut BitWriter, decoder: &str, value: f32) -> Result<(), ErrorKind> {
    if value.to_bits() == (-0.0f32).to_bits() {
        // has_int 0, has_frac 1, negative 1, fraction 0.
        w.write_bool(false);
        w.write_bool(true);
        w.write_bool(true);
        return w.write_bits(0, 5).map_err(bits_error(decoder, value));
    }
    w.write_coord(value).map_err(bits_error(decoder, value))
}

/// One normal component: a sign and an 11-bit magnitude; `-0.0` keeps its
/// sign (magnitude 0, sign set).
fn write_normal(w: &mut BitWriter, decoder: &str, value: f32) -> Result<(), ErrorKind> {
    if value.to_bits() == (-0.0f32).to_bits() {
        w.write_bool(true);
        return w.write_bits(0, 11).map_err(bits_error(decoder, value));
    }
    w.write_normal(value).map_err(bits_error(decoder, value))
}

/// Whether a normal component is written (its presence bit): when its
/// 11-bit magnitude is not 0, or it is `-0.0` (which only a present
/// component decodes to).
fn normal_present(value: f32) -> bool {
    let magnitude = round(f64::from(value.abs()) * 2047.0);
    magnitude >= 1.0 || value.to_bits() == (-0.0f32).to_bits()
}

/// The step nearest `value` in a quantized float's range, `(value - low) /
/// scale` rounded (clamped at 0 from -1), and the largest step; `None` when
/// the scale is 0 or not finite, or the rounded step is beyond -1 or one
/// past the largest.
#[inline(always)]
fn quantized_guess(q: &QuantizedFloat, value: f32) -> Option<(u64, u64)> {
    if q.scale == 0.0 || !q.scale.is_finite() {
        return None;
    }
    let max = (1u64 << q.bit_count.min(63)) - 1;
    let guess = round((f64::from(value) - f64::from(q.low)) / q.scale);
    if !(-1.0..=max as f64 + 1.0).contains(&guess) {
        return None;
    }
    Some((guess.max(0.0) as u64, max))
}

/// The step of a quantized float that decodes to `value` bit for bit, when
/// there is one near `(value - low) / scale`.
fn quantized_exact_step(q: &QuantizedFloat, value: f32) -> Option<u64> {
    let (guess, max) = quantized_guess(q, value)?;
    [
        guess,
        guess.wrapping_sub(1),
        guess + 1,
        guess.wrapping_sub(2),
        guess + 2,
    ]
    .into_iter()
    .filter(|&s| s <= max)
    .find(|&s| q.value_of_step(s).to_bits() == value.to_bits())
}

impl FloatDecoder {
    /// Writes one float so that [`FloatDecoder`]'s decode returns it (bit for
    /// bit when it is a value the decoder can return; see the module docs
    /// for rounding and for the values that are errors).
    pub fn encode(
        &self,
        w: &mut BitWriter,
        value: f32,
        tick_interval: f32,
    ) -> Result<(), ErrorKind> {
        match self {
            FloatDecoder::NoScale => {
                w.write_f32(value);
                Ok(())
            }
            FloatDecoder::Coord => write_coord(w, "coord", value),
            FloatDecoder::SimTime => {
                let ticks = round(f64::from(value) / f64::from(tick_interval));
                if !(0.0..=f64::from(u32::MAX)).contains(&ticks) {
                    return Err(unwritable(
                        "simtime",
                        value,
                        format_args!(
                            "the tick count at an interval of {tick_interval} is negative, \
                             not finite or beyond u32"
                        ),
                    ));
                }
                let ticks = ticks as u32;
                // The reader computes `ticks as f32 * tick_interval`: take
                // the neighbour that gives the value exactly, if one does.
                let exact = [ticks, ticks.wrapping_sub(1), ticks.wrapping_add(1)]
                    .into_iter()
                    .find(|&t| (t as f32 * tick_interval).to_bits() == value.to_bits());
                w.write_varuint32(exact.unwrap_or(ticks));
                Ok(())
            }
            FloatDecoder::RuneTime => w
                .write_rune_time(value)
                .map_err(bits_error("runetime", value)),
            FloatDecoder::Quantized(q) => encode_quantized(q, w, value),
        }
    }
}

/// A quantized float: a decoded value exactly (an escape when it is the
/// escape's value, else its step), anything else as the engine encodes it.
fn encode_quantized(q: &QuantizedFloat, w: &mut BitWriter, value: f32) -> Result<(), ErrorKind> {
    let describe = || FloatDecoder::Quantized(*q).describe();
    let fail = |e: BitError| unwritable(&describe(), value, e);
    if q.no_scale {
        w.write_f32(value);
        return Ok(());
    }
    if value.is_nan() {
        return Err(unwritable(&describe(), value, "NaN cannot be quantized"));
    }
    // The escape bits that remain, in the decoder's order; the first whose
    // value this is (bit for bit) is set, and ends the encoding.
    let escapes = [
        (QFF_ROUND_DOWN, q.low.to_bits()),
        (QFF_ROUND_UP, q.high.to_bits()),
        (QFF_ENCODE_ZERO_EXACTLY, 0.0f32.to_bits()),
    ];
    let exact_escape = escapes
        .iter()
        .any(|&(flag, v)| q.flags & flag != 0 && value.to_bits() == v);
    let step = if exact_escape {
        None
    } else {
        quantized_exact_step(q, value)
    };
    if exact_escape || step.is_some() {
        for (flag, v) in escapes {
            if q.flags & flag != 0 {
                let hit = step.is_none() && value.to_bits() == v;
                w.write_bool(hit);
                if hit {
                    return Ok(());
                }
            }
        }
        if let Some(step) = step {
            return w.write_bits(step, q.bit_count).map_err(fail);
        }
    }
    if q.low <= q.high {
        q.encode(w, value).map_err(fail)
    } else {
        // An inverted range (low above high, which the send tables may
        // declare): no escapes, the nearest step.
        for (flag, _) in escapes {
            if q.flags & flag != 0 {
                w.write_bool(false);
            }
        }
        let max = (1u64 << q.bit_count.min(63)) - 1;
        let step = round((f64::from(value) - f64::from(q.low)) / q.scale);
        let step = if step.is_nan() {
            0.0
        } else {
            step.clamp(0.0, max as f64)
        };
        w.write_bits(step as u64, q.bit_count).map_err(fail)
    }
}

/// Why writing a value failed, kept while the reading goes on (the first
/// failure; see [`FieldDecoder::transcode`]).
type Written = Result<(), ErrorKind>;

/// One float of `f` read and written again: the value `f`'s decoder
/// returns, the bits `f`'s encoder writes for it (into `w`, unless
/// `written` holds a failure already, which a failure here sets).
///
/// A quantized float read as a step whose value is no escape's and which
/// the encoder's search finds first (the rounded `(value - low) / scale` is
/// the step read) is written as the encoder writes it: each escape bit
/// clear, then the step, the bits read. Every other float goes through its
/// decoder and its encoder.
#[inline(always)]
fn transcode_float(
    f: &FloatDecoder,
    r: &mut BitReader<'_>,
    w: &mut BitWriter,
    tick_interval: f32,
    written: &mut Written,
) -> Result<f32, BitError> {
    match f {
        FloatDecoder::NoScale => {
            let value = r.read_f32()?;
            if written.is_ok() {
                w.write_f32(value);
            }
            Ok(value)
        }
        FloatDecoder::Quantized(q) => transcode_quantized(q, r, w, written),
        _ => {
            let value = f.decode(r, tick_interval)?;
            if written.is_ok() {
                *written = f.encode(w, value, tick_interval);
            }
            Ok(value)
        }
    }
}

/// A quantized float read as [`QuantizedFloat::decode`] reads it, and
/// written again (see [`transcode_float`]).
#[inline(always)]
fn transcode_quantized(
    q: &QuantizedFloat,
    r: &mut BitReader<'_>,
    w: &mut BitWriter,
    written: &mut Written,
) -> Result<f32, BitError> {
    if q.no_scale {
        let value = r.read_f32()?;
        if written.is_ok() {
            w.write_f32(value);
        }
        return Ok(value);
    }
    let escapes = [
        (QFF_ROUND_DOWN, q.low),
        (QFF_ROUND_UP, q.high),
        (QFF_ENCODE_ZERO_EXACTLY, 0.0f32),
    ];
    let mut clear = 0;
    if q.flags != 0 {
        for (flag, escape) in escapes {
            if q.flags & flag != 0 {
                if r.read_bool()? {
                    if written.is_ok() {
                        *written = encode_quantized(q, w, escape);
                    }
                    return Ok(escape);
                }
                clear += 1;
            }
        }
    }
    let step = r.read_bits(q.bit_count)?;
    let value = q.value_of_step(step);
    if written.is_err() {
        return Ok(value);
    }
    // What `encode_quantized` writes for `value` when it is no escape's
    // value: the escape bits clear and the step its search finds first, the
    // rounded guess (checked first, and `step` decodes to `value`).
    let is_escape = escapes
        .iter()
        .any(|&(flag, escape)| q.flags & flag != 0 && value.to_bits() == escape.to_bits());
    let guessed = !value.is_nan()
        && !is_escape
        && quantized_guess(q, value).is_some_and(|(guess, max)| guess == step && step <= max);
    *written = if guessed {
        w.write_bits(0, clear)
            .and_then(|()| w.write_bits(step, q.bit_count))
            .map_err(|e| unwritable(&FloatDecoder::Quantized(*q).describe(), value, e))
    } else {
        encode_quantized(q, w, value)
    };
    Ok(value)
}

impl FieldDecoder {
    /// Reads one value as [`FieldDecoder::decode`] does and writes it again
    /// into `w` as [`FieldDecoder::encode`] writes it, in one pass (a
    /// rewrite's entity records): the value, and in `written` (which must
    /// be `Ok` on the way in) whether writing it failed. The reading goes
    /// on after a failure to write; an error reading is returned as
    /// `decode` returns it.
    ///
    /// The decoders whose encoding of the value read is the bits read or a
    /// plain re-encoding of them (bools, varints, fixed 64, raw and most
    /// quantized floats, vectors of those) write as they read, with one
    /// dispatch on the decoder; the others decode, then encode.
    #[inline]
    pub(crate) fn transcode(
        &self,
        r: &mut BitReader<'_>,
        w: &mut BitWriter,
        tick_interval: f32,
        written: &mut Written,
    ) -> Result<Value, BitError> {
        self.transcode_inline(r, w, tick_interval, written)
    }

    /// [`FieldDecoder::transcode`] for a value nobody keeps (a field that
    /// shapes no path of an entity read past): the same reading and
    /// writing, no value built or handed back.
    #[inline]
    pub(crate) fn transcode_past(
        &self,
        r: &mut BitReader<'_>,
        w: &mut BitWriter,
        tick_interval: f32,
        written: &mut Written,
    ) -> Result<(), BitError> {
        self.transcode_inline(r, w, tick_interval, written)
            .map(drop)
    }

    /// The body of [`FieldDecoder::transcode`], inlined into both entries
    /// (so that `transcode_past` builds no value).
    #[inline(always)]
    fn transcode_inline(
        &self,
        r: &mut BitReader<'_>,
        w: &mut BitWriter,
        tick_interval: f32,
        written: &mut Written,
    ) -> Result<Value, BitError> {
        Ok(match self {
            FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent => {
                let b = r.read_bool()?;
                w.write_bool(b);
                Value::Bool(b)
            }
            FieldDecoder::I32 => {
                let v = r.read_varint32()?;
                w.write_varint32(v);
                Value::I32(v)
            }
            FieldDecoder::I64 => {
                let v = r.read_varint64()?;
                w.write_varint64(v);
                Value::I64(v)
            }
            FieldDecoder::U32 => {
                let v = r.read_varuint32()?;
                w.write_varuint32(v);
                Value::U32(v)
            }
            FieldDecoder::U64 | FieldDecoder::Fallback | FieldDecoder::MinusOne => {
                // The encoder writes back the varuint read (a fallback's
                // u32 widened, minus one's value plus one).
                let v = r.read_varuint64()?;
                w.write_varuint64(v);
                match (self, u32::try_from(v)) {
                    (FieldDecoder::Fallback, Ok(small)) => Value::U32(small),
                    (FieldDecoder::MinusOne, _) => Value::I64((v as i64).wrapping_sub(1)),
                    _ => Value::U64(v),
                }
            }
            FieldDecoder::Fixed64 => {
                let v = r.read_u64()?;
                w.write_u64(v);
                Value::U64(v)
            }
            FieldDecoder::Float(f) => Value::F32(transcode_float(f, r, w, tick_interval, written)?),
            FieldDecoder::Vector(n, f) => {
                let mut one =
                    |r: &mut BitReader<'_>| transcode_float(f, r, w, tick_interval, written);
                match n {
                    2 => Value::Vec2([one(r)?, one(r)?]),
                    3 => Value::Vec3([one(r)?, one(r)?, one(r)?]),
                    4 => Value::Vec4([one(r)?, one(r)?, one(r)?, one(r)?]),
                    _ => {
                        let mut v = [0f32; 6];
                        for slot in &mut v {
                            *slot = one(r)?;
                        }
                        Value::Vec6(Box::new(v))
                    }
                }
            }
            _ => {
                let value = self.decode(r, tick_interval)?;
                *written = self.encode(w, &value, tick_interval);
                value
            }
        })
    }

    /// Writes one value so that [`FieldDecoder::decode`] returns it: the
    /// inverse of `decode`, bit for bit for every value `decode` can return
    /// (see the module docs for the encodings, the rounding of values
    /// between steps, and the values that are errors).
    pub fn encode(
        &self,
        w: &mut BitWriter,
        value: &Value,
        tick_interval: f32,
    ) -> Result<(), ErrorKind> {
        let wrong_type = || {
            unwritable(
                &self.describe(),
                value,
                format_args!("the decoder returns {}", self.value_kind()),
            )
        };
        match (self, value) {
            (
                FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent,
                Value::Bool(b),
            ) => w.write_bool(*b),
            (FieldDecoder::I32, Value::I32(v)) => w.write_varint32(*v),
            (FieldDecoder::I64, Value::I64(v)) => w.write_varint64(*v),
            (FieldDecoder::U32, Value::U32(v)) => w.write_varuint32(*v),
            (FieldDecoder::U64, Value::U64(v)) => w.write_varuint64(*v),
            (FieldDecoder::Fallback, Value::U32(v)) => w.write_varuint64(u64::from(*v)),
            (FieldDecoder::Fallback, Value::U64(v)) => w.write_varuint64(*v),
            (FieldDecoder::Fixed64, Value::U64(v)) => w.write_u64(*v),
            // 0 as the stored 0 (the engine's -1, which the games write
            // where the reader finds 0); the rest as `value + 1`.
            (FieldDecoder::AmmoCount, Value::U32(0)) => w.write_varuint32(0),
            (FieldDecoder::AmmoCount, Value::U32(v)) => w
                .write_ammo_count(*v)
                .map_err(bits_error("ammocount", value))?,
            (FieldDecoder::MinusOne, Value::I64(v)) => w.write_varuint64(v.wrapping_add(1) as u64),
            (FieldDecoder::String, Value::String(s)) => w
                .write_string_terminated(s)
                .map_err(bits_error("string", value))?,
            (FieldDecoder::Bytes, Value::Bytes(b)) => {
                let len = u32::try_from(b.len()).map_err(|_| {
                    unwritable(
                        "bytes",
                        format_args!("{} bytes", b.len()),
                        "the length is a varuint32",
                    )
                })?;
                w.write_varuint32(len);
                w.write_bytes(b);
            }
            (FieldDecoder::ArrayLength, Value::U32(v)) => {
                if *v > MAX_ARRAY_LEN {
                    return Err(unwritable(
                        "arraylength",
                        value,
                        format_args!("the reader accepts at most {MAX_ARRAY_LEN}"),
                    ));
                }
                w.write_varuint32(*v);
            }
            (FieldDecoder::PolyPointer, Value::U32(v)) => {
                w.write_bool(*v != 0);
                w.write_ubitvar(*v);
            }
            (FieldDecoder::Float(f), Value::F32(v)) => f.encode(w, *v, tick_interval)?,
            (FieldDecoder::Vector(2, f), Value::Vec2(v)) => {
                for c in v {
                    f.encode(w, *c, tick_interval)?;
                }
            }
            (FieldDecoder::Vector(3, f), Value::Vec3(v)) => {
                for c in v {
                    f.encode(w, *c, tick_interval)?;
                }
            }
            (FieldDecoder::Vector(4, f), Value::Vec4(v)) => {
                for c in v {
                    f.encode(w, *c, tick_interval)?;
                }
            }
            (FieldDecoder::Vector(n, f), Value::Vec6(v)) if !(2..=4).contains(n) => {
                for c in v.iter() {
                    f.encode(w, *c, tick_interval)?;
                }
            }
            (FieldDecoder::Vec3Normal, Value::Vec3(v)) => {
                let d = "vec3normal";
                if v.iter().any(|c| c.is_nan()) {
                    return Err(unwritable(d, value, "a normal component is NaN"));
                }
                let has_x = normal_present(v[0]);
                let has_y = normal_present(v[1]);
                w.write_bool(has_x);
                w.write_bool(has_y);
                if has_x {
                    write_normal(w, d, v[0])?;
                }
                if has_y {
                    write_normal(w, d, v[1])?;
                }
                w.write_bool(v[2].is_sign_negative());
            }
            (FieldDecoder::QAnglePrecise, Value::Vec3(v)) => {
                // `+0.0` is left out; `-0.0` and every other value is written.
                let present = v.map(|c| c.to_bits() != 0);
                for p in present {
                    w.write_bool(p);
                }
                for (c, p) in v.iter().zip(present) {
                    if p {
                        write_angle_precise(w, "qangleprecise", *c)?;
                    }
                }
            }
            (FieldDecoder::QAngleFixed(bits), Value::Vec3(v)) => {
                let d = self.describe();
                if *bits > 32 {
                    return Err(unwritable(&d, value, "an angle has at most 32 bits"));
                }
                for c in v {
                    write_angle(w, &d, *c, *bits)?;
                }
            }
            (FieldDecoder::QAngleCoord, Value::Vec3(v)) => {
                let present = v.map(|c| c.to_bits() != 0);
                for p in present {
                    w.write_bool(p);
                }
                for (c, p) in v.iter().zip(present) {
                    if p {
                        write_coord(w, "qanglecoord", *c)?;
                    }
                }
            }
            (FieldDecoder::QAnglePitchYaw(bits), Value::Vec3([pitch, yaw, roll])) => {
                let d = self.describe();
                if roll.to_bits() != 0 {
                    return Err(unwritable(&d, value, "the roll is always 0"));
                }
                if *bits > 32 {
                    return Err(unwritable(&d, value, "an angle has at most 32 bits"));
                }
                write_angle(w, &d, *pitch, *bits)?;
                write_angle(w, &d, *yaw, *bits)?;
            }
            _ => return Err(wrong_type()),
        }
        Ok(())
    }

    /// The kind of [`Value`] `decode` returns, for errors.
    fn value_kind(&self) -> &'static str {
        match self {
            FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent => "a bool",
            FieldDecoder::I32 => "an i32",
            FieldDecoder::I64 | FieldDecoder::MinusOne => "an i64",
            FieldDecoder::U32
            | FieldDecoder::AmmoCount
            | FieldDecoder::ArrayLength
            | FieldDecoder::PolyPointer => "a u32",
            FieldDecoder::U64 | FieldDecoder::Fixed64 => "a u64",
            FieldDecoder::Fallback => "a u32 or a u64",
            FieldDecoder::String => "a string",
            FieldDecoder::Bytes => "bytes",
            FieldDecoder::Float(_) => "an f32",
            FieldDecoder::Vector(2, _) => "a vec2",
            FieldDecoder::Vector(3, _)
            | FieldDecoder::Vec3Normal
            | FieldDecoder::QAnglePrecise
            | FieldDecoder::QAngleFixed(_)
            | FieldDecoder::QAngleCoord
            | FieldDecoder::QAnglePitchYaw(_) => "a vec3",
            FieldDecoder::Vector(4, _) => "a vec4",
            FieldDecoder::Vector(..) => "a vec6",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A xorshift stream: the same inputs on every run.
    struct Bits(u64);

    impl Bits {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }
    }

    #[test]
    fn round_is_f64_round_bit_for_bit() {
        let mut bits = Bits(0x9e37_79b9_7f4a_7c15);
        let mut values = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.5,
            -1.5,
            2.5,
            0.499_999_999_999_999_94,
            -0.499_999_999_999_999_94,
            4_503_599_627_370_495.5,
            -4_503_599_627_370_495.5,
            4_503_599_627_370_496.0,
            9.0e18,
            -9.3e18,
            1.0e300,
            f64::MAX,
            f64::MIN_POSITIVE,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        for _ in 0..100_000 {
            let x = f64::from_bits(bits.next());
            values.push(x);
            values.push((x.to_bits() % 1_000_000) as f64 / 8.0 - 60_000.0);
        }
        for x in values {
            // A NaN stays a NaN (its payload is no result of ours).
            let (a, b) = (round(x), x.round());
            assert!(
                a.to_bits() == b.to_bits() || a.is_nan() && b.is_nan(),
                "{x:e}"
            );
        }
    }

    fn quantized(bits: i32, flags: i32, low: f32, high: f32) -> Option<FloatDecoder> {
        QuantizedFloat::new(Some(bits), Some(flags), Some(low), Some(high))
            .ok()
            .map(FloatDecoder::Quantized)
    }

    /// Every decoder form, quantized floats of many bit counts, flags and
    /// ranges.
    fn decoders() -> Vec<FieldDecoder> {
        let mut floats = vec![
            FloatDecoder::NoScale,
            FloatDecoder::Coord,
            FloatDecoder::SimTime,
            FloatDecoder::RuneTime,
        ];
        let ranges = [
            (0.0, 1.0),
            (-1.0, 1.0),
            (0.0, 360.0),
            (-4096.0, 4096.0),
            (-16384.0, 16384.0),
            (0.1, 0.9),
            (-3.7, 1024.3),
            (2.0, -2.0),
        ];
        for bits in [1, 2, 7, 8, 10, 11, 12, 15, 17, 20, 24, 31, 32, 0] {
            for flags in 0..8 {
                for (low, high) in ranges {
                    floats.extend(quantized(bits, flags, low, high));
                }
            }
        }
        let mut all = vec![
            FieldDecoder::Bool,
            FieldDecoder::I32,
            FieldDecoder::I64,
            FieldDecoder::U32,
            FieldDecoder::U64,
            FieldDecoder::Fallback,
            FieldDecoder::Fixed64,
            FieldDecoder::Component,
            FieldDecoder::AmmoCount,
            FieldDecoder::MinusOne,
            FieldDecoder::String,
            FieldDecoder::Bytes,
            FieldDecoder::Vec3Normal,
            FieldDecoder::QAnglePrecise,
            FieldDecoder::QAngleFixed(8),
            FieldDecoder::QAngleFixed(32),
            FieldDecoder::QAngleCoord,
            FieldDecoder::QAnglePitchYaw(11),
            FieldDecoder::ArrayLength,
            FieldDecoder::PointerPresent,
            FieldDecoder::PolyPointer,
        ];
        for f in floats {
            all.push(FieldDecoder::Float(f));
            for n in [2, 3, 4, 6] {
                all.push(FieldDecoder::Vector(n, f));
            }
        }
        all
    }

    /// Random bits, and bits made of runs of zeros and ones (escapes,
    /// steps 0 and all ones, short varints).
    fn input(bits: &mut Bits) -> Vec<u8> {
        let len = (bits.next() % 48) as usize;
        let mode = bits.next() % 4;
        (0..len)
            .map(|_| match mode {
                0 => 0,
                1 => 0xff,
                2 => (bits.next() & bits.next()) as u8,
                _ => bits.next() as u8,
            })
            .collect()
    }

    /// The encoding of `value` by `encode`, as bytes and a bit count.
    fn encoded(d: &FieldDecoder, value: &Value, ti: f32) -> Result<(Vec<u8>, u64), String> {
        let mut w = BitWriter::new();
        d.encode(&mut w, value, ti).map_err(|e| e.to_string())?;
        let n = w.bits_written();
        Ok((w.finish(), n))
    }

    /// The float components of a value, as bits (NaN payloads and the sign
    /// of zero count).
    fn value_bits(v: &Value) -> String {
        match v {
            Value::F32(f) => format!("{:x}", f.to_bits()),
            Value::Vec2(a) => format!("{:x?}", a.map(f32::to_bits)),
            Value::Vec3(a) => format!("{:x?}", a.map(f32::to_bits)),
            Value::Vec4(a) => format!("{:x?}", a.map(f32::to_bits)),
            Value::Vec6(a) => format!("{:x?}", a.map(f32::to_bits)),
            other => format!("{other:?}"),
        }
    }

    #[test]
    fn decode_to_replaces_a_value_or_keeps_it_on_an_error() -> Result<(), String> {
        let mut bits = Bits(0x9e37_79b9_7f4a_7c15);
        let olds = [
            Value::String("old".into()),
            Value::Vec6(Box::new([1.0; 6])),
            Value::U64(u64::MAX),
            Value::F32(-0.5),
        ];
        for d in decoders() {
            for (i, old) in olds.iter().enumerate() {
                let data = input(&mut bits);
                let decoded = d.decode(&mut BitReader::new(&data), 1.0 / 64.0);
                let mut out = old.clone();
                let mut r = BitReader::new(&data);
                let to = d.decode_to(&mut r, 1.0 / 64.0, &mut out);
                match (decoded, to) {
                    (Ok(v), Ok(())) => {
                        assert_eq!(value_bits(&out), value_bits(&v), "{d:?} {i} {data:x?}")
                    }
                    (Err(a), Err(b)) => {
                        assert_eq!(a, b, "{d:?} {data:x?}");
                        assert_eq!(&out, old, "{d:?} {data:x?}");
                    }
                    (a, b) => return Err(format!("{d:?} {data:x?}: {a:?} / {b:?}")),
                }
            }
        }
        Ok(())
    }

    #[test]
    fn transcode_reads_as_decode_and_writes_as_encode() -> Result<(), String> {
        let mut bits = Bits(0x2545_f491_4f6c_dd1d);
        for d in decoders() {
            for ti in [1.0 / 64.0, 1.0 / 30.0] {
                for _ in 0..300 {
                    let data = input(&mut bits);
                    let mut r = BitReader::new(&data);
                    let decoded = d.decode(&mut r, ti);
                    let mut rt = BitReader::new(&data);
                    let mut w = BitWriter::new();
                    let mut written = Ok(());
                    let fused = d.transcode(&mut rt, &mut w, ti, &mut written);
                    let mut rp = BitReader::new(&data);
                    let mut wp = BitWriter::new();
                    let mut written_past = Ok(());
                    let past = d.transcode_past(&mut rp, &mut wp, ti, &mut written_past);
                    assert_eq!(past.is_ok(), fused.is_ok(), "{d:?} {data:x?}");
                    assert_eq!(rp.position(), rt.position(), "{d:?} {data:x?}");
                    assert_eq!(written_past.is_ok(), written.is_ok(), "{d:?} {data:x?}");
                    assert_eq!(wp.clone().finish(), w.clone().finish(), "{d:?} {data:x?}");
                    let value = match (decoded, fused) {
                        (Err(a), Err(b)) => {
                            assert_eq!(a, b, "{d:?} {data:x?}");
                            continue;
                        }
                        (Ok(value), Ok(fused)) => {
                            assert_eq!(value_bits(&value), value_bits(&fused), "{d:?} {data:x?}");
                            assert_eq!(r.position(), rt.position(), "{d:?} {data:x?}");
                            value
                        }
                        (a, b) => return Err(format!("{d:?} {data:x?}: {a:?} / {b:?}")),
                    };
                    match (encoded(&d, &value, ti), written) {
                        (Ok((bytes, n)), Ok(())) => {
                            assert_eq!(w.bits_written(), n, "{d:?} {data:x?}");
                            assert_eq!(w.finish(), bytes, "{d:?} {data:x?}");
                        }
                        (Err(a), Err(b)) => assert_eq!(a, b.to_string(), "{d:?} {data:x?}"),
                        (a, b) => return Err(format!("{d:?} {data:x?}: {a:?} / {b:?}")),
                    }
                }
            }
        }
        Ok(())
    }
}

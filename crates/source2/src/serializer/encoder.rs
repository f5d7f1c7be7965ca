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
use gamewire_bits::{BitError, BitWriter, QuantizedFloat};

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
    let rounded = ((turns * steps as f64).round() as u64) % steps;
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
    let rounded = ((turns * steps as f64).round() as u64) % steps;
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
    let magnitude = (f64::from(value.abs()) * 2047.0).round();
    magnitude >= 1.0 || value.to_bits() == (-0.0f32).to_bits()
}

/// The step of a quantized float that decodes to `value` bit for bit, when
/// there is one near `(value - low) / scale`.
fn quantized_exact_step(q: &QuantizedFloat, value: f32) -> Option<u64> {
    if q.scale == 0.0 || !q.scale.is_finite() {
        return None;
    }
    let max = (1u64 << q.bit_count.min(63)) - 1;
    let guess = ((f64::from(value) - f64::from(q.low)) / q.scale).round();
    if !(-1.0..=max as f64 + 1.0).contains(&guess) {
        return None;
    }
    let guess = guess.max(0.0) as u64;
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
                let ticks = (f64::from(value) / f64::from(tick_interval)).round();
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
        let step = ((f64::from(value) - f64::from(q.low)) / q.scale).round();
        let step = if step.is_nan() {
            0.0
        } else {
            step.clamp(0.0, max as f64)
        };
        w.write_bits(step as u64, q.bit_count).map_err(fail)
    }
}

impl FieldDecoder {
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

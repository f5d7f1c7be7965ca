//! Property tests of the field encoders (`FieldDecoder::encode`,
//! `FloatDecoder::encode`) against the field decoders, for every decoder
//! (bools, varints, fixed 64, ammo count, minus one, strings, bytes, every
//! float form with quantized floats of random bit counts, ranges and flags,
//! vectors of 2, 3, 4 and 6, normals, every angle form, array lengths,
//! pointers, components, the fallback):
//!
//! - random bits → decode → encode: the encoding decodes to the same value
//!   bit for bit, is no longer than what was read, and when what was read
//!   is the canonical (shortest) encoding of its value, it *is* those bits;
//! - values a decoder returns (quantized steps, angle steps, coords, normals,
//!   tick counts) → encode → decode: the same value, bit for bit;
//! - arbitrary values → encode → decode: the value itself where the
//!   encoding is lossless, its documented quantization where it is not, and
//!   an error exactly where the encoding cannot hold the value; a value of
//!   the wrong type is always an error, never a panic.
//!
//! The encodings are those of `docs/formats/source2-base-types.md`.
#![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]

use gamewire_bits::quantized::{QFF_ENCODE_ZERO_EXACTLY, QFF_ROUND_DOWN, QFF_ROUND_UP};
use gamewire_bits::write_types::{quantize_angle, quantize_coord, quantize_normal, COORD_MAX};
use gamewire_bits::{BitReader, BitWriter, QuantizedFloat};
use gamewire_source2::serializer::{FieldDecoder, FloatDecoder, MAX_ARRAY_LEN};
use gamewire_source2::Value;
use proptest::prelude::*;

// ---------------------------------------------------------------- strategies

fn tick_interval() -> impl Strategy<Value = f32> {
    prop_oneof![Just(1.0 / 64.0), Just(1.0 / 30.0), Just(1.0 / 60.0)]
}

/// A bound of a quantized float: small integers, round values, anything.
fn bound() -> impl Strategy<Value = f32> {
    prop_oneof![
        (-8i32..=8).prop_map(|v| v as f32),
        prop::sample::select(vec![0.0f32, 1.0, -1.0, 360.0, -180.0, 180.0, 4096.0, 0.25]),
        -20_000.0f32..20_000.0,
        -2.0f32..2.0,
    ]
}

/// Quantized floats as `QuantizedFloat::new` accepts them: random bit
/// counts (0 and 32 and beyond give raw floats), flags and ranges.
fn quantized() -> impl Strategy<Value = QuantizedFloat> {
    (
        prop_oneof![8 => 1i32..=31, 1 => -2i32..=0, 1 => 32i32..=40],
        0i32..16,
        bound(),
        bound(),
        any::<bool>(),
    )
        .prop_filter_map(
            "QuantizedFloat::new refuses",
            |(bits, flags, a, b, order)| {
                let (low, high) = if order { (a.min(b), a.max(b)) } else { (a, b) };
                QuantizedFloat::new(Some(bits), Some(flags), Some(low), Some(high)).ok()
            },
        )
}

fn float_decoder() -> impl Strategy<Value = FloatDecoder> {
    prop_oneof![
        1 => Just(FloatDecoder::NoScale),
        1 => Just(FloatDecoder::Coord),
        1 => Just(FloatDecoder::SimTime),
        1 => Just(FloatDecoder::RuneTime),
        3 => quantized().prop_map(FloatDecoder::Quantized),
    ]
}

/// Every decoder the reader has.
fn decoder() -> impl Strategy<Value = FieldDecoder> {
    prop_oneof![
        1 => Just(FieldDecoder::Bool),
        1 => Just(FieldDecoder::I32),
        1 => Just(FieldDecoder::I64),
        1 => Just(FieldDecoder::U32),
        1 => Just(FieldDecoder::U64),
        1 => Just(FieldDecoder::Fallback),
        1 => Just(FieldDecoder::Fixed64),
        1 => Just(FieldDecoder::Component),
        1 => Just(FieldDecoder::AmmoCount),
        1 => Just(FieldDecoder::MinusOne),
        1 => Just(FieldDecoder::String),
        1 => Just(FieldDecoder::Bytes),
        4 => float_decoder().prop_map(FieldDecoder::Float),
        4 => (prop::sample::select(vec![2u8, 3, 4, 6]), float_decoder())
            .prop_map(|(n, f)| FieldDecoder::Vector(n, f)),
        1 => Just(FieldDecoder::Vec3Normal),
        1 => Just(FieldDecoder::QAnglePrecise),
        1 => (1u32..=32).prop_map(FieldDecoder::QAngleFixed),
        1 => Just(FieldDecoder::QAngleCoord),
        1 => (1u32..=32).prop_map(FieldDecoder::QAnglePitchYaw),
        1 => Just(FieldDecoder::ArrayLength),
        1 => Just(FieldDecoder::PointerPresent),
        1 => Just(FieldDecoder::PolyPointer),
    ]
}

/// Input bits: random bytes, or a short string and its NUL first (so that
/// string decoders see a terminated string).
fn input() -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => prop::collection::vec(any::<u8>(), 0..80),
        1 => ("[a-zA-Z0-9 éü_]{0,24}", prop::collection::vec(any::<u8>(), 0..40)).prop_map(
            |(s, rest)| {
                let mut v = s.into_bytes();
                v.push(0);
                v.extend(rest);
                v
            }
        ),
        // Small varints and sparse bits: zero bytes and low values.
        1 => prop::collection::vec(prop_oneof![Just(0u8), 0u8..8, any::<u8>()], 0..80),
    ]
}

/// Any f32: special values, round values, random patterns.
fn any_f32() -> impl Strategy<Value = f32> {
    prop_oneof![
        prop::sample::select(vec![
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            0.5,
            180.0,
            -180.0,
            360.0,
            f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::MIN_POSITIVE,
            f32::MAX,
            16384.0,
            16385.0,
            -16_384.969,
        ]),
        -20_000.0f32..20_000.0,
        -2.0f32..2.0,
        any::<u32>().prop_map(f32::from_bits),
    ]
}

fn string_value() -> BoxedStrategy<Value> {
    prop_oneof![
        "[a-z ]{0,20}".prop_map(String::from),
        "\\PC{0,10}".prop_map(String::from),
        Just("a\0b".to_owned()),
        Just("x".repeat(4097)),
        Just("y".repeat(4096)),
    ]
    .prop_map(|s| Value::String(s.into_boxed_str()))
    .boxed()
}

/// Values of one type.
#[derive(Debug, Clone, Copy)]
enum Kind {
    Bool,
    I32,
    U32,
    I64,
    U64,
    F32,
    Vec2,
    Vec3,
    Vec4,
    Vec6,
    String,
    Bytes,
}

fn value_of(kind: Kind) -> BoxedStrategy<Value> {
    match kind {
        Kind::Bool => any::<bool>().prop_map(Value::Bool).boxed(),
        Kind::I32 => any::<i32>().prop_map(Value::I32).boxed(),
        Kind::U32 => prop_oneof![
            any::<u32>(),
            0u32..=MAX_ARRAY_LEN + 2,
            Just(u32::MAX),
            Just(0),
        ]
        .prop_map(Value::U32)
        .boxed(),
        Kind::I64 => any::<i64>().prop_map(Value::I64).boxed(),
        Kind::U64 => any::<u64>().prop_map(Value::U64).boxed(),
        Kind::F32 => any_f32().prop_map(Value::F32).boxed(),
        Kind::Vec2 => [any_f32(), any_f32()].prop_map(Value::Vec2).boxed(),
        Kind::Vec3 => prop_oneof![
            [any_f32(), any_f32(), any_f32()],
            // Pitch-yaw values: roll 0.
            (any_f32(), any_f32()).prop_map(|(a, b)| [a, b, 0.0]),
        ]
        .prop_map(Value::Vec3)
        .boxed(),
        Kind::Vec4 => prop::array::uniform4(any_f32())
            .prop_map(Value::Vec4)
            .boxed(),
        Kind::Vec6 => prop::array::uniform6(any_f32())
            .prop_map(|v| Value::Vec6(Box::new(v)))
            .boxed(),
        Kind::String => string_value(),
        Kind::Bytes => prop::collection::vec(any::<u8>(), 0..20)
            .prop_map(|b| Value::Bytes(b.into_boxed_slice()))
            .boxed(),
    }
}

/// Any value of any type.
fn any_value() -> impl Strategy<Value = Value> {
    prop::sample::select(vec![
        Kind::Bool,
        Kind::I32,
        Kind::U32,
        Kind::I64,
        Kind::U64,
        Kind::F32,
        Kind::Vec2,
        Kind::Vec3,
        Kind::Vec4,
        Kind::Vec6,
        Kind::String,
        Kind::Bytes,
    ])
    .prop_flat_map(value_of)
}

/// The kinds of value `d` decodes to.
fn kinds(d: &FieldDecoder) -> Vec<Kind> {
    match d {
        FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent => {
            vec![Kind::Bool]
        }
        FieldDecoder::I32 => vec![Kind::I32],
        FieldDecoder::I64 | FieldDecoder::MinusOne => vec![Kind::I64],
        FieldDecoder::U32
        | FieldDecoder::AmmoCount
        | FieldDecoder::ArrayLength
        | FieldDecoder::PolyPointer => vec![Kind::U32],
        FieldDecoder::U64 | FieldDecoder::Fixed64 => vec![Kind::U64],
        FieldDecoder::Fallback => vec![Kind::U32, Kind::U64],
        FieldDecoder::String => vec![Kind::String],
        FieldDecoder::Bytes => vec![Kind::Bytes],
        FieldDecoder::Float(_) => vec![Kind::F32],
        FieldDecoder::Vector(2, _) => vec![Kind::Vec2],
        FieldDecoder::Vector(3, _) => vec![Kind::Vec3],
        FieldDecoder::Vector(4, _) => vec![Kind::Vec4],
        FieldDecoder::Vector(..) => vec![Kind::Vec6],
        _ => vec![Kind::Vec3],
    }
}

// ---------------------------------------------------------------- utilities

/// Values equal bit for bit (floats by their patterns).
fn same(a: &Value, b: &Value) -> bool {
    fn f(a: &[f32], b: &[f32]) -> bool {
        a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.to_bits() == y.to_bits())
    }
    match (a, b) {
        (Value::F32(x), Value::F32(y)) => x.to_bits() == y.to_bits(),
        (Value::Vec2(x), Value::Vec2(y)) => f(x, y),
        (Value::Vec3(x), Value::Vec3(y)) => f(x, y),
        (Value::Vec4(x), Value::Vec4(y)) => f(x, y),
        (Value::Vec6(x), Value::Vec6(y)) => f(&x[..], &y[..]),
        _ => a == b,
    }
}

/// The floats of a value, for the float decoders.
fn floats(v: &Value) -> Vec<f32> {
    match v {
        Value::F32(x) => vec![*x],
        Value::Vec2(x) => x.to_vec(),
        Value::Vec3(x) => x.to_vec(),
        Value::Vec4(x) => x.to_vec(),
        Value::Vec6(x) => x.to_vec(),
        _ => Vec::new(),
    }
}

/// The first `bits` bits of `data`, as the writer's `finish` lays them out.
fn prefix(data: &[u8], bits: u64) -> Vec<u8> {
    let bytes = bits.div_ceil(8) as usize;
    let mut out = data[..bytes].to_vec();
    if !bits.is_multiple_of(8) {
        if let Some(last) = out.last_mut() {
            *last &= (1u8 << (bits % 8)) - 1;
        }
    }
    out
}

fn encode(d: &FieldDecoder, v: &Value, ti: f32) -> Result<(Vec<u8>, u64), String> {
    let mut w = BitWriter::new();
    d.encode(&mut w, v, ti).map_err(|e| e.to_string())?;
    let bits = w.bits_written();
    Ok((w.finish(), bits))
}

fn decode(d: &FieldDecoder, data: &[u8], ti: f32) -> (Value, u64) {
    let mut r = BitReader::new(data);
    let v = d
        .decode(&mut r, ti)
        .unwrap_or_else(|e| panic!("{d:?}: {e}"));
    (v, r.position())
}

/// The angle the reader decodes from an `n`-bit step (its expression).
fn angle_of_step(raw: u64, bits: u32) -> f32 {
    raw as f32 * 360.0 / (1u64 << bits) as f32
}

// ------------------------------------------------ what "canonical" means

/// A varuint of at most `max` bytes in its shortest form; for the 32-bit
/// form, a fifth byte carries only bits 28..31 (the reader drops the rest).
/// `None` when the bytes end.
fn varuint_canonical(r: &mut BitReader<'_>, max: usize) -> Option<(bool, u64)> {
    let mut value = 0u64;
    for i in 0..max {
        let byte = r.read_u8().ok()?;
        value |= u64::from(byte & 0x7f) << (7 * i);
        let last = byte & 0x80 == 0 || i + 1 == max;
        if last {
            let shortest = i == 0 || byte != 0;
            let fits = max != 5 || i < 4 || byte <= 0x0f;
            return Some((shortest && fits, value));
        }
    }
    None
}

/// A `UBitVar` in its shortest form.
fn ubitvar_canonical(r: &mut BitReader<'_>) -> Option<(bool, u32)> {
    let head = r.read_bits(6).ok()? as u32;
    let (extra, min) = match head & 0x30 {
        0x10 => (4, 0x10),
        0x20 => (8, 0x100),
        0x30 => (28, 0x1000),
        _ => return Some((true, head)),
    };
    let value = (head & 0xf) | ((r.read_bits(extra).ok()? as u32) << 4);
    Some((value >= min, value))
}

/// A coord whose present parts are not zero (or the one form of -0.0).
fn coord_canonical(r: &mut BitReader<'_>) -> Option<(bool, f32)> {
    let has_int = r.read_bool().ok()?;
    let has_frac = r.read_bool().ok()?;
    if !has_int && !has_frac {
        return Some((true, 0.0));
    }
    let negative = r.read_bool().ok()?;
    let int = if has_int {
        r.read_bits(14).ok()? + 1
    } else {
        0
    };
    let frac = if has_frac { r.read_bits(5).ok()? } else { 0 };
    let ok = !has_frac || frac != 0 || (!has_int && negative);
    let value = int as f32 + frac as f32 / 32.0;
    Some((ok, if negative { -value } else { value }))
}

fn float_canonical(f: &FloatDecoder, r: &mut BitReader<'_>, ti: f32) -> Option<bool> {
    Some(match f {
        FloatDecoder::NoScale => r.read_u32().ok().map(|_| true)?,
        FloatDecoder::RuneTime => r.read_bits(4).ok().map(|_| true)?,
        FloatDecoder::Coord => coord_canonical(r)?.0,
        FloatDecoder::SimTime => {
            let (ok, ticks) = varuint_canonical(r, 5)?;
            // Below 2^22 ticks, distinct tick counts give distinct times.
            let _ = ti;
            ok && ticks < 1 << 22
        }
        FloatDecoder::Quantized(q) => {
            if q.no_scale {
                return r.read_u32().ok().map(|_| true);
            }
            for flag in [QFF_ROUND_DOWN, QFF_ROUND_UP, QFF_ENCODE_ZERO_EXACTLY] {
                if q.flags & flag != 0 && r.read_bool().ok()? {
                    return Some(true);
                }
            }
            let step = r.read_bits(q.bit_count).ok()?;
            let v = q.value_of_step(step);
            let max = (1u64 << q.bit_count) - 1;
            // An escape would be shorter; a neighbour with the same value
            // makes the step ambiguous.
            let escapes = (q.flags & QFF_ROUND_DOWN != 0 && v <= q.low)
                || (q.flags & QFF_ROUND_UP != 0 && v >= q.high)
                || (q.flags & QFF_ENCODE_ZERO_EXACTLY != 0 && v == 0.0);
            let unique = [step.wrapping_sub(1), step + 1]
                .into_iter()
                .filter(|&s| s <= max)
                .all(|s| q.value_of_step(s).to_bits() != v.to_bits());
            !escapes && unique
        }
    })
}

/// Whether the bits at the start of `data` are the canonical encoding of
/// the value `d` decodes from them (`None`: they do not decode).
fn canonical(d: &FieldDecoder, data: &[u8], ti: f32) -> Option<bool> {
    let r = &mut BitReader::new(data);
    let angle_unique = |bits: u32, raw: u64| {
        let v = angle_of_step(raw, bits);
        [raw.wrapping_sub(1), raw + 1]
            .into_iter()
            .filter(|&s| s < 1u64 << bits)
            .all(|s| angle_of_step(s, bits).to_bits() != v.to_bits())
    };
    Some(match d {
        FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent => true,
        FieldDecoder::Fixed64 => true,
        FieldDecoder::I32 | FieldDecoder::U32 | FieldDecoder::ArrayLength => {
            varuint_canonical(r, 5)?.0
        }
        FieldDecoder::AmmoCount => {
            let (ok, stored) = varuint_canonical(r, 5)?;
            // Stored 0 and 1 both read as 0; 0 is the one written.
            ok && stored != 1
        }
        FieldDecoder::I64 | FieldDecoder::U64 | FieldDecoder::Fallback | FieldDecoder::MinusOne => {
            varuint_canonical(r, 10)?.0
        }
        FieldDecoder::String => {
            let bytes = r.read_cstring_bytes(4096).ok()?;
            std::str::from_utf8(&bytes).is_ok()
        }
        FieldDecoder::Bytes => varuint_canonical(r, 5)?.0,
        FieldDecoder::Float(f) => float_canonical(f, r, ti)?,
        FieldDecoder::Vector(n, f) => {
            let count = if (2..=4).contains(n) {
                usize::from(*n)
            } else {
                6
            };
            let mut all = true;
            for _ in 0..count {
                all &= float_canonical(f, r, ti)?;
            }
            all
        }
        FieldDecoder::Vec3Normal => {
            let has = [r.read_bool().ok()?, r.read_bool().ok()?];
            let mut ok = true;
            for present in has {
                if present {
                    let negative = r.read_bool().ok()?;
                    let magnitude = r.read_bits(11).ok()?;
                    // A zero magnitude is only written for -0.0.
                    ok &= magnitude != 0 || negative;
                }
            }
            ok
        }
        FieldDecoder::QAnglePrecise => {
            let present = r.read_bits(3).ok()?;
            let mut ok = true;
            for i in 0..3 {
                if present >> i & 1 == 1 {
                    let raw = r.read_bits(20).ok()?;
                    // +0.0 is written as absent.
                    ok &= (angle_of_step(raw, 20) - 180.0).to_bits() != 0 && angle_unique(20, raw);
                }
            }
            ok
        }
        FieldDecoder::QAngleFixed(bits) | FieldDecoder::QAnglePitchYaw(bits) => {
            let count = if matches!(d, FieldDecoder::QAngleFixed(_)) {
                3
            } else {
                2
            };
            let mut ok = true;
            for _ in 0..count {
                let raw = r.read_bits(*bits).ok()?;
                ok &= angle_unique(*bits, raw);
            }
            ok
        }
        FieldDecoder::QAngleCoord => {
            let present = [
                r.read_bool().ok()?,
                r.read_bool().ok()?,
                r.read_bool().ok()?,
            ];
            let mut ok = true;
            for p in present {
                if p {
                    let (canon, v) = coord_canonical(r)?;
                    ok &= canon && v.to_bits() != 0;
                }
            }
            ok
        }
        FieldDecoder::PolyPointer => {
            let present = r.read_bool().ok()?;
            let (ok, index) = ubitvar_canonical(r)?;
            ok && present == (index != 0)
        }
        _ => false,
    })
}

// ------------------------------------------------------- expectations

/// Whether `d` decodes to values of `v`'s type.
fn accepts(d: &FieldDecoder, v: &Value) -> bool {
    match d {
        FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent => {
            matches!(v, Value::Bool(_))
        }
        FieldDecoder::I32 => matches!(v, Value::I32(_)),
        FieldDecoder::I64 | FieldDecoder::MinusOne => matches!(v, Value::I64(_)),
        FieldDecoder::U32
        | FieldDecoder::AmmoCount
        | FieldDecoder::ArrayLength
        | FieldDecoder::PolyPointer => matches!(v, Value::U32(_)),
        FieldDecoder::U64 | FieldDecoder::Fixed64 => matches!(v, Value::U64(_)),
        FieldDecoder::Fallback => matches!(v, Value::U32(_) | Value::U64(_)),
        FieldDecoder::String => matches!(v, Value::String(_)),
        FieldDecoder::Bytes => matches!(v, Value::Bytes(_)),
        FieldDecoder::Float(_) => matches!(v, Value::F32(_)),
        FieldDecoder::Vector(2, _) => matches!(v, Value::Vec2(_)),
        FieldDecoder::Vector(3, _) => matches!(v, Value::Vec3(_)),
        FieldDecoder::Vector(4, _) => matches!(v, Value::Vec4(_)),
        FieldDecoder::Vector(..) => matches!(v, Value::Vec6(_)),
        _ => matches!(v, Value::Vec3(_)),
    }
}

/// One float through `f`: `Some(allowed results)`, `None` when it is not
/// encodable. The value itself is always allowed (a value on a step comes
/// back exactly); otherwise the quantization the encoding documents.
fn expect_float(f: &FloatDecoder, v: f32, ti: f32) -> Option<f32> {
    match f {
        FloatDecoder::NoScale => Some(v),
        FloatDecoder::Coord => quantize_coord(v),
        FloatDecoder::SimTime => {
            let ticks = (f64::from(v) / f64::from(ti)).round();
            (0.0..=f64::from(u32::MAX))
                .contains(&ticks)
                .then_some(ticks as u32 as f32 * ti)
        }
        FloatDecoder::RuneTime => (v.to_bits() < 16).then_some(v),
        FloatDecoder::Quantized(q) => {
            if q.no_scale {
                Some(v)
            } else if v.is_nan() {
                None
            } else if q.low > q.high {
                // An inverted range: the nearest step.
                let max = (1u64 << q.bit_count) - 1;
                let step = ((f64::from(v) - f64::from(q.low)) / q.scale).round();
                let step = if step.is_nan() {
                    0.0
                } else {
                    step.clamp(0.0, max as f64)
                };
                Some(q.value_of_step(step as u64))
            } else {
                Some(q.encoded_value(v))
            }
        }
    }
}

fn float_matches(got: f32, v: f32, expected: f32) -> bool {
    got.to_bits() == v.to_bits() || got == expected || (got.is_nan() && expected.is_nan())
}

/// The rounded 20-bit step of a precise angle, decoded.
fn precise_expected(v: f32) -> f32 {
    let steps = 1u64 << 20;
    let turns = (f64::from(v) + 180.0).rem_euclid(360.0) / 360.0;
    let raw = ((turns * steps as f64).round() as u64) % steps;
    angle_of_step(raw, 20) - 180.0
}

/// Checks `got` (decoded after encoding `v` with `d`), or that encoding
/// failed exactly when it must. Returns a description of the mismatch.
fn check_value(d: &FieldDecoder, v: &Value, ti: f32) -> Result<(), String> {
    let encoded = encode(d, v, ti);
    if !accepts(d, v) {
        return match encoded {
            Err(_) => Ok(()),
            Ok(_) => Err(format!("{d:?} accepted {v:?}")),
        };
    }
    // Which inputs are errors, and the per-float expectations.
    let (encodable, expected): (bool, Vec<Option<f32>>) = match (d, v) {
        (FieldDecoder::AmmoCount, Value::U32(x)) => (*x != u32::MAX, vec![]),
        (FieldDecoder::ArrayLength, Value::U32(x)) => (*x <= MAX_ARRAY_LEN, vec![]),
        (FieldDecoder::String, Value::String(s)) => (!s.contains('\0') && s.len() <= 4096, vec![]),
        (FieldDecoder::Float(f) | FieldDecoder::Vector(_, f), _) => {
            let e: Vec<_> = floats(v).iter().map(|&x| expect_float(f, x, ti)).collect();
            (e.iter().all(Option::is_some), e)
        }
        (FieldDecoder::Vec3Normal, Value::Vec3(x)) => {
            let ok = !x.iter().any(|c| c.is_nan());
            let qx = quantize_normal(x[0]).unwrap_or(0.0);
            let qy = quantize_normal(x[1]).unwrap_or(0.0);
            let sum = qx * qx + qy * qy;
            let z = if sum < 1.0 { (1.0 - sum).sqrt() } else { 0.0 };
            let qz = if x[2].is_sign_negative() { -z } else { z };
            (ok, vec![Some(qx), Some(qy), Some(qz)])
        }
        (FieldDecoder::QAnglePrecise, Value::Vec3(x)) => (
            x.iter().all(|c| c.is_finite()),
            x.iter().map(|&c| Some(precise_expected(c))).collect(),
        ),
        (FieldDecoder::QAngleFixed(b), Value::Vec3(x)) => (
            x.iter().all(|c| c.is_finite()),
            x.iter().map(|&c| quantize_angle(c, *b)).collect(),
        ),
        (FieldDecoder::QAnglePitchYaw(b), Value::Vec3(x)) => (
            x[0].is_finite() && x[1].is_finite() && x[2].to_bits() == 0,
            vec![
                quantize_angle(x[0], *b),
                quantize_angle(x[1], *b),
                Some(0.0),
            ],
        ),
        (FieldDecoder::QAngleCoord, Value::Vec3(x)) => (
            x.iter().all(|c| c.is_finite() && c.abs() <= COORD_MAX),
            x.iter().map(|&c| quantize_coord(c)).collect(),
        ),
        _ => (true, vec![]),
    };
    let (data, bits) = match (encoded, encodable) {
        (Err(_), false) => return Ok(()),
        (Err(e), true) => return Err(format!("{d:?} refused {v:?}: {e}")),
        (Ok(_), false) => return Err(format!("{d:?} wrote the unencodable {v:?}")),
        (Ok(out), true) => out,
    };
    let (got, read) = decode(d, &data, ti);
    if read != bits {
        return Err(format!("{d:?} {v:?}: wrote {bits} bits, read {read}"));
    }
    if expected.is_empty() {
        return if same(&got, v) {
            Ok(())
        } else {
            Err(format!("{d:?}: {v:?} came back as {got:?}"))
        };
    }
    let ok = floats(&got)
        .iter()
        .zip(floats(v))
        .zip(&expected)
        .all(|((&g, x), e)| e.is_some_and(|e| float_matches(g, x, e)));
    if ok && floats(&got).len() == expected.len() {
        Ok(())
    } else {
        Err(format!(
            "{d:?}: {v:?} came back as {got:?}, expected {expected:?}"
        ))
    }
}

/// A decoder and a value of the type it decodes to, drawn widely.
fn decoder_and_value() -> impl Strategy<Value = (FieldDecoder, Value)> {
    decoder().prop_flat_map(|d| {
        prop::sample::select(kinds(&d))
            .prop_flat_map(value_of)
            .prop_map(move |v| (d, v))
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 4096, ..ProptestConfig::default() })]

    /// Random bits → decode → encode.
    #[test]
    fn decoded_values_encode_to_the_canonical_bits(
        d in decoder(),
        data in input(),
        ti in tick_interval(),
    ) {
        let mut r = BitReader::new(&data);
        let Ok(value) = d.decode(&mut r, ti) else {
            return Ok(());
        };
        let read = r.position();
        let (out, written) = encode(&d, &value, ti)
            .map_err(|e| TestCaseError::fail(format!("{d:?} refused its own {value:?}: {e}")))?;
        let (again, reread) = decode(&d, &out, ti);
        prop_assert!(same(&again, &value), "{:?}: {:?} re-read as {:?}", d, value, again);
        prop_assert_eq!(reread, written);
        let canonical = canonical(&d, &data, ti) == Some(true);
        // Shortest: never longer than what was read, but for a string that
        // was not UTF-8 (the reader replaces each bad sequence by U+FFFD).
        if canonical || d != FieldDecoder::String {
            prop_assert!(written <= read, "{:?}: wrote {} bits for {} read", d, written, read);
        }
        if canonical {
            prop_assert_eq!(written, read, "{:?} {:?}", d, value);
            prop_assert_eq!(out, prefix(&data, read), "{:?} {:?}", d, value);
        }
    }

    /// Arbitrary values of the decoder's type → encode → decode.
    #[test]
    fn values_come_back_exactly_or_quantized(
        (d, v) in decoder_and_value(),
        ti in tick_interval(),
    ) {
        check_value(&d, &v, ti).map_err(TestCaseError::fail)?;
    }

    /// Any value with any decoder: an error for the wrong type, never a
    /// panic, and what is written decodes.
    #[test]
    fn any_value_with_any_decoder(d in decoder(), v in any_value(), ti in tick_interval()) {
        check_value(&d, &v, ti).map_err(TestCaseError::fail)?;
    }

    /// Quantized floats: every step and every escape a decoder can return
    /// comes back bit for bit, for random bit counts, ranges and flags.
    #[test]
    fn quantized_steps_come_back_exactly(
        q in quantized(),
        step in any::<u64>(),
        escape in 0usize..6,
    ) {
        let f = FloatDecoder::Quantized(q);
        let value = if q.no_scale {
            f32::from_bits(step as u32)
        } else {
            match escape {
                0 if q.flags & QFF_ROUND_DOWN != 0 => q.low,
                1 if q.flags & QFF_ROUND_UP != 0 => q.high,
                2 if q.flags & QFF_ENCODE_ZERO_EXACTLY != 0 => 0.0,
                _ => q.value_of_step(step & ((1u64 << q.bit_count) - 1)),
            }
        };
        let d = FieldDecoder::Float(f);
        let (out, bits) = encode(&d, &Value::F32(value), 1.0 / 64.0).map_err(TestCaseError::fail)?;
        let (got, read) = decode(&d, &out, 1.0 / 64.0);
        prop_assert!(same(&got, &Value::F32(value)), "{:?}: {} came back as {:?}", q, value, got);
        prop_assert_eq!(read, bits);
    }

    /// Angles, coords, normals and tick counts a decoder returns come back
    /// bit for bit.
    #[test]
    fn decoded_steps_come_back_exactly(
        bits in 1u32..=32,
        raw in any::<u64>(),
        coord in (any::<bool>(), 0u32..(1 << 14) + 1, 0u32..32),
        normal in (any::<bool>(), 0u32..2048, any::<bool>(), 0u32..2048, any::<bool>()),
        ticks in any::<u32>(),
        ti in tick_interval(),
    ) {
        let raw = raw & ((1u64 << bits) - 1);
        let angle = angle_of_step(raw, bits);
        let precise = angle_of_step(raw & 0xf_ffff, 20) - 180.0;
        let precise2 = angle_of_step(u64::from(ticks) & 0xf_ffff, 20) - 180.0;
        let (negative, int, frac) = coord;
        let c = int as f32 + frac as f32 / 32.0;
        let c = if negative { -c } else { c };
        let n = |neg: bool, m: u32| {
            let x = m as f32 * (1.0 / 2047.0);
            if neg { -x } else { x }
        };
        let (x, y) = (n(normal.0, normal.1), n(normal.2, normal.3));
        let sum = x * x + y * y;
        let z = if sum < 1.0 { (1.0 - sum).sqrt() } else { 0.0 };
        let z = if normal.4 { -z } else { z };
        let cases = [
            (FieldDecoder::QAngleFixed(bits), Value::Vec3([angle, angle, 0.0])),
            (FieldDecoder::QAnglePitchYaw(bits), Value::Vec3([angle, angle, 0.0])),
            (FieldDecoder::QAnglePrecise, Value::Vec3([precise, 0.0, precise2])),
            (FieldDecoder::Float(FloatDecoder::Coord), Value::F32(c)),
            (FieldDecoder::QAngleCoord, Value::Vec3([c, -c, 0.0])),
            (FieldDecoder::Vec3Normal, Value::Vec3([x, y, z])),
            (FieldDecoder::Float(FloatDecoder::SimTime), Value::F32(ticks as f32 * ti)),
        ];
        for (d, v) in cases {
            let (out, written) = encode(&d, &v, ti).map_err(TestCaseError::fail)?;
            let (got, read) = decode(&d, &out, ti);
            prop_assert!(same(&got, &v), "{:?}: {:?} came back as {:?}", d, v, got);
            prop_assert_eq!(read, written);
        }
    }
}

/// Every decoder form and a representative value, written and read: the
/// encoders exist for every arm (a new arm without an encoder fails here
/// with "accepted"/"refused").
#[test]
fn every_decoder_arm_round_trips_a_value() {
    let q = QuantizedFloat::new(Some(10), Some(4), Some(-100.0), Some(100.0)).unwrap();
    let cases = [
        (FieldDecoder::Bool, Value::Bool(true)),
        (FieldDecoder::Component, Value::Bool(true)),
        (FieldDecoder::PointerPresent, Value::Bool(false)),
        (FieldDecoder::I32, Value::I32(-5)),
        (FieldDecoder::I64, Value::I64(-1 << 40)),
        (FieldDecoder::U32, Value::U32(300)),
        (FieldDecoder::U64, Value::U64(1 << 50)),
        (FieldDecoder::Fallback, Value::U32(7)),
        (FieldDecoder::Fallback, Value::U64(1 << 40)),
        (FieldDecoder::Fixed64, Value::U64(76561198000000000)),
        (FieldDecoder::AmmoCount, Value::U32(30)),
        (FieldDecoder::MinusOne, Value::I64(-1)),
        (FieldDecoder::String, Value::String("weapon_ak47".into())),
        (
            FieldDecoder::Bytes,
            Value::Bytes(vec![1, 2, 3].into_boxed_slice()),
        ),
        (FieldDecoder::Float(FloatDecoder::NoScale), Value::F32(1.5)),
        (FieldDecoder::Float(FloatDecoder::Coord), Value::F32(-12.5)),
        (FieldDecoder::Float(FloatDecoder::SimTime), Value::F32(2.0)),
        (
            FieldDecoder::Float(FloatDecoder::RuneTime),
            Value::F32(f32::from_bits(9)),
        ),
        (
            FieldDecoder::Float(FloatDecoder::Quantized(q)),
            Value::F32(0.0),
        ),
        (
            FieldDecoder::Vector(2, FloatDecoder::NoScale),
            Value::Vec2([1.0, 2.0]),
        ),
        (
            FieldDecoder::Vector(3, FloatDecoder::Coord),
            Value::Vec3([1.0, -2.0, 0.5]),
        ),
        (
            FieldDecoder::Vector(4, FloatDecoder::NoScale),
            Value::Vec4([1.0, 2.0, 3.0, 4.0]),
        ),
        (
            FieldDecoder::Vector(6, FloatDecoder::NoScale),
            Value::Vec6(Box::new([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])),
        ),
        (FieldDecoder::Vec3Normal, Value::Vec3([0.0, 0.0, 1.0])),
        (FieldDecoder::QAnglePrecise, Value::Vec3([0.0, 90.0, 0.0])),
        (
            FieldDecoder::QAngleFixed(8),
            Value::Vec3([45.0, 90.0, 180.0]),
        ),
        (FieldDecoder::QAngleCoord, Value::Vec3([1.0, 0.0, -3.0])),
        (
            FieldDecoder::QAnglePitchYaw(16),
            Value::Vec3([90.0, 270.0, 0.0]),
        ),
        (FieldDecoder::ArrayLength, Value::U32(12)),
        (FieldDecoder::PolyPointer, Value::U32(2)),
    ];
    for (d, v) in &cases {
        let (out, bits) = encode(d, v, 1.0 / 64.0).unwrap();
        let (got, read) = decode(d, &out, 1.0 / 64.0);
        assert!(same(&got, v), "{d:?}: {v:?} came back as {got:?}");
        assert_eq!(read, bits, "{d:?}");
    }
    // Errors name the decoder and the value.
    let err = FieldDecoder::U32
        .encode(&mut BitWriter::new(), &Value::F32(1.0), 1.0 / 64.0)
        .unwrap_err()
        .to_string();
    assert!(err.contains("u32") && err.contains("F32(1.0)"), "{err}");
    let err = FieldDecoder::Float(FloatDecoder::Quantized(q))
        .encode(&mut BitWriter::new(), &Value::F32(f32::NAN), 1.0 / 64.0)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("quantized(bits=10") && err.contains("NaN"),
        "{err}"
    );
}

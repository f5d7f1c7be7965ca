//! Field decoders: how one value of a send-table field is read from the
//! entity bitstream ([`FieldDecoder`], [`FloatDecoder`]): varints, bools,
//! quantized and coordinate floats, normals, vectors, angles, strings,
//! handles and the lengths of variable arrays. The encodings are those of
//! demoinfocs-golang `field_decoder.go`, clarity's decoders and haste's
//! `fielddecoder.rs`, checked against real demos.

use gamewire_bits::{BitError, BitReader, QuantizedFloat};

use crate::value::Value;

/// Largest fixed array or variable array/table length we accept.
pub const MAX_ARRAY_LEN: u32 = 1 << 14;

/// How a float is encoded.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum FloatDecoder {
    /// 32 raw bits.
    NoScale,
    /// A coord (docs/formats/source2-base-types.md, "Coord").
    Coord,
    /// Ticks as varuint32, times the tick interval.
    SimTime,
    /// Four bits reinterpreted as a float (Dota 2 rune time).
    RuneTime,
    /// A quantized float.
    Quantized(QuantizedFloat),
}

impl FloatDecoder {
    #[inline]
    pub(super) fn decode(
        &self,
        r: &mut BitReader<'_>,
        tick_interval: f32,
    ) -> Result<f32, BitError> {
        match self {
            FloatDecoder::NoScale => r.read_f32(),
            FloatDecoder::Coord => r.read_coord(),
            FloatDecoder::SimTime => r.read_simulation_time(tick_interval),
            FloatDecoder::RuneTime => r.read_rune_time(),
            FloatDecoder::Quantized(q) => q.decode(r),
        }
    }

    pub(super) fn describe(&self) -> String {
        match self {
            FloatDecoder::NoScale => "noscale".into(),
            FloatDecoder::Coord => "coord".into(),
            FloatDecoder::SimTime => "simtime".into(),
            FloatDecoder::RuneTime => "runetime".into(),
            FloatDecoder::Quantized(q) => format!(
                "quantized(bits={}, low={}, high={}, flags={})",
                q.bit_count, q.low, q.high, q.flags
            ),
        }
    }
}

/// How one value is read from the entity bitstream.
#[derive(Debug, Clone, Copy, PartialEq)]
#[non_exhaustive]
pub enum FieldDecoder {
    /// One bit.
    Bool,
    /// ZigZag varint32.
    I32,
    /// ZigZag varint64.
    I64,
    /// varuint32.
    U32,
    /// varuint64.
    U64,
    /// varuint64 for a type we do not know (reported as a fallback).
    Fallback,
    /// 64 raw bits, little-endian.
    Fixed64,
    /// One bit (component presence).
    Component,
    /// varuint32 minus one, not below zero (`m_iClip1`, the ammo count of docs/formats/source2-base-types.md).
    AmmoCount,
    /// varuint64 minus one (the `minusone` var serializer), signed.
    MinusOne,
    /// A null-terminated string.
    String,
    /// varuint32 length, then bytes.
    Bytes,
    /// A float.
    Float(FloatDecoder),
    /// `n` floats.
    Vector(u8, FloatDecoder),
    /// A vec3 normal (docs/formats/source2-base-types.md, "Vec3 normal").
    Vec3Normal,
    /// A precise angle triple (docs/formats/source2-base-types.md, "Angles").
    QAnglePrecise,
    /// An angle triple of fixed-width angles with this many bits
    /// (docs/formats/source2-base-types.md, "Angles").
    QAngleFixed(u32),
    /// An angle triple of coords (docs/formats/source2-base-types.md, "Angles").
    QAngleCoord,
    /// Pitch and yaw of `n` bits, roll zero (`qangle_pitch_yaw`).
    QAnglePitchYaw(u32),
    /// The new length of a variable array or table (varuint32, at most
    /// [`MAX_ARRAY_LEN`]).
    ArrayLength,
    /// A pointer's "present" bit.
    PointerPresent,
    /// A polymorphic pointer: a present bit and a UBitVar type index.
    PolyPointer,
}

/// The new length of a variable array or table: a varuint32 of at most
/// [`MAX_ARRAY_LEN`] (a longer one is an error, which bounds memory).
#[inline]
pub(crate) fn read_array_length(r: &mut BitReader<'_>) -> Result<u32, BitError> {
    let start = r.position();
    let len = r.read_varuint32()?;
    if len > MAX_ARRAY_LEN {
        return Err(BitError::OutOfRange {
            bit_offset: start,
            value: i64::from(len),
            min: 0,
            max: i64::from(MAX_ARRAY_LEN),
        });
    }
    Ok(len)
}

/// A polymorphic pointer: a present bit and a UBitVar type index; the
/// stored value is the index, 0 when absent.
#[inline]
pub(crate) fn read_poly_pointer(r: &mut BitReader<'_>) -> Result<u32, BitError> {
    let present = r.read_bool()?;
    let index = r.read_ubitvar()?;
    Ok(if present { index } else { 0 })
}

impl FieldDecoder {
    /// Decodes one value.
    #[inline]
    pub fn decode(&self, r: &mut BitReader<'_>, tick_interval: f32) -> Result<Value, BitError> {
        let mut value = Value::Bool(false);
        self.decode_to(r, tick_interval, &mut value)?;
        Ok(value)
    }

    /// Decodes one value into `out`, replacing what it held; on an error
    /// `out` keeps its old value.
    ///
    /// Each arm writes its value straight into `out`: an entity's state is
    /// decoded this way, into its own arena, since a value returned and
    /// then moved there is read back in pieces that the processor cannot
    /// forward from its store buffer (`FieldState::fill` says more).
    #[inline]
    pub fn decode_to(
        &self,
        r: &mut BitReader<'_>,
        tick_interval: f32,
        out: &mut Value,
    ) -> Result<(), BitError> {
        match self {
            FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent => {
                *out = Value::Bool(r.read_bool()?);
            }
            FieldDecoder::I32 => *out = Value::I32(r.read_varint32()?),
            FieldDecoder::I64 => *out = Value::I64(r.read_varint64()?),
            FieldDecoder::U32 => *out = Value::U32(r.read_varuint32()?),
            FieldDecoder::ArrayLength => *out = Value::U32(read_array_length(r)?),
            FieldDecoder::U64 | FieldDecoder::Fallback => {
                let v = r.read_varuint64()?;
                *out = match u32::try_from(v) {
                    Ok(small) if matches!(self, FieldDecoder::Fallback) => Value::U32(small),
                    _ => Value::U64(v),
                };
            }
            FieldDecoder::Fixed64 => *out = Value::U64(r.read_u64()?),
            FieldDecoder::AmmoCount => *out = Value::U32(r.read_ammo_count()?),
            FieldDecoder::MinusOne => {
                *out = Value::I64((r.read_varuint64()? as i64).wrapping_sub(1));
            }
            FieldDecoder::String => {
                *out = Value::String(r.read_string_terminated()?.into_boxed_str());
            }
            FieldDecoder::Bytes => {
                let len = r.read_varuint32()? as usize;
                *out = Value::Bytes(r.read_bytes(len)?.into_boxed_slice());
            }
            FieldDecoder::Float(f) => *out = Value::F32(f.decode(r, tick_interval)?),
            FieldDecoder::Vector(n, f) => match n {
                2 => {
                    let v = [f.decode(r, tick_interval)?, f.decode(r, tick_interval)?];
                    *out = Value::Vec2(v);
                }
                3 => {
                    let v = [
                        f.decode(r, tick_interval)?,
                        f.decode(r, tick_interval)?,
                        f.decode(r, tick_interval)?,
                    ];
                    *out = Value::Vec3(v);
                }
                4 => {
                    let v = [
                        f.decode(r, tick_interval)?,
                        f.decode(r, tick_interval)?,
                        f.decode(r, tick_interval)?,
                        f.decode(r, tick_interval)?,
                    ];
                    *out = Value::Vec4(v);
                }
                _ => {
                    let mut v = [0f32; 6];
                    for slot in &mut v {
                        *slot = f.decode(r, tick_interval)?;
                    }
                    *out = Value::Vec6(Box::new(v));
                }
            },
            FieldDecoder::Vec3Normal => *out = Value::Vec3(r.read_vec3_normal()?),
            FieldDecoder::QAnglePrecise => *out = Value::Vec3(r.read_qangle_precise()?),
            FieldDecoder::QAngleFixed(bits) => *out = Value::Vec3(r.read_qangle_fixed(*bits)?),
            FieldDecoder::QAngleCoord => *out = Value::Vec3(r.read_qangle_coord()?),
            FieldDecoder::QAnglePitchYaw(bits) => {
                let v = [r.read_angle(*bits)?, r.read_angle(*bits)?, 0.0];
                *out = Value::Vec3(v);
            }
            FieldDecoder::PolyPointer => *out = Value::U32(read_poly_pointer(r)?),
        }
        Ok(())
    }

    /// Reads past one value without keeping it (an entity whose class
    /// nobody asked for): the same bits and the same errors as
    /// [`FieldDecoder::decode`], nothing built. Its own code, so that
    /// `decode` stays inlined where entities are decoded.
    #[inline(never)]
    pub fn skip(&self, r: &mut BitReader<'_>, tick_interval: f32) -> Result<(), BitError> {
        match self {
            FieldDecoder::Bool | FieldDecoder::Component | FieldDecoder::PointerPresent => {
                r.read_bool().map(drop)
            }
            FieldDecoder::I32 => r.read_varint32().map(drop),
            FieldDecoder::I64 => r.read_varint64().map(drop),
            FieldDecoder::U32 => r.read_varuint32().map(drop),
            FieldDecoder::U64 | FieldDecoder::Fallback | FieldDecoder::MinusOne => {
                r.read_varuint64().map(drop)
            }
            FieldDecoder::Fixed64 => r.read_u64().map(drop),
            FieldDecoder::AmmoCount => r.read_ammo_count().map(drop),
            FieldDecoder::String => r.read_string_terminated().map(drop),
            FieldDecoder::Bytes => {
                let len = r.read_varuint32()?;
                r.skip_bits(u64::from(len) * 8)
            }
            FieldDecoder::Float(f) => f.decode(r, tick_interval).map(drop),
            FieldDecoder::Vector(n, f) => {
                let count = match n {
                    2..=4 => usize::from(*n),
                    _ => 6,
                };
                for _ in 0..count {
                    f.decode(r, tick_interval)?;
                }
                Ok(())
            }
            FieldDecoder::Vec3Normal => r.read_vec3_normal().map(drop),
            FieldDecoder::QAnglePrecise => r.read_qangle_precise().map(drop),
            FieldDecoder::QAngleFixed(bits) => r.read_qangle_fixed(*bits).map(drop),
            FieldDecoder::QAngleCoord => r.read_qangle_coord().map(drop),
            FieldDecoder::QAnglePitchYaw(bits) => {
                r.read_angle(*bits)?;
                r.read_angle(*bits).map(drop)
            }
            FieldDecoder::ArrayLength => read_array_length(r).map(drop),
            FieldDecoder::PolyPointer => read_poly_pointer(r).map(drop),
        }
    }

    /// A short description for `gamewire schema`.
    pub fn describe(&self) -> String {
        match self {
            FieldDecoder::Float(f) => f.describe(),
            FieldDecoder::Vector(n, f) => format!("vector{n}<{}>", f.describe()),
            FieldDecoder::QAngleFixed(b) => format!("qangle_fixed({b})"),
            FieldDecoder::QAnglePitchYaw(b) => format!("qangle_pitch_yaw({b})"),
            other => format!("{other:?}").to_lowercase(),
        }
    }
}

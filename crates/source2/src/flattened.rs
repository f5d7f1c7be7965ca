//! A borrowing reader of `CSVCMsg_FlattenedSerializer`, the message that
//! carries the send tables.
//!
//! The message is protobuf (proto2) with three repeated top-level fields and
//! one optional one:
//!
//! | tag | field | here |
//! |---|---|---|
//! | 1 | `serializers` (`ProtoFlattenedSerializer_t`) | [`RawSerializer`] |
//! | 2 | `symbols` (string) | `&str` slices of the input |
//! | 3 | `fields` (`ProtoFlattenedSerializerField_t`) | [`RawField`], decoded on demand |
//! | 4 | `coord_size_params` (`ProtoCoordSizeParams_t`, optional) | [`CoordSizeParams`] |
//!
//! A serializer has `serializer_name_sym` (1), `serializer_version` (2) and
//! `fields_index` (3, repeated int32, packed or not). A field has
//! `var_type_sym` (1), `var_name_sym` (2), `bit_count` (3), `low_value` (4,
//! float), `high_value` (5, float), `encode_flags` (6),
//! `field_serializer_name_sym` (7), `field_serializer_version` (8),
//! `send_node_sym` (9), `var_encoder_sym` (10), `polymorphic_types` (11,
//! repeated message of a name symbol (1) and a version (2)) and
//! `var_serializer_sym` (12); `send_node_sym` and tag 13 (`var_enum_info`)
//! are checked and dropped, unknown tags skipped. Tags and types are those of the generated
//! `source2_demo_protobufs` types, which decode the same bytes to the same
//! values (a corpus test and a property test compare the two).
//!
//! Why not the generated type: a CS2 demo's message has about 2 000 symbols
//! and 7 000 fields; decoding it into owned structs (a `String` per symbol, a
//! struct of thirteen options and a vector per field) was a quarter of a
//! whole-demo parse and most of its fresh memory. This reader copies
//! nothing: symbols are slices of the input, fields stay bytes until the
//! send tables are built from them, one at a time.
//!
//! Malformed input (a truncated varint or length, a wire type that does not
//! fit the tag, a group) is an error naming the byte offset in the message.

use source2_demo_protobufs::{ProtoFlattenedSerializerFieldT, ProtoFlattenedSerializerT};

use crate::error::{ErrorKind, SendTablesError};
use crate::wire::{Wire, WireError, LEN};

const WHAT: &str = "CSVCMsg_FlattenedSerializer";

fn in_message(e: WireError) -> ErrorKind {
    e.in_message(WHAT)
}

/// The top level of the message: symbols decoded, serializers and fields
/// still bytes.
#[derive(Debug, Default)]
pub(crate) struct RawMessage<'a> {
    pub symbols: Vec<&'a str>,
    serializers: Vec<(&'a [u8], usize)>,
    fields: Vec<(&'a [u8], usize)>,
    /// Tag 4, when the message has it.
    pub coord_size_params: Option<CoordSizeParams>,
}

/// The bit sizes of the coordinate encodings a `CSVCMsg_FlattenedSerializer`
/// may declare (`ProtoCoordSizeParams_t`: tags 1 to 6, all `int32`). No
/// corpus demo has them; the decoders use the fixed sizes of the Source 2 base types
/// (14 integer and 5 fractional bits for `coord`, 11 fractional bits for
/// normals), and the parser warns when a demo declares other ones.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
pub struct CoordSizeParams {
    /// `coord_integer_bits` (1).
    pub coord_integer_bits: Option<i32>,
    /// `coord_fractional_bits` (2).
    pub coord_fractional_bits: Option<i32>,
    /// `coord_integer_bits_mp` (3).
    pub coord_integer_bits_mp: Option<i32>,
    /// `coord_fractional_bits_mp` (4).
    pub coord_fractional_bits_mp: Option<i32>,
    /// `normal_fractional_bits` (5).
    pub normal_fractional_bits: Option<i32>,
    /// `angle_bits` (6).
    pub angle_bits: Option<i32>,
}

impl CoordSizeParams {
    /// The same parameters from the generated type.
    pub fn from_generated(p: &source2_demo_protobufs::ProtoCoordSizeParamsT) -> CoordSizeParams {
        CoordSizeParams {
            coord_integer_bits: p.coord_integer_bits,
            coord_fractional_bits: p.coord_fractional_bits,
            coord_integer_bits_mp: p.coord_integer_bits_mp,
            coord_fractional_bits_mp: p.coord_fractional_bits_mp,
            normal_fractional_bits: p.normal_fractional_bits,
            angle_bits: p.angle_bits,
        }
    }

    /// What the parameters set that the decoders do not use as declared:
    /// (parameter, declared, used) for the coord and normal sizes that
    /// differ from those fixed sizes
    /// (docs/formats/source2-base-types.md).
    pub fn differences(&self) -> Vec<(&'static str, i32, u32)> {
        use gamewire_bits::types::{
            COORD_FRACTIONAL_BITS, COORD_INTEGER_BITS, NORMAL_FRACTIONAL_BITS,
        };
        [
            (
                "coord_integer_bits",
                self.coord_integer_bits,
                COORD_INTEGER_BITS,
            ),
            (
                "coord_fractional_bits",
                self.coord_fractional_bits,
                COORD_FRACTIONAL_BITS,
            ),
            (
                "normal_fractional_bits",
                self.normal_fractional_bits,
                NORMAL_FRACTIONAL_BITS,
            ),
        ]
        .into_iter()
        .filter_map(|(name, declared, used)| {
            declared
                .filter(|&d| i64::from(d) != i64::from(used))
                .map(|d| (name, d, used))
        })
        .collect()
    }
}

/// Reads a `ProtoCoordSizeParams_t` into `params`: a message given twice is
/// merged, the later one's fields replacing the earlier ones', as protobuf
/// merges a repeated singular message.
fn decode_coord_params(mut w: Wire<'_>, params: &mut CoordSizeParams) -> Result<(), WireError> {
    while !w.at_end() {
        let (tag, wire_type) = w.key()?;
        let slot = match tag {
            1 => &mut params.coord_integer_bits,
            2 => &mut params.coord_fractional_bits,
            3 => &mut params.coord_integer_bits_mp,
            4 => &mut params.coord_fractional_bits_mp,
            5 => &mut params.normal_fractional_bits,
            6 => &mut params.angle_bits,
            _ => {
                w.skip(wire_type)?;
                continue;
            }
        };
        *slot = Some(w.int32(wire_type)?);
    }
    Ok(())
}

/// One serializer, symbols as indices.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct RawSerializer {
    pub name_sym: Option<i32>,
    pub version: Option<i32>,
    /// The `int32` field indices, as `u32` (a negative index becomes a
    /// large one, which the bounds check rejects).
    pub fields_index: Vec<u32>,
}

/// One field, symbols as indices.
#[derive(Debug, Default, Clone, PartialEq)]
pub(crate) struct RawField {
    pub var_type_sym: Option<i32>,
    pub var_name_sym: Option<i32>,
    pub bit_count: Option<i32>,
    pub low_value: Option<f32>,
    pub high_value: Option<f32>,
    pub encode_flags: Option<i32>,
    pub field_serializer_name_sym: Option<i32>,
    pub field_serializer_version: Option<i32>,
    pub var_encoder_sym: Option<i32>,
    pub var_serializer_sym: Option<i32>,
    /// (name symbol, version) of each polymorphic serializer.
    pub polymorphic: Vec<(Option<i32>, Option<i32>)>,
}

impl RawSerializer {
    /// The same serializer from the generated type.
    pub fn from_generated(s: &ProtoFlattenedSerializerT) -> RawSerializer {
        RawSerializer {
            name_sym: s.serializer_name_sym,
            version: s.serializer_version,
            fields_index: s.fields_index.iter().map(|&i| i as u32).collect(),
        }
    }
}

impl RawField {
    /// The same field from the generated type.
    pub fn from_generated(f: &ProtoFlattenedSerializerFieldT) -> RawField {
        RawField {
            var_type_sym: f.var_type_sym,
            var_name_sym: f.var_name_sym,
            bit_count: f.bit_count,
            low_value: f.low_value,
            high_value: f.high_value,
            encode_flags: f.encode_flags,
            field_serializer_name_sym: f.field_serializer_name_sym,
            field_serializer_version: f.field_serializer_version,
            var_encoder_sym: f.var_encoder_sym,
            var_serializer_sym: f.var_serializer_sym,
            polymorphic: f
                .polymorphic_types
                .iter()
                .map(|p| {
                    (
                        p.polymorphic_field_serializer_name_sym,
                        p.polymorphic_field_serializer_version,
                    )
                })
                .collect(),
        }
    }
}

impl<'a> RawMessage<'a> {
    /// Splits the message into its symbols, serializers and fields.
    pub fn parse(body: &'a [u8]) -> Result<Self, ErrorKind> {
        let mut w = Wire::new(body, 0);
        let mut msg = RawMessage::default();
        // Symbols as (offset, length) in `body`, checked once all are found.
        let mut symbols: Vec<(usize, usize)> = Vec::new();
        while !w.at_end() {
            let (tag, wire_type) = w.key().map_err(in_message)?;
            match tag {
                1..=3 => {
                    let m = w.message(wire_type).map_err(in_message)?;
                    match tag {
                        1 => msg.serializers.push((m.data, m.base)),
                        3 => msg.fields.push((m.data, m.base)),
                        _ => symbols.push((m.base, m.data.len())),
                    }
                }
                4 => {
                    let m = w.message(wire_type).map_err(in_message)?;
                    let params = msg.coord_size_params.get_or_insert_with(Default::default);
                    decode_coord_params(m, params).map_err(in_message)?;
                }
                _ => w.skip(wire_type).map_err(in_message)?,
            }
        }
        msg.symbols = symbols_as_text(body, &symbols)?;
        Ok(msg)
    }

    /// The serializers, decoded.
    pub fn serializers(&self) -> impl Iterator<Item = Result<RawSerializer, ErrorKind>> + '_ {
        self.serializers
            .iter()
            .map(|&(data, base)| decode_serializer(Wire::new(data, base)).map_err(in_message))
    }

    /// Where each field message sits in the message: (offset, length).
    pub fn field_spans(&self) -> Vec<(usize, usize)> {
        self.fields
            .iter()
            .map(|&(data, base)| (base, data.len()))
            .collect()
    }
}

/// Decodes field `index` of a message whose fields sit at `spans` of
/// `body` ([`RawMessage::field_spans`]) into `field` (cleared first; its
/// polymorphic vector keeps its allocation).
pub(crate) fn field_at(
    body: &[u8],
    spans: &[(usize, usize)],
    index: usize,
    field: &mut RawField,
) -> Result<(), ErrorKind> {
    let data = spans
        .get(index)
        .and_then(|&(at, len)| body.get(at..at.checked_add(len)?));
    let (Some(data), Some(&(base, _))) = (data, spans.get(index)) else {
        return Err(ErrorKind::SendTables(SendTablesError::NoField { index }));
    };
    decode_field(Wire::new(data, base), field).map_err(in_message)
}

/// The symbols at `spans` (offset, length) of `body` as text.
///
/// The symbols usually sit one after the other, each behind a one-byte
/// key and a one-byte length (both ASCII), so the whole stretch from the
/// first to the last is checked as UTF-8 at once and each symbol is a slice
/// of it; a symbol that does not start and end on a character boundary of
/// the stretch, or any symbol when the stretch is not UTF-8, is checked on
/// its own (the result is the same either way).
fn symbols_as_text<'a>(
    body: &'a [u8],
    spans: &[(usize, usize)],
) -> Result<Vec<&'a str>, ErrorKind> {
    let start = spans.iter().map(|&(at, _)| at).min().unwrap_or(0);
    let end = spans.iter().map(|&(at, len)| at + len).max().unwrap_or(0);
    let stretch = body
        .get(start..end)
        .and_then(|b| std::str::from_utf8(b).ok());
    spans
        .iter()
        .enumerate()
        .map(|(i, &(at, len))| {
            let whole = stretch.and_then(|s| s.get(at - start..at - start + len));
            match whole {
                Some(text) => Ok(text),
                None => body
                    .get(at..at + len)
                    .and_then(|b| std::str::from_utf8(b).ok())
                    .ok_or(ErrorKind::SendTables(SendTablesError::SymbolNotUtf8 {
                        symbol: i,
                    })),
            }
        })
        .collect()
}

fn decode_serializer(mut w: Wire<'_>) -> Result<RawSerializer, WireError> {
    // Field indices come one per key (two or three bytes each).
    let mut s = RawSerializer::default();
    // A local vector (not the field of `s`), so the loop keeps its length
    // and end in registers.
    let mut fields_index: Vec<u32> = Vec::with_capacity(w.data.len() / 2);
    loop {
        // Fast path: a run of unpacked field indices (key 0x18: tag 3,
        // varint) of one to three bytes, i.e. almost every entry.
        let mut rest = w.data.get(w.pos..).unwrap_or(&[]);
        let before = rest.len();
        loop {
            match rest {
                [0x18, b0 @ 0..=0x7f, tail @ ..] => {
                    fields_index.push(u32::from(*b0));
                    rest = tail;
                }
                [0x18, b0 @ 0x80..=0xff, b1 @ 0..=0x7f, tail @ ..] => {
                    fields_index.push(u32::from(b0 & 0x7f) | u32::from(*b1) << 7);
                    rest = tail;
                }
                // Three bytes: field indices of 16 384 and above (Dota 2
                // has more fields than that).
                [0x18, b0 @ 0x80..=0xff, b1 @ 0x80..=0xff, b2 @ 0..=0x7f, tail @ ..] => {
                    fields_index.push(
                        u32::from(b0 & 0x7f) | u32::from(b1 & 0x7f) << 7 | u32::from(*b2) << 14,
                    );
                    rest = tail;
                }
                _ => break,
            }
        }
        w.pos += before - rest.len();
        if w.at_end() {
            break;
        }
        let (tag, wire_type) = w.key()?;
        match tag {
            1 => s.name_sym = Some(w.int32(wire_type)?),
            2 => s.version = Some(w.int32(wire_type)?),
            3 if wire_type == LEN => {
                let mut packed = w.message(wire_type)?;
                while !packed.at_end() {
                    fields_index.push(packed.varint()? as i32 as u32);
                }
            }
            3 => fields_index.push(w.int32(wire_type)? as u32),
            _ => w.skip(wire_type)?,
        }
    }
    s.fields_index = fields_index;
    Ok(s)
}

/// Where the `int32` field `tag` of a field message goes: `Some(Some(slot))`;
/// `Some(None)` for `send_node_sym` (9), read and dropped; `None` for a tag
/// that is not an `int32`. Both readers of [`decode_field`] take their
/// `int32` tags from here.
#[inline(always)]
fn int32_slot(field: &mut RawField, tag: u64) -> Option<Option<&mut Option<i32>>> {
    Some(Some(match tag {
        1 => &mut field.var_type_sym,
        2 => &mut field.var_name_sym,
        3 => &mut field.bit_count,
        6 => &mut field.encode_flags,
        7 => &mut field.field_serializer_name_sym,
        8 => &mut field.field_serializer_version,
        9 => return Some(None),
        10 => &mut field.var_encoder_sym,
        12 => &mut field.var_serializer_sym,
        _ => return None,
    }))
}

/// Sets the `int32` field that `key` (one byte: below 0x80, wire type
/// varint) names, for the fast path of [`decode_field`]; false for a key
/// it leaves to the full reader.
#[inline(always)]
fn set_small_int(field: &mut RawField, key: u8, value: i32) -> bool {
    if key & 0x87 != 0 {
        return false;
    }
    match int32_slot(field, u64::from(key >> 3)) {
        Some(Some(slot)) => *slot = Some(value),
        Some(None) => {}
        None => return false,
    }
    true
}

fn decode_field(mut w: Wire<'_>, field: &mut RawField) -> Result<(), WireError> {
    let mut poly = std::mem::take(&mut field.polymorphic);
    poly.clear();
    *field = RawField::default();
    loop {
        // Fast path: a run of one-byte keys with a varint of one or two
        // bytes (every symbol, count and flag of a real message) or a float,
        // the encodings the full reader below decodes to the same values.
        // Anything else (a longer varint, a polymorphic list, an unknown
        // tag) goes to the full reader, one key at a time.
        let mut rest = w.data.get(w.pos..).unwrap_or(&[]);
        let before = rest.len();
        loop {
            match rest {
                [key, b0 @ 0..=0x7f, tail @ ..] if set_small_int(field, *key, i32::from(*b0)) => {
                    rest = tail;
                }
                [key, b0 @ 0x80..=0xff, b1 @ 0..=0x7f, tail @ ..]
                    if set_small_int(field, *key, i32::from(b0 & 0x7f) | i32::from(*b1) << 7) =>
                {
                    rest = tail;
                }
                [key @ (0x25 | 0x2d), a, b, c, d, tail @ ..] => {
                    let value = Some(f32::from_le_bytes([*a, *b, *c, *d]));
                    if *key == 0x25 {
                        field.low_value = value;
                    } else {
                        field.high_value = value;
                    }
                    rest = tail;
                }
                _ => break,
            }
        }
        w.pos += before - rest.len();
        if w.at_end() {
            break;
        }
        let (tag, wire_type) = w.key()?;
        match tag {
            4 => field.low_value = Some(w.float(wire_type)?),
            5 => field.high_value = Some(w.float(wire_type)?),
            11 => {
                let mut p = w.message(wire_type)?;
                let (mut name, mut version) = (None, None);
                while !p.at_end() {
                    let (tag, wire_type) = p.key()?;
                    match tag {
                        1 => name = Some(p.int32(wire_type)?),
                        2 => version = Some(p.int32(wire_type)?),
                        _ => p.skip(wire_type)?,
                    }
                }
                poly.push((name, version));
            }
            // Dropped, checked as the generated type checks it: a message
            // whose `is_signed_enum` (1) is a bool.
            13 => {
                let mut info = w.message(wire_type)?;
                while !info.at_end() {
                    let (tag, wire_type) = info.key()?;
                    match tag {
                        1 => {
                            info.boolean(wire_type)?;
                        }
                        _ => info.skip(wire_type)?,
                    }
                }
            }
            _ => match int32_slot(field, tag) {
                Some(Some(slot)) => *slot = Some(w.int32(wire_type)?),
                Some(None) => {
                    w.int32(wire_type)?;
                }
                None => w.skip(wire_type)?,
            },
        }
    }
    field.polymorphic = poly;
    Ok(())
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use proptest::prelude::*;
    use proptest::test_runner::TestCaseError;
    use prost::Message;
    use source2_demo_protobufs::proto_flattened_serializer_field_t::PolymorphicFieldT;
    use source2_demo_protobufs::{
        CSvcMsgFlattenedSerializer, ProtoCoordSizeParamsT, ProtoFlattenedSerializerT,
    };

    fn opt() -> impl Strategy<Value = Option<i32>> {
        prop_oneof![
            Just(None),
            any::<i32>().prop_map(Some),
            (0..50i32).prop_map(Some)
        ]
    }

    fn field() -> impl Strategy<Value = ProtoFlattenedSerializerFieldT> {
        (
            (opt(), opt(), opt(), opt(), opt(), opt()),
            (opt(), opt(), opt()),
            proptest::option::of(any::<f32>()),
            proptest::option::of(-1e6f32..1e6),
            proptest::collection::vec((opt(), opt()), 0..3),
        )
            .prop_map(|((a, b, c, d, e, f), (g, h, i), low, high, poly)| {
                ProtoFlattenedSerializerFieldT {
                    var_type_sym: a,
                    var_name_sym: b,
                    bit_count: c,
                    encode_flags: d,
                    field_serializer_name_sym: e,
                    field_serializer_version: f,
                    send_node_sym: g,
                    var_encoder_sym: h,
                    var_serializer_sym: i,
                    low_value: low,
                    high_value: high,
                    polymorphic_types: poly
                        .into_iter()
                        .map(|(n, v)| PolymorphicFieldT {
                            polymorphic_field_serializer_name_sym: n,
                            polymorphic_field_serializer_version: v,
                        })
                        .collect(),
                    var_enum_info: None,
                }
            })
    }

    fn message() -> impl Strategy<Value = CSvcMsgFlattenedSerializer> {
        (
            proptest::collection::vec(
                (opt(), opt(), proptest::collection::vec(any::<i32>(), 0..6)),
                0..5,
            ),
            proptest::collection::vec("[a-zA-Z_<> *é]{0,12}", 0..6),
            proptest::collection::vec(field(), 0..6),
            proptest::option::of((opt(), opt(), opt(), opt(), opt(), opt())),
        )
            .prop_map(
                |(sers, symbols, fields, coord)| CSvcMsgFlattenedSerializer {
                    serializers: sers
                        .into_iter()
                        .map(|(n, v, idx)| ProtoFlattenedSerializerT {
                            serializer_name_sym: n,
                            serializer_version: v,
                            fields_index: idx,
                        })
                        .collect(),
                    symbols,
                    fields,
                    coord_size_params: coord.map(|(a, b, c, d, e, f)| ProtoCoordSizeParamsT {
                        coord_integer_bits: a,
                        coord_fractional_bits: b,
                        coord_integer_bits_mp: c,
                        coord_fractional_bits_mp: d,
                        normal_fractional_bits: e,
                        angle_bits: f,
                    }),
                },
            )
    }

    /// The whole message as this reader decodes it: symbols, serializers,
    /// every field and the coordinate sizes.
    #[allow(clippy::type_complexity)]
    fn decode_all(
        bytes: &[u8],
    ) -> Result<
        (
            Vec<String>,
            Vec<RawSerializer>,
            Vec<RawField>,
            Option<CoordSizeParams>,
        ),
        ErrorKind,
    > {
        let raw = RawMessage::parse(bytes)?;
        let sers = raw.serializers().collect::<Result<Vec<_>, _>>()?;
        let spans = raw.field_spans();
        let mut fields = Vec::new();
        for i in 0..spans.len() {
            let mut f = RawField::default();
            field_at(bytes, &spans, i, &mut f)?;
            fields.push(f);
        }
        let symbols = raw.symbols.iter().map(|s| s.to_string()).collect();
        Ok((symbols, sers, fields, raw.coord_size_params))
    }

    /// `ours` and `theirs` hold the same values; floats by their bits (a
    /// NaN read from the wire equals itself).
    fn same_field(ours: &RawField, theirs: &RawField) -> Result<(), TestCaseError> {
        prop_assert_eq!(
            ours.low_value.map(f32::to_bits),
            theirs.low_value.map(f32::to_bits)
        );
        prop_assert_eq!(
            ours.high_value.map(f32::to_bits),
            theirs.high_value.map(f32::to_bits)
        );
        let without_floats = |f: &RawField| RawField {
            low_value: None,
            high_value: None,
            ..f.clone()
        };
        prop_assert_eq!(without_floats(ours), without_floats(theirs));
        Ok(())
    }

    proptest! {
        /// Symbols checked in one stretch are exactly the symbols checked
        /// one by one: the same texts, or an error for the same first symbol
        /// (bodies mix ASCII, multi-byte characters and stray bytes; spans
        /// may overlap, repeat, or cut characters).
        #[test]
        fn symbols_checked_at_once_equal_one_by_one(
            parts in proptest::collection::vec(
                prop_oneof![Just("ab".as_bytes().to_vec()), Just("é".as_bytes().to_vec()),
                    Just(vec![0xff]), Just(vec![0x12, 0x03]), Just("中".as_bytes().to_vec())],
                0..24,
            ),
            cuts in proptest::collection::vec((0usize..64, 0usize..8), 0..12),
        ) {
            let body: Vec<u8> = parts.concat();
            let spans: Vec<(usize, usize)> = cuts
                .iter()
                .map(|&(at, len)| (at.min(body.len()), len))
                .map(|(at, len)| (at, len.min(body.len() - at)))
                .collect();
            let want: Result<Vec<&str>, usize> = spans
                .iter()
                .enumerate()
                .map(|(i, &(at, len))| std::str::from_utf8(&body[at..at + len]).map_err(|_| i))
                .collect();
            match (symbols_as_text(&body, &spans), want) {
                (Ok(got), Ok(want)) => prop_assert_eq!(got, want),
                (Err(e), Err(i)) => prop_assert!(
                    e.to_string().contains(&format!("symbol {i} ")),
                    "{e} / {i}"
                ),
                (got, want) => prop_assert!(false, "{got:?} / {want:?}"),
            }
        }

        /// Whatever prost encodes, this reader decodes to the values prost
        /// decodes.
        #[test]
        fn equal_to_the_generated_type(msg in message()) {
            let bytes = msg.encode_to_vec();
            let raw = RawMessage::parse(&bytes).unwrap();
            let back = CSvcMsgFlattenedSerializer::decode(bytes.as_slice()).unwrap();
            prop_assert_eq!(&raw.symbols, &back.symbols);
            prop_assert_eq!(
                raw.coord_size_params,
                back.coord_size_params.as_ref().map(CoordSizeParams::from_generated)
            );
            let sers: Vec<RawSerializer> = raw.serializers().collect::<Result<_, _>>().unwrap();
            prop_assert_eq!(sers.len(), back.serializers.len());
            for (s, g) in sers.iter().zip(&back.serializers) {
                prop_assert_eq!(s.name_sym, g.serializer_name_sym);
                prop_assert_eq!(s.version, g.serializer_version);
                let want: Vec<u32> = g.fields_index.iter().map(|&i| i as u32).collect();
                prop_assert_eq!(&s.fields_index, &want);
            }
            let spans = raw.field_spans();
            prop_assert_eq!(spans.len(), back.fields.len());
            let mut f = RawField::default();
            for (i, g) in back.fields.iter().enumerate() {
                field_at(&bytes, &spans, i, &mut f).unwrap();
                let want = RawField::from_generated(g);
                // NaN != NaN: compare the float bits.
                prop_assert_eq!(f.low_value.map(f32::to_bits), want.low_value.map(f32::to_bits));
                prop_assert_eq!(
                    RawField { low_value: None, ..f.clone() },
                    RawField { low_value: None, ..want }
                );
            }
        }

        /// A valid message with a few bytes overwritten: this reader fails
        /// exactly when the generated type fails, and otherwise reads the
        /// same symbols, serializers, fields and coordinate sizes.
        #[test]
        fn overwritten_messages_fail_exactly_when_the_generated_type_fails(
            msg in message(),
            edits in proptest::collection::vec((any::<usize>(), any::<u8>()), 1..4),
        ) {
            let mut bytes = msg.encode_to_vec();
            if bytes.is_empty() {
                return Ok(());
            }
            let len = bytes.len();
            for (at, byte) in edits {
                bytes[at % len] = byte;
            }
            let theirs = CSvcMsgFlattenedSerializer::decode(bytes.as_slice());
            match (decode_all(&bytes), theirs) {
                (Ok((symbols, sers, fields, coord)), Ok(back)) => {
                    prop_assert_eq!(symbols, back.symbols.clone());
                    let want: Vec<RawSerializer> =
                        back.serializers.iter().map(RawSerializer::from_generated).collect();
                    prop_assert_eq!(sers, want);
                    prop_assert_eq!(fields.len(), back.fields.len());
                    for (f, g) in fields.iter().zip(&back.fields) {
                        same_field(f, &RawField::from_generated(g))?;
                    }
                    prop_assert_eq!(coord, back.coord_size_params.as_ref().map(CoordSizeParams::from_generated));
                }
                (Err(_), Err(_)) => {}
                (ours, theirs) => prop_assert!(false, "ours {:?} / theirs {:?}", ours.err(), theirs.err()),
            }
        }

        /// A field message written key by key, the way prost never writes
        /// one but a stranger may: tags repeated (the last wins), varints of
        /// one to ten bytes (some over long, some negative), floats, fields
        /// this reader drops, wrong wire types and cut ends. The reader
        /// (fast path and full reader alike) decodes exactly what the
        /// generated type decodes, or fails where it fails.
        #[test]
        fn hand_written_fields_equal_the_generated_type(
            entries in proptest::collection::vec(
                (0u32..15, prop_oneof![Just(0u8), Just(5u8), Just(2u8), Just(1u8)], any::<u64>(), 0usize..11, any::<u32>()),
                0..12,
            ),
            cut in proptest::option::of(0usize..64),
        ) {
            use source2_demo_protobufs::ProtoFlattenedSerializerFieldT;
            let varint = |out: &mut Vec<u8>, mut v: u64, min_len: usize| {
                let mut n = 0;
                loop {
                    let byte = (v & 0x7f) as u8;
                    v >>= 7;
                    n += 1;
                    if v == 0 && n >= min_len.min(10) {
                        out.push(byte);
                        break;
                    }
                    out.push(byte | 0x80);
                }
            };
            let mut field = Vec::new();
            for &(tag, wire_type, value, pad, bits) in &entries {
                // Mostly the wire type the tag has; sometimes another.
                let wire_type = match (tag, wire_type) {
                    (4 | 5, 0) => 5,
                    (11 | 13, 0) => 2,
                    (_, w) => w,
                };
                varint(&mut field, u64::from(tag) << 3 | u64::from(wire_type), 1);
                match wire_type {
                    0 => {
                        // Small values most of the time, so the fast path runs.
                        let v = if bits % 3 == 0 { value } else { value % 20_000 };
                        varint(&mut field, v, pad);
                    }
                    5 => field.extend_from_slice(&bits.to_le_bytes()),
                    1 => field.extend_from_slice(&value.to_le_bytes()),
                    _ => {
                        // A polymorphic entry (name 1, version 2) or bytes.
                        let body = [0x08, (bits & 0x7f) as u8, 0x10, (value & 0x7f) as u8];
                        let len = (pad % 5).min(body.len());
                        varint(&mut field, len as u64, 1);
                        field.extend_from_slice(&body[..len]);
                    }
                }
            }
            if let Some(cut) = cut {
                field.truncate(cut.min(field.len()));
            }
            // The field inside a message, as `field_at` finds it.
            let mut body = vec![0x1a];
            varint(&mut body, field.len() as u64, 1);
            body.extend_from_slice(&field);
            let want = ProtoFlattenedSerializerFieldT::decode(field.as_slice());
            let raw = RawMessage::parse(&body).unwrap();
            let mut got = RawField::default();
            let result = field_at(&body, &raw.field_spans(), 0, &mut got);
            match want {
                Ok(w) => {
                    prop_assert!(result.is_ok(), "{result:?}");
                    same_field(&got, &RawField::from_generated(&w))?;
                }
                Err(_) => prop_assert!(result.is_err(), "prost failed, this reader gave {got:?}"),
            }
        }

        /// Any bytes: an error or a value, never a panic; a prefix of a valid
        /// message either decodes or names a byte offset inside it.
        #[test]
        fn hostile_bytes(bytes in proptest::collection::vec(any::<u8>(), 0..200), msg in message(), cut in 0usize..400) {
            if let Ok(raw) = RawMessage::parse(&bytes) {
                for s in raw.serializers() { let _ = s; }
                let mut f = RawField::default();
                let spans = raw.field_spans();
                for i in 0..spans.len() { let _ = field_at(&bytes, &spans, i, &mut f); }
            }
            let full = msg.encode_to_vec();
            let cut = cut.min(full.len());
            if let Err(ErrorKind::Protobuf { reason, .. }) = RawMessage::parse(&full[..cut]) {
                let crate::error::ProtobufProblem::Wire { at, .. } = reason else {
                    panic!("{reason}");
                };
                prop_assert!(at <= cut, "{reason}");
            }
        }
    }

    #[test]
    fn packed_and_unpacked_indices_and_bad_wire_types() {
        // Serializer with fields_index packed: tag 3, wire type 2.
        let ser = [0x08, 0x02, 0x1a, 0x03, 0x01, 0x02, 0x7f, 0x18, 0x05];
        let mut body = vec![0x0a, ser.len() as u8];
        body.extend_from_slice(&ser);
        let raw = RawMessage::parse(&body).unwrap();
        let s: Vec<_> = raw.serializers().collect::<Result<_, _>>().unwrap();
        assert_eq!(s[0].name_sym, Some(2));
        assert_eq!(s[0].fields_index, vec![1u32, 2, 127, 5]);
        // A field whose var_type_sym (tag 1) comes as fixed32.
        let body = [0x1a, 0x05, 0x0d, 0, 0, 0, 0];
        let raw = RawMessage::parse(&body).unwrap();
        let err = field_at(&body, &raw.field_spans(), 0, &mut RawField::default()).unwrap_err();
        assert_eq!(
            err.to_string(),
            "protobuf CSVCMsg_FlattenedSerializer did not decode: int32 with wire type 5 at byte 3"
        );
        // A (deprecated) group under an unknown tag is skipped to its end,
        // as prost does; one that never ends, or ends with another tag, is
        // an error; a group as a serializer is the wrong wire type.
        assert!(RawMessage::parse(&[0x2b, 0x08, 0x01, 0x2c]).is_ok());
        let err = RawMessage::parse(&[0x2b]).unwrap_err();
        assert!(
            err.to_string().contains("truncated varint at byte 1"),
            "{err}"
        );
        let err = RawMessage::parse(&[0x2b, 0x34]).unwrap_err();
        assert!(
            err.to_string()
                .contains("unsupported wire type 4 at byte 2"),
            "{err}"
        );
        let err = RawMessage::parse(&[0x0b]).unwrap_err();
        assert!(
            err.to_string()
                .contains("message with wire type 3 at byte 1"),
            "{err}"
        );
        // A symbol that is not UTF-8.
        let err = RawMessage::parse(&[0x12, 0x01, 0xff]).unwrap_err();
        assert_eq!(err.to_string(), "send tables: symbol 0 is not valid UTF-8");
    }
}

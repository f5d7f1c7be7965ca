//! Writing `CSVCMsg_PacketEntities`: the inverse of the entity reader
//! ([`crate::entity`], the parser's `entities` part).
//!
//! # The record layout
//!
//! A message's `entity_data` is a bitstream of `updated_entries` records
//! (least significant bit first, as every Source 2 bitstream):
//!
//! ```text
//! UBitVar   index delta: index = previous index + delta + 1 (the first
//!           record's previous index is -1, so indices strictly increase)
//! 2 bits    command (bit 0 first): 0 update, 2 create (enter the PVS),
//!           1 leave the PVS, 3 leave and delete
//! create:   class id   (class_id_bits: floor(log2(max_classes)) + 1 bits)
//!           serial     (17 bits)
//!           varuint32  (not used by any reader; kept as read)
//!           field data
//! update:   2 bits when the message's has_pvs_vis_bits is set: bit 0 set
//!           means "no field data follows" (the entity stays as it is)
//!           field data
//! leave,
//! delete:   nothing more
//! ```
//!
//! Field data is a field-path sequence (huffman-coded operations ending in
//! `FieldPathEncodeFinish`, [`crate::fieldpath`]) followed by one value per
//! path, each written by the decoder its path resolves to in the send tables
//! ([`crate::serializer`]). Resolving a path needs the values that shape the
//! paths under it: the length of a variable array or table, and the type
//! index of a polymorphic pointer. Those come from the entity as it is
//! before the record (for a create: the entity itself when the same class
//! and serial are already at the index, else the class baseline, the
//! `instancebaseline` string-table entry keyed by the class id), overlaid by
//! the values the record itself sets before that path. So a record is
//! decoded, and encoded, against the state *before* its message is applied;
//! the records of one message name distinct entities, so only the entity's
//! own earlier paths in the same record matter. (Layout as read by
//! dotabuff/manta `entity.go`, demoinfocs-golang `sendtablescs2/entity.go`
//! and demofile-net `DemoParser.Entities.cs`.)
//!
//! # How the writer chooses its encodings
//!
//! Most of a record has one encoding: the index delta is determined by the
//! indices, the header fields by their values, a value by its decoder. Two
//! parts leave a choice:
//!
//! - the field paths: many operation sequences reach the same paths; the
//!   writer takes the cheapest operation from each path to the next under
//!   the rules Valve's encoder keeps
//!   ([`crate::fieldpath_writer::PathStyle::Game`]), never longer than
//!   Valve's sequence and the same bits in 95 to 100 % of the corpus
//!   records; the corpus round-trip test counts the messages that come out
//!   byte for byte.
//! - the bits after the last record: the reader ignores them; a decoded
//!   message keeps them ([`PacketEntities::trailing`]) and the encoder
//!   writes them back, then pads the last byte with zero bits.
//!
//! The other fields of the message (`max_entries`, `is_delta`, `baseline`,
//! `delta_from`, `server_tick`, ...) are kept as read in
//! [`PacketEntities::message`]; encoding rebuilds `entity_data` and sets
//! `updated_entries` to the number of records.
//!
//! # A full update
//!
//! [`full_state`] writes every live entity as a create carrying every value
//! it holds (its baseline's included), in a message with `is_delta` false:
//! what the packet of a `DEM_FullPacket` carries. A reader that applies it to
//! an empty entity list holds the same entities with the same values. The
//! paths go in depth-first order, so that a length or a pointer comes before
//! the paths under it. The reader keeps the elements of an array that
//! shrank (they come back if it grows again without them being sent); to
//! rebuild those too, a length shorter than the elements the entity holds is
//! written first as the length that covers them all, and again with its
//! true value after every other path.
//!
//! # Example
//!
//! A visitor sees each message with the state right before it
//! ([`crate::Visitor::before_packet_entities`]): there it can decode the
//! message, change its records, and encode it again.
//!
//! ```no_run
//! use gamewire_source2::entity_writer::{decode_packet_entities, encode_packet_entities, EntityOp};
//! use gamewire_source2::{parse_with, DemoState, Visitor};
//!
//! /// Every message again, with the updates of entity 1 left out.
//! struct Rewrite(Vec<Vec<u8>>);
//!
//! impl Visitor for Rewrite {
//!     fn before_packet_entities(&mut self, state: &DemoState, body: &[u8], _applied: bool) {
//!         let Ok(mut message) = decode_packet_entities(body, state) else { return };
//!         message
//!             .records
//!             .retain(|r| !(r.index == 1 && matches!(r.op, EntityOp::Update { .. })));
//!         if let Ok(body) = encode_packet_entities(&message, state) {
//!             self.0.push(body);
//!         }
//!     }
//! }
//!
//! let data = std::fs::read("demo.dem").unwrap();
//! let mut rewrite = Rewrite(Vec::new());
//! parse_with(&data, &mut rewrite).unwrap();
//! println!("{} messages written again", rewrite.0.len());
//! ```

use std::sync::Arc;

use gamewire_bits::{BitReader, BitWriter};
use prost::Message;
use rustc_hash::FxHashMap;
use source2_demo_protobufs as pb;

use crate::entity::{skip_fields, FieldState, SERIAL_BITS};
use crate::error::{EntityError, EntityProblem, ErrorKind, FieldError, PathError};
use crate::fieldpath::{read_field_paths, FieldPath, Paths};
use crate::packet_writer::SpareBuffers;
use crate::serializer::{FieldDecoder, LastParent, SendTables, SerializerId};
use crate::state::DemoState;
use crate::value::Value;

/// One decoded `CSVCMsg_PacketEntities`.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct PacketEntities {
    /// The message as read, without its `entity_data` (`None`). Encoding
    /// rebuilds `entity_data` from [`PacketEntities::records`] and sets
    /// `updated_entries` to their number.
    pub message: pb::CSvcMsgPacketEntities,
    /// The records, in stream order (entity indices strictly increasing).
    pub records: Vec<EntityRecord>,
    /// The bits after the last record (least significant first; the last
    /// byte may be partial), written back as they are.
    pub trailing: Vec<u8>,
    /// How many bits [`PacketEntities::trailing`] holds.
    pub trailing_bits: u64,
}

/// One record: an entity and what happens to it.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityRecord {
    /// Entity index.
    pub index: i32,
    /// What the record does.
    pub op: EntityOp,
}

/// What a record does to its entity, with the field values it carries
/// (paths and values in stream order).
#[derive(Debug, Clone, PartialEq)]
pub enum EntityOp {
    /// Command 2: create the entity (or enter the PVS). It starts from its
    /// class baseline, or from itself when the same class and serial are
    /// already at the index.
    Create {
        /// Class id.
        class_id: u32,
        /// Serial number (17 bits).
        serial: u32,
        /// The varuint32 after the serial, which no reader uses (its values
        /// follow the spawn groups' creation sequence); the parser keeps
        /// it with the entity, and [`full_state`] writes it again.
        spare: u32,
        /// The values the record sets.
        fields: Vec<(FieldPath, Value)>,
    },
    /// Command 0: update the entity's fields.
    Update {
        /// The two bits after the command when the message has
        /// `has_pvs_vis_bits` (`None` otherwise): bit 0 set means the
        /// record carries no field data (`fields` is empty).
        pvs: Option<u8>,
        /// The values the record sets.
        fields: Vec<(FieldPath, Value)>,
    },
    /// Command 1: the entity leaves the PVS (it is kept, inactive).
    Leave,
    /// Command 3: the entity leaves and is deleted.
    Delete,
}

/// The values a record sets that shape the paths after them, by path key:
/// what a path's resolution reads before the entity's own state.
type Overlay = FxHashMap<u128, Option<u64>>;

/// Whether a decoder's value shapes the paths under it (an array length, a
/// pointer's presence or type).
fn shapes_paths(decoder: &FieldDecoder) -> bool {
    matches!(
        decoder,
        FieldDecoder::ArrayLength | FieldDecoder::PointerPresent | FieldDecoder::PolyPointer
    )
}

/// Resolves the paths of one record in the serializer, reading lengths
/// and type indices from `overlay` first, then from `base` (the entity
/// before the record).
///
/// A path that differs from the one before only in its last index (most
/// do) resolves through the node the previous one ended in, without the
/// walk from the root: what shapes that walk (a length, a type index) sits
/// on the shared prefix, which a path of the same length cannot set. The
/// entity reader does the same.
#[derive(Default)]
struct Resolver<'t> {
    previous: Option<(FieldPath, LastParent<'t>)>,
}

impl<'t> Resolver<'t> {
    fn resolve(
        &mut self,
        tables: &'t SendTables,
        serializer: SerializerId,
        fp: &FieldPath,
        base: Option<&FieldState>,
        overlay: &Overlay,
    ) -> Result<&'t FieldDecoder, FieldError> {
        if let Some((before, parent)) = self.previous {
            let (a, b) = (before.as_slice(), fp.as_slice());
            let sibling = match (a.split_last(), b.split_last()) {
                // Compared index by index: a slice comparison calls
                // `memcmp`, slow for a few indices.
                (Some((_, pa)), Some((&last, pb)))
                    if pa.len() == pb.len() && pa.iter().zip(pb).all(|(x, y)| x == y) =>
                {
                    parent.resolve(tables, last)
                }
                _ => None,
            };
            if let Some(decoder) = sibling {
                self.previous = Some((*fp, parent));
                return Ok(decoder);
            }
        }
        let (decoder, parent) = tables.resolve_with_parent(serializer, fp, |len| {
            let prefix = fp.as_slice().get(..len)?;
            let stored = match FieldPath::from_slice(prefix)
                .key()
                .and_then(|k| overlay.get(&k))
            {
                Some(v) => *v,
                None => base.and_then(|b| b.get(prefix)).and_then(Value::as_u64),
            };
            stored.map(|v| u32::try_from(v).unwrap_or(u32::MAX))
        })?;
        self.previous = Some((*fp, parent));
        Ok(decoder)
    }
}

/// What the encoder and decoder need from the state: the send tables, the
/// classes, and the class baselines (decoded once per call when the
/// reader has not cached them).
struct Context<'s> {
    state: &'s DemoState,
    tables: &'s SendTables,
    baselines: FxHashMap<u32, Arc<FieldState>>,
}

impl<'s> Context<'s> {
    fn new(state: &'s DemoState) -> Result<Self, ErrorKind> {
        let tables = state.send_tables.as_deref().ok_or(ErrorKind::SendTables(
            crate::error::SendTablesError::EntitiesBeforeTables,
        ))?;
        Ok(Context {
            state,
            tables,
            baselines: FxHashMap::default(),
        })
    }

    fn class_name(&self, class_id: Option<u32>) -> String {
        class_id
            .and_then(|c| self.state.classes.get(c as usize))
            .map_or_else(|| "?".to_string(), |c| c.name.clone())
    }

    fn error(
        &self,
        index: i32,
        class_id: Option<u32>,
        path: Option<FieldPath>,
        problem: EntityProblem,
    ) -> ErrorKind {
        ErrorKind::Entity(Box::new(EntityError {
            entity: index,
            class_id,
            class: self.class_name(class_id),
            path,
            path_name: None,
            problem,
        }))
    }

    fn serializer_of(&self, index: i32, class_id: u32) -> Result<SerializerId, ErrorKind> {
        self.state
            .classes
            .get(class_id as usize)
            .and_then(|c| c.serializer)
            .ok_or_else(|| {
                self.error(
                    index,
                    Some(class_id),
                    None,
                    EntityProblem::UnknownClass { class_id },
                )
            })
    }

    /// The class baseline: the reader's cached one, else decoded from the
    /// `instancebaseline` table (empty when the table has no entry).
    fn baseline(
        &mut self,
        class_id: u32,
        serializer: SerializerId,
    ) -> Result<Arc<FieldState>, ErrorKind> {
        if let Some(b) = self.state.entities.baseline_cache.get(&class_id) {
            return Ok(Arc::clone(b));
        }
        if let Some(b) = self.baselines.get(&class_id) {
            return Ok(Arc::clone(b));
        }
        let key = class_id.to_string();
        let data = self
            .state
            .string_table("instancebaseline")
            .and_then(|t| t.get(&key))
            .map(|e| e.value.as_slice());
        let mut state = FieldState::default();
        if let Some(data) = data {
            let mut r = BitReader::new(data);
            let mut paths = Paths::with_capacity(64);
            let ti = self.state.tick_interval;
            // Only the values that shape paths are read from a base
            // (lengths, pointers): the others are read past, as the
            // reader does for a class nobody asked for.
            skip_fields(self.tables, serializer, &mut state, &mut r, &mut paths, ti).map_err(
                |PathError { path, error }| {
                    self.error(-1, Some(class_id), path, EntityProblem::Baseline(error))
                },
            )?;
        }
        let state = Arc::new(state);
        self.baselines.insert(class_id, Arc::clone(&state));
        Ok(state)
    }

    /// What a create at `index` starts from: the entity there when it has
    /// the same class and serial, else the class baseline.
    fn create_base(
        &mut self,
        index: i32,
        class_id: u32,
        serial: u32,
        serializer: SerializerId,
    ) -> Result<Base<'s>, ErrorKind> {
        let state = self.state;
        match state.entities.get(index) {
            Some(e) if e.class_id == class_id && e.serial == serial => Ok(Base::Borrowed(&e.state)),
            _ => self.baseline(class_id, serializer).map(Base::Shared),
        }
    }

    /// The entity an update names and its serializer.
    fn existing(&self, index: i32) -> Result<(&'s FieldState, SerializerId, u32), ErrorKind> {
        let state = self.state;
        let e = state
            .entities
            .get(index)
            .ok_or_else(|| self.error(index, None, None, EntityProblem::NoSuchEntity))?;
        Ok((&e.state, e.serializer, e.class_id))
    }
}

/// The state a record's paths resolve against.
enum Base<'s> {
    Borrowed(&'s FieldState),
    Shared(Arc<FieldState>),
}

impl Base<'_> {
    fn get(&self) -> &FieldState {
        match self {
            Base::Borrowed(s) => s,
            Base::Shared(s) => s,
        }
    }
}

/// Decodes one `svc_PacketEntities` body (its protobuf bytes) against the
/// state as it is right before the message is applied (see
/// [`crate::Visitor::before_packet_entities`]).
pub fn decode_packet_entities(body: &[u8], state: &DemoState) -> Result<PacketEntities, ErrorKind> {
    let message = pb::CSvcMsgPacketEntities::decode(body)
        .map_err(|e| ErrorKind::protobuf("CSVCMsg_PacketEntities", e))?;
    decode_packet_entities_message(message, state)
}

/// [`decode_packet_entities`] of a message already decoded.
pub fn decode_packet_entities_message(
    message: pb::CSvcMsgPacketEntities,
    state: &DemoState,
) -> Result<PacketEntities, ErrorKind> {
    decode_message(message, state, None)
}

/// The field paths of every record that carries field data, in stream
/// order, each with the number of bits its field-path sequence takes in the
/// message (`FieldPathEncodeFinish` included): how long the game's choice of
/// operations was, to compare with [`crate::fieldpath_writer`]'s.
pub fn field_path_bits(
    body: &[u8],
    state: &DemoState,
) -> Result<Vec<(Vec<FieldPath>, u64)>, ErrorKind> {
    let message = pb::CSvcMsgPacketEntities::decode(body)
        .map_err(|e| ErrorKind::protobuf("CSVCMsg_PacketEntities", e))?;
    let mut out = Vec::new();
    decode_message(message, state, Some(&mut out))?;
    Ok(out)
}

/// Field paths with the bits they took, per record ([`field_path_bits`]).
type PathBits = Vec<(Vec<FieldPath>, u64)>;

/// The entity bitstream of a message (taken out of it), its record count
/// (checked against the entity limit) and whether updates carry PVS bits.
/// Field number of `CSVCMsg_PacketEntities.entity_data`.
const ENTITY_DATA_FIELD: u64 = 7;

/// A `CSVCMsg_PacketEntities` body decoded without copying its entity
/// data, which is most of its bytes: the message with `entity_data` left
/// out, and the entity data as it lies in `body` (its last occurrence, the
/// one a protobuf decoder keeps). The fields around it are a few varints,
/// decoded from a copy of their bytes, so the message is the one the whole
/// body decodes to with `entity_data` taken out. A body the top-level scan
/// does not follow (a truncated field, an `entity_data` of another wire
/// type, a group) is decoded whole, so it fails exactly as that does.
fn decode_without_entity_data(
    body: &[u8],
) -> Result<(pb::CSvcMsgPacketEntities, std::borrow::Cow<'_, [u8]>), ErrorKind> {
    if let Some((rest, data)) = split_top_level_field(body, ENTITY_DATA_FIELD) {
        if let Ok(message) = pb::CSvcMsgPacketEntities::decode(&rest[..]) {
            return Ok((message, std::borrow::Cow::Borrowed(data.unwrap_or(&[]))));
        }
    }
    let mut message = pb::CSvcMsgPacketEntities::decode(body)
        .map_err(|e| ErrorKind::protobuf("CSVCMsg_PacketEntities", e))?;
    let data = message.entity_data.take().unwrap_or_default();
    Ok((message, std::borrow::Cow::Owned(data)))
}

/// Splits the top-level fields of a protobuf message: the bytes of every
/// field but `field` (in order, as they were), and the value of the last
/// occurrence of `field`, which must be length-delimited. `None` when the
/// bytes are not a run of well-formed fields (varint, 64-bit,
/// length-delimited or 32-bit) or `field` has another wire type.
fn split_top_level_field(bytes: &[u8], field: u64) -> Option<(Vec<u8>, Option<&[u8]>)> {
    // At most ten bytes, the tenth holding only bit 63 (as protobuf
    // decoders require).
    fn varint(bytes: &[u8], at: &mut usize) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = *bytes.get(*at)?;
            *at += 1;
            if shift == 63 && b > 1 {
                return None;
            }
            v |= u64::from(b & 0x7f) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }
    let mut rest = Vec::with_capacity(64);
    let mut found = None;
    let mut at = 0;
    while at < bytes.len() {
        let start = at;
        let key = varint(bytes, &mut at)?;
        if key >> 3 == 0 || key > u64::from(u32::MAX) {
            return None;
        }
        let end = match key & 7 {
            0 => {
                varint(bytes, &mut at)?;
                at
            }
            1 => at.checked_add(8)?,
            2 => {
                let len = usize::try_from(varint(bytes, &mut at)?).ok()?;
                at.checked_add(len)?
            }
            5 => at.checked_add(4)?,
            _ => return None,
        };
        let value = bytes.get(at..end)?;
        if key >> 3 == field {
            if key & 7 != 2 {
                return None;
            }
            found = Some(value);
        } else {
            rest.extend_from_slice(bytes.get(start..end)?);
        }
        at = end;
    }
    Some((rest, found))
}

fn take_entity_data(
    message: &mut pb::CSvcMsgPacketEntities,
) -> Result<(Vec<u8>, i32, bool), ErrorKind> {
    let data = message.entity_data.take().unwrap_or_default();
    let count = message.updated_entries.unwrap_or(0);
    if count < 0 || count as usize > crate::entity::MAX_ENTITIES {
        return Err(ErrorKind::LimitExceeded {
            what: "updated entries",
            value: count.unsigned_abs().into(),
            limit: crate::entity::MAX_ENTITIES as u64,
        });
    }
    let has_vis_bits = message.has_pvs_vis_bits_deprecated.unwrap_or(0) > 0;
    Ok((data, count, has_vis_bits))
}

fn decode_message(
    mut message: pb::CSvcMsgPacketEntities,
    state: &DemoState,
    mut path_bits: Option<&mut PathBits>,
) -> Result<PacketEntities, ErrorKind> {
    let mut cx = Context::new(state)?;
    let (data, count, has_vis_bits) = take_entity_data(&mut message)?;
    let ti = state.tick_interval;
    let mut r = BitReader::new(&data);
    let hdr = |e| ErrorKind::bits("entity header", e);
    let mut records = Vec::with_capacity(count as usize);
    let mut index: i64 = -1;
    let mut paths = Vec::new();
    for _ in 0..count {
        let delta = r.read_ubitvar().map_err(hdr)?;
        index += i64::from(delta) + 1;
        if index >= crate::entity::MAX_ENTITIES as i64 {
            return Err(ErrorKind::LimitExceeded {
                what: "entity index",
                value: index.unsigned_abs(),
                limit: crate::entity::MAX_ENTITIES as u64 - 1,
            });
        }
        let idx = index as i32;
        let cmd = r.read_bits(2).map_err(hdr)?;
        let op = match cmd {
            2 => {
                let class_id = r.read_bits(state.class_id_bits).map_err(hdr)? as u32;
                let serial = r.read_bits(SERIAL_BITS).map_err(hdr)? as u32;
                let spare = r.read_varuint32().map_err(hdr)?;
                let serializer = cx.serializer_of(idx, class_id)?;
                let base = cx.create_base(idx, class_id, serial, serializer)?;
                let fields = decode_fields(
                    &cx,
                    (idx, Some(class_id), serializer),
                    base.get(),
                    &mut r,
                    &mut paths,
                    ti,
                    path_bits.as_deref_mut(),
                )?;
                EntityOp::Create {
                    class_id,
                    serial,
                    spare,
                    fields,
                }
            }
            0 => {
                let pvs = if has_vis_bits {
                    Some(r.read_bits(2).map_err(hdr)? as u8)
                } else {
                    None
                };
                let fields = if pvs.is_some_and(|p| p & 1 == 1) {
                    Vec::new()
                } else {
                    let (base, serializer, class_id) = cx.existing(idx)?;
                    decode_fields(
                        &cx,
                        (idx, Some(class_id), serializer),
                        base,
                        &mut r,
                        &mut paths,
                        ti,
                        path_bits.as_deref_mut(),
                    )?
                };
                EntityOp::Update { pvs, fields }
            }
            1 => EntityOp::Leave,
            _ => EntityOp::Delete,
        };
        records.push(EntityRecord { index: idx, op });
    }
    let trailing_bits = r.bits_remaining();
    let trailing = r.read_bits_to_vec(trailing_bits).map_err(hdr)?;
    cx.baselines.clear();
    Ok(PacketEntities {
        message,
        records,
        trailing,
        trailing_bits,
    })
}

/// [`decode_packet_entities`] then [`encode_packet_entities`] in one pass,
/// without the records in between: each record's field paths are read and
/// written again, then each value is read and written again by the decoder
/// its path resolves to, resolved once for both. The same bytes as the
/// two calls (the same resolution, the same encodings), and an error
/// wherever either would fail.
pub(crate) fn reencode_packet_entities(
    body: &[u8],
    state: &DemoState,
    scratch: &mut Scratch,
    spare: &mut SpareBuffers,
) -> Result<Vec<u8>, ErrorKind> {
    let (mut message, data) = decode_without_entity_data(body)?;
    let mut cx = Context::new(state)?;
    let (_, count, has_vis_bits) = take_entity_data(&mut message)?;
    let ti = state.tick_interval;
    let mut r = BitReader::new(&data);
    let mut w = BitWriter::with_buffer(spare.take(data.len() + 16), data.len() + 16);
    let hdr = |e| ErrorKind::bits("entity header", e);
    let mut index: i64 = -1;
    for _ in 0..count {
        let delta = r.read_ubitvar().map_err(hdr)?;
        index += i64::from(delta) + 1;
        if index >= crate::entity::MAX_ENTITIES as i64 {
            return Err(ErrorKind::LimitExceeded {
                what: "entity index",
                value: index.unsigned_abs(),
                limit: crate::entity::MAX_ENTITIES as u64 - 1,
            });
        }
        let idx = index as i32;
        // The delta as the encoder writes it: the index minus the one
        // before, minus one.
        w.write_ubitvar(delta);
        let cmd = r.read_bits(2).map_err(hdr)?;
        w.write_bits(cmd, 2).map_err(hdr)?;
        match cmd {
            2 => {
                let class_id = r.read_bits(state.class_id_bits).map_err(hdr)? as u32;
                let serial = r.read_bits(SERIAL_BITS).map_err(hdr)? as u32;
                let spare = r.read_varuint32().map_err(hdr)?;
                w.write_bits(u64::from(class_id), state.class_id_bits)
                    .map_err(hdr)?;
                w.write_bits(u64::from(serial), SERIAL_BITS).map_err(hdr)?;
                w.write_varuint32(spare);
                let serializer = cx.serializer_of(idx, class_id)?;
                let base = cx.create_base(idx, class_id, serial, serializer)?;
                reencode_fields(
                    &cx,
                    (idx, Some(class_id), serializer),
                    base.get(),
                    &mut r,
                    &mut w,
                    scratch,
                    ti,
                )?;
            }
            0 => {
                if has_vis_bits {
                    let pvs = r.read_bits(2).map_err(hdr)?;
                    w.write_bits(pvs & 3, 2).map_err(hdr)?;
                    if pvs & 1 == 1 {
                        continue;
                    }
                }
                let (base, serializer, class_id) = cx.existing(idx)?;
                reencode_fields(
                    &cx,
                    (idx, Some(class_id), serializer),
                    base,
                    &mut r,
                    &mut w,
                    scratch,
                    ti,
                )?;
            }
            _ => {}
        }
    }
    let trailing_bits = r.bits_remaining();
    let trailing = r.read_bits_to_vec(trailing_bits).map_err(hdr)?;
    write_stored_bits(&mut w, &trailing, trailing_bits)?;
    cx.baselines.clear();
    message.updated_entries = Some(count);
    message.entity_data = Some(w.finish());
    Ok(encode_in(&mut message, spare))
}

/// A `svc_PacketEntities` encoded, in a buffer from `spare`, to which its
/// entity data goes back.
fn encode_in(message: &mut pb::CSvcMsgPacketEntities, spare: &mut SpareBuffers) -> Vec<u8> {
    let mut out = spare.take(message.encoded_len());
    message.encode_raw(&mut out);
    if let Some(data) = message.entity_data.take() {
        spare.give(data);
    }
    out
}

/// A rewrite's share of the parser's entity reading: while the parser
/// applies a `svc_PacketEntities`, each record is written again as it is
/// read ([`crate::entity::RecordWriter`]), so the message is decoded once,
/// by the parser, and encoded once. The same bytes as
/// [`reencode_packet_entities`] against the state before the message (the
/// same resolution, the same encodings). A message the parser does not
/// apply (the entities of a full packet when entities exist already) is
/// re-encoded by [`reencode_packet_entities`] instead.
///
/// Each message's body, in the order read: the message again, or why it
/// could not be written again.
#[derive(Debug, Default)]
pub(crate) struct EntityRewrite {
    /// The records of the message being read, written again.
    pub(crate) records: crate::entity::RecordWriter,
    /// For the messages re-encoded on their own.
    scratch: Scratch,
    /// The bodies written, for the caller to take.
    pub(crate) bodies: std::collections::VecDeque<Result<Vec<u8>, String>>,
    /// Buffers for the bodies and the entity data written, which the
    /// caller gives back once it has written a body out.
    pub(crate) spare: SpareBuffers,
}

impl EntityRewrite {
    /// Starts a message whose entity data is `len` bytes long.
    pub(crate) fn start_message(&mut self, len: usize) {
        let next = self.spare.take(len + 16);
        let before = self.records.take(next, len + 16);
        self.spare.give(before);
        self.records.failed = None;
    }

    /// Copies the bits after the last record, which the reader ignores.
    pub(crate) fn trailing(&mut self, r: &mut BitReader<'_>) {
        let bits = r.bits_remaining();
        let written = r
            .read_bits_to_vec(bits)
            .map_err(|e| ErrorKind::bits("entity header", e))
            .and_then(|trailing| write_stored_bits(&mut self.records.w, &trailing, bits));
        if let Err(e) = written {
            self.records.failed.get_or_insert(e.to_string());
        }
    }

    /// Ends a message the parser applied: its body (`body`, the protobuf
    /// bytes read) with the entity data written again.
    pub(crate) fn finish_message(&mut self, body: &[u8]) {
        let data = self.records.take(Vec::new(), 0);
        let encoded = match self.records.failed.take() {
            Some(why) => {
                self.spare.give(data);
                Err(why)
            }
            None => match decode_without_entity_data(body) {
                Ok((mut message, _)) => {
                    message.updated_entries = Some(message.updated_entries.unwrap_or(0));
                    message.entity_data = Some(data);
                    Ok(encode_in(&mut message, &mut self.spare))
                }
                Err(e) => {
                    self.spare.give(data);
                    Err(e.to_string())
                }
            },
        };
        self.bodies.push_back(encoded);
    }

    /// A message the parser does not apply, re-encoded against `state`.
    /// The field-path steps chosen are shared with the records the parser
    /// applies: a full packet's creates take the steps the first one's
    /// took, so they are worked out once per rewrite, not once per writer.
    pub(crate) fn reencode(&mut self, body: &[u8], state: &DemoState) {
        std::mem::swap(&mut self.scratch.ops, &mut self.records.ops);
        let encoded = reencode_packet_entities(body, state, &mut self.scratch, &mut self.spare)
            .map_err(|e| e.to_string());
        std::mem::swap(&mut self.scratch.ops, &mut self.records.ops);
        self.bodies.push_back(encoded);
    }
}

/// What [`reencode_packet_entities`] reuses from record to record and
/// message to message: buffers, and the field-path operations chosen.
#[derive(Debug, Default)]
pub(crate) struct Scratch {
    paths: Vec<FieldPath>,
    overlay: Overlay,
    ops: crate::fieldpath_writer::OpCache,
}

/// Reads one record's field paths and values and writes them again
/// (see [`reencode_packet_entities`]).
fn reencode_fields(
    cx: &Context<'_>,
    (index, class_id, serializer): (i32, Option<u32>, SerializerId),
    base: &FieldState,
    r: &mut BitReader<'_>,
    w: &mut BitWriter,
    scratch: &mut Scratch,
    tick_interval: f32,
) -> Result<(), ErrorKind> {
    let Scratch {
        paths,
        overlay,
        ops,
    } = scratch;
    let start = r.clone();
    read_field_paths(r, paths).map_err(|e| {
        cx.error(
            index,
            class_id,
            None,
            EntityProblem::Field(FieldError::FieldPaths(e)),
        )
    })?;
    crate::fieldpath_writer::write_field_paths_cached(
        w,
        paths,
        crate::fieldpath_writer::PathStyle::Game,
        ops,
        Some((&start, r.position())),
    )?;
    overlay.clear();
    let mut resolver = Resolver::default();
    for fp in paths.iter() {
        let field_error = |e| cx.error(index, class_id, Some(*fp), EntityProblem::Field(e));
        let decoder = resolver
            .resolve(cx.tables, serializer, fp, Some(base), overlay)
            .map_err(field_error)?;
        let mut written = Ok(());
        if shapes_paths(decoder) {
            let value = decoder
                .transcode(r, w, tick_interval, &mut written)
                .map_err(|e| field_error(FieldError::Value(e)))?;
            if let Some(k) = fp.key() {
                overlay.insert(k, value.as_u64());
            }
        } else {
            decoder
                .transcode_past(r, w, tick_interval, &mut written)
                .map_err(|e| field_error(FieldError::Value(e)))?;
        }
        written.map_err(|e| {
            unwritable(format!(
                "entity {index} ({}) at field path {fp}: {e}",
                cx.class_name(class_id)
            ))
        })?;
    }
    Ok(())
}

/// Reads one record's field paths and values (`entity`: index, class id,
/// serializer).
fn decode_fields(
    cx: &Context<'_>,
    (index, class_id, serializer): (i32, Option<u32>, SerializerId),
    base: &FieldState,
    r: &mut BitReader<'_>,
    paths: &mut Vec<FieldPath>,
    tick_interval: f32,
    path_bits: Option<&mut PathBits>,
) -> Result<Vec<(FieldPath, Value)>, ErrorKind> {
    let start = r.position();
    read_field_paths(r, paths).map_err(|e| {
        cx.error(
            index,
            class_id,
            None,
            EntityProblem::Field(FieldError::FieldPaths(e)),
        )
    })?;
    if let Some(out) = path_bits {
        out.push((paths.clone(), r.position() - start));
    }
    let mut overlay = Overlay::default();
    let mut resolver = Resolver::default();
    let mut fields = Vec::with_capacity(paths.len());
    for fp in paths.iter() {
        let field_error = |e| cx.error(index, class_id, Some(*fp), EntityProblem::Field(e));
        let decoder = resolver
            .resolve(cx.tables, serializer, fp, Some(base), &overlay)
            .map_err(field_error)?;
        let value = decoder
            .decode(r, tick_interval)
            .map_err(|e| field_error(FieldError::Value(e)))?;
        if shapes_paths(decoder) {
            if let Some(k) = fp.key() {
                overlay.insert(k, value.as_u64());
            }
        }
        fields.push((*fp, value));
    }
    Ok(fields)
}

/// Encodes a decoded message back into a `svc_PacketEntities` body (its
/// protobuf bytes), against the state right before it is applied (the
/// state it was decoded against).
pub fn encode_packet_entities(p: &PacketEntities, state: &DemoState) -> Result<Vec<u8>, ErrorKind> {
    let data = encode_entity_data(p, state)?;
    let mut message = p.message.clone();
    message.updated_entries =
        Some(
            i32::try_from(p.records.len()).map_err(|_| ErrorKind::LimitExceeded {
                what: "updated entries",
                value: p.records.len() as u64,
                limit: crate::entity::MAX_ENTITIES as u64,
            })?,
        );
    message.entity_data = Some(data);
    Ok(message.encode_to_vec())
}

fn unwritable(reason: String) -> ErrorKind {
    ErrorKind::Unwritable {
        what: "packet entities",
        reason,
    }
}

/// Encodes only the `entity_data` bitstream of a message.
pub fn encode_entity_data(p: &PacketEntities, state: &DemoState) -> Result<Vec<u8>, ErrorKind> {
    let mut cx = Context::new(state)?;
    let has_vis_bits = p.message.has_pvs_vis_bits_deprecated.unwrap_or(0) > 0;
    let ti = state.tick_interval;
    let mut w = BitWriter::with_capacity(256);
    let bits = |e| ErrorKind::bits("entity header", e);
    let mut previous: i64 = -1;
    for record in &p.records {
        let index = i64::from(record.index);
        let delta = index - previous - 1;
        if delta < 0 || index >= crate::entity::MAX_ENTITIES as i64 {
            return Err(unwritable(format!(
                "entity index {index} after {previous}: indices must increase and stay below {}",
                crate::entity::MAX_ENTITIES
            )));
        }
        previous = index;
        // Below MAX_ENTITIES.
        w.write_ubitvar(delta as u32);
        let idx = record.index;
        match &record.op {
            EntityOp::Create {
                class_id,
                serial,
                spare,
                fields,
            } => {
                w.write_bits(2, 2).map_err(bits)?;
                if state.class_id_bits < 32 && u64::from(*class_id) >> state.class_id_bits != 0 {
                    return Err(unwritable(format!(
                        "class id {class_id} does not fit in {} bits",
                        state.class_id_bits
                    )));
                }
                w.write_bits(u64::from(*class_id), state.class_id_bits)
                    .map_err(bits)?;
                if u64::from(*serial) >> SERIAL_BITS != 0 {
                    return Err(unwritable(format!(
                        "serial {serial} does not fit in {SERIAL_BITS} bits"
                    )));
                }
                w.write_bits(u64::from(*serial), SERIAL_BITS)
                    .map_err(bits)?;
                w.write_varuint32(*spare);
                let serializer = cx.serializer_of(idx, *class_id)?;
                let base = cx.create_base(idx, *class_id, *serial, serializer)?;
                encode_fields(
                    &cx,
                    idx,
                    Some(*class_id),
                    serializer,
                    base.get(),
                    fields,
                    &mut w,
                    ti,
                )?;
            }
            EntityOp::Update { pvs, fields } => {
                w.write_bits(0, 2).map_err(bits)?;
                match (has_vis_bits, pvs) {
                    (true, Some(p)) => {
                        w.write_bits(u64::from(*p & 3), 2).map_err(bits)?;
                        if p & 1 == 1 {
                            if !fields.is_empty() {
                                return Err(unwritable(format!(
                                    "entity {idx}: an update whose visibility bits say \
                                     \"no data\" carries {} values",
                                    fields.len()
                                )));
                            }
                            continue;
                        }
                    }
                    (false, None) => {}
                    (true, None) | (false, Some(_)) => {
                        return Err(unwritable(format!(
                            "entity {idx}: visibility bits {pvs:?} in a message whose \
                             has_pvs_vis_bits is {has_vis_bits}"
                        )));
                    }
                }
                let (base, serializer, class_id) = cx.existing(idx)?;
                encode_fields(
                    &cx,
                    idx,
                    Some(class_id),
                    serializer,
                    base,
                    fields,
                    &mut w,
                    ti,
                )?;
            }
            EntityOp::Leave => w.write_bits(1, 2).map_err(bits)?,
            EntityOp::Delete => w.write_bits(3, 2).map_err(bits)?,
        }
    }
    write_stored_bits(&mut w, &p.trailing, p.trailing_bits)?;
    cx.baselines.clear();
    Ok(w.finish())
}

/// Writes `bits` bits kept as read (least significant first).
fn write_stored_bits(w: &mut BitWriter, bytes: &[u8], bits: u64) -> Result<(), ErrorKind> {
    let whole = (bits / 8) as usize;
    let rest = (bits % 8) as u32;
    let need = whole + usize::from(rest != 0);
    if bytes.len() != need {
        return Err(unwritable(format!(
            "{} bytes of trailing bits for {bits} bits",
            bytes.len()
        )));
    }
    w.write_bytes(bytes.get(..whole).unwrap_or_default());
    if rest != 0 {
        let last = bytes.get(whole).copied().unwrap_or_default();
        w.write_bits(u64::from(last) & ((1u64 << rest) - 1), rest)
            .map_err(|e| ErrorKind::bits("entity trailing bits", e))?;
    }
    Ok(())
}

/// Writes one record's field paths and values.
#[allow(clippy::too_many_arguments)]
fn encode_fields(
    cx: &Context<'_>,
    index: i32,
    class_id: Option<u32>,
    serializer: SerializerId,
    base: &FieldState,
    fields: &[(FieldPath, Value)],
    w: &mut BitWriter,
    tick_interval: f32,
) -> Result<(), ErrorKind> {
    let mut overlay = Overlay::default();
    let mut resolver = Resolver::default();
    let mut decoders = Vec::with_capacity(fields.len());
    for (fp, value) in fields {
        let decoder = resolver
            .resolve(cx.tables, serializer, fp, Some(base), &overlay)
            .map_err(|e| cx.error(index, class_id, Some(*fp), EntityProblem::Field(e)))?;
        if shapes_paths(decoder) {
            if let Some(k) = fp.key() {
                overlay.insert(k, value.as_u64());
            }
        }
        decoders.push(decoder);
    }
    let paths: Vec<FieldPath> = fields.iter().map(|(fp, _)| *fp).collect();
    crate::fieldpath_writer::write_field_paths_with(
        w,
        &paths,
        crate::fieldpath_writer::PathStyle::Game,
    )?;
    for ((fp, value), decoder) in fields.iter().zip(decoders) {
        decoder.encode(w, value, tick_interval).map_err(|e| {
            unwritable(format!(
                "entity {index} ({}) at field path {fp}: {e}",
                cx.class_name(class_id)
            ))
        })?;
    }
    Ok(())
}

/// Every live entity of `state` as a create carrying every value it holds,
/// in a non-delta message: what the packet of a `DEM_FullPacket` carries
/// (see the module docs). The entities must be decoded (a visitor that
/// wants their classes, as the default does).
///
/// The message's other fields are those of the game's full packets:
/// `is_delta` false (a reader deletes every entity the message does not
/// name, and demofile-net also drops its entity baselines), `update_baseline`
/// false, `baseline` 0, no `delta_from`; `max_entries` is one past the
/// highest index, `server_tick` the state's `net_Tick`. The state does not
/// keep the spawn-group fields (`active_spawngroup_handle`,
/// `max_spawngroup_creationsequence`) nor the blobs the game adds
/// (`serialized_entities`, `non_transmitted_entities`), which the reader
/// does not use: a caller that has the message being replaced copies them from it
/// into [`PacketEntities::message`] if it wants them.
///
/// Every entity is created active; [`pvs_leaves`] gives the records that
/// take those out of the PVS again that were.
///
/// Encode it against the same state ([`encode_packet_entities`]): every
/// length and pointer an entity holds is among its fields, so the paths
/// resolve alike against the entity there and against the class baseline
/// a fresh reader starts from.
pub fn full_state(state: &DemoState) -> Result<PacketEntities, ErrorKind> {
    let cx = Context::new(state)?;
    let mut records = Vec::new();
    for entity in state.entities.iter() {
        if !entity.is_decoded() {
            return Err(unwritable(format!(
                "entity {} ({}): its class was read past, its values are not kept",
                entity.index,
                state.class_name(entity)
            )));
        }
        let fields = entity_fields(
            &cx,
            entity.index,
            entity.class_id,
            entity.serializer,
            &entity.state,
        )?;
        records.push(EntityRecord {
            index: entity.index,
            op: EntityOp::Create {
                class_id: entity.class_id,
                serial: entity.serial,
                spare: entity.spare,
                fields,
            },
        });
    }
    let max_entries = records.last().map_or(0, |r| r.index + 1);
    let message = pb::CSvcMsgPacketEntities {
        max_entries: Some(max_entries),
        updated_entries: i32::try_from(records.len()).ok(),
        legacy_is_delta: Some(false),
        update_baseline: Some(false),
        baseline: Some(0),
        server_tick: Some(state.net_tick),
        ..Default::default()
    };
    Ok(PacketEntities {
        message,
        records,
        trailing: Vec::new(),
        trailing_bits: 0,
    })
}

/// The entities of `state` that are out of the PVS (they left it and are
/// kept, inactive), as `Leave` records in a delta message; `None` when every
/// entity is active. A create makes an entity active: a reader given
/// [`full_state`] and then this message holds the same entities in the same
/// PVS state as `state` (the records of one message cannot name an entity
/// twice, hence a second message).
pub fn pvs_leaves(state: &DemoState) -> Option<PacketEntities> {
    let records: Vec<EntityRecord> = state
        .entities
        .iter()
        .filter(|e| !e.active)
        .map(|e| EntityRecord {
            index: e.index,
            op: EntityOp::Leave,
        })
        .collect();
    if records.is_empty() {
        return None;
    }
    let message = pb::CSvcMsgPacketEntities {
        max_entries: records.last().map(|r| r.index + 1),
        updated_entries: i32::try_from(records.len()).ok(),
        legacy_is_delta: Some(true),
        update_baseline: Some(false),
        baseline: Some(0),
        server_tick: Some(state.net_tick),
        ..Default::default()
    };
    Some(PacketEntities {
        message,
        records,
        trailing: Vec::new(),
        trailing_bits: 0,
    })
}

/// Every value of an entity as the fields of a create, in an order the
/// decoder can follow (see the module docs: depth-first, lengths that do
/// not cover the elements held written twice).
fn entity_fields(
    cx: &Context<'_>,
    index: i32,
    class_id: u32,
    serializer: SerializerId,
    state: &FieldState,
) -> Result<Vec<(FieldPath, Value)>, ErrorKind> {
    let values = state.values_in_order();
    // For each prefix, the highest index below it + 1: how many elements an
    // array or table at that prefix holds.
    let mut spans: FxHashMap<u128, u32> = FxHashMap::default();
    for (fp, _) in &values {
        let path = fp.as_slice();
        for len in 1..path.len() {
            let (Some(key), Some(&next)) = (fp.prefix_key(len), path.get(len)) else {
                continue;
            };
            let span = u32::try_from(next).map_or(0, |n| n.saturating_add(1));
            let e = spans.entry(key).or_default();
            *e = (*e).max(span);
        }
    }
    let mut overlay = Overlay::default();
    let mut resolver = Resolver::default();
    let mut fields = Vec::with_capacity(values.len());
    let mut last = Vec::new();
    for (fp, value) in values {
        let decoder = resolver
            .resolve(cx.tables, serializer, &fp, None, &overlay)
            .map_err(|e| cx.error(index, Some(class_id), Some(fp), EntityProblem::Field(e)))?;
        let mut value = value.clone();
        if matches!(decoder, FieldDecoder::ArrayLength) {
            let span = fp.key().and_then(|k| spans.get(&k)).copied().unwrap_or(0);
            let len = value.as_u64().unwrap_or(0);
            if u64::from(span) > len {
                last.push((fp, value));
                value = Value::U32(span);
            }
        }
        if shapes_paths(decoder) {
            if let Some(k) = fp.key() {
                overlay.insert(k, value.as_u64());
            }
        }
        fields.push((fp, value));
    }
    fields.extend(last);
    Ok(fields)
}

#[cfg(test)]
mod tests {
    #![allow(clippy::unwrap_used, clippy::expect_used, clippy::panic)]
    use super::*;
    use crate::entity::Entity;

    /// The message decoded without its entity data is the whole body's
    /// decoding with the entity data taken out, and the data is the one a
    /// decoder keeps (the last), for bodies in every order; a body the scan
    /// does not follow fails or succeeds as the whole decoding does.
    #[test]
    fn packet_entities_decode_without_copying_their_data() -> Result<(), String> {
        let message = pb::CSvcMsgPacketEntities {
            max_entries: Some(2048),
            updated_entries: Some(3),
            legacy_is_delta: Some(true),
            delta_from: Some(-1),
            entity_data: Some(vec![1, 2, 3, 4, 5]),
            server_tick: Some(77_000),
            serialized_entities: Some(vec![9; 200]),
            cmd_recv_status: vec![-1, 0, 5],
            ..Default::default()
        };
        let body = message.encode_to_vec();
        // The data field again at the end (a decoder keeps the last), and
        // the fields before it moved behind it.
        let second = pb::CSvcMsgPacketEntities {
            entity_data: Some(vec![6; 300]),
            ..Default::default()
        }
        .encode_to_vec();
        let mut twice = body.clone();
        twice.extend_from_slice(&second);
        let mut reordered = second.clone();
        reordered.extend_from_slice(&body);
        let truncated = body.get(..body.len() - 2).unwrap_or(&[]).to_vec();
        // The data field as a varint; a group; a varint of eleven bytes.
        let wrong_type = [0x38, 0x01];
        let group = [0x0b, 0x0c];
        let long = [
            0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
        ];
        let cases: [&[u8]; 8] = [
            &body[..],
            &twice,
            &reordered,
            &truncated,
            &wrong_type,
            &group,
            &long,
            &[],
        ];
        for bytes in cases {
            let whole = pb::CSvcMsgPacketEntities::decode(bytes);
            match (decode_without_entity_data(bytes), whole) {
                (Ok((m, data)), Ok(mut whole)) => {
                    let kept = whole.entity_data.take().unwrap_or_default();
                    if m != whole || *data != kept[..] {
                        return Err(format!("{bytes:?}: decoded differently"));
                    }
                }
                (Err(_), Err(_)) => {}
                (a, b) => {
                    return Err(format!(
                        "{bytes:?}: {:?} against {:?}",
                        a.is_ok(),
                        b.is_ok()
                    ))
                }
            }
        }
        Ok(())
    }

    /// A state with send tables (empty) and entities at 3, 7 and 40 (7 out
    /// of the PVS).
    fn state() -> DemoState {
        let mut state = DemoState {
            send_tables: Some(Arc::new(SendTables::default())),
            class_id_bits: 9,
            ..Default::default()
        };
        for (index, active) in [(3, true), (7, false), (40, true)] {
            *state.entities.slot_mut(index as usize).unwrap() = Some(Entity {
                index,
                serial: 5,
                class_id: 1,
                serializer: 0,
                spare: 1,
                active,
                state: FieldState::default(),
                decoded: true,
            });
        }
        state
    }

    #[test]
    fn headers_without_field_data_round_trip_bit_for_bit() {
        let state = state();
        let records = vec![
            EntityRecord {
                index: 3,
                op: EntityOp::Update {
                    pvs: Some(1),
                    fields: Vec::new(),
                },
            },
            EntityRecord {
                index: 7,
                op: EntityOp::Leave,
            },
            EntityRecord {
                index: 40,
                op: EntityOp::Delete,
            },
            EntityRecord {
                index: 16383,
                op: EntityOp::Leave,
            },
        ];
        let p = PacketEntities {
            message: pb::CSvcMsgPacketEntities {
                updated_entries: Some(4),
                has_pvs_vis_bits_deprecated: Some(1),
                ..Default::default()
            },
            records,
            trailing: vec![0b101],
            trailing_bits: 3,
        };
        let body = encode_packet_entities(&p, &state).unwrap();
        let back = decode_packet_entities(&body, &state).unwrap();
        assert_eq!((&back.records, &back.message), (&p.records, &p.message));
        // The trailing bits, then the zero bits that pad the last byte,
        // which are trailing bits when read back.
        assert!((3..11).contains(&back.trailing_bits));
        assert_eq!(back.trailing.first().map(|b| b & 7), Some(0b101));
        assert_eq!(back.trailing.iter().map(|b| b.count_ones()).sum::<u32>(), 2);
        assert_eq!(encode_packet_entities(&back, &state).unwrap(), body);
        // Delta 3, update (00), pvs bits 01; delta 3, leave (01); delta 32
        // (UBitVar: 4 low bits, then 4 more), delete (11); ...
        let data = encode_entity_data(&p, &state).unwrap();
        let mut r = BitReader::new(&data);
        assert_eq!(r.read_ubitvar().unwrap(), 3);
        assert_eq!(r.read_bits(2).unwrap(), 0);
        assert_eq!(r.read_bits(2).unwrap(), 1);
        assert_eq!(r.read_ubitvar().unwrap(), 3);
        assert_eq!(r.read_bits(2).unwrap(), 1);
        assert_eq!(r.read_ubitvar().unwrap(), 32);
        assert_eq!(r.read_bits(2).unwrap(), 3);
        assert_eq!(r.read_ubitvar().unwrap(), 16383 - 41);
        assert_eq!(r.read_bits(2).unwrap(), 1);
        assert_eq!(r.read_bits(3).unwrap(), 0b101);
    }

    #[test]
    fn what_the_layout_cannot_hold_is_an_error() {
        let state = state();
        let leave = |index| EntityRecord {
            index,
            op: EntityOp::Leave,
        };
        let write = |records: Vec<EntityRecord>, vis: Option<u32>| {
            let p = PacketEntities {
                message: pb::CSvcMsgPacketEntities {
                    has_pvs_vis_bits_deprecated: vis,
                    ..Default::default()
                },
                records,
                ..Default::default()
            };
            encode_entity_data(&p, &state)
        };
        // Indices that do not increase, or past the last entity.
        assert!(write(vec![leave(7), leave(7)], None).is_err());
        assert!(write(vec![leave(16384)], None).is_err());
        assert!(write(vec![leave(-1)], None).is_err());
        // Visibility bits where the message has none, and the reverse.
        let update = |pvs| EntityRecord {
            index: 3,
            op: EntityOp::Update {
                pvs,
                fields: Vec::new(),
            },
        };
        assert!(write(vec![update(Some(0))], None).is_err());
        assert!(write(vec![update(None)], Some(1)).is_err());
        // A class id wider than the class-id bits, a serial wider than 17 bits.
        let create = |class_id, serial| EntityRecord {
            index: 3,
            op: EntityOp::Create {
                class_id,
                serial,
                spare: 0,
                fields: Vec::new(),
            },
        };
        assert!(write(vec![create(512, 5)], None).is_err());
        assert!(write(vec![create(1, 1 << 17)], None).is_err());
        // An update of an entity that does not exist.
        let p = PacketEntities {
            records: vec![EntityRecord {
                index: 4,
                op: EntityOp::Update {
                    pvs: None,
                    fields: Vec::new(),
                },
            }],
            ..Default::default()
        };
        assert!(encode_entity_data(&p, &state).is_err());
    }

    /// Checks [`reencode_packet_entities`] against decoding and encoding,
    /// and keeps what it gives.
    #[derive(Default)]
    struct Same {
        /// Read entity values past (only the ones that shape paths kept).
        skip: bool,
        scratch: Scratch,
        out: Vec<Result<Vec<u8>, String>>,
        differ: Vec<String>,
    }

    impl crate::Visitor for Same {
        fn wants_class(&self, _class_name: &str) -> bool {
            !self.skip
        }

        fn before_packet_entities(&mut self, state: &DemoState, body: &[u8], _applied: bool) {
            let mut spare = SpareBuffers::default();
            let one = reencode_packet_entities(body, state, &mut self.scratch, &mut spare)
                .map_err(|e| e.to_string());
            if !self.skip {
                let two = decode_packet_entities(body, state)
                    .and_then(|m| encode_packet_entities(&m, state))
                    .map_err(|e| e.to_string());
                if one != two && self.differ.len() < 5 {
                    self.differ.push(format!(
                        "tick {}: {:?}",
                        state.tick,
                        (one.is_ok(), two.is_ok())
                    ));
                }
            }
            self.out.push(one);
        }
    }

    /// One pass gives the bytes of decoding then encoding, and the same
    /// bytes when the reader keeps only the values that shape paths (as
    /// `edit::rewrite` has it do).
    #[test]
    fn reencoding_in_one_pass_gives_the_bytes_of_decode_then_encode() {
        for path in gamewire_corpus::source2_demos().unwrap() {
            let data = std::fs::read(&path).unwrap();
            let mut full = Same::default();
            crate::parse_with(&data, &mut full).unwrap();
            let mut skip = Same {
                skip: true,
                ..Same::default()
            };
            crate::parse_with(&data, &mut skip).unwrap();
            let name = path.display();
            assert!(full.out.len() > 10, "{name}: {}", full.out.len());
            assert!(full.differ.is_empty(), "{name}: {:?}", full.differ);
            let encoded = full.out.iter().filter(|r| r.is_ok()).count();
            assert!(encoded * 100 >= full.out.len() * 99, "{name}: {encoded}");
            let first = full.out.iter().zip(&skip.out).position(|(a, b)| a != b);
            assert_eq!(full.out.len(), skip.out.len(), "{name}");
            assert_eq!(first, None, "{name}");
        }
    }

    /// An entity's index, serial and every (key, value) it holds.
    type EntityValues = (i32, u32, Vec<(u128, Value)>);

    /// Each svc_PacketEntities written again by the parser as it reads it
    /// ([`EntityRewrite`]), in message order.
    fn written_by_the_parser(data: &[u8], decode: bool) -> Vec<Result<Vec<u8>, String>> {
        struct Classes(bool);
        impl crate::Visitor for Classes {
            fn wants_class(&self, _class_name: &str) -> bool {
                self.0
            }
        }
        let mut parser = crate::DemoParser::new(data).unwrap();
        parser.entity_rewrite = Some(Box::default());
        parser.run(&mut Classes(decode)).unwrap();
        parser.entity_rewrite.unwrap().bodies.into_iter().collect()
    }

    /// The parser's rewrite of each message (one decode, shared with the
    /// state it keeps) gives the bytes of the one-pass re-encoder, whether
    /// the classes are decoded or read past, and leaves the state as a
    /// plain read does.
    #[test]
    fn rewriting_while_reading_gives_the_bytes_of_the_one_pass_reencoder() {
        for path in gamewire_corpus::source2_demos().unwrap() {
            let data = std::fs::read(&path).unwrap();
            let name = path.display();
            let mut skip = Same {
                skip: true,
                ..Same::default()
            };
            crate::parse_with(&data, &mut skip).unwrap();
            for decode in [false, true] {
                let ours = written_by_the_parser(&data, decode);
                assert_eq!(ours.len(), skip.out.len(), "{name}");
                let first = ours.iter().zip(&skip.out).position(|(a, b)| a != b);
                assert_eq!(first, None, "{name} (decoded: {decode})");
            }
            // The state at the end: every entity's values as a plain read has them.
            let (plain, _) = crate::parse_with(&data, &mut Same::default()).unwrap();
            let mut parser = crate::DemoParser::new(&data).unwrap();
            parser.entity_rewrite = Some(Box::default());
            parser.run(&mut Same::default()).unwrap();
            let values = |s: &DemoState| -> Vec<EntityValues> {
                s.entities
                    .iter()
                    .map(|e| {
                        let mut v: Vec<_> = e
                            .values()
                            .into_iter()
                            .map(|(k, v)| (k, v.clone()))
                            .collect();
                        v.sort_by_key(|(k, _)| *k);
                        (e.index, e.serial, v)
                    })
                    .collect()
            };
            assert!(plain.entities.len() > 10, "{name}");
            assert!(values(&plain) == values(&parser.state), "{name}");
        }
    }

    #[test]
    fn entities_out_of_the_pvs_leave_again_after_a_full_update() {
        let state = state();
        let leaves = pvs_leaves(&state).unwrap();
        assert_eq!(
            leaves.records,
            vec![EntityRecord {
                index: 7,
                op: EntityOp::Leave
            }]
        );
        assert_eq!(leaves.message.legacy_is_delta, Some(true));
        let body = encode_packet_entities(&leaves, &state).unwrap();
        assert_eq!(decode_packet_entities(&body, &state).unwrap(), leaves);
    }
}

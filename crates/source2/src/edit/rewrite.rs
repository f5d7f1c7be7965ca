//! `rewrite`: a demo decoded and written again, every frame from its decoded
//! model rather than by copying its bytes.
//!
//! Layer by layer (each the inverse of the reader's):
//!
//! - the frame header (command, tick, size) by
//!   [`DemoWriter`], the payload snappy-compressed again where the original
//!   was (our snappy blocks decompress to the original payload; they need
//!   not be the game's bytes). A payload rebuilt to exactly the input's
//!   bytes (most are) keeps the input's snappy block, which holds exactly
//!   those bytes: the block is how the payload is stored, not part of its
//!   model;
//! - each frame payload through its `demo.proto` type (`CDemoFileHeader`,
//!   `CDemoFileInfo`, `CDemoSendTables`, `CDemoClassInfo`,
//!   `CDemoStringTables`, ...); a `CDemoPacket` (and the packet of a
//!   `CDemoFullPacket`) is rebuilt from its bitstream;
//! - the bitstream split into messages ([`PacketMessages`]) and written
//!   again ([`PacketWriter`]): each message's type as a UBitVar, its size,
//!   its body, and the padding bits of the last byte as read;
//! - `CSVCMsg_CreateStringTable` / `CSVCMsg_UpdateStringTable`: the entry
//!   bitstream read into its records and written again
//!   ([`crate::stringtable_writer`]), snappy-compressed again when it was;
//! - `CSVCMsg_PacketEntities`: decoded into its entity records (creates,
//!   updates, leaves, deletes with their field paths and values) against
//!   the state right before it, and encoded again
//!   ([`crate::entity_writer`]); the encoder's choices (field-path
//!   operations, a value's encoding) may differ from the game's, the
//!   records they decode to do not;
//! - every other message through the protobuf type of its id
//!   ([`crate::message_writer::reencode`]: engine messages, user messages,
//!   game events).
//!
//! A payload or message is written from its model only when the model,
//! encoded, gives exactly the bytes it was decoded from (a protobuf type
//! that lacks fields a newer game build sends would drop them). Otherwise
//! it is written as its original bytes and counted
//! ([`EditReport::messages_copied`], one warning listing them by name, with
//! the first difference [`crate::message_writer::explain`] finds: a field
//! the type does not know, a varint in a longer form, ...). Messages whose
//! id has no protobuf type are copied and counted the same way, and so is a
//! `CSVCMsg_PacketEntities` whose records cannot be encoded again.

use std::collections::{BTreeMap, VecDeque};
use std::io::{Read, Seek, Write};

use prost::Message;
use source2_demo_protobufs as pb;

use crate::container::{DemoCommand, Frame};
use crate::container_writer::DemoWriter;
use crate::error::{DemoError, ErrorKind, Location, Warning};
use crate::packet_writer::{PacketMessages, PacketWriter, SpareBuffers};
use crate::state::DemoState;
use crate::stringtable::StringTable;
use crate::stringtable_writer::{read_entry_stream, write_entry_stream};
use crate::visitor::message_name_in;
use crate::DemoParser;

use super::frames::StreamFrame;
use super::{EditReport, Flow, FrameEdit, FrameLoop, StateOnly, Step};

/// Decodes and writes a demo again, every frame from its decoded model
/// (see the module documentation). `out` receives a whole demo; a demo
/// that ends early is written up to where it ends, then `DEM_Stop`
/// ([`EditReport::cut`] says where).
pub fn rewrite<R: Read, W: Write + Seek>(input: R, out: W) -> Result<EditReport, DemoError> {
    let mut frames = FrameLoop::new(input)?;
    // The parser writes each svc_PacketEntities again as it reads it.
    frames.parser.entity_rewrite = Some(Box::default());
    let mut edit = Rewrite {
        writer: DemoWriter::new(out)?,
        model: Rebuild::default(),
        bodies: VecDeque::new(),
        tables_before: 0,
    };
    frames.run(&mut edit)?;
    let Rewrite {
        mut writer, model, ..
    } = edit;
    if frames.needs_stop() {
        writer.write_frame(DemoCommand::Stop, frames.last_tick, false, &[])?;
    }
    let mut report = frames.report;
    report.frames_written = writer.frames_written();
    model.report(&mut report);
    writer.finish()?;
    Ok(report)
}

/// The rewrite in the frame loop: each frame applied (its
/// svc_PacketEntities written again by the parser as it reads them), then
/// written again from its model.
struct Rewrite<W: Write + Seek> {
    writer: DemoWriter<W>,
    model: Rebuild,
    /// The frame's svc_PacketEntities bodies, written again, in the order
    /// of its messages (the reason when that failed).
    bodies: VecDeque<Result<Vec<u8>, String>>,
    /// String tables that existed before the current frame.
    tables_before: usize,
}

impl<W: Write + Seek> FrameEdit for Rewrite<W> {
    // The frame is applied first: each svc_PacketEntities is written again
    // as the parser reads it, against the state right before it. The other
    // messages need only the string tables that existed before the frame.
    fn before(&mut self, _frame: &StreamFrame<'_>, state: &DemoState) -> Result<Step, DemoError> {
        self.tables_before = state.string_tables.len();
        self.bodies.clear();
        Ok(Step::Apply)
    }

    fn apply(
        &mut self,
        parser: &mut DemoParser<'static>,
        frame: &Frame<'_>,
    ) -> Result<(), DemoError> {
        // One set of spare buffers, lent to the parser's writer while it
        // reads (the bodies it writes come back once written out).
        if let Some(rw) = parser.entity_rewrite.as_deref_mut() {
            std::mem::swap(&mut rw.spare, &mut self.model.spare);
        }
        let applied = parser.apply_frame(frame, &mut ReadPast);
        if let Some(rw) = parser.entity_rewrite.as_deref_mut() {
            std::mem::swap(&mut rw.spare, &mut self.model.spare);
            self.bodies.append(&mut rw.bodies);
        }
        applied
    }

    fn after(&mut self, next: &StreamFrame<'_>, state: &DemoState) -> Result<Flow, DemoError> {
        let frame = &next.frame;
        let location = Location {
            byte_offset: frame.offset,
            frame: frame.index,
            tick: frame.tick,
        };
        let payload = self
            .model
            .frame(frame, state, self.tables_before, &mut self.bodies)
            .map_err(|kind| DemoError { kind, location })?;
        if frame.compressed && payload == *frame.payload {
            // Rebuilt to the input's bytes: the input's snappy block holds
            // exactly them, and compressing them again would only give
            // another block of the same bytes.
            self.writer
                .write_raw_frame(frame.command, frame.tick, true, next.stored)?;
        } else {
            self.writer
                .write_frame(frame.command, frame.tick, frame.compressed, &payload)?;
        }
        self.model.spare.give(payload);
        Ok(Flow::Continue)
    }
}

/// The rewrite's visitor: what [`StateOnly`] reads, every class read past.
/// Writing an entity record again needs only the values that shape its
/// paths (array lengths, pointers), which the reader keeps for every class.
#[derive(Debug, Default)]
struct ReadPast;

impl crate::Visitor for ReadPast {
    fn interests(&self) -> crate::Interests {
        StateOnly.interests()
    }

    fn wants_class(&self, _class_name: &str) -> bool {
        false
    }
}

/// Rebuilds frame payloads and packet messages from their models, and
/// counts what it had to copy.
#[derive(Debug, Default)]
pub(crate) struct Rebuild {
    /// Copied payloads and messages, by name: how many, and why.
    copied: BTreeMap<String, (u64, String)>,
    /// Messages copied.
    messages_copied: u64,
    /// Names of the message ids copied so far (named once per id).
    names: rustc_hash::FxHashMap<u32, String>,
    /// Each packet message encoded again from its model, one buffer for
    /// all.
    encoded: Vec<u8>,
    /// The string tables of the last full packet, table by table, each
    /// checked to encode again from its model to exactly these bytes: a
    /// table that repeats them is not decoded again.
    tables_checked: Vec<Vec<u8>>,
    /// Buffers for the packets written, kept from frame to frame.
    pub(crate) spare: SpareBuffers,
}

/// Decodes `bytes` as `M` and encodes it again: `Some` when that gives
/// the same bytes.
fn same_after<M: Message + Default>(bytes: &[u8]) -> Option<M> {
    let m = M::decode(bytes).ok()?;
    (m.encoded_len() == bytes.len() && m.encode_to_vec() == bytes).then_some(m)
}

/// `CDemoPacket.data`: field 3.
const PACKET_DATA: u8 = 3;

/// The length-delimited field `field` at the start of `bytes`, in the form
/// prost writes it (a one-byte key, the length as its shortest varint):
/// its body, and the bytes after it. `None` for any other form.
fn len_field(bytes: &[u8], field: u8) -> Option<(&[u8], &[u8])> {
    let (&key, rest) = bytes.split_first()?;
    if key != (field << 3 | 2) {
        return None;
    }
    let mut len = 0usize;
    for (i, &b) in rest.iter().enumerate().take(5) {
        len |= usize::from(b & 0x7f) << (7 * i);
        if b & 0x80 == 0 {
            let body = rest.get(i + 1..)?;
            // The shortest varint: prost writes no other.
            let shortest = i == 0 || b != 0;
            return (shortest && body.len() >= len).then(|| body.split_at(len));
        }
    }
    None
}

/// The bitstream of a `CDemoPacket` payload in the form its protobuf type
/// encodes (the `data` field alone, its length as a shortest varint), read
/// in place; `None` for any other form (then decoded and checked as any
/// other payload).
fn packet_data(payload: &[u8]) -> Option<&[u8]> {
    match len_field(payload, PACKET_DATA)? {
        (data, []) => Some(data),
        _ => None,
    }
}

/// A `CDemoFullPacket` payload in the form its protobuf type encodes: the
/// string tables (field 1), then the packet (field 2) in the form
/// [`packet_data`] reads, nothing else. The string tables' field whole (key
/// and length included), its body, and the packet's bitstream, read in
/// place; `None` for any other form.
fn full_packet_parts(payload: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let (tables, rest) = len_field(payload, 1)?;
    let tables_field = payload.get(..payload.len() - rest.len())?;
    match len_field(rest, 2)? {
        (packet, []) => Some((tables_field, tables, packet_data(packet)?)),
        _ => None,
    }
}

/// What comes before `len` bytes of the length-delimited field `field`:
/// its key and the length as a shortest varint (the first `.1` bytes of
/// `.0`).
fn field_head(field: u8, len: usize) -> ([u8; 11], usize) {
    let mut head = [0u8; 11];
    head[0] = field << 3 | 2;
    let mut n = len as u64;
    let mut at = 1;
    while n >= 0x80 {
        head[at] = (n as u8 & 0x7f) | 0x80;
        n >>= 7;
        at += 1;
    }
    head[at] = n as u8;
    (head, at + 1)
}

/// What comes before `len` bytes of bitstream in a `CDemoPacket` payload
/// (see [`field_head`]).
fn packet_head(len: usize) -> ([u8; 11], usize) {
    field_head(PACKET_DATA, len)
}

/// A `CDemoPacket` payload holding `data`: what its protobuf type encodes.
#[cfg(test)]
fn packet_payload(data: &[u8]) -> Vec<u8> {
    let (head, n) = packet_head(data.len());
    let mut out = Vec::with_capacity(data.len() + n);
    out.extend_from_slice(&head[..n]);
    out.extend_from_slice(data);
    out
}

/// Sets the head of a `CDemoPacket` payload built behind `written` head
/// bytes: the payload is written in one buffer, its head guessed (the
/// input's length, which a rebuilt packet mostly keeps) and set here to
/// the length the bitstream came to.
fn set_packet_head(payload: &mut Vec<u8>, written: usize) {
    let len = payload.len().saturating_sub(written);
    let (head, n) = packet_head(len);
    let head = head.get(..n).unwrap_or(&[]);
    match payload.get_mut(..written) {
        Some(place) if written == n => place.copy_from_slice(head),
        _ => {
            payload.splice(..written.min(payload.len()), head.iter().copied());
        }
    }
}

/// The format of a string table (what its entry bitstream depends on).
fn format_of(table: &StringTable) -> StringTable {
    StringTable {
        name: table.name.clone(),
        user_data_fixed_size: table.user_data_fixed_size,
        user_data_size_bits: table.user_data_size_bits,
        flags: table.flags,
        using_varint_bitcounts: table.using_varint_bitcounts,
        ..Default::default()
    }
}

/// Compresses string-table data into a raw snappy block.
fn snappy(data: &[u8]) -> Result<Vec<u8>, ErrorKind> {
    snap::raw::Encoder::new()
        .compress_vec(data)
        .map_err(|e| ErrorKind::Snappy {
            what: "string table data (compressing)",
            message: e.to_string(),
        })
}

/// The string tables as a packet sees them: those that existed before
/// its frame, then the ones the packet creates (or, after a
/// `CSVCMsg_ClearAllStringTables`, only those). Read from the state after
/// the frame: a table's format never changes once created, and tables are
/// only appended (or all cleared).
struct PacketTables<'s> {
    /// Tables before the frame.
    before: usize,
    /// The tables after the frame.
    after: &'s [StringTable],
    cleared: bool,
    created: Vec<StringTable>,
}

impl PacketTables<'_> {
    fn get(&self, id: i32) -> Option<&StringTable> {
        let id = usize::try_from(id).ok()?;
        let base = if self.cleared { 0 } else { self.before };
        if id < base {
            self.after.get(id)
        } else {
            // A table the frame created some other way (a full packet's
            // snapshot) is found in the state after it.
            self.created.get(id - base).or_else(|| self.after.get(id))
        }
    }
}

impl Rebuild {
    fn copy(&mut self, name: String, why: String, message: bool) {
        let entry = self.copied.entry(name).or_insert((0, why));
        entry.0 += 1;
        if message {
            self.messages_copied += 1;
        }
    }

    /// Counts a packet message copied; `why` is asked only for the first
    /// message of its name (the reason kept is the first one's).
    fn copy_message(&mut self, game: crate::Game, id: u32, why: impl FnOnce() -> String) {
        let name = self
            .names
            .entry(id)
            .or_insert_with(|| message_name_in(game, id));
        match self.copied.get_mut(name.as_str()) {
            Some(entry) => entry.0 += 1,
            None => {
                self.copied.insert(name.clone(), (1, why()));
            }
        }
        self.messages_copied += 1;
    }

    /// Adds the counts and one warning listing what was copied.
    pub(crate) fn report(&self, report: &mut EditReport) {
        report.messages_copied += self.messages_copied;
        if self.copied.is_empty() {
            return;
        }
        let list: Vec<String> = self
            .copied
            .iter()
            .map(|(name, (n, why))| format!("{name} ×{n} ({why})"))
            .collect();
        report.warnings.push(Warning {
            tick: -1,
            message: format!(
                "written as their original bytes, not from a decoded model: {}",
                list.join(", ")
            ),
        });
    }

    /// A frame payload of type `M`, from its model when that gives its
    /// bytes, else copied.
    fn proto<M: Message + Default>(&mut self, payload: &[u8], name: &str) -> Vec<u8> {
        match same_after::<M>(payload) {
            // Its model encodes to exactly these bytes.
            Some(_) => payload.to_vec(),
            None => {
                let why = match M::decode(payload) {
                    Ok(m) => {
                        match crate::message_writer::explain(payload, &m.encode_to_vec()).first() {
                            Some(d) => format!("its protobuf type re-encodes differently: {d}"),
                            None => "its protobuf type re-encodes differently".to_string(),
                        }
                    }
                    Err(_) => "it does not decode as its protobuf type".to_string(),
                };
                self.copy(name.to_string(), why, false);
                payload.to_vec()
            }
        }
    }

    /// The payload of a frame, rebuilt.
    /// `state` is the state after the frame, `tables_before` the number of
    /// string tables before it, `entities` the frame's svc_PacketEntities
    /// bodies encoded again (see [`EntityRewrite`](crate::entity_writer::EntityRewrite)).
    pub(crate) fn frame(
        &mut self,
        frame: &Frame<'_>,
        state: &DemoState,
        tables_before: usize,
        entities: &mut VecDeque<Result<Vec<u8>, String>>,
    ) -> Result<Vec<u8>, ErrorKind> {
        let p = &*frame.payload;
        use DemoCommand as C;
        Ok(match frame.command {
            C::Stop => self.proto::<pb::CDemoStop>(p, "CDemoStop"),
            C::FileHeader => self.proto::<pb::CDemoFileHeader>(p, "CDemoFileHeader"),
            C::FileInfo => self.proto::<pb::CDemoFileInfo>(p, "CDemoFileInfo"),
            C::SyncTick => self.proto::<pb::CDemoSyncTick>(p, "CDemoSyncTick"),
            C::SendTables => self.proto::<pb::CDemoSendTables>(p, "CDemoSendTables"),
            C::ClassInfo => self.proto::<pb::CDemoClassInfo>(p, "CDemoClassInfo"),
            C::StringTables => self.proto::<pb::CDemoStringTables>(p, "CDemoStringTables"),
            C::ConsoleCmd => self.proto::<pb::CDemoConsoleCmd>(p, "CDemoConsoleCmd"),
            C::CustomData => self.proto::<pb::CDemoCustomData>(p, "CDemoCustomData"),
            C::CustomDataCallbacks => {
                self.proto::<pb::CDemoCustomDataCallbacks>(p, "CDemoCustomDataCallbacks")
            }
            C::UserCmd => self.proto::<pb::CDemoUserCmd>(p, "CDemoUserCmd"),
            C::SaveGame => self.proto::<pb::CDemoSaveGame>(p, "CDemoSaveGame"),
            C::SpawnGroups => self.proto::<pb::CDemoSpawnGroups>(p, "CDemoSpawnGroups"),
            C::AnimationData => self.proto::<pb::CDemoAnimationData>(p, "CDemoAnimationData"),
            C::AnimationHeader => self.proto::<pb::CDemoAnimationHeader>(p, "CDemoAnimationHeader"),
            C::Recovery => self.proto::<pb::CDemoRecovery>(p, "CDemoRecovery"),
            C::Packet | C::SignonPacket => match packet_data(p) {
                // The usual form, read in place: no copy of the bitstream.
                Some(data) => {
                    let (head, n) = packet_head(data.len());
                    let head = head.get(..n).unwrap_or(&[]);
                    let mut payload = self.packet(data, head, state, tables_before, entities)?;
                    set_packet_head(&mut payload, n);
                    payload
                }
                None => match same_after::<pb::CDemoPacket>(p) {
                    Some(mut packet) => {
                        let data = packet.data.take().unwrap_or_default();
                        packet.data =
                            Some(self.packet(&data, &[], state, tables_before, entities)?);
                        packet.encode_to_vec()
                    }
                    None => {
                        self.copy(
                            "CDemoPacket".into(),
                            "not a CDemoPacket as we know it".into(),
                            false,
                        );
                        p.to_vec()
                    }
                },
            },
            C::FullPacket => match full_packet_parts(p) {
                // In place: the string tables, each encoding again to its
                // bytes, are written as those bytes, then the packet
                // rebuilt.
                Some((tables_field, tables, data)) if self.tables_encode_again(tables) => {
                    let bitstream = self.packet(data, &[], state, tables_before, entities)?;
                    let (inner, n) = packet_head(bitstream.len());
                    let (outer, m) = field_head(2, n + bitstream.len());
                    let mut payload = self
                        .spare
                        .take(tables_field.len() + m + n + bitstream.len());
                    payload.extend_from_slice(tables_field);
                    payload.extend_from_slice(outer.get(..m).unwrap_or(&[]));
                    payload.extend_from_slice(inner.get(..n).unwrap_or(&[]));
                    payload.extend_from_slice(&bitstream);
                    self.spare.give(bitstream);
                    payload
                }
                _ => self.full_packet(p, state, tables_before, entities)?,
            },
            C::Unknown(n) => {
                self.copy(
                    format!("DEM_Unknown({n})"),
                    "unknown demo command".into(),
                    false,
                );
                p.to_vec()
            }
        })
    }

    /// A `CDemoFullPacket` payload in another form than
    /// [`full_packet_parts`] reads: decoded, its packet rebuilt, encoded
    /// again, when the whole payload encodes again to its bytes; else
    /// copied.
    fn full_packet(
        &mut self,
        p: &[u8],
        state: &DemoState,
        tables_before: usize,
        entities: &mut VecDeque<Result<Vec<u8>, String>>,
    ) -> Result<Vec<u8>, ErrorKind> {
        Ok(match same_after::<pb::CDemoFullPacket>(p) {
            // The whole payload re-encodes to its bytes, so its string
            // tables do: they are written from their model as they are.
            Some(mut full) => {
                if let Some(packet) = full.packet.as_mut() {
                    let data = packet.data.take().unwrap_or_default();
                    packet.data = Some(self.packet(&data, &[], state, tables_before, entities)?);
                }
                full.encode_to_vec()
            }
            None => {
                self.copy(
                    "CDemoFullPacket".into(),
                    "not a CDemoFullPacket as we know it".into(),
                    false,
                );
                p.to_vec()
            }
        })
    }

    /// Whether a full packet's `CDemoStringTables` (its body) encodes again
    /// from its model to exactly its bytes: every table does (a table equal
    /// to the one at its place in the last full packet is known to), each
    /// in the form [`len_field`] reads.
    fn tables_encode_again(&mut self, mut body: &[u8]) -> bool {
        let mut at = 0;
        while !body.is_empty() {
            let Some((table, rest)) = len_field(body, 1) else {
                return false;
            };
            let checked = self.tables_checked.get(at).map(Vec::as_slice);
            if checked != Some(table) {
                if same_after::<pb::c_demo_string_tables::TableT>(table).is_none() {
                    return false;
                }
                match self.tables_checked.get_mut(at) {
                    Some(kept) => {
                        kept.clear();
                        kept.extend_from_slice(table);
                    }
                    None => self.tables_checked.push(table.to_vec()),
                }
            }
            body = rest;
            at += 1;
        }
        true
    }

    /// A packet bitstream, every message rebuilt, its padding kept, after
    /// the bytes of `head` (in the same buffer, so that a payload around
    /// the bitstream costs no copy of it).
    pub(crate) fn packet(
        &mut self,
        data: &[u8],
        head: &[u8],
        state: &DemoState,
        tables_before: usize,
        entities: &mut VecDeque<Result<Vec<u8>, String>>,
    ) -> Result<Vec<u8>, ErrorKind> {
        let mut messages = PacketMessages::new(data);
        // Room for the bitstream as it was and a little more (a rebuilt
        // entity message may come out a few bytes longer).
        let capacity = data.len() + data.len() / 64 + 16;
        let mut w =
            PacketWriter::with_head_in(self.spare.take(head.len() + capacity), head, capacity);
        let mut tables = PacketTables {
            before: tables_before,
            after: &state.string_tables,
            cleared: false,
            created: Vec::new(),
        };
        for m in messages.by_ref() {
            let m = m?;
            if m.id == 55 {
                let body = self.packet_entities(state, entities.pop_front(), &m.body);
                w.push(m.id, &body)?;
                self.spare.give(body);
            } else {
                match self.message(state, &mut tables, m.id, &m.body)? {
                    Some(body) => w.push(m.id, &body)?,
                    // Written as it was.
                    None => w.push(m.id, &m.body)?,
                }
            }
        }
        let (_, padding) = messages.padding();
        w.finish_with_padding(padding as u8)
    }

    /// A svc_PacketEntities body: as re-encoded from its records when that
    /// worked, else copied.
    fn packet_entities(
        &mut self,
        state: &DemoState,
        encoded: Option<Result<Vec<u8>, String>>,
        body: &[u8],
    ) -> Vec<u8> {
        match encoded {
            Some(Ok(bytes)) => bytes,
            Some(Err(_)) => {
                self.copy(
                    message_name_in(state.game, 55),
                    "its records could not be encoded again".into(),
                    true,
                );
                body.to_vec()
            }
            None => {
                self.copy(message_name_in(state.game, 55), "not decoded".into(), true);
                body.to_vec()
            }
        }
    }

    /// One packet message, rebuilt: `None` when it is written as its
    /// bytes (its model encodes to exactly them, or it is copied).
    fn message(
        &mut self,
        state: &DemoState,
        tables: &mut PacketTables<'_>,
        id: u32,
        body: &[u8],
    ) -> Result<Option<Vec<u8>>, ErrorKind> {
        let rebuilt = match id {
            44 => self.create_string_table(tables, body)?,
            45 => self.update_string_table(tables, body)?,
            _ => {
                if id == 51 {
                    tables.cleared = true;
                    tables.created.clear();
                }
                // Encoded into one reused buffer; when that gives the
                // body's bytes, the body is what is written.
                let mut out = std::mem::take(&mut self.encoded);
                let reencoded =
                    crate::message_writer::reencode_into(state.game, id, body, &mut out);
                match reencoded {
                    Some(Ok(())) if out == body => {}
                    Some(Ok(())) => {
                        self.copy_message(state.game, id, || match crate::message_writer::explain(
                            body, &out,
                        )
                        .first()
                        {
                            Some(d) => format!("its protobuf type re-encodes differently: {d}"),
                            None => "its protobuf type re-encodes differently".to_string(),
                        });
                    }
                    Some(Err(_)) => {
                        let why = "it does not decode as its protobuf type";
                        self.copy_message(state.game, id, || why.into());
                    }
                    None => {
                        let why = "no protobuf type for its id";
                        self.copy_message(state.game, id, || why.into());
                    }
                }
                self.encoded = out;
                return Ok(None);
            }
        };
        if rebuilt.is_none() {
            let why = "its protobuf type re-encodes differently";
            self.copy_message(state.game, id, || why.into());
        }
        Ok(rebuilt)
    }

    /// A `CSVCMsg_CreateStringTable`: its entries read and written again.
    fn create_string_table(
        &mut self,
        tables: &mut PacketTables<'_>,
        body: &[u8],
    ) -> Result<Option<Vec<u8>>, ErrorKind> {
        let Some(mut m) = same_after::<pb::CSvcMsgCreateStringTable>(body) else {
            return Ok(None);
        };
        let format = StringTable {
            name: m.name.clone().unwrap_or_default(),
            user_data_fixed_size: m.user_data_fixed_size(),
            user_data_size_bits: m.user_data_size_bits().max(0) as u32,
            flags: m.flags(),
            using_varint_bitcounts: m.using_varint_bitcounts(),
            ..Default::default()
        };
        let raw = m.string_data.take().unwrap_or_default();
        let data = if m.data_compressed() {
            crate::stringtable::decompress(&raw, "string table data")?
        } else {
            raw
        };
        let entries = read_entry_stream(&format, &data, m.num_entries())?;
        let data = write_entry_stream(&format, &entries)?;
        m.string_data = Some(if m.data_compressed() {
            snappy(&data)?
        } else {
            data
        });
        tables.created.push(format);
        Ok(Some(m.encode_to_vec()))
    }

    /// A `CSVCMsg_UpdateStringTable`: its entries read and written again
    /// in the format of the table it updates.
    fn update_string_table(
        &mut self,
        tables: &PacketTables<'_>,
        body: &[u8],
    ) -> Result<Option<Vec<u8>>, ErrorKind> {
        let Some(mut m) = same_after::<pb::CSvcMsgUpdateStringTable>(body) else {
            return Ok(None);
        };
        let Some(table) = tables.get(m.table_id()) else {
            return Err(ErrorKind::StringTable {
                table: crate::error::TableRef::Id(m.table_id()),
                problem: crate::error::StringTableError::NoSuchTable,
            });
        };
        let format = format_of(table);
        let raw = m.string_data.take().unwrap_or_default();
        let entries = read_entry_stream(&format, &raw, m.num_changed_entries())?;
        m.string_data = Some(write_entry_stream(&format, &entries)?);
        Ok(Some(m.encode_to_vec()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(name: &str, items: usize) -> pb::c_demo_string_tables::TableT {
        pb::c_demo_string_tables::TableT {
            table_name: Some(name.to_string()),
            items: (0..items)
                .map(|i| pb::c_demo_string_tables::ItemsT {
                    str: Some(format!("{name}{i}")),
                    data: Some(vec![i as u8; i % 7]),
                })
                .collect(),
            items_clientside: Vec::new(),
            table_flags: Some(1),
        }
    }

    /// A full packet as its protobuf type encodes it is read in place: its
    /// string tables' field as it is, and the packet's bitstream; other
    /// forms are left to the protobuf type.
    #[test]
    fn full_packets_are_read_in_place_in_their_protobuf_form() -> Result<(), String> {
        let data: Vec<u8> = (0..70_000).map(|i| (i % 253) as u8).collect();
        let tables = pb::CDemoStringTables {
            tables: vec![table("userinfo", 40), table("instancebaseline", 300)],
        };
        let full = pb::CDemoFullPacket {
            string_table: Some(tables.clone()),
            packet: Some(pb::CDemoPacket {
                data: Some(data.clone()),
            }),
        }
        .encode_to_vec();
        let (field, body, bitstream) = full_packet_parts(&full).ok_or("not read in place")?;
        if bitstream != data.as_slice() || body != tables.encode_to_vec().as_slice() {
            return Err("read otherwise".into());
        }
        // The field whole: key, length, body; then the packet's field.
        let (head, n) = field_head(1, body.len());
        if field.get(..n) != head.get(..n) || field.len() != n + body.len() {
            return Err("the string tables' field".into());
        }
        // Packet first, a field after the packet, no packet: not in place.
        let packet_first = [&full[field.len()..], field].concat();
        let mut trailing = full.clone();
        trailing.extend_from_slice(&[0x18, 1]);
        for odd in [packet_first, trailing, field.to_vec()] {
            if full_packet_parts(&odd).is_some() {
                return Err("an odd form read in place".into());
            }
        }
        Ok(())
    }

    /// A full packet's string tables are taken as encoding again to their
    /// bytes when each table does: checked once, then known while a table
    /// repeats its bytes; a table in a form its type does not write (here
    /// a length as a longer varint) is not.
    #[test]
    fn full_packet_string_tables_are_checked_table_by_table() -> Result<(), String> {
        let mut model = Rebuild::default();
        let first = pb::CDemoStringTables {
            tables: vec![table("a", 3), table("b", 5)],
        }
        .encode_to_vec();
        if !model.tables_encode_again(&first) || !model.tables_encode_again(&first) {
            return Err("tables in their protobuf form".into());
        }
        let kept = model.tables_checked.clone();
        // One table changes: checked again, the other still known.
        let second = pb::CDemoStringTables {
            tables: vec![table("a", 3), table("b", 6)],
        }
        .encode_to_vec();
        if !model.tables_encode_again(&second) || model.tables_checked.first() != kept.first() {
            return Err("a changed table".into());
        }
        // The first table's length written in two bytes: the type would
        // write one.
        let one = table("a", 1).encode_to_vec();
        let mut odd = vec![0x0a, 0x80 | one.len() as u8, 0x00];
        odd.extend_from_slice(&one);
        if model.tables_encode_again(&odd) {
            return Err("a longer varint taken".into());
        }
        // A table whose bytes are not its type's encoding (a field twice).
        let mut twice = table("c", 2).encode_to_vec();
        twice.extend_from_slice(&[0x20, 0x01]);
        let mut dup = field_head(1, twice.len()).0[..field_head(1, twice.len()).1].to_vec();
        dup.extend_from_slice(&twice);
        if model.tables_encode_again(&dup) {
            return Err("a table that encodes otherwise taken".into());
        }
        Ok(())
    }

    /// The in-place reading and the writing of a packet payload agree with
    /// the protobuf type, at every varint length of the size.
    #[test]
    fn packet_payloads_read_and_write_as_their_protobuf_type() -> Result<(), String> {
        for len in [0usize, 1, 127, 128, 300, 16_383, 16_384, 70_000, 2_100_000] {
            let data: Vec<u8> = (0..len).map(|i| (i % 251) as u8).collect();
            let proto = pb::CDemoPacket {
                data: Some(data.clone()),
            }
            .encode_to_vec();
            if packet_payload(&data) != proto {
                return Err(format!("{len} bytes: written differently"));
            }
            if packet_data(&proto) != Some(&data[..]) {
                return Err(format!("{len} bytes: not read in place"));
            }
        }
        // Other forms are left to the protobuf type: a longer varint, a
        // field after the data, another field, nothing.
        for odd in [
            vec![PACKET_DATA << 3 | 2, 0x81, 0x00, 7],
            vec![PACKET_DATA << 3 | 2, 1, 7, 8, 0],
            vec![0x08, 1],
            vec![],
        ] {
            if packet_data(&odd).is_some() {
                return Err(format!("{odd:?} read in place"));
            }
        }
        Ok(())
    }
}
